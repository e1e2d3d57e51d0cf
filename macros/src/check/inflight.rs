//! Stage releases against the wgmma groups in flight.
//!
//! `wgmma.mma_async` reads its shared-memory operands asynchronously: they are read until
//! `wgmma.wait_group` completes the group the instruction was committed in (PTX ISA
//! §9.7.15.7.3). Releasing a stage is an mbarrier arrive on its empty barrier (§9.7.13.15),
//! after which the producer may overwrite it; released while a group that reads it still runs,
//! the stage is overwritten under the tensor cores, and the product reads the next tile's data
//! — a race no barrier orders, which the simulator reports as `async_read_before_wait` and a
//! GPU turns into silently wrong numbers.
//!
//! rustc cannot see this through the accumulator's type: which stages a group read is a fact
//! about the program's history, and a loop that keeps one group in flight reads a different
//! stage each iteration (`held`, then `slot`) through one variable of one type. So it is
//! checked here, on the checked body, by the wait semantics themselves: an abstract
//! interpretation in program order that keeps the open batch and the committed groups (oldest
//! first) as sets of the bindings whose stages they read. `commit` (and `commit_behind`) closes
//! the batch into a group; `wait::<K>()` keeps the newest `K` groups, `wait_scores` one and
//! `Overlap::softmax` none, as the `wgmma.wait_group` they lower to; `retire` and assignments
//! carry a stage from one binding to another. Branches join (a group may be in flight if it is
//! on either path), loops run to a fixpoint, device functions are followed into their bodies
//! with their parameters bound to the caller's stages. A release of a binding that a pending
//! group or the open batch holds is an error on the release, naming the read.
//!
//! The same walk checks `a.wait_behind(&b)`, whose `wgmma.wait_group 1` completes `a` only if
//! `b`'s group is the newest: it follows which accumulator each binding is (the
//! `accumulator()` call it descends from, through products, commits, waits and assignments)
//! and which committed last, and reports the call unless that is `b` on every path and `a` is
//! another accumulator.
//!
//! Where paths join it is conservative, as a borrow checker is: a release after a wait on one
//! path only is reported, since the group may be in flight on the other. What it does not see:
//! a stage read through a second name for it (`let r = &slot;`, then `&*r` as the operand) is
//! recorded on that name only, so releasing it under the first goes unreported (the simulator
//! still reports the race: `async_read_before_wait`).

use super::Types;
use crate::diag::Diagnostics;
use crate::handles::{self, Method};
use crate::types::{Handle, Ty};
use proc_macro2::Span;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use syn::{Expr, Pat, Stmt};

/// Groups tracked one by one; older ones are merged into the oldest (still pending).
const TRACKED_GROUPS: usize = 8;

/// Loop iterations before the fixpoint gives up joining (each adds reads or groups, and both
/// are bounded, so it is reached long before).
const MAX_ITERATIONS: usize = 64;

/// A `let` binding (or a device function's parameter) of the body: the same syntax is the same
/// binding on every iteration of the fixpoint, so that the states converge.
type Binding = usize;

/// A stage held by a binding, read by the wgmma at `sites[site]`.
type Read = (Binding, usize);

/// What may be in flight at a point of the body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    /// False where no path reaches (after `break`, `continue` or `return`).
    reachable: bool,
    /// Reads of the wgmmas issued since the last commit.
    open: BTreeSet<Read>,
    /// Reads of the committed groups not yet known complete, oldest first.
    groups: Vec<BTreeSet<Read>>,
    /// The accumulator each binding holding one is: the `accumulator()` calls (by the pseudo
    /// binding of the call) it may descend from, carried by [`State::alias`].
    accs: BTreeMap<Binding, BTreeSet<Binding>>,
    /// The accumulators that may have committed the newest group (`None`: one not followed).
    newest: BTreeSet<Option<Binding>>,
}

impl State {
    fn start() -> State {
        State {
            reachable: true,
            ..State::default()
        }
    }

    fn unreachable() -> State {
        State::default()
    }

