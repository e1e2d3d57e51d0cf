//! `phasegate.Struct`: a by-value struct parameter (a C++ struct nvcc passes as
//! `.param .b8 name[N]`, such as CUTLASS's `Params`) given as bytes, with the buffers it
//! addresses and where it holds their addresses. The simulator writes its own buffers'
//! addresses there ([`phasegate_runtime::sim::StructArg`]); `simulate` returns the buffers'
//! final contents as a dict.

use crate::{OutSpec, array_bytes};
use phasegate_runtime::sim::{RelocTarget, StructArg};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString, PyTuple};

/// A by-value struct argument: ``Struct(data, buffers={name: array}, ptr={offset: target},
/// tmap={offset: target})`` or ``Struct.load(path)`` (a ``phasegate sim --arg struct:``
/// description). A target is a buffer's name, an int (the index of a buffer argument of the
/// same launch), or ``(target, byte_offset)``.
#[pyclass(module = "phasegate", name = "Struct", frozen)]
pub struct PyStruct {
    pub(crate) arg: StructArg,
    /// How each buffer comes back: the dtype and shape it was given with (`None`: bytes).
    pub(crate) specs: Vec<Option<OutSpec>>,
}

fn target(s: &StructArg, what: &str, obj: &Bound<'_, PyAny>) -> PyResult<(RelocTarget, u64)> {
    if let Ok(t) = obj.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(PyValueError::new_err(format!(
                "{what}: a (target, byte offset) pair has 2 items, not {}",
                t.len()
            )));
        }
        let (inner, _) = target(s, what, &t.get_item(0)?)?;
        let add: u64 = t.get_item(1)?.extract().map_err(|_| {
            PyValueError::new_err(format!("{what}: the byte offset is not a non-negative int"))
        })?;
        return Ok((inner, add));
    }
    if let Ok(name) = obj.cast::<PyString>() {
        let name: String = name.extract()?;
        let k = s
            .buffers
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = s.buffers.iter().map(|b| b.name.as_str()).collect();
                PyValueError::new_err(format!(
                    "{what}: no buffer named `{name}` (the struct's buffers: {})",
                    names.join(", ")
                ))
            })?;
        return Ok((RelocTarget::Own(k), 0));
    }
    if obj.cast::<PyInt>().is_ok() {
        let i: usize = obj.extract().map_err(|_| {
            PyValueError::new_err(format!("{what}: an argument index is non-negative"))
        })?;
        return Ok((RelocTarget::Arg(i), 0));
    }
    Err(PyTypeError::new_err(format!(
        "{what}: a target is a buffer name, an argument index or (target, byte offset), not {}",
        obj.get_type().name()?
    )))
}

fn relocations(
    s: &StructArg,
    kind: &str,
    table: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(usize, RelocTarget, u64)>> {
    let mut out = Vec::new();
    for (offset, t) in table.iter().flat_map(|d| d.iter()) {
        let offset: usize = offset
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{kind}: offsets are non-negative ints")))?;
        let (t, add) = target(s, &format!("{kind}[{offset:#x}]"), &t)?;
        out.push((offset, t, add));
    }
    Ok(out)
}

#[pymethods]
impl PyStruct {
    #[new]
    #[pyo3(signature = (data, buffers = None, ptr = None, tmap = None))]
    fn new(
        py: Python<'_>,
        data: Vec<u8>,
        buffers: Option<&Bound<'_, PyDict>>,
        ptr: Option<&Bound<'_, PyDict>>,
        tmap: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<PyStruct> {
        let numpy = py.import("numpy")?;
        let mut s = StructArg::new(data);
        let mut specs = Vec::new();
        for (name, array) in buffers.iter().flat_map(|d| d.iter()) {
            let name: String = name
                .extract()
                .map_err(|_| PyTypeError::new_err("buffers: names are strings"))?;
            if s.buffers.iter().any(|b| b.name == name) {
                return Err(PyValueError::new_err(format!("buffers: `{name}` twice")));
            }
            let (bytes, spec) = array_bytes(&numpy, &format!("buffers[{name:?}]"), &array)?;
            s.buffer(&name, bytes);
            specs.push(Some(spec));
        }
        for (offset, t, add) in relocations(&s, "ptr", ptr)? {
            s.pointer(offset, t, add);
        }
        for (offset, t, add) in relocations(&s, "tmap", tmap)? {
            s.tensor_map(offset, t, add);
        }
        Ok(PyStruct { arg: s, specs })
    }

    /// Reads a ``phasegate sim --arg struct:FILE`` description (``bytes``, ``buffer``,
    /// ``ptr`` and ``tmap`` lines; paths relative to its folder). Its buffers come back as
    /// ``uint8`` arrays.
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<PyStruct> {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| PyValueError::new_err(format!("{}: cannot read: {e}", path.display())))?;
        let dir = path.parent().unwrap_or(std::path::Path::new(""));
        let arg = StructArg::parse(&text, dir)
            .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
        let specs = arg.buffers.iter().map(|_| None).collect();
        Ok(PyStruct { arg, specs })
    }

    /// The struct's size in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.arg.bytes.len()
    }

    /// The names of its buffers, in order.
    #[getter]
    fn buffer_names(&self) -> Vec<String> {
        self.arg.buffers.iter().map(|b| b.name.clone()).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Struct({} bytes, buffers={:?}, {} relocations)",
            self.arg.bytes.len(),
            self.buffer_names(),
            self.arg.relocs.len()
        )
    }
}
