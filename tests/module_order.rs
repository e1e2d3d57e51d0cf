//! The modules of `macros` and `sim` import one another one way: no circle of imports, so a
//! reader can follow a kernel (or a simulated instruction) through the files in order.
//!
//! The test reads the crates' sources as rustc finds them (from `lib.rs`, through `mod`
//! declarations), leaving out test code: items under `#[cfg(test)]` and files named
//! `tests.rs`. An import is any path into the crate written in a module's code: `use`
//! items, inline paths (`crate::types::Ty::Prim`), and paths inside macro calls other than
//! `quote!`'s, whose tokens are the code a macro emits, not code that runs here. A path is
//! charged to the module that defines what it names, through re-exports
//! (`pub use program::Program`), so a facade module is not mistaken for a dependency.
//!
//! For `macros` the order itself is fixed: foundation modules import no stage, and each stage
//! of the pipeline imports the foundation and earlier stages only.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Modules of `macros` that every stage may use; they import no stage.
const MACROS_FOUNDATION: &[&str] = &["builtins", "diag", "handles", "params", "target", "types"];

/// The stages of `macros`, in pipeline order: each takes the output of the ones before it.
const MACROS_STAGES: &[&str] = &[
    "attr", "device", "check", "lower", "lint", "shadow", "expand",
];

/// `sim`'s modules whose files are modules of the graph each (`decode/alu`, `exec/mem`).
const SIM_SPLIT: &[&str] = &["decode", "exec"];

/// A module path from the crate root, `["lower", "copy"]`; the root is `[]`.
type ModPath = Vec<String>;

/// A path written in a module's code, with the line it is on.
struct Written {
    segments: Vec<String>,
    line: usize,
}

/// A `use` of a module, as written: the name it binds (`None` for a glob) and its path.
struct Import {
    name: Option<String>,
    path: Vec<String>,
}

#[derive(Default)]
struct Module {
    file: PathBuf,
    children: BTreeSet<String>,
    /// Items defined in the module itself (not in its child modules).
    defined: BTreeSet<String>,
    /// The module's own `use` items, by which it re-exports or imports names.
    imports: Vec<Import>,
    /// Every path in the module's code that may lead into the crate.
    paths: Vec<Written>,
}

/// One crate's modules.
struct Crate {
    modules: BTreeMap<ModPath, Module>,
}

/// One import between modules of the graph, with where it is written.
struct Edge {
    from: String,
    to: String,
    at: String,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "test")
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module's namespace, if any.
fn defined_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Every leaf of a `use` tree: the name it binds (`None` for a glob), its path, its line.
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Import, usize)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut path = prefix.clone();
            // `use crate::attr::{self, ...}` names the module itself.
            let bound = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                path.push(name.clone());
                name
            };
            out.push((
                Import {
                    name: Some(bound),
                    path,
                },
                n.ident.span().start().line,
            ));
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            let import = Import {
                name: Some(r.rename.to_string()),
                path,
            };
            out.push((import, r.ident.span().start().line));
        }
        syn::UseTree::Glob(g) => {
            let import = Import {
                name: None,
                path: prefix.clone(),
            };
            out.push((import, g.star_token.span.start().line));
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_leaves(t, prefix, out)),
    }
}

