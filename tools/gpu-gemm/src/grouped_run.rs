//! The binary's grouped mode, `gemm-bench --grouped SPEC` (declared by main.rs; the problems
//! themselves, their offsets and the per-group check are the library's `grouped`).
//!
//! For each grouped problem: deterministic random bf16 A `[ΣM, K]` and B `[G, N, K]`; the
//! kernel's C from one launch on a poisoned buffer, checked against a loop of cuBLASLt matmuls
//! (one per non-empty group, pointers offset into the shared buffers) element by element and
//! against float64 sums of sampled elements of every group; the same checks of cuBLAS's
//! `cublasGemmGroupedBatchedEx` where the library has it. The faster of the two references
//! (timed briefly before the rounds) is "cuBLAS" in the ratio; both are timed in every round,
//! each call or loop of calls between two events on one stream, the sides taking turns as in
//! the plain mode. `ROUND r ratio X again Y` lines go to stdout and to
//! `--rounds-dir`/rounds_grouped_LABEL.log for `tools/gpu-bench/ratios.py`.

use super::{
    Args, ClockSampler, Clocks, Dtype, KernelSide, end_round, end_rounds, kernel_side,
    l2_promotion, tensor_map, time_round,
};
use phasegate_gemm_bench::cublas::{Cublas, GroupedGemm, RowMajor};
use phasegate_gemm_bench::cublaslt::{Alignment, CublasLt, Plan, Precision};
use phasegate_gemm_bench::gpu::{DeviceBuffer, Stream, TensorMapBytes};
use phasegate_gemm_bench::grouped::{self, Grouped};
use phasegate_gemm_bench::median;
use phasegate_gemm_bench::numeric::{self, Comparison, POISON};
use phasegate_gemm_bench::shape::{self, GridRule, Operand, Param};
use phasegate_runtime::cuda::{CudaError, Gpu};
use phasegate_runtime::sim::{L2Promotion, TmaDataType};
use std::ffi::c_void;
use std::time::Duration;

type Error = Box<dyn std::error::Error>;

/// Which reference is "cuBLAS" in the ratio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reference {
    /// One cuBLASLt matmul per non-empty group, in group order, on one stream.
    Loop,
    /// One `cublasGemmGroupedBatchedEx` call.
    Grouped,
}

impl Reference {
    fn name(self) -> &'static str {
        match self {
            Reference::Loop => "cuBLASLt loop",
            Reference::Grouped => "cuBLAS grouped",
        }
    }
}

/// One table row.
struct Row {
    problem: Grouped,
    /// None with --reference-only.
    ptx_ms: Option<f64>,
    /// The chosen reference's median.
    cublas_ms: f64,
    again_ms: f64,
    loop_ms: f64,
    /// None where the grouped call is missing or failed.
    grouped_ms: Option<f64>,
    chosen: Reference,
    round_ratios: Vec<f64>,
    clocks: Option<Clocks>,
    checked: bool,
}

