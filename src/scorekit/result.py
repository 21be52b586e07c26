"""One result type for every family.

JSON shape (``Result.to_dict``), shared by every sub-command's ``--output FILE.json``::

    {
      "task": "retrieval",              # which sub-command / family produced it
      "name": "run_v1",                 # system name (run tag, file stem), may be null
      "metrics": {"ndcg@10": 0.53, ...},# metric name -> corpus-level number
      "signature": "task:retrieval|...|version:0.1.0",
      "per_item": [{"id": "q1", "ndcg@10": 0.8, ...}, ...],   # per query / caption / document
      "inputs": {"qrels": "path", "n_queries": 5, ...},
      "extra": {...},                   # family-specific: comparisons, CIs, warnings, tables
      "scorekit_version": "0.1.0",
      "created": "2026-11-23T12:00:00+00:00"
    }
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorekit import __version__

if TYPE_CHECKING:
    import numpy as np


_LEAVES = frozenset({str, int, bool, type(None)})
_JSON_ORDER = ("task", "name", "metrics", "signature", "per_item", "inputs", "extra", "scorekit_version",
               "created")


def is_finite_number(v: Any) -> bool:
    """A finite real number (a bool is not one)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats into plain JSON values."""
    # exact-type tests first: a result's per-item rows are mostly plain floats and strings, and
    # the isinstance/hasattr chain below cost ~1 s of a 10,000-caption run's JSON output
    t = type(value)
    if t is float:
        return value if math.isfinite(value) else None
    if t in _LEAVES:
        return value
    if isinstance(value, dict):
        return {k if type(k) is str else str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value) if isinstance(value, Path) else value


@dataclass
class Result:
    task: str
    metrics: dict[str, float]
    signature: str
    per_item: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc)
                         .isoformat(timespec="seconds"))
    scorekit_version: str = __version__   # the version that computed it (kept when loaded)

    def __getitem__(self, metric: str) -> float:
        return self.metrics[metric]

    def column(self, key: str) -> "np.ndarray":
        """Per-item values of one metric key, in item order (NaN where an item lacks it)."""
        import numpy as np

        return np.array([row.get(key, float("nan")) if row.get(key) is not None else float("nan")
                         for row in self.per_item], dtype=np.float64)

    def to_pandas(self, per_item: bool = False):
        """One row (metrics, name, signature) or, with ``per_item``, one row per item."""
        import pandas as pd

        if per_item:
            return pd.DataFrame(self.per_item)
        return pd.DataFrame([{"name": self.name, **self.metrics, "signature": self.signature}])

    def to_dict(self) -> dict[str, Any]:
        return _jsonable({k: getattr(self, k) for k in _JSON_ORDER})

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Result":
        return cls(data["task"], dict(data.get("metrics") or {}), data.get("signature", ""),
                   list(data.get("per_item") or []), dict(data.get("inputs") or {}),
                   dict(data.get("extra") or {}), data.get("name"), data.get("created") or "",
                   data.get("scorekit_version") or "unknown")

    @classmethod
    def from_json(cls, text: str) -> "Result":
        return cls.from_dict(json.loads(text))


def runs_document(task: str | None, runs: Sequence[dict[str, Any]], signature: str) -> dict[str, Any]:
    """The one multi-run JSON shape every command writes for several runs: ``{"task", "name",
    "metrics" (the baseline's: ``runs[0]``), "signature", "runs": [baseline, system, ...]}``, plus
    ``"comparison"`` when the runs were compared (:func:`scorekit.stats.compare.document`)."""
    first = runs[0] if runs else {}
    return {"task": task, "name": first.get("name"), "metrics": first.get("metrics") or {},
            "signature": signature, "runs": list(runs)}


class ResultSet:
    """Several results (runs, systems, seeds) side by side: the second result type."""

    def __init__(self, results: "list[Result] | tuple[Result, ...]" = ()):
        self.results: list[Result] = list(results)

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self):
        return iter(self.results)

    def __getitem__(self, i: "int | str") -> Result:
        if isinstance(i, str):
            for r in self.results:
                if r.name == i:
                    return r
            raise KeyError(i)
        return self.results[i]

    def append(self, result: Result) -> "ResultSet":
        self.results.append(result)
        return self

    @property
    def names(self) -> list[str | None]:
        return [r.name for r in self.results]

    def to_dict(self) -> dict[str, Any]:
        """The one multi-run JSON shape (:func:`runs_document`): the baseline (the first result)
        on top; :func:`scorekit.stats.compare.document` adds the comparison block."""
        tasks = {r.task for r in self.results}
        return runs_document(tasks.pop() if len(tasks) == 1 else None, [r.to_dict() for r in self.results],
                             self.results[0].signature if self.results else "")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResultSet":
        return cls([Result.from_dict(d) for d in data.get("runs") or data.get("results") or []])

    def to_pandas(self):
        """One row per result: name, task, every metric, signature."""
        import pandas as pd

        return pd.DataFrame([{"name": r.name, "task": r.task, **r.metrics, "signature": r.signature}
                             for r in self.results])
