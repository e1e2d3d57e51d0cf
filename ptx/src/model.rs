//! The typed, in-memory model of a PTX module.
//!
//! This is the one IR of phasegate: the `#[kernel]` lowering builds it, the writer prints it,
//! the reader parses nvcc's (or our own) text back into it, and the analyses and the simulator
//! read it. Analyses keep their results in side tables keyed by [`StmtId`]; they never mutate
//! the model.
//!
//! Instructions are kept in a uniform shape — guard, opcode, modifiers, operands — so that any
//! instruction of the ISA, known to phasegate or not, is represented and round-trips. The
//! [`Opcode`] enum names the opcodes that phasegate reasons about; everything else is
//! [`Opcode::Other`].

use std::fmt;

/// A position in PTX text (1-based line and column); `0` means "not from text".
///
/// Spans are metadata: two models that differ only in spans compare equal, so
/// `read(write(m)) == m` holds although the reader records where each statement stood.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// 1-based line; 0 when the statement was not read from text.
    pub line: u32,
    /// 1-based column of the statement's first character.
    pub col: u32,
}

impl Span {
    /// The span of something that was not read from text (built by `#[kernel]` or by hand).
    pub const NONE: Span = Span { line: 0, col: 0 };
    /// A span at `line`, `col` (both 1-based).
    pub fn new(line: u32, col: u32) -> Self {
        Span { line, col }
    }
    /// Whether this is [`Span::NONE`]: the statement was not read from text.
    pub fn is_none(&self) -> bool {
        self.line == 0
    }
}

/// `.version major.minor`.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub struct Version {
    /// The number before the dot.
    pub major: u32,
    /// The number after the dot.
    pub minor: u32,
}

impl Version {
    /// `.version major.minor`.
    pub const fn new(major: u32, minor: u32) -> Self {
        Version { major, minor }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A streaming-multiprocessor architecture `sm_XY` with an optional arch-specific suffix
/// (`sm_90a`, `sm_100f`).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct SmVersion {
    /// e.g. 90 for `sm_90a`.
    pub number: u32,
    /// `Some('a')` for `sm_90a`.
    pub suffix: Option<char>,
}

impl SmVersion {
    /// The plain target `sm_NUMBER`, whose features every higher target also has.
    pub const fn new(number: u32) -> Self {
        SmVersion {
            number,
            suffix: None,
        }
    }
    /// The arch-specific target `sm_NUMBERa` (`sm_90a`), whose `a` features only that exact target
    /// has (PTX ISA §11.1.2, `.target`).
    pub const fn arch_specific(number: u32) -> Self {
        SmVersion {
            number,
            suffix: Some('a'),
        }
    }
    /// Parses `sm_90a`, `sm_80`, `compute_90` is not a PTX target and is rejected.
    pub fn parse(text: &str) -> Option<SmVersion> {
        let rest = text.strip_prefix("sm_")?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            return None;
        }
        let tail = &rest[digits.len()..];
        let suffix = match tail {
            "" => None,
            "a" | "f" => tail.chars().next(),
            _ => return None,
        };
        Some(SmVersion {
            number: digits.parse().ok()?,
            suffix,
        })
    }
    /// Whether code for `self` may use a feature that needs `need` (`sm_90a` features need the
    /// exact `a` target; plain features are available on every later target).
    pub fn satisfies(&self, need: SmVersion) -> bool {
        match need.suffix {
            Some(_) => self.number == need.number && self.suffix == need.suffix,
            None => self.number >= need.number,
        }
    }
}

impl fmt::Display for SmVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number)?;
        if let Some(c) = self.suffix {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// `.target sm_90a{, texmode_independent}{, debug}`.
#[derive(Clone, Debug, Eq, PartialEq, Hash)]
pub struct Target {
    /// The architecture, `sm_90a`.
    pub sm: SmVersion,
    /// Further target options in their order (`texmode_independent`, `debug`, `map_f64_to_f32`).
    pub options: Vec<String>,
}

/// A PTX module: one `.ptx` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The `.version` directive: the PTX ISA version the text is written for (PTX ISA §11.1.1).
    pub version: Version,
    /// The `.target` directive (PTX ISA §11.1.2).
    pub target: Target,
    /// The `.address_size`: 64 (or 32), the width of generic addresses (PTX ISA §11.1.3).
    pub address_size: u32,
    /// Items in text order: `.file` lines, module-scope variables, functions and directives
    /// the model keeps verbatim.
    pub items: Vec<Item>,
}

impl Module {
    /// An empty module for `version` and `.target sm`, with 64-bit addresses.
    pub fn new(version: Version, sm: SmVersion) -> Self {
        Module {
            version,
            target: Target {
                sm,
                options: Vec::new(),
            },
            address_size: 64,
            items: Vec::new(),
        }
    }

    /// The functions in text order, declarations without body included.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|item| match item {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }

    /// The kernels (`.entry` functions) in text order: what a host can launch.
    ///
    /// ```rust
    /// let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
    ///     .visible .func helper()\n{\n ret;\n}\n\
    ///     .visible .entry k()\n{\n ret;\n}\n";
    /// let module = phasegate_ptx::parse(ptx).unwrap();
    /// let names: Vec<&str> = module.entries().map(|f| f.name.as_str()).collect();
    /// assert_eq!(names, ["k"]);
    /// assert_eq!(module.functions().count(), 2);
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = &Function> {
        self.functions().filter(|f| f.kind == FunctionKind::Entry)
    }

