//! The argument forms of `gemm-bench`: problem sizes, launch triples, the grid rule and the
//! kernel's parameter layout.

/// One GEMM problem: C (`m × n`) = A (`m × k`) · Bᵀ (B is `n × k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Rows of A and C.
    pub m: usize,
    /// Rows of B, columns of C.
    pub n: usize,
    /// The reduction: columns of A and B.
    pub k: usize,
}

impl Problem {
    /// Floating-point operations (a multiply and an add per term).
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

/// `MxNxK`; k must be a multiple of 8 (a tensor map's row stride is a multiple of 16 bytes).
pub fn parse_problem(s: &str) -> Result<Problem, String> {
    let parts: Vec<&str> = s.split('x').collect();
    let [m, n, k] = parts[..] else {
        return Err(format!("size `{s}`: expected MxNxK, e.g. 4096x4096x4096"));
    };
    let num = |t: &str| {
        t.parse::<usize>()
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("size `{s}`: `{t}` is not a positive integer"))
    };
    let p = Problem {
        m: num(m)?,
        n: num(n)?,
        k: num(k)?,
    };
    if !p.k.is_multiple_of(8) || !p.n.is_multiple_of(8) {
        return Err(format!(
            "size `{s}`: n and k must be multiples of 8 (tensor-map rows are 16-byte multiples)"
        ));
    }
    Ok(p)
}

/// `X`, `X,Y` or `X,Y,Z` (missing dimensions are 1).
pub fn parse_triple(s: &str) -> Result<(u32, u32, u32), String> {
    let v: Result<Vec<u32>, _> = s.split(',').map(|t| t.trim().parse::<u32>()).collect();
    match v.as_deref() {
        Ok([x]) => Ok((*x, 1, 1)),
        Ok([x, y]) => Ok((*x, *y, 1)),
        Ok([x, y, z]) => Ok((*x, *y, *z)),
        _ => Err(format!(
            "`{s}`: expected X, X,Y or X,Y,Z with positive integers"
        )),
    }
    .and_then(|t| {
        if t.0 == 0 || t.1 == 0 || t.2 == 0 {
            Err(format!("`{s}`: dimensions must be positive"))
        } else {
            Ok(t)
        }
    })
}

/// How many blocks the grid has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridRule {
    /// As many clusters as can be resident at once (a persistent kernel).
    Persistent,
    /// One block per `rows × cols` tile of C, rounded up to whole clusters.
    Tiles(u32, u32),
    /// A fixed grid.
    Fixed(u32, u32, u32),
}

/// `persistent`, `tiles:ROWSxCOLS`, or a triple.
pub fn parse_grid(s: &str) -> Result<GridRule, String> {
    if s == "persistent" {
        return Ok(GridRule::Persistent);
    }
    if let Some(t) = s.strip_prefix("tiles:") {
        let v: Vec<u32> = t.split('x').filter_map(|x| x.parse().ok()).collect();
        return match v[..] {
            [r, c] if r > 0 && c > 0 => Ok(GridRule::Tiles(r, c)),
            _ => Err(format!(
                "grid `{s}`: expected tiles:ROWSxCOLS, e.g. tiles:128x256"
            )),
        };
    }
    parse_triple(s).map(|(x, y, z)| GridRule::Fixed(x, y, z))
}

/// One kernel parameter, in the order the entry declares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A `CUtensorMap` (128 bytes, 64-aligned) over A, B or C.
    TensorMap(Operand),
    /// A 64-bit device address of A, B or C.
    Pointer(Operand),
    /// M, N or K as a 32-bit unsigned integer.
    Dim(char),
    /// The fp8 mode's combined scale, scale_a · scale_b (computed on the host in f32), as f32.
    Scale,
    /// The grouped mode's `maps`: the 64-bit address of the kernel's tensor-map workspace.
    Maps,
    /// The grouped mode's `offsets`: the 64-bit address of the G + 1 u32 row prefix sums.
    Offsets,
    /// The grouped mode's `groups`: G as a 32-bit unsigned integer.
    Groups,
    /// A split K's parts: the 64-bit address of a zeroed f32 buffer of `--splits` · M' · N'
    /// elements (M and N padded to 256), as many as any tiling's parts take.
    Partials,
    /// A split K's arrival counters: the 64-bit address of a zeroed u32 buffer of
    /// 4 · ⌈M/64⌉ · ⌈N/64⌉ counters, which the kernel leaves at zero.
    Arrivals,
    /// `--splits` as a 32-bit unsigned integer.
    Splits,
    /// Stream-K's whole tiles (`--whole`) as a 32-bit unsigned integer.
    Whole,
    /// Stream-K's stages a cluster (`--span`) as a 32-bit unsigned integer.
    Span,
}

impl Param {
    /// Whether only the grouped mode passes it.
    pub fn is_grouped(&self) -> bool {
        matches!(self, Param::Maps | Param::Offsets | Param::Groups)
    }

    /// Whether only a split K passes it (the plain mode's).
    pub fn is_split(&self) -> bool {
        matches!(
            self,
            Param::Partials | Param::Arrivals | Param::Splits | Param::Whole | Param::Span
        )
    }
}

