"""``scorekit absa``: Conflict-Review aspect-sentiment metrics (spec absa-conflict-review-metrics).

    scorekit absa scorecards      results/<run>__seed42_proposed            # outputs.jsonl -> scorecards.jsonl
    scorekit absa aggregate       results/<run>__seed42_proposed            # -> derived/metrics/structural_metrics.{csv,_table.md}
    scorekit absa report          results/<run>__seed42_proposed            # -> reports/<run>__seed42_proposed/metric_report.html
    scorekit absa aggregate-seeds results/<run>__seed*_proposed             # -> results/<run>_aggregated/aggregated_mean_std.csv

Malformed rows are skipped with a warning naming their line and field; ``--strict`` makes any
skipped row an error (exit 2).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from scorekit.cli._common import (Group, example, emit, output_options, outputs, print_table, signature_line,
                                   transactional)
from scorekit.cli._engine import engine_options, open_engine
from scorekit.cli._types import usage_error
from scorekit.errors import InputError

OUTPUTS_NAME = "outputs.jsonl"
SCORECARDS_NAME = "scorecards.jsonl"
METRICS_DIR = Path("derived") / "metrics"


def _warn(lines: Sequence[str], quiet: bool = False) -> None:
    for line in lines:
        click.echo(f"scorekit: warning: {line}", err=True)


def _resolve(path: Path, name: str) -> tuple[Path, Path]:
    """(run_dir, file): a directory means ``<dir>/<name>``; a file is used as is."""
    if path.is_dir():
        return path, path / name
    return path.parent, path


def _check_read(result, strict: bool, what: str) -> None:
    if result.skipped:
        if strict:
            first = result.skipped[0]
            what_field = f"field {first.field!r}: " if first.field else ""
            raise InputError(f"malformed row: {what_field}{first.reason} "
                             f"({result.n_skipped} malformed row(s); --strict)", result.path, first.line)
        _warn(result.warnings())
        click.echo(f"scorekit: warning: {result.path}: skipped {result.n_skipped} malformed row(s), "
                   f"kept {len(result.rows)}", err=True)
    if not result.rows:
        raise InputError(f"no valid {what} rows", result.path)


def _write_text(path: Path, text: str, option: str) -> None:
    """Stage ``text`` for ``path`` in the command's output transaction (registering it if the
    command could only name it now, e.g. a default path derived from an input)."""
    tx = outputs()
    dest = next((f for f in tx.files if f.path == path), None) or tx.file(path, option, create_parents=True)
    dest.write_text(text)


def _override_summary(run_dir: Path, explicit: Path | None) -> dict[str, Any] | None:
    from scorekit.absa.aggregate import OVERRIDE_SUMMARY_NAME
    from scorekit.io.jsonfile import read_json_object

    path = explicit if explicit is not None else run_dir / OVERRIDE_SUMMARY_NAME
    if explicit is None and not path.exists():
        return None  # CR: no override gate, override_* are N/A (§6)
    return read_json_object(path, "override summary")


def _load_scorecards(path: Path, strict: bool):
    from scorekit.io.absa_jsonl import read_scorecards

    run_dir, file = _resolve(path, SCORECARDS_NAME)
    _hint_workflow(path, file)
    result = read_scorecards(file)
    _check_read(result, strict, "scorecard")
    return run_dir, result


def _hint_workflow(given: Path, file: Path) -> None:
    """The two usual mix-ups get the next step instead of a screen of row warnings: a pipeline's
    outputs.jsonl where scorecards are expected, and a run directory not yet scored."""
    if file.name == OUTPUTS_NAME or (file.suffix in (".jsonl", ".gz") and file.name.startswith("outputs")):
        raise InputError(f"this is the pipeline's {OUTPUTS_NAME}, not scorecards: run "
                         f"`scorekit absa scorecards {given}` first, then aggregate the run directory",
                         given)
    if given.is_dir() and not file.exists() and (given / OUTPUTS_NAME).exists():
        raise InputError(f"no {SCORECARDS_NAME} in this run yet: run `scorekit absa scorecards {given}` first",
                         given)


def _metrics_rows(runs: Sequence[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[list[Any]]]:
    from scorekit.absa.metrics import METRIC_NAMES

    header = ["metric", *(name for name, _ in runs)]
    return header, [[m, *(metrics.get(m) for _, metrics in runs)] for m in METRIC_NAMES]


@click.group(name="absa", cls=Group,
             epilog=example("scorekit absa scorecards results/run__seed42_proposed",
                            "scorekit absa aggregate results/run__seed42_proposed --report absa.html",
                            "scorekit absa report results/run__seed42_proposed"))
def command() -> None:
    """Conflict-Review aspect-sentiment metrics: scorecards, aggregation, reports (spec §1–§7)."""


@command.command("scorecards",
                 epilog=example("scorekit absa scorecards results/run__seed42_proposed   # -> .../scorecards.jsonl"))
@click.argument("outputs_path", metavar="OUTPUTS", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Scorecards file (default: scorecards.jsonl next to outputs.jsonl).")
@click.option("--run-id", help="run_id written into each scorecard (default: the row's meta.run_id).")
@click.option("--strict", is_flag=True, help="Exit 2 if any row is malformed instead of skipping it.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout.")
@transactional
def scorecards_cmd(outputs_path: Path, out: Path | None, run_id: str | None, strict: bool, quiet: bool) -> None:
    """Build scorecards.jsonl (make_scorecard per row) from OUTPUTS (outputs.jsonl or its run directory)."""
    import json

    from scorekit.absa.scorecard import make_scorecard
    from scorekit.io.absa_jsonl import read_outputs
    from scorekit.progress import track

    run_dir, file = _resolve(outputs_path, OUTPUTS_NAME)
    target = out if out is not None else run_dir / SCORECARDS_NAME
    dest = outputs().file(target, "--out", create_parents=True)
    result = read_outputs(file)
    _check_read(result, strict, "outputs")
    if run_id is None:
        from scorekit.absa.aggregate import run_id_from_dir

        run_id = run_dir.name if run_id_from_dir(run_dir.name)[1] is not None else None
    n = 0
    with dest.open() as fh:
        for e in track(result.rows, "scorecards", len(result.rows)):
            fh.write(json.dumps(make_scorecard(e, run_id=run_id), ensure_ascii=False, allow_nan=False) + "\n")
            n += 1
    outputs().commit()
    if not quiet:
        click.echo(f"wrote {n} scorecards to {target}" + (f" (skipped {result.n_skipped})" if result.n_skipped else ""))


@command.command("aggregate",
                 epilog=example("scorekit absa aggregate results/run__seed42_proposed results/run__seed123_proposed \\",
                                "    -o absa.json --report absa.html"))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--outdir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write structural_metrics.csv/_table.md (default: <run>/derived/metrics; "
                   "with several runs, one file holding a row per run).")
@click.option("--override-summary", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="override_gate_debug_summary.json (default: the run's, if present; CR has none -> N/A).")
@click.option("--strict", is_flag=True, help="Exit 2 if any scorecard is malformed.")
@engine_options
@output_options
def aggregate_cmd(runs: tuple[Path, ...], outdir: Path | None, override_summary: Path | None, strict: bool,
                  engine: str, address: str | None, output: Path | None, fmt: str, quiet: bool) -> None:
    """Aggregate each RUN (a run directory or its scorecards.jsonl) into structural metrics.
    With --engine ray a RUN may also be a folder of scorecards shards (*.jsonl), read in parallel."""
    from scorekit.absa.aggregate import aggregate_run, structural_metrics_csv, structural_metrics_md
    from scorekit.result import ResultSet

    tx = outputs()
    if outdir is not None:
        tx.file(outdir / "structural_metrics.csv", "--outdir", create_parents=True)
        tx.file(outdir / "structural_metrics_table.md", "--outdir", create_parents=True)
    else:
        for path in runs:
            target = _resolve(path, SCORECARDS_NAME)[0] / METRICS_DIR
            for name in ("structural_metrics.csv", "structural_metrics_table.md"):
                if not any(f.path == target / name for f in tx.files):
                    tx.file(target / name, "RUN (derived/metrics)", create_parents=True)
    eng = open_engine(engine, address, quiet)
    done = []
    if eng is not None:
        with eng:
            for path in runs:
                done.append(_aggregate_on_ray(eng, path, strict, override_summary))
    for path in runs if eng is None else ():
        run_dir, read = _load_scorecards(path, strict)
        agg = aggregate_run(read.rows, run_dir.name, _override_summary(run_dir, override_summary))
        done.append((run_dir, agg, read))
        if outdir is None:
            target = run_dir / METRICS_DIR
            _write_text(target / "structural_metrics.csv", structural_metrics_csv([(agg.run_id, agg.metrics)]),
                        "RUN (derived/metrics)")
            _write_text(target / "structural_metrics_table.md",
                        structural_metrics_md([(agg.run_id, agg.metrics)], agg.signature), "RUN (derived/metrics)")
    pairs = [(agg.run_id, agg.metrics) for _, agg, _ in done]
    if outdir is not None:
        _write_text(outdir / "structural_metrics.csv", structural_metrics_csv(pairs), "--outdir")
        _write_text(outdir / "structural_metrics_table.md", structural_metrics_md(pairs, done[0][1].signature),
                    "--outdir")
    results = [agg.to_result(inputs={"scorecards": read.path, "n_rows": len(read.rows), "n_skipped": read.n_skipped},
                             extra={"skipped": [s.describe() for s in read.skipped[:100]]})
               for _, agg, read in done]
    payload = ResultSet(results).to_dict() if len(results) > 1 else None   # no run's metrics on top
    emit(results, output=output, fmt=fmt, quiet=quiet, payload=payload)
    if not quiet:
        header, rows = _metrics_rows(pairs)
        print_table(header, rows, fmt, title="structural metrics")
        signature_line(results[0].signature, fmt)


def _aggregate_on_ray(eng, path: Path, strict: bool, override_summary: Path | None):
    """(run_dir, aggregate, read summary) of one RUN whose scorecards may be several shards."""
    from types import SimpleNamespace

    from scorekit.engine.absa import aggregate_sharded
    from scorekit.io.shards import expand

    if path.is_dir() and (path / SCORECARDS_NAME).exists():
        run_dir, shards = path, [path / SCORECARDS_NAME]
    else:
        run_dir, shards = (path if path.is_dir() else path.parent), expand(path, "scorecards")
        for s in shards:
            _hint_workflow(s, s)
    agg, warns, n_rows, n_skipped = aggregate_sharded(eng, shards, run_dir.name,
                                                      _override_summary(run_dir, override_summary), strict=strict)
    if warns:
        _warn(warns)
    read = SimpleNamespace(path=",".join(str(s) for s in shards), rows=range(n_rows), n_skipped=n_skipped,
                           skipped=[])
    return run_dir, agg, read


@command.command("report",
                 epilog=example("scorekit absa report results/run__seed42_proposed --out metric_report.html"))
@click.argument("run", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="HTML file (default: reports/<run>/metric_report.html beside the results/ directory).")
@click.option("--override-summary", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="override_gate_debug_summary.json (default: the run's, if present; CR has none -> N/A).")
@click.option("--strict", is_flag=True, help="Exit 2 if any scorecard is malformed.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout.")
@transactional
def report_cmd(run: Path, out: Path | None, override_summary: Path | None, strict: bool, quiet: bool) -> None:
    """Write the self-contained metric_report.html of RUN (run directory or scorecards.jsonl):
    the headline (tuple F1 S1 -> S2, fix / break / net gain) first, every metric, and the changed
    samples worst ΔF1 first — the same report as `scorekit report` draws for every family."""
    from scorekit.absa.aggregate import aggregate_run
    from scorekit.absa.samples import changed_samples
    from scorekit.report.html import render_report

    if out is None:
        run_dir = _resolve(run, SCORECARDS_NAME)[0]
        root = run_dir.resolve().parent
        base = root.parent if root.name == "results" else root
        out = base / "reports" / run_dir.name / "metric_report.html"
    outputs().file(out, "--out", create_parents=True)
    run_dir, read = _load_scorecards(run, strict)
    agg = aggregate_run(read.rows, run_dir.name, _override_summary(run_dir, override_summary))
    result = agg.to_result(inputs={"scorecards": read.path, "n_rows": len(read.rows), "n_skipped": read.n_skipped},
                           per_item=changed_samples(read.rows, agg.matrix),
                           extra={"skipped": [s.describe() for s in read.skipped[:100]]}
                           | ({"warnings": [f"{read.n_skipped} malformed rows skipped"]} if read.n_skipped else {}))
    _write_text(out, render_report([result], title=f"ABSA metric report — {run_dir.name}"), "--out")
    outputs().commit()
    if not quiet:
        click.echo(f"wrote {out}")


@command.command("aggregate-seeds",
                 epilog=example("scorekit absa aggregate-seeds results/run__seed42_proposed \\",
                                "    results/run__seed123_proposed --format markdown"))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file (default: results/<run_id>_aggregated/aggregated_mean_std.csv).")
@output_options
def aggregate_seeds_cmd(runs: tuple[Path, ...], out: Path | None, output: Path | None, fmt: str, quiet: bool) -> None:
    """Mean ± std (population, ddof=0) of every metric across seed RUN directories
    (<run_id>__seed<N>_proposed). Uses each run's derived/metrics/structural_metrics.csv,
    computing it from scorecards.jsonl when absent."""
    from scorekit.absa.aggregate import (aggregate_run, aggregate_seeds, aggregated_csv, aggregated_md,
                                         parse_metrics_csv, run_id_from_dir, signature)
    from scorekit.io.atomic import read_text
    from scorekit.result import Result

    run_ids = {run_id_from_dir(run_dir.name)[0] for run_dir in runs}
    if out is None:
        if len(run_ids) != 1:
            raise usage_error(f"runs have different run_ids ({', '.join(sorted(run_ids))}); pass --out")
        out = runs[0].resolve().parent / f"{next(iter(run_ids))}_aggregated" / "aggregated_mean_std.csv"
    tx = outputs()
    tx.file(out, "--out", create_parents=True)
    tx.file(out.with_suffix(".md"), "--out (.md beside it)", create_parents=True)
    seed_metrics = []
    seen: dict[Path, Path] = {}
    for run_dir in runs:
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
            _, read = _load_scorecards(run_dir, False)
            seed_metrics.append((run_dir.name, aggregate_run(read.rows, run_dir.name).metrics))
        else:
            raise InputError("neither derived/metrics/structural_metrics.csv nor scorecards.jsonl found", run_dir)
    agg = aggregate_seeds(seed_metrics)
    _write_text(out, aggregated_csv(agg), "--out")
    _write_text(out.with_suffix(".md"), aggregated_md(agg, f"aggregated mean ± std — {out.parent.name}"),
                "--out (.md beside it)")
    from scorekit.signature import Signature

    sig = str(Signature.parse(signature()).update(seeds=len(seed_metrics), std="ddof0"))  # version last
    mean = {m: v for m, v in zip(agg.metrics, agg.mean)}
    result = Result(task="absa", name=out.parent.name, metrics=mean, signature=sig,
                    inputs={"runs": [str(r) for r in runs]},
                    extra={"std": {m: s for m, s in zip(agg.metrics, agg.std)}, "n_seeds": dict(zip(agg.metrics, agg.n))})
    emit(result, output=output, fmt=fmt, quiet=quiet)
    if not quiet:
        print_table(["metric", "mean", "std", "n_seeds"],
                    [[m, a, s, k] for m, a, s, k in zip(agg.metrics, agg.mean, agg.std, agg.n)], fmt,
                    title=f"{len(seed_metrics)} seeds -> {out}")
        signature_line(sig, fmt)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
