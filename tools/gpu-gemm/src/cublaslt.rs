//! cuBLASLt, opened at run time, for the `C = A·Bᵀ` the benchmarked kernel computes.
//!
//! cudarc 0.19 has cuBLASLt bindings, but its loader takes the CUDA major version from the
//! workspace's `cuda-12080` feature and tries `libcublasLt.so`, `.so.12`, `.so.11`, ... —
//! never CUDA 13's `libcublasLt.so.13`, which is what the GPU machine has (the toolkit's and
//! torch's `nvidia-cublas` wheel's). Switching the feature to `cuda-13000` would change the
//! driver bindings of the whole runtime, so the dozen entry points used here are opened by
//! hand. The constants are cublasLt.h's (identical in CUDA 12 and 13).

use crate::gpu::Stream;
use phasegate_runtime::cuda::CudaError;
use std::ffi::c_void;

pub(crate) type Status = i32;
type Handle = *mut c_void;
type Desc = *mut c_void;

const CUBLAS_COMPUTE_32F: i32 = 68;
const CUDA_R_32F: i32 = 0;
const CUDA_R_16BF: i32 = 14;
const CUDA_R_8F_E4M3: i32 = 28;
const CUBLAS_OP_N: i32 = 0;
const CUBLAS_OP_T: i32 = 1;
const CUBLASLT_MATMUL_DESC_TRANSA: i32 = 3;
const CUBLASLT_MATMUL_DESC_TRANSB: i32 = 4;
const CUBLASLT_MATMUL_DESC_A_SCALE_POINTER: i32 = 17;
const CUBLASLT_MATMUL_DESC_B_SCALE_POINTER: i32 = 18;
const CUBLASLT_MATMUL_DESC_FAST_ACCUM: i32 = 25;
const CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: i32 = 1;
const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES: i32 = 5;
const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES: i32 = 6;
const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES: i32 = 7;
const CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES: i32 = 8;

/// `cublasLtMatmulHeuristicResult_t`: the algorithm (64 opaque bytes), its workspace, status,
/// waves, and four reserved ints.
#[repr(C)]
#[derive(Clone, Copy)]
struct Heuristic {
    algo: [u64; 8],
    workspace: usize,
    state: Status,
    waves: f32,
    reserved: [i32; 4],
}

struct Api {
    create: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    version: unsafe extern "C" fn() -> usize,
    desc_create: unsafe extern "C" fn(*mut Desc, i32, i32) -> Status,
    desc_destroy: unsafe extern "C" fn(Desc) -> Status,
    desc_set: unsafe extern "C" fn(Desc, i32, *const c_void, usize) -> Status,
    layout_create: unsafe extern "C" fn(*mut Desc, i32, u64, u64, i64) -> Status,
    layout_destroy: unsafe extern "C" fn(Desc) -> Status,
    pref_create: unsafe extern "C" fn(*mut Desc) -> Status,
    pref_destroy: unsafe extern "C" fn(Desc) -> Status,
    pref_set: unsafe extern "C" fn(Desc, i32, *const c_void, usize) -> Status,
    #[allow(clippy::type_complexity)]
    heuristic: unsafe extern "C" fn(
        Handle,
        Desc,
        Desc,
        Desc,
        Desc,
        Desc,
        Desc,
        i32,
        *mut Heuristic,
        *mut i32,
    ) -> Status,
    #[allow(clippy::type_complexity)]
    matmul: unsafe extern "C" fn(
        Handle,
        Desc,
        *const c_void,
        *const c_void,
        Desc,
        *const c_void,
        Desc,
        *const c_void,
        *const c_void,
        Desc,
        *mut c_void,
        Desc,
        *const c_void,
        *mut c_void,
        usize,
        *mut c_void,
    ) -> Status,
}

