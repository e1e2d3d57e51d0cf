//! `phasegate sim`: runs a PTX kernel in the CPU simulator.
//!
//! ```text
//! phasegate sim kernel.ptx --kernel NAME --grid X,Y,Z --block X,Y,Z [--cluster X,Y,Z]
//!     --arg u32:8 --arg f32:2.0 --arg buf:4096 --arg npy:x.npy ... --out 1:y.npy
//! ```
//!
//! Buffers come in from `--arg buf:N`, `--arg file:PATH` (raw bytes) and `--arg npy:FILE.npy`
//! (NumPy data, [`super::npy`]); `--dump INDEX[:TYPE]` prints a buffer after the run and
//! `--out INDEX[:TYPE]:FILE` writes it, raw or as `.npy`. The element type of a `.npy` output is
//! TYPE when given, else the dtype of the `.npy` file the buffer came from, else the type the
//! kernel loads and stores through the parameter (`ld.global.f32` through it: `f32`), else
//! bytes.
//!
//! Exit status: 0 when the run completes without a finding, 1 with the report of a finding,
//! 2 on usage errors or when the simulator cannot run the kernel.

use super::npy::{self, Dtype};
use crate::ptx::{AddressBase, Function, Opcode, Operand, ScalarType};
use crate::runtime::sim::{self, ArgValue, Launch, Outcome, Policy, Schedule};
use clap::Args;

