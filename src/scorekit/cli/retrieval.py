"""``scorekit retrieval``: rank measures for one or more runs against TREC/JSON qrels, with
paired significance tests when several runs are given. A thin layer over
:func:`scorekit.retrieval.evaluate` / :func:`scorekit.retrieval.compare`."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import click

from scorekit.cli._common import (emit, engine_options, engine_scope, example, metrics_table, output_options, outputs,
                                  print_comparison, print_table, signature_line, warn)
from scorekit.cli._types import MAX_COUNT, SEED, finite, resamples, usage_error
from scorekit.retrieval.measures import DEFAULT_MEASURES

TESTS = {"t": "paired t-test", "randomization": "Fisher randomization test",
         "wilcoxon": "Wilcoxon signed-rank test", "bootstrap": "paired bootstrap test"}


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
                   "P.5,10,20, ndcg_cut.5,10, set_F.0.5, official, all_trec, relstring.N (--per-query - only; "
                   "see docs/retrieval.md). "
                   "Results are keyed by the names as written (trec_eval's -m forms as trec_eval prints them). "
                   "Repeatable, as trec_eval's -m: -m P.5,10 -m map is -m P.5,10,map.")
@click.option("--rel-threshold", type=click.IntRange(-MAX_COUNT - 1, MAX_COUNT), default=1, show_default=True,
              help="Default relevance level: relevant when grade >= this (trec_eval -l); a measure's own "
                   "rel (P(rel=2)@5, precision@5-l2) overrides it. nDCG, DCG and ERR use the grades.")
@click.option("--test", "test", type=click.Choice(list(TESTS)), default="t", show_default=True,
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
    with engine_scope(engine, address, quiet) as eng, warnings.catch_warnings():
        warnings.simplefilter("ignore")    # comp.warnings are printed below, once
        comp = compare(qrels, list(runs), metrics, rel_threshold, test=test, alpha=alpha, n_resamples=n_resamples,
                       seed=seed, names=list(names) or None, engine=eng, texts=trec_layout)
    warn(*comp.warnings, *(f"{r.inputs['run']}: {r.extra['missing_queries']} of {r.inputs['n_queries']} "
                           "qrels queries have no ranking and score 0"
                           for r in comp.results if r.extra.get("missing_queries")))
    if per_query_out is not None:
        with per_query_out.open() as fh:
            comp.write_per_query(fh)
    if trec_layout:
        outputs().stdout(comp.trec_eval_lines(metrics))
        quiet = True
    if not quiet:
        n = comp.results[0].inputs["n_queries"]
        print_table(*metrics_table(comp.results), fmt,
                    title=f"Retrieval: {n} queries ({comp.results[0].inputs['qrels']})")
        if len(comp.results) > 1:
            print_comparison(comp, fmt, arrows=True)
        if len(comp.results) > 1 and fmt != "csv":
            legend = (f"sig.: Holm-adjusted p < {comp.alpha} ({TESTS[comp.method]}, two-sided, "
                      f"{n} queries); improvement = (system - baseline) / baseline")
            sys.stdout.write(f"% {legend}\n" if fmt == "latex" else legend + "\n")
        signature_line(comp.signature, fmt)
    emit(comp.results, output=output, fmt=fmt, quiet=quiet,
         payload=comp.to_dict() if len(comp.results) > 1 else None)
