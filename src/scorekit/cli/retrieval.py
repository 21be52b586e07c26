"""``scorekit retrieval``: rank measures for one or more runs against TREC/JSON qrels, with
paired significance tests when several runs are given. A thin layer over
:func:`scorekit.retrieval.evaluate` / :func:`scorekit.retrieval.compare`."""

from __future__ import annotations

import csv
import math
import sys
import warnings
from pathlib import Path

import click

from scorekit.cli._types import MAX_COUNT, SEED, finite, resamples, usage_error
from scorekit.cli._common import emit, example, metrics_table, output_options, outputs, print_table, signature_line
from scorekit.cli._engine import engine_options, open_engine
from scorekit.retrieval.measures import DEFAULT_MEASURES

_TESTS = {"t": "paired t-test", "randomization": "Fisher randomization test",
          "wilcoxon": "Wilcoxon signed-rank test", "bootstrap": "paired bootstrap test"}


def _warn(msg: str) -> None:
    click.echo(f"scorekit: warning: {msg}", err=True)


def _pct(x: float) -> str:
    from scorekit.cli._common import change_pct

    return change_pct(x)


def _p(x: float) -> str:
    return "–" if x is None or math.isnan(x) else (f"{x:.4f}" if x >= 1e-4 else f"{x:.1e}")


def trec_eval_lines(comparison, metrics: str) -> str:
    """One run's per-query values and its ``all`` lines in ``trec_eval -q``'s layout: measure
    (left-aligned in 22 columns), query id, value (counts as integers, the rest with 4 decimals);
    queries in trec_eval's order (byte order of the ids); ``runid`` (the run's name) first when
    asked for. A measure trec_eval prints as a summary only (gm_map, gm_bpref, num_q) has an
    ``all`` line only, as in trec_eval."""
    from scorekit.retrieval.measures import FAMILIES
    from scorekit.retrieval.names import RUNID, asks_runid, parse_measures

    res = comparison.results[0]
    measures = parse_measures(metrics)
    kinds = {key: FAMILIES[m.family].kind for key, m in measures}
    per_query = [key for key, m in measures if not FAMILIES[m.family].summary_only]

    def line(name: str, qid: str, value: float) -> str:
        shown = str(int(round(value))) if kinds.get(name) == "count" else f"{value:6.4f}"
        return f"{name:<22}\t{qid}\t{shown}\n"

    qids = comparison.query_ids
    values = comparison.per_query[res.name]
    out = []
    for i in sorted(range(len(qids)), key=lambda i: str(qids[i]).encode("utf-8")):
        out += [line(m, qids[i], float(values[m][i])) for m in per_query]
    if asks_runid(metrics):
        out.append(f"{RUNID:<22}\tall\t{res.name}\n")
    out += [line(m, "all", float(v)) for m, v in res.metrics.items()]
    return "".join(out)


def _write_per_query(dest, comparison) -> None:
    names = [r.name for r in comparison.results]
    measures = list(comparison.results[0].metrics)
    with dest.open() as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["system", "query"] + measures)
        for name in names:
            cols = [comparison.per_query[name][m].tolist() for m in measures]
            for i, qid in enumerate(comparison.query_ids):
                w.writerow([name, qid] + [repr(c[i]) for c in cols])


@click.command(name="retrieval", context_settings={"help_option_names": ["-h", "--help"]},
               epilog=example("scorekit retrieval --qrels qrels.txt --run run_v1.txt --run run_v2.txt \\",
                              "    --metrics hit_rate@3,mrr,map@3,ndcg@3 --test randomization --report retrieval.html",
                              "scorekit retrieval --qrels qrels.txt --run run_v1.txt -m P.5,10 -m ndcg_cut.10 --per-query -",
                              heading="Examples:"))
@click.option("--qrels", required=True, metavar="FILE",
              help="Relevance judgements: TREC qrels `qid iter docid rel` (.gz ok), JSON {qid: {docid: rel}}, "
                   "Parquet (query_id, doc_id, relevance) or irds:DATASET (local ir_datasets cache only).")