    /// Either path's: a read is pending if it is on either, groups aligned at the newest
    /// (what `wait::<K>()` keeps is counted from the newest).
    fn join(&self, other: &State) -> State {
        match (self.reachable, other.reachable) {
            (false, _) => return other.clone(),
            (_, false) => return self.clone(),
            _ => {}
        }
        let len = self.groups.len().max(other.groups.len());
        // Position `i` of `len`, counted so that both lists end at their newest group.
        fn aligned(s: &State, len: usize, i: usize) -> Option<&BTreeSet<Read>> {
            s.groups.len().checked_sub(len - i).map(|at| &s.groups[at])
        }
        let groups = (0..len)
            .map(|i| {
                let mut g = BTreeSet::new();
                for side in [aligned(self, len, i), aligned(other, len, i)]
                    .into_iter()
                    .flatten()
                {
                    g.extend(side.iter().copied());
                }
                g
            })
            .collect();
        let mut accs = self.accs.clone();
        for (b, ids) in &other.accs {
            accs.entry(*b).or_default().extend(ids.iter().copied());
        }
        State {
            reachable: true,
            open: self.open.union(&other.open).copied().collect(),
            groups,
            accs,
            newest: self.newest.union(&other.newest).copied().collect(),
        }
    }

    fn commit(&mut self) {
        let batch = std::mem::take(&mut self.open);
        self.groups.push(batch);
        if self.groups.len() > TRACKED_GROUPS {
            let oldest = self.groups.remove(0);
            self.groups[0].extend(oldest);
        }
    }

    fn wait(&mut self, keep: usize) {
        let done = self.groups.len().saturating_sub(keep);
        self.groups.drain(..done);
    }

    /// The accumulators binding `b` may hold: those recorded for it, else `b` itself (a
    /// pseudo binding of an `accumulator()` call, or a parameter).
    fn acc_identity(&self, b: Binding) -> BTreeSet<Binding> {
        self.accs
            .get(&b)
            .cloned()
            .unwrap_or_else(|| BTreeSet::from([b]))
    }

    /// The read of `b` still pending, if any (the open batch's first).
    fn pending(&self, b: Binding) -> Option<usize> {
        std::iter::once(&self.open)
            .chain(self.groups.iter().rev())
            .flat_map(|g| g.iter())
            .find(|(held, _)| *held == b)
            .map(|&(_, site)| site)
    }

    fn forget(&mut self, b: Binding) {
        self.open.retain(|(held, _)| *held != b);
        for g in &mut self.groups {
            g.retain(|(held, _)| *held != b);
        }
        self.accs.remove(&b);
    }

    /// `to` now holds what `from` holds: its stages, and the accumulator it is.
    fn alias(&mut self, from: Binding, to: Binding) {
        let copy = |g: &mut BTreeSet<Read>| {
            let more: Vec<Read> = g
                .iter()
                .filter(|(held, _)| *held == from)
                .map(|&(_, site)| (to, site))
                .collect();
            g.extend(more);
        };
        copy(&mut self.open);
        self.groups.iter_mut().for_each(copy);
        if let Some(ids) = self.accs.get(&from).cloned() {
            self.accs.insert(to, ids);
        }
    }
}

/// Where `break` and `continue` leave a loop.
#[derive(Default)]
struct LoopExits {
    breaks: State,
    continues: State,
}

struct Flow<'a> {
    types: &'a Types,
    state: State,
    scopes: Vec<Vec<(String, Binding)>>,
    /// The bindings, by the address of the syntax that binds them (and a parameter's index).
    bindings: HashMap<(usize, usize), Binding>,
    /// The wgmma reads, by the address of the call and the operand's index: the method's name
    /// and span.
    sites: Vec<(String, Span)>,
    site_keys: HashMap<(usize, usize), usize>,
    loops: Vec<LoopExits>,
    /// The states at the `return`s of the device functions being followed, innermost last.
    returns: Vec<State>,
    /// Findings in the order met, one per release (states only grow as loops iterate, so the
    /// first message stands).
    findings: Vec<(*const syn::ExprMethodCall, Span, String)>,
}

/// Reports every stage released while a wgmma group that reads it may be in flight.
pub fn stage_releases(body: &syn::Block, types: &Types, diag: &mut Diagnostics) {
    let mut flow = Flow {
        types,
        state: State::start(),
        scopes: vec![Vec::new()],
        bindings: HashMap::new(),
        sites: Vec::new(),
        site_keys: HashMap::new(),
        loops: Vec::new(),
        returns: Vec::new(),
        findings: Vec::new(),
    };
    flow.block(body);
    for (_, span, message) in flow.findings {
        diag.error(span, message);
    }
}

