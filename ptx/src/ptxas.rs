//! Running NVIDIA's `ptxas` on PTX text, to check that what phasegate writes assembles.
//!
//! `ptxas` needs no GPU. It is found through the `PTXAS` environment variable, else in the
//! `nvidia-cuda-nvcc-cu12` Python package (`python3 -m pip install
//! nvidia-cuda-nvcc-cu12==12.9.86`), else on `PATH`.

use crate::model::SmVersion;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// Finds `ptxas`, or says how to install it.
pub fn locate() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PTXAS") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("PTXAS={} is not a file", path.display()))
        };
    }
    let from_pip = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvcc as m; print(list(m.__path__)[0])",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            Path::new(String::from_utf8_lossy(&o.stdout).trim())
                .join("bin")
                .join("ptxas")
        })
        .filter(|p| p.is_file());
    if let Some(path) = from_pip {
        return Ok(path);
    }
    let on_path = Command::new("ptxas")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success());
    if on_path.is_some() {
        return Ok(PathBuf::from("ptxas"));
    }
    Err("ptxas not found: set PTXAS, or run `python3 -m pip install nvidia-cuda-nvcc-cu12==12.9.86`".into())
}

/// What `ptxas` said about one PTX text.
#[derive(Debug)]
pub struct Assembly {
    /// `ptxas` exited with success and printed no warning.
    pub clean: bool,
    /// Everything it printed.
    pub log: String,
}

impl Assembly {
    /// The lines ptxas printed as information, not as warnings, that say it slowed the code: the
    /// "Potential Performance Loss" lines (wgmmas it serialized, C7514: accumulator registers
    /// touched while a group is in flight; C7510: a wgmma pipeline crossing a call;
    /// `setmaxnreg` it ignored, C7506), and the `warpgroup.arrive` it injected between wgmmas
    /// (C7519), which a batch that is not straight-line code draws (a branch or a predicate
    /// between its wgmmas): six a stage cost the Hopper GEMM 4–5 % on an H200 (2026-11-28,
    /// the book's "Where the epilogue's time goes, and a ragged K"). A hand-written fixture may
    /// show them on purpose; a kernel phasegate emits should not.
    pub fn performance_losses(&self) -> Vec<&str> {
        self.log
            .lines()
            .filter(|l| {
                l.to_lowercase().contains("potential performance loss") || l.contains("(C7519)")
            })
            .collect()
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Assembles `ptx` for `arch` (`ptxas -arch=sm_90a`), discarding the machine code.
pub fn assemble(ptxas: &Path, ptx: &str, arch: SmVersion) -> Result<Assembly, String> {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir();
    let stem = format!("phasegate-{}-{n}", std::process::id());
    let input = dir.join(format!("{stem}.ptx"));
    let output = dir.join(format!("{stem}.cubin"));
    std::fs::write(&input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let run = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()));
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let run = run?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let clean = run.status.success() && !log.to_lowercase().contains("warning");
    Ok(Assembly { clean, log })
}

#[cfg(test)]
mod tests {
    use super::Assembly;

    #[test]
    fn performance_losses_are_the_information_lines_that_say_so_and_injected_arrives() {
        let log = "ptxas info    : (C7519) warpgroup.arrive is injected in around line 1377\n\
                   ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized\n\
                   ptxas info    : Used 168 registers";
        let a = Assembly {
            clean: true,
            log: log.into(),
        };
        assert_eq!(a.performance_losses().len(), 2);
        assert!(a.performance_losses()[0].contains("C7519"));
        assert!(a.performance_losses()[1].contains("C7514"));
    }
}
