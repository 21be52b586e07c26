"""PNG figures (matplotlib Agg) and LaTeX tables for papers."""

from __future__ import annotations

from PIL import Image

from report_helpers import FIXTURES, load
from scorekit.report.plots import write_figures


def test_write_figures_for_every_kind(tmp_path):
    docs = [load(n) for n in FIXTURES]
    written = write_figures(docs, tmp_path, sources=[f"{n}.json" for n in FIXTURES])
    names = {p.name for p in written}
    assert {"retrieval_compare_metrics.png", "retrieval_compare_comparison.tex", "retrieval_single_ndcg@10_per_item.png",
            "retrieval_compare_ndcg@10_per_item.png", "caption_ko_meteor_per_item.png", "sweep_sweep_rouge1.png",
            "sweep_sweep_bertscore_f1.png", "absa_metrics.tex"} <= names
    for p in written:
        assert p.exists() and p.stat().st_size > 0
        if p.suffix == ".png":
            with Image.open(p) as im:
                assert im.format == "PNG" and im.size[0] > 300
    tex = (tmp_path / "retrieval_compare_comparison.tex").read_text()
    assert r"\begin{tabular}" in tex and r"0.5082$^{*}$" in tex and r"0.5566$^{*}$" not in tex
    metrics_tex = (tmp_path / "caption_ko_metrics.tex").read_text()
    assert "0.3207" in metrics_tex and r"cider\_d" in metrics_tex
    assert not list(tmp_path.glob(".*.tmp"))   # atomic writes leave no temp files
