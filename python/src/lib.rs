//! `phasegate._native`: the extension module behind the `phasegate` Python package.
//!
//! - [`lint`]: the barrier analyzer on PTX text, one [`Finding`] per diagnostic;
//! - [`simulate`]: the CPU simulator, with NumPy arrays as buffer arguments and results;
//! - [`cli`]: the `phasegate` command line (the same function the Rust binary calls);
//! - [`lints`]: the lints and their default levels.
//!
//! The Python package (`python/phasegate/__init__.py`) wraps these with keyword defaults,
//! argument normalisation and type hints; the Triton hook is plain Python on top of [`lint`]
//! and [`simulate`]. Parsing, linting and simulating run with the GIL released.

mod structs;

use numpy::{PyArray1, PyUntypedArray, PyUntypedArrayMethods};
use phasegate_lints::{Diagnostic, LINTS, Level, LintConfig, SourceLoc, lint_module};
use phasegate_ptx::{self as ptx, Module, ReadError, ScalarType, VarDecl};
use phasegate_runtime::sim::{self, ArgValue, Launch, Outcome, Policy, Report, Schedule};
use pyo3::create_exception;
use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyTuple};

create_exception!(
    phasegate,
    PtxError,
    PyValueError,
    "PTX text that cannot be read; `line`, `column` and `message` say where and why."
);
create_exception!(
    phasegate,
    SimulationError,
    PyRuntimeError,
    "The simulator cannot run the kernel (an instruction it does not implement, a launch or arguments that do not fit); not the kernel's fault."
);

fn ptx_error(py: Python<'_>, e: &ReadError) -> PyErr {
    let err = PtxError::new_err(format!("line {}, column {}: {}", e.line, e.col, e.message));
    let value = err.value(py);
    // Exception instances have a __dict__; these cannot fail.
    let _ = value.setattr("line", e.line);
    let _ = value.setattr("column", e.col);
    let _ = value.setattr("message", e.message.as_str());
    err
}

fn read(py: Python<'_>, text: &str) -> PyResult<Module> {
    py.detach(|| ptx::parse(text))
        .map_err(|e| ptx_error(py, &e))
}

fn source_tuple(s: &Option<SourceLoc>) -> Option<(String, u32)> {
    s.as_ref().map(|s| (s.file.clone(), s.line))
}

/// One lint finding.
#[pyclass(module = "phasegate", frozen, get_all)]
pub struct Finding {
    /// The lint's name, e.g. `aligned_barrier_divergence`.
    lint: String,
    /// `"deny"` or `"warn"`.
    level: String,
    /// The `.entry` or `.func` the finding is in.
    kernel: String,
    /// 1-based PTX line and column.
    line: u32,
    column: u32,
    message: String,
    /// The other places the finding is about: `(line, column, message)`.
    related: Vec<(u32, u32, String)>,
    notes: Vec<String>,
    /// `(file, line)` in the kernel's source language, from the PTX `.loc` line in force.
    source: Option<(String, u32)>,
}

impl Finding {
    fn from_diagnostic(d: &Diagnostic) -> Finding {
        Finding {
            lint: d.lint.to_string(),
            level: d.level.name().to_string(),
            kernel: d.function.clone(),
            line: d.span.line,
            column: d.span.col,
            message: d.message.clone(),
            related: d
                .related
                .iter()
                .map(|r| (r.span.line, r.span.col, r.message.clone()))
                .collect(),
            notes: d.notes.clone(),
            source: source_tuple(&d.source),
        }
    }
}

#[pymethods]
impl Finding {
    fn __repr__(&self) -> String {
        format!(
            "Finding(lint={:?}, level={:?}, kernel={:?}, line={}, column={}, message={:?})",
            self.lint, self.level, self.kernel, self.line, self.column, self.message
        )
    }

    /// As `phasegate lint` prints it, with `<ptx>` for the file name.
    fn __str__(&self) -> String {
        self.format("<ptx>")
    }

    /// As `phasegate lint` prints it, with `file` as the PTX file's name.
    #[pyo3(signature = (file = "<ptx>"))]
    fn format(&self, file: &str) -> String {
        let level = if self.level == "deny" {
            "error"
        } else {
            "warning"
        };
        let mut out = format!(
            "{file}:{}:{}: {level}[{}]: {}\n",
            self.line, self.column, self.lint, self.message
        );
        match &self.source {
            Some((source, line)) => out.push_str(&format!(
                "  --> {source}:{line} (in kernel `{}`)\n",
                self.kernel
            )),
            None => out.push_str(&format!("  --> in kernel `{}`\n", self.kernel)),
        }
        for (line, col, message) in &self.related {
            out.push_str(&format!("  {file}:{line}:{col}: note: {message}\n"));
        }
        for n in &self.notes {
            out.push_str(&format!("  = note: {n}\n"));
        }
        out.pop();
        out
    }
}

