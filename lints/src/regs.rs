//! Registers as variables: every register name of a body resolved to a [`VarId`], respecting
//! the nested `{ .reg .pred p; ... }` scopes that nvcc's inline assembly opens, with the
//! definitions and uses of each instruction.
//!
//! Why scopes matter: nvcc names the temporaries of every inlined `asm` block alike (`p`, `st`);
//! read as one variable, unrelated waits and arrives would look like one value.

use phasegate_ptx::{AddressBase, Body, Instruction, Opcode, Operand, Statement, StmtId};
use std::collections::HashMap;
use std::rc::Rc;

/// A variable of a body: one register name in one scope, an index into the tables of [`Vars`].
pub type VarId = u32;

/// A source operand that is a register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Src {
    /// An ordinary register, resolved to its variable.
    Var(VarId),
    /// A special register (`%tid.x`, `%cluster_ctarank`, `%lanemask_le`).
    Special(Rc<str>),
}

/// Whether a name is a special register: `SpecialReg` knows the ones phasegate gives meaning
/// to; the others (`%lanemask_le`, `%pm0`, `%envreg3`, ...) are recognised too so that they are
/// never mistaken for variables. Names without `%` (inline-asm registers) never are.
pub fn is_special(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('%') else {
        return false;
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
        .unwrap_or(rest.len());
    let (letters, tail) = rest.split_at(end);
    let digits = !tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit() || c == '_');
    match letters {
        "tid" | "ntid" | "ctaid" | "nctaid" | "clusterid" | "nclusterid" | "cluster_ctaid"
        | "cluster_nctaid" => tail.starts_with('.') || tail.is_empty(),
        "laneid"
        | "warpid"
        | "nwarpid"
        | "smid"
        | "nsmid"
        | "gridid"
        | "cluster_ctarank"
        | "cluster_nctarank"
        | "is_explicit_cluster"
        | "total_smem_size"
        | "aggr_smem_size"
        | "dynamic_smem_size"
        | "current_graph_exec"
        | "clock_hi"
        | "globaltimer_lo"
        | "globaltimer_hi" => tail.is_empty(),
        "clock" | "globaltimer" => tail.is_empty() || tail == "64",
        "pm" | "envreg" => digits,
        _ => letters.starts_with("lanemask_") || letters.starts_with("reserved_smem_offset"),
    }
}

/// FNV-1a: the register maps hash short names, many times; SipHash is slower for that.
#[derive(Default, Clone, Copy)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A hash map with the [`Fnv`] hasher, for maps keyed by register names.
pub type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

fn name_hash(name: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = Fnv::default();
    h.write(name.as_bytes());
    h.finish()
}

/// How many leading operands of an instruction are destinations (0 or 1; a vector or a
/// `d|p` pair counts as one operand).
pub fn dest_count(inst: &Instruction) -> usize {
    let has = |m: &str| inst.has(m);
    match &inst.opcode {
        Opcode::St
        | Opcode::Bra
        | Opcode::Ret
        | Opcode::Exit
        | Opcode::Trap
        | Opcode::Membar
        | Opcode::Fence
        | Opcode::Nanosleep
        | Opcode::Red
        | Opcode::Cp
        | Opcode::Call => 0,
        Opcode::Bar | Opcode::Barrier => usize::from(has("red")),
        Opcode::Mbarrier => usize::from(
            !(has("init")
                || has("inval")
                || has("expect_tx") && !has("arrive") && !has("arrive_drop")
                || has("complete_tx")),
        ),
        Opcode::Other(name) => match name.as_str() {
            "stmatrix" | "prefetch" | "prefetchu" | "setmaxnreg" | "griddepcontrol" | "pmevent"
            | "sust" | "sured" | "discard" | "applypriority" | "brkpt" | "tensormap" | "cp"
            | "bar" | "barrier" => 0,
            "wgmma" => usize::from(!(has("fence") || has("commit_group") || has("wait_group"))),
            "tcgen05" => usize::from(has("ld")),
            "wmma" => usize::from(!has("store")),
            "multimem" => usize::from(has("ld_reduce")),
            "st" => 0,
            _ => 1,
        },
        _ => 1,
    }
}

#[derive(Clone, Debug, Default)]
struct Scope {
    parent: Option<usize>,
    names: FastMap<String, VarId>,
    /// Register ranges declared in this scope (`r<4>`: `r` → 4, the largest count when a
    /// prefix is declared twice). Their names get a variable when first named, so that a
    /// range costs nothing until used: `.reg .b32 r<4000000000>;` declares four billion names.
    ranges: FastMap<String, u32>,
}

