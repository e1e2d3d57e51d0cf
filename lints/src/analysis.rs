//! Everything the lints read about one function, computed once: CFG, dominators,
//! post-dominators, loops, variables, constants, induction variables, uniformity.

use crate::cfg::{BlockId, Cfg};
use crate::consts::{Consts, Induction};
use crate::diagnostic::SourceLoc;
use crate::dom::{DomTree, dominators, post_dominators};
use crate::loops::Loops;
use crate::regs::{VarId, Vars};
use crate::uniformity::Uniformity;
use phasegate_ptx::{Body, Function, Instruction, Module, Statement, StmtId};

/// The analyses of one function with a body, built once by [`FunctionAnalysis::build`] and shared
/// by every lint, so that no lint recomputes the CFG or the uniformity.
pub struct FunctionAnalysis<'a> {
    /// The module, for `.file` names and module-scope variables.
    pub module: &'a Module,
    /// The function analyzed.
    pub function: &'a Function,
    /// Its body (a function without one is not analyzed).
    pub body: &'a Body,
    /// Basic blocks and their edges.
    pub cfg: Cfg,
    /// Dominators over [`FunctionAnalysis::cfg`].
    pub dom: DomTree,
    /// Post-dominators over [`FunctionAnalysis::cfg`], for control dependence.
    pub pdom: DomTree,
    /// Natural loops.
    pub loops: Loops,
    /// Registers resolved to variables, with their definitions and uses.
    pub vars: Vars,
    /// Constants and symbolic values of the variables.
    pub consts: Consts,
    /// Which variables and branches are cluster-, CTA- or warp-uniform, and why not.
    pub uni: Uniformity,
    /// Induction variables per loop (index of `loops.loops`).
    pub inductions: Vec<Vec<Induction>>,
    /// Per statement: the `.loc` in force (index into `locs`).
    loc_of: Vec<Option<u32>>,
    reach: std::cell::RefCell<std::collections::HashMap<BlockId, Vec<bool>>>,
    locs: Vec<StmtId>,
}

