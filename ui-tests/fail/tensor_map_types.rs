use phasegate::prelude::*;

// A box dimension over 256 elements: the copy engine refuses it.
#[kernel(target = "sm_90a")]
fn too_tall(a: TensorMap<f32, Tile2<32, 512>>) {}

// 64 floats are 256 bytes a row, wider than the 128-byte swizzle span.
#[kernel(target = "sm_90a")]
fn too_wide(a: TensorMap<f32, Tile2<64, 8>, Swizzle128B>) {}

// Rows of 3 floats are 12 bytes: the copy engine moves multiples of 16.
#[kernel(target = "sm_90a")]
fn ragged(a: TensorMap<f32, Tile2<3, 8>>) {}

// Not an element type, a rank out of range, a swizzle that does not exist.
#[kernel(target = "sm_90a")]
fn misnamed(
    a: TensorMap<bool, Tile2<4, 4>>,
    b: TensorMap<f32, Tile6<4, 4, 4, 4, 4, 4>>,
    c: TensorMap<f32, Tile2<4, 4>, Swizzle16B>,
    d: TensorMap<f32, Tile2<4>>,
) {
}

fn main() {}