const ARGS_HELP: &str = "\
Kernel arguments, one --arg each, in parameter order:
  u32:V | i32:V | u64:V | i64:V | f32:V | f64:V | bool:true|false   a value (integers may be 0x...)
  buf:N               a zero-filled global buffer of N bytes, passed as a pointer
  buf:N:BYTE          a global buffer of N bytes, each BYTE (0..255)
  file:PATH           a global buffer holding the bytes of PATH
  npy:FILE.npy        a global buffer holding the data of a NumPy .npy file (little-endian,
                      C order; bool, integers, f16, f32, f64)
  tmap:BUF:TYPE:DIMS:STRIDES:BOX[:OPTION]...
                      a tensor map (CUtensorMap, 128 bytes by value) over buffer argument BUF
                      (or a tensor of its own: zero=N bytes, file=PATH, which --dump prints and
                      --out writes):
                      TYPE u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz,
                      DIMS/STRIDES/BOX x-separated, dimension 0 first (STRIDES in bytes for
                      dimensions 1.., or - for dense rows); options swizzle=32|64|128,
                      oob=zero|nan, estride=AxB.., l2=64|128|256, offset=BYTES, global (pass the
                      address of a copy in global memory); e.g. tmap:1:f16:100x50:-:64x8:swizzle=128
  struct:FILE         a by-value struct (a C++ struct nvcc passes as .param .b8 p[N], such as
                      CUTLASS's Params) described by FILE, one item a line (# comments; paths
                      relative to FILE's folder; numbers decimal or 0x..):
                        bytes PATH                    the struct's N bytes
                        buffer NAME file:PATH|zero:N  a global buffer the struct addresses
                        ptr OFFSET TARGET[+ADD]       the 8 bytes at OFFSET: TARGET's address
                        tmap OFFSET TARGET[+ADD]      the CUtensorMap at OFFSET: rebased to
                                                      TARGET (decoded, re-encoded)
                      TARGET is a buffer NAME or arg:I (buffer argument I); --dump and --out
                      name a struct's buffer as INDEX.NAME

Outputs: --dump INDEX[:TYPE] prints buffer argument INDEX after the run (INDEX.NAME: the
buffer NAME of a struct argument); --out INDEX[:TYPE]:FILE writes it to FILE, as .npy (format
1.0, 1-D) when FILE ends in .npy, else raw bytes. The .npy element type is TYPE, else the dtype
of the --arg npy: file it came from, else the type the kernel accesses it as, else u8.

Exit status: 0 when the run completes without a finding, 1 with the report of a finding,
2 on usage errors or when the simulator cannot run the kernel";

/// The arguments of `phasegate sim`.
#[derive(Args, Debug)]
#[command(after_help = ARGS_HELP)]
pub struct SimArgs {
    /// The PTX file
    #[arg(value_name = "FILE.ptx")]
    pub file: String,
    /// The .entry to run (default: the module's only entry)
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// CTAs in the grid
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = dims, required_unless_present = "witness")]
    pub grid: Option<Dims>,
    /// Threads in a CTA
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = dims, required_unless_present = "witness")]
    pub block: Option<Dims>,
    /// Replay a witness of `phasegate lint`: SPEC is its `replay:` line (launch, made-up
    /// inputs, schedule), and the run is the one that broke the rule
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["grid", "block", "cluster", "dynamic_shared", "args", "policy", "seed", "explore", "dump", "outputs"])]
    pub witness: Option<String>,
    /// CTAs per cluster (default: the kernel's .reqnctapercluster, or 1)
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = dims)]
    pub cluster: Option<Dims>,
    /// Bytes of dynamic shared memory
    #[arg(long, value_name = "N", value_parser = number::<u32>)]
    pub dynamic_shared: Option<u32>,
    /// A kernel argument, in parameter order (TYPE: u32 i32 u64 i64 f32 f64 bool buf file npy tmap struct)
    #[arg(long = "arg", value_name = "TYPE:VALUE", value_parser = arg)]
    pub args: Vec<ArgSpec>,
    /// Scheduling policy: round-robin (default), random, pct or pct:DEPTH
    #[arg(long, value_name = "P", value_parser = policy)]
    pub policy: Option<Policy>,
    /// Seed of the schedule's choices (default 0)
    #[arg(long, value_name = "N", value_parser = number::<u64>)]
    pub seed: Option<u64>,
    /// Run N schedules; report the first failing one and how to replay it
    #[arg(long, value_name = "N", value_parser = number::<usize>, conflicts_with = "outputs")]
    pub explore: Option<usize>,
    /// Stop after N thread-instructions (default 1000000000)
    #[arg(long, value_name = "N", value_parser = number::<u64>)]
    pub max_steps: Option<u64>,
    /// Do not check shared-memory accesses for data races
    #[arg(long)]
    pub no_race_check: bool,
    /// Print buffer argument INDEX (INDEX.NAME: a struct's buffer) after the run (TYPE u8, u32, i32, f32, u64, f64; default u32)
    #[arg(long, value_name = "INDEX[.NAME][:TYPE]", value_parser = dump)]
    pub dump: Vec<Dump>,
    /// Write buffer argument INDEX (INDEX.NAME: a struct's buffer) to FILE after the run: .npy when FILE ends in .npy, else raw
    #[arg(long = "out", id = "outputs", value_name = "INDEX[.NAME][:TYPE]:FILE", value_parser = output)]
    pub outputs: Vec<Output>,
    /// Write the timeline as Chrome trace JSON (opens in Perfetto)
    #[arg(long, value_name = "FILE.json")]
    pub trace: Option<String>,
    /// Write the timeline as an SVG picture
    #[arg(long, value_name = "FILE.svg")]
    pub timeline: Option<String>,
    /// Print a summary of barrier activity
    #[arg(long)]
    pub summary: bool,
}

/// Grid, block or cluster dimensions.
pub type Dims = (u32, u32, u32);

/// A `--arg`: a value, or where a buffer's bytes come from (files are read after parsing).
#[derive(Clone, Debug)]
pub enum ArgSpec {
    /// A scalar (`u32:8`, `f32:2.0`) or a buffer of a given size (`buf:4096`).
    Value(ArgValue),
    /// `file:PATH`: a buffer holding the bytes of the file.
    File(String),
    /// `npy:FILE.npy`: a buffer holding the data of a NumPy file.
    Npy(String),
    /// `struct:FILE`: a by-value struct described by FILE ([`sim::StructArg::parse`]).
    Struct(String),
}

