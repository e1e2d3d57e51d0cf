//! The device side of the benchmark through the CUDA driver (cudarc's bindings, loaded at run
//! time): buffers, a PTX module launched with a cluster and raw parameters, event timing, and
//! tensor maps encoded by the driver.
//!
//! `phasegate_runtime::cuda::Gpu` makes the context and `cuda::encode_tensor_map` the tensor
//! maps; the rest is here because the runtime's launch path copies buffers in and out around
//! every launch, where a benchmark keeps them on the device and times many launches.

use cudarc::driver::sys;
use phasegate_runtime::cuda::CudaError;
use std::ffi::{CString, c_void};

pub use phasegate_runtime::cuda::check;
use phasegate_runtime::cuda::{cluster_attribute, launch_config};

/// A device allocation, freed when dropped.
pub struct DeviceBuffer {
    /// The device address.
    pub ptr: sys::CUdeviceptr,
    /// Its size in bytes.
    pub bytes: usize,
}

impl DeviceBuffer {
    /// `bytes` bytes of device memory (contents undefined).
    pub fn new(bytes: usize) -> Result<DeviceBuffer, CudaError> {
        let mut ptr = 0;
        // SAFETY: an allocation into a valid out-pointer.
        unsafe { check("cuMemAlloc", sys::cuMemAlloc_v2(&mut ptr, bytes.max(1)))? };
        Ok(DeviceBuffer { ptr, bytes })
    }

    /// A device copy of `data` (plain values: bf16 or e4m3 bits, f32 scales).
    pub fn upload<T: Copy>(data: &[T]) -> Result<DeviceBuffer, CudaError> {
        let buffer = DeviceBuffer::new(std::mem::size_of_val(data))?;
        // SAFETY: the allocation holds exactly `data`'s bytes.
        unsafe {
            check(
                "cuMemcpyHtoD",
                sys::cuMemcpyHtoD_v2(buffer.ptr, data.as_ptr() as *const c_void, buffer.bytes),
            )?
        };
        Ok(buffer)
    }

    /// Every 16-bit word set to `value` (ordered on the default stream, finished on return).
    pub fn fill_u16(&self, value: u16) -> Result<(), CudaError> {
        // SAFETY: `bytes / 2` 16-bit words lie inside the allocation.
        unsafe {
            check(
                "cuMemsetD16",
                sys::cuMemsetD16_v2(self.ptr, value, self.bytes / 2),
            )?;
            check("cuCtxSynchronize", sys::cuCtxSynchronize())
        }
    }

    /// The buffer's contents as 16-bit words.
    pub fn download_u16(&self) -> Result<Vec<u16>, CudaError> {
        let mut out = vec![0u16; self.bytes / 2];
        // SAFETY: `out` holds `bytes / 2` words; the device buffer at least as many bytes.
        unsafe {
            check("cuCtxSynchronize", sys::cuCtxSynchronize())?;
            check(
                "cuMemcpyDtoH",
                sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, self.ptr, out.len() * 2),
            )?
        };
        Ok(out)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: freeing the allocation this value made.
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// `CUtensorMap`'s size and alignment, for a kernel parameter passed by value.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub struct TensorMapBytes(pub [u8; 128]);

/// A PTX module's entry, compiled by the driver's JIT; the module is unloaded when dropped.
pub struct Kernel {
    module: sys::CUmodule,
    function: sys::CUfunction,
    /// The JIT's information log (`ptxas info` lines: registers, shared memory, spills).
    pub jit_log: String,
}

impl Kernel {
    /// Compiles `ptx` and looks up `entry`; a rejection carries the JIT's error log.
    pub fn load(ptx: &str, entry: &str) -> Result<Kernel, CudaError> {
        let text =
            CString::new(ptx).map_err(|_| CudaError::Jit("the PTX contains a NUL byte".into()))?;
        let name = CString::new(entry)
            .map_err(|_| CudaError::Args("entry name with a NUL byte".into()))?;
        let mut error_log = vec![0u8; 64 * 1024];
        let mut info_log = vec![0u8; 64 * 1024];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_LOG_VERBOSE,
        ];
        let mut values = [
            error_log.as_mut_ptr() as *mut c_void,
            error_log.len() as *mut c_void,
            info_log.as_mut_ptr() as *mut c_void,
            info_log.len() as *mut c_void,
            // The option's value is the integer itself, passed in the pointer.
            std::ptr::without_provenance_mut::<c_void>(1),
        ];
        let mut module = std::ptr::null_mut();
        // SAFETY: each option value is what its option says (buffers, their sizes, a flag).
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut module,
                text.as_ptr() as *const c_void,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        let text_of = |log: &[u8]| {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            String::from_utf8_lossy(&log[..end]).into_owned()
        };
        if r != sys::CUresult::CUDA_SUCCESS {
            let message = text_of(&error_log);
            return match check("cuModuleLoadDataEx", r) {
                Err(e) if message.is_empty() => Err(e),
                _ => Err(CudaError::Jit(message)),
            };
        }
        let mut function = std::ptr::null_mut();
        // SAFETY: the module is loaded; the name is NUL-terminated.
        let found = unsafe { sys::cuModuleGetFunction(&mut function, module, name.as_ptr()) };
        let kernel = Kernel {
            module,
            function,
            jit_log: text_of(&info_log),
        };
        check("cuModuleGetFunction", found)?;
        Ok(kernel)
    }

