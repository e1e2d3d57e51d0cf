//! `gemm-bench`: a GEMM kernel given as PTX against cuBLASLt, side by side on the same device
//! buffers. For each size: deterministic random bf16 A (`m × k`) and B (`n × k`), both
//! row-major; C = A·Bᵀ in bf16 from each side, checked against each other and against float64
//! sums of sampled elements (tolerance: `numeric`'s module comment); then rounds of timed
//! launches, the sides PTX, cuBLAS and cuBLAS-again taking turns launch by launch (which goes
//! first rotates with the round), each launch between two CUDA events. One `ROUND r ratio X again Y` line per round (X: the PTX kernel's TFLOPS over
//! cuBLAS's in that round; Y: cuBLAS-again's over cuBLAS's, the resolution of X) goes to
//! stdout and to `--rounds-dir`/rounds_MxNxK.log, which `tools/gpu-bench/ratios.py` pools into
//! a 95 % interval. The SM clock is sampled by `nvidia-smi` every 50 ms while a size is timed.
//!
//! `--dtype e4m3`: A and B are OCP fp8 e4m3 (one byte, K contiguous for both), C bf16, and
//! C = bf16(scale_a · scale_b · A·Bᵀ) with f32 accumulation, as `torch._scaled_mm(a, b.t(),
//! scale_a, scale_b, out_dtype=torch.bfloat16)` computes it; cuBLASLt runs its fp8 matmul with
//! the scales as A/B scale pointers (fast accumulation off unless `--fast-accum`), the kernel
//! gets the product scale_a · scale_b as an f32 parameter (`scale` in `--params`) and its A and
//! B maps are UINT8 over the fp8 bytes. The checks are `numeric`'s fp8 ones, and the output
//! adds the largest absolute and relative errors and how many elements are bit-identical.
//! `--reference-only` runs cuBLASLt alone (no PTX): its check against float64 and its TFLOPS
//! (cuBLAS against cuBLAS-again), in either dtype.
//!
//! `--grouped SPEC` (repeatable; `grouped_run.rs`, the problems in the library's `grouped`):
//! a grouped GEMM for mixtures of experts, bf16, group g's `M_g` rows of A times expert g's
//! weights, one launch of the kernel against the faster of a loop of cuBLASLt matmuls and
//! cuBLAS's `cublasGemmGroupedBatchedEx`; it replaces `--sizes`.

use clap::Parser;
use phasegate_gemm_bench::cublaslt::{CublasLt, Precision};
use phasegate_gemm_bench::gpu::{self, DeviceBuffer, Geometry, Kernel, Stream, TensorMapBytes};
use phasegate_gemm_bench::median;
use phasegate_gemm_bench::numeric::{self, POISON};
use phasegate_gemm_bench::shape::{self, GridRule, Operand, Param, Problem};
use phasegate_runtime::cuda::{CudaError, Gpu, encode_tensor_map};
use phasegate_runtime::sim::{L2Promotion, Swizzle, TensorMap, TmaDataType};
use std::ffi::c_void;
use std::io::Write;
use std::time::Duration;

mod grouped_run;