/// One of the three matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// `m × k`, row-major.
    A,
    /// `n × k`, row-major.
    B,
    /// `m × n`, row-major.
    C,
}

/// A comma-separated list of `tmap_a tmap_b tmap_c ptr_a ptr_b ptr_c m n k scale`, and the
/// grouped mode's `maps offsets groups`.
pub fn parse_params(s: &str) -> Result<Vec<Param>, String> {
    s.split(',')
        .map(|t| match t.trim() {
            "tmap_a" => Ok(Param::TensorMap(Operand::A)),
            "tmap_b" => Ok(Param::TensorMap(Operand::B)),
            "tmap_c" => Ok(Param::TensorMap(Operand::C)),
            "ptr_a" => Ok(Param::Pointer(Operand::A)),
            "ptr_b" => Ok(Param::Pointer(Operand::B)),
            "ptr_c" => Ok(Param::Pointer(Operand::C)),
            "m" => Ok(Param::Dim('m')),
            "n" => Ok(Param::Dim('n')),
            "k" => Ok(Param::Dim('k')),
            "scale" => Ok(Param::Scale),
            "maps" => Ok(Param::Maps),
            "offsets" => Ok(Param::Offsets),
            "groups" => Ok(Param::Groups),
            "partials" => Ok(Param::Partials),
            "arrivals" => Ok(Param::Arrivals),
            "splits" => Ok(Param::Splits),
            "whole" => Ok(Param::Whole),
            "span" => Ok(Param::Span),
            other => Err(format!(
                "parameter `{other}`: expected one of tmap_a tmap_b tmap_c ptr_a ptr_b ptr_c m n k scale partials arrivals splits whole span (and with --grouped: maps offsets groups)"
            )),
        })
        .collect()
}

/// The plain mode's default `--params` (ref_gemm's layout).
pub const PLAIN_PARAMS: &str = "tmap_a,tmap_b,tmap_c,m,n,k";
/// The grouped mode's default `--params`: `grouped_gemm(a, b, c, a_rows, b_experts, c_rows,
/// maps, offsets, groups, n, k)`, issue 21's signature.
pub const GROUPED_PARAMS: &str = "tmap_a,tmap_b,tmap_c,ptr_a,ptr_b,ptr_c,maps,offsets,groups,n,k";

/// What an entry declares that a launch must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryShape {
    /// Bytes of each parameter, in order.
    pub param_bytes: Vec<u64>,
    /// Its `.reqnctapercluster`, if any: the cluster is then the kernel's, not the launch's.
    pub cluster: Option<(u32, u32, u32)>,
}

/// Reads `entry`'s parameters and cluster shape from the PTX (the project's reader).
pub fn entry_shape(ptx: &str, entry: &str) -> Result<EntryShape, String> {
    let module = phasegate_ptx::parse(ptx).map_err(|e| format!("the PTX does not read: {e}"))?;
    let f = module.entries().find(|f| f.name == entry).ok_or_else(|| {
        let names: Vec<&str> = module.entries().map(|f| f.name.as_str()).collect();
        format!(
            "no entry `{entry}` in the PTX (entries: {})",
            names.join(", ")
        )
    })?;
    let param_bytes = f
        .params
        .iter()
        .map(|p| {
            let elems: u64 = p.array.iter().map(|d| d.unwrap_or(0)).product();
            p.ty.size() as u64 * p.vector.unwrap_or(1) as u64 * elems
        })
        .collect();
    Ok(EntryShape {
        param_bytes,
        cluster: f.directive_dims("reqnctapercluster"),
    })
}