/// A kernel parameter: `(name, type, bytes, is_pointer)`.
type ParamInfo = (String, String, u64, bool);

/// The `.entry` functions of a module and their parameters:
/// `[(name, [(param, type, bytes, is_pointer)])]`. `type` is the PTX type (`u64`, `f32`,
/// `b8[128]` for a by-value array); `is_pointer` says the parameter is declared `.ptr`.
#[pyfunction]
fn entries(py: Python<'_>, ptx: &str) -> PyResult<Vec<(String, Vec<ParamInfo>)>> {
    let module = read(py, ptx)?;
    Ok(module
        .entries()
        .map(|f| {
            let params = f
                .params
                .iter()
                .map(|p| {
                    let count: u64 = p.array.iter().map(|d| d.unwrap_or(1)).product::<u64>()
                        * p.vector.map_or(1, u64::from);
                    let mut ty = p.ty.to_string();
                    if let Some(v) = p.vector {
                        ty = format!("v{v}.{ty}");
                    }
                    for d in &p.array {
                        ty.push_str(&format!("[{}]", d.map_or(String::new(), |d| d.to_string())));
                    }
                    (
                        p.name.clone(),
                        ty,
                        u64::from(p.ty.size()) * count,
                        p.ptr.is_some(),
                    )
                })
                .collect();
            (f.name.clone(), params)
        })
        .collect())
}

/// Lints PTX text. `allow`, `warn` and `deny` are lint names (or `all`); entries naming
/// `all` apply first, then the others. Returns the findings (allowed lints report nothing).
#[pyfunction]
#[pyo3(signature = (ptx, *, allow = Vec::new(), warn = Vec::new(), deny = Vec::new()))]
fn lint(
    py: Python<'_>,
    ptx: &str,
    allow: Vec<String>,
    warn: Vec<String>,
    deny: Vec<String>,
) -> PyResult<Vec<Finding>> {
    let mut config = LintConfig::default();
    let levels = [
        (&allow, Level::Allow),
        (&warn, Level::Warn),
        (&deny, Level::Deny),
    ];
    let mut named: Vec<(&str, Level)> = Vec::new();
    for all_first in [true, false] {
        for (names, level) in &levels {
            for name in names.iter().filter(|n| (*n == "all") == all_first) {
                if !all_first {
                    if let Some((_, other)) = named.iter().find(|(n, _)| *n == name) {
                        return Err(PyValueError::new_err(format!(
                            "lint `{name}` is given both as {} and as {}",
                            other.name(),
                            level.name()
                        )));
                    }
                    named.push((name, *level));
                }
                config
                    .set(name, *level)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
            }
        }
    }
    let module = read(py, ptx)?;
    let findings = py.detach(|| lint_module(&module, &config));
    Ok(findings.iter().map(Finding::from_diagnostic).collect())
}

/// Every lint: `(name, default level, summary)`.
#[pyfunction]
fn lints() -> Vec<(&'static str, &'static str, &'static str)> {
    LINTS
        .iter()
        .map(|l| (l.name, l.default.name(), l.summary))
        .collect()
}

/// Runs the `phasegate` command line with `args` (without the program name); returns the
/// exit status and what the command printed.
#[pyfunction]
fn cli(py: Python<'_>, args: Vec<String>) -> (u8, String) {
    py.detach(|| {
        let mut out = String::new();
        let status = phasegate::cli::run(&args, &mut out);
        (status, out)
    })
}

/// Threads of one warp at one instruction, as a simulator finding reports them.
#[pyclass(module = "phasegate", frozen, get_all)]
pub struct Site {
    /// `%ctaid` of the CTA.
    cta: (u32, u32, u32),
    /// Warp index within the CTA.
    warp: u32,
    /// Lane mask of the threads this site is about.
    lanes: u32,
    /// `%tid` of the lowest of those lanes.
    tid: (u32, u32, u32),
    /// PTX line of the instruction.
    line: u32,
    function: String,
    instruction: String,
    /// What the threads do there: `waits for barrier 1 (phase 3)`.
    what: String,
    text: String,
}

