//! cuBLAS (not Lt), opened at run time, for its grouped GEMM `cublasGemmGroupedBatchedEx`
//! (cuBLAS 12.5 and later): the one-call reference of the grouped mode, beside a loop of
//! cuBLASLt matmuls (`cublaslt.rs`, why the library is opened by hand).
//!
//! The prototype (cuBLAS documentation, 2.8.15): every array but the three pointer arrays is
//! host memory with one entry per group (`transa_array`, `m_array`, ..., `alpha_array`,
//! `group_size`); `Aarray`, `Barray` and `Carray` are **device** arrays of device pointers,
//! one per problem (`Σ group_size`). bf16 A, B and C with `CUBLAS_COMPUTE_32F` and f32 alpha
//! and beta is one of its documented type combinations. Here every problem is a group of its
//! own (the groups' M differ), `group_size` all 1.

use crate::cublaslt::{Status, status};
use crate::gpu::{DeviceBuffer, Stream};
use phasegate_runtime::cuda::CudaError;
use std::ffi::c_void;

type Handle = *mut c_void;

const CUBLAS_COMPUTE_32F: i32 = 68;
const CUDA_R_16BF: i32 = 14;
const CUBLAS_OP_N: i32 = 0;
const CUBLAS_OP_T: i32 = 1;

/// `cublasGemmGroupedBatchedEx`'s signature.
type GroupedFn = unsafe extern "C" fn(
    Handle,
    *const i32,
    *const i32,
    *const i32,
    *const i32,
    *const i32,
    *const c_void,
    *const *const c_void,
    i32,
    *const i32,
    *const *const c_void,
    i32,
    *const i32,
    *const c_void,
    *const *mut c_void,
    i32,
    *const i32,
    i32,
    *const i32,
    i32,
) -> Status;

/// An open cuBLAS with a handle bound to one stream, and its grouped GEMM.
pub struct Cublas {
    handle: Handle,
    destroy: unsafe extern "C" fn(Handle) -> Status,
    grouped: GroupedFn,
    /// The file opened.
    pub library: String,
    /// `cublasGetVersion`, e.g. 130100 for 13.1.0.
    pub version: i32,
    _lib: libloading::Library,
}

impl Cublas {
    /// Opens the first of `$PG_CUBLAS`, the `libcublas` beside `$PG_CUBLASLT` (the library
    /// `cublaslt.rs` opened: the same toolkit), `libcublas.so.13` and `libcublas.so` that loads,
    /// makes a handle and binds it to `stream`. An error says why the grouped reference is not
    /// there (no library, or one older than 12.5 without the entry point).
    pub fn open(stream: &Stream) -> Result<Cublas, CudaError> {
        let mut names: Vec<String> = std::env::var("PG_CUBLAS").into_iter().collect();
        if let Ok(lt) = std::env::var("PG_CUBLASLT")
            && let Some(beside) = lt
                .rfind("libcublasLt")
                .map(|i| format!("{}libcublas{}", &lt[..i], &lt[i + "libcublasLt".len()..]))
        {
            names.push(beside);
        }
        names.extend(["libcublas.so.13".into(), "libcublas.so".into()]);
        let mut why = Vec::new();
        for name in &names {
            // SAFETY: loading cuBLAS runs its initialisers, which have no preconditions.
            match unsafe { libloading::Library::new(name) } {
                Ok(lib) => return Cublas::with(lib, name.clone(), stream),
                Err(e) => why.push(format!("{name}: {e}")),
            }
        }
        Err(CudaError::NoDriver(format!(
            "no cuBLAS: {} (set PG_CUBLAS to libcublas.so.13's path)",
            why.join("; ")
        )))
    }