impl Scope {
    /// Whether `name` is one of this scope's ranges (`r3` under `r<4>`).
    fn in_range(&self, name: &str) -> bool {
        !self.ranges.is_empty()
            && range_member(name).is_some_and(|(prefix, index)| {
                self.ranges.get(prefix).is_some_and(|&count| index < count)
            })
    }
}

/// `r12` → (`r`, 12): the prefix and index of a name of a register range. `r<4>` declares
/// `r0` to `r3`; `r03` and `r` are other names.
fn range_member(name: &str) -> Option<(&str, u32)> {
    let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let digits = &name[prefix.len()..];
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    Some((prefix, digits.parse().ok()?))
}

/// Variables of one body, with the definitions and uses of each statement.
#[derive(Clone, Debug, Default)]
pub struct Vars {
    names: Vec<String>,
    global: FastMap<String, VarId>,
    /// Per statement: the registers it names, resolved (by name hash).
    resolved: Vec<Vec<(u64, Box<str>, Src)>>,
    scopes: Vec<Scope>,
    /// The scope of each statement.
    scope_of: Vec<usize>,
    /// Per statement: defined variables.
    defs: Vec<Vec<VarId>>,
    /// Per statement: register sources (guard first when present).
    uses: Vec<Vec<Src>>,
    def_sites: Vec<Vec<StmtId>>,
    use_sites: Vec<Vec<StmtId>>,
    /// The statement being read (while building).
    current: usize,
}

impl Vars {
    /// Resolves every register of `body` to a variable, scope by scope, and records each
    /// statement's definitions and uses.
    pub fn new(body: &Body) -> Vars {
        let mut v = Vars {
            scopes: vec![Scope::default()],
            ..Vars::default()
        };
        let n = body.len();
        v.scope_of = vec![0; n];
        v.defs = vec![Vec::new(); n];
        v.uses = vec![Vec::new(); n];
        v.resolved = vec![Vec::new(); n];
        let mut cur = 0usize;
        for (id, stmt) in body.iter() {
            match stmt {
                Statement::ScopeOpen => {
                    v.scopes.push(Scope {
                        parent: Some(cur),
                        ..Scope::default()
                    });
                    cur = v.scopes.len() - 1;
                }
                Statement::ScopeClose => {
                    cur = v.scopes[cur].parent.unwrap_or(0);
                }
                Statement::Decl(decl)
                    if cur != 0 && decl.space == phasegate_ptx::StateSpace::Reg =>
                {
                    // A scoped register declaration shadows the outer name; a range's names
                    // get their variables when first named (`lookup`).
                    match decl.range {
                        Some(count) => {
                            let known = v.scopes[cur].ranges.entry(decl.name.clone()).or_default();
                            *known = (*known).max(count);
                        }
                        None => {
                            let var = v.new_var(&decl.name);
                            v.scopes[cur].names.insert(decl.name.clone(), var);
                        }
                    }
                }
                Statement::Instruction(inst) => {
                    v.scope_of[id.index()] = cur;
                    v.current = id.index();
                    let mut uses = Vec::new();
                    if let Some(g) = &inst.guard {
                        uses.push(v.src(cur, &g.pred));
                    }
                    let nd = dest_count(inst);
                    let mut defs = Vec::new();
                    for (i, op) in inst.operands.iter().enumerate() {
                        if i < nd {
                            v.collect_defs(cur, op, &mut defs, &mut uses);
                        } else {
                            v.collect_uses(cur, op, &mut uses);
                        }
                    }
                    for &d in &defs {
                        v.def_sites[d as usize].push(id);
                    }
                    for u in &uses {
                        if let Src::Var(x) = u {
                            let sites = &mut v.use_sites[*x as usize];
                            if sites.last() != Some(&id) {
                                sites.push(id);
                            }
                        }
                    }
                    v.defs[id.index()] = defs;
                    v.uses[id.index()] = uses;
                }
                _ => {
                    v.scope_of[id.index()] = cur;
                }
            }
        }
        v
    }

    fn new_var(&mut self, name: &str) -> VarId {
        let var = self.names.len() as VarId;
        self.names.push(name.to_string());
        self.def_sites.push(Vec::new());
        self.use_sites.push(Vec::new());
        var
    }

    fn lookup(&mut self, scope: usize, name: &str) -> VarId {
        let mut s = Some(scope);
        while let Some(i) = s {
            if let Some(&var) = self.scopes[i].names.get(name) {
                return var;
            }
            if self.scopes[i].in_range(name) {
                let var = self.new_var(name);
                self.scopes[i].names.insert(name.to_string(), var);
                return var;
            }
            s = self.scopes[i].parent;
        }
        if let Some(&var) = self.global.get(name) {
            return var;
        }
        let var = self.new_var(name);
        self.global.insert(name.to_string(), var);
        var
    }