/// The element types of a plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Precision {
    /// A, B and C bf16.
    Bf16,
    /// A and B OCP fp8 e4m3, C bf16, each operand with a per-tensor f32 scale:
    /// C = bf16(scale_a · scale_b · A·Bᵀ), what `torch._scaled_mm(a, b.t(), scale_a, scale_b,
    /// out_dtype=torch.bfloat16)` computes.
    ///
    /// The scales go to cuBLASLt as `CUBLASLT_MATMUL_DESC_A_SCALE_POINTER` and `B_SCALE_POINTER`
    /// (device addresses of one f32 each, "the scale factor that converts data in matrix A to
    /// the compute data type range", 1 where unset), with alpha = 1 and beta = 0, as torch
    /// passes per-tensor scales; cuBLASLt's fp8 result is D = alpha · scaleA · scaleB · op(A)·op(B)
    /// (+ beta · C), so folding the product into alpha would give the same numbers, but the
    /// pointers are what a scaled-mm caller measures.
    E4m3 {
        /// Device address of scale_a (one f32).
        scale_a: u64,
        /// Device address of scale_b (one f32).
        scale_b: u64,
        /// `CUBLASLT_MATMUL_DESC_FAST_ACCUM`: off (torch's `use_fast_accum=False`) keeps
        /// promoting the tensor cores' partial sums to f32; on accumulates in the tensor cores.
        fast_accum: bool,
    },
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Precision::Bf16 => write!(f, "bf16"),
            Precision::E4m3 { fast_accum, .. } => write!(
                f,
                "e4m3 (fast accumulation {})",
                if *fast_accum { "on" } else { "off" }
            ),
        }
    }
}

/// An open cuBLASLt and a handle.
pub struct CublasLt {
    api: Api,
    handle: Handle,
    /// The file opened.
    pub library: String,
    /// `cublasLtGetVersion()`, e.g. 130100 for 13.1.0.
    pub version: usize,
    // Last, so that it is closed after everything above is released.
    _lib: libloading::Library,
}

/// A cuBLAS or cuBLASLt status as a result (`CUBLAS_STATUS_SUCCESS` is 0).
pub(crate) fn status(call: &'static str, s: Status) -> Result<(), CudaError> {
    if s == 0 {
        Ok(())
    } else {
        Err(CudaError::Driver {
            call,
            error: format!("cublasStatus_t {s}"),
        })
    }
}

impl CublasLt {
    /// Opens the first of `$PG_CUBLASLT` (a path), `libcublasLt.so.13` and `libcublasLt.so`
    /// that loads, and creates a handle.
    pub fn open() -> Result<CublasLt, CudaError> {
        let mut names: Vec<String> = std::env::var("PG_CUBLASLT").into_iter().collect();
        names.extend(["libcublasLt.so.13".into(), "libcublasLt.so".into()]);
        let mut why = Vec::new();
        for name in &names {
            // SAFETY: loading cuBLASLt runs its initialisers, which have no preconditions.
            match unsafe { libloading::Library::new(name) } {
                Ok(lib) => return CublasLt::with(lib, name.clone()),
                Err(e) => why.push(format!("{name}: {e}")),
            }
        }
        Err(CudaError::NoDriver(format!(
            "no cuBLASLt: {} (set PG_CUBLASLT to the library's path)",
            why.join("; ")
        )))
    }

