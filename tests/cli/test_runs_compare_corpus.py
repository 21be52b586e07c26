"""`runs compare` tests a corpus metric (BLEU, CIDEr, chrF) on its own corpus score, recomputed
from per-item statistics re-derived from the stored captions; per-item metrics on their means."""

import numpy as np
import pytest

from scorekit.cli.runs import compare_runs
from scorekit.generation import evaluate
from scorekit.stats.corpus_tests import paired_bootstrap

REFS = [["a man rides a wave on a board"], ["two dogs play in the park"], ["a cat sleeps on the sofa"],
        ["a child eats an apple"], ["the sun sets over the sea"], ["a red car on the road"]]
A = ["a man on a wave", "dogs play", "a cat on a sofa", "child eats", "sun over sea", "a car"]
B = ["a man rides a wave", "two dogs play in a park", "a cat sleeps on a sofa", "a child eats an apple",
     "the sun sets over the sea", "a red car"]


@pytest.mark.parametrize("method", ["bootstrap", "randomization", "t"])
def test_corpus_metrics_compare_on_the_corpus_score(method):
    ra = evaluate(A, REFS, lang="en", metrics=["bleu", "cider", "chrf", "rouge_l"], name="a").to_dict()
    rb = evaluate(B, REFS, lang="en", metrics=["bleu", "cider", "chrf", "rouge_l"], name="b").to_dict()
    doc = compare_runs(ra, rb, method=method, n_resamples=200, seed=3)
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    for key in ("bleu_1", "bleu_4", "cider", "chrf"):
        assert rows[key]["value"] == rb["metrics"][key] and rows[key]["baseline_value"] == ra["metrics"][key]
        assert "corpus score" in rows[key]["test"]
    # the per-item metric keeps the mean of its per-item values
    assert rows["rouge_l"]["value"] == pytest.approx(np.mean([r["rouge_l"] for r in rb["per_item"]]))
    assert "per-item" in rows["rouge_l"]["test"]
    if method != "randomization":
        from scorekit.generation.bleu import BLEU

        m = BLEU()
        want = paired_bootstrap(m, "bleu_1", m.item_stats((A, REFS)), m.item_stats((B, REFS)),
                                n_resamples=200, seed=3)
        assert rows["bleu_1"]["p_value"] == want.p_value


def test_stored_parameters_are_the_ones_recomputed():
    """#26: a run scored with chrf(beta=3), cider(sigma=3), bleu(mode=sacrebleu) and a non-default
    METEOR is rebuilt from its signature with those parameters (get_metric of the canonical
    spec), so `runs compare` recomputes each corpus score exactly as the run computed it."""
    from scorekit.generation.driver import metric_from_signature

    names = ["chrf(beta=3)", "cider(sigma=3)", "bleu_4(mode=sacrebleu)", "chrf",
             "meteor_nltk(alpha=0.85,beta=0.2,gamma=0.6)"]   # English: nltk's METEOR
    ra = evaluate(A, REFS, lang="en", metrics=names, name="a").to_dict()
    rb = evaluate(B, REFS, lang="en", metrics=names, name="b").to_dict()
    doc = compare_runs(ra, rb, method="bootstrap", n_resamples=100, seed=3)
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    for key in ("chrf(beta=3)", "cider(sigma=3)", "bleu_4(mode=sacrebleu)", "chrf"):
        assert "corpus score" in rows[key]["test"], key
        assert rows[key]["value"] == rb["metrics"][key] and rows[key]["baseline_value"] == ra["metrics"][key], key
    assert rows["chrf(beta=3)"]["value"] != rows["chrf"]["value"]     # not recomputed with beta 2
    m = metric_from_signature("meteor_nltk(alpha=0.85,beta=0.2,gamma=0.6)", rb["signature"])
    assert (m.name, m.values["alpha"], m.values["beta"], m.values["gamma"]) == ("meteor_nltk", 0.85, 0.2, 0.6)
    assert metric_from_signature("cider(sigma=3)", rb["signature"]).values["sigma"] == 3.0
    assert metric_from_signature("chrf", rb["signature"]).values["beta"] == 2


