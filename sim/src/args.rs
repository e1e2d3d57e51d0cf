//! Kernel arguments: the values a launch passes, and typed conversions from Rust values.

use crate::struct_arg::StructArg;
use crate::tensormap::{TensorMap, TensorMapSpec, TensorSource};

/// One kernel argument. A [`ArgValue::Buffer`] becomes a global allocation whose address is
/// passed; the simulator copies its final contents back into the value.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// 4 bytes by value (a `.u32` or `.b32` parameter).
    U32(u32),
    /// 4 bytes by value (`.s32`).
    I32(i32),
    /// 8 bytes by value (`.u64`, `.b64`).
    U64(u64),
    /// 8 bytes by value (`.s64`).
    I64(i64),
    /// 4 bytes by value (`.f32`).
    F32(f32),
    /// 8 bytes by value (`.f64`).
    F64(f64),
    /// One byte by value, 0 or 1 (a `bool`, as nvcc passes it: `.u8`).
    Bool(bool),
    /// A global buffer, passed as a 64-bit pointer.
    Buffer(Vec<u8>),
    /// The raw bytes of a by-value parameter (a struct, `.b8 name[16]`).
    Bytes(Vec<u8>),
    /// A tensor map (`CUtensorMap`) over a buffer, encoded at the launch with the buffer's
    /// address: 128 bytes by value (`.param .align 64 .b8 map[128]`), or the address of a
    /// copy in global memory.
    TensorMap(Box<TensorMapArg>),
    /// A by-value struct given as bytes, with the buffers it addresses and where it holds
    /// their addresses (a CUTLASS 3.x `Params`): see [`StructArg`].
    Struct(Box<StructArg>),
}

/// A tensor-map argument: `map` (whose address the launch sets) over `tensor`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapArg {
    /// The map; the launch sets its global address to the tensor buffer's plus `offset`.
    pub map: TensorMap,
    /// The buffer the map's tensor lives in.
    pub tensor: TensorSource,
    /// Bytes into the tensor's buffer where the map's tensor starts.
    pub offset: u64,
    /// Pass the 64-bit address of a 128-byte copy of the map in global memory (as a kernel
    /// that takes `const CUtensorMap*` wants) instead of the 128 bytes by value.
    pub in_global: bool,
}

impl TensorMapArg {
    /// A map over buffer argument `buffer`, passed by value.
    pub fn over_arg(map: TensorMap, buffer: usize) -> TensorMapArg {
        TensorMapArg {
            map,
            tensor: TensorSource::Arg(buffer),
            offset: 0,
            in_global: false,
        }
    }
    /// A map over a buffer of its own holding `data`, passed by value.
    pub fn owning(map: TensorMap, data: Vec<u8>) -> TensorMapArg {
        TensorMapArg {
            map,
            tensor: TensorSource::Own(data),
            offset: 0,
            in_global: false,
        }
    }
    /// The argument a command-line spec describes (`TensorMap::parse_spec`).
    pub fn from_spec(spec: TensorMapSpec) -> TensorMapArg {
        TensorMapArg {
            map: spec.map,
            tensor: spec.tensor,
            offset: spec.offset,
            in_global: spec.in_global,
        }
    }
    /// The contents of an owned tensor (after a run: its final contents).
    pub fn data(&self) -> Option<&[u8]> {
        match &self.tensor {
            TensorSource::Own(d) => Some(d),
            TensorSource::Arg(_) => None,
        }
    }
}

/// Plain values that live in buffers: integers, floats and arrays of them.
pub trait Element: Copy {
    /// Bytes of one value in memory.
    const SIZE: usize;
    /// Writes the value's `SIZE` little-endian bytes into `out`.
    fn write_to(self, out: &mut [u8]);
    /// Reads a value from the first `SIZE` bytes of `bytes`, little-endian.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write_to(self, out: &mut [u8]) {
                out[..Self::SIZE].copy_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes[..Self::SIZE].try_into().expect("element bytes"))
            }
        }
    )*};
}
element!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// The storage floats, as their bits.
macro_rules! narrow_element {
    ($($t:ty => $bits:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$bits>();
            fn write_to(self, out: &mut [u8]) {
                self.to_bits().write_to(out);
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_bits(<$bits>::read_le(bytes))
            }
        }
    )*};
}
narrow_element!(half::f16 => u16, half::bf16 => u16, crate::fp8::F8E4M3 => u8, crate::fp8::F8E5M2 => u8);

impl<T: Element, const N: usize> Element for [T; N] {
    const SIZE: usize = T::SIZE * N;
    fn write_to(self, out: &mut [u8]) {
        for (i, x) in self.into_iter().enumerate() {
            x.write_to(&mut out[i * T::SIZE..]);
        }
    }
    fn read_le(bytes: &[u8]) -> Self {
        std::array::from_fn(|i| T::read_le(&bytes[i * T::SIZE..]))
    }
}

impl ArgValue {
    /// A buffer holding `data`.
    pub fn buffer<T: Element>(data: &[T]) -> ArgValue {
        let mut bytes = vec![0u8; data.len() * T::SIZE];
        for (out, x) in bytes.chunks_exact_mut(T::SIZE.max(1)).zip(data) {
            x.write_to(out);
        }
        ArgValue::Buffer(bytes)
    }

    /// A zero-filled buffer of `bytes` bytes.
    pub fn zeroed(bytes: usize) -> ArgValue {
        ArgValue::Buffer(vec![0; bytes])
    }

    /// The elements of a buffer (empty for other values).
    pub fn read<T: Element>(&self) -> Vec<T> {
        match self {
            ArgValue::Buffer(b) => b.chunks_exact(T::SIZE).map(T::read_le).collect(),
            _ => Vec::new(),
        }
    }