    /// The function called `name`, entry or `.func`; `None` if the module has none.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions().find(|f| f.name == name)
    }

    /// The path that `.file INDEX` names.
    pub fn file_name(&self, index: u32) -> Option<&str> {
        self.items.iter().find_map(|item| match item {
            Item::File(file) if file.index == index => Some(file.path.as_str()),
            _ => None,
        })
    }
}

/// A module-scope item.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    /// `.file 1 "path"{, timestamp, size}`.
    File(FileDecl),
    /// A module-scope variable (`.global`, `.const`, `.shared`, ...).
    Var(VarDecl),
    /// An `.entry` or `.func`, declared or defined.
    Function(Function),
    /// A directive the model keeps as text, balanced braces included (e.g. `.section`).
    Verbatim(String),
}

/// A `.file` directive: the source file that `.loc` lines name by index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDecl {
    /// The number `.loc` lines use for the file.
    pub index: u32,
    /// The file's path, without the quotes and escapes of the text.
    pub path: String,
    /// Optional `, timestamp, size` as nvcc writes them.
    pub extra: Vec<u64>,
}

/// Whether a function is a kernel or a device function (PTX ISA §11.2).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// The linking directive in front of a function or module-scope variable: whether the symbol is
/// seen outside the module (PTX ISA §11, linking directives).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Linkage {
    /// `.visible`: defined here and seen by other modules.
    Visible,
    /// `.extern`: declared here, defined in another module.
    Extern,
    /// `.weak`: seen by other modules; a strong definition elsewhere wins.
    Weak,
    /// `.common`: seen by other modules; the largest of equal-named declarations wins (global
    /// variables only).
    Common,
}

impl Linkage {
    /// The directive as written, with the dot: `.visible`.
    pub fn as_str(self) -> &'static str {
        match self {
            Linkage::Visible => ".visible",
            Linkage::Extern => ".extern",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}

/// An `.entry` or `.func` with its parameters and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// `.entry` or `.func`.
    pub kind: FunctionKind,
    /// `.visible`, `.extern`, ...; `None` for a function private to the module.
    pub linkage: Option<Linkage>,
    /// The function's name, as calls and the driver know it.
    pub name: String,
    /// Return parameters of a `.func` (`.func (.param .b32 r) f(...)`).
    pub returns: Vec<VarDecl>,
    /// The parameters in order (`.param` declarations).
    pub params: Vec<VarDecl>,
    /// Performance-tuning directives between the signature and the body
    /// (`.maxntid 128, 1, 1`, `.reqnctapercluster 2, 1, 1`, `.noreturn`, ...).
    pub directives: Vec<Directive>,
    /// `None` for a declaration without body (`.extern .func f(...);`).
    pub body: Option<Body>,
}

impl Function {
    /// The dimensions of the function's directive `name` (`reqntid`, `maxntid`, ...), as
    /// [`Directive::dims`] reads them; `None` when it has none or they are not dimensions.
    pub fn directive_dims(&self, name: &str) -> Option<(u32, u32, u32)> {
        self.directives.iter().find(|d| d.name == name)?.dims()
    }
}

/// A function-scope directive such as `.reqntid 128, 1, 1` or `.pragma "nounroll"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// Without the leading dot: `reqntid`. A body directive whose arguments are not integers
    /// and strings (`.callprototype (.param .b32 _) _ (.param .b64 _)`) keeps its keyword and
    /// argument text here, with `args` empty, so that it round-trips.
    pub name: String,
    /// The arguments in order: `128, 1, 1` for `.reqntid 128, 1, 1`.
    pub args: Vec<DirectiveArg>,
}

impl Directive {
    /// The arguments as dimensions `x, y, z` (`.reqntid`, `.maxntid`, `.reqnctapercluster`):
    /// one to three integers that fit `u32`, the missing ones 1; `None` for any other arguments.
    pub fn dims(&self) -> Option<(u32, u32, u32)> {
        let mut v = [1u32; 3];
        if self.args.is_empty() || self.args.len() > 3 {
            return None;
        }
        for (slot, a) in v.iter_mut().zip(&self.args) {
            let DirectiveArg::Int(i) = a else { return None };
            *slot = u32::try_from(*i).ok()?;
        }
        Some((v[0], v[1], v[2]))
    }

    /// The labels of a `.branchtargets` list (`JT: .branchtargets L1, L2;`, the table a
    /// `brx.idx` names; PTX ISA §11.4.1), in order; `None` for any other directive.
    pub fn branch_targets(&self) -> Option<Vec<&str>> {
        let list = self.name.strip_prefix("branchtargets")?;
        if !list.is_empty() && !list.starts_with(char::is_whitespace) {
            return None;
        }
        Some(
            list.split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect(),
        )
    }
}

/// An argument of a [`Directive`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirectiveArg {
    /// An integer: `128` in `.maxntid 128, 1, 1`.
    Int(u64),
    /// A string, without the quotes and escapes of the text: `nounroll` in `.pragma "nounroll"`.
    Str(String),
}

