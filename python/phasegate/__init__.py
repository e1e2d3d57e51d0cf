"""phasegate: the barrier analyzer and CPU simulator for NVIDIA GPU kernels, from Python.

- :func:`lint` runs the barrier analyzer on PTX text and returns :class:`Finding` objects;
- :func:`simulate` runs a kernel in the CPU simulator, with NumPy arrays as its buffers, and
  returns a :class:`SimResult` (final buffers, deadlock/race/undefined-behaviour findings);
- :mod:`phasegate.triton` lints (and optionally simulates) every kernel Triton compiles;
- the ``phasegate`` command is the same command line as the Rust binary.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import (
    Finding,
    PtxError,
    SimFinding,
    SimResult,
    SimulationError,
    Site,
    Struct,
    __version__,
)

__all__ = [
    "Finding",
    "KernelParam",
    "PhasegateError",
    "PhasegateWarning",
    "PtxError",
    "SimFinding",
    "SimResult",
    "SimulationError",
    "Site",
    "Struct",
    "__version__",
    "entries",
    "lint",
    "lints",
    "simulate",
]

#: A launch dimension: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, z)``.
Dims = Union[int, Sequence[int]]

#: ``(name, ptx_type, bytes, is_pointer)`` of one kernel parameter.
KernelParam = Tuple[str, str, int, bool]


class PhasegateWarning(UserWarning):
    """A deny-level finding reported as a warning (``phasegate.triton.install(mode="warn")``).

    ``kernel`` names the kernel, ``findings`` holds the lint :class:`Finding` objects and
    ``sim_findings`` the simulator's :class:`SimFinding` objects.
    """

    def __init__(
        self,
        message: str,
        kernel: str = "",
        findings: Sequence[Finding] = (),
        sim_findings: Sequence[SimFinding] = (),
    ) -> None:
        super().__init__(message)
        self.kernel = kernel
        self.findings = list(findings)
        self.sim_findings = list(sim_findings)


class PhasegateError(Exception):
    """A deny-level finding raised as an error (``phasegate.triton.install(mode="error")``).

    Same attributes as :class:`PhasegateWarning`.
    """

    def __init__(
        self,
        message: str,
        kernel: str = "",
        findings: Sequence[Finding] = (),
        sim_findings: Sequence[SimFinding] = (),
    ) -> None:
        super().__init__(message)
        self.kernel = kernel
        self.findings = list(findings)
        self.sim_findings = list(sim_findings)


def _text(ptx: Union[str, bytes]) -> str:
    if isinstance(ptx, (bytes, bytearray)):
        return bytes(ptx).decode("utf-8")
    if not isinstance(ptx, str):
        raise TypeError(f"PTX text must be str or bytes, not {type(ptx).__name__}")
    return ptx


def _names(names: Union[str, Iterable[str], None], what: str) -> List[str]:
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    out = list(names)
    for n in out:
        if not isinstance(n, str):
            raise TypeError(f"`{what}` takes lint names (str), not {type(n).__name__}")
    return out


def _dims(d: Dims, what: str) -> Tuple[int, int, int]:
    if isinstance(d, int):
        parts = [d]
    else:
        parts = [int(x) for x in d]
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"`{what}` has 1 to 3 dimensions, not {len(parts)}")
    if any(p < 1 for p in parts):
        raise ValueError(f"`{what}` dimensions must be positive: {tuple(parts)}")
    parts += [1] * (3 - len(parts))
    return (parts[0], parts[1], parts[2])


def lint(
    ptx: Union[str, bytes],
    *,
    allow: Union[str, Iterable[str]] = (),
    warn: Union[str, Iterable[str]] = (),
    deny: Union[str, Iterable[str]] = (),
) -> List[Finding]:
    """Runs the barrier analyzer on a PTX module.

    ``allow``, ``warn`` and ``deny`` take lint names (see :func:`lints`) or ``"all"``; entries
    naming ``"all"`` apply first, then the named ones, so ``allow="all", deny="barrier_count"``
    runs one lint. An unknown lint name raises ``ValueError``; PTX that cannot be read raises
    :class:`PtxError` (with ``line`` and ``column``).

    Returns the findings in module order; each has ``lint``, ``level`` (``"deny"`` or
    ``"warn"``), ``kernel``, ``line``, ``column``, ``message``, ``related`` (a list of
    ``(line, column, message)``), ``notes`` and ``source`` (``(file, line)`` from ``.loc``).
    """
    return _native.lint(
        _text(ptx),
        allow=_names(allow, "allow"),
        warn=_names(warn, "warn"),
        deny=_names(deny, "deny"),
    )


def lints() -> List[Tuple[str, str, str]]:
    """Every lint as ``(name, default_level, summary)``."""
    return _native.lints()


def entries(ptx: Union[str, bytes]) -> List[Tuple[str, List[KernelParam]]]:
    """The ``.entry`` functions of a module: ``[(name, [(param, type, bytes, is_pointer)])]``."""
    return _native.entries(_text(ptx))


def simulate(
    ptx: Union[str, bytes],
    kernel: Optional[str],
    grid: Dims,
    block: Dims,
    args: Sequence[Any],
    *,
    seed: int = 0,
    policy: str = "round-robin",
    cluster: Optional[Dims] = None,
    dynamic_shared: int = 0,
    max_steps: int = 1_000_000_000,
    race_check: bool = True,
    explore: Optional[int] = None,
) -> SimResult:
    """Runs one launch of a kernel in the CPU simulator.

    ``kernel`` names the ``.entry`` (``None``: the module's only one); ``grid`` and ``block``
    are 1 to 3 dimensions. ``args`` follow the kernel's parameters:

    - a NumPy array is a global buffer: its bytes are copied in and its address passed;
    - a NumPy scalar (``np.float16(1.5)``) or ``bytes`` is the parameter's raw bytes;
    - a :class:`Struct` is a by-value struct (``.param .b8 p[N]``, CUTLASS's ``Params``): its
      bytes with the simulator's addresses of its buffers written where it holds addresses;
    - a Python ``int``, ``float`` or ``bool`` is converted to the parameter's PTX type.

    ``policy`` (``round-robin``, ``random``, ``pct``, ``pct:DEPTH``) and ``seed`` choose the
    schedule; ``explore=N`` runs N schedules and keeps the first failing one. The result's
    ``buffers[i]`` is argument *i*'s final contents (same dtype and shape; a dict of its
    buffers for a :class:`Struct`; ``None`` for scalars), ``findings`` the simulator's findings (deadlock, race, undefined behaviour;
    the run stops at the first), ``completed`` and ``stats``.

    Raises :class:`PtxError` when the PTX cannot be read and :class:`SimulationError` when the
    simulator cannot run the kernel (not the kernel's fault).
    """
    return _native.simulate(
        _text(ptx),
        kernel,
        _dims(grid, "grid"),
        _dims(block, "block"),
        list(args),
        seed=seed,
        policy=policy,
        cluster=None if cluster is None else _dims(cluster, "cluster"),
        dynamic_shared=dynamic_shared,
        max_steps=max_steps,
        race_check=race_check,
        explore=explore,
    )
