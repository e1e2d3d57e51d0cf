//! NumPy `.npy` files, the part `phasegate sim` needs: little-endian numbers and booleans in C
//! order. [`write()`] makes format version 1.0 with a 1-D shape; [`read`] takes versions 1.0, 2.0
//! and 3.0 and any shape (the data is used flattened).
//!
//! The format: the magic `\x93NUMPY`, the major and minor version bytes, the header's length
//! (2 bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then the header, a Python dict
//! literal `{'descr': '<f4', 'fortran_order': False, 'shape': (64,), }` padded with spaces and
//! a newline so that the data starts at a multiple of 64 bytes.

use std::fmt;

/// The element types phasegate reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// `bool` (`|b1`): one byte, 0 or 1.
    Bool,
    /// `u8` (`|u1`).
    U8,
    /// `i8` (`|i1`).
    I8,
    /// `u16` (`<u2`).
    U16,
    /// `i16` (`<i2`).
    I16,
    /// `u32` (`<u4`).
    U32,
    /// `i32` (`<i4`).
    I32,
    /// `u64` (`<u8`).
    U64,
    /// `i64` (`<i8`).
    I64,
    /// `f16` (`<f2`): IEEE half precision.
    F16,
    /// `f32` (`<f4`).
    F32,
    /// `f64` (`<f8`).
    F64,
}

impl Dtype {
    /// Every type, for lookups by name and by NumPy type string.
    pub const ALL: [Dtype; 12] = [
        Dtype::Bool,
        Dtype::U8,
        Dtype::I8,
        Dtype::U16,
        Dtype::I16,
        Dtype::U32,
        Dtype::I32,
        Dtype::U64,
        Dtype::I64,
        Dtype::F16,
        Dtype::F32,
        Dtype::F64,
    ];

    /// The name on phasegate's command line: `u8`, `i32`, `f32`, ...
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Bool => "bool",
            Dtype::U8 => "u8",
            Dtype::I8 => "i8",
            Dtype::U16 => "u16",
            Dtype::I16 => "i16",
            Dtype::U32 => "u32",
            Dtype::I32 => "i32",
            Dtype::U64 => "u64",
            Dtype::I64 => "i64",
            Dtype::F16 => "f16",
            Dtype::F32 => "f32",
            Dtype::F64 => "f64",
        }
    }

    /// The type named `name` on the command line (`f32`); `None` for any other name.
    pub fn from_name(name: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// NumPy's type string, little-endian (`<f4`; `|u1` for single bytes).
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::Bool => "|b1",
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::U16 => "<u2",
            Dtype::I16 => "<i2",
            Dtype::U32 => "<u4",
            Dtype::I32 => "<i4",
            Dtype::U64 => "<u8",
            Dtype::I64 => "<i8",
            Dtype::F16 => "<f2",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::Bool | Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 | Dtype::F64 => 8,
        }
    }

    /// Reads a type string: `<f4`, `|u1`, `u1`, `=i4` (native is little-endian here), `?`.
    fn from_descr(descr: &str) -> Result<Dtype, String> {
        let (order, code) = match descr.chars().next() {
            Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
            _ => ('|', descr),
        };
        let dtype = match code {
            "b1" | "?" => Dtype::Bool,
            "u1" | "B" => Dtype::U8,
            "i1" | "b" => Dtype::I8,
            "u2" => Dtype::U16,
            "i2" => Dtype::I16,
            "u4" => Dtype::U32,
            "i4" => Dtype::I32,
            "u8" => Dtype::U64,
            "i8" => Dtype::I64,
            "f2" | "e" => Dtype::F16,
            "f4" => Dtype::F32,
            "f8" => Dtype::F64,
            _ => {
                return Err(format!(
                    "dtype '{descr}' is not supported (booleans, integers of 1 to 8 bytes, f16, f32, f64)"
                ));
            }
        };
        if order == '>' && dtype.size() > 1 {
            return Err(format!(
                "dtype '{descr}' is big-endian; phasegate reads little-endian data (numpy: a.astype('{}'))",
                dtype.descr()
            ));
        }
        Ok(dtype)
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `.npy` file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// The element type.
    pub dtype: Dtype,
    /// The dimensions as the header gives them; the data is used flattened.
    pub shape: Vec<usize>,
    /// The elements' bytes, little-endian, in C order.
    pub data: Vec<u8>,
}

