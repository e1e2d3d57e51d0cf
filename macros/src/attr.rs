//! The arguments of `#[kernel(...)]`.

use darling::FromMeta;
use darling::util::SpannedValue;
use phasegate_ptx::SmVersion;
use proc_macro2::TokenStream;

/// `#[kernel(target = "sm_90a", crate = "::phasegate")]`
#[derive(Default, FromMeta)]
pub struct KernelArgs {
    /// The `.target` to pin the kernel to. Without it, the kernel targets the lowest
    /// architecture (from sm_80 up) that has every feature it uses.
    #[darling(default)]
    pub target: Option<SpannedValue<String>>,
    /// The path of the `phasegate` crate, for crates that rename it.
    #[darling(default, rename = "crate")]
    pub krate: Option<syn::Path>,
    /// The cluster shape the kernel requires, `"2,1,1"` (`.reqnctapercluster`; sm_90).
    #[darling(default)]
    pub cluster: Option<SpannedValue<String>>,
    /// The exact block shape, `"160,1,1"` (`.reqntid`): launches of another shape are errors,
    /// and `warp_id()` and `block_dim_*()` become what the shape makes them.
    #[darling(default)]
    pub block: Option<SpannedValue<String>>,
    /// The most threads in a block (`.maxntid N, 1, 1`), CUDA's `__launch_bounds__(N)`.
    #[darling(default)]
    pub max_threads: Option<SpannedValue<u32>>,
    /// With `max_threads` or `block`: how many blocks must fit on one SM at once
    /// (`.minnctapersm`), CUDA's `__launch_bounds__(N, M)`. ptxas then budgets registers for
    /// exactly that many blocks instead of as many as fit.
    #[darling(default)]
    pub min_blocks_per_sm: Option<SpannedValue<u32>>,
    /// The registers per thread (`.maxnreg N`, nvcc's `-maxrregcount`): what every warp group
    /// starts with, and what `warpgroup_registers` moves between roles.
    #[darling(default)]
    pub max_registers: Option<SpannedValue<u32>>,
    /// Lints to silence, warn about or deny in this kernel: `allow(barrier_red_sync_mix)`.
    #[darling(default)]
    pub allow: darling::util::PathList,
    #[darling(default)]
    pub warn: darling::util::PathList,
    #[darling(default)]
    pub deny: darling::util::PathList,
}

/// The lowest target phasegate generates code for.
pub const MIN_TARGET: SmVersion = SmVersion::new(70);

pub fn parse(attr: TokenStream) -> Result<KernelArgs, syn::Error> {
    let items = darling::ast::NestedMeta::parse_meta_list(attr)?;
    KernelArgs::from_list(&items).map_err(syn::Error::from)
}

/// `#[device(crate = "::phasegate")]`: a device function's only argument.
#[derive(Default, FromMeta)]
struct DeviceArgs {
    #[darling(default, rename = "crate")]
    krate: Option<syn::Path>,
}

/// The `crate = ...` argument of `#[device]`, if given.
pub fn parse_crate_only(attr: TokenStream) -> Result<Option<syn::Path>, syn::Error> {
    let items = darling::ast::NestedMeta::parse_meta_list(attr)?;
    Ok(DeviceArgs::from_list(&items)
        .map_err(syn::Error::from)?
        .krate)
}

impl KernelArgs {
    /// The analyzer's configuration for this kernel: the default levels, changed by
    /// `allow(...)`, `warn(...)` and `deny(...)`; an unknown lint name is an error on it.
    pub fn lint_config(&self) -> Result<phasegate_lints::LintConfig, syn::Error> {
        let mut config = phasegate_lints::LintConfig::default();
        let mut errors: Option<syn::Error> = None;
        let levels = [
            (&self.allow, phasegate_lints::Level::Allow),
            (&self.warn, phasegate_lints::Level::Warn),
            (&self.deny, phasegate_lints::Level::Deny),
        ];
        for (paths, level) in levels {
            for path in paths.iter() {
                let name = path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect::<Vec<_>>()
                    .join("::");
                let name = name
                    .strip_prefix("phasegate::")
                    .unwrap_or(&name)
                    .to_string();
                if let Err(unknown) = config.set(&name, level) {
                    let e = syn::Error::new_spanned(
                        path,
                        format!("{unknown}; `phasegate lint --list` lists the lints"),
                    );
                    match &mut errors {
                        Some(all) => all.combine(e),
                        None => errors = Some(e),
                    }
                }
            }
        }
        match errors {
            Some(e) => Err(e),
            None => Ok(config),
        }
    }

    /// The cluster shape, checked: three positive numbers with a product of at most 16.
    pub fn cluster_dims(&self) -> Result<Option<(u32, u32, u32)>, syn::Error> {
        let Some(text) = &self.cluster else {
            return Ok(None);
        };
        dims3(
            text,
            "a cluster",
            "CTAs (8 portably)",
            16,
            "cluster = \"2,1,1\"",
        )
        .map(Some)
    }