    fn with(lib: libloading::Library, library: String) -> Result<CublasLt, CudaError> {
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol is cublasLt.h's function of that name, and the field's
                // type is its signature.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| CudaError::NoDriver(format!("{library} lacks {}: {e}", $name)))?
            };
        }
        let api = Api {
            create: sym!("cublasLtCreate"),
            destroy: sym!("cublasLtDestroy"),
            version: sym!("cublasLtGetVersion"),
            desc_create: sym!("cublasLtMatmulDescCreate"),
            desc_destroy: sym!("cublasLtMatmulDescDestroy"),
            desc_set: sym!("cublasLtMatmulDescSetAttribute"),
            layout_create: sym!("cublasLtMatrixLayoutCreate"),
            layout_destroy: sym!("cublasLtMatrixLayoutDestroy"),
            pref_create: sym!("cublasLtMatmulPreferenceCreate"),
            pref_destroy: sym!("cublasLtMatmulPreferenceDestroy"),
            pref_set: sym!("cublasLtMatmulPreferenceSetAttribute"),
            heuristic: sym!("cublasLtMatmulAlgoGetHeuristic"),
            matmul: sym!("cublasLtMatmul"),
        };
        let mut handle = std::ptr::null_mut();
        // SAFETY: plain calls into the library with valid out-pointers.
        let version = unsafe {
            status("cublasLtCreate", (api.create)(&mut handle))?;
            (api.version)()
        };
        Ok(CublasLt {
            api,
            handle,
            library,
            version,
            _lib: lib,
        })
    }

    /// A plan for `C = A·Bᵀ` with A `m × k`, B `n × k` and C `m × n`, all row-major, A and B
    /// of `precision`'s type and C bf16, f32 accumulation and scale, using at most
    /// `workspace_bytes` of the workspace.
    ///
    /// cuBLAS is column-major: row-major C (`m × n`) is column-major Cᵀ (`n × m`), and
    /// `Cᵀ = B·Aᵀ`, where row-major B is column-major Bᵀ (`k × n`, transposed back: op T) and
    /// row-major A is column-major Aᵀ (`k × m`, op N). This is cuBLAS's "TN" case, both
    /// operands contiguous along k, the layout its Hopper kernels are fastest in, and the only
    /// one its fp8 kernels take (A transposed, B not).
    pub fn plan(
        &self,
        m: u64,
        n: u64,
        k: u64,
        workspace_bytes: usize,
        precision: Precision,
    ) -> Result<Plan<'_>, CudaError> {
        self.plan_aligned(m, n, k, workspace_bytes, precision, None)
    }

    /// [`CublasLt::plan`] for operands at addresses aligned to `aligned` bytes only. The
    /// heuristic assumes 256-byte aligned A, B and C unless told (`CUBLASLT_MATMUL_PREF_MIN_
    /// ALIGNMENT_*_BYTES`, default 256) and may pick an algorithm that refuses a less aligned
    /// address at run time; a group's rows inside a shared buffer (the grouped mode) start
    /// wherever the groups before them end.
    pub fn plan_aligned(
        &self,
        m: u64,
        n: u64,
        k: u64,
        workspace_bytes: usize,
        precision: Precision,
        aligned: Option<Alignment>,
    ) -> Result<Plan<'_>, CudaError> {
        let api = &self.api;
        let mut plan = Plan {
            lt: self,
            desc: std::ptr::null_mut(),
            layouts: [std::ptr::null_mut(); 3],
            algo: [0; 8],
            workspace_needed: 0,
            waves: 0.0,
        };
        // SAFETY: descriptors are created into valid out-pointers and released by Plan's drop;
        // attribute values are i32 and usize, of the sizes passed.
        unsafe {
            status(
                "cublasLtMatmulDescCreate",
                (api.desc_create)(&mut plan.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
            )?;
            for (attr, op) in [
                (CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T),
                (CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N),
            ] {
                status(
                    "cublasLtMatmulDescSetAttribute",
                    (api.desc_set)(plan.desc, attr, &op as *const i32 as *const c_void, 4),
                )?;
            }
            let operands = match precision {
                Precision::Bf16 => CUDA_R_16BF,
                Precision::E4m3 {
                    scale_a,
                    scale_b,
                    fast_accum,
                } => {
                    // cuBLAS's A is our B and its B our A (above).
                    for (attr, ptr) in [
                        (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scale_b),
                        (CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, scale_a),
                    ] {
                        let p = ptr as *const c_void;
                        status(
                            "cublasLtMatmulDescSetAttribute",
                            (api.desc_set)(
                                plan.desc,
                                attr,
                                &p as *const *const c_void as *const c_void,
                                std::mem::size_of::<*const c_void>(),
                            ),
                        )?;
                    }
                    let fast = fast_accum as i8;
                    status(
                        "cublasLtMatmulDescSetAttribute",
                        (api.desc_set)(
                            plan.desc,
                            CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                            &fast as *const i8 as *const c_void,
                            1,
                        ),
                    )?;
                    CUDA_R_8F_E4M3
                }
            };
            // (type, rows, cols, leading dimension) as stored, column-major; C (and D) bf16.
            let shapes = [
                (operands, k, n, k as i64),
                (operands, k, m, k as i64),
                (CUDA_R_16BF, n, m, n as i64),
            ];
            for (layout, (ty, rows, cols, ld)) in plan.layouts.iter_mut().zip(shapes) {
                status(
                    "cublasLtMatrixLayoutCreate",
                    (api.layout_create)(layout, ty, rows, cols, ld),
                )?;
            }
            let mut pref = std::ptr::null_mut();
            status(
                "cublasLtMatmulPreferenceCreate",
                (api.pref_create)(&mut pref),
            )?;
            let ws = workspace_bytes as u64;
            let set = (api.pref_set)(
                pref,
                CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &ws as *const u64 as *const c_void,
                8,
            );
            let mut set_align = 0;
            if let Some(al) = aligned {
                // cuBLAS's A is our B and its B our A; D is C.
                for (attr, bytes) in [
                    (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, al.b),
                    (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, al.a),
                    (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, al.c),
                    (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, al.c),
                ] {
                    let s = (api.pref_set)(pref, attr, &bytes as *const u32 as *const c_void, 4);
                    if set_align == 0 {
                        set_align = s;
                    }
                }
            }
            let mut result: Heuristic = std::mem::zeroed();
            let mut found = 0;
            let [la, lb, lc] = plan.layouts;
            let heur = (api.heuristic)(
                self.handle,
                plan.desc,
                la,
                lb,
                lc,
                lc,
                pref,
                1,
                &mut result,
                &mut found,
            );
            (api.pref_destroy)(pref);
            status("cublasLtMatmulPreferenceSetAttribute", set)?;
            status(
                "cublasLtMatmulPreferenceSetAttribute (alignment)",
                set_align,
            )?;
            status("cublasLtMatmulAlgoGetHeuristic", heur)?;
            if found < 1 {
                return Err(CudaError::Args(format!(
                    "cuBLASLt has no algorithm for {m}x{n}x{k} {precision}"
                )));
            }
            plan.algo = result.algo;
            plan.workspace_needed = result.workspace;
            plan.waves = result.waves;
        }
        Ok(plan)
    }
}