#[derive(Parser)]
#[command(about = "A GEMM kernel given as PTX against cuBLASLt on the same device buffers")]
struct Args {
    /// The PTX file (not needed with --reference-only).
    #[arg(long, required_unless_present = "reference_only")]
    ptx: Option<std::path::PathBuf>,
    /// The entry's name (not needed with --reference-only).
    #[arg(long, required_unless_present = "reference_only")]
    entry: Option<String>,
    /// Element type of A and B: bf16 (C = A·Bᵀ, all bf16), or e4m3 (OCP fp8 A and B, bf16 C,
    /// C = bf16(scale_a · scale_b · A·Bᵀ) with f32 accumulation, as torch._scaled_mm; A's and
    /// B's maps are UINT8 with K bytes a row).
    #[arg(long, value_enum, default_value_t = Dtype::Bf16)]
    dtype: Dtype,
    /// e4m3: scale_a, the per-tensor scale of A (f32; a power of two keeps the check exact).
    #[arg(long, default_value_t = 0.5)]
    scale_a: f32,
    /// e4m3: scale_b, the per-tensor scale of B.
    #[arg(long, default_value_t = 0.25)]
    scale_b: f32,
    /// e4m3: cuBLASLt's fp8 fast accumulation on (CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1; off by
    /// default, as torch._scaled_mm's use_fast_accum=False). Not f32 accumulation: cuBLASLt's
    /// results then fail the check at K = 16384 (see numeric.rs).
    #[arg(long)]
    fast_accum: bool,
    /// cuBLASLt alone, no PTX kernel: its check against float64 sums, and its TFLOPS timed
    /// against cuBLAS-again (no rounds logs are written).
    #[arg(long)]
    reference_only: bool,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long, default_value = "384")]
    block: String,
    /// Cluster dimensions given at launch, X[,Y[,Z]] (not passed to the driver when the PTX's
    /// `.reqnctapercluster` fixes them; checked against it).
    #[arg(long)]
    cluster: Option<String>,
    /// Dynamic shared memory per block, bytes.
    #[arg(long, default_value_t = 0)]
    smem: u32,
    /// `persistent` (resident clusters), `tiles:ROWSxCOLS` or X[,Y[,Z]].
    #[arg(long, default_value = "persistent")]
    grid: String,
    /// The entry's parameters in order: tmap_a tmap_b tmap_c ptr_a ptr_b ptr_c m n k (u32)
    /// scale (f32 scale_a · scale_b; e4m3 only); with --grouped also maps offsets groups
    /// (m is then ΣM) [default: tmap_a,tmap_b,tmap_c,m,n,k; with --grouped
    /// tmap_a,tmap_b,tmap_c,ptr_a,ptr_b,ptr_c,maps,offsets,groups,n,k].
    #[arg(long)]
    params: Option<String>,
    /// A's tensor-map box: K elements, rows [default: 64,128 for bf16, 128,128 for e4m3].
    #[arg(long)]
    box_a: Option<String>,
    /// B's tensor-map box: K elements, rows [default: as A's].
    #[arg(long)]
    box_b: Option<String>,
    /// C's tensor-map box: columns, rows [default: 64,32; with --grouped 64,64].
    #[arg(long)]
    box_c: Option<String>,
    /// Swizzle of A's and B's maps, bytes: 0, 32, 64 or 128.
    #[arg(long, default_value_t = 128)]
    swizzle_ab: u32,
    /// Swizzle of C's map, bytes.
    #[arg(long, default_value_t = 128)]
    swizzle_c: u32,
    /// L2 promotion of A's and B's maps, bytes: 0 (none), 64, 128 or 256 (the size of the L2
    /// fetches a TMA load's misses make; C's map keeps none).
    #[arg(long, default_value_t = 0)]
    l2_promotion: u32,
    /// Problem sizes MxNxK, comma-separated (not used with --grouped).
    #[arg(
        long,
        default_value = "2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x14336x4096"
    )]
    sizes: String,
    /// A split K's parts: the value of the `splits` parameter (the `partials` and `arrivals`
    /// parameters get zeroed buffers as large as any tiling needs; the arrival counters must
    /// be zero again after the timed launches, or the check fails).
    #[arg(long, default_value_t = 1)]
    splits: u32,
    /// Stream-K: the value of the `whole` parameter (tiles computed whole before the stages of
    /// the rest are dealt; `--splits` is then the most pieces a tile is cut into).
    #[arg(long, default_value_t = 0)]
    whole: u32,
    /// Stream-K: the value of the `span` parameter (stages of K a cluster takes of the rest).
    #[arg(long, default_value_t = 0)]
    span: u32,
    /// Timed rounds per size (each side once per round, in rotating order).
    #[arg(long, default_value_t = 9)]
    rounds: usize,
    /// Timed launches per side and round.
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Untimed launches before each side's timed ones.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    /// Seed of the inputs and of the sampled elements.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Elements per side checked against float64 sums.
    #[arg(long, default_value_t = 1024)]
    samples: usize,
    /// cuBLASLt workspace, MiB.
    #[arg(long, default_value_t = 32)]
    workspace_mib: usize,
    /// Where rounds_MxNxK.log files go (rounds_grouped_LABEL.log with --grouped; none if
    /// left out).
    #[arg(long)]
    rounds_dir: Option<std::path::PathBuf>,
    /// Grouped mode (mixture of experts, bf16; replaces --sizes), repeatable: a preset, `all`
    /// (the four MoE presets) or NxK:M1,M2,... (each group's rows, 0 allowed; C_g = A_g·B_gᵀ,
    /// A [ΣM, K], B [G, N, K], C [ΣM, N]). Presets: moe8-4k, moe8-7k, moe64-up, moe64-down,
    /// edges (grouped.rs says what each is). The kernel is timed against the faster of a
    /// loop of cuBLASLt matmuls and cuBLAS's cublasGemmGroupedBatchedEx.
    #[arg(long)]
    grouped: Vec<String>,
}

/// The element type of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Dtype {
    // bf16 A, B and C. (Plain comments: doc comments on the values would turn `--help` into
    // clap's long form.)
    Bf16,
    // OCP fp8 e4m3 A and B, bf16 C, per-tensor scales.
    E4m3,
}

