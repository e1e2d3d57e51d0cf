//! Launching a kernel on a real GPU (feature `cuda`), through the CUDA driver API that `cudarc`
//! loads at run time, so that the workspace builds and tests on machines without CUDA.
//!
//! The launch takes the same [`Launch`] and arguments as the simulator, so one kernel is run
//! both ways with one call shape. Device errors are values ([`CudaError`]), never panics; a
//! machine without a driver gives [`CudaError::NoDriver`].

mod tensor_map;
pub use tensor_map::encode as encode_tensor_map;

use crate::kernel::{KernelSpec, ParamType};
use cudarc::driver::sys;
use phasegate_sim::{ArgValue, KernelArgs, Launch, TensorSource};
use std::ffi::{CString, c_void};
use std::time::{Duration, Instant};

/// What went wrong on the device side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaError {
    /// No CUDA driver library, or no device.
    NoDriver(String),
    /// A driver call failed.
    Driver {
        /// The driver function, e.g. `cuLaunchKernelEx`.
        call: &'static str,
        /// The driver's name for the error (`cuGetErrorName`), e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        error: String,
    },
    /// The driver's JIT compiler rejected the PTX; its log.
    Jit(String),
    /// The kernel did not finish in time (a deadlock, most likely); the context is unusable
    /// afterwards, so the process should end.
    Timeout(Duration),
    /// The arguments do not fit the kernel's parameters.
    Args(String),
    /// The launch's block does not fit the kernel's `.reqntid` or `.maxntid`; checked before
    /// the launch, where the driver would only say `CUDA_ERROR_INVALID_VALUE`.
    Shape(String),
}

impl std::fmt::Display for CudaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CudaError::NoDriver(why) => write!(f, "no CUDA device: {why}"),
            CudaError::Driver { call, error } => write!(f, "{call} failed: {error}"),
            CudaError::Jit(log) => write!(f, "the driver rejected the PTX:\n{log}"),
            CudaError::Timeout(d) => write!(
                f,
                "the kernel was still running after {:.1} s (deadlock?)",
                d.as_secs_f64()
            ),
            CudaError::Args(why) => write!(f, "arguments: {why}"),
            CudaError::Shape(why) => write!(f, "launch shape: {why}"),
        }
    }
}

impl std::error::Error for CudaError {}

/// The launch attribute that gives a launch its cluster shape
/// (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`), for a kernel without `.reqnctapercluster`.
pub fn cluster_attribute((x, y, z): (u32, u32, u32)) -> sys::CUlaunchAttribute {
    // SAFETY: the attribute is plain data; all-zero is a valid value of its union.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = x;
    attr.value.clusterDim.y = y;
    attr.value.clusterDim.z = z;
    attr
}

/// The configuration of one `cuLaunchKernelEx` (or occupancy query): grid and block shapes,
/// dynamic shared bytes, stream, and `attrs`, which must outlive every use of the result.
pub fn launch_config(
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_bytes: u32,
    stream: sys::CUstream,
    attrs: &mut [sys::CUlaunchAttribute],
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: grid.2,
        blockDimX: block.0,
        blockDimY: block.1,
        blockDimZ: block.2,
        sharedMemBytes: shared_bytes,
        hStream: stream,
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    }
}

/// `Ok` for `CUDA_SUCCESS`, else [`CudaError::Driver`] with the call and the driver's name for
/// the error (for tools that make driver calls of their own, such as the GEMM benchmark).
pub fn check(call: &'static str, result: sys::CUresult) -> Result<(), CudaError> {
    if result == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut name: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static string or leaves it null.
    let error = unsafe {
        if sys::cuGetErrorName(result, &mut name) == sys::CUresult::CUDA_SUCCESS && !name.is_null()
        {
            std::ffi::CStr::from_ptr(name)
                .to_string_lossy()
                .into_owned()
        } else {
            format!("{result:?}")
        }
    };
    Err(CudaError::Driver { call, error })
}

/// A device and its primary context.
pub struct Gpu {
    context: sys::CUcontext,
}

