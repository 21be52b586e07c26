"""``scorekit fuse``: fuse several runs into one TREC run (ranx's methods and normalisations).
A thin layer over :func:`scorekit.retrieval.fusion.fuse`."""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._common import is_stdout, outputs, transactional
from scorekit.retrieval.fusion import METHODS, NORMS


@click.command(name="fuse", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--run", "runs", required=True, multiple=True, metavar="FILE",
              help="A run: TREC `qid Q0 docid rank score tag` (.gz ok) or JSON {qid: {docid: score}}. "
                   "Give two or more.")
@click.option("--method", "-m", default="rrf", show_default=True, metavar="NAME",
              help=f"Fusion method: {', '.join(METHODS)} (also CombSUM, CombMNZ, RRF, ...).")
@click.option("--norm", default="min-max", show_default=True, metavar="NAME",
              help=f"Per-query score normalisation before fusing: {', '.join(NORMS)} (z-score = zmuv).")
@click.option("--rrf-k", "rrf_k", type=int, default=60, show_default=True,
              help="RRF's k: score = sum of 1 / (k + rank).")
@click.option("--weights", default=None, metavar="W1,W2,...",
              help="One weight per --run, for --method wsum.")
@click.option("--tag", default=None, metavar="TAG", help="Run tag in the output (default: the method).")
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="Where to write the fused TREC run (- = stdout).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout.")
@transactional
def command(runs, method, norm, rrf_k, weights, tag, output, quiet):
    """Fuse retrieval runs (ranx's fusion methods; equal to ranx.fuse on runs without ties).

    Documents of the fused run are ranked by fused score, ties by docid descending (trec_eval's
    order), and written as a TREC run.

    \b
    Example:
      scorekit fuse --run run_v1.txt --run run_v2.txt --method rrf -o fused.txt
    """
    from scorekit.errors import ScorekitError
    from scorekit.retrieval.fusion import fuse, write_trec

    w = None
    if weights is not None:
        try:
            w = [float(x) for x in weights.split(",") if x.strip()]
        except ValueError:
            raise ScorekitError(f"--weights: expected comma-separated numbers, got {weights!r}") from None
    to_stdout = is_stdout(output)
    dest = None if to_stdout else outputs().file(output, "--output")   # checked before the work
    fused = fuse(list(runs), method, norm, k=rrf_k, weights=w, name=tag)
    if to_stdout:
        import io

        buf = io.StringIO()
        n = write_trec(fused, buf, tag=tag)
        outputs().stdout(buf.getvalue())
        return
    with dest.open() as fh:
        n = write_trec(fused, fh, tag=tag)
    if not quiet:
        outputs().after_commit(lambda: click.echo(f"fused {len(runs)} runs ({fused.name}, norm {norm}): "
                                                  f"{n} lines, {fused.n_queries} queries -> {output}"))
