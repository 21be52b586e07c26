"""``scorekit runs list|show|compare|rm|leaderboard|add``: the run history (docs/report.md, "The
run history"). ``compare`` goes through the one comparison engine, :mod:`scorekit.stats.compare`,
which tests a corpus metric on its own corpus score where the stored per-item rows allow."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from scorekit.cli._types import MAX_ID, SEED, count, finite, resamples
from scorekit.cli._common import (FORMAT_OPTION, STORE_OPTION, Group, change_pct, dumps_json, example, is_stdout,
                                  options, outputs, print_table, signature_line, transactional, write_json,
                                  write_report)
from scorekit.errors import UnknownNameError
from scorekit.io.run_store import RunStore, record_files
from scorekit.result import is_finite_number
from scorekit.stats.compare import compare_runs
from scorekit.stats.significance import METHODS

STORE_AND_FORMAT = options(STORE_OPTION, FORMAT_OPTION)


def _metrics_summary(metrics: dict[str, Any], k: int = 4) -> str:
    parts = [f"{m}={v:.4f}" if is_finite_number(v) else f"{m}={v}" for m, v in list(metrics.items())[:k]]
    return " ".join(parts) + (" …" if len(metrics) > k else "")


@click.group("runs", cls=Group,
             epilog=example("scorekit runs leaderboard --task retrieval   # runs recorded with --record"))
def command() -> None:
    """The run history: list, show, compare and remove recorded evaluations; leaderboards.

    Record an evaluation with `--record` on any evaluation sub-command (or SCOREKIT_RECORD=1)."""


@command.command("list", epilog=example("scorekit runs list --task retrieval --limit 10"))
@click.option("--task", help="Only runs of this task (retrieval, caption, summary, topics, absa, ...).")
@click.option("--name", help="Only runs whose system name contains this text.")
@click.option("--limit", type=count(1), default=50, show_default=True, help="At most this many (newest first).")
@STORE_AND_FORMAT
def list_cmd(task: str | None, name: str | None, limit: int, store: Path | None, fmt: str) -> None:
    """List recorded runs, newest first."""
    with RunStore(store, create=False) as s:
        runs = s.list(task=task, name=name, limit=limit)
        if not runs and task and task not in s.tasks() and s.tasks():
            raise UnknownNameError("task", task, s.tasks())
    rows = [[r.id, r.task, r.name, r.recorded, r.n_items, _metrics_summary(r.metrics)] for r in runs]
    print_table(["id", "task", "name", "recorded", "items", "metrics"], rows, fmt,
                title=f"{len(rows)} run{'s' if len(rows) != 1 else ''}")


@command.command("show", epilog=example("scorekit runs show 3"))
@click.argument("run_id", type=click.IntRange(0, MAX_ID))
@click.option("--json", "as_json", is_flag=True, help="Print the stored result JSON.")
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), help="Write its HTML report here.")
@STORE_AND_FORMAT
@transactional
def show_cmd(run_id: int, as_json: bool, report: Path | None, store: Path | None, fmt: str) -> None:
    """Show one run: metrics, signature, inputs."""
    if report:
        outputs().file(report, "--report")
    with RunStore(store, create=False) as s:
        data, rec = s.get(run_id), s.record_of(run_id)
    data.pop("_run_id", None)
    if report:
        write_report(report, data)
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    info = [["id", rec.id], ["task", rec.task], ["name", rec.name], ["created", rec.created],
            ["recorded", rec.recorded], ["source", rec.source], ["items", rec.n_items]]
    info += [[f"input: {k}", v if not isinstance(v, (dict, list)) else json.dumps(v, ensure_ascii=False)]
             for k, v in (data.get("inputs") or {}).items()]
    print_table(["field", "value"], info, fmt, title=f"run #{rec.id}")
    print_table(["metric", "value"], [[m, v] for m, v in (data.get("metrics") or {}).items()], fmt)
    signature_line(data.get("signature") or "", fmt)


@command.command("compare",
                 epilog=example("scorekit runs compare 1 2 --method randomization   # run 2 against baseline run 1"))
@click.argument("baseline_id", type=click.IntRange(0, MAX_ID))
@click.argument("run_id", type=click.IntRange(0, MAX_ID))
@click.option("--method", type=click.Choice(METHODS), default="t", show_default=True,
              help="Paired test: Student's t, Fisher randomization, Wilcoxon signed-rank, paired bootstrap.")
@click.option("--metric", "metrics", multiple=True, help="Per-item metric(s) to test (default: all shared).")
@click.option("--alpha", type=finite(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Significance level, applied to Holm–Bonferroni adjusted p-values.")
@click.option("--n-resamples", type=resamples(100), default=10000, show_default=True,
              help="Permutations / bootstrap samples (randomization and bootstrap tests).")
@click.option("--seed", type=SEED, default=42, show_default=True, help="Seed for randomization / bootstrap.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the comparison JSON (renders with `scorekit report`); - for stdout.")
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), help="Write an HTML report.")
@STORE_AND_FORMAT
@transactional
def compare_cmd(baseline_id, run_id, method, metrics, alpha, n_resamples, seed, output, report, store, fmt):
    """Compare two recorded runs: BASELINE_ID (first) and RUN_ID (second), with paired
    significance tests over their shared item ids; the change is RUN_ID against BASELINE_ID.

    \b
    Example:
      scorekit runs compare 3 7 --method randomization
    """
    if output and not is_stdout(output):
        outputs().file(output, "--output")
    if report:
        outputs().file(report, "--report")
    with RunStore(store, create=False) as s:
        a, b = s.get(baseline_id), s.get(run_id)
    doc = compare_runs(a, b, method=method, metrics=list(metrics) or None, alpha=alpha,
                       n_resamples=n_resamples, seed=seed)
    if (a.get("signature") or "") != (b.get("signature") or ""):
        click.echo(f"note: the signatures differ:\n  #{baseline_id}: {a.get('signature')}\n"
                   f"  #{run_id}: {b.get('signature')}", err=True)
    if output:
        write_json(output, dumps_json(doc))
    if report:
        write_report(report, doc)
    comp = doc["comparison"]
    if is_stdout(output):
        return
    rows = [[r["measure"], r["baseline_value"], r["value"],
             r["improvement_pct"] if fmt == "csv" else change_pct(r["improvement_pct"]), r["p_value"],
             r["p_adjusted"], "*" if r["significant"] else "", r["n"]] for r in comp["rows"]]
    print_table(["metric", comp["baseline"], doc["runs"][1]["name"], "change", "p", "p (Holm)", "sig.", "n"], rows, fmt,
                title=f"#{run_id} vs #{baseline_id} ({method} test, {comp['n_shared']} shared items, α={alpha})")


@command.command("rm", epilog=example("scorekit runs rm 4 5"))
@click.argument("run_ids", type=click.IntRange(0, MAX_ID), nargs=-1, required=True)
@STORE_OPTION
def rm_cmd(run_ids: tuple[int, ...], store: Path | None) -> None:
    """Remove runs from the history (all or none: every id must exist)."""
    with RunStore(store, create=False) as s:
        for i in run_ids:
            s.record_of(i)  # a missing id -> one clear error, nothing removed
        removed = s.remove(list(run_ids))
    click.echo(f"removed {', '.join(f'#{i}' for i in removed)}")


@command.command("leaderboard", epilog=example("scorekit runs leaderboard --task retrieval --metric ndcg@10"))
@click.option("--task", help="One task (default: a leaderboard per task in the store).")
@click.option("--metric", help="Rank by this metric (default: the task's headline metric).")
@click.option("--test-set", "test_set", help="Only the test set whose fingerprint starts with this text.")
@click.option("--all-runs", is_flag=True, help="Every run, not just each system name's best.")
@click.option("--top", type=count(1), default=20, show_default=True, help="Show at most this many runs per test set.")
@STORE_AND_FORMAT
def leaderboard_cmd(task, metric, test_set, all_runs, top, store, fmt):
    """Rank recorded runs by a metric, one leaderboard per task and test set (best run per system
    name). Runs scored on different test sets — other qrels or references, another language, or
    another caption recipe — are never ranked together."""
    with RunStore(store, create=False) as s:
        boards = s.leaderboards(task=task, metric=metric, test_set=test_set, all_runs=all_runs, top=top)
    for i, b in enumerate(boards):
        csv = fmt == "csv"   # csv rows name their group
        rows = [[k + 1, r.id, r.name] + [r.metrics.get(c) for c in b.columns] + [r.recorded]
                + ([b.test_set] if csv else []) for k, r in enumerate(b.runs)]
        where = (f"test set {b.test_set}" + (f" ({b.description})" if b.description else "")
                 + (f", recipe {b.recipe}" if b.recipe != "scorekit" else ""))
        if i and not csv:
            sys.stdout.write("\n")
        print_table(["rank", "id", "name", *b.columns, "recorded", *(["test_set"] if csv else [])], rows, fmt,
                    title=f"{b.task} on {where}: by {b.metric} ({'lower' if b.lower_is_better else 'higher'} is better)")


@command.command("add", epilog=example("scorekit runs add results/retrieval.json results/caption.json"))
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@STORE_OPTION
def add_cmd(results: tuple[Path, ...], store: Path | None) -> None:
    """Record existing result JSON files (every run of a multi-system file)."""
    for p, ids in record_files(results, store):
        click.echo(f"recorded {', '.join(f'#{i}' for i in ids)} from {p}")