/// The statements of a function body, in text order, with a span per statement.
///
/// Nested `{ }` scopes are kept flat as [`Statement::ScopeOpen`]/[`Statement::ScopeClose`],
/// so every statement has one index, its [`StmtId`], for the side tables of the analyses.
#[derive(Clone, Debug, Default)]
pub struct Body {
    statements: Vec<Statement>,
    spans: Vec<Span>,
}

impl PartialEq for Body {
    /// Spans are metadata and do not take part in equality.
    fn eq(&self, other: &Self) -> bool {
        self.statements == other.statements
    }
}

/// The index of a statement in its function's [`Body`].
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, Ord, PartialOrd)]
pub struct StmtId(pub u32);

impl StmtId {
    /// The position in [`Body::statements`], for indexing side tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Body {
    /// An empty body.
    pub fn new() -> Self {
        Body::default()
    }
    /// Appends `statement`, which stood at `span`, and returns its id.
    pub fn push(&mut self, statement: Statement, span: Span) -> StmtId {
        let id = StmtId(self.statements.len() as u32);
        self.statements.push(statement);
        self.spans.push(span);
        id
    }
    /// The statements in text order; a statement's [`StmtId`] is its index here.
    pub fn statements(&self) -> &[Statement] {
        &self.statements
    }
    /// The statement `id`; panics if `id` is not of this body.
    pub fn get(&self, id: StmtId) -> &Statement {
        &self.statements[id.index()]
    }
    /// Where statement `id` stood in the text; [`Span::NONE`] when it was not read from text.
    pub fn span(&self, id: StmtId) -> Span {
        self.spans[id.index()]
    }
    /// The number of statements, declarations, labels and scope braces included.
    pub fn len(&self) -> usize {
        self.statements.len()
    }
    /// Whether the body has no statements.
    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }
    /// The statements with their ids, in text order.
    pub fn iter(&self) -> impl Iterator<Item = (StmtId, &Statement)> {
        self.statements
            .iter()
            .enumerate()
            .map(|(i, s)| (StmtId(i as u32), s))
    }
    /// The instructions with their ids, in text order; declarations, labels, `.loc` lines and
    /// directives skipped.
    pub fn instructions(&self) -> impl Iterator<Item = (StmtId, &Instruction)> {
        self.iter().filter_map(|(id, s)| match s {
            Statement::Instruction(inst) => Some((id, inst)),
            _ => None,
        })
    }
}

/// One statement of a function body (PTX ISA §4.3: directive and instruction statements), or a
/// label or scope brace.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// A register, shared, local or param declaration inside the body.
    Decl(VarDecl),
    /// `name:`
    Label(String),
    /// An instruction, guard included.
    Instruction(Instruction),
    /// `.loc file line column{, rest}`.
    Loc(Loc),
    /// `.pragma "..."`, `.maxnreg` and other body-level directives.
    Directive(Directive),
    /// `{`: opens a nested scope; labels and declarations inside it are not seen outside (PTX ISA
    /// §4.4).
    ScopeOpen,
    /// `}`: closes the innermost [`Statement::ScopeOpen`].
    ScopeClose,
}

/// A `.loc` line: a source position for the instructions that follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The `.file` index of the source file.
    pub file: u32,
    /// The source line.
    pub line: u32,
    /// The source column.
    pub col: u32,
    /// What follows the column, kept verbatim (`function_name $L__info_string0, inlined_at 1 2 3`).
    pub rest: Option<String>,
}

/// State spaces of the PTX memory model.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum StateSpace {
    /// `.reg`: registers, private to a thread.
    Reg,
    /// `.sreg`: special registers, read-only and predefined (`%tid`, `%clock`).
    Sreg,
    /// `.const`: read-only memory, initialized by the host.
    Const,
    /// `.global`: device memory shared by all threads of the grid and the host.
    Global,
    /// `.local`: memory private to a thread (its stack).
    Local,
    /// `.param`: kernel and function parameters.
    Param,
    /// `.shared`: memory of a CTA, shared by its threads (and, in a cluster, reachable from the
    /// other CTAs through `shared::cluster` addresses).
    Shared,
    /// `.tex`: texture references (deprecated, kept so old text round-trips).
    Tex,
}

impl StateSpace {
    /// The directive as written, with the dot: `.shared`.
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::Sreg => ".sreg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::Shared => ".shared",
            StateSpace::Tex => ".tex",
        }
    }
    /// The space of a name without the dot (`shared`); `None` for anything else.
    pub fn from_name(name: &str) -> Option<StateSpace> {
        Some(match name {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }
}

/// Fundamental PTX types.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum ScalarType {
    /// `.b8`: untyped 8 bits.
    B8,
    /// `.b16`: untyped 16 bits.
    B16,
    /// `.b32`: untyped 32 bits.
    B32,
    /// `.b64`: untyped 64 bits (an mbarrier object, for one).
    B64,
    /// `.b128`: untyped 128 bits.
    B128,
    /// `.u8`: unsigned 8-bit integer.
    U8,
    /// `.u16`: unsigned 16-bit integer.
    U16,
    /// `.u32`: unsigned 32-bit integer.
    U32,
    /// `.u64`: unsigned 64-bit integer.
    U64,
    /// `.s8`: signed 8-bit integer.
    S8,
    /// `.s16`: signed 16-bit integer.
    S16,
    /// `.s32`: signed 32-bit integer.
    S32,
    /// `.s64`: signed 64-bit integer.
    S64,
    /// `.f16`: half-precision float.
    F16,
    /// `.f16x2`: two half-precision floats packed in 32 bits.
    F16x2,
    /// `.bf16`: bfloat16.
    Bf16,
    /// `.bf16x2`: two bfloat16 packed in 32 bits.
    Bf16x2,
    /// `.f32`: single-precision float.
    F32,
    /// `.f64`: double-precision float.
    F64,
    /// `.pred`: a one-bit predicate, what `setp` writes and guards read.
    Pred,
}

