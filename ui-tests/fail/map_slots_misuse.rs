use phasegate::prelude::*;

// Tensor-map slots are a kernel parameter that only `map.edit` and `map.published` take.

// Not a device function's parameter: the kernel that owns the slots writes its maps.
#[device]
fn write(a: TensorMap<bf16, Tile2<64, 64>, Swizzle128B>, maps: &mut [TensorMapSlot]) {
    a.edit(maps, 0).release();
}

#[kernel(target = "sm_90a", block = "128,1,1")]
fn k(a: TensorMap<bf16, Tile2<64, 64>, Swizzle128B>, maps: &mut [TensorMapSlot]) {
    write(a, maps);
    // Slots are not elements to read.
    let x = maps[0];
}

fn main() {}
