"""PNG figures (matplotlib Agg) and LaTeX tables for papers, from every family's real output."""

from __future__ import annotations

from PIL import Image

from tests.report.report_helpers import COMMANDS
from scorekit.report import tables
from scorekit.report.plots import write_figures


def test_write_figures_for_every_family(real, tmp_path):
    names = list(COMMANDS)
    docs = [real.json(n) for n in names]
    written = write_figures(docs, tmp_path, sources=[f"{n}.json" for n in names])
    got = {p.name for p in written}
    assert {"retrieval_compare_metrics.png", "retrieval_compare_comparison.tex", "retrieval_compare_metrics.tex",
            "caption_ko_metrics.png", "caption_ko_metrics_cider.png", "caption_ko_meteor_per_item.png",
            "absa_seed42_metrics.png", "absa_seed42_metrics_counts.png", "sweep_sweep_rouge1.png",
            "topics_en_metrics_u_mass.png", "summary_metrics_counts.png"} <= got
    for p in written:
        assert p.exists() and p.stat().st_size > 0
        if p.suffix == ".png":
            with Image.open(p) as im:
                assert im.format == "PNG" and im.size[0] > 300
    comp = real.json("retrieval_compare")["comparison"]["rows"]
    tex = (tmp_path / "retrieval_compare_comparison.tex").read_text()
    assert r"\begin{tabular}" in tex
    for r in comp:
        cell = tables.fmt_cell(r["value"]) + (r"$^{*}$" if r["significant"] else "")
        assert cell in tex
    metrics_tex = (tmp_path / "caption_ko_metrics.tex").read_text()
    cider = real.json("caption_ko")["metrics"]["cider"]
    assert tables.fmt_cell(cider) in metrics_tex and r"bleu\_4" in metrics_tex
    assert not list(tmp_path.glob(".*.tmp"))   # atomic writes leave no temp files