impl ScalarType {
    /// Every type, for lookups by name.
    pub const ALL: [ScalarType; 20] = [
        ScalarType::B8,
        ScalarType::B16,
        ScalarType::B32,
        ScalarType::B64,
        ScalarType::B128,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::S8,
        ScalarType::S16,
        ScalarType::S32,
        ScalarType::S64,
        ScalarType::F16,
        ScalarType::F16x2,
        ScalarType::Bf16,
        ScalarType::Bf16x2,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::Pred,
    ];

    /// The name without the dot: `u32`.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::B8 => "b8",
            ScalarType::B16 => "b16",
            ScalarType::B32 => "b32",
            ScalarType::B64 => "b64",
            ScalarType::B128 => "b128",
            ScalarType::U8 => "u8",
            ScalarType::U16 => "u16",
            ScalarType::U32 => "u32",
            ScalarType::U64 => "u64",
            ScalarType::S8 => "s8",
            ScalarType::S16 => "s16",
            ScalarType::S32 => "s32",
            ScalarType::S64 => "s64",
            ScalarType::F16 => "f16",
            ScalarType::F16x2 => "f16x2",
            ScalarType::Bf16 => "bf16",
            ScalarType::Bf16x2 => "bf16x2",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Pred => "pred",
        }
    }

    /// The type of a name without the dot (`u32`); `None` for anything else.
    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// Size in bytes; a predicate counts as one byte of storage.
    pub fn size(self) -> u32 {
        match self {
            ScalarType::B8 | ScalarType::U8 | ScalarType::S8 | ScalarType::Pred => 1,
            ScalarType::B16
            | ScalarType::U16
            | ScalarType::S16
            | ScalarType::F16
            | ScalarType::Bf16 => 2,
            ScalarType::B32
            | ScalarType::U32
            | ScalarType::S32
            | ScalarType::F32
            | ScalarType::F16x2
            | ScalarType::Bf16x2 => 4,
            ScalarType::B64 | ScalarType::U64 | ScalarType::S64 | ScalarType::F64 => 8,
            ScalarType::B128 => 16,
        }
    }

    /// Whether the type is a floating-point type, packed pairs included.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::F16
                | ScalarType::F16x2
                | ScalarType::Bf16
                | ScalarType::Bf16x2
                | ScalarType::F32
                | ScalarType::F64
        )
    }

    /// Whether the type is a signed integer (`.s8` to `.s64`).
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64
        )
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variable declaration: `.reg .b32 %r<16>;`, `.shared .align 16 .b8 tile[4096];`,
/// `.param .u64 .ptr .global .align 16 x`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `.visible`, `.extern`, ... of a module-scope variable; `None` otherwise.
    pub linkage: Option<Linkage>,
    /// Where the variable lives.
    pub space: StateSpace,
    /// `.align N`: the alignment in bytes, if given (PTX ISA §5.4.5).
    pub align: Option<u32>,
    /// `.v2`/`.v4` vector width, if any.
    pub vector: Option<u8>,
    /// The element type.
    pub ty: ScalarType,
    /// For kernel pointer params: `.ptr .global .align 16` (space, alignment).
    pub ptr: Option<(Option<StateSpace>, Option<u32>)>,
    /// The name; with [`VarDecl::range`], the prefix of the registers declared.
    pub name: String,
    /// `%r<16>` declares 16 registers `%r0 .. %r15`.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]` (size from initializer or extern).
    pub array: Vec<Option<u64>>,
    /// `= { ... }` or `= value`.
    pub init: Option<Initializer>,
}

impl VarDecl {
    /// A plain variable `space ty name` without alignment, array or initializer.
    pub fn new(space: StateSpace, ty: ScalarType, name: impl Into<String>) -> Self {
        VarDecl {
            linkage: None,
            space,
            align: None,
            vector: None,
            ty,
            ptr: None,
            name: name.into(),
            range: None,
            array: Vec::new(),
            init: None,
        }
    }
    /// Bytes taken by one declared variable (arrays counted whole; `[]` counts as zero).
    pub fn byte_size(&self) -> u64 {
        let elem = self.ty.size() as u64 * self.vector.unwrap_or(1) as u64;
        self.array
            .iter()
            .fold(elem, |acc, d| acc.saturating_mul(d.unwrap_or(0)))
    }
}

/// The value after `=` in a variable declaration (PTX ISA §5.4.4).
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// One value: an immediate, or a symbol for an address.
    Scalar(Operand),
    /// `{ ... }`: the elements of an array, nested for each further dimension.
    List(Vec<Initializer>),
}

