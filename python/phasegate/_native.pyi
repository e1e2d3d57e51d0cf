import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str

class PtxError(ValueError):
    line: int
    column: int
    message: str

class SimulationError(RuntimeError): ...

class Finding:
    lint: str
    level: str
    kernel: str
    line: int
    column: int
    message: str
    related: List[Tuple[int, int, str]]
    notes: List[str]
    source: Optional[Tuple[str, int]]
    def format(self, file: str = "<ptx>") -> str: ...

class Site:
    cta: Tuple[int, int, int]
    warp: int
    lanes: int
    tid: Tuple[int, int, int]
    line: int
    function: str
    instruction: str
    what: str

class SimFinding:
    kind: str
    message: str
    spec: str
    sites: List[Site]
    state: List[str]
    notes: List[str]
    schedule: Tuple[str, int]
    thread_instructions: int
    text: str

class Struct:
    def __init__(
        self,
        data: bytes,
        buffers: Optional[Dict[str, np.ndarray]] = ...,
        ptr: Optional[Dict[int, Any]] = ...,
        tmap: Optional[Dict[int, Any]] = ...,
    ) -> None: ...
    @staticmethod
    def load(path: Union[str, os.PathLike]) -> Struct: ...
    @property
    def size(self) -> int: ...
    @property
    def buffer_names(self) -> List[str]: ...

class SimResult:
    kernel: str
    schedule: Tuple[str, int]
    runs: int
    @property
    def buffers(self) -> List[Any]: ...
    @property
    def findings(self) -> List[SimFinding]: ...
    @property
    def stats(self) -> Optional[dict]: ...
    @property
    def completed(self) -> bool: ...
    def __getitem__(self, index: int) -> Optional[np.ndarray]: ...
    def __len__(self) -> int: ...

def lint(ptx: str, *, allow: List[str] = ..., warn: List[str] = ..., deny: List[str] = ...) -> List[Finding]: ...
def lints() -> List[Tuple[str, str, str]]: ...
def entries(ptx: str) -> List[Tuple[str, List[Tuple[str, str, int, bool]]]]: ...
def cli(args: List[str]) -> Tuple[int, str]: ...
def simulate(
    ptx: str,
    kernel: Optional[str],
    grid: Tuple[int, int, int],
    block: Tuple[int, int, int],
    args: Sequence[Any],
    *,
    seed: int = ...,
    policy: str = ...,
    cluster: Optional[Tuple[int, int, int]] = ...,
    dynamic_shared: int = ...,
    max_steps: int = ...,
    race_check: bool = ...,
    explore: Optional[int] = ...,
) -> SimResult: ...
