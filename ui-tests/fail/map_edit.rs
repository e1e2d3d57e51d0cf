use phasegate::prelude::*;

// Tensor maps a kernel writes: `map.edit(slots, i)`, a chain of `tensormap.replace` that ends
// in `.release()`, then `map.published(slots, i)` for the copies (PTX ISA §9.7.9.26, §9.7.13.4).
#[kernel(target = "sm_90a", block = "128,1,1")]
fn k(
    a: TensorMap<bf16, Tile2<64, 64>, Swizzle128B>,
    data: &[bf16],
    words: &[u32],
    maps: &mut [TensorMapSlot],
    rows: u32,
) {
    // Never released: no copy may read it.
    a.edit(maps, 0).address(data, 0);
    // A chain, not a value.
    let edit = a.edit(maps, 1);
    // The slice's elements are not the map's.
    a.edit(maps, 2).address(words, 0).release();
    // A rank-2 map has dimensions 0 and 1.
    a.edit(maps, 3).global_dim(2, rows).release();
    // The dimension is an immediate.
    a.edit(maps, 4).global_dim(rows, rows).release();
    // Not a method of an edit.
    a.edit(maps, 5).box_dim(0, 64).release();
    // Slots are the `&mut [TensorMapSlot]` parameter, not a data slice.
    a.edit(data, 6).release();
}

// Slots the kernel could not write.
#[kernel(target = "sm_90a", block = "128,1,1")]
fn read_only(maps: &[TensorMapSlot]) {}

fn main() {}
