"""ABSA run directories (``results/<run_id>__seed<N>_proposed``) aggregated one by one and
compared (:func:`aggregate_runs`: paired over scorecards by :func:`scorekit.stats.compare.compare`,
Holm per measure over the runs compared with the first) or summarised over seeds
(:func:`aggregate_seed_runs`): what ``scorekit absa aggregate`` and ``aggregate-seeds`` compute."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.absa.aggregate import (OVERRIDE_SUMMARY_NAME, RunAggregate, SeedAggregate, aggregate_run,
                                     aggregate_seeds, parse_metrics_csv, signature)
from scorekit.absa.metrics import METRICS
from scorekit.errors import InputError, ScorekitError
from scorekit.result import Result
from scorekit.stats.compare import _finite, compare, document, improvement_pct

OUTPUTS_NAME = "outputs.jsonl"
SCORECARDS_NAME = "scorecards.jsonl"
METRICS_DIR = Path("derived") / "metrics"


def resolve(path: Path, name: str) -> tuple[Path, Path]:
    """(run_dir, file): a directory means ``<dir>/<name>``; a file is used as is."""
    path = Path(path)
    return (path, path / name) if path.is_dir() else (path.parent, path)


def checked(result, strict: bool, what: str) -> list[str]:
    """A tolerant read's warnings; a skipped row with ``strict``, or no valid row, is an error."""
    if result.skipped and strict:
        first = result.skipped[0]
        what_field = f"field {first.field!r}: " if first.field else ""
        raise InputError(f"malformed row: {what_field}{first.reason} "
                         f"({result.n_skipped} malformed row(s); --strict)", result.path, first.line)
    if not result.rows:
        raise InputError(f"no valid {what} rows", result.path)
    return [*result.warnings(), f"{result.path}: skipped {result.n_skipped} malformed row(s), "
            f"kept {len(result.rows)}"] if result.skipped else []


def hint_workflow(given: Path, file: Path) -> None:
    """An outputs.jsonl given for scorecards, or a run not yet scored: the next step in one line."""
    if file.name == OUTPUTS_NAME or (file.suffix in (".jsonl", ".gz") and file.name.startswith("outputs")):
        raise InputError(f"this is the pipeline's {OUTPUTS_NAME}, not scorecards: run "
                         f"`scorekit absa scorecards {given}` first, then aggregate the run directory", given)
    if given.is_dir() and not file.exists() and (given / OUTPUTS_NAME).exists():
        raise InputError(f"no {SCORECARDS_NAME} in this run yet: run `scorekit absa scorecards {given}` first", given)


def override_summary(run_dir: Path, explicit: Path | None) -> dict[str, Any] | None:
    """The run's override_gate_debug_summary.json (or ``explicit``); None when a CR run has none."""
    from scorekit.io.jsonfile import read_json_object

    if explicit is None and not (run_dir / OVERRIDE_SUMMARY_NAME).exists():
        return None  # CR: no override gate, override_* are N/A (§6)
    return read_json_object(explicit or run_dir / OVERRIDE_SUMMARY_NAME, "override summary")


def load_scorecards(path: Path, strict: bool):
    """(run_dir, read result, warnings) of a run directory or scorecards file."""
    from scorekit.io.absa_jsonl import read_scorecards

    run_dir, file = resolve(path, SCORECARDS_NAME)
    hint_workflow(Path(path), file)
    result = read_scorecards(file)
    return run_dir, result, checked(result, strict, "scorecard")


@dataclass
class AggregatedRun:
    run_dir: Path
    aggregate: RunAggregate
    scorecards: str                     # where they were read (files joined by ",")
    n_rows: int
    n_skipped: int
    skipped: list[str] = field(default_factory=list)
    ids: list[str] | None = None        # scorecard text ids (in row order), for pairing runs

    def to_result(self):
        return self.aggregate.to_result(inputs={"scorecards": self.scorecards, "n_rows": self.n_rows,
                                                "n_skipped": self.n_skipped}, extra={"skipped": self.skipped})


@dataclass
class Aggregated:
    runs: list[AggregatedRun]
    warnings: list[str]
    comparison: dict[str, Any] | None = None

    def payload(self) -> dict[str, Any] | None:
        """The one multi-run JSON (:func:`scorekit.stats.compare.document`); None for one run."""
        if len(self.runs) < 2:
            return None
        return document("absa", [r.to_result().to_dict() for r in self.runs],
                        signature=self.runs[0].aggregate.signature, comparison=self.comparison)


def _on_ray(eng, path: Path, strict: bool, override: Path | None) -> tuple[AggregatedRun, list[str]]:
    from scorekit.engine.absa import aggregate_sharded
    from scorekit.io.records import expand

    if path.is_dir() and (path / SCORECARDS_NAME).exists():
        run_dir, shards = path, [path / SCORECARDS_NAME]
    else:
        run_dir, shards = (path if path.is_dir() else path.parent), expand(path, "scorecards")
        for s in shards:
            hint_workflow(s, s)
    agg, warns, n_rows, n_skipped, ids = aggregate_sharded(eng, shards, run_dir.name,
                                                           override_summary(run_dir, override), strict=strict)
    return AggregatedRun(run_dir, agg, ",".join(str(s) for s in shards), n_rows, n_skipped, ids=ids), list(warns)


def compared_keys() -> list[str]:
    """The measures runs are compared on: every rate, F1 mean and gain, once (no alias or count)."""
    return [k for m in METRICS if m.name not in ("counts", "override") for k, d in m.declared.items()
            if d.kind != "count" and not d.alias]