impl Gpu {
    /// Device `ordinal`, or why there is none.
    pub fn new(ordinal: i32) -> Result<Gpu, CudaError> {
        // SAFETY: probing for the library does not call into it.
        if !unsafe { sys::is_culib_present() } {
            return Err(CudaError::NoDriver(
                "the CUDA driver library (libcuda) is not installed".into(),
            ));
        }
        // SAFETY: plain driver calls with valid out-pointers.
        unsafe {
            check("cuInit", sys::cuInit(0)).map_err(|e| CudaError::NoDriver(e.to_string()))?;
            let mut count = 0;
            check("cuDeviceGetCount", sys::cuDeviceGetCount(&mut count))?;
            if ordinal >= count {
                return Err(CudaError::NoDriver(format!(
                    "device {ordinal} asked for, {count} present"
                )));
            }
            let mut device = 0;
            check("cuDeviceGet", sys::cuDeviceGet(&mut device, ordinal))?;
            let mut context = std::ptr::null_mut();
            check(
                "cuDevicePrimaryCtxRetain",
                sys::cuDevicePrimaryCtxRetain(&mut context, device),
            )?;
            check("cuCtxSetCurrent", sys::cuCtxSetCurrent(context))?;
            Ok(Gpu { context })
        }
    }

    /// Runs `spec` with typed arguments, as [`crate::sim::simulate`] does: `&mut` slices
    /// receive the results.
    pub fn launch<A: KernelArgs>(
        &self,
        spec: &KernelSpec,
        launch: &Launch,
        args: A,
    ) -> Result<(), CudaError> {
        let mut values = args.values();
        self.launch_values(spec, launch, &mut values, Duration::from_secs(30))?;
        args.write_back(&values);
        Ok(())
    }

    /// Runs `spec` with argument values; buffers are copied to the device before and back
    /// after. A kernel still running after `timeout` gives [`CudaError::Timeout`].
    pub fn launch_values(
        &self,
        spec: &KernelSpec,
        launch: &Launch,
        args: &mut [ArgValue],
        timeout: Duration,
    ) -> Result<(), CudaError> {
        check_args(spec, args)?;
        spec.check_block(launch.block).map_err(CudaError::Shape)?;
        // SAFETY: the context was created by `new` and outlives this call.
        unsafe { check("cuCtxSetCurrent", sys::cuCtxSetCurrent(self.context))? };
        let module = Module::load(spec.ptx)?;
        let function = module.function(spec.entry)?;
        let mut buffers = DeviceBuffers::default();
        // Every global buffer first (argument buffers and the tensors of maps), so that a map
        // over another argument's buffer finds its device address.
        let mut device_of = vec![None; args.len()];
        for (i, arg) in args.iter().enumerate() {
            device_of[i] = match arg {
                ArgValue::Buffer(bytes) => Some(buffers.upload(i, bytes)?),
                ArgValue::TensorMap(t) => match &t.tensor {
                    TensorSource::Own(bytes) => Some(buffers.upload(i, bytes)?),
                    TensorSource::Arg(_) => None,
                },
                _ => None,
            };
        }
        let mut params: Vec<Vec<u8>> = Vec::with_capacity(args.len());
        for (i, arg) in args.iter().enumerate() {
            params.push(match arg {
                ArgValue::Buffer(_) => device_of[i].unwrap_or(0).to_le_bytes().to_vec(),
                ArgValue::U32(v) => v.to_le_bytes().to_vec(),
                ArgValue::I32(v) => v.to_le_bytes().to_vec(),
                ArgValue::U64(v) => v.to_le_bytes().to_vec(),
                ArgValue::I64(v) => v.to_le_bytes().to_vec(),
                ArgValue::F32(v) => v.to_le_bytes().to_vec(),
                ArgValue::F64(v) => v.to_le_bytes().to_vec(),
                ArgValue::Bool(v) => vec![*v as u8],
                ArgValue::Bytes(b) => b.clone(),
                ArgValue::TensorMap(t) => {
                    let what = format!("the tensor map of argument {i}");
                    let base = match t.tensor {
                        TensorSource::Own(_) => device_of[i],
                        TensorSource::Arg(j) => device_of.get(j).copied().flatten(),
                    }
                    .ok_or_else(|| {
                        CudaError::Args(format!("{what} is over an argument that is not a buffer"))
                    })?;
                    let mut map = t.map.clone();
                    map.address = base + t.offset;
                    let bytes = tensor_map::encode(&map, &what)?;
                    if t.in_global {
                        buffers.scratch(&bytes)?.to_le_bytes().to_vec()
                    } else {
                        bytes.to_vec()
                    }
                }
                ArgValue::Struct(_) => {
                    return Err(CudaError::Args(
                        "a struct argument: the GPU launch path takes the kernel language's slices and scalars; run PTX that takes a by-value struct in the simulator".into(),
                    ));
                }
            });
        }
        let mut pointers: Vec<*mut c_void> = params
            .iter_mut()
            .map(|p| p.as_mut_ptr() as *mut c_void)
            .collect();
        let shared = launch.dynamic_shared_bytes.max(spec.dynamic_shared_bytes);
        // SAFETY: `function` is valid while `module` lives; the attribute and the launch
        // config are plain values; `pointers` point at `params`, alive across the launch.
        unsafe {
            if shared > 48 * 1024 {
                let attr =
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
                check(
                    "cuFuncSetAttribute",
                    sys::cuFuncSetAttribute(function, attr, shared as i32),
                )?;
            }
            let mut attrs: Vec<sys::CUlaunchAttribute> = Vec::new();
            if let (Some(cluster), None) = (launch.cluster, spec.cluster_dims) {
                attrs.push(cluster_attribute(cluster));
            }
            let config = launch_config(
                launch.grid,
                launch.block,
                shared,
                std::ptr::null_mut(),
                &mut attrs,
            );
            check(
                "cuLaunchKernelEx",
                sys::cuLaunchKernelEx(
                    &config,
                    function,
                    pointers.as_mut_ptr(),
                    std::ptr::null_mut(),
                ),
            )?;
            wait(timeout)?;
        }
        buffers.download(args)
    }
}