KO_REFS = [["남자가 해변에서 달린다"], ["두 사람이 물속에 앉아 있다", "사람들이 물에 있다"], ["작은 고양이가 잔다"],
           ["빨간 공을 가진 개가 달린다"], ["고양이가 소파 위에서 잔다"]]
KO_A = ["남자가 달린다", "사람이 앉아 있다", "고양이가 잔다", "개가 공을 가졌다", "고양이가 소파에서 잤다"]
KO_B = ["남자가 해변에서 달렸다", "두 사람이 물에 앉아 있다", "작은 고양이가 잠을 잔다", "빨간 공을 가진 개", "고양이가 소파 위에 있다"]


@pytest.mark.parametrize("tokenizer", [None, "kiwi"])
def test_korean_corpus_scores_are_recomputed_as_stored(tokenizer):
    """A Korean run with the default tokens (BLEU on content units, pinned ko_units=content) and
    one with --tokenizer kiwi (surface morphs) both carry the tok field kiwi-<version>: the
    comparison rebuilds each with the tokens its run used, so the recomputed corpus scores are the
    stored ones (before: the default run was rebuilt with surface morphs, 0.48 against 0.43)."""
    names = ["bleu", "chrf(beta=3)", "cider"] + (["bleu_4(ko_units=surface)"] if tokenizer is None else [])
    ra = evaluate(KO_A, KO_REFS, lang="ko", metrics=names, tokenizer=tokenizer, name="a").to_dict()
    rb = evaluate(KO_B, KO_REFS, lang="ko", metrics=names, tokenizer=tokenizer, name="b").to_dict()
    doc = compare_runs(ra, rb, method="bootstrap", n_resamples=50, seed=3)
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    assert len(rows) == len(ra["metrics"])
    for key, row in rows.items():
        assert "corpus score" in row["test"], key
        assert row["baseline_value"] == ra["metrics"][key] and row["value"] == rb["metrics"][key], key


def test_scale_100_runs_compare_on_their_stored_scale():
    """`caption --scale 100` stores chrF and sacrebleu-mode BLEU on sacrebleu's 0-100 scale (pinned
    scale:100): the comparison shows the recomputed corpus scores on that scale too."""
    from scorekit.generation.scale import rescale

    names = ["chrf(beta=3)", "bleu_4(mode=sacrebleu)", "bleu_4", "cider"]
    ra = rescale(evaluate(A, REFS, lang="en", metrics=names, name="a"), 100).to_dict()
    rb = rescale(evaluate(B, REFS, lang="en", metrics=names, name="b"), 100).to_dict()
    assert ra["metrics"]["chrf(beta=3)"] > 1
    doc = compare_runs(ra, rb, method="bootstrap", n_resamples=50, seed=3)
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    for key in names:
        assert "corpus score" in rows[key]["test"], key
        assert rows[key]["baseline_value"] == pytest.approx(ra["metrics"][key], rel=1e-12), key
        assert rows[key]["value"] == pytest.approx(rb["metrics"][key], rel=1e-12), key


