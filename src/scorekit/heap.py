"""The C heap of a one-shot ``scorekit`` process: freed memory is kept for reuse, not handed
back to the kernel.

glibc serves every allocation above its mmap threshold (at most 32 MiB) with a fresh ``mmap``
and unmaps it on free, so each large numpy temporary — tens of MiB per array at a few million
run lines — is paid again in page faults: the kernel maps and zeroes every 4 KiB page on first
touch. A 3 M-line ``scorekit retrieval`` spent about 0.3 s of system time that way, half as
much as its user time. With mmap off (``M_MMAP_MAX = 0``) and no trimming of the heap's top, a
freed array's pages are reused by the next one. Peak memory does not grow (freed pages are
reused, not added); the process keeps what it touched until it exits, which a command that
exits after one evaluation does anyway.

numpy's transparent huge pages are turned off as well (``NUMPY_MADVISE_HUGEPAGE=0`` unless the
user set it): with the kernel's THP in ``madvise`` mode, numpy asks for 2 MiB pages for every
array of 4 MiB or more, and on a busy machine each such fault zeroes 2 MiB and may stall on
compaction — measured at 10 M run lines: 1.0-1.3 s of system time with them, 0.3-0.5 s without.

Commands that do no linear algebra (``retrieval``, ``fuse``) also start numpy's OpenBLAS with
one thread (``OPENBLAS_NUM_THREADS=1`` unless set): its thread pool is started at import and
spins for a while, about 20 ms of CPU time per run for nothing.

Only the CLI calls :func:`prepare` (a library user's long-lived process keeps glibc's
defaults). Elsewhere than glibc it does nothing.
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
