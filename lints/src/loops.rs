//! Natural loops: a back edge `t -> h` (where `h` dominates `t`) makes `h` a loop header; the
//! loop's body is `h` and every block that reaches `t` without passing `h`. Loops with one
//! header are merged. Edges into a block that does not dominate their source (irreducible
//! flow) make no loop: the uniformity analysis still sees their control dependence.

use crate::cfg::{BlockId, Cfg};
use crate::dom::DomTree;

/// A natural loop: the blocks that can repeat through back edges to one header.
#[derive(Clone, Debug)]
pub struct Loop {
    /// The block every iteration starts at; it dominates the whole body.
    pub header: BlockId,
    /// Blocks of the loop, the header included, sorted.
    pub body: Vec<BlockId>,
    /// Sources of the back edges.
    pub latches: Vec<BlockId>,
    /// Edges that leave the loop: (block inside, successor index, block outside).
    pub exits: Vec<(BlockId, usize, BlockId)>,
    /// The smallest loop that contains this one.
    pub parent: Option<usize>,
}

impl Loop {
    /// Whether block `b` is in the loop (nested loops' blocks included).
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.binary_search(&b).is_ok()
    }
}

/// The most block-in-loop memberships (the sum of the loops' body sizes) the analysis builds.
/// Real kernels nest a few loops deep, so the sum stays within a few times the number of
/// blocks (a 200,000-statement kernel has about 20,000 blocks); only loops nested thousands
/// deep, which no compiler emits, come near it. Past it the function is not analyzed and
/// gets the `analysis_limit` error: the memberships are what grows quadratically with depth.
pub const MAX_LOOP_MEMBERSHIPS: usize = 4_000_000;

/// The natural loops of a function, and the innermost loop of each block.
#[derive(Clone, Debug, Default)]
pub struct Loops {
    /// The loops; [`Loop::parent`] and the analyses' per-loop tables index into it.
    pub loops: Vec<Loop>,
    /// The innermost loop of each block.
    innermost: Vec<Option<usize>>,
    /// `Some(memberships)` when building stopped at [`MAX_LOOP_MEMBERSHIPS`]: the function has
    /// no loops recorded and must not be analyzed.
    pub over_limit: Option<usize>,
}

impl Loops {
    /// Finds the loops of `cfg` from its back edges; stops, with [`Loops::over_limit`] set, past
    /// [`MAX_LOOP_MEMBERSHIPS`].
    pub fn new(cfg: &Cfg, dom: &DomTree) -> Loops {
        let n = cfg.len();
        let mut headers: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        let mut header_index = vec![usize::MAX; n];
        for &t in &cfg.rpo {
            for &h in cfg.succs(t) {
                if h < n && dom.dominates(h, t) {
                    if header_index[h] == usize::MAX {
                        header_index[h] = headers.len();
                        headers.push((h, Vec::new()));
                    }
                    headers[header_index[h]].1.push(t);
                }
            }
        }
        let mut loops = Vec::new();
        let mut mark = vec![usize::MAX; n];
        let mut members = 0usize;
        for (li, (h, latches)) in headers.into_iter().enumerate() {
            let mut body = vec![h];
            mark[h] = li;
            let mut stack: Vec<BlockId> = latches.iter().copied().filter(|&t| t != h).collect();
            for &t in &stack {
                mark[t] = li;
            }
            body.extend(stack.iter().copied());
            while let Some(x) = stack.pop() {
                for &p in cfg.preds(x) {
                    if p < n && mark[p] != li && dom.is_reached(p) {
                        mark[p] = li;
                        body.push(p);
                        stack.push(p);
                    }
                }
            }
            body.sort_unstable();
            body.dedup();
            members += body.len();
            if members > MAX_LOOP_MEMBERSHIPS {
                return Loops {
                    over_limit: Some(members),
                    ..Loops::default()
                };
            }
            let mut exits = Vec::new();
            for &b in &body {
                for (i, &s) in cfg.succs(b).iter().enumerate() {
                    if body.binary_search(&s).is_err() {
                        exits.push((b, i, s));
                    }
                }
            }
            loops.push(Loop {
                header: h,
                body,
                latches,
                exits,
                parent: None,
            });
        }
        // Parents: the smallest other loop whose body contains this loop's header. Natural loops
        // with distinct headers nest or are disjoint, so marking bodies from the largest loop
        // to the smallest leaves in `innermost[h]`, just before loop `i` marks its own body,
        // the smallest loop larger than `i` around its header.
        let mut by_size: Vec<usize> = (0..loops.len()).collect();
        by_size.sort_by_key(|&i| std::cmp::Reverse(loops[i].body.len()));
        let mut innermost = vec![None; n];
        for &i in &by_size {
            loops[i].parent = innermost[loops[i].header];
            for &b in &loops[i].body {
                innermost[b] = Some(i);
            }
        }
        Loops {
            loops,
            innermost,
            over_limit: None,
        }
    }

    /// The innermost loop containing `b`.
    pub fn innermost(&self, b: BlockId) -> Option<usize> {
        self.innermost.get(b).copied().flatten()
    }

    /// Whether loop `l` contains block `b`.
    pub fn in_loop(&self, l: usize, b: BlockId) -> bool {
        self.loops.get(l).is_some_and(|lp| lp.contains(b))
    }

    /// The loops containing `b`, innermost first.
    pub fn nest(&self, b: BlockId) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = self.innermost(b);
        while let Some(l) = cur {
            out.push(l);
            cur = self.loops[l].parent;
        }
        out
    }

    /// Whether the edge `from -> to` is a back edge of some loop.
    pub fn is_back_edge(&self, from: BlockId, to: BlockId) -> bool {
        self.loops
            .iter()
            .any(|l| l.header == to && l.latches.contains(&from))
    }
}