/// The opcodes phasegate knows by name; all others are [`Opcode::Other`] and round-trip.
#[derive(Clone, Debug, Eq, PartialEq, Hash)]
pub enum Opcode {
    /// `abs`: absolute value.
    Abs,
    /// `add`: addition.
    Add,
    /// `and`: bitwise and.
    And,
    /// `atom`: atomic read-modify-write that returns the old value.
    Atom,
    /// `bar` (`bar.sync`, `bar.arrive`, `bar.red`, `bar.warp.sync`): CTA named barriers (PTX ISA
    /// §9.7.13.1).
    Bar,
    /// `barrier` (`barrier.sync`, `barrier.arrive`, `barrier.red`, `barrier.cluster`): `bar` with
    /// `.aligned` optional, and the cluster barrier (PTX ISA §9.7.13.1, §9.7.13.3).
    Barrier,
    /// `bfe`: bit field extract.
    Bfe,
    /// `bfi`: bit field insert.
    Bfi,
    /// `bra`: branch to a label.
    Bra,
    /// `brev`: bit reverse.
    Brev,
    /// `call`: calls a `.func`.
    Call,
    /// `clz`: count leading zeros.
    Clz,
    /// `cp` (`cp.async`, `cp.async.bulk`, `cp.async.bulk.tensor`): asynchronous copies, some of
    /// them completing on an mbarrier (PTX ISA §9.7.9.25).
    Cp,
    /// `cvt`: converts between types.
    Cvt,
    /// `cvta`: converts an address between a state space and the generic space.
    Cvta,
    /// `div`: division.
    Div,
    /// `elect.sync`: picks one leader thread of the warp.
    Elect,
    /// `exit`: ends the thread; exited threads no longer take part in barriers.
    Exit,
    /// `fence` (`fence.proxy.async`, `fence.mbarrier_init`, ...): memory ordering, across proxies
    /// too (PTX ISA §9.7.13.4).
    Fence,
    /// `fma`: fused multiply-add.
    Fma,
    /// `ld`: load.
    Ld,
    /// `mad`: multiply-add.
    Mad,
    /// `mapa`: maps a shared-memory address to the same location in another CTA of the cluster (PTX
    /// ISA §9.7.9.21).
    Mapa,
    /// `max`: maximum.
    Max,
    /// `mbarrier` (`init`, `arrive`, `expect_tx`, `try_wait`, ...): operations on an mbarrier
    /// object (PTX ISA §9.7.13.15).
    Mbarrier,
    /// `membar`: memory barrier, ordering this thread's memory accesses (PTX ISA §9.7.13.4).
    Membar,
    /// `min`: minimum.
    Min,
    /// `mov`: move.
    Mov,
    /// `mul`: multiplication.
    Mul,
    /// `nanosleep`: suspends the thread for a while; a hint, not a synchronization.
    Nanosleep,
    /// `neg`: negation.
    Neg,
    /// `not`: bitwise not.
    Not,
    /// `or`: bitwise or.
    Or,
    /// `popc`: population count.
    Popc,
    /// `rcp`: reciprocal.
    Rcp,
    /// `red`: atomic reduction without a result.
    Red,
    /// `rem`: remainder.
    Rem,
    /// `ret`: returns from the function (from a kernel: ends the thread, as `exit`).
    Ret,
    /// `rsqrt`: reciprocal square root.
    Rsqrt,
    /// `selp`: selects one of two values by a predicate.
    Selp,
    /// `setp`: compares and writes a predicate.
    Setp,
    /// `shl`: shift left.
    Shl,
    /// `shfl` (`shfl.sync`): exchanges registers between the threads of a warp.
    Shfl,
    /// `shr`: shift right.
    Shr,
    /// `sqrt`: square root.
    Sqrt,
    /// `st`: store.
    St,
    /// `sub`: subtraction.
    Sub,
    /// `trap`: aborts the kernel with an error.
    Trap,
    /// `vote` (`vote.sync`): a warp-wide vote on a predicate.
    Vote,
    /// `xor`: bitwise exclusive or.
    Xor,
    /// Any other opcode, spelled as in the text (`tex`, `wgmma`, ...).
    Other(String),
}

