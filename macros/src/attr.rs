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
                let name = path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
                let name = name.strip_prefix("phasegate::").unwrap_or(&name).to_string();
                if let Err(unknown) = config.set(&name, level) {
                    let e = syn::Error::new_spanned(path, format!("{unknown}; `phasegate lint --list` lists the lints"));
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
        let Some(text) = &self.cluster else { return Ok(None) };
        let dims: Vec<Option<u32>> = text.as_str().split(',').map(|d| d.trim().parse().ok()).collect();
        match dims.as_slice() {
            [Some(x), Some(y), Some(z)] if *x > 0 && *y > 0 && *z > 0 && x * y * z <= 16 => Ok(Some((*x, *y, *z))),
            [Some(x), Some(y), Some(z)] if *x > 0 && *y > 0 && *z > 0 => Err(syn::Error::new(
                text.span(),
                format!("a cluster has at most 16 CTAs (8 portably); {x}×{y}×{z} is {}", x * y * z),
            )),
            _ => Err(syn::Error::new(text.span(), "write the cluster shape as three positive numbers: `cluster = \"2,1,1\"`")),
        }
    }

    /// The pinned target, checked: `sm_XY` or `sm_XYa`, at least sm_70.
    pub fn pinned_target(&self) -> Result<Option<SmVersion>, syn::Error> {
        let Some(target) = &self.target else { return Ok(None) };
        match SmVersion::parse(target.as_str()) {
            Some(sm) if sm.number >= MIN_TARGET.number => Ok(Some(sm)),
            Some(_) => Err(syn::Error::new(target.span(), format!("phasegate generates code for {MIN_TARGET} and later; `{}` is older", target.as_str()))),
            None => Err(syn::Error::new(
                target.span(),
                format!("`{}` is not a PTX target; write it as `sm_80`, `sm_90` or `sm_90a`", target.as_str()),
            )),
        }
    }
}