    /// The launch bounds, checked: a block shape of at most 1024 threads, `max_threads` from 1 to
    /// 1024 and not below the block's size, `min_blocks_per_sm` positive and only with one of
    /// the two (PTX ISA §11.4.4: `.minnctapersm` takes effect with `.maxntid` or `.reqntid`).
    pub fn launch_bounds(&self) -> Result<LaunchBounds, syn::Error> {
        let mut errors: Option<syn::Error> = None;
        let mut push = |e: syn::Error| match &mut errors {
            Some(all) => all.combine(e),
            None => errors = Some(e),
        };
        let block = match &self.block {
            Some(text) => dims3(text, "a block", "threads", 1024, "block = \"128,1,1\"")
                .map_err(&mut push)
                .ok(),
            None => None,
        };
        let max_threads = self.max_threads.as_ref().and_then(|n| {
            let v = **n;
            if !(1..=1024).contains(&v) {
                push(syn::Error::new(
                    n.span(),
                    format!("a block has 1 to 1024 threads; `max_threads = {v}` is outside that"),
                ));
                return None;
            }
            if let Some((x, y, z)) = block
                && x * y * z > v
            {
                push(syn::Error::new(
                    n.span(),
                    format!(
                        "`block` has {} threads, more than `max_threads = {v}`",
                        x * y * z
                    ),
                ));
                return None;
            }
            Some(v)
        });
        let min_blocks_per_sm = self.min_blocks_per_sm.as_ref().and_then(|m| {
            let v = **m;
            if v == 0 {
                push(syn::Error::new(m.span(), "`min_blocks_per_sm` is at least 1"));
                return None;
            }
            if self.max_threads.is_none() && self.block.is_none() {
                push(syn::Error::new(
                    m.span(),
                    "`min_blocks_per_sm` needs the block size: add `max_threads = N` (as in `__launch_bounds__(N, M)`) or `block = \"x,y,z\"`",
                ));
                return None;
            }
            Some(v)
        });
        // ptxas allocates up to 255 registers a thread; `setmaxnreg` moves counts that are
        // multiples of 8 from 24 to 256, so a budget it starts from is one of those.
        let max_registers = self.max_registers.as_ref().and_then(|r| {
            let v = **r;
            if !(24..=248).contains(&v) || !v.is_multiple_of(8) {
                push(syn::Error::new(
                    r.span(),
                    format!("`max_registers` is a multiple of 8 from 24 to 248 (a thread has at most 255 registers; `setmaxnreg` moves multiples of 8); {v} is not"),
                ));
                return None;
            }
            Some(v)
        });
        match errors {
            Some(e) => Err(e),
            None => Ok(LaunchBounds {
                block,
                max_threads,
                min_blocks_per_sm,
                max_registers,
            }),
        }
    }

    /// The pinned target, checked: `sm_XY` or `sm_XYa`, at least sm_70.
    pub fn pinned_target(&self) -> Result<Option<SmVersion>, syn::Error> {
        let Some(target) = &self.target else {
            return Ok(None);
        };
        match SmVersion::parse(target.as_str()) {
            Some(sm) if sm.number >= MIN_TARGET.number => Ok(Some(sm)),
            Some(_) => Err(syn::Error::new(
                target.span(),
                format!(
                    "phasegate generates code for {MIN_TARGET} and later; `{}` is older",
                    target.as_str()
                ),
            )),
            None => Err(syn::Error::new(
                target.span(),
                format!(
                    "`{}` is not a PTX target; write it as `sm_80`, `sm_90` or `sm_90a`",
                    target.as_str()
                ),
            )),
        }
    }
}

/// What `block`, `max_threads` and `min_blocks_per_sm` say about a kernel's launches.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LaunchBounds {
    pub block: Option<(u32, u32, u32)>,
    pub max_threads: Option<u32>,
    pub min_blocks_per_sm: Option<u32>,
    pub max_registers: Option<u32>,
}

impl LaunchBounds {
    /// The entry directives: `.reqntid`, `.maxntid`, `.minnctapersm`.
    pub fn directives(&self) -> Vec<phasegate_ptx::Directive> {
        let int = |v: u32| phasegate_ptx::DirectiveArg::Int(v as u64);
        let mut out = Vec::new();
        if let Some((x, y, z)) = self.block {
            out.push(phasegate_ptx::Directive {
                name: "reqntid".into(),
                args: vec![int(x), int(y), int(z)],
            });
        }
        if let Some(n) = self.max_threads {
            out.push(phasegate_ptx::Directive {
                name: "maxntid".into(),
                args: vec![int(n), int(1), int(1)],
            });
        }
        if let Some(m) = self.min_blocks_per_sm {
            out.push(phasegate_ptx::Directive {
                name: "minnctapersm".into(),
                args: vec![int(m)],
            });
        }
        if let Some(r) = self.max_registers {
            out.push(phasegate_ptx::Directive {
                name: "maxnreg".into(),
                args: vec![int(r)],
            });
        }
        out
    }
}

/// Three positive numbers `"x,y,z"` whose product is at most `max`.
fn dims3(
    text: &SpannedValue<String>,
    what: &str,
    unit: &str,
    max: u32,
    example: &str,
) -> Result<(u32, u32, u32), syn::Error> {
    let dims: Vec<Option<u32>> = text
        .as_str()
        .split(',')
        .map(|d| d.trim().parse().ok())
        .collect();
    match dims.as_slice() {
        [Some(x), Some(y), Some(z)] if *x > 0 && *y > 0 && *z > 0 => {
            let product = *x as u64 * *y as u64 * *z as u64;
            if product <= max as u64 {
                Ok((*x, *y, *z))
            } else {
                Err(syn::Error::new(
                    text.span(),
                    format!("{what} has at most {max} {unit}; {x}×{y}×{z} is {product}"),
                ))
            }
        }
        _ => Err(syn::Error::new(
            text.span(),
            format!("write the shape of {what} as three positive numbers: `{example}`"),
        )),
    }
}
