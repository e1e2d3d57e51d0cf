//! `phasegate sim`: runs a PTX kernel in the CPU simulator.
//!
//! ```text
//! phasegate sim kernel.ptx --kernel NAME --grid X,Y,Z --block X,Y,Z [--cluster X,Y,Z]
//!     --arg u32:8 --arg f32:2.0 --arg buf:4096 ...
//! ```
//!
//! Exit status: 0 when the run completes without a finding, 1 with the report of a finding,
//! 2 on usage errors or when the simulator cannot run the kernel.

use crate::runtime::sim::{self, ArgValue, Launch, Outcome, Policy, Schedule};

pub const USAGE: &str = "\
usage: phasegate sim FILE.ptx [--kernel NAME] --grid X[,Y[,Z]] --block X[,Y[,Z]] [options] [--arg TYPE:VALUE]...

arguments, in parameter order:
  --arg u32:V | i32:V | u64:V | i64:V | f32:V | f64:V | bool:true|false
  --arg buf:N            a zero-filled global buffer of N bytes, passed as a pointer
  --arg buf:N:BYTE       a global buffer of N bytes, each BYTE (0..255)
  --arg file:PATH        a global buffer holding the contents of PATH
  --arg tmap:BUF:TYPE:DIMS:STRIDES:BOX[:OPTION]...
                         a tensor map (CUtensorMap, 128 bytes by value) over buffer argument
                         BUF (or a tensor of its own: zero=N bytes, file=PATH, which --dump
                         prints): TYPE u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz,
                         DIMS/STRIDES/BOX x-separated, dimension 0 first (STRIDES in bytes for
                         dimensions 1.., or - for dense rows); options swizzle=32|64|128,
                         oob=zero|nan, estride=AxB.., l2=64|128|256, offset=BYTES, global (pass
                         the address of a copy in global memory); e.g. tmap:1:f16:100x50:-:64x8:swizzle=128

options:
  --kernel NAME          the .entry to run (default: the module's only entry)
  --cluster X,Y,Z        CTAs per cluster (default: the kernel's .reqnctapercluster, or 1)
  --dynamic-shared N     bytes of dynamic shared memory
  --policy P             round-robin (default), random, pct or pct:DEPTH
  --seed N               seed of the schedule's choices (default 0)
  --explore N            run N schedules; report the first failing one and how to replay it
  --max-steps N          stop after N thread-instructions (default 1000000000)
  --no-race-check        do not check shared-memory accesses for data races
  --dump INDEX[:TYPE]    print buffer argument INDEX after the run (TYPE u8, u32, i32, f32, u64, f64)
  --trace FILE.json      write the timeline as Chrome trace JSON (opens in Perfetto)
  --timeline FILE.svg    write the timeline as an SVG picture
  --summary              print a summary of barrier activity

exit status: 0 when the run completes without a finding, 1 with the report of a finding,
2 on usage errors or when the simulator cannot run the kernel
";

struct Options {
    file: String,
    kernel: Option<String>,
    launch: Launch,
    args: Vec<ArgValue>,
    explore: Option<usize>,
    dumps: Vec<(usize, String)>,
    trace: Option<String>,
    timeline: Option<String>,
    summary: bool,
}

fn dims(text: &str) -> Result<(u32, u32, u32), String> {
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

fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    let t = text.trim();
    // Integers may be written in hex.
    if let Some(hex) = t.strip_prefix("0x")
        && let Ok(v) = u64::from_str_radix(hex, 16)
        && let Ok(x) = v.to_string().parse::<T>()
    {
        return Ok(x);
    }
    t.parse::<T>()
        .map_err(|_| format!("`{text}` is not a valid {what}"))
}

fn arg(text: &str) -> Result<ArgValue, String> {
    let (kind, value) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}` is not TYPE:VALUE"))?;
    Ok(match kind {
        "u32" => ArgValue::U32(number(value, "u32")?),
        "i32" => ArgValue::I32(number(value, "i32")?),
        "u64" => ArgValue::U64(number(value, "u64")?),
        "i64" => ArgValue::I64(number(value, "i64")?),
        "f32" => ArgValue::F32(number(value, "f32")?),
        "f64" => ArgValue::F64(number(value, "f64")?),
        "bool" => ArgValue::Bool(match value {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(format!("`{value}` is not true or false")),
        }),
        "buf" => {
            let (n, fill) = match value.split_once(':') {
                Some((n, b)) => (n, number::<u8>(b, "byte")?),
                None => (value, 0),
            };
            let n: usize = number(n, "buffer size")?;
            if n > 1 << 32 {
                return Err(format!(
                    "a buffer of {n} bytes is larger than the simulator allows (4 GiB)"
                ));
            }
            ArgValue::Buffer(vec![fill; n])
        }
        "file" => ArgValue::Buffer(
            std::fs::read(value).map_err(|e| format!("cannot read `{value}`: {e}"))?,
        ),
        "tmap" => sim::TensorMapArg::from_spec(
            sim::TensorMap::parse_spec(value).map_err(|e| format!("tmap:{value}: {e}"))?,
        )
        .into(),
        other => {
            return Err(format!(
                "unknown argument type `{other}` (u32, i32, u64, i64, f32, f64, bool, buf, file, tmap)"
            ));
        }
    })
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut file = None;
    let mut o = Options {
        file: String::new(),
        kernel: None,
        launch: Launch::default(),
        args: Vec::new(),
        explore: None,
        dumps: Vec::new(),
        trace: None,
        timeline: None,
        summary: false,
    };
    let (mut grid, mut block) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value"))
        };
        match a.as_str() {
            "--kernel" => o.kernel = Some(value(a)?),
            "--grid" => grid = Some(dims(&value(a)?)?),
            "--block" => block = Some(dims(&value(a)?)?),
            "--cluster" => o.launch.cluster = Some(dims(&value(a)?)?),
            "--dynamic-shared" => o.launch.dynamic_shared_bytes = number(&value(a)?, "byte count")?,
            "--arg" => o.args.push(arg(&value(a)?)?),
            "--policy" => {
                let v = value(a)?;
                o.launch.schedule.policy = Policy::parse(&v).ok_or_else(|| {
                    format!("unknown policy `{v}` (round-robin, random, pct, pct:DEPTH)")
                })?;
            }
            "--seed" => o.launch.schedule.seed = number(&value(a)?, "seed")?,
            "--explore" => o.explore = Some(number(&value(a)?, "number of runs")?),
            "--max-steps" => o.launch.max_steps = number(&value(a)?, "step count")?,
            "--no-race-check" => o.launch.race_check = false,
            "--dump" => {
                let v = value(a)?;
                let (i, ty) = v.split_once(':').unwrap_or((&v, "u32"));
                if !matches!(ty, "u8" | "u32" | "i32" | "f32" | "u64" | "f64") {
                    return Err(format!(
                        "unknown dump type `{ty}` (u8, u32, i32, f32, u64, f64)"
                    ));
                }
                o.dumps.push((number(i, "argument index")?, ty.to_string()));
            }
            "--trace" => o.trace = Some(value(a)?),
            "--timeline" => o.timeline = Some(value(a)?),
            "--summary" => o.summary = true,
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`")),
            path if file.is_none() => file = Some(path.to_string()),
            extra => return Err(format!("unexpected `{extra}`: one FILE.ptx only")),
        }
    }
    o.file = file.ok_or("no FILE.ptx given")?;
    o.launch.grid = grid.ok_or("`--grid X,Y,Z` is required")?;
    o.launch.block = block.ok_or("`--block X,Y,Z` is required")?;
    Ok(o)
}

