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


def test_summary_corpus_metrics_show_the_stored_corpus_scores():
    """A summary run keeps no text per item, so its corpus metrics (chrF, BLEU, CIDEr) cannot be
    recomputed: they are tested on their per-item values, but the values shown are the run's own
    corpus scores, not the mean of the per-item values (before: chrf(beta=3) 0.1754 shown for a
    stored 0.1728)."""
    from scorekit.summarization.metrics import summary_metrics

    names = ["chrf(beta=3)", "bleu_4", "cider", "words"]
    refs = [r[0] for r in REFS]
    ra = summary_metrics(A, refs, bertscorer=None, metrics=names, name="a").to_dict()
    rb = summary_metrics(B, refs, bertscorer=None, metrics=names, name="b").to_dict()
    doc = compare_runs(ra, rb, method="t")
    rows = {r["measure"]: r for r in doc["comparison"]["rows"]}
    for key in names:
        assert rows[key]["baseline_value"] == ra["metrics"][key] and rows[key]["value"] == rb["metrics"][key], key
    assert ra["metrics"]["chrf(beta=3)"] != pytest.approx(np.mean([r["chrf(beta=3)"] for r in ra["per_item"]]))
