"""Lint every kernel Triton compiles in this process.

::

    import phasegate.triton
    phasegate.triton.install(mode="error")   # or "warn" (the default)

The hook is Triton's official compilation listener, ``triton.knobs.compilation.listener``
(Triton 3.9's ``triton.compiler.compile`` calls it once per compilation, cache hits
included, with the kernel's metadata and the paths of its IR files). It reads the PTX that
Triton wrote, lints it with :func:`phasegate.lint`, and reports deny-level findings as a
:class:`~phasegate.PhasegateWarning` (``mode="warn"``) or raises
:class:`~phasegate.PhasegateError` out of ``triton.compile`` / the first launch of a
``@triton.jit`` function (``mode="error"``). Warn-level findings are always warnings.

Because it hooks the compiler rather than the launcher it works without a GPU, e.g. for
``triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))`` on a CPU-only machine.
A listener that was installed before is kept and called first.

``simulate=True`` also runs each kernel once in the CPU simulator: one CTA (or one cluster)
of ``num_warps * 32`` threads with Triton's dynamic shared memory, zero-filled buffers for
pointer parameters and zero for scalars. That exercises the barriers outside data-dependent
loops; give a callable instead to choose the launch: it receives a :class:`KernelInfo` and
returns keyword arguments for :func:`phasegate.simulate` (``grid``, ``block``, ``args``, ...)
or ``None`` to skip the kernel. Simulator findings count as deny-level.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

import numpy as np

from . import (
    Finding,
    PhasegateError,
    PhasegateWarning,
    PtxError,
    SimFinding,
    SimulationError,
    entries,
    lint,
    simulate as _simulate,
)

__all__ = [
    "KernelInfo",
    "KernelReport",
    "PhasegateError",
    "PhasegateWarning",
    "check",
    "clear",
    "install",
    "installed",
    "reports",
    "uninstall",
]


@dataclass
class KernelInfo:
    """A kernel Triton compiled, as the ``simulate`` callable sees it."""

    name: str
    ptx: str
    #: Triton's metadata dict (``num_warps``, ``num_ctas``, ``shared``, ``hash``, ...).
    metadata: Dict[str, Any]
    #: ``[(param, type, bytes, is_pointer)]`` of the PTX entry.
    params: List[tuple]
    #: Where Triton wrote the PTX, when it did.
    ptx_path: Optional[str] = None


@dataclass
class KernelReport:
    """What the hook found in one compiled kernel."""

    name: str
    hash: str
    cache_hit: bool
    ptx_path: Optional[str]
    findings: List[Finding] = field(default_factory=list)
    sim_findings: List[SimFinding] = field(default_factory=list)
    #: Why the simulator could not run the kernel (``simulate`` on), or why nothing was
    #: checked (no PTX among Triton's files).
    skipped: Optional[str] = None

    @property
    def errors(self) -> List[Finding]:
        return [f for f in self.findings if f.level == "deny"]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.sim_findings

    def text(self) -> str:
        where = self.ptx_path or "<ptx>"
        parts = [f.format(where) for f in self.findings]
        parts += [str(f) for f in self.sim_findings]
        return "\n".join(parts)


_Simulate = Union[bool, Callable[[KernelInfo], Optional[Dict[str, Any]]]]


class _Hook:
    def __init__(
        self,
        mode: str,
        simulate: _Simulate,
        allow: List[str],
        warn: List[str],
        deny: List[str],
        previous: Any,
    ) -> None:
        self.mode = mode
        self.simulate = simulate
        self.allow, self.warn, self.deny = allow, warn, deny
        self.previous = previous
        self.active = True

    def __call__(self, *, src: Any, metadata: Dict[str, Any], metadata_group: Dict[str, str],
                 times: Any, cache_hit: bool) -> None:
        if self.previous is not None:
            self.previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times,
                          cache_hit=cache_hit)
        if not self.active:
            return
        name = str(metadata.get("name") or getattr(src, "name", "kernel"))
        ptx_path = next((p for k, p in metadata_group.items() if k.endswith(".ptx")), None)
        report = KernelReport(name=name, hash=str(metadata.get("hash", "")), cache_hit=cache_hit,
                              ptx_path=ptx_path)
        if ptx_path is None:
            report.skipped = "Triton kept no PTX for this kernel (TRITON_STORE_BINARY_ONLY?)"
            _record(report)
            return
        with open(ptx_path, encoding="utf-8") as f:
            ptx = f.read()
        self.check_ptx(ptx, report, metadata)

    def check_ptx(self, ptx: str, report: KernelReport, metadata: Dict[str, Any]) -> KernelReport:
        try:
            report.findings = lint(ptx, allow=self.allow, warn=self.warn, deny=self.deny)
        except PtxError as e:
            # phasegate's reader is at fault, not the kernel: say so, never fail the compile.
            report.skipped = f"phasegate cannot read the PTX: {e}"
            _record(report)
            warnings.warn(f"phasegate: Triton kernel `{report.name}` not checked: {report.skipped}",
                          RuntimeWarning, stacklevel=3)
            return report
        if self.simulate:
            self.run_simulator(ptx, report, metadata)
        _record(report)
        self.report(report)
        return report

    def run_simulator(self, ptx: str, report: KernelReport, metadata: Dict[str, Any]) -> None:
        kernels = dict(entries(ptx))
        params = kernels.get(report.name)
        if params is None:
            if len(kernels) != 1:
                report.skipped = f"no entry `{report.name}` in the PTX"
                return
            report.name, params = next(iter(kernels.items()))
        info = KernelInfo(report.name, ptx, dict(metadata), params, report.ptx_path)
        if callable(self.simulate):
            launch = self.simulate(info)
            if launch is None:
                report.skipped = "the simulate callable skipped this kernel"
                return
        else:
            launch = _smoke_launch(info)
        launch = dict(launch)
        launch.setdefault("kernel", report.name)
        try:
            result = _simulate(ptx, **launch)
        except SimulationError as e:
            report.skipped = f"the simulator cannot run this kernel: {e}"
            return
        report.sim_findings = list(result.findings)

    def report(self, report: KernelReport) -> None:
        errors = report.errors
        warns = [f for f in report.findings if f.level == "warn"]
        where = report.ptx_path or "<ptx>"
        if warns:
            text = "\n".join(f.format(where) for f in warns)
            warnings.warn(PhasegateWarning(
                f"phasegate: Triton kernel `{report.name}`: {len(warns)} warning(s)\n{text}",
                report.name, warns), stacklevel=3)
        if not errors and not report.sim_findings:
            return
        n = len(errors) + len(report.sim_findings)
        message = f"phasegate: Triton kernel `{report.name}`: {n} error(s)\n" + "\n".join(
            [f.format(where) for f in errors] + [str(f) for f in report.sim_findings])
        if self.mode == "error":
            raise PhasegateError(message, report.name, errors, report.sim_findings)
        warnings.warn(PhasegateWarning(message, report.name, errors, report.sim_findings),
                      stacklevel=3)


def _smoke_launch(info: KernelInfo, buffer_bytes: int = 1 << 20) -> Dict[str, Any]:
    args: List[Any] = []
    for _, _ty, size, is_pointer in info.params:
        if is_pointer:
            args.append(np.zeros(buffer_bytes, dtype=np.uint8))
        elif size in (4, 8):
            args.append(0)
        else:
            args.append(bytes(size))
    num_warps = int(info.metadata.get("num_warps", 4))
    num_ctas = int(info.metadata.get("num_ctas", 1) or 1)
    return {
        "grid": (num_ctas, 1, 1),
        "block": (num_warps * int(info.metadata.get("warp_size", 32) or 32), 1, 1),
        "args": args,
        "dynamic_shared": int(info.metadata.get("shared", 0) or 0),
        "max_steps": 50_000_000,
    }


_lock = threading.Lock()
_hook: Optional[_Hook] = None
_reports: List[KernelReport] = []


def _record(report: KernelReport) -> None:
    with _lock:
        _reports.append(report)


def _knobs() -> Any:
    try:
        import triton
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError("phasegate.triton needs Triton (pip install triton)") from e
    knobs = getattr(triton, "knobs", None)
    if knobs is None or not hasattr(knobs, "compilation") or not hasattr(knobs.compilation, "listener"):
        raise RuntimeError(
            f"phasegate.triton needs triton.knobs.compilation.listener, which Triton "
            f"{getattr(triton, '__version__', '?')} does not have (Triton 3.9 has it)")
    return knobs


def _check_mode(mode: str) -> None:
    if mode not in ("warn", "error"):
        raise ValueError(f"mode must be 'warn' or 'error', not {mode!r}")


def install(
    mode: str = "warn",
    simulate: _Simulate = False,
    *,
    allow: Union[str, Iterable[str]] = (),
    warn: Union[str, Iterable[str]] = (),
    deny: Union[str, Iterable[str]] = (),
) -> None:
    """Lints every kernel Triton compiles from now on (see the module's documentation).

    ``mode`` is ``"warn"`` (deny-level findings become :class:`PhasegateWarning`) or
    ``"error"`` (they raise :class:`PhasegateError`). ``allow``/``warn``/``deny`` configure
    lints as for :func:`phasegate.lint`. Installing again replaces the previous settings.
    """
    global _hook
    _check_mode(mode)
    from . import _names

    allow_l, warn_l, deny_l = _names(allow, "allow"), _names(warn, "warn"), _names(deny, "deny")
    _validate_names(allow_l, warn_l, deny_l)
    knobs = _knobs()
    uninstall()
    with _lock:
        _hook = _Hook(mode, simulate, allow_l, warn_l, deny_l, knobs.compilation.listener)
        knobs.compilation.listener = _hook


def _validate_names(allow: List[str], warn: List[str], deny: List[str]) -> None:
    # A module without functions lints to nothing; unknown names raise ValueError now
    # rather than at the first compilation.
    lint(".version 8.0\n.target sm_90\n.address_size 64\n", allow=allow, warn=warn, deny=deny)


def uninstall() -> None:
    """Stops linting Triton's kernels and puts back the listener that was there before."""
    global _hook
    with _lock:
        hook, _hook = _hook, None
    if hook is None:
        return
    hook.active = False
    knobs = _knobs()
    if knobs.compilation.listener is hook:
        knobs.compilation.listener = hook.previous
    # Otherwise another listener chained onto ours after install(); ours stays in its chain
    # but only forwards to the one before it.


def is_installed() -> bool:
    """Whether the hook is installed."""
    return _hook is not None


class installed:
    """``with phasegate.triton.installed(mode="error"): ...`` installs the hook for a block."""

    def __init__(self, mode: str = "warn", simulate: _Simulate = False, **lints: Any) -> None:
        self.args = (mode, simulate)
        self.lints = lints

    def __enter__(self) -> "installed":
        install(*self.args, **self.lints)
        return self

    def __exit__(self, *exc: Any) -> None:
        uninstall()


def reports() -> List[KernelReport]:
    """The kernels the hook has checked since it was installed (or since :func:`clear`)."""
    with _lock:
        return list(_reports)


def clear() -> None:
    """Forgets the recorded reports."""
    with _lock:
        _reports.clear()


def check(
    ptx: str,
    name: str = "kernel",
    metadata: Optional[Dict[str, Any]] = None,
    *,
    mode: Optional[str] = None,
    simulate: Optional[_Simulate] = None,
) -> KernelReport:
    """Runs the hook's check on PTX text, as if Triton had compiled it: the findings are
    recorded and reported by the installed hook's settings (or by ``mode``/``simulate``, or
    ``warn`` without simulation when no hook is installed)."""
    if mode is not None:
        _check_mode(mode)
    hook = _hook
    settings = _Hook(
        mode or (hook.mode if hook else "warn"),
        simulate if simulate is not None else (hook.simulate if hook else False),
        hook.allow if hook else [],
        hook.warn if hook else [],
        hook.deny if hook else [],
        None,
    )
    report = KernelReport(name=name, hash=str((metadata or {}).get("hash", "")), cache_hit=False,
                          ptx_path=None)
    return settings.check_ptx(ptx, report, dict(metadata or {}))
