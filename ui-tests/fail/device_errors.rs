use phasegate::prelude::*;

/// A language error in a device function is reported once, however many kernels call it.
#[device]
fn halve(x: f32) -> f32 {
    let v = match x { _ => x };
    v * 0.5
}

#[device]
fn scratch(t: u32) -> u32 {
    let mut tile = shared_array::<u32, 32>();
    tile[t] = t;
    tile[t]
}

#[device]
fn sum<const N: u32>(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for k in 0..N {
        s += x[k];
    }
    s
}

#[device]
fn generic<T>(x: T) -> T {
    x
}

#[kernel]
fn a(y: &mut [f32]) {
    y[0] = halve(1.0);
}

#[kernel]
fn b(y: &mut [f32], x: &[f32]) {
    y[1] = halve(2.0);
    y[2] = sum(x);
    y[3] = scratch(0) as f32;
}

fn main() {}