/// A `--dump INDEX[.NAME][:TYPE]`.
#[derive(Clone, Debug)]
pub struct Dump {
    /// The kernel argument, counted from 0; it must be a buffer.
    pub index: usize,
    /// `.NAME`: the buffer NAME of a struct argument.
    pub buffer: Option<String>,
    /// The element type to print the buffer as (`u32` when not given).
    pub ty: String,
}

/// A `--out INDEX[.NAME][:TYPE]:FILE`.
#[derive(Clone, Debug)]
pub struct Output {
    /// The kernel argument, counted from 0; it must be a buffer.
    pub index: usize,
    /// `.NAME`: the buffer NAME of a struct argument.
    pub buffer: Option<String>,
    /// The element type of a `.npy` output, when given.
    pub dtype: Option<Dtype>,
    /// The file to write: `.npy` when it ends so, else raw bytes.
    pub path: String,
}

fn dims(text: &str) -> Result<Dims, String> {
    let parts: Result<Vec<u32>, _> = text.split(',').map(|p| p.trim().parse::<u32>()).collect();
    match parts
        .map_err(|_| format!("`{text}` is not X[,Y[,Z]] of unsigned integers"))?
        .as_slice()
    {
        [x] => Ok((*x, 1, 1)),
        [x, y] => Ok((*x, *y, 1)),
        [x, y, z] => Ok((*x, *y, *z)),
        _ => Err(format!("`{text}` has more than three dimensions")),
    }
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    let t = text.trim();
    // Integers may be written in hex.
    if let Some(hex) = t.strip_prefix("0x")
        && let Ok(v) = u64::from_str_radix(hex, 16)
        && let Ok(x) = v.to_string().parse::<T>()
    {
        return Ok(x);
    }
    t.parse::<T>().map_err(|_| {
        let what = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("number");
        format!("`{text}` is not a valid {what}")
    })
}

fn policy(text: &str) -> Result<Policy, String> {
    Policy::parse(text)
        .ok_or_else(|| format!("unknown policy `{text}` (round-robin, random, pct, pct:DEPTH)"))
}

fn arg(text: &str) -> Result<ArgSpec, String> {
    let (kind, value) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}` is not TYPE:VALUE"))?;
    Ok(ArgSpec::Value(match kind {
        "u32" => ArgValue::U32(number(value)?),
        "i32" => ArgValue::I32(number(value)?),
        "u64" => ArgValue::U64(number(value)?),
        "i64" => ArgValue::I64(number(value)?),
        "f32" => ArgValue::F32(number(value)?),
        "f64" => ArgValue::F64(number(value)?),
        "bool" => ArgValue::Bool(match value {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(format!("`{value}` is not true or false")),
        }),
        "buf" => {
            let (n, fill) = match value.split_once(':') {
                Some((n, b)) => (n, number::<u8>(b)?),
                None => (value, 0),
            };
            let n: usize = number(n)?;
            if n > 1 << 32 {
                return Err(format!(
                    "a buffer of {n} bytes is larger than the simulator allows (4 GiB)"
                ));
            }
            ArgValue::Buffer(vec![fill; n])
        }
        "file" => return Ok(ArgSpec::File(value.to_string())),
        "npy" => return Ok(ArgSpec::Npy(value.to_string())),
        "struct" => return Ok(ArgSpec::Struct(value.to_string())),
        "tmap" => sim::TensorMapArg::from_spec(
            sim::TensorMap::parse_spec(value).map_err(|e| format!("tmap:{value}: {e}"))?,
        )
        .into(),
        other => {
            return Err(format!(
                "unknown argument type `{other}` (u32, i32, u64, i64, f32, f64, bool, buf, file, npy, tmap, struct)"
            ));
        }
    }))
}

const DUMP_TYPES: [&str; 6] = ["u8", "u32", "i32", "f32", "u64", "f64"];

fn dump(text: &str) -> Result<Dump, String> {
    let (i, ty) = text.split_once(':').unwrap_or((text, "u32"));
    if !DUMP_TYPES.contains(&ty) {
        return Err(format!(
            "unknown dump type `{ty}` ({})",
            DUMP_TYPES.join(", ")
        ));
    }
    let (index, buffer) = which(i)?;
    Ok(Dump {
        index,
        buffer,
        ty: ty.to_string(),
    })
}

/// `INDEX` or `INDEX.NAME` (a struct argument's buffer).
fn which(text: &str) -> Result<(usize, Option<String>), String> {
    match text.split_once('.') {
        Some((i, name)) if !name.is_empty() => Ok((number(i)?, Some(name.to_string()))),
        Some(_) => Err(format!("`{text}` names no buffer after the `.`")),
        None => Ok((number(text)?, None)),
    }
}

fn output(text: &str) -> Result<Output, String> {
    let (i, rest) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}` is not INDEX[.NAME][:TYPE]:FILE"))?;
    let (index, buffer) = which(i)?;
    let (dtype, path) = match rest.split_once(':') {
        Some((ty, path)) if Dtype::from_name(ty).is_some() => (Dtype::from_name(ty), path),
        _ => (None, rest),
    };
    if path.is_empty() {
        return Err(format!("`{text}` names no FILE"));
    }
    Ok(Output {
        index,
        buffer,
        dtype,
        path: path.to_string(),
    })
}