#[pymethods]
impl Site {
    fn __repr__(&self) -> String {
        format!(
            "Site(cta={:?}, warp={}, lanes={:#010x}, line={}, what={:?})",
            self.cta, self.warp, self.lanes, self.line, self.what
        )
    }
    fn __str__(&self) -> String {
        self.text.clone()
    }
}

/// A simulator finding: the run stopped because the kernel broke a rule of the PTX ISA
/// (deadlock, data race, undefined behaviour, out-of-bounds access, trap, step budget).
#[pyclass(module = "phasegate", frozen, get_all)]
pub struct SimFinding {
    /// A short stable name: `deadlock`, `shared_race`, `out_of_bounds`, ...
    kind: String,
    message: String,
    /// The section of the PTX ISA whose rule is broken.
    spec: String,
    sites: Vec<Py<Site>>,
    /// The barriers involved, one line each.
    state: Vec<String>,
    notes: Vec<String>,
    /// The schedule that found it: `(policy, seed)`; replaying it reproduces the finding.
    schedule: (String, u64),
    thread_instructions: u64,
    /// The report as `phasegate sim` prints it.
    text: String,
}

fn policy_text(p: Policy) -> String {
    match p {
        Policy::Pct { depth } => format!("pct:{depth}"),
        other => other.name().to_string(),
    }
}

impl SimFinding {
    fn new(py: Python<'_>, r: &Report) -> PyResult<SimFinding> {
        Ok(SimFinding {
            kind: r.kind.code().to_string(),
            message: r.message.clone(),
            spec: r.spec.clone(),
            sites: r
                .sites
                .iter()
                .map(|s| {
                    Py::new(
                        py,
                        Site {
                            cta: s.cta,
                            warp: s.warp,
                            lanes: s.lanes,
                            tid: s.tid,
                            line: s.line,
                            function: s.function.clone(),
                            instruction: s.instruction.clone(),
                            what: s.what.clone(),
                            text: s.to_string(),
                        },
                    )
                })
                .collect::<PyResult<_>>()?,
            state: r.state.clone(),
            notes: r.notes.clone(),
            schedule: (policy_text(r.schedule.policy), r.schedule.seed),
            thread_instructions: r.thread_instructions,
            text: r.to_string(),
        })
    }
}

#[pymethods]
impl SimFinding {
    fn __repr__(&self) -> String {
        format!(
            "SimFinding(kind={:?}, message={:?}, spec={:?})",
            self.kind, self.message, self.spec
        )
    }
    fn __str__(&self) -> String {
        self.text.clone()
    }
}

/// What a simulated launch produced.
#[pyclass(module = "phasegate", frozen)]
pub struct SimResult {
    buffers: Py<PyList>,
    findings: Py<PyList>,
    stats: Option<Py<PyDict>>,
    /// The kernel that ran.
    #[pyo3(get)]
    kernel: String,
    /// The schedule of the run whose buffers and findings these are: `(policy, seed)`.
    #[pyo3(get)]
    schedule: (String, u64),
    /// Schedules run (1, or how many `explore` tried up to the first failing one).
    #[pyo3(get)]
    runs: usize,
}

#[pymethods]
impl SimResult {
    /// One entry per argument: the final contents of a buffer argument as a NumPy array of
    /// the dtype and shape it was passed with, of a `Struct`'s buffers as a dict of them,
    /// `None` for scalars and by-value bytes.
    #[getter]
    fn buffers(&self, py: Python<'_>) -> Py<PyList> {
        self.buffers.clone_ref(py)
    }
    /// The simulator's findings (deadlock, race, undefined behaviour): empty when the run
    /// completed; the run stops at the first one.
    #[getter]
    fn findings(&self, py: Python<'_>) -> Py<PyList> {
        self.findings.clone_ref(py)
    }
    /// Counts of a completed run (`thread_instructions`, `barrier_phases`, ...); `None` after
    /// a finding.
    #[getter]
    fn stats(&self, py: Python<'_>) -> Option<Py<PyDict>> {
        self.stats.as_ref().map(|s| s.clone_ref(py))
    }
    /// Whether every thread exited and nothing was found.
    #[getter]
    fn completed(&self) -> bool {
        self.stats.is_some()
    }
    /// `buffers[index]`.
    fn __getitem__<'py>(&self, py: Python<'py>, index: isize) -> PyResult<Bound<'py, PyAny>> {
        self.buffers.bind(py).as_any().get_item(index)
    }
    fn __len__(&self, py: Python<'_>) -> usize {
        self.buffers.bind(py).len()
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        let findings = self.findings.bind(py);
        if findings.is_empty() {
            format!("SimResult(kernel={:?}, completed=True)", self.kernel)
        } else {
            let kinds: Vec<String> = findings
                .iter()
                .filter_map(|f| f.getattr("kind").ok()?.extract::<String>().ok())
                .collect();
            format!(
                "SimResult(kernel={:?}, completed=False, findings={kinds:?})",
                self.kernel
            )
        }
    }
}