impl Opcode {
    const KNOWN: [(&'static str, Opcode); 50] = [
        ("abs", Opcode::Abs),
        ("add", Opcode::Add),
        ("and", Opcode::And),
        ("atom", Opcode::Atom),
        ("bar", Opcode::Bar),
        ("barrier", Opcode::Barrier),
        ("bfe", Opcode::Bfe),
        ("bfi", Opcode::Bfi),
        ("bra", Opcode::Bra),
        ("brev", Opcode::Brev),
        ("call", Opcode::Call),
        ("clz", Opcode::Clz),
        ("cp", Opcode::Cp),
        ("cvt", Opcode::Cvt),
        ("cvta", Opcode::Cvta),
        ("div", Opcode::Div),
        ("elect", Opcode::Elect),
        ("exit", Opcode::Exit),
        ("fence", Opcode::Fence),
        ("fma", Opcode::Fma),
        ("ld", Opcode::Ld),
        ("mad", Opcode::Mad),
        ("mapa", Opcode::Mapa),
        ("max", Opcode::Max),
        ("mbarrier", Opcode::Mbarrier),
        ("membar", Opcode::Membar),
        ("min", Opcode::Min),
        ("mov", Opcode::Mov),
        ("mul", Opcode::Mul),
        ("nanosleep", Opcode::Nanosleep),
        ("neg", Opcode::Neg),
        ("not", Opcode::Not),
        ("or", Opcode::Or),
        ("popc", Opcode::Popc),
        ("rcp", Opcode::Rcp),
        ("red", Opcode::Red),
        ("rem", Opcode::Rem),
        ("ret", Opcode::Ret),
        ("rsqrt", Opcode::Rsqrt),
        ("selp", Opcode::Selp),
        ("setp", Opcode::Setp),
        ("shl", Opcode::Shl),
        ("shfl", Opcode::Shfl),
        ("shr", Opcode::Shr),
        ("sqrt", Opcode::Sqrt),
        ("st", Opcode::St),
        ("sub", Opcode::Sub),
        ("trap", Opcode::Trap),
        ("vote", Opcode::Vote),
        ("xor", Opcode::Xor),
    ];

    /// The opcode spelled `name` (the first dotted part of an instruction): a known one, or
    /// [`Opcode::Other`].
    pub fn from_name(name: &str) -> Opcode {
        Opcode::KNOWN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, op)| op.clone())
            .unwrap_or_else(|| Opcode::Other(name.to_string()))
    }

    /// The opcode as written: `mbarrier`.
    pub fn name(&self) -> &str {
        match self {
            Opcode::Other(name) => name,
            known => Opcode::KNOWN
                .iter()
                .find(|(_, op)| op == known)
                .map(|(n, _)| *n)
                .unwrap_or("?"),
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `@%p` or `@!%p` in front of an instruction.
#[derive(Clone, Debug, Eq, PartialEq, Hash)]
pub struct Guard {
    /// `@!%p`: the instruction runs where the predicate is false.
    pub negated: bool,
    /// The predicate register, with its `%`.
    pub pred: String,
}

/// One instruction: `@!%p1 mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar0], 0;`
/// is opcode `mbarrier`, modifiers `try_wait parity shared::cta b64`, three operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// `@%p` or `@!%p`: the threads that run the instruction (PTX ISA §9.3); `None` for all
    /// threads.
    pub guard: Option<Guard>,
    /// What the instruction does, before the first dot.
    pub opcode: Opcode,
    /// The dotted suffixes in order, without dots (`sync`, `aligned`, `shared::cta`, `u32`).
    pub modifiers: Vec<String>,
    /// The operands in order, destination first.
    pub operands: Vec<Operand>,
}

impl Instruction {
    /// An unguarded instruction; `modifiers` without dots, in order.
    pub fn new(opcode: Opcode, modifiers: &[&str], operands: Vec<Operand>) -> Self {
        Instruction {
            guard: None,
            opcode,
            modifiers: modifiers.iter().map(|m| m.to_string()).collect(),
            operands,
        }
    }
    /// The same instruction under `guard`.
    pub fn guarded(mut self, guard: Option<Guard>) -> Self {
        self.guard = guard;
        self
    }
    /// Whether `modifier` (without the dot) is among the instruction's modifiers.
    pub fn has(&self, modifier: &str) -> bool {
        self.modifiers.iter().any(|m| m == modifier)
    }
    /// The full dotted name: `mbarrier.try_wait.parity.shared::cta.b64`.
    pub fn full_name(&self) -> String {
        let mut s = self.opcode.name().to_string();
        for m in &self.modifiers {
            s.push('.');
            s.push_str(m);
        }
        s
    }
    /// The last modifier that names a type (`u32` in `setp.lt.u32`).
    pub fn scalar_type(&self) -> Option<ScalarType> {
        self.modifiers
            .iter()
            .rev()
            .find_map(|m| ScalarType::from_name(m))
    }
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register: `%r1`, `%rd2`, `%p3`, or a named one such as `%tid.x` (see [`SpecialReg`]).
    Reg(String),
    /// An immediate.
    Imm(Imm),
    /// A variable, function or label name (`bar0`, `$L__BB0_2`).
    Symbol(String),
    /// `symbol+offset` outside brackets (`mov.u64 %rd1, tile+16`).
    SymbolOffset(String, i64),
    /// `[base+offset]`.
    Address(Address),
    /// `[tensorMap, {coords}]`: the operand of `cp.async.bulk.tensor` and
    /// `cp.reduce.async.bulk.tensor` that names a tensor map (its address: a `.param`, `.const`
    /// or `.global` variable, or a register holding a generic address) and the coordinates of
    /// the box in the tensor (PTX ISA §9.7.9.25.5.2). Texture and surface instructions write
    /// their `[handle, {coords}]` operand the same way.
    TensorAddress(Address, Vec<Operand>),
    /// `{%f1, %f2, %f3, %f4}`.
    Vector(Vec<Operand>),
    /// `!%p1` (negated predicate source).
    Not(Box<Operand>),
    /// `%r8|%p7`: a value and a predicate destination.
    Pair(Box<Operand>, Box<Operand>),
    /// `_`: the sink.
    Sink,
    /// `(a, b)`: a parenthesised list (the argument lists of `call`).
    List(Vec<Operand>),
}

impl Operand {
    /// A register operand, `%r1` (with the `%`).
    pub fn reg(name: impl Into<String>) -> Operand {
        Operand::Reg(name.into())
    }
    /// An integer immediate.
    pub fn int(value: i64) -> Operand {
        Operand::Imm(Imm::Int(value))
    }
    /// A variable, function or label name.
    pub fn sym(name: impl Into<String>) -> Operand {
        Operand::Symbol(name.into())
    }
    /// The register's name, if the operand is a plain register.
    pub fn as_reg(&self) -> Option<&str> {
        match self {
            Operand::Reg(r) => Some(r),
            _ => None,
        }
    }
    /// The value, if the operand is an integer immediate.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Operand::Imm(Imm::Int(v)) => Some(*v),
            _ => None,
        }
    }
}