@click.option("--run", "runs", required=True, multiple=True, metavar="FILE",
              help="A run: TREC `qid Q0 docid rank score tag` (.gz ok), JSON {qid: {docid: score}} or "
                   "Parquet (query_id, doc_id, score); or a folder or quoted glob of run shards, read as one "
                   "run. Repeat to compare systems; the first is the baseline.")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="Display name for each --run, in order (default: the run's tag).")
@click.option("--metrics", "-m", multiple=True, default=[",".join(DEFAULT_MEASURES)], show_default=True,
              metavar="LIST",
              help="Comma-separated measures in ranx, ir_measures or trec_eval syntax, e.g. ndcg@10, nDCG@10, "
                   "ndcg_cut_10, AP@100, RR@10, P(rel=2)@5, R@100, Rprec, bpref, infAP, gm_map, ERR@10, "
                   "RBP(p=0.8,rel=1), Judged@10, set_F, NumRelRet, iprec_at_recall_0.50, and trec_eval's -m forms "
                   "P.5,10,20, ndcg_cut.5,10, set_F.0.5, official, all_trec (see docs/retrieval.md). "
                   "Results are keyed by the names as written (trec_eval's -m forms as trec_eval prints them). "
                   "Repeatable, as trec_eval's -m: -m P.5,10 -m map is -m P.5,10,map.")
@click.option("--rel-threshold", type=click.IntRange(-MAX_COUNT - 1, MAX_COUNT), default=1, show_default=True,
              help="Default relevance level: relevant when grade >= this (trec_eval -l); a measure's own "
                   "rel (P(rel=2)@5, precision@5-l2) overrides it. nDCG, DCG and ERR use the grades.")
@click.option("--test", "test", type=click.Choice(list(_TESTS)), default="t", show_default=True,
              help="Paired significance test for comparing runs.")