/// Runs `phasegate sim ...` (the arguments after `sim`); returns the exit status.
pub fn run(args: &[String], out: &mut String) -> u8 {
    super::run_subcommand("sim", args, out)
}

/// A kernel argument after its files were read, and the dtype of the `.npy` it came from.
struct Argument {
    value: ArgValue,
    npy: Option<(String, Dtype)>,
}

/// Reads the files that `--arg file:` and `--arg npy:` name. The values are moved, not
/// copied: a buffer argument can be hundreds of megabytes.
fn arguments(specs: Vec<ArgSpec>) -> Result<Vec<Argument>, String> {
    specs
        .into_iter()
        .map(|s| match s {
            ArgSpec::Value(v) => Ok(Argument {
                value: v,
                npy: None,
            }),
            ArgSpec::File(path) => Ok(Argument {
                value: ArgValue::Buffer(
                    std::fs::read(&path).map_err(|e| format!("file:{path}: cannot read: {e}"))?,
                ),
                npy: None,
            }),
            ArgSpec::Struct(path) => {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("struct:{path}: cannot read: {e}"))?;
                let dir = std::path::Path::new(&path)
                    .parent()
                    .unwrap_or(std::path::Path::new(""));
                let s =
                    sim::StructArg::parse(&text, dir).map_err(|e| format!("struct:{path}: {e}"))?;
                Ok(Argument {
                    value: s.into(),
                    npy: None,
                })
            }
            ArgSpec::Npy(path) => {
                let bytes =
                    std::fs::read(&path).map_err(|e| format!("npy:{path}: cannot read: {e}"))?;
                let a = npy::read(&bytes).map_err(|e| format!("npy:{path}: {e}"))?;
                Ok(Argument {
                    value: ArgValue::Buffer(a.data),
                    npy: Some((path, a.dtype)),
                })
            }
        })
        .collect()
}

/// The element type a kernel accesses a pointer parameter as, from the global and generic
/// loads, stores and atomics whose address derives from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Accessed {
    dtype: Dtype,
    /// Whether a typed access (`.f32`, `.s32`, `.u16`, not `.b32`) says so.
    typed: bool,
}