pub(crate) fn run(args: &Args) -> Result<bool, Error> {
    let mut problems = Vec::new();
    for spec in &args.grouped {
        problems.extend(grouped::parse_grouped(spec)?);
    }
    if args.dtype != Dtype::Bf16 || args.fast_accum {
        return Err("--grouped is bf16 only (no --dtype e4m3, no --fast-accum)".into());
    }
    let params = shape::parse_params(args.params.as_deref().unwrap_or(shape::GROUPED_PARAMS))?;
    if params.contains(&Param::Scale) {
        return Err("the `scale` parameter is the e4m3 mode's, not --grouped's".into());
    }
    if let Some(p) = params.iter().find(|p| p.is_split()) {
        return Err(format!("the parameter {p:?} is a split K's, not --grouped's").into());
    }
    let grid_rule = shape::parse_grid(&args.grid)?;

    let _gpu = Gpu::new(0)?;
    let mut side = kernel_side(args, &params)?;
    if let Some(k) = &side
        && k.resident == 0
    {
        return Err(format!(
            "no cluster of {} blocks of this kernel fits the device ({:?} threads, {} B dynamic shared): check --smem, --block, --cluster",
            k.cluster_size, k.geometry.block, k.geometry.dynamic_shared
        )
        .into());
    }
    let lt = CublasLt::open()?;
    println!("cuBLASLt: {} (version {})", lt.library, lt.version);
    let stream = Stream::new()?;
    let blas = match Cublas::open(&stream) {
        Ok(b) => {
            println!(
                "cuBLAS: {} (version {}), cublasGemmGroupedBatchedEx found",
                b.library, b.version
            );
            Some(b)
        }
        Err(e) => {
            println!(
                "cuBLAS grouped GEMM unavailable ({e}): the reference is the cuBLASLt loop alone"
            );
            None
        }
    };
    let workspace = DeviceBuffer::new(args.workspace_mib << 20)?;
    let mut rows = Vec::new();
    let mut all_ok = true;
    for (index, g) in problems.iter().enumerate() {
        let ptx = match &mut side {
            Some(k) => {
                k.geometry.grid = match grid_rule {
                    GridRule::Persistent => (k.resident * k.cluster_size, 1, 1),
                    GridRule::Fixed(x, y, z) => (x, y, z),
                    GridRule::Tiles(r, c) => {
                        let tiles = g.tiles(r as usize, c as usize) as u32;
                        (tiles.div_ceil(k.cluster_size) * k.cluster_size, 1, 1)
                    }
                };
                Some(&*k)
            }
            None => None,
        };
        // Seeds apart from the plain mode's (index + 0x60000).
        let seed = args
            .seed
            .wrapping_mul(1_000_003)
            .wrapping_add(0x6_0000 + index as u64);
        let ctx = Context {
            args,
            lt: &lt,
            blas: blas.as_ref(),
            stream: &stream,
            params: &params,
            workspace: &workspace,
        };
        let row = one_problem(&ctx, ptx, g, seed)?;
        all_ok &= row.checked;
        rows.push(row);
    }
    table(args, &rows);
    Ok(all_ok)
}

/// What every problem shares.
struct Context<'a> {
    args: &'a Args,
    lt: &'a CublasLt,
    blas: Option<&'a Cublas>,
    stream: &'a Stream,
    params: &'a [Param],
    workspace: &'a DeviceBuffer,
}

fn say(what: &str, cmp: &Comparison) {
    println!(
        "{} {what}: {} of {} elements outside, worst {:.3} of the bound, relative Frobenius {:.3e}; {} bit-identical, max abs diff {:.3e}{}",
        if cmp.passed() { "PASS" } else { "FAIL" },
        cmp.outside,
        cmp.elements,
        cmp.worst_fraction_of_bound,
        cmp.relative_frobenius,
        cmp.identical,
        cmp.max_abs,
        cmp.first_outside
            .map_or(String::new(), |(i, j, x, y)| format!(
                "; first at (row {i}, col {j}): {x} vs {y}"
            ))
    );
}

/// Which groups of `c` differ from `reference` past the bound (at most 12 listed): where a
/// kernel's group boundaries, empty groups or offsets go wrong, the groups say so.
fn groups_outside(g: &Grouped, c: &[u16], reference: &[u16]) {
    let n = g.n;
    let mut listed = Vec::new();
    let mut count = 0;
    for (e, row0, m) in g.nonempty() {
        let span = row0 * n..(row0 + m) * n;
        let cmp = numeric::compare_two_sides(&c[span.clone()], &reference[span], n);
        if cmp.outside > 0 {
            count += 1;
            if listed.len() < 12 {
                listed.push(format!(
                    "group {e} (rows {row0}..{}): {} of {} outside",
                    row0 + m,
                    cmp.outside,
                    cmp.elements
                ));
            }
        }
    }
    if count > 0 {
        println!("  groups outside the bound: {count}: {}", listed.join("; "));
    }
}