def _record_summaries(tmp_path, capsys, lang, preds_by_name, refs, names):
    """Record one `scorekit summary` run per system into a temporary store (txt files by line)."""
    from scorekit.cli import main

    store = tmp_path / "runs.db"
    (tmp_path / "refs.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    for name, preds in preds_by_name.items():
        (tmp_path / f"{name}.txt").write_text("\n".join(preds) + "\n", encoding="utf-8")
        code = main(["summary", "-p", str(tmp_path / f"{name}.txt"), "-r", str(tmp_path / "refs.txt"),
                     "--lang", lang, "-m", ",".join(names), "--name", name, "--record", "--store", str(store),
                     "-q", "-o", str(tmp_path / f"{name}.json")])
        assert code == 0, capsys.readouterr().err
    return store


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_recorded_summary_runs_recompute_their_corpus_scores(tmp_path, capsys, lang):
    """#26: two recorded summary runs with chrf(beta=3), bleu_4 and cider: `runs compare` rebuilds
    each corpus metric from the run's signature (lang pinned, the parameters it ran with) and the
    per-item prediction and references it stored, so the recomputed corpus scores equal the stored
    ones and the paired test resamples the corpus statistics, as for captions (before: a summary
    run kept no text, so chrF/BLEU/CIDEr were tested on per-item values)."""
    import json

    from scorekit.cli import main
    from scorekit.generation.driver import metric_from_signature, stats_from_rows
    from scorekit.metrics.registry import MetricSpec

    names = ["chrf(beta=3)", "bleu_4", "cider", "words"]
    if lang == "en":
        refs, a, b = [r[0] for r in REFS], A, B
    else:
        refs, a, b = [r[0] for r in KO_REFS], KO_A, KO_B
    store = _record_summaries(tmp_path, capsys, lang, {"a": a, "b": b}, refs, names)
    out = tmp_path / "cmp.json"
    assert main(["runs", "compare", "1", "2", "--method", "bootstrap", "--n-resamples", "200", "--seed", "3",
                 "--store", str(store), "-o", str(out)]) == 0, capsys.readouterr().err
    doc = json.loads(out.read_text())
    ra, rb = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("a", "b"))
    assert [r["prediction"] for r in rb["per_item"]] == b and [r["references"] for r in rb["per_item"]] == \
        [[r] for r in refs]
    assert "lang:" + lang in ra["signature"].split("|")
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    for key in ("chrf(beta=3)", "bleu_4", "cider"):
        assert rows[key]["test"] == "paired-bootstrap on the corpus score", key
        assert rows[key]["baseline_value"] == pytest.approx(ra["metrics"][key], rel=1e-12, abs=1e-12), key
        assert rows[key]["value"] == pytest.approx(rb["metrics"][key], rel=1e-12, abs=1e-12), key
        m = metric_from_signature(key, rb["signature"])
        assert m.score(stats_from_rows(m, rb["per_item"]))[MetricSpec(key).name] == \
            pytest.approx(rb["metrics"][key], rel=1e-12, abs=1e-12), key
    assert metric_from_signature("chrf(beta=3)", rb["signature"]).values["beta"] == 3
    assert metric_from_signature("bleu_4", rb["signature"]).values["lang"] == lang
    assert rows["words"]["test"] == "bootstrap on per-item values", rows["words"]["test"]
    # the paired test is sacrebleu's paired bootstrap on the merged statistics
    m = metric_from_signature("chrf(beta=3)", rb["signature"])
    want = paired_bootstrap(m, "chrf", m.item_stats((a, refs)), m.item_stats((b, refs)), n_resamples=200, seed=3)
    assert rows["chrf(beta=3)"]["p_value"] == want.p_value


def test_summary_runs_without_text_show_the_stored_corpus_scores():
    """A summary run stored before its rows kept the text (no prediction per item) cannot be
    recomputed: its corpus metrics are tested on their per-item values, but the values shown are
    the run's own corpus scores, not the mean of the per-item values (chrf(beta=3) 0.1754 would
    be shown for a stored 0.1728)."""
    from scorekit.summarization.metrics import summary_metrics

    names = ["chrf(beta=3)", "bleu_4", "cider", "words"]
    refs = [r[0] for r in REFS]
    ra = summary_metrics(A, refs, bertscorer=None, metrics=names, name="a").to_dict()
    rb = summary_metrics(B, refs, bertscorer=None, metrics=names, name="b").to_dict()
    for r in ra["per_item"] + rb["per_item"]:
        r.pop("prediction", None)
        r.pop("references", None)
    doc = compare_runs(ra, rb, method="t")
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    for key in names:
        assert rows[key]["baseline_value"] == ra["metrics"][key] and rows[key]["value"] == rb["metrics"][key], key
        assert "per-item" in rows[key]["test"], key
    assert ra["metrics"]["chrf(beta=3)"] != pytest.approx(np.mean([r["chrf(beta=3)"] for r in ra["per_item"]]))