@click.option("--alpha", type=finite(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Significance level, applied to Holm–Bonferroni adjusted p-values.")
@click.option("--n-resamples", type=resamples(1), default=10000, show_default=True,
              help="Permutations / bootstrap samples (randomization and bootstrap tests).")
@click.option("--seed", type=SEED, default=42, show_default=True, help="Seed for randomization / bootstrap.")
@click.option("--per-query", "per_query", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.csv|-",
              help="Write every system's per-query scores to this CSV; `-` prints one run's per-query "
                   "values on stdout in trec_eval -q's three-column layout (measure, query, value; then "
                   "the `all` lines) instead of the table.")
@engine_options
@output_options
def command(qrels, runs, names, metrics, rel_threshold, test, alpha, n_resamples, seed, per_query,
            engine, address, output, fmt, quiet):
    """Evaluate retrieval runs with trec_eval semantics and compare systems.

    Documents are ranked by score (ties: docid descending, as trec_eval); the rank column is
    ignored. Means are over every query in the qrels; a query missing from a run scores 0.
    """
    from scorekit.retrieval.compare import compare

    if names and len(names) != len(runs):
        raise usage_error(f"--name given {len(names)} times for {len(runs)} --run files")
    metrics = ",".join(metrics)
    trec_layout = per_query is not None and str(per_query) == "-"
    if trec_layout and len(runs) > 1:
        raise usage_error("--per-query - prints one run in trec_eval's layout; give one --run, "
                            "or write every run's per-query values to a CSV file")
    if trec_layout and output is not None and str(output) == "-":
        raise usage_error("--per-query - and -o - both want stdout: write one of them to a file")
    per_query_out = (outputs().file(per_query, "--per-query")
                     if per_query is not None and not trec_layout else None)
    eng = open_engine(engine, address, quiet)
    if eng is not None:
        with eng:
            comp = _compare_on_ray(eng, qrels, runs, names, metrics, rel_threshold, test, alpha, n_resamples, seed)
    else:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("ignore")
            comp = compare(qrels, list(runs), metrics, rel_threshold, test=test, alpha=alpha,
                           n_resamples=n_resamples, seed=seed, names=list(names) or None)
    for msg in comp.warnings:
        _warn(msg)
    for r in comp.results:
        missing = r.extra.get("missing_queries", 0)
        if missing:
            _warn(f"{r.inputs['run']}: {missing} of {r.inputs['n_queries']} qrels queries have no "
                  f"ranking and score 0")
    if per_query_out is not None:
        _write_per_query(per_query_out, comp)
    if trec_layout:
        outputs().stdout(trec_eval_lines(comp, metrics))
        quiet = True
    several = len(comp.results) > 1
    payload = comp.to_dict() if several else None
    if payload is not None:
        from scorekit.result import _jsonable

        payload = _jsonable(payload)
    if not quiet:
        _print(comp, fmt)
    emit(comp.results, output=output, fmt=fmt, quiet=quiet, payload=payload)


def _compare_on_ray(eng, qrels, runs, names, metrics, rel_threshold, test, alpha, n_resamples, seed):
    """Each --run (a file, a folder of shards or a glob) evaluated on Ray, then compared."""
    import numpy as np

    from scorekit.engine.retrieval import evaluate_sharded
    from scorekit.io.shards import expand
    from scorekit.retrieval.compare import compare_scored, normalise_method
    from scorekit.retrieval.inputs import as_qrels
    from scorekit.retrieval.names import parse_measures

    q = as_qrels(qrels)
    results, per_query = [], {}
    for i, spec in enumerate(runs):
        res = evaluate_sharded(eng, q, expand(spec, "--run"), metrics, rel_threshold,
                               name=names[i] if names else None)
        if res.name in per_query or res.name is None:
            res.name = f"{res.name or 'run'}#{i + 1}"
        res.inputs["run"] = spec
        results.append(res)
        per_query[res.name] = {m: np.array([row[m] for row in res.per_item]) for m in res.metrics}
    measures = parse_measures(metrics)
    qids = [row["id"] for row in results[0].per_item]
    comp = compare_scored(results, per_query, qids, measures, rel_threshold, method=normalise_method(test),
                          alpha=alpha, n_resamples=n_resamples, seed=seed,
                          warns=[w for r in results for w in r.extra.get("warnings", [])])
    return comp


def _print(comp, fmt: str) -> None:
    first = comp.results[0]
    n = first.inputs["n_queries"]
    header, rows = metrics_table(comp.results)
    print_table(header, rows, fmt, title=f"Retrieval: {n} queries ({first.inputs['qrels']})")
    if len(comp.results) > 1:
        raw = fmt == "csv"
        chead = ["measure", "system", f"baseline ({comp.baseline})", "value", "improvement",
                 "p", "p (Holm)", "sig."]
        crows = []
        for row in comp.rows:
            mark = ("▲" if row["value"] > row["baseline_value"] else "▼") if row["significant"] else ""
            if fmt in ("latex", "markdown", "csv"):
                mark = ("*" if row["significant"] else "")
            crows.append([row["measure"], row["system"], row["baseline_value"], row["value"],
                          row["improvement_pct"] if raw else _pct(row["improvement_pct"]),
                          row["p_value"] if raw else _p(row["p_value"]),
                          row["p_adjusted"] if raw else _p(row["p_adjusted"]), mark])
        if fmt != "csv":
            sys.stdout.write("\n")
        print_table(chead, crows, fmt, title=f"Compared with {comp.baseline}")
        if fmt != "csv":
            legend = (f"sig.: Holm-adjusted p < {comp.alpha} ({_TESTS[comp.method]}, two-sided, "
                      f"{n} queries); improvement = (system - baseline) / baseline")
            if fmt == "latex":
                sys.stdout.write(f"% {legend}\n")
            else:
                sys.stdout.write(legend + "\n")
    signature_line(comp.signature, fmt)
