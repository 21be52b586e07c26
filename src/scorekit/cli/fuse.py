"""``scorekit fuse``: fuse several runs into one TREC run (ranx's methods and normalisations).
A thin layer over :func:`scorekit.retrieval.fusion.fuse`."""

from __future__ import annotations

import math
from pathlib import Path

import click

from scorekit.cli._common import QUIET_OPTION, example, is_stdout, outputs, transactional
from scorekit.cli._types import count, usage_error
from scorekit.retrieval.fusion import METHODS, NORMS, OPTIMIZABLE


def _weights(ctx: click.Context, param: click.Parameter, text: str | None) -> list[float] | None:
    """``--weights 0.7,0.3`` -> ``[0.7, 0.3]``, checked at parse time: finite numbers only."""
    if text is None:
        return None
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) for v in values):
        raise click.BadParameter(f"expected comma-separated finite numbers, got {text!r}")
    return values


@click.command(name="fuse", context_settings={"help_option_names": ["-h", "--help"]},
               epilog=example("scorekit fuse --run run_v1.txt --run run_v2.txt --method rrf -o fused.txt",
                              "scorekit fuse --run bm25.parquet --run dense.parquet --method wsum --optimize \\",
                              "    --qrels train_qrels.txt --metric ndcg@10 -o fused.txt",
                              heading="Examples:"))
@click.option("--run", "runs", required=True, multiple=True, metavar="FILE",
              help="A run: TREC `qid Q0 docid rank score tag` (.gz ok), JSON {qid: {docid: score}} or "
                   "Parquet (query_id, doc_id, score). Give two or more.")
@click.option("--method", "-m", default="rrf", show_default=True, metavar="NAME",
              help=f"Fusion method: {', '.join(METHODS)} (also CombSUM, CombMNZ, RRF, ...).")
@click.option("--norm", default="min-max", show_default=True, metavar="NAME",
              help=f"Per-query score normalisation before fusing: {', '.join(NORMS)} (z-score = zmuv).")
@click.option("--rrf-k", "rrf_k", type=count(0), default=60, show_default=True,
              help="RRF's k: score = sum of 1 / (k + rank).")
@click.option("--weights", default=None, metavar="W1,W2,...", callback=_weights,
              help="One weight per --run, for --method wsum.")
@click.option("--optimize", is_flag=True,
              help=f"Choose the method's parameters on training queries as ranx's optimize_fusion "
                   f"({', '.join(OPTIMIZABLE)}: weights on a grid of --step summing to 1; RRF's k in "
                   f"10, 20, ..., 100), then fuse every query with them. Needs --qrels.")
@click.option("--qrels", default=None, metavar="FILE",
              help="Training relevance judgements for --optimize (TREC, JSON or Parquet); their queries "
                   "are the training queries.")
@click.option("--metric", default="ndcg", show_default=True, metavar="NAME",
              help="The measure --optimize maximises (ranx, ir_measures or trec_eval syntax, e.g. ndcg@10).")
@click.option("--step", type=float, default=0.1, show_default=True,
              help="Weight grid step for --optimize with wsum (ranx's step).")
@click.option("--tag", default=None, metavar="TAG", help="Run tag in the output (default: the method).")
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="Where to write the fused TREC run (- = stdout).")
@QUIET_OPTION
@transactional
def command(runs, method, norm, rrf_k, weights, optimize, qrels, metric, step, tag, output, quiet):
    """Fuse retrieval runs (ranx's fusion methods; equal to ranx.fuse on runs without ties).

    Runs are TREC, JSON or Parquet files. Documents of the fused run are ranked by fused score,
    ties by docid descending (trec_eval's order), and written as a TREC run; the signature
    printed after it pins the method, normalisation and parameters (chosen ones included).
    """
    from scorekit.retrieval.fusion import fuse_runs, normalise_method, write_trec

    normalise_method(method)   # an unknown method is the first error
    if optimize and qrels is None:
        raise usage_error("--optimize needs --qrels (the training queries' judgements)")
    if optimize and weights is not None:
        raise usage_error("--optimize chooses the weights: give --weights or --optimize, not both")
    if not optimize and qrels is not None:
        raise usage_error("--qrels is read by --optimize only")
    to_stdout = is_stdout(output)
    dest = None if to_stdout else outputs().file(output, "--output")   # checked before the work
    fused, sig, chose = fuse_runs(runs, method, norm, k=rrf_k, weights=weights, name=tag, optimize_on=qrels,
                                  metric=metric, step=step)
    lines = [chose] if chose else []
    if to_stdout:
        import io

        buf = io.StringIO()
        write_trec(fused, buf, tag=tag)
        outputs().stdout(buf.getvalue())
    else:
        with dest.open() as fh:
            n = write_trec(fused, fh, tag=tag)
        lines.append(f"fused {len(runs)} runs ({fused.name}, norm {norm}): {n} lines, "
                     f"{fused.n_queries} queries -> {output}")
    if not quiet:   # said once the run is in place; with -o - the fused run owns stdout: stderr
        outputs().after_commit(lambda: click.echo("\n".join([*lines, f"signature: {sig}"]), err=to_stdout))
