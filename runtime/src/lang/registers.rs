//! Warp-group register budgets (`setmaxnreg`, PTX ISA §9.7.19.5).
//!
//! A warp-specialised kernel moves registers between warp groups: the producer, which only
//! issues copies, gives registers back to the CTA's pool (`setmaxnreg.dec`), and the consumers,
//! which hold accumulators, take them (`setmaxnreg.inc`). An `inc` waits until the pool has the
//! registers, so a kernel whose roles take more than the others gave back hangs. Here every
//! role states its new count and how many warp groups take it; `#[kernel]` checks that the
//! roles fit the block and that what they take is what the others released, on the kernel's
//! `max_registers` (`.maxnreg`, the count every warp group starts with).

use super::outside_kernel;

/// The `N` registers per thread every warp group starts with (`#[kernel(max_registers = N)]`).
/// Each warp group adjusts it once, by the role it takes.
pub struct Registers<const N: u32>(());

/// What a warp group's role left it: `N` registers per thread.
pub struct RoleRegisters<const N: u32>(());

/// The kernel's register budget: `N` must be the kernel's `max_registers`. Every thread may
/// call it; it emits nothing.
pub fn warpgroup_registers<const N: u32>() -> Registers<N> {
    outside_kernel("warpgroup_registers")
}

impl<const N: u32> Registers<N> {
    /// `setmaxnreg.dec.sync.aligned.u32 TO`: this warp group gives `N - TO` registers per
    /// thread back to the CTA's pool; `GROUPS` warp groups take this role. Every warp of the
    /// warp group executes it.
    pub fn release<const TO: u32, const GROUPS: u32>(self) -> RoleRegisters<TO> {
        outside_kernel("Registers::release")
    }
    /// `setmaxnreg.inc.sync.aligned.u32 TO`: this warp group takes `TO - N` registers per
    /// thread from the pool (waiting until others released them); `GROUPS` warp groups take
    /// this role.
    pub fn claim<const TO: u32, const GROUPS: u32>(self) -> RoleRegisters<TO> {
        outside_kernel("Registers::claim")
    }
}
