"""The structural aggregator (spec §1 step 4, §7): one run's metrics, its changed samples (the
report's per-item rows), its CSV / Markdown tables (spec names), and the mean ± std of every
metric across seed runs."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.absa import sources
from scorekit.absa.metrics import METRIC_NAMES, METRICS, AbsaBatch
from scorekit.absa.stats import INDEX
from scorekit.errors import InputError
from scorekit.result import Result
from scorekit.signature import make_signature

SEED_DIR = re.compile(r"^(?P<run_id>.+)__seed(?P<seed>[^_]+)_proposed$")
OVERRIDE_SUMMARY_NAME = "override_gate_debug_summary.json"


def signature(override_summary: bool = False, **more) -> str:
    """Pins what changes the numbers: matching unit, averaging, empty rule, conflict rule (then
    ``more``: the seeds' aggregation)."""
    return make_signature("absa", {"unit": "aspect_term+polarity", "norm": "nfc+invisible+casefold+ws+edgepunct"},
                          metrics=METRICS, semantics={
                              "implicit_gold": "polarity-only", "f1": "macro-rows", "empty_gold": "match-iff-empty",
                              "rep": "explicit>conf>no_drop", "override_summary": override_summary, **more})


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
    """All §3–§6 metrics of one run's scorecards (or of their ``matrix``) through the one driver;
    ``engine`` None (this process), ``"fork"`` or a started RayEngine: the same numbers."""
    from scorekit.engine.driver import Planned, run

    batch = AbsaBatch(None if scorecards is None else list(scorecards), override_summary, matrix)
    scored = run([Planned(m, [(k, k) for k in m.keys]) for m in METRICS], batch, engine)
    rows = scored.stats[id(METRICS[0])].columns["row"]
    return RunAggregate(run_id, scored.metrics, rows, signature(override_summary is not None))


def pairs_text(pairs: frozenset) -> str:
    return ", ".join(f"{t or '∅(implicit)'}:{p}" for t, p in sorted(pairs)) or "—"


def changed_samples(scorecards: Sequence[dict], matrix: np.ndarray, limit: int = 500) -> list[dict[str, Any]]:
    """Rows of the scorecards whose output changed between stage 1 and stage 2 (at most ``limit``)."""
    rows = []
    changed = np.flatnonzero(matrix[:, INDEX["changed"]] > 0) if len(matrix) else []
    for i in changed[:limit]:
        sc = scorecards[i]
        final = sources.extract_final(sc)
        s1 = sources.extract_stage1(sc, final)
        gold = sources.gold_items(sc)
        po = sources.parsed_output(sc)
        meta = po.get("meta") if isinstance(po.get("meta"), dict) else {}
        delta = sc.get("stage_delta") or sources.stage_delta(sc)
        df1 = (float(matrix[i, INDEX["f1_s2"]] - matrix[i, INDEX["f1_s1"]])
               if matrix[i, INDEX["gold_f1"]] else None)
        rows.append({"id": str(sc.get("text_id") or meta.get("text_id") or i),
                     "text": meta.get("input_text") or "",
                     "stage1_pairs": pairs_text(s1.pairs), "final_pairs": pairs_text(final.pairs),
                     "gold_pairs": "—" if gold is None else pairs_text(frozenset((g.term, g.polarity) for g in gold)),
                     "change_type": delta.get("change_type"), "delta_f1": df1})
    return rows


def run_id_from_dir(name: str) -> tuple[str, str | None]:
    """``<run_id>__seed<N>_proposed`` -> (run_id, N); other names -> (name, None)."""
    m = SEED_DIR.match(name)
    return (m["run_id"], m["seed"]) if m else (name, None)


def _csv_cell(v: Any) -> str:
    missing = v is None or (isinstance(v, float) and not math.isfinite(v))
    return "" if missing else repr(v) if isinstance(v, float) else str(v)


def _csv_text(rows: Iterable[Sequence[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def structural_metrics_csv(runs: Iterable[tuple[str, Mapping[str, Any]]]) -> str:
    """CSV: header ``run_id,<metric>...``; one row per run; N/A is an empty cell."""
    rows = ([run_id, *(_csv_cell(metrics.get(m)) for m in METRIC_NAMES)] for run_id, metrics in runs)
    return _csv_text([["run_id", *METRIC_NAMES], *rows])


def _md_cell(v: Any) -> str:
    missing = v is None or (isinstance(v, float) and not math.isfinite(v))
    return "N/A" if missing else f"{v:.4f}" if isinstance(v, float) else str(v).replace("|", "\\|")


def structural_metrics_md(runs: Iterable[tuple[str, Mapping[str, Any]]], sig: str | None = None) -> str:
    """Markdown table, same columns as the CSV (floats to 4 decimals, None as N/A)."""
    lines = ["| run_id | " + " | ".join(METRIC_NAMES) + " |",
             "|:---|" + "---:|" * len(METRIC_NAMES)]
    lines += ["| " + " | ".join(map(_md_cell, (run_id, *map(metrics.get, METRIC_NAMES)))) + " |"
              for run_id, metrics in runs]
    return ("# structural_metrics\n\n" + "\n".join(lines) + "\n"
            + (f"\n`signature: {sig}`\n" if sig else ""))


def parse_metrics_csv(text: str, path: str | None = None) -> list[dict[str, Any]]:
    """Rows of a structural_metrics.csv: ``run_id`` as text, every other cell a finite number or
    None (empty); anything else is an InputError naming line and column (a damaged file must not
    quietly drop out of a mean over seeds)."""
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
    for raw in filter(None, reader):   # (blank lines skipped)
        line = reader.line_num
        if len(raw) != len(header):
            raise InputError(f"expected {len(header)} cells as in the header, found {len(raw)}", path, line)
        row: dict[str, Any] = {"run_id": raw[0]}
        for k, v in zip(header[1:], raw[1:]):
            try:
                row[k] = None if v == "" else float(v)
            except ValueError:
                row[k] = math.nan
            if row[k] is not None and not math.isfinite(row[k]):
                raise InputError(f"column {k!r}: expected a number or an empty cell (N/A), found {v!r}",
                                 path, line)
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
    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    names = list(METRIC_NAMES)
    for _, metrics in seed_metrics:
        names += [k for k, v in metrics.items() if k not in names and k != "run_id" and number(v)]
    values = np.full((len(seed_metrics), len(names)), np.nan)
    for i, (_, metrics) in enumerate(seed_metrics):
        values[i] = [float(v) if number(v := metrics.get(name)) else np.nan for name in names]
    present = ~np.isnan(values)
    n = present.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(values, axis=0) / np.where(n, n, 1)
        dev = np.where(present, values - mean, 0.0)
        std = np.sqrt((dev ** 2).sum(axis=0) / np.where(n, n, 1))
    return SeedAggregate(names, [float(m) if k else None for m, k in zip(mean, n)],
                         [float(s) if k else None for s, k in zip(std, n)], [int(k) for k in n],
                         [s for s, _ in seed_metrics])


def aggregated_csv(agg: SeedAggregate) -> str:
    return _csv_text([["metric", "mean", "std", "n_seeds"],
                      *([name, _csv_cell(m), _csv_cell(s), k] for name, m, s, k in
                        zip(agg.metrics, agg.mean, agg.std, agg.n))])


def aggregated_md(agg: SeedAggregate, title: str) -> str:
    lines = [f"# {title}", "", f"seeds: {', '.join(agg.seeds)}", "",
             "| Metric | Mean | Std | n_seeds |", "|:---|---:|---:|---:|"]
    lines += [f"| {name} | {_md_cell(m)} | {_md_cell(s)} | {k} |"
              for name, m, s, k in zip(agg.metrics, agg.mean, agg.std, agg.n)]
    return "\n".join(lines) + "\n"
