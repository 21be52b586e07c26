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
