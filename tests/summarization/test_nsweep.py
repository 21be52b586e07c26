"""The magic-n sweep: every document at every n, CIs, short documents, the gain-band rule, plots."""

import json

import numpy as np
import pytest

from scorekit.errors import ScorekitError
from scorekit.stats.bootstrap import bootstrap_mean_ci
from scorekit.summarization import sweep as SW
from scorekit.summarization.data import read_pairs
from scorekit.summarization.metrics import prepare_contexts, score_predictions
from scorekit.summarization.summarizers import LeadSummarizer

DATA = "examples/summarization/news_en.jsonl"


def test_recommend_interval_rule():
    ns = [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21]
    concave = [1 - np.exp(-n / 7.5) for n in ns]  # diminishing returns
    gain = (np.array(concave) - concave[0]) / (concave[-1] - concave[0])
    expected = [n for n, g in zip(ns, gain) if 0.5 <= g <= 0.9]
    assert SW.recommend_interval(ns, concave) == expected == [7, 9, 11, 13]
    assert SW.recommend_interval(ns, [0.3] * len(ns)) == [1]  # flat: the shortest n
    step = [0.0] * 5 + [1.0] * 6  # a jump straight past the band
    assert SW.recommend_interval(ns, step) == [11]
    # a dip does not un-reach the gain (running maximum)
    assert SW.recommend_interval([1, 2, 3, 4], [0.0, 0.6, 0.1, 1.0]) == [2, 3]
    with pytest.raises(ScorekitError):
        SW.recommend_interval(ns, concave, low=0.9, high=0.5)


def test_sweep_values_match_direct_scoring(fake_embed):
    pairs = read_pairs(DATA).head(8)
    pairs.documents[0] = "Too short to fill it."  # 5 words: shorter than n >= 7
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[3, 7, 21],
                       summarizers=["lead", "textrank", "random"], embed=fake_embed, n_resamples=200)
    assert res.short_documents == {3: 0, 7: 1, 21: 1}
    assert set(res.values) == {"lead", "textrank", "random"}
    assert res.values["lead"]["rouge1"].shape == (3, 8)
    # lead at n=7 equals scoring the first 7 words directly
    lead = LeadSummarizer()
    preds = [lead.summarize(p, 7) for p in lead.prepare(pairs.documents)]
    direct = score_predictions(preds, prepare_contexts(pairs.references, pairs.documents))
    np.testing.assert_array_equal(res.values["lead"]["rouge1"][1], direct["rouge1"])
    mean, low, high = bootstrap_mean_ci(direct["rouge2"], n_resamples=200, seed=42)
    s = res.series["lead"]["rouge2"]
    assert (s["mean"][1], s["low"][1], s["high"][1]) == (mean, low, high)
    assert res.values["textrank"]["words"][2, 0] == 5  # the short document, whole
    assert np.all(res.values["textrank"]["words"][1, 1:] == 7)
    assert res.recommendation["summarizer"] == "textrank" and res.recommendation["metric"] == "rouge1"


def test_sweep_result_json_and_plots(tmp_path, fake_embed):
    pairs = read_pairs(DATA).head(6)
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[1, 5, 9], summarizers=["lead", "textrank"],
                       embed=fake_embed, n_resamples=100, ids=pairs.ids)
    result = SW.sweep_to_result(res, name="news")
    data = json.loads(result.to_json())
    sweep = data["extra"]["sweep"]
    assert sweep["n"] == [1, 5, 9]
    assert set(sweep["series"]["lead"]["rouge1"]) == {"mean", "low", "high"}
    assert len(sweep["series"]["textrank"]["density"]["mean"]) == 3
    assert data["signature"].startswith("task:sweep|lang:en|norm:nfc+invisible|stem:no|n:1,5,9|summ:lead,textrank")
    assert data["per_item"][0]["id"] == pairs.ids[0]
    paths = SW.plot_sweep(res, tmp_path)
    assert paths and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)
    header, rows = SW.sweep_table(res)
    assert header[:3] == ["summarizer", "n", "rouge1"] and len(rows) == 6


def test_sweep_korean(fake_embed):
    pairs = read_pairs("examples/summarization/news_ko.jsonl")
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[5, 9], summarizers=["lead"], n_resamples=50)
    assert 0.2 < res.series["lead"]["rouge1"]["mean"][1] < 1.0  # Kiwi tokens overlap; rouge-score gives 0


def test_sweep_bad_input():
    with pytest.raises(ScorekitError, match="positive"):
        SW.run_sweep(["a b"], ["a"], ns=[0, 3], summarizers=["lead"])
    with pytest.raises(ScorekitError, match="duplicate"):
        SW.run_sweep(["a b"], ["a"], ns=[3, 3], summarizers=["lead"])
    with pytest.raises(ScorekitError):
        SW.run_sweep(["a b"], ["a", "b"], summarizers=["lead"])


