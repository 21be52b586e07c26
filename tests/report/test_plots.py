"""PNG figures (matplotlib Agg) and LaTeX tables for papers, from every family's real output."""

from __future__ import annotations

from PIL import Image

from tests.report.report_helpers import COMMANDS
from scorekit.report import tables
from scorekit.report import plots
from scorekit.report.plots import line_ci_png, write_figures


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


def test_line_ci_png_draws_span_reference_lines_and_ticks(tmp_path, monkeypatch):
    drawn = {}
    real = plots._save

    def spy(fig, path, ax=None, **kw):
        drawn["spans"] = [sorted({round(float(x), 9) for x, _ in p.get_path().transformed(p.get_patch_transform()).vertices})
                          for p in ax.patches]   # each patch's x extent, in data units
        drawn["hlines"] = [(ln.get_label(), list(ln.get_ydata())) for ln in ax.lines if ln.get_linestyle() == "--"
                           and ln.get_color() == "black"]
        drawn["legend"] = [t.get_text() for t in ax.get_legend().get_texts()]
        drawn["xticks"] = list(ax.get_xticks())
        return real(fig, path, ax, **kw)

    monkeypatch.setattr(plots, "_save", spy)
    series = {"lead": {"mean": [0.1, 0.3, 0.4], "low": [0.05, 0.2, 0.3], "high": [0.2, 0.4, 0.5]}}
    out = line_ci_png([1, 5, 9], series, tmp_path / "s.png", hlines={"bart (전체)": 0.35}, span=(4.5, 9.5),
                      span_label="recommended n 5–9", xticks=[1, 5, 9])
    with Image.open(out) as im:
        assert im.format == "PNG"
    assert drawn["spans"] == [[4.5, 9.5]]   # the shaded x-interval
    assert drawn["hlines"] == [("bart (전체)", [0.35, 0.35])]
    assert drawn["legend"] == ["lead", "bart (전체)", "recommended n 5–9"]
    assert drawn["xticks"] == [1, 5, 9]
    # without them: no span, no reference line
    line_ci_png([1, 5, 9], series, tmp_path / "t.png")
    assert drawn["spans"] == [] and drawn["hlines"] == [] and drawn["legend"] == ["lead"]
