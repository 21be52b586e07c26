"""ABSA aggregation on Ray: each scorecards shard becomes its rows of per-scorecard statistics
(a task per shard: reading and parsing, the costly part, run in parallel); the driver stacks the
rows in shard order and sums them exactly as one process does, so every metric is bit for bit
the one-process value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _shard_matrix(path: str, strict: bool) -> tuple[np.ndarray, list[str], int, str, list[str]]:
    from scorekit.absa.stats import stats_matrix
    from scorekit.errors import InputError
    from scorekit.io.absa_jsonl import read_scorecards

    read = read_scorecards(path)
    if strict and read.skipped:
        first = read.skipped[0]
        what = f"field {first.field!r}: " if first.field else ""
        raise InputError(f"malformed row: {what}{first.reason} ({read.n_skipped} malformed row(s); --strict)",
                         read.path, first.line)
    return stats_matrix(read.rows), read.warnings(), read.n_skipped, read.path, [str(r.get("text_id")) for r in read.rows]


def aggregate_sharded(engine, shards: Sequence[str | Path], run_id: str,
                      override_summary: Mapping[str, Any] | None = None, *, strict: bool = False):
    """``(RunAggregate, warnings, n_rows, n_skipped, text ids)`` of one run whose scorecards are
    ``shards`` (the ids, in row order, pair runs for a comparison)."""
    from scorekit.absa.aggregate import aggregate_run
    from scorekit.absa.stats import WIDTH
    from scorekit.errors import InputError

    outs = engine.map(_shard_matrix, [str(s) for s in shards], args=(strict,), desc="scorecard shards")
    matrices = [m for m, *_ in outs]
    matrix = np.concatenate(matrices) if matrices else np.zeros((0, WIDTH))
    warnings = [w for _, ws, *_ in outs for w in ws]
    n_skipped = sum(o[2] for o in outs)
    if len(matrix) == 0:
        raise InputError("no valid scorecard rows in any shard", str(shards[0]))
    ids = [i for o in outs for i in o[4]]
    return aggregate_run(None, run_id, override_summary, matrix=matrix), warnings, len(matrix), n_skipped, ids