    /// A `CUfunction_attribute` of the compiled entry (registers, local bytes, ...).
    pub fn attribute(&self, attr: sys::CUfunction_attribute) -> Result<i32, CudaError> {
        let mut v = 0;
        // SAFETY: the function is valid while the module is loaded.
        unsafe {
            check(
                "cuFuncGetAttribute",
                sys::cuFuncGetAttribute(&mut v, attr, self.function),
            )?
        };
        Ok(v)
    }

    /// Allows `bytes` of dynamic shared memory per block (needed past 48 KiB).
    pub fn set_dynamic_shared(&self, bytes: u32) -> Result<(), CudaError> {
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: a plain attribute on a valid function.
        unsafe {
            check(
                "cuFuncSetAttribute",
                sys::cuFuncSetAttribute(self.function, attr, bytes as i32),
            )
        }
    }

    /// How many clusters of shape `cluster` can be resident at once with `geometry`'s block and
    /// shared memory, the grid of a persistent kernel (`cuOccupancyMaxActiveClusters`). The
    /// shape goes to the driver as a launch attribute only where `geometry` has one; otherwise
    /// it is the kernel's `.reqnctapercluster` (or 1, 1, 1) and only sizes the query's grid.
    pub fn max_active_clusters(
        &self,
        geometry: &Geometry,
        cluster: (u32, u32, u32),
    ) -> Result<u32, CudaError> {
        let mut count = 0;
        // SAFETY: the config and its attribute are plain values alive across the call.
        unsafe {
            let mut attrs = [cluster_attribute(cluster)];
            // Without a launch shape the attribute is not passed: the kernel's own applies.
            let given = geometry.cluster.is_some() as usize;
            let config = launch_config(
                cluster,
                geometry.block,
                geometry.dynamic_shared,
                std::ptr::null_mut(),
                &mut attrs[..given],
            );
            check(
                "cuOccupancyMaxActiveClusters",
                sys::cuOccupancyMaxActiveClusters(&mut count, self.function, &config),
            )?;
        }
        Ok(count as u32)
    }