def test_summary_family_metrics_are_rebuilt_from_a_summary_signature():
    """One rebuild for both families: a summary run's own metric (family "summary") comes back
    from its signature with its parameters, next to the caption metrics it also scored; a caption
    run does not rebuild a summary-only metric."""
    from scorekit.generation.driver import metric_from_signature
    from scorekit.summarization.metrics import SummaryRouge, summary_metrics

    refs = [r[0] for r in REFS]
    res = summary_metrics(A, refs, bertscorer=None, metrics=["rouge(use_stemmer=true)", "chrf(beta=3)"])
    m = metric_from_signature("rouge1(use_stemmer=true)", res.signature)
    assert isinstance(m, SummaryRouge) and m.values["use_stemmer"] is True
    assert m.score(m.item_stats((A, refs)))["rouge1"] == pytest.approx(res.metrics["rouge1(use_stemmer=true)"],
                                                                      rel=1e-12)
    assert metric_from_signature("chrf(beta=3)", res.signature).values["beta"] == 3
    cap = evaluate(A, REFS, lang="en", metrics=["chrf(beta=3)"]).signature
    assert metric_from_signature("rouge1(use_stemmer=true)", cap) is None


# signatures as runs recorded before the one layout carry them (per-family layouts)
OLD_LAYOUTS = {
    "caption-en": "task:caption|lang:en|norm:nfc+invisible|tok:coco|metrics:chrf(beta=3),bleu_4(mode=sacrebleu),"
                  "cider(sigma=3)|chrf(beta=3):-|bleu(mode=sacrebleu):-|cider(sigma=3):-|version:0.1.0",
    "caption-ko": "task:caption|lang:ko|norm:nfc+invisible|tok:kiwi-0.24.1+lex94d9852f7e|metrics:meteor,cider,bleu_4,"
                  "rouge_l,chrf|meteor:tok=kiwi0.24.1-units2;lemma=kiwi;delta=0.9;lexicon=94d9852f7e|cider:-|"
                  "bleu:ko_units=content2|rouge_l:ko_units=content2;kiwi=0.24.1+lex94d9852f7e|chrf:-|version:0.1.0",
    "summary": "task:summary|lang:en|norm:nfc+invisible|rouge:rouge1,rouge2|tok:rouge-score|ko:kiwi-0.24.1+lex94d9852f7e|"
               "stem:no|bertscore:no|density_tok:none|chrf(beta=3):-|bleu:-|version:0.1.0",
}


def test_runs_stored_with_the_older_layouts_are_rebuilt_with_their_parameters():
    """A run recorded before the one signature layout is still read: each stored corpus metric is
    rebuilt with the parameters (and, Korean, the tokens) it ran with, and `runs compare`
    recomputes it."""
    from scorekit.generation.driver import metric_from_signature

    def rebuilt(key, layout):
        return metric_from_signature(key, OLD_LAYOUTS[layout])

    assert rebuilt("chrf(beta=3)", "caption-en").values["beta"] == 3
    assert rebuilt("bleu_4(mode=sacrebleu)", "caption-en").values["mode"] == "sacrebleu"
    assert rebuilt("cider(sigma=3)", "caption-en").values["sigma"] == 3.0
    ko = rebuilt("bleu_4", "caption-ko")   # the default Korean tokens: content units, as pinned
    assert (ko.values["lang"], ko.values["tokenizer"], ko.signature_params()) == ("ko", None,
                                                                                   {"bleu": "ko_units=content2"})
    assert rebuilt("chrf", "caption-ko").values["beta"] == 2
    assert rebuilt("chrf(beta=3)", "summary").values["beta"] == 3 and rebuilt("bleu_4", "summary").name == "bleu"
    names = ["chrf(beta=3)", "bleu_4(mode=sacrebleu)", "cider(sigma=3)"]
    ra, rb = (evaluate(x, REFS, lang="en", metrics=names, name=n).to_dict() for x, n in ((A, "a"), (B, "b")))
    for run in (ra, rb):
        run["signature"] = OLD_LAYOUTS["caption-en"]
    rows = compare_runs(ra, rb, method="bootstrap", n_resamples=100, seed=3)["comparison"]["rows"]
    assert sorted(r["measure"] for r in rows) == sorted(names)
    for r in rows:
        assert "corpus score" in r["test"] and r["value"] == pytest.approx(rb["metrics"][r["measure"]], abs=1e-12)