    fn src(&mut self, scope: usize, name: &str) -> Src {
        let src = if is_special(name) {
            Src::Special(Rc::from(name))
        } else {
            Src::Var(self.lookup(scope, name))
        };
        self.remember(name, &src);
        src
    }

    fn remember(&mut self, name: &str, src: &Src) {
        let h = name_hash(name);
        if let Some(list) = self.resolved.get_mut(self.current)
            && !list.iter().any(|(x, n, _)| *x == h && **n == *name)
        {
            list.push((h, Box::from(name), src.clone()));
        }
    }

    fn collect_defs(
        &mut self,
        scope: usize,
        op: &Operand,
        defs: &mut Vec<VarId>,
        uses: &mut Vec<Src>,
    ) {
        match op {
            Operand::Reg(name) => {
                if !is_special(name) {
                    let var = self.lookup(scope, name);
                    self.remember(name, &Src::Var(var));
                    defs.push(var);
                }
            }
            Operand::Vector(items) | Operand::List(items) => {
                for item in items {
                    self.collect_defs(scope, item, defs, uses);
                }
            }
            Operand::Pair(a, b) => {
                self.collect_defs(scope, a, defs, uses);
                self.collect_defs(scope, b, defs, uses);
            }
            // `[addr]` as a destination (not expected): its base is read.
            other => self.collect_uses(scope, other, uses),
        }
    }

    fn collect_uses(&mut self, scope: usize, op: &Operand, uses: &mut Vec<Src>) {
        match op {
            Operand::Reg(name) => {
                let s = self.src(scope, name);
                uses.push(s);
            }
            Operand::Address(addr) => {
                if let AddressBase::Reg(name) = &addr.base {
                    let s = self.src(scope, name);
                    uses.push(s);
                }
            }
            Operand::TensorAddress(map, coords) => {
                if let AddressBase::Reg(name) = &map.base {
                    let s = self.src(scope, name);
                    uses.push(s);
                }
                for item in coords {
                    self.collect_uses(scope, item, uses);
                }
            }
            Operand::Vector(items) | Operand::List(items) => {
                for item in items {
                    self.collect_uses(scope, item, uses);
                }
            }
            Operand::Not(inner) => self.collect_uses(scope, inner, uses),
            Operand::Pair(a, b) => {
                self.collect_uses(scope, a, uses);
                self.collect_uses(scope, b, uses);
            }
            Operand::Imm(_) | Operand::Symbol(_) | Operand::SymbolOffset(..) | Operand::Sink => {}
        }
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the body names no register.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The register name of `var`, for messages (`?` for an id that is not of this body).
    pub fn name(&self, var: VarId) -> &str {
        self.names
            .get(var as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Resolves a register name as it stands in statement `stmt`; `None` when the name was never
    /// seen in the body (it is then not a variable of it).
    pub fn resolve(&self, stmt: StmtId, name: &str) -> Option<Src> {
        if let Some(list) = self.resolved.get(stmt.index()) {
            let h = name_hash(name);
            if let Some((_, _, src)) = list.iter().find(|(x, n, _)| *x == h && **n == *name) {
                return Some(src.clone());
            }
        }
        if is_special(name) {
            return Some(Src::Special(Rc::from(name)));
        }
        let mut s = self.scope_of.get(stmt.index()).copied();
        while let Some(i) = s {
            if let Some(&var) = self.scopes[i].names.get(name) {
                return Some(Src::Var(var));
            }
            if self.scopes[i].in_range(name) {
                // Declared here but never named in the body.
                return None;
            }
            s = self.scopes[i].parent;
        }
        self.global.get(name).map(|&v| Src::Var(v))
    }

    /// The variable a register operand names in `stmt`.
    pub fn var_of(&self, stmt: StmtId, op: &Operand) -> Option<VarId> {
        match op {
            Operand::Reg(name) => match self.resolve(stmt, name)? {
                Src::Var(v) => Some(v),
                Src::Special(_) => None,
            },
            _ => None,
        }
    }

    /// The variables `stmt` writes.
    pub fn defs(&self, stmt: StmtId) -> &[VarId] {
        self.defs
            .get(stmt.index())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The registers `stmt` reads, its guard first.
    pub fn uses(&self, stmt: StmtId) -> &[Src] {
        self.uses
            .get(stmt.index())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The statements that write `var`, in text order.
    pub fn def_sites(&self, var: VarId) -> &[StmtId] {
        self.def_sites
            .get(var as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The statements that read `var`, in text order.
    pub fn use_sites(&self, var: VarId) -> &[StmtId] {
        self.use_sites
            .get(var as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}
