//! The last stage: runs the others and emits what they produced. For `#[kernel]`: checks the
//! function, lowers it, lints it, and emits the kernel's module and the copy that rustc
//! type-checks. For `#[device]`: checks the function and emits its copy and the items that
//! bring its body to the kernels calling it. For `__phasegate_step!`: passes the device
//! table along, and expands the kernel once the table is complete.
//!
//! On errors the module is still emitted (with empty PTX), so the user sees the kernel's own
//! errors and no cascade of "unresolved module" errors where it is used.

use crate::attr::{self, KernelArgs};
use crate::check::Checker;
use crate::device::chain::{self, Step};
use crate::device::{self, DeviceTable, Signature};
use crate::diag::Diagnostics;
use crate::lower::{Lowerer, Param};
use crate::types::{Prim, Ty};
use crate::{params, shadow};
use phasegate_ptx::{FileDecl, Item, Module, SmVersion, Version};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType};

/// The kernel's generated facts, or the defaults emitted when it has errors.
struct Output {
    ptx: String,
    target: SmVersion,
    shared_bytes: u64,
    dynamic_shared_bytes: u64,
    cluster: Option<(u32, u32, u32)>,
    bounds: crate::attr::LaunchBounds,
}

/// The function an attribute applies to; anything else is an error at its first token saying
/// what `what` expects, emitted before the item itself (which then compiles or fails as
/// written, with no cascade from a half-expanded attribute).
fn parse_function(item: &TokenStream, what: &str) -> Result<ItemFn, TokenStream> {
    syn::parse2(item.clone()).map_err(|_| {
        let span = item
            .clone()
            .into_iter()
            .next()
            .map(|t| t.span())
            .unwrap_or_else(Span::call_site);
        let mut out = syn::Error::new(span, what).to_compile_error();
        out.extend(item.clone());
        out
    })
}

pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match parse_function(
        &item,
        "#[kernel] applies to a function: `#[kernel] fn name(x: &[f32], n: u32) { ... }`",
    ) {
        Ok(f) => f,
        Err(out) => return out,
    };
    // The copy rustc checks is emitted here, once: with device functions the kernel itself is
    // expanded at the end of the chain that collects their bodies.
    let mut quiet = Diagnostics::default();
    let krate = attr::parse(attr.clone())
        .ok()
        .and_then(|a| a.krate)
        .unwrap_or_else(|| syn::parse_quote!(::phasegate));
    let (kernel_params, param_names) = collect_params(&func, &mut quiet);
    let accepted: Vec<&str> = kernel_params.iter().map(|p| p.name.as_str()).collect();
    // Which `as` involve a storage float, by a lenient check of the body alone (the copy
    // rewrites those into `lang::cast`, which rustc can check).
    let narrow_casts = {
        let mut checker = Checker::new(&mut quiet).lenient();
        for (name, ty) in &param_names {
            checker.bind_param(name, *ty);
        }
        checker.check_body(&func.block);
        shadow::narrow_casts(&func.block, &checker.finish())
    };
    let copy = shadow::type_check_copy(&func, &krate, &accepted, &narrow_casts);
    let callees = device::calls(&func.block);
    if callees.is_empty() {
        let rest = kernel_with(attr, func, DeviceTable::default());
        return quote! { #copy #rest };
    }
    // The kernel's own errors are reported now, once, and the chain is not started: its
    // module (with empty PTX) is emitted here.
    if let Some(rest) = expand(attr.clone(), func.clone(), None) {
        return quote! { #copy #rest };
    }
    let collect = chain::kernel_chain(&attr, &func, &callees);
    quote! { #copy #collect }
}

/// `__phasegate_step!`: a step of the chain that brings the kernel its device functions'
/// bodies; at its end, the kernel expanded with them.
pub fn step(input: TokenStream) -> TokenStream {
    match chain::step(input) {
        Step::Emit(tokens) => tokens,
        Step::Collected(kernel) => kernel_with(kernel.attr, kernel.item, kernel.devices),
    }
}

/// Expands the kernel with the device functions it calls: its module, its errors and lint
/// warnings (the copy rustc checks is [`kernel`]'s).
fn kernel_with(attr: TokenStream, func: ItemFn, devices: DeviceTable) -> TokenStream {
    expand(attr, func, Some(&devices)).unwrap_or_default()
}

/// With the device functions (`Some`): the whole expansion. Without them (`None`): the
/// errors the kernel has whatever its device functions are, with its module, or `None` if it
/// has none.
fn expand(attr: TokenStream, func: ItemFn, devices: Option<&DeviceTable>) -> Option<TokenStream> {
    let mut diag = Diagnostics::default();
    let args = match attr::parse(attr) {
        Ok(args) => args,
        Err(e) => {
            diag.push(e);
            KernelArgs::default()
        }
    };
    let krate: syn::Path = args
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::phasegate));
    let pinned = args.pinned_target().unwrap_or_else(|e| {
        diag.push(e);
        None
    });
    let cluster = args.cluster_dims().unwrap_or_else(|e| {
        diag.push(e);
        None
    });
    let bounds = args.launch_bounds().unwrap_or_else(|e| {
        diag.push(e);
        crate::attr::LaunchBounds::default()
    });
    let lint_config = args.lint_config().unwrap_or_else(|e| {
        diag.push(e);
        phasegate_lints::LintConfig::default()
    });
    let mut lint_warnings = TokenStream::new();
    check_signature(&func, &mut diag);
    let (kernel_params, param_names) = collect_params(&func, &mut diag);

    let mut checker = Checker::new(&mut diag);
    checker = match devices {
        Some(d) => checker.with_devices(d),
        None => checker.lenient(),
    };
    for (name, ty) in &param_names {
        checker.bind_param(name, *ty);
    }
    checker.check_body(&func.block);
    let types = checker.finish();
    // On a body that checked: the types of every receiver are known.
    if !diag.has_errors() {
        crate::check::stage_releases(&func.block, &types, &mut diag);
    }
    crate::check::check_roles(
        &types.register_budgets,
        &types.register_roles,
        &bounds,
        &mut diag,
    );
    for &(span, ctas) in &types.cluster_pipelines {
        match cluster {
            Some((x, y, z)) if x * y * z == ctas => {}
            Some((x, y, z)) => diag.error(
                span,
                format!("the pipeline spans {ctas} CTAs; the kernel's clusters have {}", x * y * z),
            ),
            None => diag.error(
                span,
                format!("a cluster pipeline needs the kernel's cluster shape: add `cluster = \"{ctas},1,1\"` to `#[kernel]`"),
            ),
        }
    }
    let empty = DeviceTable::default();
    let devices = match devices {
        Some(d) => d,
        None if !diag.has_errors() => return None,
        None => &empty,
    };

    let mut output = Output {
        ptx: String::new(),
        target: pinned.unwrap_or(SmVersion::new(80)),
        shared_bytes: 0,
        dynamic_shared_bytes: 0,
        cluster,
        bounds,
    };
    let name = func.sig.ident.unraw().to_string();
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        diag.error(
            func.sig.ident.span(),
            "a kernel's name becomes its PTX entry name, which is ASCII: letters, digits and `_`",
        );
    }
    if !diag.has_errors() && !types.poisoned() {
        let mut lowered = Lowerer::new(&name, &types, &mut diag, func.sig.ident.span())
            .with_block(bounds.block)
            .lower(&kernel_params, &func.block);
        if lowered.shared_bytes > 48 * 1024 {
            diag.error(func.sig.ident.span(), format!("the kernel declares {} bytes of static shared memory; a CTA has 48 KiB of static shared memory (more is dynamic: use `dynamic_shared` or a `pipeline`)", lowered.shared_bytes));
        }
        if !diag.has_errors() {
            let mut module = Module::new(Version::new(7, 0), output.target);
            for (k, path) in lowered.files.iter().enumerate() {
                module.items.push(Item::File(FileDecl {
                    index: k as u32 + 1,
                    path: path.clone(),
                    extra: Vec::new(),
                }));
            }
            module
                .items
                .extend(lowered.module_vars.drain(..).map(Item::Var));
            lowered.function.directives.extend(bounds.directives());
            if let Some((x, y, z)) = cluster {
                let dims = [x, y, z]
                    .map(|d| phasegate_ptx::DirectiveArg::Int(d as u64))
                    .to_vec();
                lowered.function.directives.push(phasegate_ptx::Directive {
                    name: "explicitcluster".into(),
                    args: Vec::new(),
                });
                lowered.function.directives.push(phasegate_ptx::Directive {
                    name: "reqnctapercluster".into(),
                    args: dims,
                });
            }
            module.items.push(Item::Function(lowered.function));
            crate::target::settle(&mut module, pinned, &lowered.spans, &mut diag);
            let device_items: Vec<&ItemFn> = devices.fns.values().map(|f| &f.item).collect();
            let kernel = crate::lint::Kernel {
                spans: &lowered.spans,
                names: &lowered.names,
                body: &func.block,
                devices: &device_items,
                sites: &lowered.sites,
                call_sites: &lowered.call_sites,
            };
            lint_warnings = crate::lint::run(&module, &name, &kernel, &lint_config, &mut diag);
            output = Output {
                ptx: phasegate_ptx::write_string(&module),
                target: module.target.sm,
                shared_bytes: lowered.shared_bytes,
                dynamic_shared_bytes: lowered.dynamic_shared_bytes,
                cluster,
                bounds,
            };
        }
    }

    let module = kernel_module(&func, &krate, &kernel_params, &output);
    let errors = diag.to_compile_errors();
    Some(quote! { #module #errors #lint_warnings })
}

/// `#[device] fn ...`: the function as Rust that rustc checks, its errors, and the hidden
/// items by which kernels that call it receive its body (see [`crate::device`]).
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diag = Diagnostics::default();
    let krate = match attr::parse_crate_only(attr) {
        Ok(k) => k,
        Err(e) => {
            diag.push(e);
            None
        }
    }
    .unwrap_or_else(|| syn::parse_quote!(::phasegate));
    let func = match parse_function(
        &item,
        "#[device] applies to a function: `#[device] fn name(x: f32) -> f32 { ... }`",
    ) {
        Ok(f) => f,
        Err(out) => return out,
    };
    // What is wrong with the body at every call is reported here, once; kernels then do not
    // check it again (its bundle says it is poisoned).
    let mut narrow_casts = Vec::new();
    if let Some(sig) = Signature::read(&func, &mut diag) {
        let mut checker = Checker::new(&mut diag).lenient();
        checker.check_device(&sig, &func.block);
        narrow_casts = shadow::narrow_casts(&func.block, &checker.finish());
    }
    let callees = device::calls(&func.block);
    let own = func.sig.ident.to_string();
    for path in &callees {
        if path.get_ident().is_some_and(|i| *i == own) {
            diag.error(
                path.segments[0].ident.span(),
                format!("`{own}` calls itself (`{own}` -> `{own}`): device functions are inlined into the kernel's PTX, so they cannot recurse; write a loop"),
            );
        }
    }
    let copy = shadow::device_copy(&func, &krate, &narrow_casts);
    let errors = diag.to_compile_errors();
    // A function with errors is not lowered again by its callers: its callees do not matter.
    let callees = if diag.has_errors() {
        Vec::new()
    } else {
        callees
    };
    let def = device::definition(&func, &krate, diag.has_errors(), &callees);
    quote! { #copy #def #errors }
}

fn check_signature(func: &ItemFn, diag: &mut Diagnostics) {
    let sig = &func.sig;
    if let Some(t) = &sig.constness {
        diag.error(t.span(), "a kernel cannot be `const`");
    }
    if let Some(t) = &sig.asyncness {
        diag.error(t.span(), "a kernel cannot be `async`");
    }
    if let syn::Safety::Unsafe(t) = &sig.safety {
        diag.error(
            t.span(),
            "a kernel is not `unsafe`: the kernel language has no unsafe operations",
        );
    }
    if let Some(abi) = &sig.abi {
        diag.error(
            abi.span(),
            "a kernel has no `extern` ABI; #[kernel] gives it the PTX entry ABI",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        diag.error(
            sig.generics.span(),
            "a kernel cannot be generic: PTX entries have concrete parameter types",
        );
    }
    if let Some(v) = &sig.variadic {
        diag.error(v.span(), "a kernel cannot be variadic");
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        let unit = matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty());
        if !unit {
            diag.error(
                ty.span(),
                "a kernel returns nothing; write results through a `&mut [T]` parameter",
            );
        }
    }
}

/// The accepted parameters, and every parameter's name with its type if it was accepted.
fn collect_params(
    func: &ItemFn,
    diag: &mut Diagnostics,
) -> (Vec<Param>, Vec<(String, Option<Ty>)>) {
    let mut out = Vec::new();
    let mut names = Vec::new();
    for input in &func.sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                diag.error(r.span(), "a kernel is a free function; it has no `self`")
            }
            FnArg::Typed(pt) => {
                let name = match &*pt.pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                        if let Some(m) = &p.mutability {
                            diag.error(m.span(), "kernel parameters are immutable; bind a `let mut` copy in the body");
                        }
                        p.ident.to_string()
                    }
                    other => {
                        diag.error(
                            other.span(),
                            "a kernel parameter is a plain name: `x: &[f32]`",
                        );
                        continue;
                    }
                };
                match params::param_type(&pt.ty) {
                    Ok(ty) => {
                        names.push((name.clone(), Some(ty)));
                        out.push(Param { name, ty });
                    }
                    Err(e) => {
                        names.push((name, None));
                        diag.push(e);
                    }
                }
            }
        }
    }
    (out, names)
}

