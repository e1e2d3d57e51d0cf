use phasegate::prelude::*;

#[kernel]
fn k(x: &[bf16], y: &mut [bf16], h: &[f16], d: &[f64], q: &mut [f8e5m2]) {
    let i = thread_idx_x();
    y[i] = x[i] + x[i];
    let mut acc = x[i];
    acc *= x[i];
    y[i] = -acc;
    y[i] = max(x[i], x[i]);
    q[i] = d[i] as f8e5m2;
    q[i] = i as f8e5m2;
    y[i] = h[i].sqrt();
    const HALF: bf16 = 0.5;
    let one: f16 = 1.0;
    y[i] = 0.0;
    q[i] = true as f8e5m2;
}

fn main() {}