def _system(pairs, name="bart"):
    # a stand-in external system: each reference reversed word by word (any text will do)
    return SW.SystemSummaries(name, {i: " ".join(r.split()[::-1]) for i, r in zip(pairs.ids, pairs.references)},
                              source="bart.jsonl")


def test_sweep_plots_are_drawn_by_report_plots(tmp_path, monkeypatch):
    # one plotting code: each sweep_<metric>.png is report.plots.line_ci_png with the recommended
    # interval as its shaded span and the uncut external summaries as a flat reference line
    from scorekit.report import plots

    calls = []
    real = plots.line_ci_png
    monkeypatch.setattr(plots, "line_ci_png", lambda *a, **k: calls.append((a, k)) or real(*a, **k))
    pairs = read_pairs(DATA).head(5)
    res = SW.run_sweep(pairs.documents, pairs.references, ids=pairs.ids, ns=[2, 6, 10], summarizers=["lead"],
                       systems=[_system(pairs)], n_resamples=50)
    paths = SW.plot_sweep(res, tmp_path, metrics=["rouge2", "rouge1", "not_a_metric"])
    assert [p.name for p in paths] == ["sweep_rouge2.png", "sweep_rouge1.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep_rouge1.png", "sweep_rouge2.png"]  # no temp files
    (x, series, path), kw = calls[1]
    rec = res.recommendation["interval"]
    words = res.series["bart (full)"]["words"]["mean"][0]
    assert x == [2, 6, 10] and path == paths[1] and list(series) == ["lead", "bart"]
    assert series["bart"] is res.series["bart"]["rouge1"]
    assert kw["span"] == (min(rec) - 0.5, max(rec) + 0.5) and kw["span_label"].startswith("recommended n ")
    assert kw["hlines"] == {f"bart (full), {words:.1f} words": res.series["bart (full)"]["rouge1"]["mean"][0]}
    assert kw["xticks"] == [2, 6, 10] and kw["ylabel"] == "rouge1"
    assert kw["title"] == "rouge1 against n (5 documents, mean and 95% CI)"
    with pytest.raises(ScorekitError, match="does not exist"):
        SW.plot_sweep(res, tmp_path / "missing")


def test_external_system_is_cut_to_n_words_and_kept_whole():
    pairs = read_pairs(DATA).head(5)
    system = _system(pairs)
    res = SW.run_sweep(pairs.documents, pairs.references, ids=pairs.ids, ns=[2, 6, 50], summarizers=["lead"],
                       systems=[system], n_resamples=50, keep_summaries=True)
    assert res.summarizers == ["lead", "bart", "bart (full)"]
    texts = [system.summaries[i] for i in pairs.ids]
    contexts = prepare_contexts(pairs.references, pairs.documents)
    for j, n in enumerate([2, 6, 50]):
        cut = [" ".join(t.split()[:n]) for t in texts]   # lead-n's word counting
        assert res.summaries["bart"][j] == cut
        np.testing.assert_array_equal(res.values["bart"]["rouge1"][j], score_predictions(cut, contexts)["rouge1"])
        np.testing.assert_array_equal(res.values["bart (full)"]["rouge2"][j],
                                      score_predictions(texts, contexts)["rouge2"])
    assert res.recommendation["summarizer"] == "lead"   # never an external system
    header, rows = SW.sweep_table(res)
    assert [r[:2] for r in rows if r[0] == "bart (full)"] == [["bart (full)", "full"]]
    result = SW.sweep_to_result(res)
    assert f"|systems:bart@{system.digest}|" in result.signature
    assert result.extra["sweep"]["full_length"] == {"bart (full)": np.mean([len(t.split()) for t in texts])}
    assert "bart/rouge1@6" in result.per_item[0] and "bart (full)/rouge1" in result.per_item[0]
    # other summaries, other digest
    assert SW.SystemSummaries("bart", {i: "x" for i in pairs.ids}).digest != system.digest


def test_external_system_missing_id_and_name_clash():
    pairs = read_pairs(DATA).head(3)
    partial = SW.SystemSummaries("llm", {pairs.ids[0]: "a summary"})
    with pytest.raises(ScorekitError, match=r"system llm: no summary for id 'en02' \(2 missing\)"):
        SW.run_sweep(pairs.documents, pairs.references, ids=pairs.ids, summarizers=["lead"], systems=[partial])
    with pytest.raises(ScorekitError, match="used twice"):
        SW.run_sweep(pairs.documents, pairs.references, ids=pairs.ids, summarizers=["lead"],
                     systems=[_system(pairs, "lead")])
