import numpy as np
import pytest

import phasegate


def test_scale_kernel_numpy_in_and_out(scale_ptx):
    n = 100
    x = np.arange(n, dtype=np.float32).reshape(10, 10)
    y = np.zeros((10, 10), dtype=np.float32)
    r = phasegate.simulate(scale_ptx, "scale", grid=(n + 31) // 32, block=32, args=[x, y, 2.5, n])
    assert r.completed
    assert r.findings == []
    assert r.stats["ctas"] == 4
    assert r.kernel == "scale"
    out = r.buffers[1]
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float32 and out.shape == (10, 10)
    np.testing.assert_array_equal(out, 2.5 * x)
    # The inputs are copied, not written.
    assert not y.any()
    np.testing.assert_array_equal(r[0], x)
    assert r.buffers[2] is None and r.buffers[3] is None
    assert len(r) == 4


def test_bounds_and_non_contiguous_input(scale_ptx):
    base = np.arange(64, dtype=np.float32)
    x = base[::2]  # a strided view: copied contiguously
    y = np.full(32, -1.0, dtype=np.float32)
    r = phasegate.simulate(scale_ptx, None, 1, (32, 1, 1), [x, y, np.float32(3.0), 20])
    assert r.completed
    np.testing.assert_array_equal(r.buffers[1][:20], 3.0 * x[:20])
    np.testing.assert_array_equal(r.buffers[1][20:], -1.0)


def test_out_of_bounds_is_a_finding(scale_ptx):
    x = np.ones(8, dtype=np.float32)
    y = np.zeros(8, dtype=np.float32)
    r = phasegate.simulate(scale_ptx, "scale", 1, 32, [x, y, 1.0, 32])
    assert not r.completed
    assert [f.kind for f in r.findings] == ["out_of_bounds"]
    assert r.stats is None
    assert "out_of_bounds" in str(r.findings[0])


# Warp 0 waits at barrier 1 and warp 1 at barrier 2, each for 64 threads: a deadlock.
DEADLOCK_PTX = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry two_barriers()
{
 .reg .pred %p<2>;
 .reg .b32 %r<3>;
 mov.u32 %r1, %tid.x;
 shr.u32 %r2, %r1, 5;
 setp.eq.u32 %p1, %r2, 0;
 @%p1 bra A;
 bar.sync 2, 64;
 bra.uni E;
A:
 bar.sync 1, 64;
E:
 ret;
}
"""


def test_deadlock_is_a_finding():
    r = phasegate.simulate(DEADLOCK_PTX, "two_barriers", 1, 64, [])
    assert not r.completed
    f = r.findings[0]
    assert f.kind == "deadlock"
    assert f.spec
    assert {s.line for s in f.sites} == {13, 16}
    assert all(s.function == "two_barriers" for s in f.sites)
    assert f.schedule == ("round-robin", 0)
    assert str(f).startswith("error[deadlock]")
    assert "deadlock" in repr(r)


def test_explore_keeps_the_failing_schedule():
    r = phasegate.simulate(DEADLOCK_PTX, None, 1, 64, [], explore=4, seed=7, policy="random")
    assert not r.completed
    assert r.runs == 1
    assert r.schedule == ("random", 7)
    assert r.findings[0].schedule == ("random", 7)


def test_argument_errors(scale_ptx):
    x = np.ones(4, dtype=np.float32)
    with pytest.raises(TypeError, match="takes 4 arguments"):
        phasegate.simulate(scale_ptx, "scale", 1, 32, [x, x, 1.0])
    with pytest.raises(OverflowError):
        phasegate.simulate(scale_ptx, "scale", 1, 32, [x, x, 1.0, -1])
    with pytest.raises(TypeError, match="integer"):
        phasegate.simulate(scale_ptx, "scale", 1, 32, [x, x, 1.0, 2.5])
    with pytest.raises(TypeError):
        phasegate.simulate(scale_ptx, "scale", 1, 32, [x, x, "a", 4])
    with pytest.raises(ValueError, match="no .entry"):
        phasegate.simulate(scale_ptx, "nope", 1, 32, [x, x, 1.0, 4])
    with pytest.raises(phasegate.SimulationError):
        # a scalar where the kernel reads a pointer: 4 bytes for an 8-byte parameter
        phasegate.simulate(scale_ptx, "scale", 1, 32, [np.float32(1.0), x, 1.0, 4])
