"""The Ray engine: shard tasks on a local or remote Ray cluster, merged on the driver.

``RayEngine()`` joins the cluster at ``address`` (or ``$RAY_ADDRESS``) when given, otherwise
starts a local Ray with this machine's cores and shuts it down on exit, so nothing is left
running. Tasks are retried when a worker dies (``max_retries``), so a lost worker costs time,
never a wrong number. A :class:`~scorekit.errors.ScorekitError` raised inside a task (a shard that
fails to parse, with its name and line) reaches the caller unchanged and fails the whole job.
Progress (shards done / total) is shown on stderr.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scorekit.errors import MissingDependencyError, ScorekitError

TASK_RETRIES = 3


def _require_ray():
    try:
        import ray
    except ImportError:
        raise MissingDependencyError("--engine ray needs Ray: pip install 'scorekit[ray]'") from None
    return ray


class RayEngine:
    """Context manager around a Ray connection; :meth:`map` runs a function over items."""

    name = "ray"

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 progress: bool | None = None, retries: int = TASK_RETRIES):
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.num_cpus = num_cpus
        self.retries = retries
        self.progress = sys.stderr.isatty() if progress is None else progress
        self._started = False
        self.ray = None

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> "RayEngine":
        ray = _require_ray()
        self.ray = ray
        if ray.is_initialized():
            return self
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": True, "logging_level": "ERROR"}
        # Workers import scorekit from the same place the driver does.
        src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        kw["runtime_env"] = {"env_vars": {"PYTHONPATH": os.pathsep.join(
            [src, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]),
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}}
        try:
            if self.address:
                ray.init(address=self.address, **kw)
            else:
                cpus = self.num_cpus or int(os.environ.get("SCOREKIT_RAY_NUM_CPUS") or 0) or os.cpu_count()
                ray.init(num_cpus=cpus, **kw)
        except ConnectionError as exc:
            raise ScorekitError(f"--address {self.address}: cannot join the Ray cluster ({exc})") from None
        self._started = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._started and self.ray is not None:
            self.ray.shutdown()
            self._started = False

    @property
    def n_workers(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    # ------------------------------------------------------------------ work
    def put(self, value: Any):
        return self.ray.put(value)

    def map(self, fn: Callable[..., Any], items: Sequence[Any], *, args: Iterable[Any] = (),
            desc: str = "shards", **options: Any) -> list[Any]:
        """``[fn(item, *args) for item in items]`` as Ray tasks, results in item order."""
        ray = self.ray
        remote = ray.remote(max_retries=self.retries, retry_exceptions=False, **options)(fn)
        args = tuple(args)
        refs = [remote.remote(item, *args) for item in items]
        return self.wait(refs, desc)

    def wait(self, refs: list, desc: str = "shards") -> list[Any]:
        ray = self.ray
        index = {r: i for i, r in enumerate(refs)}
        out: list[Any] = [None] * len(refs)
        pending = list(refs)
        done = 0
        start = time.monotonic()
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                try:
                    out[index[r]] = ray.get(r)
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, ScorekitError):
                        for p in pending:
                            ray.cancel(p, force=True)
                        raise cause from None
                    raise
                done += 1
            self._report(desc, done, len(refs), start)
        if self.progress and refs:
            sys.stderr.write("\n")
        return out

    def _report(self, desc: str, done: int, total: int, start: float) -> None:
        if self.progress:
            sys.stderr.write(f"\r{desc}: {done}/{total} done ({time.monotonic() - start:.1f} s)")
            sys.stderr.flush()


def get_engine(name: str | None, address: str | None = None, **kw: Any):
    """``None`` for the local engine (callers then run in-process), a RayEngine for ``ray``."""
    if name in (None, "local"):
        if address:
            raise ScorekitError("--address needs --engine ray")
        return None
    if name == "ray":
        return RayEngine(address, **kw)
    from scorekit.errors import UnknownNameError

    raise UnknownNameError("engine", name, ["local", "ray"])