/// Collects the paths written in one module's code, skipping its test items and child modules.
struct Paths<'m>(&'m mut Vec<Written>);

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_cfg_test(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    /// A child module is a module of its own.
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    /// `pub(super)` says who may see an item; it imports nothing.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for (import, line) in leaves {
            self.0.push(Written {
                segments: import.path,
                line,
            });
        }
    }

    /// A path of one segment names a value or a type in scope, never a module.
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(first) = path.segments.first()
            && path.segments.len() > 1
        {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.0.push(Written {
                segments,
                line: first.ident.span().start().line,
            });
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        let emits_code = matches!(
            name.as_deref(),
            Some("quote" | "quote_spanned" | "parse_quote" | "parse_quote_spanned")
        );
        if !emits_code {
            token_paths(mac.tokens.clone(), self.0);
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// The `crate::a::b`, `super::a`, `self::a` paths in a macro call's tokens.
fn token_paths(tokens: proc_macro2::TokenStream, out: &mut Vec<Written>) {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => token_paths(g.stream(), out),
            TokenTree::Ident(id) if ["crate", "super", "self"].contains(&&*id.to_string()) => {
                let line = id.span().start().line;
                let mut segments = vec![id.to_string()];
                let mut j = i + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(next)),
                ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    segments.push(next.to_string());
                    j += 3;
                }
                if segments.len() > 1 {
                    out.push(Written { segments, line });
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

impl Crate {
    fn load(src: &Path) -> Crate {
        let mut krate = Crate {
            modules: BTreeMap::new(),
        };
        krate.load_file(Vec::new(), &src.join("lib.rs"), src.to_path_buf());
        krate
    }

    /// Loads the module at `path` from `file`, whose child modules' files are in `dir`.
    fn load_file(&mut self, path: ModPath, file: &Path, dir: PathBuf) {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let ast =
            syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
        self.load_items(path, file, &dir, &ast.items);
    }

    fn load_items(&mut self, path: ModPath, file: &Path, dir: &Path, items: &[syn::Item]) {
        let mut module = Module {
            file: file.to_path_buf(),
            ..Module::default()
        };
        for item in items.iter().filter(|i| !is_cfg_test(item_attrs(i))) {
            module.defined.extend(defined_name(item));
            match item {
                syn::Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    module
                        .imports
                        .extend(leaves.into_iter().map(|(import, _)| import));
                }
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let mut child = path.clone();
                    child.push(name.clone());
                    if let Some((_, content)) = &m.content {
                        module.children.insert(name.clone());
                        self.load_items(child, file, &dir.join(&name), content);
                        continue;
                    }
                    let explicit = m.attrs.iter().find_map(|a| match &a.meta {
                        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(s),
                                ..
                            }) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    });
                    let (child_file, child_dir) = match explicit {
                        Some(p) => {
                            let f = file.parent().unwrap().join(p);
                            let d = f.parent().unwrap().to_path_buf();
                            (f, d)
                        }
                        None if dir.join(format!("{name}.rs")).exists() => {
                            (dir.join(format!("{name}.rs")), dir.join(&name))
                        }
                        None => (dir.join(&name).join("mod.rs"), dir.join(&name)),
                    };
                    if child_file.file_name().is_some_and(|f| f == "tests.rs") {
                        continue;
                    }
                    module.children.insert(name);
                    self.load_file(child, &child_file, child_dir);
                }
                _ => {}
            }
        }
        let mut paths = Vec::new();
        let mut visit = Paths(&mut paths);
        items.iter().for_each(|i| visit.visit_item(i));
        module.paths = paths;
        self.modules.insert(path, module);
    }

    /// `written`, as code in module `at` writes it, from the crate root; `None` for a path
    /// that does not start in this crate (a local name, another crate).
    fn absolute(&self, at: &[String], written: &[String]) -> Option<ModPath> {
        let (first, rest) = written.split_first()?;
        let mut base: ModPath = match first.as_str() {
            "crate" => Vec::new(),
            "self" => at.to_vec(),
            "super" => at[..at.len().checked_sub(1)?].to_vec(),
            name if self.modules[at].children.contains(name) => {
                let mut p = at.to_vec();
                p.push(name.to_string());
                p
            }
            _ => return None,
        };
        let mut rest = rest.iter().peekable();
        while rest.next_if(|s| *s == "super").is_some() {
            base.pop()?;
        }
        base.extend(rest.cloned());
        Some(base)
    }

    /// The module that defines what the absolute `path` names, through re-exports.
    fn owner(&self, path: &[String], depth: usize) -> ModPath {
        let mut module: ModPath = Vec::new();
        for name in path {
            let m = &self.modules[&module];
            if m.children.contains(name) {
                module.push(name.clone());
                continue;
            }
            if depth < 16
                && !m.defined.contains(name)
                && let Some(owner) = self.reexported(&module, name, depth + 1)
            {
                return owner;
            }
            break;
        }
        module
    }

    /// The module that defines `name` where `module` imports it from, if it does.
    fn reexported(&self, module: &[String], name: &str, depth: usize) -> Option<ModPath> {
        let imports = &self.modules[module].imports;
        if let Some(i) = imports.iter().find(|i| i.name.as_deref() == Some(name)) {
            return Some(self.owner(&self.absolute(module, &i.path)?, depth));
        }
        for glob in imports.iter().filter(|i| i.name.is_none()) {
            let Some(from) = self.absolute(module, &glob.path) else {
                continue;
            };
            let from = self.owner(&from, depth);
            let m = &self.modules[&from];
            if m.defined.contains(name) || m.children.contains(name) {
                return Some(from);
            }
            if depth < 16
                && let Some(owner) = self.reexported(&from, name, depth + 1)
            {
                return Some(owner);
            }
        }
        None
    }

    /// The imports between the graph's modules (`node` of a module path; the crate root,
    /// a facade of re-exports, is none).
    fn edges(&self, root: &Path, node: impl Fn(&[String]) -> String) -> Vec<Edge> {
        let mut edges = Vec::new();
        for (at, module) in self.modules.iter().filter(|(p, _)| !p.is_empty()) {
            let from = node(at);
            for written in &module.paths {
                let Some(target) = self.absolute(at, &written.segments) else {
                    continue;
                };
                let owner = self.owner(&target, 0);
                if owner.is_empty() || node(&owner) == from {
                    continue;
                }
                let file = module.file.strip_prefix(root).unwrap_or(&module.file);
                edges.push(Edge {
                    from: from.clone(),
                    to: node(&owner),
                    at: format!(
                        "{}:{} {}",
                        file.display(),
                        written.line,
                        written.segments.join("::")
                    ),
                });
            }
        }
        edges
    }
}

