"""By-value struct arguments: CUTLASS's SM90 ping-pong GEMM run from the ``Params`` recorded
on an H100 (``tests/realworld/cutlass/run/`` of the repository), against the H100's output."""

import pathlib

import numpy as np
import pytest

import phasegate

CUTLASS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "realworld" / "cutlass"
PTX = CUTLASS / "sm90_f16_pingpong_64x128x64_c2x1.ptx"
RUN = CUTLASS / "run"
LAUNCH = dict(grid=(2, 2, 1), block=384, cluster=(2, 1, 1), dynamic_shared=214016)


def test_loaded_description_matches_the_h100():
    s = phasegate.Struct.load(RUN / "f16_pingpong_int.struct")
    assert s.size == 1792 and s.buffer_names == ["A", "B", "C", "D"]
    r = phasegate.simulate(PTX.read_text(), None, args=[s], **LAUNCH)
    assert r.completed, r.findings
    out = r.buffers[0]
    assert out["D"].dtype == np.uint8
    gpu = np.fromfile(RUN / "f16_pingpong_int.D.bin", dtype=np.uint8)
    np.testing.assert_array_equal(out["D"], gpu)


def test_arrays_and_relocations_from_python():
    m, n, k = 128, 256, 128
    a = np.fromfile(RUN / "f16_pingpong_int.A.bin", dtype=np.float16).reshape(m, k)
    b = np.fromfile(RUN / "f16_pingpong_int.B.bin", dtype=np.float16).reshape(n, k)
    c = np.fromfile(RUN / "f16_pingpong_int.C.bin", dtype=np.float16).reshape(m, n)
    d = np.zeros((m, n), dtype=np.float16)
    params = (RUN / "f16_pingpong_int.params").read_bytes()
    s = phasegate.Struct(
        params,
        buffers={"A": a, "B": b, "C": c, "D": d},
        tmap={0x80: "A", 0x180: "B", 0x380: ("C", 0), 0x480: "D"},
    )
    r = phasegate.simulate(PTX.read_text(), None, args=[s], **LAUNCH)
    assert r.completed, r.findings
    out = r.buffers[0]["D"]
    assert out.dtype == np.float16 and out.shape == (m, n)
    want = a.astype(np.float64) @ b.astype(np.float64).T + c.astype(np.float64)
    np.testing.assert_array_equal(out, want.astype(np.float16))
    assert not d.any()  # the inputs are copied, not written


def test_bad_structs_are_errors():
    params = (RUN / "f16_pingpong_int.params").read_bytes()
    with pytest.raises(ValueError, match=r"no buffer named `E` \(the struct's buffers: A\)"):
        phasegate.Struct(params, buffers={"A": np.zeros(8, np.uint8)}, tmap={0x80: "E"})
    with pytest.raises(TypeError, match="a target is a buffer name"):
        phasegate.Struct(params, ptr={0: 1.5})
    # A Markdown file: its heading is a comment, its first sentence not a description line.
    with pytest.raises(ValueError, match=r"SOURCES.md: line 3: .* is not `bytes PATH`"):
        phasegate.Struct.load(RUN.parent / "SOURCES.md")
    s = phasegate.Struct(params, buffers={"A": np.zeros(64, np.uint8)}, ptr={1788: "A"})
    with pytest.raises(phasegate.SimulationError, match="ptr at 0x6fc: 8 bytes from there do not fit"):
        phasegate.simulate(PTX.read_text(), None, args=[s], **LAUNCH)
