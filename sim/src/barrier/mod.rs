//! The three barrier families of the PTX ISA: named CTA barriers (`bar`/`barrier`), mbarrier
//! objects in shared memory, and the cluster barrier.
//!
//! Each is a state machine with the spec's semantics and no knowledge of the machine: its
//! operations take thread ids, lane masks and counts and return what happened (threads to
//! wake, a completed phase) or the rule broken as a `Violation`. Reading operands,
//! blocking and waking warps and naming sites are the machine's (`exec::barrier`,
//! `exec::mbar`), so the dependency runs one way: machine → barrier. What the three share —
//! the sites of an operation and the rule broken — is in `violation`, below all three.

pub(crate) mod cluster;
pub(crate) mod mbarrier;
pub(crate) mod named;
mod violation;

pub(crate) use violation::{At, Violation, Who};
