use phasegate::prelude::*;

// A multicast writes every CTA's stage: it needs a cluster pipeline.
#[kernel(target = "sm_90a", cluster = "2,1,1")]
fn local(a: TensorMap<f32, Tile2<16, 16>>, b: TensorMap<f32, Tile2<16, 8>>) {
    let pipe = pipeline::<f32, 2, 512>(thread_idx_x() == 0, 1, 128);
    pipe.producer().acquire().load_tiles_multicast(&a, [0, 0], &b, [0, 0]);
}

// The pipeline's CTAs are the kernel's cluster; here 4 CTAs would each send a half of `b`.
#[kernel(target = "sm_90a", cluster = "4,1,1")]
fn mismatched(a: TensorMap<f32, Tile2<16, 16>>, b: TensorMap<f32, Tile2<16, 8>>) {
    let pipe = pipeline_cluster::<f32, 2, 512, 2>(thread_idx_x() == 0, 1, 128);
    pipe.producer().acquire().load_tiles_multicast(&a, [0, 0], &b, [0, 0]);
}

// Three CTAs' slices of `b` and one tile of `a` are 2560 bytes; the stage is 2048.
#[kernel(target = "sm_90a", cluster = "3,1,1")]
fn overfull(a: TensorMap<f32, Tile2<16, 16>>, b: TensorMap<f32, Tile2<16, 8>>) {
    let pipe = pipeline_cluster::<f32, 2, 512, 3>(thread_idx_x() == 0, 1, 128);
    pipe.producer().acquire().load_tiles_multicast(&a, [0, 0], &b, [0, 0]);
}

// Without a cluster shape there is nothing to multicast to.
#[kernel(target = "sm_90a")]
fn no_cluster() {
    let _pipe = pipeline_cluster::<f32, 2, 512, 2>(thread_idx_x() == 0, 1, 128);
}

fn main() {}
