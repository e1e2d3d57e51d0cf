import pytest

import phasegate


def test_divergent_barrier_is_found(divergent_ptx):
    findings = phasegate.lint(divergent_ptx)
    assert findings, "expected a finding"
    f = findings[0]
    assert f.lint == "aligned_barrier_divergence"
    assert f.level == "deny"
    assert f.kernel == "k"
    # `bar.sync 0;` is line 12 of the text.
    assert (f.line, f.column) == (12, 2)
    assert isinstance(f.message, str) and f.message
    assert all(isinstance(line, int) and isinstance(col, int) and isinstance(msg, str)
               for line, col, msg in f.related)
    assert isinstance(f.notes, list)
    text = f.format("k.ptx")
    assert text.startswith("k.ptx:12:2: error[aligned_barrier_divergence]: ")
    assert "aligned_barrier_divergence" in repr(f)


def test_clean_kernel_has_no_findings(scale_ptx):
    assert phasegate.lint(scale_ptx) == []


def test_levels(divergent_ptx):
    assert phasegate.lint(divergent_ptx, allow="aligned_barrier_divergence") == []
    assert phasegate.lint(divergent_ptx, allow=["all"]) == []
    warned = phasegate.lint(divergent_ptx, warn=["aligned_barrier_divergence"])
    assert [f.level for f in warned] == ["warn"]
    # `all` applies first, then the named lints.
    only = phasegate.lint(divergent_ptx, allow="all", deny="aligned_barrier_divergence")
    assert [f.lint for f in only] == ["aligned_barrier_divergence"]


def test_unknown_lint_name(divergent_ptx):
    with pytest.raises(ValueError, match="aligned_barrier_divergenc"):
        phasegate.lint(divergent_ptx, allow=["aligned_barrier_divergenc"])
    with pytest.raises(ValueError, match="both"):
        phasegate.lint(divergent_ptx, allow="barrier_count", deny="barrier_count")


def test_read_error_has_a_position():
    with pytest.raises(phasegate.PtxError) as e:
        phasegate.lint(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n{\n ret;\n}\n")
    assert isinstance(e.value, ValueError)
    assert e.value.line >= 4
    assert e.value.column >= 1
    assert e.value.message
    assert str(e.value).startswith(f"line {e.value.line}, column {e.value.column}: ")


def test_bytes_input(divergent_ptx):
    assert len(phasegate.lint(divergent_ptx.encode())) == 1


def test_lints_and_entries(scale_ptx):
    names = {name for name, level, summary in phasegate.lints()}
    assert "aligned_barrier_divergence" in names
    assert phasegate.entries(scale_ptx) == [(
        "scale",
        [
            ("scale_param_0", "u64", 8, False),
            ("scale_param_1", "u64", 8, False),
            ("scale_param_2", "f32", 4, False),
            ("scale_param_3", "u32", 4, False),
        ],
    )]
