"""The C heap of a one-shot ``scorekit`` process (docs/scale-out.md, "Memory pages on big runs"):
freed memory is kept for reuse (glibc's mmap off, no trimming of the heap's top), so each large
numpy temporary is not paid again in page faults; numpy's transparent huge pages are turned off
(``NUMPY_MADVISE_HUGEPAGE=0`` unless set); ``retrieval`` and ``fuse``, which do no linear algebra,
start OpenBLAS with one thread (``OPENBLAS_NUM_THREADS=1`` unless set). Only the CLI calls
:func:`prepare` (a library user's long-lived process keeps glibc's defaults). Elsewhere than glibc
it does nothing.
"""

from __future__ import annotations

import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_NO_BLAS = frozenset({"retrieval", "fuse"})


def prepare(argv: list[str]) -> None:
    """Set the process up for the one ``scorekit`` command in ``argv`` (before numpy loads)."""
    if argv[:1] and argv[0] in _NO_BLAS:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    keep_freed_memory()


def keep_freed_memory() -> bool:
    """Switch glibc's heap to reuse freed memory and numpy's huge pages off (see above); True
    when the heap setting took effect."""
    if not sys.platform.startswith("linux"):
        return False
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")  # read when numpy is imported
    if "numpy" in sys.modules and os.environ["NUMPY_MADVISE_HUGEPAGE"] == "0":
        try:
            sys.modules["numpy"]._core.multiarray._set_madvise_hugepage(False)
        except AttributeError:  # pragma: no cover - numpy < 2
            pass
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = mallopt(_M_MMAP_MAX, 0) == 1
    return bool(mallopt(_M_TRIM_THRESHOLD, 2**31 - 1) == 1 and ok)