/// An immediate value. Integers keep their 64-bit pattern; floats keep their exact bits.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Imm {
    /// An integer (`42`, `0x2a`, `-1`), as its 64-bit pattern.
    Int(i64),
    /// `0fXXXXXXXX`.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`.
    F64(u64),
}

/// A memory operand `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Address {
    /// The register or symbol the address starts from.
    pub base: AddressBase,
    /// The byte offset added to the base; the address itself for [`AddressBase::Absolute`].
    pub offset: i64,
}

/// What a memory operand's address starts from (PTX ISA §6.4.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressBase {
    /// A register holding an address: `[%rd1+8]`.
    Reg(String),
    /// A variable's address: `[tile+16]`.
    Symbol(String),
    /// An absolute address `[1024]`.
    Absolute,
}

/// Special registers phasegate gives meaning to.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum SpecialReg {
    /// `%tid`: the thread's index in its CTA.
    Tid(Dim),
    /// `%ntid`: the CTA's dimensions.
    Ntid(Dim),
    /// `%ctaid`: the CTA's index in the grid.
    Ctaid(Dim),
    /// `%nctaid`: the grid's dimensions, in CTAs.
    Nctaid(Dim),
    /// `%clusterid`: the cluster's index in the grid.
    ClusterId(Dim),
    /// `%nclusterid`: the grid's dimensions, in clusters.
    NClusterId(Dim),
    /// `%cluster_ctaid`: the CTA's index in its cluster.
    ClusterCtaid(Dim),
    /// `%cluster_nctaid`: the cluster's dimensions, in CTAs.
    ClusterNctaid(Dim),
    /// `%cluster_ctarank`: the CTA's linear rank in its cluster, what `mapa` takes.
    ClusterCtaRank,
    /// `%cluster_nctarank`: the number of CTAs in the cluster.
    ClusterNctaRank,
    /// `%is_explicit_cluster`: whether the launch asked for clusters.
    IsExplicitCluster,
    /// `%laneid`: the thread's lane in its warp, 0 to 31.
    LaneId,
    /// `%warpid`: the warp's slot on the SM; it can change during a run, so it is no thread index.
    WarpId,
    /// `%nwarpid`: the number of warp identifiers of an SM.
    NWarpId,
    /// `%smid`: the SM the thread runs on; it can change during a run.
    SmId,
    /// `%nsmid`: the number of SM identifiers, which may exceed the number of SMs.
    NSmId,
    /// `%gridid`: the launch's temporal identifier.
    GridId,
    /// `%clock`: a 32-bit cycle counter.
    Clock,
    /// `%clock64`: a 64-bit cycle counter.
    Clock64,
    /// `%globaltimer`: a 64-bit nanosecond timer.
    GlobalTimer,
    /// `%globaltimer_lo`: the lower 32 bits of `%globaltimer`.
    GlobalTimerLo,
    /// `%globaltimer_hi`: the upper 32 bits of `%globaltimer`.
    GlobalTimerHi,
    /// `%lanemask_eq`: the bit of the thread's own lane.
    LaneMaskEq,
    /// `%lanemask_lt`: the bits of the lanes below the thread's.
    LaneMaskLt,
    /// `%lanemask_le`: the bits of the lanes up to and including the thread's.
    LaneMaskLe,
    /// `%lanemask_gt`: the bits of the lanes above the thread's.
    LaneMaskGt,
    /// `%lanemask_ge`: the bits of the lanes from the thread's up.
    LaneMaskGe,
    /// `%dynamic_smem_size`: the dynamic shared memory of the launch, in bytes.
    DynamicSmemSize,
    /// `%total_smem_size`: the shared memory of the CTA, static and dynamic, in bytes.
    TotalSmemSize,
}

/// A dimension of a three-dimensional special register (`%tid.x`).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Dim {
    /// `.x`.
    X,
    /// `.y`.
    Y,
    /// `.z`.
    Z,
}

impl Dim {
    /// The suffix without the dot: `x`.
    pub fn suffix(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }
}

