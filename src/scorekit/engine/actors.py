"""An actor pool for work that needs one model per worker (BERTScore in ``summary`` and ``sweep``):
each actor loads the model once, from local files, and then runs shard after shard with it.

One actor per GPU when the cluster has GPUs (``num_gpus=1`` each), else one per CPU; shards go to
the actors round robin and the driver waits for them with the engine's progress line. An actor
that dies is restarted and its lost calls re-run (``max_restarts`` / ``max_task_retries``), so a
lost worker costs time, never a number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class ScorerActor:
    """Holds one BERTScorer (built by :func:`scorekit.summarization.metrics.load_bertscorer`)."""

    def __init__(self, bert: dict[str, Any]):
        from scorekit.summarization.metrics import load_bertscorer

        self.scorer = load_bertscorer(True, **bert)

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args, scorer=<this actor's scorer>)``."""
        return fn(*args, scorer=self.scorer)


def map_with_scorer(engine, fn: Callable[..., Any], calls: Sequence[tuple], bert: dict[str, Any],
                    desc: str) -> list[Any]:
    """``[fn(*args, scorer=S) for args in calls]`` on a pool of :class:`ScorerActor` (one model per
    actor), results in call order."""
    ray = engine.ray
    gpus = int(ray.cluster_resources().get("GPU", 0))
    n = max(1, min(len(calls), gpus or engine.n_workers))
    cls = ray.remote(num_gpus=1 if gpus else 0, num_cpus=0 if gpus else 1,
                     max_restarts=engine.retries, max_task_retries=engine.retries)(ScorerActor)
    actors = [cls.remote(bert) for _ in range(n)]
    try:
        refs = [actors[i % n].run.remote(fn, *args) for i, args in enumerate(calls)]
        return engine.wait(refs, desc=desc)
    finally:
        for a in actors:
            ray.kill(a)