/// How a buffer argument comes back: the dtype and shape it was passed with.
pub(crate) struct OutSpec {
    dtype: Py<PyAny>,
    shape: Vec<usize>,
}

fn param_text(i: usize, p: &VarDecl) -> String {
    format!("parameter {i} (`{}`, .{})", p.name, p.ty)
}

fn int_arg(i: usize, p: &VarDecl, v: i128) -> PyResult<ArgValue> {
    let ty = p.ty;
    if ty.is_float() {
        return float_arg(i, p, v as f64);
    }
    if ty == ScalarType::Pred {
        return match v {
            0 | 1 => Ok(ArgValue::Bool(v == 1)),
            _ => Err(PyOverflowError::new_err(format!(
                "{}: a predicate takes 0, 1, True or False, not {v}",
                param_text(i, p)
            ))),
        };
    }
    let bits = ty.size() * 8;
    let (lo, hi): (i128, i128) = if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else if ty.name().starts_with('u') {
        (0, (1i128 << bits) - 1)
    } else {
        // .bN: either reading.
        (-(1i128 << (bits - 1)), (1i128 << bits) - 1)
    };
    if bits < 128 && !(lo..=hi).contains(&v) {
        return Err(PyOverflowError::new_err(format!(
            "{}: {v} does not fit in {bits} bits",
            param_text(i, p)
        )));
    }
    Ok(match bits {
        32 if v < 0 => ArgValue::I32(v as i32),
        32 => ArgValue::U32(v as u32),
        64 if v < 0 => ArgValue::I64(v as i64),
        64 => ArgValue::U64(v as u64),
        _ => ArgValue::Bytes(v.to_le_bytes()[..(bits / 8) as usize].to_vec()),
    })
}

/// f32 to bfloat16 bits, rounding to nearest even (NaN stays NaN).
fn bf16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    (b.wrapping_add(round) >> 16) as u16
}

fn float_arg(i: usize, p: &VarDecl, x: f64) -> PyResult<ArgValue> {
    match p.ty {
        ScalarType::F32 => Ok(ArgValue::F32(x as f32)),
        ScalarType::F64 => Ok(ArgValue::F64(x)),
        ScalarType::Bf16 => Ok(ArgValue::Bytes(bf16_bits(x as f32).to_le_bytes().to_vec())),
        ScalarType::F16 => Err(PyTypeError::new_err(format!(
            "{}: pass a half-precision value as numpy.float16(...)",
            param_text(i, p)
        ))),
        _ => Err(PyTypeError::new_err(format!(
            "{}: takes an integer or bytes, not a float",
            param_text(i, p)
        ))),
    }
}

/// A NumPy array's bytes (C order, little-endian) and how it comes back; `what` names it in
/// errors.
pub(crate) fn array_bytes(
    numpy: &Bound<'_, PyModule>,
    what: &str,
    obj: &Bound<'_, PyAny>,
) -> PyResult<(Vec<u8>, OutSpec)> {
    if obj.cast::<PyUntypedArray>().is_err() {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected a NumPy array, not {}",
            obj.get_type().name()?
        )));
    }
    let mut array = numpy.call_method1("ascontiguousarray", (obj,))?;
    let mut dtype = array.getattr("dtype")?;
    if dtype.getattr("hasobject")?.is_truthy()? {
        return Err(PyTypeError::new_err(format!(
            "{what}: an array of Python objects cannot be a kernel buffer"
        )));
    }
    if dtype.getattr("byteorder")?.extract::<String>()? == ">" {
        dtype = dtype.call_method1("newbyteorder", ("<",))?;
        array = array.call_method1("astype", (&dtype,))?;
    }
    let shape = array.cast::<PyUntypedArray>()?.shape().to_vec();
    let bytes = array.call_method0("tobytes")?;
    let bytes = bytes.cast::<PyBytes>()?.as_bytes().to_vec();
    Ok((
        bytes,
        OutSpec {
            dtype: dtype.unbind(),
            shape,
        },
    ))
}