impl SpecialReg {
    /// The register's name as written in PTX: `%tid.x`.
    pub fn name(self) -> String {
        let dim = |base: &str, d: Dim| format!("%{base}.{}", d.suffix());
        match self {
            SpecialReg::Tid(d) => dim("tid", d),
            SpecialReg::Ntid(d) => dim("ntid", d),
            SpecialReg::Ctaid(d) => dim("ctaid", d),
            SpecialReg::Nctaid(d) => dim("nctaid", d),
            SpecialReg::ClusterId(d) => dim("clusterid", d),
            SpecialReg::NClusterId(d) => dim("nclusterid", d),
            SpecialReg::ClusterCtaid(d) => dim("cluster_ctaid", d),
            SpecialReg::ClusterNctaid(d) => dim("cluster_nctaid", d),
            SpecialReg::ClusterCtaRank => "%cluster_ctarank".into(),
            SpecialReg::ClusterNctaRank => "%cluster_nctarank".into(),
            SpecialReg::IsExplicitCluster => "%is_explicit_cluster".into(),
            SpecialReg::LaneId => "%laneid".into(),
            SpecialReg::WarpId => "%warpid".into(),
            SpecialReg::NWarpId => "%nwarpid".into(),
            SpecialReg::SmId => "%smid".into(),
            SpecialReg::NSmId => "%nsmid".into(),
            SpecialReg::GridId => "%gridid".into(),
            SpecialReg::Clock => "%clock".into(),
            SpecialReg::Clock64 => "%clock64".into(),
            SpecialReg::GlobalTimer => "%globaltimer".into(),
            SpecialReg::GlobalTimerLo => "%globaltimer_lo".into(),
            SpecialReg::GlobalTimerHi => "%globaltimer_hi".into(),
            SpecialReg::LaneMaskEq => "%lanemask_eq".into(),
            SpecialReg::LaneMaskLt => "%lanemask_lt".into(),
            SpecialReg::LaneMaskLe => "%lanemask_le".into(),
            SpecialReg::LaneMaskGt => "%lanemask_gt".into(),
            SpecialReg::LaneMaskGe => "%lanemask_ge".into(),
            SpecialReg::DynamicSmemSize => "%dynamic_smem_size".into(),
            SpecialReg::TotalSmemSize => "%total_smem_size".into(),
        }
    }

    /// Recognises a special register by name (`%ctaid.y`); ordinary registers give `None`.
    pub fn from_name(name: &str) -> Option<SpecialReg> {
        let (base, dim) = match name.rsplit_once('.') {
            Some((b, "x")) => (b, Some(Dim::X)),
            Some((b, "y")) => (b, Some(Dim::Y)),
            Some((b, "z")) => (b, Some(Dim::Z)),
            _ => (name, None),
        };
        Some(match (base, dim) {
            ("%tid", Some(d)) => SpecialReg::Tid(d),
            ("%ntid", Some(d)) => SpecialReg::Ntid(d),
            ("%ctaid", Some(d)) => SpecialReg::Ctaid(d),
            ("%nctaid", Some(d)) => SpecialReg::Nctaid(d),
            ("%clusterid", Some(d)) => SpecialReg::ClusterId(d),
            ("%nclusterid", Some(d)) => SpecialReg::NClusterId(d),
            ("%cluster_ctaid", Some(d)) => SpecialReg::ClusterCtaid(d),
            ("%cluster_nctaid", Some(d)) => SpecialReg::ClusterNctaid(d),
            ("%cluster_ctarank", None) => SpecialReg::ClusterCtaRank,
            ("%cluster_nctarank", None) => SpecialReg::ClusterNctaRank,
            ("%is_explicit_cluster", None) => SpecialReg::IsExplicitCluster,
            ("%laneid", None) => SpecialReg::LaneId,
            ("%warpid", None) => SpecialReg::WarpId,
            ("%nwarpid", None) => SpecialReg::NWarpId,
            ("%smid", None) => SpecialReg::SmId,
            ("%nsmid", None) => SpecialReg::NSmId,
            ("%gridid", None) => SpecialReg::GridId,
            ("%clock", None) => SpecialReg::Clock,
            ("%clock64", None) => SpecialReg::Clock64,
            ("%globaltimer", None) => SpecialReg::GlobalTimer,
            ("%globaltimer_lo", None) => SpecialReg::GlobalTimerLo,
            ("%globaltimer_hi", None) => SpecialReg::GlobalTimerHi,
            ("%lanemask_eq", None) => SpecialReg::LaneMaskEq,
            ("%lanemask_lt", None) => SpecialReg::LaneMaskLt,
            ("%lanemask_le", None) => SpecialReg::LaneMaskLe,
            ("%lanemask_gt", None) => SpecialReg::LaneMaskGt,
            ("%lanemask_ge", None) => SpecialReg::LaneMaskGe,
            ("%dynamic_smem_size", None) => SpecialReg::DynamicSmemSize,
            ("%total_smem_size", None) => SpecialReg::TotalSmemSize,
            _ => return None,
        })
    }

    /// The width of the register in bits: 64 for `%gridid`, `%clock64` and `%globaltimer`,
    /// 1 (a predicate) for `%is_explicit_cluster`, 32 otherwise (§10).
    pub fn bits(self) -> u8 {
        match self {
            SpecialReg::GridId | SpecialReg::Clock64 | SpecialReg::GlobalTimer => 64,
            SpecialReg::IsExplicitCluster => 1,
            _ => 32,
        }
    }

    /// Whether reading the register observes time (`%clock`, `%clock64`, `%globaltimer` and
    /// its halves): such reads are not a pure function of the thread's position in the grid.
    pub fn is_timer(self) -> bool {
        matches!(
            self,
            SpecialReg::Clock
                | SpecialReg::Clock64
                | SpecialReg::GlobalTimer
                | SpecialReg::GlobalTimerLo
                | SpecialReg::GlobalTimerHi
        )
    }
}
