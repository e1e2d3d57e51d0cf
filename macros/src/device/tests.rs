//! Device functions never panic the expansion: mutated device functions, expanded by
//! `#[device]` and then inlined into a kernel through the last step of the chain, give spanned
//! errors or PTX that ptxas accepts, never a panic or an internal error.

use crate::device::chain;
use crate::expand;
use crate::robustness::{assemble, mutate, mutation, ptx_const, tokens};
use proc_macro2::TokenStream;
use proptest::prelude::*;
use quote::quote;
use std::str::FromStr;

/// (device function, kernel attribute, kernel calling it as `f`).
const SEEDS: &[(&str, &str, &str)] = &[
    (
        "fn f<const N: u32>(x: &[f32], base: u32) -> f32 { let mut s = 0.0f32; for k in 0..N { s += x[base + k]; } if s > 100.0 { return 100.0; } s }",
        "",
        "fn k(x: &[f32], y: &mut [f32]) { let t = thread_idx_x(); y[t] = f::<4>(x, t); }",
    ),
    (
        "fn f<const N: usize>(sums: &mut SharedArray<f32, N>, t: u32) { if t < N as u32 / 2 { sums[t] = sums[t] + sums[t + 1]; } sync_threads(); }",
        "",
        "fn k(y: &mut [f32]) { let mut s = shared_array::<f32, 64>(); let t = thread_idx_x(); s[t] = 1.0; sync_threads(); f(&mut s, t); y[t] = s[0]; }",
    ),
    (
        "fn f(bar: MBarrier<Ready<Even>>, out: &mut [u32], t: u32) -> MBarrier<Ready<Odd>> { out[t] = 1; bar.arrive().wait() }",
        "target = \"sm_90\"",
        "fn k(out: &mut [u32]) { let t = thread_idx_x(); let bar = mbarrier().init(t == 0, block_dim_x()).publish_cta(); let bar = f(bar, out, t); sync_threads(); bar.inval(t == 0); }",
    ),
    (
        "fn f(slot: ConsumerSlot<'_, f32, 2, 256>, y: &mut [f32], t: u32) { y[t] = slot.get(t); slot.release(); }",
        "target = \"sm_90a\"",
        "fn k(x: &[f32], y: &mut [f32]) { let pipe = pipeline::<f32, 2, 256>(thread_idx_x() == 0, 1, 32); if warp_id() == 0 { if elect_one() { let mut p = pipe.producer(); p.acquire().load(x, 0); } } else { let mut c = pipe.consumer(); f(c.wait(), y, lane_id()); } }",
    ),
];

/// Expands the device function, then the kernel with it: `Ok(Some(ptx))` for a kernel
/// without errors, `Ok(None)` for spanned errors, `Err` for a panic or an internal error.
fn expand_with_device(device: &str, attr: &str, kernel: &str) -> Result<Option<String>, String> {
    let (Ok(device), Ok(attr), Ok(kernel)) = (
        TokenStream::from_str(device),
        TokenStream::from_str(attr),
        TokenStream::from_str(kernel),
    ) else {
        return Ok(None);
    };
    let out = std::panic::catch_unwind(|| expand::device(TokenStream::new(), device.clone()))
        .map_err(|_| "#[device] panicked".to_string())?
        .to_string();
    if out.contains("internal error") {
        return Err(format!("internal error: {out}"));
    }
    // Its entry says whether it had errors (its macro's fallback arm is a `compile_error!`
    // in any case).
    let poisoned = out.contains(" poisoned {");
    let (Ok(func), Ok(item)) = (
        syn::parse2::<syn::ItemFn>(device),
        syn::parse2::<syn::ItemFn>(kernel),
    ) else {
        return Ok(None);
    };
    let entry = chain::own_entry(&func, poisoned, &[]);
    let name = func.sig.ident.to_string();
    let state = quote!(@kernel { #attr } { #item } [] (f) "" #name #entry);
    let out = std::panic::catch_unwind(|| expand::step(state))
        .map_err(|_| "the chain's last step panicked".to_string())?;
    let text = out.to_string();
    if text.contains("internal error") {
        return Err(format!("internal error: {text}"));
    }
    if text.contains("compile_error") || poisoned {
        return Ok(None);
    }
    let file: syn::File =
        syn::parse2(out).map_err(|e| format!("expansion is not valid Rust: {e}"))?;
    let ptx = ptx_const(&file).ok_or("no PTX constant and no error")?;
    if ptx.is_empty() {
        return Err("empty PTX without an error".into());
    }
    Ok(Some(ptx))
}

#[test]
fn every_seed_inlines_and_assembles() {
    for (device, attr, kernel) in SEEDS {
        let ptx = expand_with_device(device, attr, kernel)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_else(|| panic!("seed has errors: {device}"));
        assert!(!ptx.contains("call"), "{ptx}");
        assemble(&ptx).unwrap_or_else(|e| panic!("{e}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn mutated_device_functions_give_valid_ptx_or_spanned_errors(seed in 0..SEEDS.len(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let (device, attr, kernel) = SEEDS[seed];
        let device = mutate(tokens(device), &mutations);
        match expand_with_device(&device, attr, kernel) {
            Ok(Some(ptx)) => prop_assert!(assemble(&ptx).is_ok(), "{}", assemble(&ptx).unwrap_err()),
            Ok(None) => {}
            Err(e) => prop_assert!(false, "{e}\ninput: {device}"),
        }
    }

    #[test]
    fn mutated_calls_give_valid_ptx_or_spanned_errors(seed in 0..SEEDS.len(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let (device, attr, kernel) = SEEDS[seed];
        let kernel = mutate(tokens(kernel), &mutations);
        match expand_with_device(device, attr, &kernel) {
            Ok(Some(ptx)) => prop_assert!(assemble(&ptx).is_ok(), "{}", assemble(&ptx).unwrap_err()),
            Ok(None) => {}
            Err(e) => prop_assert!(false, "{e}\ninput: {kernel}"),
        }
    }
}