/// How an argument comes back in `SimResult.buffers`.
enum Out {
    /// `None` (scalars, bytes).
    Nothing,
    /// An array of the dtype and shape it was passed with.
    Array(OutSpec),
    /// A dict of a struct's buffers, each an array as given (`uint8` when `None`).
    Struct(Vec<Option<OutSpec>>),
}

/// One Python argument as a kernel argument: NumPy arrays are buffers (their bytes, passed
/// as a pointer), NumPy scalars and `bytes` are the parameter's bytes, a `Struct` is a
/// by-value struct with its buffers, Python ints, floats and bools are converted to the
/// parameter's declared type.
fn arg_value(
    py: Python<'_>,
    numpy: &Bound<'_, PyModule>,
    i: usize,
    p: &VarDecl,
    obj: &Bound<'_, PyAny>,
) -> PyResult<(ArgValue, Out)> {
    if let Ok(s) = obj.cast::<structs::PyStruct>() {
        let s = s.get();
        let specs = s
            .specs
            .iter()
            .map(|o| {
                o.as_ref().map(|o| OutSpec {
                    dtype: o.dtype.clone_ref(py),
                    shape: o.shape.clone(),
                })
            })
            .collect();
        return Ok((
            ArgValue::Struct(Box::new(s.arg.clone())),
            Out::Struct(specs),
        ));
    }
    if obj.cast::<PyUntypedArray>().is_ok() {
        let (bytes, spec) = array_bytes(numpy, &format!("argument {i}"), obj)?;
        return Ok((ArgValue::Buffer(bytes), Out::Array(spec)));
    }
    if obj.is_instance(&numpy.getattr("generic")?)? {
        let bytes = obj.call_method0("tobytes")?;
        return Ok((
            ArgValue::Bytes(bytes.cast::<PyBytes>()?.as_bytes().to_vec()),
            Out::Nothing,
        ));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok((ArgValue::Bytes(b.as_bytes().to_vec()), Out::Nothing));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok((ArgValue::Bytes(b.to_vec()), Out::Nothing));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok((int_arg(i, p, b.is_true() as i128)?, Out::Nothing));
    }
    if obj.cast::<PyInt>().is_ok() {
        let v: i128 = match obj.extract::<i64>() {
            Ok(v) => v as i128,
            Err(_) => obj.extract::<u64>().map_err(|_| {
                PyOverflowError::new_err(format!(
                    "{}: the integer does not fit in 64 bits",
                    param_text(i, p)
                ))
            })? as i128,
        };
        return Ok((int_arg(i, p, v)?, Out::Nothing));
    }
    if obj.cast::<PyFloat>().is_ok() {
        return Ok((float_arg(i, p, obj.extract::<f64>()?)?, Out::Nothing));
    }
    let _ = py;
    Err(PyTypeError::new_err(format!(
        "argument {i}: expected a NumPy array (a buffer), a NumPy scalar, bytes, int, float or bool, not {}",
        obj.get_type().name()?
    )))
}

fn sim_error(py: Python<'_>, e: sim::SimError) -> PyErr {
    match e {
        sim::SimError::Parse { line, col, message } => {
            ptx_error(py, &ReadError { line, col, message })
        }
        other => SimulationError::new_err(other.to_string()),
    }
}