impl Flow<'_> {
    fn bind(&mut self, key: (usize, usize), name: String) -> Binding {
        let next = self.bindings.len();
        let b = *self.bindings.entry(key).or_insert(next);
        self.scopes.last_mut().expect("a scope").push((name, b));
        b
    }

    /// The binding `e` names (`x`, `&x`, `(x)`), if it is in scope.
    fn named(&self, e: &Expr) -> Option<Binding> {
        let name = crate::params::memory_name(e)?;
        self.lookup(&name)
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|&(_, b)| b)
    }

    fn pop_scope(&mut self) {
        for (_, b) in self.scopes.pop().expect("a scope") {
            self.state.forget(b);
        }
    }

    fn block(&mut self, block: &syn::Block) -> Option<Binding> {
        self.scopes.push(Vec::new());
        let mut value = None;
        for stmt in &block.stmts {
            value = self.stmt(stmt);
        }
        self.pop_scope();
        value
    }

    fn stmt(&mut self, stmt: &Stmt) -> Option<Binding> {
        match stmt {
            Stmt::Local(local) => {
                let value = local.init.as_ref().and_then(|init| {
                    let v = self.expr(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        let before = self.state.clone();
                        self.expr(diverge);
                        self.state = before;
                    }
                    v
                });
                self.pattern(&local.pat, value);
                None
            }
            Stmt::Expr(e, semi) => {
                let v = self.expr(e);
                if semi.is_some() { None } else { v }
            }
            Stmt::Item(_) | Stmt::Macro(_) => None,
        }
    }

    /// Binds a pattern's names; a single name takes `value`'s stage.
    fn pattern(&mut self, pat: &Pat, value: Option<Binding>) {
        match pat {
            Pat::Ident(p) => {
                let b = self.bind((p as *const syn::PatIdent as usize, 0), p.ident.to_string());
                if let Some(from) = value {
                    self.state.alias(from, b);
                }
                if let Some((_, sub)) = &p.subpat {
                    self.pattern(sub, None);
                }
            }
            Pat::Type(t) => self.pattern(&t.pat, value),
            Pat::Paren(p) => self.pattern(&p.pat, value),
            Pat::Reference(r) => self.pattern(&r.pat, value),
            Pat::Tuple(t) => t.elems.iter().for_each(|p| self.pattern(p, None)),
            Pat::TupleStruct(t) => t.elems.iter().for_each(|p| self.pattern(p, None)),
            Pat::Slice(s) => s.elems.iter().for_each(|p| self.pattern(p, None)),
            Pat::Struct(s) => s.fields.iter().for_each(|f| self.pattern(&f.pat, None)),
            Pat::Or(o) => o.cases.iter().for_each(|p| self.pattern(p, None)),
            _ => {}
        }
    }

    /// Follows `e`; the binding whose stage its value is, if it is one.
    fn expr(&mut self, e: &Expr) -> Option<Binding> {
        match e {
            Expr::Path(_) => self.named(e),
            Expr::Reference(r) => self.expr(&r.expr),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) if self.is_acc(e) && self.types.instance(c).is_none() => {
                // A new accumulator (`accumulator()`): a binding of its own, named by the call,
                // which the bindings it is moved to carry as their identity.
                let next = self.bindings.len();
                let key = (c as *const syn::ExprCall as usize, usize::MAX);
                let b = *self.bindings.entry(key).or_insert(next);
                self.state.accs.insert(b, BTreeSet::from([b]));
                Some(b)
            }
            Expr::Call(c) => self.call(c),
            Expr::Assign(a) => {
                let value = self.expr(&a.right);
                match self.named(&a.left) {
                    // `x = x.op()`: the binding keeps what it holds.
                    Some(to) if value == Some(to) => {}
                    Some(to) => {
                        // The old value is gone; the new one may be a stage some group reads.
                        self.state.forget(to);
                        if let Some(from) = value {
                            self.state.alias(from, to);
                        }
                    }
                    None => {
                        self.expr(&a.left);
                    }
                }
                None
            }
            Expr::Block(b) => self.block(&b.block),
            Expr::Unsafe(u) => self.block(&u.block),
            Expr::If(i) => {
                self.expr(&i.cond);
                let before = self.state.clone();
                self.block(&i.then_branch);
                let then = std::mem::replace(&mut self.state, before);
                if let Some((_, other)) = &i.else_branch {
                    self.expr(other);
                }
                self.state = then.join(&self.state);
                None
            }
            Expr::Match(m) => {
                self.expr(&m.expr);
                let before = self.state.clone();
                let mut after = State::unreachable();
                for arm in &m.arms {
                    self.state = before.clone();
                    self.scopes.push(Vec::new());
                    self.pattern(&arm.pat, None);
                    self.expr(&arm.body);
                    self.pop_scope();
                    after = after.join(&self.state);
                }
                self.state = after;
                None
            }
            Expr::ForLoop(f) => {
                self.expr(&f.expr);
                self.looped(
                    |flow| {
                        flow.scopes.push(Vec::new());
                        flow.pattern(&f.pat, None);
                        flow.block(&f.body);
                        flow.pop_scope();
                    },
                    true,
                );
                None
            }
            Expr::While(w) => {
                self.looped(
                    |flow| {
                        flow.expr(&w.cond);
                        flow.block(&w.body);
                    },
                    true,
                );
                None
            }
            Expr::Loop(l) => {
                self.looped(
                    |flow| {
                        flow.block(&l.body);
                    },
                    false,
                );
                None
            }
            Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.expr(v);
                }
                let here = std::mem::replace(&mut self.state, State::unreachable());
                if let Some(exits) = self.loops.last_mut() {
                    exits.breaks = exits.breaks.join(&here);
                }
                None
            }
            Expr::Continue(_) => {
                let here = std::mem::replace(&mut self.state, State::unreachable());
                if let Some(exits) = self.loops.last_mut() {
                    exits.continues = exits.continues.join(&here);
                }
                None
            }
            Expr::Return(r) => {
                if let Some(v) = &r.expr {
                    self.expr(v);
                }
                let here = std::mem::replace(&mut self.state, State::unreachable());
                if let Some(returned) = self.returns.last_mut() {
                    *returned = returned.join(&here);
                }
                None
            }
            Expr::Binary(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
                None
            }
            Expr::Unary(u) => {
                self.expr(&u.expr);
                None
            }
            Expr::Cast(c) => {
                self.expr(&c.expr);
                None
            }
            Expr::Field(f) => {
                self.expr(&f.base);
                None
            }
            Expr::Index(i) => {
                self.expr(&i.expr);
                self.expr(&i.index);
                None
            }
            Expr::Tuple(t) => {
                t.elems.iter().for_each(|e| {
                    self.expr(e);
                });
                None
            }
            Expr::Array(a) => {
                a.elems.iter().for_each(|e| {
                    self.expr(e);
                });
                None
            }
            Expr::Repeat(r) => {
                self.expr(&r.expr);
                None
            }
            Expr::Range(r) => {
                for end in [&r.start, &r.end].into_iter().flatten() {
                    self.expr(end);
                }
                None
            }
            Expr::Let(l) => {
                let v = self.expr(&l.expr);
                self.pattern(&l.pat, v);
                None
            }
            _ => None,
        }
    }

    /// A loop whose body `body` follows: to the fixpoint of its head, leaving the state at its
    /// exits (the head, where the condition can end it, and the `break`s).
    fn looped(&mut self, body: impl Fn(&mut Self), conditional: bool) {
        let mut head = self.state.clone();
        let mut exits = LoopExits::default();
        for _ in 0..MAX_ITERATIONS {
            self.state = head.clone();
            self.loops.push(LoopExits::default());
            body(self);
            exits = self.loops.pop().expect("the loop's exits");
            let back = self.state.join(&exits.continues);
            let next = head.join(&back);
            if next == head {
                break;
            }
            head = next;
        }
        self.state = if conditional {
            head.join(&exits.breaks)
        } else {
            exits.breaks
        };
    }

    fn call(&mut self, c: &syn::ExprCall) -> Option<Binding> {
        let values: Vec<Option<Binding>> = c.args.iter().map(|a| self.expr(a)).collect();
        let instance = self.types.instance(c)?;
        // The callee's parameters hold the caller's stages.
        self.scopes.push(Vec::new());
        let at = &instance.block as *const syn::Block as usize;
        for (i, (param, value)) in instance.sig.params.iter().zip(values).enumerate() {
            let b = self.bind((at, i), param.name.clone());
            if let Some(from) = value {
                self.state.alias(from, b);
            }
        }
        self.returns.push(State::unreachable());
        self.block(&instance.block);
        let returned = self.returns.pop().expect("the call's returns");
        self.state = self.state.join(&returned);
        self.pop_scope();
        None
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> Option<Binding> {
        let receiver = self.expr(&m.receiver);
        let args: Vec<Option<Binding>> = m.args.iter().map(|a| self.expr(a)).collect();
        let Ty::Handle(handle) = self.types.of(&m.receiver) else {
            return None;
        };
        let name = m.method.to_string();
        let (method, _, _) = handles::lookup(handle, &name)?;
        match method {
            Method::Mma | Method::MmaBlock | Method::MmaTiles | Method::MmaRegs => {
                for (i, (a, value)) in m.args.iter().zip(args).enumerate() {
                    let (Some(b), Ty::Handle(Handle::ConsumerSlot(_))) = (value, self.types.of(a))
                    else {
                        continue;
                    };
                    let next = self.sites.len();
                    let key = (m as *const syn::ExprMethodCall as usize, i);
                    let site = *self.site_keys.entry(key).or_insert(next);
                    if site == next {
                        self.sites.push((name.clone(), m.method.span()));
                    }
                    self.state.open.insert((b, site));
                }
                receiver
            }
            Method::Commit | Method::CommitBehind => {
                self.state.commit();
                self.state.newest = match receiver {
                    Some(r) => self.state.acc_identity(r).into_iter().map(Some).collect(),
                    None => BTreeSet::from([None]),
                };
                (method == Method::Commit).then_some(receiver).flatten()
            }
            Method::AccWait => {
                // A `K` the checker could not read was reported there: take it as 0 (no finding
                // rests on it).
                let keep = self.types.wait_count(m).unwrap_or(0);
                self.state.wait(keep as usize);
                receiver
            }
            Method::AccReset => receiver,
            Method::WaitBehind => {
                self.wait_behind(m, receiver, args.first().copied().flatten());
                self.state.wait(1);
                receiver
            }
            Method::WaitScores => {
                self.state.wait(1);
                None
            }
            Method::OverlapSoftmax => {
                self.state.wait(0);
                None
            }
            Method::Release | Method::ReleaseElected | Method::RetiredRelease => {
                if let Some(b) = receiver {
                    self.release(m, b);
                    self.state.forget(b);
                }
                None
            }
            Method::Retire => receiver,
            _ => None,
        }
    }

    fn is_acc(&self, e: &Expr) -> bool {
        matches!(self.types.of(e), Ty::Handle(Handle::Acc(_)))
    }

    /// `a.wait_behind(&b)`: `wgmma.wait_group 1` completes `a` only where `b`'s group is the
    /// newest, `b` one accumulator on every path and `a` another.
    fn wait_behind(
        &mut self,
        m: &syn::ExprMethodCall,
        receiver: Option<Binding>,
        newer: Option<Binding>,
    ) {
        if !self.state.reachable {
            return;
        }
        let key = m as *const syn::ExprMethodCall;
        if self.findings.iter().any(|(k, ..)| *k == key) {
            return;
        }
        let name = |e: &Expr, other: &str| {
            crate::params::memory_name(e).map_or_else(|| other.to_string(), |n| format!("`{n}`"))
        };
        let (mine, theirs) = (
            name(&m.receiver, "the receiver"),
            m.args
                .first()
                .map_or_else(|| "the argument".into(), |a| name(a, "the argument")),
        );
        let problem = match (receiver, newer) {
            (Some(r), Some(n)) => {
                let ids = self.state.acc_identity(n);
                let own = self.state.acc_identity(r);
                let newest: BTreeSet<Option<Binding>> = ids.iter().copied().map(Some).collect();
                if ids.len() != 1 {
                    Some(format!("{theirs} is not one accumulator on every path"))
                } else if !own.is_disjoint(&ids) {
                    Some(format!("{mine} and {theirs} may be the same accumulator"))
                } else if self.state.newest == own.iter().copied().map(Some).collect() {
                    Some(format!(
                        "{mine}'s own group, committed after {theirs}'s, is the newest, so {mine}'s may still be running"
                    ))
                } else if self.state.newest != newest {
                    Some(format!(
                        "a group committed after {theirs}'s may be the newest (or {theirs} committed none)"
                    ))
                } else {
                    None
                }
            }
            _ => Some(format!(
                "{mine} or {theirs} is not an accumulator binding the check can follow"
            )),
        };
        if let Some(problem) = problem {
            let message = format!(
                "`wait_behind` completes every wgmma group but the newest (`wgmma.wait_group 1`, PTX ISA §9.7.15.7.3), so the receiver is readable after it only if the argument's group was committed last, after the receiver's: here {problem}; commit the argument's batch last, or wait for all groups with `wait::<0>()`"
            );
            self.findings.push((key, m.method.span(), message));
        }
    }

    fn release(&mut self, m: &syn::ExprMethodCall, b: Binding) {
        if !self.state.reachable {
            return;
        }
        let Some(site) = self.state.pending(b) else {
            return;
        };
        let key = m as *const syn::ExprMethodCall;
        if self.findings.iter().any(|(k, ..)| *k == key) {
            return;
        }
        let (read, span) = &self.sites[site];
        let stage = crate::params::memory_name(&m.receiver)
            .map_or_else(|| "the stage".into(), |name| format!("`{name}`"));
        let message = format!(
            "{stage} is released while a wgmma group that reads it may be in flight: the `{read}` on line {} reads the stage until `wgmma.wait_group` completes its group (PTX ISA §9.7.15.7.3), and a released stage is the producer's to overwrite; release it after the wait that completes that group",
            span.start().line
        );
        self.findings.push((key, m.method.span(), message));
    }
}