impl<'a> FunctionAnalysis<'a> {
    /// `None` for a declaration without body, and for a function whose loops nest past
    /// [`crate::MAX_LOOP_MEMBERSHIPS`] ([`FunctionAnalysis::build`] tells the two apart).
    pub fn new(module: &'a Module, function: &'a Function) -> Option<FunctionAnalysis<'a>> {
        Self::build(module, function).ok().flatten()
    }

    /// `Ok(None)` for a declaration without body; `Err(memberships)` when the loops nest past
    /// [`crate::MAX_LOOP_MEMBERSHIPS`], found before the analyses whose cost grows with the
    /// nesting (control dependence, uniformity) run.
    pub fn build(
        module: &'a Module,
        function: &'a Function,
    ) -> Result<Option<FunctionAnalysis<'a>>, usize> {
        let Some(body) = function.body.as_ref() else {
            return Ok(None);
        };
        let cfg = Cfg::new(body);
        let dom = dominators(&cfg);
        let loops = Loops::new(&cfg, &dom);
        if let Some(members) = loops.over_limit {
            return Err(members);
        }
        let pdom = post_dominators(&cfg);
        let vars = Vars::new(body);
        let consts = Consts::new(body, &vars);
        let uni = Uniformity::new(function, body, &cfg, &pdom, &vars, &consts);
        let inductions = consts.inductions(body, &vars, &cfg, &loops);
        let mut loc_of = vec![None; body.len()];
        let mut locs = Vec::new();
        let mut cur: Option<u32> = None;
        for (id, s) in body.iter() {
            if let Statement::Loc(_) = s {
                locs.push(id);
                cur = Some(locs.len() as u32 - 1);
            }
            loc_of[id.index()] = cur;
        }
        Ok(Some(FunctionAnalysis {
            module,
            function,
            body,
            cfg,
            dom,
            pdom,
            loops,
            vars,
            consts,
            uni,
            inductions,
            loc_of,
            locs,
            reach: Default::default(),
        }))
    }

    /// The instruction at `stmt`; `None` for any other statement.
    pub fn inst(&self, stmt: StmtId) -> Option<&'a Instruction> {
        match self.body.statements().get(stmt.index()) {
            Some(Statement::Instruction(i)) => Some(i),
            _ => None,
        }
    }

    /// The instructions in text order.
    pub fn instructions(&self) -> impl Iterator<Item = (StmtId, &'a Instruction)> + 'a {
        self.body.instructions()
    }

    /// The line of `stmt` in the PTX text; 0 when it was not read from text.
    pub fn line(&self, stmt: StmtId) -> u32 {
        if stmt.index() < self.body.len() {
            self.body.span(stmt).line
        } else {
            0
        }
    }

    /// The source position of a statement from `.loc`: the outermost call site when the code
    /// was inlined (the line of the kernel that the user wrote), with the positions it was
    /// inlined from, innermost first (`corpus.h:52` inside `mbar_arrive`).
    pub fn source(&self, stmt: StmtId) -> Option<(SourceLoc, Vec<SourceLoc>)> {
        let li = (*self.loc_of.get(stmt.index())?)? as usize;
        let Statement::Loc(loc) = self.body.get(self.locs[li]) else {
            return None;
        };
        if loc.line == 0 {
            return None;
        }
        let file = |index: u32| {
            self.module
                .file_name(index)
                .map(str::to_string)
                .unwrap_or_else(|| format!("<file {index}>"))
        };
        let inlined_at = |rest: &Option<String>| -> Option<(u32, u32, u32)> {
            let rest = rest.as_ref()?;
            let pos = rest.find("inlined_at")?;
            let nums: Vec<u32> = rest[pos + "inlined_at".len()..]
                .split(|c: char| !c.is_ascii_digit())
                .filter(|t| !t.is_empty())
                .take(3)
                .filter_map(|t| t.parse().ok())
                .collect();
            (nums.len() >= 2).then(|| (nums[0], nums[1], nums.get(2).copied().unwrap_or(0)))
        };
        // The chain: this .loc, then each inlined_at position, found again (with its own
        // inlined_at) among the .loc lines before it.
        let mut chain = vec![(loc.file, loc.line, loc.col)];
        let mut next = inlined_at(&loc.rest);
        let mut search_from = li;
        while let Some(pos) = next {
            if chain.len() > 16 || chain.contains(&pos) {
                break;
            }
            chain.push(pos);
            next = None;
            for k in (0..search_from).rev() {
                if let Statement::Loc(l) = self.body.get(self.locs[k])
                    && (l.file, l.line, l.col) == pos
                {
                    next = inlined_at(&l.rest);
                    search_from = k;
                    break;
                }
            }
        }
        let to_loc = |(f, l, c): (u32, u32, u32)| SourceLoc {
            file: file(f),
            line: l,
            col: c,
        };
        let outer = to_loc(*chain.last()?);
        let inner: Vec<SourceLoc> = chain[..chain.len() - 1]
            .iter()
            .map(|&p| to_loc(p))
            .collect();
        Some((outer, inner))
    }

    /// The basic block that holds `stmt`.
    pub fn block(&self, stmt: StmtId) -> BlockId {
        self.cfg.block_of(stmt)
    }

    /// The induction variable `var` of a loop containing block `b` (innermost first).
    pub fn induction_of(&self, var: VarId, b: BlockId) -> Option<(usize, Induction)> {
        for l in self.loops.nest(b) {
            if let Some(ind) = self.inductions[l].iter().find(|i| i.var == var) {
                return Some((l, *ind));
            }
        }
        None
    }

    /// Whether statement `a` comes before `b` on every path to `b` (block dominance, or text
    /// order inside one block).
    pub fn stmt_dominates(&self, a: StmtId, b: StmtId) -> bool {
        let (ba, bb) = (self.block(a), self.block(b));
        if ba == bb {
            a <= b
        } else {
            self.dom.dominates(ba, bb)
        }
    }

    /// Whether `b` can be reached from `a` along the CFG (a later statement in the same block
    /// is reached; `a` itself only through a cycle).
    pub fn reaches(&self, a: StmtId, b: StmtId) -> bool {
        let (ba, bb) = (self.block(a), self.block(b));
        if ba == bb && a < b {
            return true;
        }
        // Blocks reachable from a block's successors, computed once per block (the lints ask
        // about few blocks, many times).
        let mut cache = self.reach.borrow_mut();
        let set = cache.entry(ba).or_insert_with(|| {
            let n = self.cfg.len();
            let mut seen = vec![false; n];
            let mut stack: Vec<BlockId> = self
                .cfg
                .succs(ba)
                .iter()
                .copied()
                .filter(|&s| s < n)
                .collect();
            while let Some(x) = stack.pop() {
                if seen[x] {
                    continue;
                }
                seen[x] = true;
                stack.extend(
                    self.cfg
                        .succs(x)
                        .iter()
                        .copied()
                        .filter(|&s| s < n && !seen[s]),
                );
            }
            seen
        });
        set.get(bb).copied().unwrap_or(false)
    }
}