fn one_problem(
    ctx: &Context,
    ptx: Option<&KernelSide>,
    g: &Grouped,
    seed: u64,
) -> Result<Row, Error> {
    let (args, stream, workspace) = (ctx.args, ctx.stream, ctx.workspace);
    let (n, k, rows, count) = (g.n, g.k, g.rows(), g.groups.len());
    println!("\n== grouped {}", g.describe());
    match ptx {
        Some(side) => println!(
            "grid {:?}, block {:?}, cluster {:?}, {} B dynamic shared; {} work units of 256 x 256, maps workspace {} B",
            side.geometry.grid,
            side.geometry.block,
            side.geometry.cluster,
            side.geometry.dynamic_shared,
            g.units(),
            g.maps_bytes()
        ),
        None => println!("references alone (--reference-only)"),
    }
    let a = numeric::random_bf16(rows * k, seed);
    let b = numeric::random_bf16(count * n * k, seed ^ 0x5eed_0b0b);
    let da = DeviceBuffer::upload(&a)?;
    let db = DeviceBuffer::upload(&b)?;
    // Each side writes a C of its own (the plain mode's reason: no launch rewrites the lines
    // its predecessor left in L2).
    let dc = DeviceBuffer::new(rows * n * 2)?;
    let dc_loop = DeviceBuffer::new(rows * n * 2)?;
    let dc_grouped = DeviceBuffer::new(rows * n * 2)?;
    let dc_again = DeviceBuffer::new(rows * n * 2)?;
    let d_offsets = DeviceBuffer::upload(&g.offsets())?;
    let d_maps = DeviceBuffer::new(g.maps_bytes())?;

    // The non-empty groups' products and the byte offset of each group's C.
    let products: Vec<(RowMajor, u64)> = g
        .nonempty()
        .map(|(e, row0, m)| {
            let p = RowMajor {
                a: da.ptr + (row0 * k * 2) as u64,
                b: db.ptr + (e * n * k * 2) as u64,
                m,
                n,
                k,
            };
            (p, (row0 * n * 2) as u64)
        })
        .collect();
    // C buffers start 256-byte aligned (cuMemAlloc), so a group's C is as aligned as its offset.
    let plans: Vec<Plan> = products
        .iter()
        .map(|(p, c_off)| {
            ctx.lt.plan_aligned(
                p.m as u64,
                n as u64,
                k as u64,
                workspace.bytes,
                Precision::Bf16,
                Some(Alignment::of(p.a, p.b, *c_off)),
            )
        })
        .collect::<Result<_, _>>()?;
    let waves: Vec<f64> = plans.iter().map(|p| p.waves as f64).collect();
    println!(
        "cuBLASLt loop: {} matmuls, workspace up to {} B, waves {:.2}..{:.2}",
        plans.len(),
        plans.iter().map(|p| p.workspace_needed).max().unwrap_or(0),
        waves.iter().copied().fold(f64::INFINITY, f64::min),
        waves.iter().copied().fold(0.0, f64::max),
    );
    let run_loop = |c: &DeviceBuffer| -> Result<(), CudaError> {
        for (plan, (p, c_off)) in plans.iter().zip(&products) {
            plan.run(
                p.a,
                p.b,
                c.ptr + c_off,
                workspace.ptr,
                workspace.bytes,
                stream,
            )?;
        }
        Ok(())
    };
    // The grouped call, and its C pointer arrays for its own C and for cuBLAS-again's.
    let c_array = |c: &DeviceBuffer| {
        DeviceBuffer::upload(
            &products
                .iter()
                .map(|(_, o)| c.ptr + o)
                .collect::<Vec<u64>>(),
        )
    };
    let mut grouped_call: Option<(GroupedGemm, DeviceBuffer, DeviceBuffer)> = None;
    if let Some(blas) = ctx.blas {
        let ps: Vec<RowMajor> = products.iter().map(|(p, _)| *p).collect();
        match (|| -> Result<_, CudaError> {
            Ok((
                blas.grouped_bf16(&ps)?,
                c_array(&dc_grouped)?,
                c_array(&dc_again)?,
            ))
        })() {
            Ok(call) => grouped_call = Some(call),
            Err(e) => println!("cuBLAS grouped GEMM not set up ({e}): not used"),
        }
    }

    // The kernel's parameters (issue 21's grouped_gemm by default): the templates' maps over
    // the whole A and C and over expert 0's B (the kernel rewrites address and rows per
    // group), the buffers' addresses, the maps workspace, the offsets, G, N, K.
    let box_a = args.box_a.as_deref().unwrap_or("64,128");
    let box_b = args.box_b.as_deref().unwrap_or(box_a);
    let box_c = args.box_c.as_deref().unwrap_or("64,64");
    let bf16 = TmaDataType::Bf16;
    let l2_ab = l2_promotion(args.l2_promotion)?;
    let mut tmaps: Vec<TensorMapBytes> = Vec::new();
    let mut words: Vec<u64> = Vec::new();
    if ptx.is_some() {
        for param in ctx.params {
            match *param {
                Param::TensorMap(Operand::A) => tmaps.push(tensor_map(
                    da.ptr,
                    bf16,
                    2,
                    rows,
                    k,
                    box_a,
                    args.swizzle_ab,
                    l2_ab,
                )?),
                Param::TensorMap(Operand::B) => tmaps.push(tensor_map(
                    db.ptr,
                    bf16,
                    2,
                    n,
                    k,
                    box_b,
                    args.swizzle_ab,
                    l2_ab,
                )?),
                Param::TensorMap(Operand::C) => tmaps.push(tensor_map(
                    dc.ptr,
                    bf16,
                    2,
                    rows,
                    n,
                    box_c,
                    args.swizzle_c,
                    L2Promotion::None,
                )?),
                Param::Pointer(Operand::A) => words.push(da.ptr),
                Param::Pointer(Operand::B) => words.push(db.ptr),
                Param::Pointer(Operand::C) => words.push(dc.ptr),
                Param::Maps => words.push(d_maps.ptr),
                Param::Offsets => words.push(d_offsets.ptr),
                Param::Groups => words.push(count as u64),
                Param::Dim('m') => words.push(rows as u64),
                Param::Dim('n') => words.push(n as u64),
                Param::Dim(_) => words.push(k as u64),
                Param::Scale
                | Param::Partials
                | Param::Arrivals
                | Param::Splits
                | Param::Whole
                | Param::Span => {
                    unreachable!("refused in `run`")
                }
            }
        }
    }
    // Each parameter's bytes: maps by value, addresses as u64, counts as u32.
    let mut words32: Vec<u32> = words.iter().map(|&v| v as u32).collect();
    let mut pointers: Vec<*mut c_void> = Vec::new();
    let (mut ti, mut wi) = (0, 0);
    if ptx.is_some() {
        for param in ctx.params {
            match param {
                Param::TensorMap(_) => {
                    pointers.push(&mut tmaps[ti] as *mut TensorMapBytes as *mut c_void);
                    ti += 1;
                }
                Param::Pointer(_) | Param::Maps | Param::Offsets => {
                    pointers.push(&mut words[wi] as *mut u64 as *mut c_void);
                    wi += 1;
                }
                Param::Dim(_) | Param::Groups => {
                    pointers.push(&mut words32[wi] as *mut u32 as *mut c_void);
                    wi += 1;
                }
                Param::Scale
                | Param::Partials
                | Param::Arrivals
                | Param::Splits
                | Param::Whole
                | Param::Span => {
                    unreachable!("refused in `run`")
                }
            }
        }
    }
    let s = stream.0;
    let mut launch_ptx = || match ptx {
        Some(side) => side.kernel.launch(&side.geometry, &mut pointers, s),
        None => unreachable!("no PTX side with --reference-only"),
    };

    // Checks: every side on a poisoned C.
    dc_loop.fill_u16(POISON)?;
    run_loop(&dc_loop)?;
    stream.synchronize()?;
    let c_loop = dc_loop.download_u16()?;
    let loop_exact = grouped::compare_exact_grouped(&c_loop, &a, &b, g, args.samples, seed);
    say("cuBLASLt loop vs float64, sampled per group", &loop_exact);
    let mut checked = loop_exact.passed();
    let mut c_first = None;
    if ptx.is_some() {
        dc.fill_u16(POISON)?;
        d_maps.fill_u16(0)?;
        launch_ptx()?;
        stream.wait(Duration::from_secs(20))?;
        let c = dc.download_u16()?;
        let sides = numeric::compare_two_sides(&c, &c_loop, n);
        say("PTX vs cuBLASLt loop, every element", &sides);
        groups_outside(g, &c, &c_loop);
        let exact = grouped::compare_exact_grouped(&c, &a, &b, g, args.samples, seed);
        say("PTX vs float64, sampled per group", &exact);
        checked &= sides.passed() && exact.passed();
        c_first = Some(c);
    }
    if let Some((call, c_arr, _)) = &grouped_call {
        dc_grouped.fill_u16(POISON)?;
        let usable = match call.run(c_arr).and_then(|_| stream.synchronize()) {
            Err(e) => {
                println!("FAIL cuBLAS grouped GEMM: {e}; not used");
                false
            }
            Ok(()) => {
                let c_grouped = dc_grouped.download_u16()?;
                let sides = numeric::compare_two_sides(&c_grouped, &c_loop, n);
                say("cuBLAS grouped vs cuBLASLt loop, every element", &sides);
                let exact =
                    grouped::compare_exact_grouped(&c_grouped, &a, &b, g, args.samples, seed);
                say("cuBLAS grouped vs float64, sampled per group", &exact);
                if !(sides.passed() && exact.passed()) {
                    println!("cuBLAS grouped GEMM fails its check: not used as the reference");
                }
                sides.passed() && exact.passed()
            }
        };
        if !usable {
            grouped_call = None;
        }
    }
    let run_grouped = |c_arr: &DeviceBuffer| match &grouped_call {
        Some((call, _, _)) => call.run(c_arr),
        None => unreachable!("the grouped call is only run where it is set up"),
    };

    // The faster reference, from a short interleaved timing after a warm-up.
    let mut chosen = Reference::Loop;
    if let Some((_, c_arr, _)) = &grouped_call {
        let two = |i: usize| {
            if i.is_multiple_of(2) {
                run_loop(&dc_loop)
            } else {
                run_grouped(c_arr)
            }
        };
        for i in 0..6 {
            two(i)?;
        }
        let t = stream.time_each(2 * 10, two)?;
        let even: Vec<f64> = t.iter().step_by(2).copied().collect();
        let odd: Vec<f64> = t.iter().skip(1).step_by(2).copied().collect();
        let (l, gr) = (median(&even), median(&odd));
        if gr < l {
            chosen = Reference::Grouped;
        }
        println!(
            "references: cuBLASLt loop {l:.4} ms, cuBLAS grouped {gr:.4} ms (median of 10): {} is \"cuBLAS\"",
            chosen.name()
        );
    }

    // Timing. Sides: 0 the PTX kernel, 1 the chosen reference, 2 the chosen again (its own
    // C), 3 the other reference (where the grouped call is there).
    let clock = ClockSampler::start();
    let mut ms: [Vec<f64>; 4] = Default::default();
    let mut round_ratios = Vec::new();
    let mut log = String::new();
    let mut sides: Vec<usize> = if ptx.is_some() {
        vec![0, 1, 2]
    } else {
        vec![1, 2]
    };
    if grouped_call.is_some() {
        sides.push(3);
    }
    let ns = sides.len();
    for round in 0..args.rounds {
        let order: Vec<usize> = (0..ns).map(|i| sides[(round + i) % ns]).collect();
        let one = |side: usize| match (side, chosen, &grouped_call) {
            (0, _, _) => launch_ptx(),
            (1, Reference::Loop, _) | (3, Reference::Grouped, _) => run_loop(&dc_loop),
            (2, Reference::Loop, _) => run_loop(&dc_again),
            (1, Reference::Grouped, Some((_, own, _)))
            | (3, Reference::Loop, Some((_, own, _))) => run_grouped(own),
            (2, Reference::Grouped, Some((_, _, again))) => run_grouped(again),
            _ => unreachable!("side {side} without the grouped call"),
        };
        let med = time_round(stream, &order, args, one, &mut ms)?;
        end_round(round, &med, ptx.is_some(), &mut round_ratios, &mut log);
    }
    let clocks = clock.and_then(ClockSampler::stop);
    let launches = 1 + args.rounds * (args.reps + args.warmup);
    if let Some(c) = &c_first {
        let same = dc.download_u16()? == *c;
        checked &= same;
        let file = format!("rounds_grouped_{}.log", g.label);
        end_rounds(same, launches, args, &file, &log)?;
    }
    if let Some(c) = &clocks {
        c.print();
    }
    let other = (grouped_call.is_some()).then(|| median(&ms[3]));
    let (loop_ms, grouped_ms) = match chosen {
        Reference::Loop => (median(&ms[1]), other),
        Reference::Grouped => (other.unwrap_or(f64::NAN), Some(median(&ms[1]))),
    };
    Ok(Row {
        problem: g.clone(),
        ptx_ms: ptx.map(|_| median(&ms[0])),
        cublas_ms: median(&ms[1]),
        again_ms: median(&ms[2]),
        loop_ms,
        grouped_ms,
        chosen,
        round_ratios,
        clocks,
        checked,
    })
}