fn kernel_module(
    func: &ItemFn,
    krate: &syn::Path,
    kernel_params: &[Param],
    output: &Output,
) -> TokenStream {
    let name = &func.sig.ident;
    let vis = &func.vis;
    let docs = func.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let entry = name.unraw().to_string();
    let ptx = &output.ptx;
    let target = output.target.to_string();
    let shared = output.shared_bytes as u32;
    let dynamic = output.dynamic_shared_bytes as u32;
    let cluster = match output.cluster {
        Some((x, y, z)) => quote!(::core::option::Option::Some((#x, #y, #z))),
        None => quote!(::core::option::Option::None),
    };
    let block = match output.bounds.block {
        Some((x, y, z)) => quote!(::core::option::Option::Some((#x, #y, #z))),
        None => quote!(::core::option::Option::None),
    };
    let max_threads = match output.bounds.max_threads {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let specs = kernel_params.iter().map(|p| param_spec(krate, p));
    quote! {
        #(#docs)*
        #[allow(dead_code)]
        #vis mod #name {
            /// The PTX module of this kernel: one `.entry`, with `.loc` lines into the Rust source.
            pub const PTX: &str = #ptx;
            /// The `.entry` name in [`PTX`].
            pub const ENTRY: &str = #entry;
            /// The `.target` of [`PTX`].
            pub const TARGET: &str = #target;
            /// The parameters, in order.
            pub const PARAMS: &[#krate::runtime::ParamSpec] = &[#(#specs),*];
            /// Runs this kernel in phasegate's CPU simulator with typed arguments, as in
            /// `simulate(&Launch { grid: (2, 1, 1), block: (128, 1, 1), ..Launch::default() },
            /// (&x, &mut y, 2.0f32, n))`: `&mut` slices receive the results. A deadlock or
            /// undefined behaviour is an `Err` with its report.
            pub fn simulate<A: #krate::runtime::sim::KernelArgs>(
                launch: &#krate::runtime::sim::Launch,
                args: A,
            ) -> ::core::result::Result<#krate::runtime::sim::Stats, #krate::runtime::sim::RunError> {
                #krate::runtime::sim::run(&SPEC, launch, args)
            }
            /// Everything needed to simulate or launch this kernel.
            pub const SPEC: #krate::runtime::KernelSpec = #krate::runtime::KernelSpec {
                entry: ENTRY,
                ptx: PTX,
                target: TARGET,
                params: PARAMS,
                static_shared_bytes: #shared,
                dynamic_shared_bytes: #dynamic,
                cluster_dims: #cluster,
                block_dims: #block,
                max_threads: #max_threads,
            };
        }
    }
}

fn scalar_kind(krate: &syn::Path, prim: Prim) -> TokenStream {
    let variant = syn::Ident::new(
        match prim {
            Prim::U32 => "U32",
            Prim::I32 => "I32",
            Prim::U64 => "U64",
            Prim::I64 => "I64",
            Prim::F32 => "F32",
            Prim::F64 => "F64",
            Prim::Bool => "Bool",
            Prim::F16 => "F16",
            Prim::Bf16 => "Bf16",
            Prim::E4m3 => "F8E4M3",
            Prim::E5m2 => "F8E5M2",
        },
        Span::call_site(),
    );
    quote!(#krate::runtime::ScalarKind::#variant)
}

fn param_spec(krate: &syn::Path, p: &Param) -> TokenStream {
    let name = &p.name;
    let ty = match p.ty {
        Ty::Global { elem, mutable } => {
            let scalar = scalar_kind(krate, elem.prim);
            let lanes = elem.lanes;
            quote!(#krate::runtime::ParamType::Slice { elem: #krate::runtime::ElemType { scalar: #scalar, lanes: #lanes }, mutable: #mutable })
        }
        Ty::Prim(prim) => {
            let scalar = scalar_kind(krate, prim);
            quote!(#krate::runtime::ParamType::Scalar(#scalar))
        }
        Ty::TensorMap(m) => {
            let elem = scalar_kind(krate, m.elem);
            let (rank, dims, swizzle) = (m.rank, m.dims, m.swizzle);
            quote!(#krate::runtime::ParamType::TensorMap(#krate::runtime::MapType {
                elem: #elem, rank: #rank, box_dims: [#(#dims),*], swizzle: #swizzle,
            }))
        }
        Ty::MapSlots => quote!(#krate::runtime::ParamType::MapSlots),
        _ => syn::Error::new(Span::call_site(), "unreachable parameter type").to_compile_error(),
    };
    quote!(#krate::runtime::ParamSpec { name: #name, ty: #ty })
}