/// The imports from each module: the imported module, with where the first is written.
type Graph<'e> = BTreeMap<&'e str, BTreeMap<&'e str, &'e str>>;

/// The modules that `from` imports, directly or not, and itself.
fn reaches<'e>(next: &Graph<'e>, from: &'e str) -> BTreeSet<&'e str> {
    let mut seen = BTreeSet::from([from]);
    let mut queue = VecDeque::from([from]);
    while let Some(n) = queue.pop_front() {
        for &m in next.get(n).into_iter().flat_map(|m| m.keys()) {
            if seen.insert(m) {
                queue.push_back(m);
            }
        }
    }
    seen
}

/// Every circle of imports among `edges`, one per strongly connected set of modules, each
/// written as its imports in order with where each is written.
fn circles(edges: &[Edge]) -> Vec<String> {
    let mut next: Graph = BTreeMap::new();
    for e in edges {
        next.entry(&e.from)
            .or_default()
            .entry(&e.to)
            .or_insert(&e.at);
    }
    let mut reported: BTreeSet<&str> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in next.keys() {
        if reported.contains(start) {
            continue;
        }
        // The shortest way back to `start`, by a breadth-first search from it.
        let mut back: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        let mut closing = None;
        while let Some(n) = queue.pop_front() {
            for &m in next.get(n).into_iter().flat_map(|m| m.keys()) {
                if m == start {
                    closing = Some(n);
                    queue.clear();
                    break;
                }
                if !back.contains_key(m) {
                    back.insert(m, n);
                    queue.push_back(m);
                }
            }
        }
        let Some(last) = closing else { continue };
        let mut path = vec![last];
        while *path.last().unwrap() != start {
            path.push(back[path.last().unwrap()]);
        }
        path.reverse();
        path.push(start);
        let circle: Vec<&str> = reaches(&next, start)
            .into_iter()
            .filter(|m| reaches(&next, m).contains(start))
            .collect();
        reported.extend(&circle);
        let steps: Vec<String> = path
            .windows(2)
            .map(|w| format!("  {} -> {}   ({})", w[0], w[1], next[w[0]][w[1]]))
            .collect();
        out.push(format!(
            "{}\n{}\n  (all modules on circles with it: {})",
            path.join(" -> "),
            steps.join("\n"),
            circle.join(", ")
        ));
    }
    out
}

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What is wrong with `edges`: a line for each circle of imports.
fn circle_report(name: &str, edges: &[Edge]) -> Vec<String> {
    circles(edges)
        .into_iter()
        .map(|c| format!("{name} has a circle of imports: {c}"))
        .collect()
}

#[test]
fn macros_modules_import_in_pipeline_order() {
    let root = repository();
    let krate = Crate::load(&root.join("macros/src"));
    let edges = krate.edges(&root, |p| p[0].clone());
    let mut wrong = circle_report("macros", &edges);

    let rank = |m: &str| -> Option<usize> {
        if MACROS_FOUNDATION.contains(&m) {
            return Some(0);
        }
        MACROS_STAGES.iter().position(|s| *s == m).map(|k| k + 1)
    };
    for top in krate.modules.keys().filter(|p| p.len() == 1) {
        if rank(&top[0]).is_none() {
            wrong.push(format!(
                "`{}` is neither a foundation module nor a stage: add it to MACROS_FOUNDATION or MACROS_STAGES (and to lib.rs's account of the pipeline)",
                top[0]
            ));
        }
    }
    for e in &edges {
        let (Some(from), Some(to)) = (rank(&e.from), rank(&e.to)) else {
            continue;
        };
        if to != 0 && to >= from {
            let what = if from == 0 {
                "a foundation module imports a stage"
            } else {
                "a stage imports a later stage"
            };
            wrong.push(format!("{} -> {}: {what}   ({})", e.from, e.to, e.at));
        }
    }
    assert!(
        wrong.is_empty(),
        "macros must import one way: the foundation {MACROS_FOUNDATION:?}, then the stages {}; but\n{}",
        MACROS_STAGES.join(" -> "),
        wrong.join("\n")
    );
}

#[test]
fn sim_modules_import_one_way() {
    let root = repository();
    let krate = Crate::load(&root.join("sim/src"));
    let edges = krate.edges(&root, |p| {
        if p.len() > 1 && SIM_SPLIT.contains(&p[0].as_str()) {
            format!("{}/{}", p[0], p[1])
        } else {
            p[0].clone()
        }
    });
    let wrong = circle_report("sim", &edges);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