const MAGIC: &[u8] = b"\x93NUMPY";

/// A version 1.0 `.npy` file holding `data` as a 1-D array of `dtype`; an error when `data` is
/// not a whole number of elements.
pub fn write(dtype: Dtype, data: &[u8]) -> Result<Vec<u8>, String> {
    if !data.len().is_multiple_of(dtype.size()) {
        return Err(format!(
            "{} bytes are not a whole number of {dtype} ({} bytes each)",
            data.len(),
            dtype.size()
        ));
    }
    let n = data.len() / dtype.size();
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': ({n},), }}",
        dtype.descr()
    );
    // magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    Ok(out)
}

/// Reads a `.npy` file's bytes; the error says what is wrong (the caller names the file).
pub fn read(bytes: &[u8]) -> Result<Array, String> {
    if !bytes.starts_with(MAGIC) {
        return Err("not a .npy file (it does not start with \\x93NUMPY)".into());
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[a, b]) => (a, b),
        _ => return Err("the file ends inside its header".into()),
    };
    let (len_size, utf8) = match major {
        1 => (2, false),
        2 => (4, false),
        3 => (4, true),
        _ => {
            return Err(format!(
                "format version {major}.{minor} is not supported (1.0, 2.0, 3.0)"
            ));
        }
    };
    let start = 8 + len_size;
    let header_len = match bytes.get(8..start) {
        Some(b) if len_size == 2 => u16::from_le_bytes([b[0], b[1]]) as usize,
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
        None => return Err("the file ends inside its header".into()),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or("the file ends inside its header")?;
    let header = if utf8 {
        std::str::from_utf8(header).map_err(|_| "the header is not UTF-8 text".to_string())?
    } else {
        if !header.is_ascii() {
            return Err("the header is not ASCII text".into());
        }
        std::str::from_utf8(header).expect("ASCII")
    };
    let (descr, fortran, shape) = parse_header(header)?;
    let dtype = Dtype::from_descr(&descr)?;
    if fortran && shape.iter().filter(|&&d| d > 1).count() > 1 {
        return Err(format!(
            "the array is in Fortran order (shape {}); phasegate reads C order (numpy: np.ascontiguousarray(a))",
            show_shape(&shape)
        ));
    }
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or_else(|| format!("shape {} is too large", show_shape(&shape)))?;
    let data = &bytes[start + header_len..];
    if data.len() != count {
        return Err(format!(
            "shape {} of {} needs {count} bytes of data, the file has {}",
            show_shape(&shape),
            dtype.descr(),
            data.len()
        ));
    }
    Ok(Array {
        dtype,
        shape,
        data: data.to_vec(),
    })
}

