"""Split pure-Python CPU work over this machine's cores with ``fork`` (docs/scale-out.md): the
children inherit what the parent has loaded instead of re-loading or pickling it.

:func:`fork_map` runs ``fn(part)`` for each part: the parent computes the first part itself, one
forked child per other part the rest, sent back pickled through a pipe. Results come back in
order and equal ``[fn(p) for p in parts]`` — a child that fails for any reason has its part
recomputed in the parent. Without ``os.fork`` or with one worker it is the plain loop. How many
processes: ``SCOREKIT_WORKERS`` (``1`` turns it off), else the usable cores; 1 inside a Ray worker.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_HEADER = struct.Struct("<q")     # pickle length


def default_workers() -> int:
    """``SCOREKIT_WORKERS`` when set, 1 inside a Ray worker, else the usable cores."""
    env = os.environ.get("SCOREKIT_WORKERS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            return 1
    if _in_ray_worker():
        return 1
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:     # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


def _in_ray_worker() -> bool:
    if "ray" not in sys.modules:
        return False
    try:
        import ray
        from ray._private.worker import global_worker

        return getattr(global_worker, "mode", None) == ray.WORKER_MODE
    except Exception:      # another Ray layout: assume a worker, stay in one process
        return True


def split(n: int, parts: int) -> list[range]:
    """``range(n)`` cut into ``parts`` contiguous, nearly equal ranges (none empty)."""
    parts = max(1, min(parts, n))
    bounds = [n * k // parts for k in range(parts + 1)]
    return [range(bounds[k], bounds[k + 1]) for k in range(parts)]


_FAILED = object()


def _collect(pid: int, r: int):
    """A child's result, or ``_FAILED`` when it did not finish cleanly."""
    body, size = b"", -1
    try:
        with open(r, "rb") as pipe:       # a short read: the child died before sending it all
            head = pipe.read(_HEADER.size)
            if len(head) == _HEADER.size:
                size = _HEADER.unpack(head)[0]
                body = pipe.read(size)
    finally:
        _, status = os.waitpid(pid, 0)
    return _FAILED if len(body) != size or os.waitstatus_to_exitcode(status) else pickle.loads(body)


def _one_thread() -> None:
    """In a forked child: torch computes on this one thread. The parent's OpenMP threads do not
    exist here, and a parallel region after torch used them in the parent never returns (a
    sweep's TextRank encoder, run once in process and then in forked parts, hung every child)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def fork_map(fn: Callable[[T], R], parts: Sequence[T]) -> list[R]:
    """``[fn(p) for p in parts]``, the parts after the first computed in forked children (``fn``
    may be a closure: nothing but its results is pickled)."""
    if len(parts) <= 1 or not hasattr(os, "fork"):
        return [fn(p) for p in parts]
    children: list[tuple[int, int]] = []     # (pid, read end)
    try:
        for part in parts[1:]:
            r, w = os.pipe()
            try:
                with warnings.catch_warnings():   # 3.12+ warns on fork with threads; the child
                    warnings.simplefilter("ignore", DeprecationWarning)   # runs only ``fn``
                    pid = os.fork()
            except OSError:
                os.close(r)
                os.close(w)
                raise
            if pid == 0:                     # child: compute, send, leave without cleanup
                code = 1
                try:
                    os.close(r)
                    _one_thread()
                    body = pickle.dumps(fn(part), protocol=pickle.HIGHEST_PROTOCOL)
                    with open(w, "wb") as pipe:
                        pipe.write(_HEADER.pack(len(body)) + body)
                    code = 0
                finally:
                    os._exit(code)
            os.close(w)
            children.append((pid, r))
    except OSError:                          # could not fork (limits): the rest in the parent
        pass
    results: list = []
    try:
        results.append(fn(parts[0]))
        while children:
            pid, r = children.pop(0)
            results.append(_collect(pid, r))
    finally:                                 # the parent failed or was interrupted: no orphans
        for pid, r in children:
            os.close(r)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(pid, 0)
    results += [_FAILED] * (len(parts) - len(results))     # parts no child was started for
    return [res if res is not _FAILED else fn(parts[k]) for k, res in enumerate(results)]
