//! Basic blocks and the control-flow graph of one function body.
//!
//! The body stays flat (the model is never changed): a block is a range of [`StmtId`]s. A block
//! starts at a label or after a statement that ends one (`bra`, `ret`, `exit`, `trap`, `brx.idx`,
//! and a guarded `ret`/`exit`, which may fall through). A virtual exit node, numbered
//! `blocks.len()`, follows every `ret`/`exit`/`trap`, so that post-dominators have one root.
//!
//! Why a virtual exit and not "the last block": nvcc writes one `ret` at the end, hand-written
//! PTX may have several, and `@%p exit;` leaves from the middle of a block.

use phasegate_ptx::{Body, Guard, Instruction, Labels, Opcode, Operand, Statement, StmtId};

/// Index of a basic block in [`Cfg::blocks`]; `Cfg::exit()` is the virtual exit.
pub type BlockId = usize;

/// How a block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Falls into the next block (the next statement is a label).
    Fallthrough,
    /// `bra L` without guard (or `bra.uni L`).
    Jump {
        /// The statement of the `bra`.
        stmt: StmtId,
    },
    /// `@p bra L`: successor 0 is the target (taken when the guard holds), successor 1 the next
    /// block.
    Branch {
        /// The statement of the `bra`.
        stmt: StmtId,
        /// The instruction's guard: the condition for successor 0.
        guard: Guard,
    },
    /// `ret`, `exit`, `trap` without guard: the only successor is the virtual exit.
    Exit {
        /// The statement of the `ret`, `exit` or `trap`.
        stmt: StmtId,
    },
    /// `@p ret` / `@p exit`: successor 0 is the virtual exit (taken when the guard holds),
    /// successor 1 the next block.
    GuardedExit {
        /// The statement of the `ret`, `exit` or `trap`.
        stmt: StmtId,
        /// The instruction's guard: the condition for successor 0.
        guard: Guard,
    },
    /// `brx.idx` or a branch to a label that is not in the body: successors are every label it
    /// names that exists (none leads to the exit).
    Indirect {
        /// The statement of the `brx.idx` or `bra`.
        stmt: StmtId,
    },
    /// The body ends without `ret` (falls off the end): the virtual exit follows.
    End,
}

/// A basic block: a range of statements that run in order, entered only at the first and left only
/// at the last.
#[derive(Clone, Debug)]
pub struct Block {
    /// First statement (inclusive).
    pub start: u32,
    /// One past the last statement.
    pub end: u32,
    /// How the block ends, which decides its successors.
    pub term: Terminator,
    /// The blocks control may go to next, the virtual exit included; for a branch, the target
    /// first.
    pub succs: Vec<BlockId>,
    /// The blocks that may come before this one.
    pub preds: Vec<BlockId>,
    /// The block ends in `trap` (guarded or not): its edge to the virtual exit aborts the whole
    /// grid rather than letting threads leave while others go on, so analyses that ask what
    /// every thread still does (post-dominance) leave that edge out.
    pub traps: bool,
}

impl Block {
    /// The block's statements in order.
    pub fn stmts(&self) -> impl Iterator<Item = StmtId> + use<> {
        (self.start..self.end).map(StmtId)
    }
}

/// The control-flow graph of a function body.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// The basic blocks in text order; block 0 is the entry.
    pub blocks: Vec<Block>,
    /// The block of each statement.
    block_of: Vec<BlockId>,
    /// Successors of the virtual exit are none; its predecessors are the exiting blocks.
    pub exit_preds: Vec<BlockId>,
    /// Blocks in reverse post-order from the entry (unreachable blocks are not listed).
    pub rpo: Vec<BlockId>,
}

/// Whether an instruction ends a function's execution.
pub fn is_exit(inst: &Instruction) -> bool {
    matches!(inst.opcode, Opcode::Ret | Opcode::Exit | Opcode::Trap)
}

fn is_indirect_branch(inst: &Instruction) -> bool {
    matches!(&inst.opcode, Opcode::Other(name) if name == "brx")
}

fn label_target(inst: &Instruction) -> Option<&str> {
    inst.operands.iter().find_map(|op| match op {
        Operand::Symbol(s) => Some(s.as_str()),
        _ => None,
    })
}

