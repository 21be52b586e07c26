"""Executors: where the per-shard work of the one driver (:mod:`scorekit.engine.driver`) runs.
Every executor has the same calls, so a family writes its shard function once:

* ``map(fn, items, args=())`` — ``[fn(item, *args) for item in items]``, in item order;
* ``map_model(make, make_args, fn, items)`` — ``state = make(*make_args)`` built once per worker
  (one BERTScorer per actor), each item run as ``fn(state, item)``;
* ``map_split(fn, items, n)`` and ``fetch(parts)`` — a hash-partitioned map: ``fn(item, n)``
  returns ``n`` parts, kept where they were made (on Ray, in the object store) until a shard
  holding them calls ``fetch``, and a last value.

:class:`InProcess` (``local``, the default) loops in this process; :class:`Forked` (``fork``) runs
``map`` with :func:`scorekit.forkmap.fork_map` (model work stays in this process); the Ray engine
(:class:`~scorekit.engine.ray_engine.RayEngine`) runs tasks and an actor pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scorekit.errors import UnknownNameError


class InProcess:
    """Everything in this process; the whole input is one shard (no cutting)."""

    name = "local"
    items_per_shard: int | None = None      # None: one shard

    def map(self, fn: Callable[..., Any], items: Sequence[Any], *, args: Iterable[Any] = (),
            desc: str = "shards") -> list[Any]:
        args = tuple(args)
        return [fn(item, *args) for item in items]

    def map_model(self, make: Callable[..., Any], make_args: tuple, fn: Callable[[Any, Any], Any],
                  items: Sequence[Any], *, desc: str = "shards") -> list[Any]:
        state = make(*make_args)
        return [fn(state, item) for item in items]

    def map_split(self, fn: Callable[..., Any], items: Sequence[Any], n: int, *,
                  desc: str = "shards") -> tuple[list[tuple], list[Any]]:
        """Each item's ``n`` parts, and the last values of ``fn(item, n)``."""
        outs = self.map(fn, items, args=(n,), desc=desc)
        return [tuple(o[:n]) for o in outs], [o[n] for o in outs]

    fetch = staticmethod(list)


class Forked(InProcess):
    """Shards over this machine's cores with ``fork`` (``workers`` parts; default
    :func:`scorekit.forkmap.default_workers`)."""

    name = "fork"

    def __init__(self, workers: int | None = None, items_per_shard: int | None = None):
        from scorekit.forkmap import default_workers

        self.workers = workers or default_workers()
        self.items_per_shard = items_per_shard

    def map(self, fn: Callable[..., Any], items: Sequence[Any], *, args: Iterable[Any] = (),
            desc: str = "shards") -> list[Any]:
        from scorekit.forkmap import fork_map

        args = tuple(args)
        return fork_map(lambda item: fn(item, *args), list(items))


def shard_size(executor: Any, n_items: int, default: int) -> int | None:
    """Items per shard on ``executor``: None (one shard) in process; the executor's own figure,
    else ``n_items / workers`` when forked, else ``default`` (Ray)."""
    if isinstance(executor, InProcess) and not isinstance(executor, Forked):
        return None
    size = getattr(executor, "items_per_shard", None)
    if size:
        return int(size)
    return max(1, -(-n_items // executor.workers)) if isinstance(executor, Forked) else default


def executor_for(engine: Any) -> Any:
    """The executor for an engine argument: None -> :class:`InProcess`; ``"local"``/``"fork"``
    by name; an executor (a started RayEngine) as it is."""
    if engine is None or engine == "local":
        return InProcess()
    if engine == "fork":
        return Forked()
    if isinstance(engine, str):
        raise UnknownNameError("executor", engine, ["local", "fork", "ray (a started RayEngine)"])
    return engine