    /// Enqueues one launch on `stream`; `params` points at each parameter's bytes, in order.
    pub fn launch(
        &self,
        geometry: &Geometry,
        params: &mut [*mut c_void],
        stream: sys::CUstream,
    ) -> Result<(), CudaError> {
        // SAFETY: the config and attributes are plain values alive across the call; `params`
        // point at live parameter bytes of the sizes the entry declares (the caller's layout).
        unsafe {
            let mut attrs: Vec<sys::CUlaunchAttribute> = geometry
                .cluster
                .map(cluster_attribute)
                .into_iter()
                .collect();
            let config = launch_config(
                geometry.grid,
                geometry.block,
                geometry.dynamic_shared,
                stream,
                &mut attrs,
            );
            check(
                "cuLaunchKernelEx",
                sys::cuLaunchKernelEx(
                    &config,
                    self.function,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                ),
            )
        }
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: unloading the module this value loaded.
        unsafe {
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}

/// Where and how wide a launch is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Blocks per grid dimension.
    pub grid: (u32, u32, u32),
    /// Threads per block dimension.
    pub block: (u32, u32, u32),
    /// Cluster dimensions given at launch (`None`: none, or the PTX's `.reqnctapercluster`).
    pub cluster: Option<(u32, u32, u32)>,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared: u32,
}

/// The device's multiprocessor count.
pub fn multiprocessors() -> Result<u32, CudaError> {
    let mut device = 0;
    let mut count = 0;
    // SAFETY: plain queries of the current context's device.
    unsafe {
        check("cuCtxGetDevice", sys::cuCtxGetDevice(&mut device))?;
        check(
            "cuDeviceGetAttribute",
            sys::cuDeviceGetAttribute(
                &mut count,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                device,
            ),
        )?;
    }
    Ok(count as u32)
}

/// The device's name.
pub fn device_name() -> Result<String, CudaError> {
    let mut device = 0;
    let mut name = [0 as std::ffi::c_char; 256];
    // SAFETY: the name buffer holds 256 bytes, as passed.
    unsafe {
        check("cuCtxGetDevice", sys::cuCtxGetDevice(&mut device))?;
        check(
            "cuDeviceGetName",
            sys::cuDeviceGetName(name.as_mut_ptr(), 256, device),
        )?;
        Ok(std::ffi::CStr::from_ptr(name.as_ptr())
            .to_string_lossy()
            .into_owned())
    }
}

/// A stream of its own, destroyed when dropped.
pub struct Stream(pub sys::CUstream);

impl Stream {
    /// A new non-blocking stream.
    pub fn new() -> Result<Stream, CudaError> {
        let mut s = std::ptr::null_mut();
        // SAFETY: creating a stream into a valid out-pointer.
        unsafe {
            check(
                "cuStreamCreate",
                sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32),
            )?
        };
        Ok(Stream(s))
    }

    /// Waits for everything enqueued on the stream.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        // SAFETY: the stream is alive.
        unsafe { check("cuStreamSynchronize", sys::cuStreamSynchronize(self.0)) }
    }

    /// Waits for the stream, giving up after `timeout` (a deadlocked kernel): the context is
    /// unusable after a timeout, so the caller should end the process.
    pub fn wait(&self, timeout: std::time::Duration) -> Result<(), CudaError> {
        let start = std::time::Instant::now();
        loop {
            // SAFETY: querying a live stream.
            let r = unsafe { sys::cuStreamQuery(self.0) };
            if r != sys::CUresult::CUDA_ERROR_NOT_READY {
                return check("kernel execution", r);
            }
            if start.elapsed() > timeout {
                return Err(CudaError::Timeout(timeout));
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
    }

    /// Times `reps` calls `work(0)`, `work(1)`, ... (each enqueuing one operation on this
    /// stream) with a pair of events around each; all are enqueued back to back, so the device
    /// never waits for the host between them. Milliseconds per call, in call order.
    pub fn time_each(
        &self,
        reps: usize,
        mut work: impl FnMut(usize) -> Result<(), CudaError>,
    ) -> Result<Vec<f64>, CudaError> {
        let mut events = Vec::with_capacity(2 * reps);
        let result = (|| {
            for _ in 0..2 * reps {
                let mut e = std::ptr::null_mut();
                // SAFETY: creating an event into a valid out-pointer.
                unsafe { check("cuEventCreate", sys::cuEventCreate(&mut e, 0))? };
                events.push(e);
            }
            for r in 0..reps {
                // SAFETY: the events and the stream are alive.
                unsafe { check("cuEventRecord", sys::cuEventRecord(events[2 * r], self.0))? };
                work(r)?;
                // SAFETY: as above.
                unsafe {
                    check(
                        "cuEventRecord",
                        sys::cuEventRecord(events[2 * r + 1], self.0),
                    )?
                };
            }
            self.synchronize()?;
            let mut ms = Vec::with_capacity(reps);
            for r in 0..reps {
                let mut t = 0f32;
                // SAFETY: both events were recorded and have completed.
                unsafe {
                    check(
                        "cuEventElapsedTime",
                        sys::cuEventElapsedTime_v2(&mut t, events[2 * r], events[2 * r + 1]),
                    )?
                };
                ms.push(t as f64);
            }
            Ok(ms)
        })();
        for e in events {
            // SAFETY: destroying events created above.
            unsafe {
                let _ = sys::cuEventDestroy_v2(e);
            }
        }
        result
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: destroying the stream this value created.
        unsafe {
            let _ = sys::cuStreamDestroy_v2(self.0);
        }
    }
}