    /// The bytes this value puts in the parameter block (`None` for buffers).
    pub(crate) fn param_bytes(&self) -> Option<Vec<u8>> {
        Some(match self {
            ArgValue::U32(v) => v.to_le_bytes().to_vec(),
            ArgValue::I32(v) => v.to_le_bytes().to_vec(),
            ArgValue::U64(v) => v.to_le_bytes().to_vec(),
            ArgValue::I64(v) => v.to_le_bytes().to_vec(),
            ArgValue::F32(v) => v.to_le_bytes().to_vec(),
            ArgValue::F64(v) => v.to_le_bytes().to_vec(),
            ArgValue::Bool(v) => vec![*v as u8],
            ArgValue::Bytes(b) => b.clone(),
            ArgValue::Buffer(_) | ArgValue::TensorMap(_) | ArgValue::Struct(_) => return None,
        })
    }

    /// What kind of value this is, as messages about arguments name it (`u32`, `buffer`,
    /// `tensor map`).
    pub fn kind_name(&self) -> &'static str {
        match self {
            ArgValue::U32(_) => "u32",
            ArgValue::I32(_) => "i32",
            ArgValue::U64(_) => "u64",
            ArgValue::I64(_) => "i64",
            ArgValue::F32(_) => "f32",
            ArgValue::F64(_) => "f64",
            ArgValue::Bool(_) => "bool",
            ArgValue::Buffer(_) => "buffer",
            ArgValue::Bytes(_) => "bytes",
            ArgValue::TensorMap(_) => "tensor map",
            ArgValue::Struct(_) => "struct",
        }
    }
}

impl From<TensorMapArg> for ArgValue {
    fn from(a: TensorMapArg) -> ArgValue {
        ArgValue::TensorMap(Box::new(a))
    }
}

impl From<StructArg> for ArgValue {
    fn from(s: StructArg) -> ArgValue {
        ArgValue::Struct(Box::new(s))
    }
}

/// A Rust value that can be a kernel argument.
pub trait KernelArg {
    /// The value passed to the kernel (a copy: buffers are copied into the launch).
    fn value(&self) -> ArgValue;
    /// Receives the buffer's final contents (only `&mut` slices keep them).
    fn write_back(self, _value: &ArgValue)
    where
        Self: Sized,
    {
    }
}

impl<T: Element> KernelArg for &[T] {
    fn value(&self) -> ArgValue {
        ArgValue::buffer(self)
    }
}

impl<T: Element> KernelArg for &Vec<T> {
    fn value(&self) -> ArgValue {
        ArgValue::buffer(self)
    }
}

impl<T: Element> KernelArg for &mut [T] {
    fn value(&self) -> ArgValue {
        ArgValue::buffer(self)
    }
    fn write_back(self, value: &ArgValue) {
        for (x, v) in self.iter_mut().zip(value.read::<T>()) {
            *x = v;
        }
    }
}

impl<T: Element> KernelArg for &mut Vec<T> {
    fn value(&self) -> ArgValue {
        ArgValue::buffer(self)
    }
    fn write_back(self, value: &ArgValue) {
        self.as_mut_slice().write_back(value);
    }
}

macro_rules! scalar_arg {
    ($($t:ty => $v:ident),*) => {$(
        impl KernelArg for $t {
            fn value(&self) -> ArgValue {
                ArgValue::$v(*self)
            }
        }
    )*};
}
scalar_arg!(u32 => U32, i32 => I32, u64 => U64, i64 => I64, f32 => F32, f64 => F64, bool => Bool);

/// Storage floats by value: their bits, as the `.b16` / `.u8` parameter holds them.
macro_rules! narrow_arg {
    ($($t:ty),*) => {$(
        impl KernelArg for $t {
            fn value(&self) -> ArgValue {
                ArgValue::Bytes(self.to_bits().to_le_bytes().to_vec())
            }
        }
    )*};
}
narrow_arg!(
    half::f16,
    half::bf16,
    crate::fp8::F8E4M3,
    crate::fp8::F8E5M2
);

impl KernelArg for &TensorMapArg {
    fn value(&self) -> ArgValue {
        ArgValue::TensorMap(Box::new((*self).clone()))
    }
}

impl KernelArg for &mut TensorMapArg {
    fn value(&self) -> ArgValue {
        ArgValue::TensorMap(Box::new((**self).clone()))
    }
    fn write_back(self, value: &ArgValue) {
        if let ArgValue::TensorMap(a) = value {
            self.tensor = a.tensor.clone();
        }
    }
}

/// A tuple of kernel arguments, in parameter order.
pub trait KernelArgs {
    /// The values of the arguments, one per parameter.
    fn values(&self) -> Vec<ArgValue>;
    /// Hands each argument its value after the run ([`KernelArg::write_back`]), so `&mut`
    /// slices receive the kernel's results.
    fn write_back(self, values: &[ArgValue]);
}

macro_rules! tuple_args {
    ($($name:ident $i:tt),+) => {
        impl<$($name: KernelArg),+> KernelArgs for ($($name,)+) {
            fn values(&self) -> Vec<ArgValue> {
                vec![$(self.$i.value()),+]
            }
            fn write_back(self, values: &[ArgValue]) {
                $(self.$i.write_back(&values[$i]);)+
            }
        }
    };
}
tuple_args!(A 0);
tuple_args!(A 0, B 1);
tuple_args!(A 0, B 1, C 2);
tuple_args!(A 0, B 1, C 2, D 3);
tuple_args!(A 0, B 1, C 2, D 3, E 4);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_args!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