fn dtype_of(t: ScalarType) -> Option<(Dtype, bool)> {
    Some(match t {
        ScalarType::U8 => (Dtype::U8, true),
        ScalarType::S8 => (Dtype::I8, true),
        ScalarType::U16 => (Dtype::U16, true),
        ScalarType::S16 => (Dtype::I16, true),
        ScalarType::U32 => (Dtype::U32, true),
        ScalarType::S32 => (Dtype::I32, true),
        ScalarType::U64 => (Dtype::U64, true),
        ScalarType::S64 => (Dtype::I64, true),
        ScalarType::F16 => (Dtype::F16, true),
        ScalarType::F32 => (Dtype::F32, true),
        ScalarType::F64 => (Dtype::F64, true),
        ScalarType::B8 => (Dtype::U8, false),
        ScalarType::B16 => (Dtype::U16, false),
        ScalarType::B32 => (Dtype::U32, false),
        ScalarType::B64 => (Dtype::U64, false),
        _ => return None,
    })
}

/// For each parameter of `f`, the element type its accesses agree on (`None` when there are
/// none, or typed accesses disagree).
fn accessed_types(f: &Function) -> Vec<Option<Accessed>> {
    let Some(body) = &f.body else {
        return vec![None; f.params.len()];
    };
    let memory = |op: &Opcode| matches!(op, Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red);
    f.params
        .iter()
        .map(|p| {
            // Registers whose value derives from the parameter (flow-insensitive). A set, not a
            // list: the fixpoint looks every operand up in it once per pass, and a long kernel
            // (Triton's attention) has thousands of registers.
            let mut derived: rustc_hash::FxHashSet<&str> = Default::default();
            loop {
                let before = derived.len();
                for (_, ins) in body.instructions() {
                    let Some(Operand::Reg(dest)) = ins.operands.first() else {
                        continue;
                    };
                    if derived.contains(&dest.as_str()) {
                        continue;
                    }
                    let from_param = ins.opcode == Opcode::Ld
                        && ins.has("param")
                        && ins.operands.iter().any(|o| {
                            matches!(o, Operand::Address(a)
                                if matches!(&a.base, AddressBase::Symbol(s) if *s == p.name))
                        });
                    let computed = !memory(&ins.opcode)
                        && ins.operands[1..]
                            .iter()
                            .any(|o| matches!(o, Operand::Reg(r) if derived.contains(&r.as_str())));
                    if from_param || computed {
                        derived.insert(dest);
                    }
                }
                if derived.len() == before {
                    break;
                }
            }
            let mut found: Option<Accessed> = None;
            for (_, ins) in body.instructions() {
                if !memory(&ins.opcode)
                    || [
                        "shared",
                        "shared::cta",
                        "shared::cluster",
                        "local",
                        "param",
                        "const",
                    ]
                    .iter()
                    .any(|s| ins.has(s))
                {
                    continue;
                }
                let through_param = ins.operands.iter().any(|o| {
                    matches!(o, Operand::Address(a)
                        if matches!(&a.base, AddressBase::Reg(r) if derived.contains(&r.as_str())))
                });
                let Some((dtype, typed)) = ins.scalar_type().and_then(dtype_of) else {
                    continue;
                };
                if !through_param {
                    continue;
                }
                let this = Accessed { dtype, typed };
                found = match found {
                    None => Some(this),
                    Some(f) if f.dtype == dtype => Some(Accessed {
                        dtype,
                        typed: f.typed || typed,
                    }),
                    // A typed access says more than an untyped one of the same size.
                    Some(f) if !f.typed && typed && f.dtype.size() == dtype.size() => Some(this),
                    Some(f) if f.typed && !typed && f.dtype.size() == dtype.size() => Some(f),
                    Some(_) => return None,
                };
            }
            found
        })
        .collect()
}

/// `--witness SPEC`: the run of a `phasegate lint` witness again, with the simulator's report.
fn replay_witness(
    file: &str,
    module: &crate::ptx::Module,
    kernel: &str,
    spec: &str,
    out: &mut String,
) -> u8 {
    use crate::lints::witness::replay;
    let spec = match replay::Spec::parse(spec) {
        Ok(s) => s,
        Err(e) => {
            out.push_str(&format!("error: --witness {e}\n"));
            return 2;
        }
    };
    let run = match replay::replay(module, kernel, &spec) {
        Ok(r) => r,
        Err(e) => {
            out.push_str(&format!("{file}: error: {e}\n"));
            return 2;
        }
    };
    match &run.outcome {
        Outcome::Completed(s) => {
            out.push_str(&format!(
                "{file}: `{kernel}` completed under the witness's launch and schedule ({} thread-instructions): the run does not break a rule\n",
                s.thread_instructions
            ));
            0
        }
        Outcome::Finding(r) => {
            out.push_str(&format!("{file}: `{kernel}` (witness replay):\n{r}\n"));
            1
        }
    }
}

