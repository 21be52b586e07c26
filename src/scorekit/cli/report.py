"""``scorekit report RESULT.json ... --out report.html [--png-dir DIR]`` (docs/report.md)."""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._common import example, outputs, transactional


@click.command("report",
               epilog=example("scorekit report retrieval.json captions.json --out report.html --png-dir figures/"))
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "-o", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write (self-contained: opens offline, on a phone too).")
@click.option("--png-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write every chart as PNG and the metric tables as LaTeX into this directory "
                   "(created if missing).")
@click.option("--title", help="Page title (default: 'scorekit report').")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
@transactional
def command(results: tuple[Path, ...], out: Path, png_dir: Path | None, title: str | None, quiet: bool) -> None:
    """Render RESULT.json files into one self-contained HTML report: metric tables, signatures
    and inputs, system comparisons with significance markers, per-item score distributions, a
    worst-first drill-down (captions beside their references), n-sweep curves."""
    from scorekit.report.html import render_report
    from scorekit.report.model import read_result

    tx = outputs()
    page_out = tx.file(out, "--out")
    png_out = tx.directory(png_dir, "--png-dir") if png_dir is not None else None
    docs = [read_result(p) for p in results]
    page = render_report(docs, title=title, sources=[str(p) for p in results])
    written = []
    if png_out is not None:
        from scorekit.report.plots import write_figures

        written = write_figures(docs, png_out.staging, sources=[str(p) for p in results])
    page_out.write_text(page)
    tx.commit()
    if not quiet:
        click.echo(f"wrote {out} ({len(page.encode('utf-8')) // 1024 + 1} KiB, {len(docs)} result file"
                   f"{'s' if len(docs) != 1 else ''})")
        if written:
            click.echo(f"wrote {len(written)} figure/table files to {png_dir}")