/// Checks the `--params` layout against the entry's parameters: as many, and each of the size
/// its kind passes (a tensor map 128 bytes, a pointer 8, a dimension or the scale 4).
pub fn check_params(params: &[Param], shape: &EntryShape) -> Result<(), String> {
    if params.len() != shape.param_bytes.len() {
        return Err(format!(
            "the entry takes {} parameters, --params lists {}",
            shape.param_bytes.len(),
            params.len()
        ));
    }
    for (i, (p, &bytes)) in params.iter().zip(&shape.param_bytes).enumerate() {
        let want = match p {
            Param::TensorMap(_) => 128,
            Param::Pointer(_)
            | Param::Maps
            | Param::Offsets
            | Param::Partials
            | Param::Arrivals => 8,
            Param::Dim(_)
            | Param::Scale
            | Param::Groups
            | Param::Splits
            | Param::Whole
            | Param::Span => 4,
        };
        if bytes != want {
            return Err(format!(
                "parameter {i} is {bytes} bytes in the PTX, {p:?} passes {want}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_triples_grids_and_params() {
        assert_eq!(
            parse_problem("8192x14336x4096"),
            Ok(Problem {
                m: 8192,
                n: 14336,
                k: 4096
            })
        );
        assert_eq!(
            parse_problem("2048x2048x2048").unwrap().flops(),
            2.0 * 2048f64.powi(3)
        );
        assert!(parse_problem("64x64").unwrap_err().contains("MxNxK"));
        assert!(
            parse_problem("64x64x12")
                .unwrap_err()
                .contains("multiples of 8")
        );
        assert!(parse_problem("64x0x64").unwrap_err().contains("positive"));
        assert_eq!(parse_triple("384"), Ok((384, 1, 1)));
        assert_eq!(parse_triple("2,1"), Ok((2, 1, 1)));
        assert!(parse_triple("2,0").is_err() && parse_triple("a").is_err());
        assert_eq!(parse_grid("persistent"), Ok(GridRule::Persistent));
        assert_eq!(parse_grid("tiles:128x256"), Ok(GridRule::Tiles(128, 256)));
        assert_eq!(parse_grid("132"), Ok(GridRule::Fixed(132, 1, 1)));
        assert!(parse_grid("tiles:128").is_err());
        assert_eq!(
            parse_params("tmap_a, tmap_b,ptr_c,m,n,k").unwrap()[..3],
            [
                Param::TensorMap(Operand::A),
                Param::TensorMap(Operand::B),
                Param::Pointer(Operand::C)
            ]
        );
        assert!(parse_params("tmap_a,x").unwrap_err().contains("`x`"));
        assert_eq!(
            parse_params("tmap_a,tmap_b,tmap_c,m,n,k,scale").unwrap()[6],
            Param::Scale
        );
        let grouped = parse_params(GROUPED_PARAMS).unwrap();
        assert_eq!(grouped.len(), 11);
        assert_eq!(grouped[6..9], [Param::Maps, Param::Offsets, Param::Groups]);
        assert!(grouped[6].is_grouped() && !grouped[5].is_grouped());
        let split = parse_params("tmap_b,tmap_a,tmap_c,n,m,k,partials,arrivals,splits").unwrap();
        assert_eq!(
            &split[6..],
            &[Param::Partials, Param::Arrivals, Param::Splits]
        );
        assert!(split[8].is_split() && !split[5].is_split() && !split[6].is_grouped());
        let stream =
            parse_params("tmap_a,tmap_b,tmap_c,m,n,k,partials,arrivals,whole,span").unwrap();
        assert_eq!(&stream[8..], &[Param::Whole, Param::Span]);
        assert!(stream[9].is_split());
    }

    /// The grouped kernel's signature (issue 21's `grouped_gemm`) against the default
    /// grouped `--params`.
    #[test]
    fn the_grouped_signature_takes_the_grouped_default() {
        let ptx = ".version 8.0
.target sm_90a
.address_size 64
.visible .entry grouped_gemm(.param .align 64 .b8 a[128], .param .align 64 .b8 b[128],
    .param .align 64 .b8 c[128], .param .u64 a_rows, .param .u64 b_experts,
    .param .u64 c_rows, .param .u64 maps, .param .u64 offsets, .param .u32 groups,
    .param .u32 n, .param .u32 k)
{
	ret;
}
";
        let shape = entry_shape(ptx, "grouped_gemm").unwrap();
        let params = parse_params(GROUPED_PARAMS).unwrap();
        assert_eq!(check_params(&params, &shape), Ok(()));
    }

    const PTX: &str = ".version 8.0
.target sm_90a
.address_size 64
.visible .entry g(.param .align 64 .b8 a[128], .param .u64 c, .param .u32 m, .param .f32 s)
.reqnctapercluster 2, 1, 1
{
	ret;
}
";

    #[test]
    fn entry_parameters_and_cluster_are_read_and_checked() {
        let shape = entry_shape(PTX, "g").unwrap();
        assert_eq!(shape.param_bytes, [128, 8, 4, 4]);
        assert_eq!(shape.cluster, Some((2, 1, 1)));
        let good = parse_params("tmap_a,ptr_c,m,scale").unwrap();
        assert_eq!(check_params(&good, &shape), Ok(()));
        let short = parse_params("tmap_a,ptr_c,m").unwrap();
        assert!(
            check_params(&short, &shape)
                .unwrap_err()
                .contains("takes 4 parameters")
        );
        let swapped = parse_params("tmap_a,m,ptr_c,scale").unwrap();
        assert!(
            check_params(&swapped, &shape)
                .unwrap_err()
                .contains("parameter 1 is 8 bytes")
        );
        assert!(entry_shape(PTX, "h").unwrap_err().contains("entries: g"));
    }

    /// ref_gemm's PTX (nvcc's, as run.sh builds it) matches the default `--params`.
    #[test]
    fn the_reference_gemm_takes_the_default_layout() {
        let ptx = include_str!("../../../tests/realworld/handwritten/ref_gemm_sm90a.ptx");
        let shape = entry_shape(ptx, "ref_gemm").unwrap();
        assert_eq!(shape.param_bytes, [128, 128, 128, 4, 4, 4]);
        assert_eq!(shape.cluster, None);
        let params = parse_params("tmap_a,tmap_b,tmap_c,m,n,k").unwrap();
        assert_eq!(check_params(&params, &shape), Ok(()));
    }
}