def per_item_rows(run: AggregatedRun) -> list[dict[str, Any]]:
    """One row per scorecard (its text id) with the per-item value of every compared measure."""
    from scorekit.metrics.base import Stats

    stats = Stats({"row": run.aggregate.matrix})
    values = {k: v for m in METRICS for k, v in m.item_scores(stats).items()}
    keys = compared_keys()
    return [{"id": i, **{k: float(values[k][n]) for k in keys if np.isfinite(values[k][n])}}
            for n, i in enumerate(run.ids or ())]


def _unpaired(runs: Sequence[AggregatedRun]) -> str | None:
    """Why the runs' scorecards cannot be paired by text_id, or None when they can."""
    for r in runs:
        if len(set(r.ids)) != len(r.ids):
            return f"{r.run_dir.name} repeats a text_id"
    shared = set(runs[0].ids).intersection(*[r.ids for r in runs[1:]])
    return None if shared else "the runs share none"


def aggregate_runs(paths: Sequence[Path], *, override: Path | None = None, strict: bool = False,
                   engine=None, compare_runs: bool | None = None) -> Aggregated:
    """Every RUN (a run directory, its scorecards.jsonl, or on Ray a folder of shards) aggregated;
    runs over the same scorecard ids are compared with the first. ``compare_runs``: None compares
    when they can be paired (else a warning says why), True insists (else an error), False never."""
    runs: list[AggregatedRun] = []
    warnings: list[str] = []
    for path in paths:
        if engine is not None:
            run, warns = _on_ray(engine, Path(path), strict, override)
        else:
            run_dir, read, warns = load_scorecards(Path(path), strict)
            agg = aggregate_run(read.rows, run_dir.name, override_summary(run_dir, override))
            run = AggregatedRun(run_dir, agg, read.path, len(read.rows), read.n_skipped,
                                [s.describe() for s in read.skipped[:100]],
                                [str(r.get("text_id")) for r in read.rows])
        runs.append(run)
        warnings += warns
    comparison = None
    if compare_runs is not False and len(runs) > 1:
        why = _unpaired(runs)
        if why and compare_runs:
            raise ScorekitError(f"--compare pairs the runs' scorecards by text_id: {why}")
        if why:
            warnings.append(f"runs not compared: {why} (--no-compare silences this)")
            return Aggregated(runs, warnings, None)

        # two runs of one name (the same RUN twice, or a/run and b/run) are told apart as name#2:
        # the values below are looked up by the names the comparison rows carry
        names: list[str] = []
        for r in runs:
            name, k = r.aggregate.run_id, 1
            while name in names:
                k += 1
                name = f"{r.aggregate.run_id}#{k}"
            names.append(name)
        dicts = [dict(r.to_result().to_dict(), name=n, per_item=per_item_rows(r)) for r, n in zip(runs, names)]
        comparison = compare(dicts, metrics=[k for k in compared_keys()
                                             if all(any(k in row for row in d["per_item"]) for d in dicts)])
        values = {n: r.aggregate.metrics for n, r in zip(names, runs)}
        for row in comparison["rows"]:   # each run's own value; the test pairs the scorecards both define
            row["value"], row["baseline_value"] = values[row["system"]][row["measure"]], \
                values[comparison["baseline"]][row["measure"]]
            both = row["value"] is not None and row["baseline_value"] is not None
            row["improvement_pct"] = _finite(improvement_pct(row["value"], row["baseline_value"])) if both else None
    return Aggregated(runs, warnings, comparison)


@dataclass
class SeedRuns:
    aggregate: SeedAggregate
    result: Any          # scorekit.result.Result: the mean as metrics, std and n_seeds in extra
    warnings: list[str]


def aggregate_seed_runs(run_dirs: Sequence[Path], name: str) -> SeedRuns:
    """Mean ± population std (ddof=0) of every metric across seed runs (each from its
    derived/metrics/structural_metrics.csv, else its scorecards.jsonl); a run twice is an error."""
    from scorekit.io.atomic import read_text

    seed_metrics, warnings = [], []
    seen: dict[Path, Path] = {}
    for run_dir in map(Path, run_dirs):
        real = run_dir.resolve()
        if real in seen:
            raise InputError(f"the same run is given twice (also as {seen[real]}); each seed once", run_dir)
        seen[real] = run_dir
        csv_path = run_dir / METRICS_DIR / "structural_metrics.csv"
        if csv_path.exists():
            rows = parse_metrics_csv(read_text(csv_path, "structural_metrics.csv"), str(csv_path))
            if len(rows) != 1:
                raise InputError(f"expected one run row, found {len(rows)}", csv_path)
            seed_metrics.append((run_dir.name, rows[0]))
        elif (run_dir / SCORECARDS_NAME).exists():
            _, read, warns = load_scorecards(run_dir, False)
            warnings += warns
            seed_metrics.append((run_dir.name, aggregate_run(read.rows, run_dir.name).metrics))
        else:
            raise InputError("neither derived/metrics/structural_metrics.csv nor scorecards.jsonl found", run_dir)
    agg = aggregate_seeds(seed_metrics)
    sig = signature(seeds=len(seed_metrics), std="ddof0")
    result = Result(task="absa", name=name, metrics=dict(zip(agg.metrics, agg.mean)), signature=sig,
                    inputs={"runs": [str(r) for r in run_dirs]},
                    extra={"std": dict(zip(agg.metrics, agg.std)), "n_seeds": dict(zip(agg.metrics, agg.n))})
    return SeedRuns(agg, result, warnings)

