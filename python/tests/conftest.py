import pathlib

import pytest

HERE = pathlib.Path(__file__).parent

# bar.sync under a branch on %tid.x: thread 0 skips the barrier that the rest of its warp waits at,
# and waits at the next one (a thread that skipped it and exited would only have left the CTA,
# which a count-less barrier allows).
DIVERGENT_BARRIER_PTX = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry k()
{
 .reg .pred %p<2>;
 .reg .b32 %r<2>;
 mov.u32 %r1, %tid.x;
 setp.eq.u32 %p1, %r1, 0;
 @%p1 bra L;
 bar.sync 0;
L:
 bar.sync 0;
 ret;
}
"""


@pytest.fixture
def divergent_ptx():
    return DIVERGENT_BARRIER_PTX


@pytest.fixture
def scale_ptx():
    # nvcc 13.0's `y[i] = a * x[i]` (tests/fixtures/ptx/scale_ref.ptx of the repository).
    return (HERE / "data" / "scale_ref.ptx").read_text()
