//! Natural loops: a back edge `t -> h` (where `h` dominates `t`) makes `h` a loop header; the
//! loop's body is `h` and every block that reaches `t` without passing `h`. Loops with one
//! header are merged. Edges into a block that does not dominate their source (irreducible
//! flow) make no loop: the uniformity analysis still sees their control dependence.

use crate::cfg::{BlockId, Cfg};
use crate::dom::DomTree;

#[derive(Clone, Debug)]
pub struct Loop {
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
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.binary_search(&b).is_ok()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Loops {
    pub loops: Vec<Loop>,
    /// The innermost loop of each block.
    innermost: Vec<Option<usize>>,
}

impl Loops {
    pub fn new(cfg: &Cfg, dom: &DomTree) -> Loops {
        let n = cfg.len();
        let mut headers: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        for &t in &cfg.rpo {
            for &h in cfg.succs(t) {
                if h < n && dom.dominates(h, t) {
                    match headers.iter_mut().find(|(hh, _)| *hh == h) {
                        Some((_, latches)) => latches.push(t),
                        None => headers.push((h, vec![t])),
                    }
                }
            }
        }
        let mut loops = Vec::new();
        let mut mark = vec![usize::MAX; n];
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
        // Parents: the smallest other loop whose body contains this loop's header.
        let mut by_size: Vec<usize> = (0..loops.len()).collect();
        by_size.sort_by_key(|&i| loops[i].body.len());
        for &i in &by_size {
            let h = loops[i].header;
            let parent = by_size
                .iter()
                .copied()
                .filter(|&j| {
                    j != i && loops[j].body.len() > loops[i].body.len() && loops[j].contains(h)
                })
                .min_by_key(|&j| loops[j].body.len());
            loops[i].parent = parent;
        }
        let mut innermost = vec![None; n];
        for &i in by_size.iter().rev() {
            for &b in &loops[i].body {
                innermost[b] = Some(i);
            }
        }
        Loops { loops, innermost }
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
