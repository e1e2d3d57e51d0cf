//! Settles a kernel's `.target` and `.version` from the features its PTX uses.
//!
//! A kernel without `target = ...` gets the lowest architecture, from sm_80 up, that has every
//! feature it uses. A pinned kernel that uses a feature its target lacks gets an error on the
//! Rust tokens that produced the instruction, naming the feature, what it needs and the spec.
//! The `.version` is always the lowest PTX ISA that covers the target and every feature.

use crate::diag::Diagnostics;
use phasegate_ptx::validate::{check_features, required_version};
use phasegate_ptx::{Module, SmVersion};
use proc_macro2::Span;

pub fn settle(
    module: &mut Module,
    pinned: Option<SmVersion>,
    spans: &[Span],
    diag: &mut Diagnostics,
) {
    match pinned {
        Some(sm) => {
            module.target.sm = sm;
            module.version = required_version(module);
            for error in check_features(module) {
                let span = error
                    .stmt
                    .and_then(|id| spans.get(id.index()).copied())
                    .unwrap_or_else(Span::call_site);
                diag.error(span, format!("{error}; raise `target` or do without it"));
            }
        }
        None => {
            module.target.sm = SmVersion::new(80);
            // Each feature that the target lacks raises the target to what it needs.
            for error in check_features(module) {
                let need = error.feature.sm;
                if !module.target.sm.satisfies(need)
                    && (need.number > module.target.sm.number || need.suffix.is_some())
                {
                    module.target.sm = need;
                }
            }
            // ptxas advises against `.multicast::cluster` on any target but the `a` ones.
            let multicast = module
                .functions()
                .filter_map(|f| f.body.as_ref())
                .any(|b| b.instructions().any(|(_, i)| i.has("multicast::cluster")));
            if multicast && module.target.sm.number == 90 {
                module.target.sm = SmVersion::arch_specific(90);
            }
            module.version = required_version(module);
        }
    }
}
