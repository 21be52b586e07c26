"""``scorekit fuse``: fuse several runs into one TREC run (ranx's methods and normalisations).
A thin layer over :func:`scorekit.retrieval.fusion.fuse`."""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._types import count
from scorekit.retrieval.fusion import METHODS, NORMS


def _weights(text: str | None) -> list[float] | None:
    """``--weights 0.7,0.3`` -> ``[0.7, 0.3]``, checked at parse time: finite numbers only."""
    if text is None:
        return None
    import math

    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) for v in values):
        raise click.BadParameter(f"expected comma-separated finite numbers, got {text!r}")
    return values


@click.command(name="fuse", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--run", "runs", required=True, multiple=True, metavar="FILE",
              help="A run: TREC `qid Q0 docid rank score tag` (.gz ok) or JSON {qid: {docid: score}}. "
                   "Give two or more.")
@click.option("--method", "-m", default="rrf", show_default=True, metavar="NAME",
              help=f"Fusion method: {', '.join(METHODS)} (also CombSUM, CombMNZ, RRF, ...).")
@click.option("--norm", default="min-max", show_default=True, metavar="NAME",
              help=f"Per-query score normalisation before fusing: {', '.join(NORMS)} (z-score = zmuv).")
@click.option("--rrf-k", "rrf_k", type=count(0), default=60, show_default=True,
              help="RRF's k: score = sum of 1 / (k + rank).")
@click.option("--weights", default=None, metavar="W1,W2,...", callback=lambda ctx, param, value: _weights(value),
              help="One weight per --run, for --method wsum.")
@click.option("--tag", default=None, metavar="TAG", help="Run tag in the output (default: the method).")
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="Where to write the fused TREC run.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout.")
def command(runs, method, norm, rrf_k, weights, tag, output, quiet):
    """Fuse retrieval runs (ranx's fusion methods; equal to ranx.fuse on runs without ties).

    Documents of the fused run are ranked by fused score, ties by docid descending (trec_eval's
    order), and written as a TREC run.

    \b
    Example:
      scorekit fuse --run run_v1.txt --run run_v2.txt --method rrf -o fused.txt
    """
    from scorekit.retrieval.fusion import fuse, write_trec

    fused = fuse(list(runs), method, norm, k=rrf_k, weights=weights, name=tag)
    n = write_trec(fused, output, tag=tag)
    if not quiet:
        click.echo(f"fused {len(runs)} runs ({fused.name}, norm {norm}): {n} lines, "
                   f"{fused.n_queries} queries -> {output}")
