"""The ``phasegate`` console script: the same command line as the Rust binary."""

from __future__ import annotations

import sys
from typing import Optional, Sequence

from . import _native


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``phasegate ARGS`` (``sys.argv[1:]`` by default); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    status, out = _native.cli(args)
    sys.stdout.write(out)
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