/// Runs `phasegate sim` on parsed arguments.
pub(crate) fn execute(mut o: SimArgs, out: &mut String) -> u8 {
    let mut launch = Launch {
        grid: o.grid.unwrap_or((1, 1, 1)),
        block: o.block.unwrap_or((1, 1, 1)),
        cluster: o.cluster,
        ..Launch::default()
    };
    if let Some(n) = o.dynamic_shared {
        launch.dynamic_shared_bytes = n;
    }
    if let Some(p) = o.policy {
        launch.schedule.policy = p;
    }
    if let Some(s) = o.seed {
        launch.schedule.seed = s;
    }
    if let Some(n) = o.max_steps {
        launch.max_steps = n;
    }
    launch.race_check = !o.no_race_check;
    let args = match arguments(std::mem::take(&mut o.args)) {
        Ok(a) => a,
        Err(e) => {
            out.push_str(&format!("error: --arg {e}\n"));
            return 2;
        }
    };
    let text = match super::read_text(&o.file) {
        Ok(t) => t,
        Err(e) => {
            out.push_str(&format!("{}: error: {e}\n", o.file));
            return 2;
        }
    };
    let module = match crate::ptx::parse(&text) {
        Ok(m) => m,
        Err(e) => {
            out.push_str(&format!(
                "{}:{}:{}: error: {}\n",
                o.file, e.line, e.col, e.message
            ));
            return 2;
        }
    };
    let entries: Vec<&str> = module.entries().map(|f| f.name.as_str()).collect();
    let kernel = match (&o.kernel, entries.as_slice()) {
        (Some(k), _) => k.clone(),
        (None, [only]) => only.to_string(),
        (None, _) => {
            out.push_str(&format!(
                "{}: error: the module has {} entries ({}); choose one with --kernel\n",
                o.file,
                entries.len(),
                entries.join(", ")
            ));
            return 2;
        }
    };
    if let Some(spec) = &o.witness {
        return replay_witness(&o.file, &module, &kernel, spec, out);
    }
    let accessed = module
        .function(&kernel)
        .map(accessed_types)
        .unwrap_or_default();
    for (i, a) in args.iter().enumerate() {
        if let (Some((path, dtype)), Some(Some(acc))) = (&a.npy, accessed.get(i))
            && acc.typed
            && acc.dtype != *dtype
        {
            out.push_str(&format!(
                "warning: {path} holds {dtype} but `{kernel}` accesses argument {i} as {}\n",
                acc.dtype
            ));
        }
    }
    let (mut values, npys): (Vec<ArgValue>, Vec<_>) =
        args.into_iter().map(|a| (a.value, a.npy)).unzip();
    if let Some(runs) = o.explore {
        return explore(&o.file, &launch, &values, &module, &kernel, runs, out);
    }
    let wants_trace = o.trace.is_some() || o.timeline.is_some() || o.summary;
    let result = if wants_trace {
        sim::simulate_traced(&module, &kernel, &launch, &mut values)
            .map(|(outcome, trace)| (outcome, Some(trace)))
    } else {
        sim::simulate_module(&module, &kernel, &launch, &mut values).map(|outcome| (outcome, None))
    };
    let (outcome, trace) = match result {
        Ok(r) => r,
        Err(e) => {
            out.push_str(&format!("{}: error: {e}\n", o.file));
            return 2;
        }
    };
    let mut status = match &outcome {
        Outcome::Completed(s) => {
            out.push_str(&format!(
                "{}: `{kernel}` completed: {} cluster(s), {} CTA(s), {} thread-instructions ({} warp-instructions); {} named-barrier, {} mbarrier and {} cluster-barrier phases; {} async operations ({})\n",
                o.file, s.clusters, s.ctas, s.thread_instructions, s.warp_instructions, s.barrier_phases, s.mbarrier_phases, s.cluster_phases, s.async_ops, launch.schedule
            ));
            for w in &s.warnings {
                out.push_str(&format!("{}: `{kernel}`:\n{w}\n", o.file));
            }
            0
        }
        Outcome::Finding(r) => {
            out.push_str(&format!("{}: `{kernel}`:\n{r}\n", o.file));
            1
        }
    };
    for d in &o.dump {
        let label = label(d.index, &d.buffer);
        match buffer_bytes(&values, d.index, &d.buffer) {
            Ok(bytes) => print_dump(out, &label, &d.ty, bytes),
            Err(e) => {
                out.push_str(&format!("error: --dump {label}: {e}\n"));
                status = status.max(2);
            }
        }
    }
    for w in &o.outputs {
        let inferred = match w.buffer {
            Some(_) => None,
            None => npys
                .get(w.index)
                .and_then(|n| n.as_ref())
                .map(|n| n.1)
                .or_else(|| accessed.get(w.index).copied().flatten().map(|a| a.dtype)),
        };
        if let Err(e) = write_output(w, w.dtype.or(inferred), &values, out) {
            let label = label(w.index, &w.buffer);
            out.push_str(&format!("error: --out {label}:{}: {e}\n", w.path));
            status = 2;
        }
    }
    if let Some(trace) = trace {
        if let Some(path) = &o.trace
            && !write_file(path, &trace.chrome_json(), "Chrome trace", out)
        {
            status = 2;
        }
        if let Some(path) = &o.timeline
            && !write_file(path, &trace.svg(), "timeline", out)
        {
            status = 2;
        }
        if o.summary {
            out.push_str(&trace.summary());
        }
    }
    status
}

