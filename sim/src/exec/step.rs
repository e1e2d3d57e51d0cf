//! What executing an op did to its group: the result of the instructions that may block
//! (`sync`, `tma`, `tensor`), which the scheduling loop in `exec` acts on.

/// What an op did to its group.
pub(crate) enum Step {
    Next,
    /// End the slice; the given lanes blocked (the rest continue at the next op).
    Yield(u32),
}
