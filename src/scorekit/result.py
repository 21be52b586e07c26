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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekit import __version__


def _jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and non-finite floats into plain JSON values."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return _jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


@dataclass
class Result:
    task: str
    metrics: dict[str, float]
    signature: str
    per_item: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    )

    def __getitem__(self, metric: str) -> float:
        return self.metrics[metric]

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(
            {
                "task": self.task,
                "name": self.name,
                "metrics": self.metrics,
                "signature": self.signature,
                "per_item": self.per_item,
                "inputs": self.inputs,
                "extra": self.extra,
                "scorekit_version": __version__,
                "created": self.created,
            }
        )

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Result":
        return cls(
            task=data["task"],
            metrics=dict(data.get("metrics") or {}),
            signature=data.get("signature", ""),
            per_item=list(data.get("per_item") or []),
            inputs=dict(data.get("inputs") or {}),
            extra=dict(data.get("extra") or {}),
            name=data.get("name"),
            created=data.get("created") or "",
        )