impl Drop for CublasLt {
    fn drop(&mut self) {
        // SAFETY: destroying the handle `with` created.
        unsafe {
            (self.api.destroy)(self.handle);
        }
    }
}

/// The byte alignment of our A's, B's and C's addresses (powers of two up to 256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// A's address.
    pub a: u32,
    /// B's address.
    pub b: u32,
    /// C's address.
    pub c: u32,
}

impl Alignment {
    /// The alignment of the three addresses, each the largest power of two dividing it,
    /// capped at 256 (what cuBLASLt asks at most).
    pub fn of(a: u64, b: u64, c: u64) -> Alignment {
        let one = |x: u64| 1u32 << x.trailing_zeros().min(8);
        Alignment {
            a: one(a),
            b: one(b),
            c: one(c),
        }
    }
}

/// One problem's descriptors and the algorithm cuBLASLt's heuristic chose first (as
/// `torch.matmul` takes it).
pub struct Plan<'a> {
    lt: &'a CublasLt,
    desc: Desc,
    layouts: [Desc; 3],
    algo: [u64; 8],
    /// Workspace bytes the algorithm uses.
    pub workspace_needed: usize,
    /// Waves of the chosen algorithm's grid over the device, as the heuristic reports them.
    pub waves: f32,
}

impl Plan<'_> {
    /// Enqueues `C = A·Bᵀ` on `stream` (device addresses; `workspace` holds at least
    /// [`Plan::workspace_needed`] bytes).
    pub fn run(
        &self,
        a: u64,
        b: u64,
        c: u64,
        workspace: u64,
        workspace_bytes: usize,
        stream: &Stream,
    ) -> Result<(), CudaError> {
        let (alpha, beta) = (1.0f32, 0.0f32);
        let [la, lb, lc] = self.layouts;
        // SAFETY: the descriptors are alive, the addresses are device buffers of the plan's
        // shapes, alpha/beta are f32 as the scale type says, the algorithm came from the
        // heuristic for these descriptors.
        let s = unsafe {
            (self.lt.api.matmul)(
                self.lt.handle,
                self.desc,
                &alpha as *const f32 as *const c_void,
                // cuBLAS's A is our B and its B our A (`plan`'s comment).
                b as *const c_void,
                la,
                a as *const c_void,
                lb,
                &beta as *const f32 as *const c_void,
                c as *const c_void,
                lc,
                c as *mut c_void,
                lc,
                self.algo.as_ptr() as *const c_void,
                workspace as *mut c_void,
                workspace_bytes,
                // A driver stream is a runtime stream (the two APIs share the handle).
                stream.0 as *mut c_void,
            )
        };
        status("cublasLtMatmul", s)
    }
}

impl Drop for Plan<'_> {
    fn drop(&mut self) {
        // SAFETY: destroying descriptors `plan` created (null ones were never made).
        unsafe {
            for &l in &self.layouts {
                if !l.is_null() {
                    (self.lt.api.layout_destroy)(l);
                }
            }
            if !self.desc.is_null() {
                (self.lt.api.desc_destroy)(self.desc);
            }
        }
    }
}