#[cfg(test)]
mod tests {
    use super::State;

    fn state(open: &[(usize, usize)], groups: &[&[(usize, usize)]]) -> State {
        State {
            reachable: true,
            open: open.iter().copied().collect(),
            groups: groups.iter().map(|g| g.iter().copied().collect()).collect(),
            ..State::default()
        }
    }

    #[test]
    fn paths_join_at_their_newest_groups() {
        // One path has two groups in flight, the other one: after a join, `wait::<1>()` keeps
        // the newest of either, and completes the older.
        let two = state(&[], &[&[(1, 0)], &[(2, 1)]]);
        let one = state(&[(4, 3)], &[&[(3, 2)]]);
        let mut joined = two.join(&one);
        assert_eq!(joined, state(&[(4, 3)], &[&[(1, 0)], &[(2, 1), (3, 2)]]));
        joined.wait(1);
        assert_eq!(joined.pending(1), None);
        assert_eq!(joined.pending(3), Some(2));
        assert_eq!(
            joined.pending(4),
            Some(3),
            "the open batch is not waited for"
        );
        // An unreachable path adds nothing.
        assert_eq!(two.join(&State::unreachable()), two);
    }

    #[test]
    fn commits_beyond_the_tracked_groups_stay_pending() {
        let mut s = State::start();
        for b in 0..12 {
            s.open.insert((b, b));
            s.commit();
        }
        assert_eq!(s.groups.len(), super::TRACKED_GROUPS);
        s.wait(super::TRACKED_GROUPS - 1);
        assert_eq!(
            s.pending(0),
            None,
            "the oldest groups, merged, complete together"
        );
        assert_eq!(s.pending(5), Some(5));
        s.wait(0);
        assert!(s.groups.is_empty());
    }

    #[test]
    fn an_accumulator_is_the_one_its_value_came_from() {
        // `let x = accumulator()…` (call binding 7), `let y = x…`, then `y = <unknown>`.
        let mut s = State::start();
        s.accs.insert(7, [7].into());
        s.alias(7, 1);
        s.alias(1, 2);
        assert_eq!(s.acc_identity(2), [7].into());
        s.forget(2);
        assert_eq!(s.acc_identity(2), [2].into(), "no longer known: itself");
        assert_eq!(s.acc_identity(1), [7].into());
    }

    #[test]
    fn a_stage_moves_to_the_binding_that_takes_it() {
        let mut s = state(&[], &[&[(1, 0)]]);
        s.alias(1, 2);
        s.forget(1);
        assert_eq!(s.pending(1), None);
        assert_eq!(s.pending(2), Some(0));
    }
}
