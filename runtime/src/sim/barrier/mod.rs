//! The three barrier families of the PTX ISA: named CTA barriers (`bar`/`barrier`), mbarrier
//! objects in shared memory, and the cluster barrier.

pub(crate) mod cluster;
pub(crate) mod mbarrier;
pub(crate) mod named;