impl Cfg {
    /// Splits `body` into blocks and links them, resolving branch labels with PTX's block scoping
    /// (PTX ISA §4.4).
    pub fn new(body: &Body) -> Cfg {
        let stmts = body.statements();
        let n = stmts.len();
        let labels = Labels::new(body);
        // Block leaders.
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for (i, s) in stmts.iter().enumerate() {
            match s {
                Statement::Label(_) => leader[i] = true,
                Statement::Instruction(inst) => {
                    if inst.opcode == Opcode::Bra || is_exit(inst) || is_indirect_branch(inst) {
                        leader[i + 1] = true;
                    }
                }
                _ => {}
            }
        }
        let mut blocks: Vec<Block> = Vec::new();
        let mut block_of = vec![0usize; n];
        let mut start = 0u32;
        for i in 1..=n {
            if leader[i] || i == n {
                if (start as usize) < i {
                    let id = blocks.len();
                    for b in block_of.iter_mut().take(i).skip(start as usize) {
                        *b = id;
                    }
                    blocks.push(Block {
                        start,
                        end: i as u32,
                        term: Terminator::End,
                        succs: Vec::new(),
                        preds: Vec::new(),
                        traps: false,
                    });
                }
                start = i as u32;
            }
        }
        let exit = blocks.len();
        let nblocks = blocks.len();
        let block_at = |stmt: u32| -> Option<BlockId> {
            if (stmt as usize) < n {
                Some(block_of[stmt as usize])
            } else {
                None
            }
        };
        let mut exit_preds = Vec::new();
        for b in 0..nblocks {
            let (bstart, bend) = (blocks[b].start, blocks[b].end);
            let next = if b + 1 < nblocks { Some(b + 1) } else { None };
            // The last instruction of the block decides.
            let last = (bstart..bend).rev().find_map(|i| match &stmts[i as usize] {
                Statement::Instruction(inst) => Some((StmtId(i), inst)),
                _ => None,
            });
            let mut succs = Vec::new();
            let term = match last {
                Some((id, inst)) if inst.opcode == Opcode::Bra => {
                    let target = label_target(inst)
                        .and_then(|l| labels.resolve(id, l))
                        .and_then(|s| block_at(s.0));
                    match (target, &inst.guard) {
                        (Some(t), None) => {
                            succs.push(t);
                            Terminator::Jump { stmt: id }
                        }
                        (Some(t), Some(g)) => {
                            succs.push(t);
                            succs.push(next.unwrap_or(exit));
                            Terminator::Branch {
                                stmt: id,
                                guard: g.clone(),
                            }
                        }
                        (None, _) => {
                            // Unknown target: conservatively may go anywhere that is labelled.
                            succs.extend(labels.all().filter_map(|s| block_at(s.0)));
                            if inst.guard.is_some() {
                                succs.push(next.unwrap_or(exit));
                            }
                            Terminator::Indirect { stmt: id }
                        }
                    }
                }
                Some((id, inst)) if is_indirect_branch(inst) => {
                    fn collect(op: &Operand, out: &mut Vec<String>) {
                        match op {
                            Operand::Symbol(s) => out.push(s.clone()),
                            Operand::Vector(v) | Operand::List(v) => {
                                v.iter().for_each(|o| collect(o, out))
                            }
                            _ => {}
                        }
                    }
                    let mut names = Vec::new();
                    inst.operands.iter().for_each(|o| collect(o, &mut names));
                    // A name whose label stands before a `.branchtargets` list means the
                    // labels of the list.
                    let table = |label: StmtId| {
                        stmts[label.index() + 1..]
                            .iter()
                            .find(|s| !matches!(s, Statement::Loc(_)))
                            .and_then(|s| match s {
                                Statement::Directive(d) => d.branch_targets(),
                                _ => None,
                            })
                    };
                    let mut targets: Vec<BlockId> = Vec::new();
                    for name in &names {
                        let Some(label) = labels.resolve(id, name) else {
                            continue;
                        };
                        match table(label) {
                            Some(list) => targets.extend(
                                list.iter()
                                    .filter_map(|l| labels.resolve(label, l))
                                    .filter_map(|s| block_at(s.0)),
                            ),
                            None => targets.extend(block_at(label.0)),
                        }
                    }
                    if targets.is_empty() {
                        // A label table declared elsewhere (`.branchtargets`): any label.
                        targets.extend(labels.all().filter_map(|s| block_at(s.0)));
                    }
                    succs.extend(targets);
                    if inst.guard.is_some() {
                        succs.push(next.unwrap_or(exit));
                    }
                    Terminator::Indirect { stmt: id }
                }
                Some((id, inst)) if is_exit(inst) => match &inst.guard {
                    None => {
                        succs.push(exit);
                        Terminator::Exit { stmt: id }
                    }
                    Some(g) => {
                        succs.push(exit);
                        succs.push(next.unwrap_or(exit));
                        Terminator::GuardedExit {
                            stmt: id,
                            guard: g.clone(),
                        }
                    }
                },
                _ => match next {
                    Some(nb) => {
                        succs.push(nb);
                        Terminator::Fallthrough
                    }
                    None => {
                        succs.push(exit);
                        Terminator::End
                    }
                },
            };
            succs.dedup();
            blocks[b].traps = last.is_some_and(|(_, inst)| inst.opcode == Opcode::Trap);
            if succs.contains(&exit) {
                exit_preds.push(b);
            }
            blocks[b].succs = succs;
            blocks[b].term = term;
        }
        for b in 0..nblocks {
            let succs = blocks[b].succs.clone();
            for s in succs {
                if s < nblocks && !blocks[s].preds.contains(&b) {
                    blocks[s].preds.push(b);
                }
            }
        }
        let rpo = reverse_post_order(
            nblocks,
            |b| {
                blocks[b]
                    .succs
                    .iter()
                    .copied()
                    .filter(|&s| s < nblocks)
                    .collect::<Vec<_>>()
            },
            if nblocks > 0 { Some(0) } else { None },
        );
        Cfg {
            blocks,
            block_of,
            exit_preds,
            rpo,
        }
    }