fn main() {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => {}
        Ok(false) => {
            println!("SOME CHECKS FAILED");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}

fn swizzle(bytes: u32) -> Result<Swizzle, String> {
    match bytes {
        0 => Ok(Swizzle::None),
        32 => Ok(Swizzle::B32),
        64 => Ok(Swizzle::B64),
        128 => Ok(Swizzle::B128),
        _ => Err(format!("swizzle {bytes}: expected 0, 32, 64 or 128")),
    }
}

/// The L2 promotion `--l2-promotion` names.
fn l2_promotion(bytes: u32) -> Result<L2Promotion, String> {
    match bytes {
        0 => Ok(L2Promotion::None),
        64 => Ok(L2Promotion::B64),
        128 => Ok(L2Promotion::B128),
        256 => Ok(L2Promotion::B256),
        _ => Err(format!("L2 promotion {bytes}: expected 0, 64, 128 or 256")),
    }
}

fn pair(s: &str) -> Result<[u32; 2], String> {
    let (x, y, z) = shape::parse_triple(s)?;
    if z != 1 {
        return Err(format!("box `{s}`: two dimensions"));
    }
    Ok([x, y])
}

/// The driver's encoding of a 2-D tiled map over a row-major `rows × cols` matrix of
/// `elem_bytes`-byte elements at `ptr` (dimension 0 the columns), box `bx` ("columns,rows"),
/// swizzle `sw` bytes, L2 promotion `l2`; refused unless the bytes decode to the map the
/// simulator would use.
#[allow(clippy::too_many_arguments)]
fn tensor_map(
    ptr: u64,
    dtype: TmaDataType,
    elem_bytes: u64,
    rows: usize,
    cols: usize,
    bx: &str,
    sw: u32,
    l2: L2Promotion,
) -> Result<TensorMapBytes, Box<dyn std::error::Error>> {
    let [b0, b1] = pair(bx)?;
    let m = TensorMap::tiled(
        dtype,
        ptr,
        &[cols as u64, rows as u64],
        &[cols as u64 * elem_bytes],
        &[b0, b1],
    )?
    .with_swizzle(swizzle(sw)?)?
    .with_l2_promotion(l2);
    Ok(TensorMapBytes(encode_tensor_map(
        &m,
        "a GEMM operand's tensor map",
    )?))
}

/// One table row.
struct Row {
    problem: Problem,
    /// None with --reference-only.
    ptx_ms: Option<f64>,
    cublas_ms: f64,
    again_ms: f64,
    round_ratios: Vec<f64>,
    clocks: Option<Clocks>,
    checked: bool,
}

fn run(args: &Args) -> Result<bool, Box<dyn std::error::Error>> {
    if !args.grouped.is_empty() {
        return grouped_run::run(args);
    }
    let sizes: Vec<Problem> = args
        .sizes
        .split(',')
        .map(shape::parse_problem)
        .collect::<Result<_, _>>()?;
    let params = shape::parse_params(args.params.as_deref().unwrap_or(shape::PLAIN_PARAMS))?;
    if let Some(p) = params.iter().find(|p| p.is_grouped()) {
        return Err(format!("the parameter {p:?} is the grouped mode's (--grouped)").into());
    }
    let grid_rule = shape::parse_grid(&args.grid)?;
    if args.dtype == Dtype::E4m3 {
        if let Some(p) = sizes.iter().find(|p| !p.k.is_multiple_of(16)) {
            return Err(format!(
                "size {p}: e4m3 needs k a multiple of 16 (A's and B's rows are 16-byte multiples)"
            )
            .into());
        }
    } else if params.contains(&Param::Scale) {
        return Err("the `scale` parameter is the e4m3 mode's (--dtype e4m3)".into());
    }
    if args.dtype == Dtype::Bf16 && args.fast_accum {
        return Err("--fast-accum is the e4m3 mode's (--dtype e4m3)".into());
    }

    let _gpu = Gpu::new(0)?;
    let mut kernel_launch =
        kernel_side(args, &params)?.map(|k| (k.kernel, k.geometry, k.cluster_size, k.resident));
    let lt = CublasLt::open()?;
    println!("cuBLASLt: {} (version {})", lt.library, lt.version);
    let stream = Stream::new()?;

    let ws_bytes = args.workspace_mib << 20;
    let workspace = DeviceBuffer::new(ws_bytes)?;
    let mut rows = Vec::new();
    let mut all_ok = true;
    for (index, &p) in sizes.iter().enumerate() {
        let ptx_side = match &mut kernel_launch {
            Some((kernel, geometry, cluster_size, resident)) => {
                geometry.grid = match grid_rule {
                    GridRule::Persistent => (*resident * *cluster_size, 1, 1),
                    GridRule::Fixed(x, y, z) => (x, y, z),
                    GridRule::Tiles(r, c) => {
                        let tiles = p.m.div_ceil(r as usize) * p.n.div_ceil(c as usize);
                        ((tiles as u32).div_ceil(*cluster_size) * *cluster_size, 1, 1)
                    }
                };
                Some((&*kernel, &*geometry))
            }
            None => None,
        };
        let seed = args.seed.wrapping_mul(1_000_003).wrapping_add(index as u64);
        let row = one_size(args, ptx_side, &lt, &stream, &params, &workspace, p, seed)?;
        all_ok &= row.checked;
        rows.push(row);
    }

    println!();
    let what = match args.dtype {
        Dtype::Bf16 => "C = A·Bᵀ, bf16 in/out, f32 accumulation".to_string(),
        Dtype::E4m3 => format!(
            "C = bf16(scale_a·scale_b·A·Bᵀ), e4m3 A and B, bf16 C, f32 accumulation, scale_a {} scale_b {}, cuBLASLt fast accumulation {}",
            args.scale_a,
            args.scale_b,
            if args.fast_accum { "on" } else { "off" }
        ),
    };
    if args.reference_only {
        println!(
            "sizes MxNxK, {what}; cuBLASLt alone; TFLOPS from the median of {} launches a side ({} rounds of {})",
            args.rounds * args.reps,
            args.rounds,
            args.reps
        );
        println!(
            "{:<16} | {:>9} | {:>12} | {:>27} | {:>18} | check",
            "size", "cuBLAS", "cuBLAS-again", "again per-round min/med/max", "SM MHz min/med/max"
        );
    } else {
        println!(
            "sizes MxNxK, {what}; TFLOPS from the median of {} launches a side ({} rounds of {}); ratio = PTX / cuBLAS",
            args.rounds * args.reps,
            args.rounds,
            args.reps
        );
        println!(
            "{:<16} | {:>9} | {:>9} | {:>6} | {:>23} | {:>12} | {:>18} | check",
            "size",
            "PTX",
            "cuBLAS",
            "ratio",
            "per-round min/med/max",
            "cuBLAS-again",
            "SM MHz min/med/max"
        );
    }
    for r in &rows {
        let tf = |ms: f64| r.problem.flops() / (ms * 1e-3) / 1e12;
        let rr = &r.round_ratios;
        let lo = rr.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = rr.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let clocks = r.clocks.as_ref().map_or("n/a".to_string(), |c| {
            format!("{}/{}/{}", c.min, c.median, c.max)
        });
        let check = if r.checked { "pass" } else { "FAIL" };
        match r.ptx_ms {
            Some(ptx_ms) => println!(
                "{:<16} | {:>9.1} | {:>9.1} | {:>6.4} | {:>7.4}/{:.4}/{:.4} | {:>12.4} | {:>18} | {}",
                r.problem.to_string(),
                tf(ptx_ms),
                tf(r.cublas_ms),
                r.cublas_ms / ptx_ms,
                lo,
                median(rr),
                hi,
                r.cublas_ms / r.again_ms,
                clocks,
                check
            ),
            None => println!(
                "{:<16} | {:>9.1} | {:>12.4} | {:>13.4}/{:.4}/{:.4} | {:>18} | {}",
                r.problem.to_string(),
                tf(r.cublas_ms),
                r.cublas_ms / r.again_ms,
                lo,
                median(rr),
                hi,
                clocks,
                check
            ),
        }
    }
    Ok(all_ok)
}

/// The PTX side of a run: the kernel, its launch geometry (the grid set per problem), the
/// cluster's size and how many clusters can be resident at once.
struct KernelSide {
    kernel: Kernel,
    geometry: Geometry,
    cluster_size: u32,
    resident: u32,
}

/// Loads `--ptx`'s `--entry` (checked against `params` and `--cluster`), allows `--smem`,
/// prints the device and the kernel's resources; `None` with `--reference-only`. Shared by
/// the plain and the grouped mode.
fn kernel_side(
    args: &Args,
    params: &[Param],
) -> Result<Option<KernelSide>, Box<dyn std::error::Error>> {
    let sms = gpu::multiprocessors()?;
    let mut launch = None;
    if !args.reference_only {
        let (Some(ptx_path), Some(entry_name)) = (&args.ptx, &args.entry) else {
            return Err("--ptx and --entry are needed unless --reference-only".into());
        };
        let ptx = std::fs::read_to_string(ptx_path)
            .map_err(|e| format!("{}: {e}", ptx_path.display()))?;
        let entry = shape::entry_shape(&ptx, entry_name)?;
        shape::check_params(params, &entry)?;
        let launch_cluster = args
            .cluster
            .as_deref()
            .map(shape::parse_triple)
            .transpose()?;
        // A `.reqnctapercluster` fixes the cluster: the launch then names none, and a --cluster
        // that differs is an error. (kernel's cluster, the launch attribute)
        let (cluster, launch_cluster) = match (entry.cluster, launch_cluster) {
            (Some(k), Some(l)) if k != l => {
                return Err(
                    format!("--cluster {l:?} but the entry's .reqnctapercluster is {k:?}").into(),
                );
            }
            (Some(k), _) => (Some(k), None),
            (None, l) => (l, l),
        };
        let kernel = Kernel::load(&ptx, entry_name)?;
        if args.smem > 48 * 1024 {
            kernel.set_dynamic_shared(args.smem)?;
        }
        use cudarc::driver::sys::CUfunction_attribute as FA;
        println!(
            "device: {}, {sms} SMs; kernel {}: {} registers, {} bytes local, {} bytes static shared, {} dynamic",
            gpu::device_name()?,
            entry_name,
            kernel.attribute(FA::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            kernel.attribute(FA::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            kernel.attribute(FA::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            args.smem
        );
        for line in kernel.jit_log.lines().filter(|l| !l.trim().is_empty()) {
            println!("  jit: {line}");
        }
        launch = Some((kernel, cluster, launch_cluster));
    } else {
        println!(
            "device: {}, {sms} SMs; reference only: cuBLASLt alone, no PTX kernel",
            gpu::device_name()?
        );
    }
    let mut side = None;
    if let Some((kernel, cluster, launch_cluster)) = launch {
        let geometry = Geometry {
            grid: (1, 1, 1),
            block: shape::parse_triple(&args.block)?,
            cluster: launch_cluster,
            dynamic_shared: args.smem,
        };
        let cluster_size = cluster.map_or(1, |(x, y, z)| x * y * z);
        let resident = kernel.max_active_clusters(&geometry, cluster.unwrap_or((1, 1, 1)))?;
        println!("resident clusters of {cluster_size}: {resident}");
        side = Some(KernelSide {
            kernel,
            geometry,
            cluster_size,
            resident,
        });
    }
    Ok(side)
}

/// One size's inputs on the host.
enum Inputs {
    Bf16 { a: Vec<u16>, b: Vec<u16> },
    E4m3 { a: Vec<u8>, b: Vec<u8> },
}

#[allow(clippy::too_many_arguments)]
fn one_size(
    args: &Args,
    ptx_side: Option<(&Kernel, &Geometry)>,
    lt: &CublasLt,
    stream: &Stream,
    params: &[Param],
    workspace: &DeviceBuffer,
    p: Problem,
    seed: u64,
) -> Result<Row, Box<dyn std::error::Error>> {
    match ptx_side {
        Some((_, geometry)) => println!(
            "\n== {p}: grid {:?}, block {:?}, cluster {:?}, {} B dynamic shared",
            geometry.grid, geometry.block, geometry.cluster, geometry.dynamic_shared
        ),
        None => println!("\n== {p}: cuBLASLt alone"),
    }
    let inputs = match args.dtype {
        Dtype::Bf16 => Inputs::Bf16 {
            a: numeric::random_bf16(p.m * p.k, seed),
            b: numeric::random_bf16(p.n * p.k, seed ^ 0x5eed_0b0b),
        },
        Dtype::E4m3 => Inputs::E4m3 {
            a: numeric::random_e4m3(p.m * p.k, seed),
            b: numeric::random_e4m3(p.n * p.k, seed ^ 0x5eed_0b0b),
        },
    };
    let (da, db, elem_type, elem_bytes) = match &inputs {
        Inputs::Bf16 { a, b } => (
            DeviceBuffer::upload(a)?,
            DeviceBuffer::upload(b)?,
            TmaDataType::Bf16,
            2,
        ),
        // The driver has no fp8 map type: the bytes go as UINT8 (the PTX ISA's e4m3 wgmma reads
        // them as e4m3 from shared memory).
        Inputs::E4m3 { a, b } => (
            DeviceBuffer::upload(a)?,
            DeviceBuffer::upload(b)?,
            TmaDataType::U8,
            1,
        ),
    };
    // The per-tensor scales as device f32 scalars (cuBLASLt's scale pointers), and their
    // product in f32, the kernel's `scale`.
    let d_scale_a = DeviceBuffer::upload(&[args.scale_a])?;
    let d_scale_b = DeviceBuffer::upload(&[args.scale_b])?;
    let mut scale32: f32 = args.scale_a * args.scale_b;
    let precision = match args.dtype {
        Dtype::Bf16 => Precision::Bf16,
        Dtype::E4m3 => Precision::E4m3 {
            scale_a: d_scale_a.ptr,
            scale_b: d_scale_b.ptr,
            fast_accum: args.fast_accum,
        },
    };
    let dc = DeviceBuffer::new(p.m * p.n * 2)?;
    // A split K's buffers, zeroed once; the kernel leaves the counters at zero.
    let padded = |x: usize| x.div_ceil(256) * 256;
    let d_partials = DeviceBuffer::new(args.splits as usize * padded(p.m) * padded(p.n) * 4)?;
    d_partials.fill_u16(0)?;
    let d_arrivals = DeviceBuffer::new(4 * p.m.div_ceil(64) * p.n.div_ceil(64) * 4)?;
    d_arrivals.fill_u16(0)?;
    let dc_ref = DeviceBuffer::new(p.m * p.n * 2)?;
    // cuBLAS-again writes a C of its own: every launch then writes another buffer than the
    // launch before it, as the PTX kernel and cuBLAS do (a launch that rewrites the lines its
    // predecessor left in L2 ran 3.6 % faster at 2048³).
    let dc_again = DeviceBuffer::new(p.m * p.n * 2)?;

    let map = |buf: &DeviceBuffer,
               dtype: TmaDataType,
               bytes: u64,
               rows: usize,
               cols: usize,
               bx: &str,
               sw: u32,
               l2: L2Promotion|
     -> Result<TensorMapBytes, Box<dyn std::error::Error>> {
        tensor_map(buf.ptr, dtype, bytes, rows, cols, bx, sw, l2)
    };
    let default_box = match args.dtype {
        Dtype::Bf16 => "64,128",
        Dtype::E4m3 => "128,128",
    };
    let box_a = args.box_a.as_deref().unwrap_or(default_box);
    let box_b = args.box_b.as_deref().unwrap_or(box_a);
    let l2_ab = l2_promotion(args.l2_promotion)?;
    let mut tmaps = Vec::new();
    let mut scalars: Vec<u64> = Vec::new();
    if ptx_side.is_some() {
        for param in params {
            match *param {
                Param::TensorMap(op) => tmaps.push(match op {
                    Operand::A => map(
                        &da,
                        elem_type,
                        elem_bytes,
                        p.m,
                        p.k,
                        box_a,
                        args.swizzle_ab,
                        l2_ab,
                    )?,
                    Operand::B => map(
                        &db,
                        elem_type,
                        elem_bytes,
                        p.n,
                        p.k,
                        box_b,
                        args.swizzle_ab,
                        l2_ab,
                    )?,
                    Operand::C => map(
                        &dc,
                        TmaDataType::Bf16,
                        2,
                        p.m,
                        p.n,
                        args.box_c.as_deref().unwrap_or("64,32"),
                        args.swizzle_c,
                        L2Promotion::None,
                    )?,
                }),
                Param::Pointer(op) => scalars.push(match op {
                    Operand::A => da.ptr,
                    Operand::B => db.ptr,
                    Operand::C => dc.ptr,
                }),
                Param::Dim(d) => scalars.push(match d {
                    'm' => p.m,
                    'n' => p.n,
                    _ => p.k,
                } as u64),
                Param::Scale => {}
                Param::Partials => scalars.push(d_partials.ptr),
                Param::Arrivals => scalars.push(d_arrivals.ptr),
                Param::Splits => scalars.push(args.splits as u64),
                Param::Whole => scalars.push(args.whole as u64),
                Param::Span => scalars.push(args.span as u64),
                Param::Maps | Param::Offsets | Param::Groups => {
                    unreachable!("refused in `run`")
                }
            }
        }
    }
    // Each parameter's bytes: tensor maps by value, pointers as u64, dimensions as u32 (the
    // low half of the little-endian u64), the scale as f32.
    let mut dims32: Vec<u32> = scalars.iter().map(|&v| v as u32).collect();
    let mut pointers: Vec<*mut c_void> = Vec::new();
    let (mut ti, mut si) = (0, 0);
    if ptx_side.is_some() {
        for param in params {
            match param {
                Param::TensorMap(_) => {
                    pointers.push(&mut tmaps[ti] as *mut TensorMapBytes as *mut c_void);
                    ti += 1;
                }
                Param::Pointer(_) | Param::Partials | Param::Arrivals => {
                    pointers.push(&mut scalars[si] as *mut u64 as *mut c_void);
                    si += 1;
                }
                Param::Dim(_) | Param::Splits | Param::Whole | Param::Span => {
                    pointers.push(&mut dims32[si] as *mut u32 as *mut c_void);
                    si += 1;
                }
                Param::Scale => pointers.push(&mut scale32 as *mut f32 as *mut c_void),
                Param::Maps | Param::Offsets | Param::Groups => {
                    unreachable!("refused in `run`")
                }
            }
        }
    }
    let plan = lt.plan(
        p.m as u64,
        p.n as u64,
        p.k as u64,
        workspace.bytes,
        precision,
    )?;
    println!(
        "cuBLASLt heuristic: workspace {} B, {:.2} waves",
        plan.workspace_needed, plan.waves
    );
    let s = stream.0;
    let mut launch_ptx = || match ptx_side {
        Some((kernel, geometry)) => kernel.launch(geometry, &mut pointers, s),
        None => unreachable!("no PTX side with --reference-only"),
    };
    let cublas = |c: &DeviceBuffer| {
        plan.run(
            da.ptr,
            db.ptr,
            c.ptr,
            workspace.ptr,
            workspace.bytes,
            stream,
        )
    };

    // Check: each side on a poisoned output.
    let e4m3 = args.dtype == Dtype::E4m3;
    let say = |what: &str, cmp: &numeric::Comparison, against: &str| {
        println!(
            "{} {what}: {} of {} elements outside, worst {:.3} of the bound, relative Frobenius {:.3e}{}{}",
            if cmp.passed() { "PASS" } else { "FAIL" },
            cmp.outside,
            cmp.elements,
            cmp.worst_fraction_of_bound,
            cmp.relative_frobenius,
            if e4m3 {
                format!(
                    "; max abs error {:.3e}, max relative error {:.3e}; {} of {} bit-identical{against}",
                    cmp.max_abs, cmp.max_rel, cmp.identical, cmp.elements
                )
            } else {
                String::new()
            },
            cmp.first_outside
                .map_or(String::new(), |(i, j, x, y)| format!(
                    "; first at ({i},{j}): {x} vs {y}"
                ))
        );
    };
    let exact = |c: &[u16]| match &inputs {
        Inputs::Bf16 { a, b } => {
            numeric::compare_exact(c, a, b, (p.m, p.n, p.k), args.samples, seed)
        }
        Inputs::E4m3 { a, b } => numeric::compare_exact_e4m3(
            c,
            a,
            b,
            scale32 as f64,
            (p.m, p.n, p.k),
            args.samples,
            seed,
        ),
    };
    let against = " to bf16(float64 sum · scale_a · scale_b)";
    dc_ref.fill_u16(POISON)?;
    let mut checked;
    let mut c_first = None;
    if ptx_side.is_some() {
        dc.fill_u16(POISON)?;
        launch_ptx()?;
        stream.wait(Duration::from_secs(20))?;
        cublas(&dc_ref)?;
        stream.synchronize()?;
        let c = dc.download_u16()?;
        let c_ref = dc_ref.download_u16()?;
        let sides = numeric::compare_two_sides(&c, &c_ref, p.n);
        let exact_ptx = exact(&c);
        let exact_cublas = exact(&c_ref);
        say("PTX vs cuBLAS, every element", &sides, "");
        say("PTX vs float64, sampled", &exact_ptx, against);
        say("cuBLAS vs float64, sampled", &exact_cublas, against);
        if e4m3 {
            println!(
                "PTX vs cuBLAS bitwise: {} of {} elements differ",
                sides.elements - sides.identical,
                sides.elements
            );
        }
        checked = sides.passed() && exact_ptx.passed() && exact_cublas.passed();
        c_first = Some(c);
    } else {
        cublas(&dc_ref)?;
        stream.synchronize()?;
        let exact_cublas = exact(&dc_ref.download_u16()?);
        say("cuBLAS vs float64, sampled", &exact_cublas, against);
        checked = exact_cublas.passed();
    }

    // Timing.
    let clock = ClockSampler::start();
    let mut ms: [Vec<f64>; 3] = Default::default();
    let mut round_ratios = Vec::new();
    let mut log = String::new();
    // Sides: 0 the PTX kernel, 1 cuBLAS, 2 cuBLAS-again.
    let sides: &[usize] = if ptx_side.is_some() {
        &[0, 1, 2]
    } else {
        &[1, 2]
    };
    let ns = sides.len();
    for round in 0..args.rounds {
        // The sides take turns launch by launch (the first side rotating with the round), so a
        // clock that drifts during the round (the H100 slows under sustained load) moves all
        // of them alike.
        let order: Vec<usize> = (0..ns).map(|i| sides[(round + i) % ns]).collect();
        let one = |side: usize| match side {
            0 => launch_ptx(),
            1 => cublas(&dc_ref),
            _ => cublas(&dc_again),
        };
        let med = time_round(stream, &order, args, one, &mut ms)?;
        end_round(round, &med, ptx_side.is_some(), &mut round_ratios, &mut log);
    }
    let clocks = clock.and_then(ClockSampler::stop);
    // After many launches on the same inputs the output must not have changed (a race shows
    // as a moving result).
    let launches = 1 + args.rounds * (args.reps + args.warmup);
    if let Some(c) = &c_first {
        let same = dc.download_u16()? == *c;
        checked &= same;
        if params.contains(&Param::Arrivals) {
            let zero = d_arrivals.download_u16()?.iter().all(|&w| w == 0);
            println!(
                "{} split K: the arrival counters are {} after {launches} launches",
                if zero { "PASS" } else { "FAIL" },
                if zero { "all zero" } else { "not all zero" }
            );
            checked &= zero;
        }
        end_rounds(same, launches, args, &format!("rounds_{p}.log"), &log)?;
    }
    if let Some(c) = &clocks {
        c.print();
    }
    let tf = |ms: f64| p.flops() / (ms * 1e-3) / 1e12;
    if ptx_side.is_none() {
        println!(
            "cuBLAS {p}: median {:.4} ms = {:.1} TFLOPS; cuBLAS-again {:.1} TFLOPS",
            median(&ms[1]),
            tf(median(&ms[1])),
            tf(median(&ms[2]))
        );
    }
    Ok(Row {
        problem: p,
        ptx_ms: ptx_side.map(|_| median(&ms[0])),
        cublas_ms: median(&ms[1]),
        again_ms: median(&ms[2]),
        round_ratios,
        clocks,
        checked,
    })
}

/// What `nvidia-smi` read while a size was timed.
/// One round's launches: `--warmup` passes over the sides in `order`, then `--reps` passes,
/// launch by launch, each between two events. The median of each side's launches (indexed by
/// side; 0.0 for a side not in `order`), their times appended to `ms[side]`.
fn time_round(
    stream: &Stream,
    order: &[usize],
    args: &Args,
    mut one: impl FnMut(usize) -> Result<(), CudaError>,
    ms: &mut [Vec<f64>],
) -> Result<Vec<f64>, CudaError> {
    for _ in 0..args.warmup {
        for &side in order {
            one(side)?;
        }
    }
    let ns = order.len();
    let t = stream.time_each(ns * args.reps, |i| one(order[i % ns]))?;
    let mut med = vec![0.0; ms.len()];
    for (i, &side) in order.iter().enumerate() {
        let mine: Vec<f64> = t.iter().skip(i).step_by(ns).copied().collect();
        med[side] = median(&mine);
        ms[side].extend(mine);
    }
    Ok(med)
}

/// Ends a round: its line (`ROUND r ratio X again Y`, X the PTX kernel's TFLOPS over cuBLAS's
/// and Y cuBLAS-again's, the resolution of X; `ROUND r again Y` without a PTX kernel) printed and
/// logged, and the ratio the rounds pool appended to `ratios`. `med` holds the sides' medians:
/// the PTX kernel's, cuBLAS's, cuBLAS-again's.
fn end_round(round: usize, med: &[f64], ptx: bool, ratios: &mut Vec<f64>, log: &mut String) {
    let again = med[1] / med[2];
    let line = if ptx {
        let ratio = med[1] / med[0];
        ratios.push(ratio);
        format!("ROUND {round} ratio {ratio:.5} again {again:.5}")
    } else {
        ratios.push(again);
        format!("ROUND {round} again {again:.5}")
    };
    println!("{line}");
    log.push_str(&line);
    log.push('\n');
}

/// After the rounds: whether the PTX kernel's output is still its first launch's (a race shows
/// as a moving result), and the rounds' log into `--rounds-dir`/`file` for `ratios.py`.
fn end_rounds(
    same: bool,
    launches: usize,
    args: &Args,
    file: &str,
    log: &str,
) -> std::io::Result<()> {
    println!(
        "{} PTX output after {launches} launches is bit-identical to the first launch's",
        if same { "PASS" } else { "FAIL" },
    );
    if let Some(dir) = &args.rounds_dir {
        std::fs::create_dir_all(dir)?;
        std::fs::File::create(dir.join(file))?.write_all(log.as_bytes())?;
    }
    Ok(())
}

impl Clocks {
    fn print(&self) {
        println!(
            "SM clock while timing: min {} median {} max {} MHz ({} samples); power median {:.0} W; memory clock {} MHz",
            self.min, self.median, self.max, self.samples, self.power_w, self.mem_mhz
        );
    }
}

struct Clocks {
    min: u32,
    median: u32,
    max: u32,
    samples: usize,
    power_w: f64,
    mem_mhz: u32,
}

/// `nvidia-smi` sampling the SM clock every 50 ms, as a child process of this one.
struct ClockSampler {
    child: std::process::Child,
    samples: std::io::BufReader<std::process::ChildStdout>,
}

impl ClockSampler {
    /// Starts sampling and returns once the first sample (taken before the timed launches,
    /// so left out) has come: the launches that follow are all sampled.
    fn start() -> Option<ClockSampler> {
        use std::io::BufRead;
        let mut child = std::process::Command::new("nvidia-smi")
            .args([
                "--query-gpu=clocks.sm,clocks.mem,power.draw",
                "--format=csv,noheader,nounits",
                "-lms",
                "50",
                "-i",
                "0",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()?;
        let mut samples = std::io::BufReader::new(child.stdout.take()?);
        let mut first = String::new();
        if samples.read_line(&mut first).ok()? == 0 {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        Some(ClockSampler { child, samples })
    }

    fn stop(mut self) -> Option<Clocks> {
        use std::io::Read;
        // Our own child, by its handle.
        let _ = self.child.kill();
        let mut text = String::new();
        let _ = self.samples.read_to_string(&mut text);
        let _ = self.child.wait();
        let mut sm = Vec::new();
        let (mut power, mut mem) = (Vec::new(), Vec::new());
        for line in text.lines() {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if let [s, m, w] = f[..]
                && let (Ok(s), Ok(m), Ok(w)) =
                    (s.parse::<u32>(), m.parse::<u32>(), w.parse::<f64>())
            {
                sm.push(s as f64);
                mem.push(m as f64);
                power.push(w);
            }
        }
        if sm.is_empty() {
            return None;
        }
        Some(Clocks {
            min: sm.iter().copied().fold(f64::INFINITY, f64::min) as u32,
            median: median(&sm) as u32,
            max: sm.iter().copied().fold(0.0, f64::max) as u32,
            samples: sm.len(),
            power_w: median(&power),
            mem_mhz: median(&mem) as u32,
        })
    }
}
