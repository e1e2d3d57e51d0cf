//! Every instruction form of the barrier vocabulary (issue: "each lowers to exactly the PTX
//! the spec defines; ptxas validates each form") is emitted by at least one kernel that
//! `tests/ptxas.rs` assembles. This test reads those kernels' PTX back and checks that each
//! form, named by its full dotted opcode, is really there.

mod kernels;

#[path = "../examples/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

use phasegate::ptx::{self, Operand, Statement};
use std::collections::BTreeMap;

/// Full instruction names (`mbarrier.try_wait.parity.shared::cta.b64`) with their operand
/// lists, over all vocabulary kernels.
fn forms() -> BTreeMap<String, Vec<Vec<Operand>>> {
    let mut texts: Vec<&str> = kernels::VOCABULARY.iter().map(|(_, p, _)| *p).collect();
    texts.push(pipeline::scale_pipeline::PTX);
    let mut forms: BTreeMap<String, Vec<Vec<Operand>>> = BTreeMap::new();
    for text in texts {
        let module = ptx::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for f in module.functions() {
            for (_, s) in f.body.iter().flat_map(|b| b.iter()) {
                if let Statement::Instruction(i) = s {
                    forms
                        .entry(i.full_name())
                        .or_default()
                        .push(i.operands.clone());
                }
            }
        }
    }
    forms
}

const REQUIRED: &[&str] = &[
    // named barriers, PTX ISA §9.7.13.1
    "bar.sync",
    "barrier.sync",
    "bar.arrive",
    "barrier.arrive",
    "bar.red.popc.u32",
    "bar.red.and.pred",
    "bar.red.or.pred",
    "barrier.red.popc.u32",
    "barrier.red.and.pred",
    "barrier.red.or.pred",
    "bar.cta.sync",
    "barrier.cta.sync",
    "bar.cta.arrive",
    "barrier.cta.arrive",
    "bar.cta.red.popc.u32",
    "bar.cta.red.and.pred",
    "barrier.cta.red.or.pred",
    // cluster barrier, §9.7.13.2, and distributed shared memory
    "barrier.cluster.arrive",
    "barrier.cluster.arrive.release",
    "barrier.cluster.arrive.relaxed",
    "barrier.cluster.arrive.aligned",
    "barrier.cluster.arrive.release.aligned",
    "barrier.cluster.arrive.relaxed.aligned",
    "barrier.cluster.wait",
    "barrier.cluster.wait.acquire",
    "barrier.cluster.wait.aligned",
    "barrier.cluster.wait.acquire.aligned",
    "mapa.shared::cluster.u32",
    "ld.shared::cluster.f32",
    // mbarrier, §9.7.13.15
    "mbarrier.init.shared::cta.b64",
    "mbarrier.inval.shared::cta.b64",
    "mbarrier.arrive.shared::cta.b64",
    "mbarrier.arrive.expect_tx.shared::cta.b64",
    "mbarrier.arrive.noComplete.shared::cta.b64",
    "mbarrier.arrive.release.cta.shared::cta.b64",
    "mbarrier.arrive.relaxed.cluster.shared::cta.b64",
    "mbarrier.arrive.relaxed.cta.shared::cta.b64",
    "mbarrier.arrive.release.cluster.shared::cluster.b64",
    "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64",
    "mbarrier.arrive_drop.shared::cta.b64",
    "mbarrier.arrive_drop.expect_tx.shared::cta.b64",
    "mbarrier.arrive_drop.noComplete.shared::cta.b64",
    "mbarrier.arrive_drop.relaxed.cta.shared::cta.b64",
    "mbarrier.arrive_drop.release.cluster.shared::cluster.b64",
    "mbarrier.expect_tx.shared::cta.b64",
    "mbarrier.complete_tx.shared::cta.b64",
    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
    "mbarrier.complete_tx.relaxed.cluster.shared::cta.b64",
    "mbarrier.test_wait.shared::cta.b64",
    "mbarrier.test_wait.parity.shared::cta.b64",
    "mbarrier.try_wait.shared::cta.b64",
    "mbarrier.try_wait.parity.shared::cta.b64",
    "mbarrier.try_wait.relaxed.cluster.shared::cta.b64",
    "mbarrier.try_wait.acquire.cta.shared::cta.b64",
    "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64",
    "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64",
    "mbarrier.pending_count.b64",
    "cp.async.mbarrier.arrive.shared::cta.b64",
    "cp.async.mbarrier.arrive.noinc.shared::cta.b64",
    "fence.mbarrier_init.release.cluster",
    // asynchronous copies and fences
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
    "cp.async.bulk.global.shared::cta.bulk_group",
    "cp.async.bulk.commit_group",
    "cp.async.bulk.wait_group",
    "cp.async.bulk.wait_group.read",
    "cp.async.ca.shared.global",
    "cp.async.cg.shared.global",
    "fence.proxy.async.shared::cta",
    "fence.acq_rel.cta",
    "fence.acq_rel.cluster",
    "fence.acq_rel.gpu",
    "fence.acq_rel.sys",
    "fence.sc.cta",
    "fence.sc.cluster",
    "fence.sc.gpu",
    "fence.sc.sys",
    "membar.cta",
    "membar.gl",
    "membar.sys",
    "elect.sync",
    "nanosleep.u32",
    // tensor maps a kernel writes, §9.7.9.26 and §9.7.13.4
    "tensormap.replace.tile.global_address.global.b1024.b64",
    "tensormap.replace.tile.global_dim.global.b1024.b32",
    "fence.proxy.tensormap::generic.release.gpu",
    "fence.proxy.tensormap::generic.acquire.gpu",
];