/// `(3, 4)`, `(5,)`, `()`.
pub fn show_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The header dict's `descr`, `fortran_order` and `shape`.
fn parse_header(header: &str) -> Result<(String, bool, Vec<usize>), String> {
    let bad = |what: &str| {
        format!(
            "the header is not a dict of descr, fortran_order and shape ({what}): {}",
            header.trim_end()
        )
    };
    let mut p = Parser { s: header, i: 0 };
    p.ws();
    if !p.eat('{') {
        return Err(bad("no `{`"));
    }
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.ws();
        if p.eat('}') {
            break;
        }
        let key = p.string().ok_or_else(|| bad("a key is not a string"))?;
        p.ws();
        if !p.eat(':') {
            return Err(bad("no `:` after a key"));
        }
        p.ws();
        match key.as_str() {
            "descr" => {
                descr = Some(p.string().ok_or_else(|| {
                    bad("descr is not a string (structured dtypes are not supported)")
                })?);
            }
            "fortran_order" => {
                fortran = Some(if p.word("True") {
                    true
                } else if p.word("False") {
                    false
                } else {
                    return Err(bad("fortran_order is not True or False"));
                });
            }
            "shape" => {
                shape = Some(
                    p.tuple()
                        .ok_or_else(|| bad("shape is not a tuple of integers"))?,
                )
            }
            other => return Err(bad(&format!("unknown key '{other}'"))),
        }
        p.ws();
        if !p.eat(',') {
            p.ws();
            if p.eat('}') {
                break;
            }
            return Err(bad("no `,` or `}` after a value"));
        }
    }
    if !p.s[p.i..].trim().is_empty() {
        return Err(bad("text after the dict"));
    }
    match (descr, fortran, shape) {
        (Some(d), Some(f), Some(s)) => Ok((d, f, s)),
        (None, _, _) => Err(bad("no descr")),
        (_, None, _) => Err(bad("no fortran_order")),
        (_, _, None) => Err(bad("no shape")),
    }
}

/// A reader of the Python literals in a `.npy` header.
struct Parser<'a> {
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += c.len_utf8();
            true
        } else {
            false
        }
    }
    fn word(&mut self, w: &str) -> bool {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }
    /// `'text'` or `"text"` (no escapes: type strings and keys have none).
    fn string(&mut self) -> Option<String> {
        let q = self.peek().filter(|c| *c == '\'' || *c == '"')?;
        self.i += 1;
        let end = self.s[self.i..].find(q)?;
        let text = self.s[self.i..self.i + end].to_string();
        self.i += end + 1;
        Some(text)
    }
    /// `()`, `(5,)`, `(3, 4)`, `(3, 4,)`.
    fn tuple(&mut self) -> Option<Vec<usize>> {
        if !self.eat('(') {
            return None;
        }
        let mut dims = Vec::new();
        loop {
            self.ws();
            if self.eat(')') {
                return Some(dims);
            }
            let digits: String = self.s[self.i..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if digits.is_empty() {
                return None;
            }
            self.i += digits.len();
            // Python 2 wrote `3L`.
            self.eat('L');
            dims.push(digits.parse().ok()?);
            self.ws();
            if !self.eat(',') {
                self.ws();
                return self.eat(')').then_some(dims);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_what_numpy_writes() {
        let bytes = write(Dtype::F32, &[0, 0, 128, 63, 0, 0, 0, 64]).unwrap();
        let header =
            b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
        assert!(bytes.starts_with(header));
        assert_eq!(bytes.len(), 128 + 8);
        assert_eq!(bytes[127], b'\n');
        assert!(bytes[header.len()..127].iter().all(|&b| b == b' '));
        let back = read(&bytes).unwrap();
        assert_eq!((back.dtype, back.shape), (Dtype::F32, vec![2]));
        assert_eq!(back.data, [0, 0, 128, 63, 0, 0, 0, 64]);
        assert!(write(Dtype::U32, &[1, 2, 3]).is_err());
    }

    #[test]
    fn reads_other_headers() {
        for (header, dtype, shape) in [
            (
                "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }",
                Dtype::U8,
                vec![2, 3],
            ),
            (
                "{\"shape\": (6,), \"fortran_order\": True, \"descr\": \"<i2\"}",
                Dtype::I16,
                vec![6],
            ),
            (
                "{'descr': '<f8', 'fortran_order': False, 'shape': ()}",
                Dtype::F64,
                vec![],
            ),
        ] {
            let n: usize = shape.iter().product();
            let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
            bytes.extend((header.len() as u32).to_le_bytes());
            bytes.extend(header.as_bytes());
            bytes.extend(vec![0; n * dtype.size()]);
            let a = read(&bytes).unwrap_or_else(|e| panic!("{header}: {e}"));
            assert_eq!((a.dtype, a.shape), (dtype, shape));
        }
    }
}