/// Polls the default stream until the kernel finishes or `timeout` passes.
fn wait(timeout: Duration) -> Result<(), CudaError> {
    let start = Instant::now();
    loop {
        // SAFETY: querying the default stream of the current context.
        let r = unsafe { sys::cuStreamQuery(std::ptr::null_mut()) };
        if r != sys::CUresult::CUDA_ERROR_NOT_READY {
            return check("kernel execution", r);
        }
        if start.elapsed() > timeout {
            return Err(CudaError::Timeout(timeout));
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn check_args(spec: &KernelSpec, args: &[ArgValue]) -> Result<(), CudaError> {
    if spec.params.len() != args.len() {
        return Err(CudaError::Args(format!(
            "`{}` takes {} arguments, {} given",
            spec.entry,
            spec.params.len(),
            args.len()
        )));
    }
    for (p, a) in spec.params.iter().zip(args) {
        // The driver reads the parameter's size from the value: raw bytes must be that many.
        let fits = matches!((p.ty, a), (ParamType::Slice { .. }, ArgValue::Buffer(_)))
            || matches!((p.ty, a), (ParamType::MapSlots, ArgValue::Buffer(b)) if b.len() % 128 == 0)
            || matches!(p.ty, ParamType::Scalar(_))
                && !matches!(a, ArgValue::Buffer(_) | ArgValue::TensorMap(_))
                && !matches!(a, ArgValue::Bytes(b) if b.len() != p.ty.size() as usize);
        if let (ParamType::TensorMap(want), ArgValue::TensorMap(t)) = (p.ty, a) {
            want.check_arg(t).map_err(|e| {
                CudaError::Args(format!("tensor map for parameter `{}`: {e}", p.name))
            })?;
            continue;
        }
        if !fits {
            return Err(CudaError::Args(format!(
                "parameter `{}` is {:?}, the argument is not",
                p.name, p.ty
            )));
        }
    }
    Ok(())
}

/// A loaded module, unloaded when dropped.
struct Module(sys::CUmodule);

impl Module {
    fn load(ptx: &str) -> Result<Module, CudaError> {
        let text =
            CString::new(ptx).map_err(|_| CudaError::Jit("the PTX contains a NUL byte".into()))?;
        let mut log = vec![0u8; 16 * 1024];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
        let mut module = std::ptr::null_mut();
        // SAFETY: the option values are a buffer and its size, as the options say.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                text.as_ptr() as *const c_void,
                2,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if r != sys::CUresult::CUDA_SUCCESS {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let message = String::from_utf8_lossy(&log[..end]).into_owned();
            return match check("cuModuleLoadDataEx", r) {
                Err(e) if message.is_empty() => Err(e),
                _ => Err(CudaError::Jit(message)),
            };
        }
        Ok(Module(module))
    }

    fn function(&self, entry: &str) -> Result<sys::CUfunction, CudaError> {
        let name = CString::new(entry)
            .map_err(|_| CudaError::Args("entry name with a NUL byte".into()))?;
        let mut function = std::ptr::null_mut();
        // SAFETY: the module is loaded; the name is NUL-terminated.
        unsafe {
            check(
                "cuModuleGetFunction",
                sys::cuModuleGetFunction(&mut function, self.0, name.as_ptr()),
            )?
        };
        Ok(function)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: unloading a module this value loaded.
        unsafe {
            let _ = sys::cuModuleUnload(self.0);
        }
    }
}

/// The device copies of the buffer arguments, freed when dropped.
#[derive(Default)]
struct DeviceBuffers {
    /// Each allocation with the argument whose bytes it holds (`None`: scratch, not copied
    /// back).
    pointers: Vec<(Option<usize>, sys::CUdeviceptr)>,
}

impl DeviceBuffers {
    fn alloc(&mut self, arg: Option<usize>, bytes: &[u8]) -> Result<u64, CudaError> {
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: allocation, then a copy of `bytes.len()` bytes from a live host slice.
        unsafe {
            check(
                "cuMemAlloc",
                sys::cuMemAlloc_v2(&mut ptr, bytes.len().max(1)),
            )?;
            self.pointers.push((arg, ptr));
            check(
                "cuMemcpyHtoD",
                sys::cuMemcpyHtoD_v2(ptr, bytes.as_ptr() as *const c_void, bytes.len()),
            )?;
        }
        Ok(ptr)
    }

    /// The buffer of argument `arg` (a slice, or the tensor a map owns).
    fn upload(&mut self, arg: usize, bytes: &[u8]) -> Result<u64, CudaError> {
        self.alloc(Some(arg), bytes)
    }

    /// Device memory the launch needs but nobody reads back (a map passed by address).
    fn scratch(&mut self, bytes: &[u8]) -> Result<u64, CudaError> {
        self.alloc(None, bytes)
    }

    /// Copies every argument's buffer back into it: slices and the tensors maps own.
    fn download(&self, args: &mut [ArgValue]) -> Result<(), CudaError> {
        for &(arg, ptr) in &self.pointers {
            let Some(arg) = arg else { continue };
            let bytes = match args.get_mut(arg) {
                Some(ArgValue::Buffer(bytes)) => bytes,
                Some(ArgValue::TensorMap(t)) => match &mut t.tensor {
                    TensorSource::Own(bytes) => bytes,
                    TensorSource::Arg(_) => continue,
                },
                _ => continue,
            };
            // SAFETY: the device buffer holds `bytes.len()` bytes, uploaded from it.
            unsafe {
                check(
                    "cuMemcpyDtoH",
                    sys::cuMemcpyDtoH_v2(bytes.as_mut_ptr() as *mut c_void, ptr, bytes.len()),
                )?
            };
        }
        Ok(())
    }
}

impl Drop for DeviceBuffers {
    fn drop(&mut self) {
        for &(_, ptr) in &self.pointers {
            // SAFETY: freeing allocations this value made.
            unsafe {
                let _ = sys::cuMemFree_v2(ptr);
            }
        }
    }
}