fn dump(out: &mut String, index: usize, ty: &str, value: &ArgValue) {
    // A tensor map with a tensor of its own: that tensor.
    if let ArgValue::TensorMap(t) = value
        && let Some(data) = t.data()
    {
        return dump(out, index, ty, &ArgValue::Buffer(data.to_vec()));
    }
    let ArgValue::Buffer(bytes) = value else {
        out.push_str(&format!("argument {index} is not a buffer\n"));
        return;
    };
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
        "argument {index} ({} bytes) as {ty}: [{}{}]\n",
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

/// Runs `phasegate sim ...` (the arguments after `sim`); returns the exit status.
pub fn run(args: &[String], out: &mut String) -> u8 {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        out.push_str(USAGE);
        return 0;
    }
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            out.push_str(&format!("error: {e}\n\n{USAGE}"));
            return 2;
        }
    };
    let text = match std::fs::read_to_string(&o.file) {
        Ok(t) => t,
        Err(e) => {
            out.push_str(&format!("{}: error: cannot read: {e}\n", o.file));
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
    if let Some(runs) = o.explore {
        return explore(&o, &module, &kernel, runs, out);
    }
    let mut values = o.args.clone();
    let wants_trace = o.trace.is_some() || o.timeline.is_some() || o.summary;
    let result = if wants_trace {
        sim::simulate_traced(&module, &kernel, &o.launch, &mut values)
            .map(|(outcome, trace)| (outcome, Some(trace)))
    } else {
        sim::simulate_module(&module, &kernel, &o.launch, &mut values)
            .map(|outcome| (outcome, None))
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
                o.file, s.clusters, s.ctas, s.thread_instructions, s.warp_instructions, s.barrier_phases, s.mbarrier_phases, s.cluster_phases, s.async_ops, o.launch.schedule
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
    for (i, ty) in &o.dumps {
        match values.get(*i) {
            Some(v) => dump(out, *i, ty, v),
            None => {
                out.push_str(&format!(
                    "error: --dump {i}: the kernel has {} arguments\n",
                    values.len()
                ));
                status = status.max(2);
            }
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

fn explore(
    o: &Options,
    module: &crate::ptx::Module,
    kernel: &str,
    runs: usize,
    out: &mut String,
) -> u8 {
    match sim::explore(module, kernel, &o.launch, &o.args, runs) {
        Err(e) => {
            out.push_str(&format!("{}: error: {e}\n", o.file));
            2
        }
        Ok(x) => match x.failure {
            None => {
                out.push_str(&format!(
                    "{}: `{kernel}`: {} schedules explored, no finding\n",
                    o.file, x.runs
                ));
                0
            }
            Some(f) => {
                let Schedule { policy, seed } = f.schedule;
                let p = match policy {
                    Policy::Pct { depth } => format!("pct:{depth}"),
                    other => other.name().to_string(),
                };
                out.push_str(&format!("{}: `{kernel}`: schedule {} of {} fails:\n{}\nreplay with: --policy {p} --seed {seed}\n", o.file, x.runs, runs, f.report));
                1
            }
        },
    }
}
