"""The Triton hook on a CPU-only machine: Triton compiles to PTX (and ptxas to a cubin) for
sm_90 without a GPU, and its compilation listener sees every kernel."""

import warnings

import numpy as np
import pytest

import phasegate

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")
pt = pytest.importorskip("phasegate.triton")

from triton.backends.compiler import GPUTarget  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


# Triton keeps barriers uniform; inline PTX does not have to: every thread but thread 0 waits at
# `bar.sync 0`, which the whole CTA must reach (PTX ISA 9.7.13.1).
SKIP_BARRIER_ASM = tl.constexpr(
    "{ .reg .pred p; .reg .b32 t; mov.u32 t, %tid.x; setp.ne.u32 p, t, 0; "
    "@p bar.sync 0; mov.b32 $0, $1; }"
)


@triton.jit
def skip_barrier_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.inline_asm_elementwise(SKIP_BARRIER_ASM, "=r,r", [x], dtype=tl.float32, is_pure=False,
                                  pack=1)
    tl.store(out_ptr + offs, y, mask=m)


def compile_add():
    src = triton.compiler.ASTSource(
        add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 1024})
    return triton.compile(src, target=TARGET)


def compile_skip_barrier():
    src = triton.compiler.ASTSource(
        skip_barrier_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, {"BLOCK": 256})
    return triton.compile(src, target=TARGET)


@pytest.fixture(autouse=True)
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    pt.uninstall()
    pt.clear()
    yield
    pt.uninstall()
    pt.clear()


def phasegate_warnings(caught):
    return [w.message for w in caught if issubclass(w.category, phasegate.PhasegateWarning)]


def test_clean_kernel_is_seen_and_quiet():
    pt.install(mode="error")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = compile_add()
    assert phasegate_warnings(caught) == []
    [report] = pt.reports()
    assert report.name == "add_kernel"
    assert report.ok and report.findings == [] and not report.cache_hit
    assert report.ptx_path and report.ptx_path.endswith("add_kernel.ptx")
    assert report.hash == kernel.metadata.hash
    # The hook lints exactly the PTX Triton produced.
    assert phasegate.lint(kernel.asm["ptx"]) == []


def test_cache_hits_are_checked_too():
    pt.install()
    compile_add()
    compile_add()
    assert [r.cache_hit for r in pt.reports()] == [False, True]


def test_finding_in_a_triton_kernel_warns():
    pt.install(mode="warn")
    with pytest.warns(phasegate.PhasegateWarning) as caught:
        compile_skip_barrier()
    [w] = phasegate_warnings(caught)
    assert w.kernel == "skip_barrier_kernel"
    assert {f.lint for f in w.findings} == {"aligned_barrier_divergence"}
    # `.loc` maps the finding back to the Python line of the inline asm.
    assert all(f.source and f.source[0].endswith("test_triton.py") for f in w.findings)
    assert "error[aligned_barrier_divergence]" in str(w)
    [report] = pt.reports()
    assert not report.ok


def test_finding_in_a_triton_kernel_raises():
    pt.install(mode="error")
    with pytest.raises(phasegate.PhasegateError) as e:
        compile_skip_barrier()
    assert e.value.kernel == "skip_barrier_kernel"
    assert e.value.findings and e.value.findings[0].lint == "aligned_barrier_divergence"


def test_allowed_lint_is_quiet():
    pt.install(mode="error", allow=["aligned_barrier_divergence"])
    compile_skip_barrier()
    [report] = pt.reports()
    assert report.ok


def test_simulate_smoke_run():
    pt.install(mode="warn", simulate=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compile_add()
        compile_skip_barrier()
    add, skip = pt.reports()
    assert add.ok and add.skipped is None and add.sim_findings == []
    assert [f.kind for f in skip.sim_findings] == ["divergent_aligned_barrier"]
    assert len(phasegate_warnings(caught)) == 1


def test_simulate_with_a_chosen_launch():
    n = 3000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    results = []

    def launch(info):
        assert info.name == "add_kernel"
        assert [p[3] for p in info.params][:3] == [True, True, True]
        # Triton adds two scratch pointers after the kernel's own parameters.
        scratch = [np.zeros(64, np.uint8) for _ in info.params[4:]]
        out = np.zeros(n, dtype=np.float32)
        results.append(out)
        return {"grid": (n + 1023) // 1024, "block": info.metadata["num_warps"] * 32,
                "args": [x, y, out, n, *scratch]}

    pt.install(mode="error", simulate=launch)
    kernel = compile_add()
    [report] = pt.reports()
    assert report.ok and report.skipped is None
    # The same launch, run here, gives x + y.
    r = phasegate.simulate(kernel.asm["ptx"], "add_kernel", (n + 1023) // 1024,
                           kernel.metadata.num_warps * 32,
                           [x, y, np.zeros(n, np.float32), n, np.zeros(64, np.uint8),
                            np.zeros(64, np.uint8)])
    np.testing.assert_array_equal(r.buffers[2], x + y)


def test_check_a_ptx_string_directly(divergent_ptx):
    with pytest.warns(phasegate.PhasegateWarning):
        report = pt.check(divergent_ptx, "k", mode="warn")
    assert [f.lint for f in report.errors] == ["aligned_barrier_divergence"]
    with pytest.raises(phasegate.PhasegateError):
        pt.check(divergent_ptx, "k", mode="error")


def test_install_chains_and_uninstall_restores():
    seen = []

    def previous(**kw):
        seen.append(kw["src"].name)

    triton.knobs.compilation.listener = previous
    try:
        pt.install()
        assert pt.is_installed()
        assert triton.knobs.compilation.listener is not previous
        compile_add()
        assert seen == ["add_kernel"] and len(pt.reports()) == 1
        pt.uninstall()
        assert triton.knobs.compilation.listener is previous
        assert not pt.is_installed()
    finally:
        triton.knobs.compilation.listener = None


def test_context_manager_and_bad_arguments():
    with pt.installed(mode="error"):
        assert pt.is_installed()
    assert not pt.is_installed()
    assert triton.knobs.compilation.listener is None
    with pytest.raises(ValueError):
        pt.install(mode="loud")
    with pytest.raises(ValueError):
        pt.install(deny=["no_such_lint"])
    assert not pt.is_installed()


def test_unreadable_ptx_is_skipped_not_fatal():
    pt.install(mode="error")
    with pytest.warns(RuntimeWarning, match="not checked"):
        report = pt.check(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n", "k")
    assert report.skipped and "cannot read" in report.skipped