    /// The virtual exit node.
    pub fn exit(&self) -> BlockId {
        self.blocks.len()
    }

    /// The number of blocks, the virtual exit not counted.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether the body has no statements, and so no blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The block that holds `stmt` (block 0 for a statement outside the body).
    pub fn block_of(&self, stmt: StmtId) -> BlockId {
        self.block_of.get(stmt.index()).copied().unwrap_or(0)
    }

    /// Successors of a block, the virtual exit included.
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.blocks
            .get(b)
            .map(|blk| blk.succs.as_slice())
            .unwrap_or(&[])
    }

    /// Predecessors; for the virtual exit, the exiting blocks.
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        if b == self.exit() {
            &self.exit_preds
        } else {
            self.blocks
                .get(b)
                .map(|blk| blk.preds.as_slice())
                .unwrap_or(&[])
        }
    }

    /// Whether the block is reachable from the entry.
    pub fn reachable(&self) -> Vec<bool> {
        let mut r = vec![false; self.blocks.len() + 1];
        for &b in &self.rpo {
            r[b] = true;
        }
        r[self.exit()] = true;
        r
    }

    /// The guard under which a branch block takes successor 0, if it is a conditional branch or
    /// a guarded exit.
    pub fn branch_guard(&self, b: BlockId) -> Option<(StmtId, &Guard)> {
        match &self.blocks.get(b)?.term {
            Terminator::Branch { stmt, guard } | Terminator::GuardedExit { stmt, guard } => {
                Some((*stmt, guard))
            }
            _ => None,
        }
    }
}

/// Reverse post-order of the nodes reachable from `root`, iteratively (no recursion, so deep
/// graphs cannot overflow the stack).
pub fn reverse_post_order(
    n: usize,
    succs: impl Fn(usize) -> Vec<usize>,
    root: Option<usize>,
) -> Vec<usize> {
    let Some(root) = root else { return Vec::new() };
    let mut visited = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
    visited[root] = true;
    stack.push((root, succs(root), 0));
    while let Some((node, ss, i)) = stack.last_mut() {
        if *i < ss.len() {
            let s = ss[*i];
            *i += 1;
            if s < n && !visited[s] {
                visited[s] = true;
                let next = succs(s);
                stack.push((s, next, 0));
            }
        } else {
            order.push(*node);
            stack.pop();
        }
    }
    order.reverse();
    order
}