fn table(args: &Args, rows: &[Row]) {
    println!();
    println!(
        "grouped problems, bf16 C_g = A_g·B_gᵀ, f32 accumulation; TFLOPS = 2·ΣM·N·K / the median of {} launches a side ({} rounds of {}); cuBLAS = the faster of the cuBLASLt loop and cuBLAS grouped (chosen per problem before the rounds){}",
        args.rounds * args.reps,
        args.rounds,
        args.reps,
        if args.reference_only {
            ""
        } else {
            "; ratio = PTX / cuBLAS"
        }
    );
    println!(
        "{:<12} | {:>6} | {:>9} | {:>9} | {:>6} | {:>23} | {:>12} | {:>9} | {:>9} | {:>14} | {:>18} | check",
        "problem",
        "ΣM",
        "PTX",
        "cuBLAS",
        "ratio",
        "per-round min/med/max",
        "cuBLAS-again",
        "loop",
        "grouped",
        "cuBLAS is",
        "SM MHz min/med/max"
    );
    for r in rows {
        let tf = |ms: f64| r.problem.flops() / (ms * 1e-3) / 1e12;
        let rr = &r.round_ratios;
        let lo = rr.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = rr.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let clocks = r.clocks.as_ref().map_or("n/a".to_string(), |c| {
            format!("{}/{}/{}", c.min, c.median, c.max)
        });
        let (ptx, ratio) = match r.ptx_ms {
            Some(p) => (format!("{:.1}", tf(p)), format!("{:.4}", r.cublas_ms / p)),
            None => ("n/a".into(), "n/a".into()),
        };
        println!(
            "{:<12} | {:>6} | {:>9} | {:>9.1} | {:>6} | {:>7.4}/{:.4}/{:.4} | {:>12.4} | {:>9.1} | {:>9} | {:>14} | {:>18} | {}",
            r.problem.label,
            r.problem.rows(),
            ptx,
            tf(r.cublas_ms),
            ratio,
            lo,
            median(rr),
            hi,
            r.cublas_ms / r.again_ms,
            tf(r.loop_ms),
            r.grouped_ms
                .map_or("n/a".to_string(), |ms| format!("{:.1}", tf(ms))),
            r.chosen.name(),
            clocks,
            if r.checked { "pass" } else { "FAIL" }
        );
    }
}