    fn with(
        lib: libloading::Library,
        library: String,
        stream: &Stream,
    ) -> Result<Cublas, CudaError> {
        macro_rules! sym {
            ($name:literal, $why:literal) => {
                // SAFETY: the symbol is cublas_api.h's function of that name, and the binding's
                // type is its signature.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| {
                    CudaError::NoDriver(format!("{library} lacks {}{}: {e}", $name, $why))
                })?
            };
        }
        let create: unsafe extern "C" fn(*mut Handle) -> Status = sym!("cublasCreate_v2", "");
        let destroy: unsafe extern "C" fn(Handle) -> Status = sym!("cublasDestroy_v2", "");
        let set_stream: unsafe extern "C" fn(Handle, *mut c_void) -> Status =
            sym!("cublasSetStream_v2", "");
        let get_version: unsafe extern "C" fn(Handle, *mut i32) -> Status =
            sym!("cublasGetVersion_v2", "");
        let grouped: GroupedFn = sym!(
            "cublasGemmGroupedBatchedEx",
            " (cuBLAS 12.5 or later has it)"
        );
        let mut handle = std::ptr::null_mut();
        // SAFETY: plain calls with valid out-pointers; the stream is alive (a driver stream is
        // a runtime stream). The handle is destroyed by `blas`'s drop if a later call fails.
        unsafe {
            status("cublasCreate", create(&mut handle))?;
            let mut blas = Cublas {
                handle,
                destroy,
                grouped,
                library,
                version: 0,
                _lib: lib,
            };
            status("cublasGetVersion", get_version(handle, &mut blas.version))?;
            status(
                "cublasSetStream",
                set_stream(handle, stream.0 as *mut c_void),
            )?;
            Ok(blas)
        }
    }

    /// A grouped GEMM over `problems`, each `C = A·Bᵀ` with A `m × k`, B `n × k` and C `m × n`
    /// row-major bf16 at the device addresses given (problems with m = 0 should be left out by
    /// the caller), f32 accumulation. As `CublasLt::plan`, row-major C is column-major Cᵀ =
    /// B·Aᵀ: cuBLAS's A is our B (op T, lda k), its B our A (op N, ldb k), ldc n.
    pub fn grouped_bf16(&self, problems: &[RowMajor]) -> Result<GroupedGemm<'_>, CudaError> {
        let count = problems.len();
        let int = |v: usize| {
            i32::try_from(v).map_err(|_| CudaError::Args(format!("{v} does not fit cuBLAS's int")))
        };
        let mut g = GroupedGemm {
            blas: self,
            transa: vec![CUBLAS_OP_T; count],
            transb: vec![CUBLAS_OP_N; count],
            m: Vec::new(),
            n: Vec::new(),
            k: Vec::new(),
            lda: Vec::new(),
            ldb: Vec::new(),
            ldc: Vec::new(),
            size: vec![1; count],
            alpha: vec![1.0; count],
            beta: vec![0.0; count],
            a_array: DeviceBuffer::upload(&problems.iter().map(|p| p.b).collect::<Vec<u64>>())?,
            b_array: DeviceBuffer::upload(&problems.iter().map(|p| p.a).collect::<Vec<u64>>())?,
        };
        for p in problems {
            g.m.push(int(p.n)?);
            g.n.push(int(p.m)?);
            g.k.push(int(p.k)?);
            g.lda.push(int(p.k)?);
            g.ldb.push(int(p.k)?);
            g.ldc.push(int(p.n)?);
        }
        Ok(g)
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: destroying the handle `with` created.
        unsafe {
            (self.destroy)(self.handle);
        }
    }
}

/// One product `C = A·Bᵀ` of a grouped GEMM, row-major: A `m × k` at `a`, B `n × k` at `b`.
#[derive(Clone, Copy, Debug)]
pub struct RowMajor {
    /// A's device address.
    pub a: u64,
    /// B's device address.
    pub b: u64,
    /// Rows of A and C.
    pub m: usize,
    /// Rows of B, columns of C.
    pub n: usize,
    /// The reduction.
    pub k: usize,
}

/// `cublasGemmGroupedBatchedEx`'s arguments but C's pointers: host arrays per group, and A's
/// and B's device pointer arrays (uploaded once, so a timed call enqueues no copy).
pub struct GroupedGemm<'a> {
    blas: &'a Cublas,
    transa: Vec<i32>,
    transb: Vec<i32>,
    m: Vec<i32>,
    n: Vec<i32>,
    k: Vec<i32>,
    lda: Vec<i32>,
    ldb: Vec<i32>,
    ldc: Vec<i32>,
    size: Vec<i32>,
    alpha: Vec<f32>,
    beta: Vec<f32>,
    a_array: DeviceBuffer,
    b_array: DeviceBuffer,
}

impl GroupedGemm<'_> {
    /// Enqueues the grouped GEMM on the handle's stream, writing each problem's C at the
    /// address in `c_array` (a device array of device pointers, one per problem, in order).
    pub fn run(&self, c_array: &DeviceBuffer) -> Result<(), CudaError> {
        let count = self.m.len();
        if c_array.bytes != 8 * count {
            return Err(CudaError::Args(format!(
                "grouped GEMM: {} bytes of C pointers for {count} problems",
                c_array.bytes
            )));
        }
        // SAFETY: every host array holds `count` entries of the documented type (the group
        // count is `count`, each group one problem); the pointer arrays are device arrays of
        // `count` device addresses of buffers of the problems' shapes.
        let s = unsafe {
            (self.blas.grouped)(
                self.blas.handle,
                self.transa.as_ptr(),
                self.transb.as_ptr(),
                self.m.as_ptr(),
                self.n.as_ptr(),
                self.k.as_ptr(),
                self.alpha.as_ptr() as *const c_void,
                self.a_array.ptr as *const *const c_void,
                CUDA_R_16BF,
                self.lda.as_ptr(),
                self.b_array.ptr as *const *const c_void,
                CUDA_R_16BF,
                self.ldb.as_ptr(),
                self.beta.as_ptr() as *const c_void,
                c_array.ptr as *const *mut c_void,
                CUDA_R_16BF,
                self.ldc.as_ptr(),
                count as i32,
                self.size.as_ptr(),
                CUBLAS_COMPUTE_32F,
            )
        };
        status("cublasGemmGroupedBatchedEx", s)
    }
}
