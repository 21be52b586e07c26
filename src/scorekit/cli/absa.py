"""``scorekit absa scorecards|aggregate|report|aggregate-seeds``: Conflict-Review aspect-sentiment
metrics (spec absa-conflict-review-metrics). Malformed rows are skipped with a warning naming
their line and field; ``--strict`` makes any skipped row an error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from scorekit.absa.scorecard import make_scorecard
from scorekit.cli._common import (QUIET_OPTION, Group, emit, engine_options, engine_scope, example, output_options,
                                  outputs, print_table, signature_line, stage_text, transactional, warn)
from scorekit.cli._types import usage_error
from scorekit.progress import track

OVERRIDE_OPTION = click.option(
    "--override-summary", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="override_gate_debug_summary.json (default: the run's, if present; CR has none -> N/A).")


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
@QUIET_OPTION
@transactional
def scorecards_cmd(outputs_path: Path, out: Path | None, run_id: str | None, strict: bool, quiet: bool) -> None:
    """Build scorecards.jsonl (make_scorecard per row) from OUTPUTS (outputs.jsonl or its run directory)."""
    from scorekit.absa.runs import OUTPUTS_NAME, SCORECARDS_NAME, checked, resolve
    from scorekit.io.absa_jsonl import read_outputs

    run_dir, file = resolve(outputs_path, OUTPUTS_NAME)
    target = out if out is not None else run_dir / SCORECARDS_NAME
    dest = outputs().file(target, "--out", create_parents=True)
    result = read_outputs(file)
    warn(*checked(result, strict, "outputs"))
    if run_id is None:
        from scorekit.absa.aggregate import run_id_from_dir

        run_id = run_dir.name if run_id_from_dir(run_dir.name)[1] is not None else None
    with dest.open() as fh:
        for e in track(result.rows, "scorecards", len(result.rows)):
            fh.write(json.dumps(make_scorecard(e, run_id=run_id), ensure_ascii=False, allow_nan=False) + "\n")
    outputs().commit()
    if not quiet:
        click.echo(f"wrote {len(result.rows)} scorecards to {target}"
                   + (f" (skipped {result.n_skipped})" if result.n_skipped else ""))


@command.command("aggregate",
                 epilog=example("scorekit absa aggregate results/run__seed42_proposed results/run__seed123_proposed \\",
                                "    -o absa.json --report absa.html",
                                "scorekit absa aggregate results/run__seed42_proposed \\",
                                "    results/run__seed123_proposed --no-compare"))
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--outdir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write structural_metrics.csv/_table.md (default: <run>/derived/metrics; "
                   "with several runs, one file holding a row per run).")
@OVERRIDE_OPTION
@click.option("--strict", is_flag=True, help="Exit 2 if any scorecard is malformed.")
@click.option("--compare/--no-compare", "compare_runs", default=None,
              help="Several RUNs over the same scorecards (seeds, systems) are compared with the first by default: "
                   "a paired t-test over the scorecards per measure, Holm per measure over the runs (JSON: the "
                   "comparison block); runs that share no scorecard are only aggregated, with a warning. "
                   "--compare makes that an error, --no-compare turns the comparison off.")
@engine_options
@output_options
def aggregate_cmd(runs, outdir, override_summary, strict, compare_runs, engine, address, output, fmt, quiet):
    """Aggregate each RUN (a run directory or its scorecards.jsonl) into structural metrics.
    With --engine ray a RUN may also be a folder of scorecards shards (*.jsonl), read in parallel.
    Several runs over the same scorecards (seeds, systems) are compared with the first by the one
    comparison engine (--no-compare: only aggregated)."""
    from scorekit.absa.aggregate import structural_metrics_csv, structural_metrics_md
    from scorekit.absa.metrics import METRIC_NAMES
    from scorekit.absa.runs import METRICS_DIR, SCORECARDS_NAME, aggregate_runs, resolve

    targets = [outdir] if outdir is not None else [resolve(p, SCORECARDS_NAME)[0] / METRICS_DIR for p in runs]
    option = "--outdir" if outdir is not None else "RUN (derived/metrics)"
    for target in dict.fromkeys(targets):
        for name in ("structural_metrics.csv", "structural_metrics_table.md"):
            outputs().file(target / name, option, create_parents=True)
    with engine_scope(engine, address, quiet) as eng:
        done = aggregate_runs(runs, override=override_summary, strict=strict, engine=eng, compare_runs=compare_runs)
    warn(*done.warnings)
    pairs = [(r.aggregate.run_id, r.aggregate.metrics) for r in done.runs]
    groups = [(outdir, pairs, done.runs[0].aggregate.signature)] if outdir is not None else \
        [(r.run_dir / METRICS_DIR, [p], r.aggregate.signature) for r, p in zip(done.runs, pairs)]
    for target, rows, sig in groups:
        stage_text(target / "structural_metrics.csv", structural_metrics_csv(rows), option)
        stage_text(target / "structural_metrics_table.md", structural_metrics_md(rows, sig), option)
    results = [r.to_result() for r in done.runs]
    emit(results, output=output, fmt=fmt, quiet=quiet, payload=done.payload())
    if not quiet:
        print_table(["metric", *(name for name, _ in pairs)],
                    [[m, *(metrics.get(m) for _, metrics in pairs)] for m in METRIC_NAMES], fmt,
                    title="structural metrics")
        if done.comparison is not None:
            print_table(["run", "measure", "baseline", "value", "p", "p (Holm)", "sig."],
                        [[r["system"], r["measure"], r["baseline_value"], r["value"], r["p_value"], r["p_adjusted"],
                          "*" if r["significant"] else ""] for r in done.comparison["rows"]], fmt,
                        title=f"compared with {done.comparison['baseline']} (paired over scorecards; "
                              f"Holm per measure over the runs)")
        signature_line(results[0].signature, fmt)


@command.command("report",
                 epilog=example("scorekit absa report results/run__seed42_proposed --out metric_report.html"))
@click.argument("run", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="HTML file (default: reports/<run>/metric_report.html beside the results/ directory).")
@OVERRIDE_OPTION
@click.option("--strict", is_flag=True, help="Exit 2 if any scorecard is malformed.")
@QUIET_OPTION
@transactional
def report_cmd(run: Path, out: Path | None, override_summary: Path | None, strict: bool, quiet: bool) -> None:
    """Write the self-contained metric_report.html of RUN (run directory or scorecards.jsonl):
    the headline (tuple F1 S1 -> S2, fix / break / net gain) first, every metric, and the changed
    samples worst ΔF1 first — the same report as `scorekit report` draws for every family."""
    from scorekit.absa.aggregate import aggregate_run
    from scorekit.absa.aggregate import changed_samples
    from scorekit.absa.runs import SCORECARDS_NAME, load_scorecards, override_summary as load_override, resolve
    from scorekit.report.html import render_report

    if out is None:
        run_dir = resolve(run, SCORECARDS_NAME)[0]
        root = run_dir.resolve().parent
        base = root.parent if root.name == "results" else root
        out = base / "reports" / run_dir.name / "metric_report.html"
    outputs().file(out, "--out", create_parents=True)
    run_dir, read, warns = load_scorecards(run, strict)
    warn(*warns)
    agg = aggregate_run(read.rows, run_dir.name, load_override(run_dir, override_summary))
    result = agg.to_result(inputs={"scorecards": read.path, "n_rows": len(read.rows), "n_skipped": read.n_skipped},
                           per_item=changed_samples(read.rows, agg.matrix),
                           extra={"skipped": [s.describe() for s in read.skipped[:100]]}
                           | ({"warnings": [f"{read.n_skipped} malformed rows skipped"]} if read.n_skipped else {}))
    stage_text(out, render_report([result], title=f"ABSA metric report — {run_dir.name}"), "--out")
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
def aggregate_seeds_cmd(runs, out, output, fmt, quiet):
    """Mean ± std (population, ddof=0) of every metric across seed RUN directories
    (<run_id>__seed<N>_proposed). Uses each run's derived/metrics/structural_metrics.csv,
    computing it from scorecards.jsonl when absent."""
    from scorekit.absa.aggregate import aggregated_csv, aggregated_md, run_id_from_dir
    from scorekit.absa.runs import aggregate_seed_runs

    run_ids = {run_id_from_dir(run_dir.name)[0] for run_dir in runs}
    if out is None:
        if len(run_ids) != 1:
            raise usage_error(f"runs have different run_ids ({', '.join(sorted(run_ids))}); pass --out")
        out = runs[0].resolve().parent / f"{next(iter(run_ids))}_aggregated" / "aggregated_mean_std.csv"
    csv_out = outputs().file(out, "--out", create_parents=True)
    md_out = outputs().file(out.with_suffix(".md"), "--out (.md beside it)", create_parents=True)
    seeds = aggregate_seed_runs(runs, out.parent.name)
    warn(*seeds.warnings)
    agg = seeds.aggregate
    csv_out.write_text(aggregated_csv(agg))
    md_out.write_text(aggregated_md(agg, f"aggregated mean ± std — {out.parent.name}"))
    emit(seeds.result, output=output, fmt=fmt, quiet=quiet)
    if not quiet:
        print_table(["metric", "mean", "std", "n_seeds"],
                    [[m, a, s, k] for m, a, s, k in zip(agg.metrics, agg.mean, agg.std, agg.n)], fmt,
                    title=f"{len(agg.seeds)} seeds -> {out}")
        signature_line(seeds.result.signature, fmt)