/// Runs one launch of `kernel` (the module's only entry when `None`) in the CPU simulator.
#[pyfunction]
#[pyo3(signature = (ptx, kernel, grid, block, args, *, seed = 0, policy = "round-robin", cluster = None, dynamic_shared = 0, max_steps = 1_000_000_000, race_check = true, explore = None))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    ptx: &str,
    kernel: Option<String>,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: Vec<Bound<'_, PyAny>>,
    seed: u64,
    policy: &str,
    cluster: Option<(u32, u32, u32)>,
    dynamic_shared: u32,
    max_steps: u64,
    race_check: bool,
    explore: Option<usize>,
) -> PyResult<SimResult> {
    let policy = Policy::parse(policy).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown policy `{policy}` (round-robin, random, pct, pct:DEPTH)"
        ))
    })?;
    let module = read(py, ptx)?;
    let entries: Vec<&ptx::Function> = module.entries().collect();
    let names = || {
        entries
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let entry = match &kernel {
        Some(k) => entries.iter().find(|f| &f.name == k).ok_or_else(|| {
            PyValueError::new_err(format!(
                "no .entry `{k}` in the module (it has: {})",
                names()
            ))
        })?,
        None => match entries.as_slice() {
            [only] => only,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "the module has {} entries ({}); name one as `kernel`",
                    entries.len(),
                    names()
                )));
            }
        },
    };
    if args.len() != entry.params.len() {
        let params: Vec<String> = entry
            .params
            .iter()
            .map(|p| format!("{}: .{}", p.name, p.ty))
            .collect();
        return Err(PyTypeError::new_err(format!(
            "`{}` takes {} arguments ({}), {} given",
            entry.name,
            entry.params.len(),
            params.join(", "),
            args.len()
        )));
    }
    let numpy = py.import("numpy")?;
    let mut values = Vec::with_capacity(args.len());
    let mut outs = Vec::with_capacity(args.len());
    for (i, (p, a)) in entry.params.iter().zip(&args).enumerate() {
        let (v, out) = arg_value(py, &numpy, i, p, a)?;
        values.push(v);
        outs.push(out);
    }
    let entry_name = entry.name.clone();
    let launch = Launch {
        grid,
        block,
        cluster,
        dynamic_shared_bytes: dynamic_shared,
        schedule: Schedule { policy, seed },
        max_steps,
        race_check,
    };
    let (outcome, schedule, runs) = py
        .detach(|| -> Result<_, sim::SimError> {
            let (schedule, runs) = match explore {
                Some(n) => {
                    let x = sim::explore(&module, &entry_name, &launch, &values, n.max(1))?;
                    match x.failure {
                        Some(f) => (f.schedule, x.runs),
                        None => (launch.schedule, x.runs),
                    }
                }
                None => (launch.schedule, 1),
            };
            // The run whose buffers come back (a replay when `explore` found a failure).
            let l = Launch {
                schedule,
                ..launch.clone()
            };
            let outcome = sim::simulate_module(&module, &entry_name, &l, &mut values)?;
            Ok((outcome, schedule, runs))
        })
        .map_err(|e| sim_error(py, e))?;
    let buffers = PyList::empty(py);
    let typed = |bytes: Vec<u8>, spec: Option<OutSpec>| -> PyResult<Bound<'_, PyAny>> {
        let array = PyArray1::<u8>::from_vec(py, bytes).into_any();
        match spec {
            Some(spec) => array
                .call_method1("view", (spec.dtype.bind(py),))?
                .call_method1("reshape", (PyTuple::new(py, spec.shape)?,)),
            None => Ok(array),
        }
    };
    for (v, out) in values.into_iter().zip(outs) {
        match (v, out) {
            (ArgValue::Buffer(bytes), Out::Array(spec)) => {
                buffers.append(typed(bytes, Some(spec))?)?
            }
            (ArgValue::Struct(s), Out::Struct(specs)) => {
                let d = PyDict::new(py);
                for (b, spec) in s.buffers.into_iter().zip(specs) {
                    d.set_item(b.name, typed(b.data, spec)?)?;
                }
                buffers.append(d)?;
            }
            _ => buffers.append(py.None())?,
        }
    }
    let findings = PyList::empty(py);
    let stats = match &outcome {
        Outcome::Completed(s) => {
            let d = PyDict::new(py);
            d.set_item("thread_instructions", s.thread_instructions)?;
            d.set_item("warp_instructions", s.warp_instructions)?;
            d.set_item("clusters", s.clusters)?;
            d.set_item("ctas", s.ctas)?;
            d.set_item("barrier_phases", s.barrier_phases)?;
            d.set_item("mbarrier_phases", s.mbarrier_phases)?;
            d.set_item("cluster_phases", s.cluster_phases)?;
            d.set_item("async_ops", s.async_ops)?;
            d.set_item("decisions", s.decisions)?;
            Some(d.unbind())
        }
        Outcome::Finding(r) => {
            findings.append(Py::new(py, SimFinding::new(py, r)?)?)?;
            None
        }
    };
    Ok(SimResult {
        buffers: buffers.unbind(),
        findings: findings.unbind(),
        stats,
        kernel: entry.name.clone(),
        schedule: (policy_text(schedule.policy), schedule.seed),
        runs,
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PtxError", py.get_type::<PtxError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Finding>()?;
    m.add_class::<Site>()?;
    m.add_class::<SimFinding>()?;
    m.add_class::<SimResult>()?;
    m.add_class::<structs::PyStruct>()?;
    m.add_function(wrap_pyfunction!(lint, m)?)?;
    m.add_function(wrap_pyfunction!(lints, m)?)?;
    m.add_function(wrap_pyfunction!(entries, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    Ok(())
}
