"""metric_report.html is one self-contained file with the numbers in it."""

import re

from rows import entry, t

from scorekit.absa.aggregate import aggregate_run
from scorekit.absa.report import render_report
from scorekit.absa.scorecard import make_scorecard


def test_report_self_contained_with_numbers():
    entries = [entry("a", [t("포장", "positive")], [t("포장", "negative")], [t("포장", "negative")],
                     review=[1], text="포장이 <허술>해요 & 별로"),
               entry("b", [t("맛", "positive")], [t("맛", "positive")], [t("맛", "negative")])]
    cards = [make_scorecard(e) for e in entries]
    agg = aggregate_run(cards, "cr__seed1_proposed")
    html = render_report("cr__seed1_proposed", agg.metrics, cards, agg.matrix, agg.signature, n_skipped=3)
    assert html.startswith("<!DOCTYPE html>") and 'lang="ko"' in html and "viewport" in html
    assert not re.search(r"https?://", html)                       # no CDN, no network
    assert not re.search(r"<(script|link|img|iframe)\b", html)       # nothing external to load
    assert html.count("<svg") >= 4
    m = agg.metrics
    assert f"{m['tuple_f1_s1']:.4f}" in html and f"{m['tuple_f1_s2']:.4f}" in html   # 0.5000 / 0.5000
    assert f"{m['fix_rate']:.4f}" in html and f"{m['net_gain']:.4f}" in html
    assert "포장이 &lt;허술&gt;해요 &amp; 별로" in html                           # escaped Korean text
    assert "건너뛴 행(malformed): 3" in html