/// Writes buffer argument `w.index` to `w.path`: `.npy` of `dtype` (bytes when unknown) or raw.
fn write_output(
    w: &Output,
    dtype: Option<Dtype>,
    values: &[ArgValue],
    out: &mut String,
) -> Result<(), String> {
    let bytes = buffer_bytes(values, w.index, &w.buffer)?;
    let npy = w.path.ends_with(".npy");
    let (contents, what) = if npy {
        let dtype = dtype.unwrap_or(Dtype::U8);
        let file = npy::write(dtype, bytes)?;
        let what = format!("{} × {dtype}, .npy", bytes.len() / dtype.size());
        (file, what)
    } else {
        (bytes.to_vec(), "raw".to_string())
    };
    std::fs::write(&w.path, contents).map_err(|e| format!("cannot write: {e}"))?;
    out.push_str(&format!(
        "wrote argument {} ({} bytes; {what}) to {}\n",
        label(w.index, &w.buffer),
        bytes.len(),
        w.path
    ));
    Ok(())
}

/// `INDEX` or `INDEX.NAME`, as the user wrote it.
fn label(index: usize, buffer: &Option<String>) -> String {
    match buffer {
        Some(name) => format!("{index}.{name}"),
        None => index.to_string(),
    }
}

/// The final contents of buffer argument `index`, of a tensor map's own tensor, or of the
/// buffer `name` of a struct argument.
fn buffer_bytes<'a>(
    values: &'a [ArgValue],
    index: usize,
    name: &Option<String>,
) -> Result<&'a [u8], String> {
    let value = values
        .get(index)
        .ok_or_else(|| format!("the kernel has {} arguments", values.len()))?;
    match (value, name) {
        (ArgValue::Buffer(b), None) => Ok(b),
        (ArgValue::TensorMap(t), None) if t.data().is_some() => Ok(t.data().expect("owned")),
        (ArgValue::Struct(s), Some(name)) => s.data(name).ok_or_else(|| {
            let names: Vec<&str> = s.buffers.iter().map(|b| b.name.as_str()).collect();
            format!(
                "argument {index} has no buffer `{name}` (its buffers: {})",
                names.join(", ")
            )
        }),
        (ArgValue::Struct(_), None) => Err(format!(
            "argument {index} is a struct: name one of its buffers, {index}.NAME"
        )),
        (_, Some(_)) => Err(format!("argument {index} is not a struct")),
        _ => Err(format!("argument {index} is not a buffer")),
    }
}

