"""The structural aggregator (spec §1 step 4, §7) and the multi-seed mean ± std.

``aggregate_run`` -> metrics of one run; ``structural_metrics_csv`` / ``structural_metrics_md``
render one row per run, one column per metric (spec names); ``aggregate_seeds`` gives
mean and standard deviation of every numeric metric across seed runs.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.absa.metrics import METRIC_NAMES, METRICS, AbsaBatch
from scorekit.errors import InputError
from scorekit.result import Result
from scorekit.signature import make_signature

SEED_DIR = re.compile(r"^(?P<run_id>.+)__seed(?P<seed>[^_]+)_proposed$")
OVERRIDE_SUMMARY_NAME = "override_gate_debug_summary.json"


def signature(override_summary: bool = False) -> str:
    """Pins what changes the numbers: matching unit, averaging, empty rule, conflict rule."""
    return make_signature("absa", {
        "unit": "aspect_term+polarity", "norm": "nfc+invisible+casefold+ws+edgepunct", "implicit_gold": "polarity-only",
        "f1": "macro-rows", "empty_gold": "match-iff-empty", "rep": "explicit>conf>no_drop", "override": override_summary,
    })


@dataclass
class RunAggregate:
    run_id: str
    metrics: dict[str, Any]
    matrix: np.ndarray = field(repr=False)
    signature: str = ""

    def to_result(self, **more: Any):
        """This run as a :class:`~scorekit.result.Result` (``inputs`` / ``extra`` via ``more``)."""
        return Result(task="absa", name=self.run_id, metrics=dict(self.metrics), signature=self.signature,
                      **more)


def aggregate_run(scorecards: Sequence[dict] | None, run_id: str = "run",
                  override_summary: Mapping[str, Any] | None = None, *, matrix: np.ndarray | None = None,
                  engine=None) -> RunAggregate:
    """All §3–§6 metrics of one run's scorecards (or of their statistics ``matrix``), computed by
    the ABSA metrics (:mod:`scorekit.absa.metrics`) through the one driver: ``engine`` None (this
    process), ``"fork"`` or a started RayEngine cut the scorecards into shards of rows, with the
    same numbers."""
    from scorekit.engine.driver import Planned, run

    batch = AbsaBatch(None if scorecards is None else list(scorecards), override_summary, matrix)
    scored = run([Planned(m, [(k, k) for k in m.keys]) for m in METRICS], batch, engine)
    rows = scored.stats[id(METRICS[0])].columns["row"]
    return RunAggregate(run_id, scored.metrics, rows, signature(override_summary is not None))


def run_id_from_dir(name: str) -> tuple[str, str | None]:
    """``<run_id>__seed<N>_proposed`` -> (run_id, N); other names -> (name, None)."""
    m = SEED_DIR.match(name)
    return (m["run_id"], m["seed"]) if m else (name, None)


def _csv_cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    return repr(v) if isinstance(v, float) else str(v)


def _csv_text(rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def structural_metrics_csv(runs: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """CSV: header ``run_id,<metric>...``; one row per run; N/A is an empty cell."""
    rows = ([run_id, *(_csv_cell(metrics.get(m)) for m in METRIC_NAMES)] for run_id, metrics in runs)
    return _csv_text([["run_id", *METRIC_NAMES], *rows])


def _md_cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "N/A"
    return f"{v:.4f}" if isinstance(v, float) else str(v).replace("|", "\\|")


def structural_metrics_md(runs: Iterable[tuple[str, Mapping[str, Any]]], sig: str | None = None) -> str:
    """Markdown table, same columns as the CSV (floats to 4 decimals, None as N/A)."""
    lines = ["| run_id | " + " | ".join(METRIC_NAMES) + " |",
             "|:---|" + "---:|" * len(METRIC_NAMES)]
    for run_id, metrics in runs:
        lines.append(f"| {_md_cell(run_id)} | " + " | ".join(_md_cell(metrics.get(m)) for m in METRIC_NAMES) + " |")
    out = "# structural_metrics\n\n" + "\n".join(lines) + "\n"
    if sig:
        out += f"\n`signature: {sig}`\n"
    return out


def parse_metrics_csv(text: str, path: str | None = None) -> list[dict[str, Any]]:
    """Rows of a structural_metrics.csv as dicts: ``run_id`` as text, every other cell a finite
    number or empty (N/A -> None). Anything else — a missing ``run_id`` column, a row with more or
    fewer cells than the header, a cell that is not a number — is an InputError naming the line
    and column: a damaged file must not quietly drop out of a mean over seeds."""
    from scorekit.io.records import allow_long_fields

    allow_long_fields()
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header or header[0] != "run_id":
        raise InputError("not a structural_metrics.csv (expected a header starting with run_id)", path, 1)
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise InputError(f"column {dup!r} appears twice in the header", path, 1)
    rows = []
    for raw in reader:
        line = reader.line_num
        if not raw:
            continue
        if len(raw) != len(header):
            raise InputError(f"expected {len(header)} cells as in the header, found {len(raw)}", path, line)
        row: dict[str, Any] = {"run_id": raw[0]}
        for k, v in zip(header[1:], raw[1:]):
            if v == "":
                row[k] = None
                continue
            try:
                x = float(v)
            except ValueError:
                x = math.nan
            if not math.isfinite(x):
                raise InputError(f"column {k!r}: expected a number or an empty cell (N/A), found {v!r}",
                                 path, line)
            row[k] = x
        rows.append(row)
    return rows


@dataclass
class SeedAggregate:
    metrics: list[str]
    mean: list[float | None]
    std: list[float | None]
    n: list[int]
    seeds: list[str]


def aggregate_seeds(seed_metrics: Sequence[tuple[str, Mapping[str, Any]]]) -> SeedAggregate:
    """Mean and population standard deviation (ddof=0) of each metric over the seeds that have a
    value for it (N/A seeds are left out of that metric; a metric N/A everywhere stays N/A)."""
    names = list(METRIC_NAMES)
    for _, metrics in seed_metrics:
        names += [k for k, v in metrics.items() if k not in names and k != "run_id"
                  and isinstance(v, (int, float)) and not isinstance(v, bool)]
    values = np.full((len(seed_metrics), len(names)), np.nan)
    for i, (_, metrics) in enumerate(seed_metrics):
        for j, name in enumerate(names):
            v = metrics.get(name)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                values[i, j] = float(v)
    present = ~np.isnan(values)
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(values, axis=0) / np.where(n, n, 1)
        dev = np.where(present, values - mean, 0.0)
        std = np.sqrt((dev ** 2).sum(axis=0) / np.where(n, n, 1))
    return SeedAggregate(
        names,
        [float(m) if k else None for m, k in zip(mean, n)],
        [float(s) if k else None for s, k in zip(std, n)],
        [int(k) for k in n],
        [s for s, _ in seed_metrics],
    )


def aggregated_csv(agg: SeedAggregate) -> str:
    return _csv_text([["metric", "mean", "std", "n_seeds"],
                      *([name, _csv_cell(m), _csv_cell(s), k] for name, m, s, k in
                        zip(agg.metrics, agg.mean, agg.std, agg.n))])


def aggregated_md(agg: SeedAggregate, title: str) -> str:
    lines = [f"# {title}", "", f"seeds: {', '.join(agg.seeds)}", "",
             "| Metric | Mean | Std | n_seeds |", "|:---|---:|---:|---:|"]
    for name, m, s, k in zip(agg.metrics, agg.mean, agg.std, agg.n):
        lines.append(f"| {name} | {_md_cell(m)} | {_md_cell(s)} | {k} |")
    return "\n".join(lines) + "\n"
