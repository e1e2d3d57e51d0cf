//! placeholder until the crate lands