#[test]
fn every_form_of_the_vocabulary_is_emitted() {
    let forms = forms();
    let missing: Vec<&&str> = REQUIRED
        .iter()
        .filter(|f| !forms.contains_key(**f))
        .collect();
    assert!(
        missing.is_empty(),
        "forms never emitted: {missing:?}\nemitted: {:#?}",
        forms.keys().collect::<Vec<_>>()
    );
}

#[test]
fn operand_variants_are_emitted() {
    let forms = forms();
    let has = |name: &str, pred: &dyn Fn(&[Operand]) -> bool| {
        forms
            .get(name)
            .is_some_and(|all| all.iter().any(|ops| pred(ops)))
    };
    // with and without a thread count
    assert!(has("bar.sync", &|o| o.len() == 1) && has("bar.sync", &|o| o.len() == 2));
    assert!(
        has("bar.red.popc.u32", &|o| o.len() == 3) && has("bar.red.popc.u32", &|o| o.len() == 4)
    );
    // the negated predicate of bar.red
    assert!(has("bar.red.popc.u32", &|o| matches!(
        o.last(),
        Some(Operand::Not(_))
    )));
    assert!(has("bar.red.or.pred", &|o| matches!(
        o.last(),
        Some(Operand::Not(_))
    )));
    // run-time id and count
    assert!(has("bar.sync", &|o| matches!(
        o.first(),
        Some(Operand::Reg(_))
    )));
    // arrive with a count; arrive_drop with a count; a sink state for arrive_drop
    assert!(has("mbarrier.arrive.shared::cta.b64", &|o| o.len() == 3));
    assert!(has("mbarrier.arrive_drop.shared::cta.b64", &|o| o.len() == 3));
    assert!(has("mbarrier.arrive_drop.shared::cta.b64", &|o| o.first()
        == Some(&Operand::Sink)));
    // suspendTimeHint on try_wait and try_wait.parity
    assert!(has("mbarrier.try_wait.shared::cta.b64", &|o| o.len() == 4));
    assert!(has("mbarrier.try_wait.parity.shared::cta.b64", &|o| o
        .len()
        == 4));
    // cluster shape directive
    let cluster = ptx::parse(kernels::vocabulary::cluster_forms::PTX).expect("parses");
    let f = cluster.function("cluster_forms").expect("entry");
    assert!(
        f.directives.iter().any(|d| d.name == "reqnctapercluster"),
        "{:?}",
        f.directives
    );
}