fn print_dump(out: &mut String, label: &str, ty: &str, bytes: &[u8]) {
    let value = ArgValue::Buffer(bytes.to_vec());
    let items: Vec<String> = match ty {
        "u8" => value.read::<u8>().iter().map(|v| v.to_string()).collect(),
        "i32" => value.read::<i32>().iter().map(|v| v.to_string()).collect(),
        "f32" => value
            .read::<f32>()
            .iter()
            .map(|v| format!("{v:?}"))
            .collect(),
        "u64" => value.read::<u64>().iter().map(|v| v.to_string()).collect(),
        "f64" => value
            .read::<f64>()
            .iter()
            .map(|v| format!("{v:?}"))
            .collect(),
        _ => value.read::<u32>().iter().map(|v| v.to_string()).collect(),
    };
    let shown = items.len().min(64);
    out.push_str(&format!(
        "argument {label} ({} bytes) as {ty}: [{}{}]\n",
        bytes.len(),
        items[..shown].join(", "),
        if shown < items.len() {
            format!(", ... {} more", items.len() - shown)
        } else {
            String::new()
        }
    ));
}

fn write_file(path: &str, text: &str, what: &str, out: &mut String) -> bool {
    match std::fs::write(path, text) {
        Ok(()) => {
            out.push_str(&format!("wrote the {what} to {path}\n"));
            true
        }
        Err(e) => {
            out.push_str(&format!("error: cannot write {path}: {e}\n"));
            false
        }
    }
}

fn explore(
    file: &str,
    launch: &Launch,
    args: &[ArgValue],
    module: &crate::ptx::Module,
    kernel: &str,
    runs: usize,
    out: &mut String,
) -> u8 {
    match sim::explore(module, kernel, launch, args, runs) {
        Err(e) => {
            out.push_str(&format!("{file}: error: {e}\n"));
            2
        }
        Ok(x) => match x.failure {
            None => {
                out.push_str(&format!(
                    "{file}: `{kernel}`: {} schedules explored, no finding\n",
                    x.runs
                ));
                0
            }
            Some(f) => {
                let Schedule { policy, seed } = f.schedule;
                let p = match policy {
                    Policy::Pct { depth } => format!("pct:{depth}"),
                    other => other.name().to_string(),
                };
                out.push_str(&format!(
                    "{file}: `{kernel}`: schedule {} of {} fails:\n{}\nreplay with: --policy {p} --seed {seed}\n",
                    x.runs, runs, f.report
                ));
                1
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_types_from_the_accesses() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/ptx/scale_ref.ptx"
        );
        let module = crate::ptx::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let types = accessed_types(module.function("scale").unwrap());
        let f32 = Some(Accessed {
            dtype: Dtype::F32,
            typed: true,
        });
        assert_eq!(types, [f32, f32, None, None]);
    }

    #[test]
    fn out_specs() {
        let o = output("1:f32:dir/y.npy").unwrap();
        assert_eq!(
            (o.index, o.dtype, o.path.as_str()),
            (1, Some(Dtype::F32), "dir/y.npy")
        );
        let o = output("0:C:/x.bin").unwrap();
        assert_eq!((o.index, o.dtype, o.path.as_str()), (0, None, "C:/x.bin"));
        assert!(output("x.npy").is_err());
        assert!(output("1:").is_err());
    }
}
