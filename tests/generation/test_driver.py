"""The caption driver wires each registered metric to its exact implementation and returns a
Result with the signature."""

import math

import numpy as np
import pytest

from scorekit.errors import MissingDependencyError, UnknownNameError
from scorekit.generation import driver, evaluate
from scorekit.generation.targets import report

EN_P = ["A man is riding a wave on a surfboard.", "Two dogs play in the park.", ""]
EN_R = [["A surfer rides a wave.", "A man on a surfboard riding a wave."],
        ["Two dogs are playing in a park."], ["A cat on a sofa."]]
KO_P = ["파란 바다에 하얀 파도가 친다", "산꼭대기에 구름이 피어오른다"]
KO_R = [["푸른 바다 위로 하얀 파도가 부서진다"], ["높은 산 위에 구름이 걸려 있다"]]


def test_english_metrics_equal_pycocoevalcap_on_coco_tokens():
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider

    from scorekit.text.english import coco_tokenize

    out = evaluate(EN_P, EN_R, lang="en", metrics=["bleu", "cider", "meteor_nltk", "rouge_l"])
    gts = {i: [" ".join(coco_tokenize(r)) for r in refs] for i, refs in enumerate(EN_R)}
    res = {i: [" ".join(coco_tokenize(p))] for i, p in enumerate(EN_P)}
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    cider, cider_items = Cider().compute_score(gts, res)
    assert all(math.isclose(out.metrics[f"bleu_{n + 1}"], bleu[n], rel_tol=1e-9) for n in range(4))
    assert math.isclose(out.metrics["cider"], cider, rel_tol=1e-9)
    np.testing.assert_allclose(out.column("cider"), cider_items, rtol=1e-9)
    # the empty prediction scores 0 and is counted in the mean
    assert out.column("meteor_nltk")[2] == 0.0 and out.column("rouge_l")[2] == 0.0
    assert math.isclose(out.metrics["meteor_nltk"], out.column("meteor_nltk").mean())


def test_meteor_wiring_english_tokens_and_korean_strings():
    from scorekit.generation.meteor import meteor_batch
    from scorekit.text.english import coco_tokenize
    from scorekit.text.tokenizers import tokenize_batch

    out = evaluate(EN_P[:2], EN_R[:2], lang="en", metrics=["meteor_nltk"])
    expected = meteor_batch([coco_tokenize(p) for p in EN_P[:2]],
                            [[coco_tokenize(r) for r in rs] for rs in EN_R[:2]], lang="en")
    np.testing.assert_array_equal(out.column("meteor_nltk"), expected)
    ko = evaluate(KO_P, KO_R, lang="ko", metrics=["meteor", "meteor_nltk"])
    np.testing.assert_array_equal(ko.column("meteor"), meteor_batch(KO_P, KO_R, lang="ko"))
    # nltk's METEOR on Korean reads the caption tokens (Kiwi morphs), not Kiwi units
    np.testing.assert_array_equal(ko.column("meteor_nltk"), meteor_batch(
        tokenize_batch(KO_P, "kiwi"), [tokenize_batch(rs, "kiwi") for rs in KO_R], lang="en"))
    assert not np.array_equal(ko.column("meteor"), ko.column("meteor_nltk"))


def test_one_metric_name_per_meteor_recipe():
    """`meteor` is the Korean METEOR; English has meteor15 (the headline) and meteor_nltk."""
    from scorekit.errors import ScorekitError
    from scorekit.generation.driver import default_metrics

    with pytest.raises(ScorekitError, match="use meteor15 .* or meteor_nltk"):
        evaluate(EN_P, EN_R, lang="en", metrics=["meteor"])
    assert "meteor15" in default_metrics("en") and "meteor" not in default_metrics("en")
    assert "meteor" in default_metrics("ko") and "meteor15" not in default_metrics("ko")


def test_sentence_bleu_mode_is_the_spec_average():
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    from scorekit.text.tokenizers import tokenize_batch

    out = evaluate(KO_P, KO_R, lang="ko", metrics=["bleu_4(mode=sentence)"])
    assert list(out.metrics) == ["bleu_4(mode=sentence)"]   # keyed as written
    hyps = tokenize_batch(KO_P, "ko-content")  # Korean BLEU on content units (issue #15)
    expected = np.mean([sentence_bleu([tokenize_batch(r, "ko-content")[0]], h,
                                      smoothing_function=SmoothingFunction().method1)
                        for h, r in zip(hyps, KO_R)])
    assert math.isclose(out.metrics["bleu_4(mode=sentence)"], expected, rel_tol=1e-12)


def test_korean_suite_scores_are_positive():
    out = evaluate(KO_P, KO_R, lang="ko", metrics=["bleu", "cider", "rouge_l", "meteor", "cider_plain"])
    for k in ["bleu_1", "cider", "rouge_l", "meteor", "cider_plain"]:
        assert out.metrics[k] > 0, k


def test_report_baseline_and_targets():
    rep = report({"meteor": 0.34, "cider": 1.0, "bertscore_f1": 0.7}, lang="ko")
    assert math.isclose(rep["meteor_improvement_pct"], (0.34 - 0.3052) / 0.3052 * 100)
    rows = {r["metric"]: r for r in rep["targets"]}
    assert rows["meteor"]["reached"] == "target_1" and rows["cider"]["reached"] == "target_2"
    assert rows["meteor"]["target_1"] == pytest.approx(0.33572) and rows["meteor"]["target_2"] == pytest.approx(0.36624)
    assert rows["bertscore_f1"]["reached"] is None
    assert report({"meteor": 0.5}, baseline_meteor=0.33)["targets"][0]["target_1"] == pytest.approx(0.363)


def test_report_yardstick_follows_language_and_recipe():
    en = report({"meteor15": 0.3111, "meteor_nltk": 0.4691}, lang="en")
    assert en["primary"] == "meteor15" and en["baseline_meteor"] == 0.33 and en["comparable"]
    assert en["meteor_improvement_pct"] == pytest.approx((0.3111 - 0.33) / 0.33 * 100)
    assert en["targets"][0]["metric"] == "meteor15" and en["targets"][0]["value"] == 0.3111
    ko = report({"meteor": 0.238}, lang="ko")
    assert ko["primary"] == "meteor" and ko["baseline_meteor"] == 0.3052 and not ko["comparable"]
    assert "--recipe spec" in ko["note"] and ko["meteor_recipe"] != ko["baseline_recipe"]
    spec = report({"meteor": 0.317}, lang="ko", recipe="spec")
    assert spec["comparable"] and "note" not in spec and spec["meteor_recipe"].startswith("the spec's code")
    given = report({"meteor": 0.3}, lang="ko", baseline_meteor=0.25)
    assert given["comparable"] and given["baseline_recipe"] == "given with --baseline-meteor"


def test_report_reads_each_target_from_the_key_written_for_it():
    """#26: -m "meteor(lexicon=x.tsv),bertscore(model=DIR)" keys results as written; the headline and
    the section 7 rows read them as meteor and bertscore_f1 (the same rows as the plain keys)."""
    from scorekit.metrics.registry import declared_key, first_written

    plain = {"meteor": 0.34, "cider": 1.0, "bertscore_f1": 0.81, "bertscore_p": 0.8, "bleu_4": 0.2}
    written = {"meteor(lexicon=x.tsv)": 0.34, "cider": 1.0, "bertscore_f1(model=/m/klue)": 0.81,
               "bertscore_p(model=/m/klue)": 0.8, "bleu_4(mode=sacrebleu)": 0.2}
    a, b = report(plain, lang="ko"), report(written, lang="ko")
    assert b["primary"] == "meteor(lexicon=x.tsv)" and b["meteor_improvement_pct"] == a["meteor_improvement_pct"]
    assert b["secondary"] == ["cider", "bertscore_f1(model=/m/klue)"] and b["reference"][0] == "bleu_4(mode=sacrebleu)"
    assert b["meteor_recipe"].endswith("parameters as written: meteor(lexicon=x.tsv)")
    assert [r["metric"] for r in b["targets"]] == ["meteor(lexicon=x.tsv)", "cider", "bertscore_f1(model=/m/klue)"]
    assert [{**r, "metric": declared_key(r["metric"])} for r in b["targets"]] == a["targets"]
    assert b["targets"][2]["reached"] == "target_2"
    # two keys for one declared key: the first written answers, whichever it is
    both = report({"bertscore_f1": 0.7, "bertscore_f1(model=X)": 0.9}, lang="ko")["targets"][2]
    assert both["metric"] == "bertscore_f1" and both["value"] == 0.7
    swapped = report({"bertscore_f1(model=X)": 0.9, "bertscore_f1": 0.7}, lang="ko")["targets"][2]
    assert swapped["metric"] == "bertscore_f1(model=X)" and swapped["reached"] == "final"
    assert first_written(["ndcg@10", "recall(rel=2)@10", "chrf(beta=3)"]) == {
        "ndcg@10": "ndcg@10", "recall(rel=2)@10": "recall(rel=2)@10", "chrf": "chrf(beta=3)"}


def test_unknown_metric_and_missing_dependency(monkeypatch):
    with pytest.raises(UnknownNameError, match="did you mean 'cider'"):
        evaluate(EN_P, EN_R, lang="en", metrics=["cidr"])

    from scorekit.generation.model_metrics import BERTScore

    def broken(self, batch):
        raise MissingDependencyError("no model here")

    monkeypatch.setattr(BERTScore, "item_stats", broken)
    out = evaluate(EN_P, EN_R, lang="en")  # defaults: skipped, the rest still runs
    assert "bertscore" in out.extra["skipped"] and "meteor15" in out.metrics and "cider" in out.metrics
    with pytest.raises(MissingDependencyError):
        evaluate(EN_P, EN_R, lang="en", metrics=["bertscore"])


def test_clipscore_without_media_is_a_clear_error():
    from scorekit.errors import ScorekitError

    with pytest.raises(ScorekitError, match="clipscore"):
        evaluate(EN_P, EN_R, lang="en", metrics=["clipscore"])


def test_result_carries_signature_and_rows():
    out = evaluate(EN_P, EN_R, lang="en", metrics=["bleu_4", "cider"], ids=["a", "b", "c"], name="sys")
    assert out.task == "caption" and out.name == "sys"
    assert out.signature.startswith("task:caption|lang:en|norm:nfc+invisible|tok:coco|metrics:bleu,cider|version:")
    assert out.signature.endswith("|version:" + __import__("scorekit").__version__)
    assert out.signature.count("task:") == 1 and out.signature.count("version:") == 1
    assert [r["id"] for r in out.per_item] == ["a", "b", "c"] and "bleu_4" in out.per_item[0]


def test_misspelt_parameter_is_an_error_naming_it():
    from scorekit.errors import ScorekitError

    with pytest.raises(UnknownNameError, match="'mod' — did you mean 'mode'"):
        evaluate(EN_P, EN_R, lang="en", metrics=["bleu(mod=sentence)"])
    with pytest.raises(UnknownNameError, match="'sentenc' — did you mean 'sentence'"):
        evaluate(EN_P, EN_R, lang="en", metrics=["bleu(mode=sentenc)"])
    with pytest.raises(ScorekitError, match="'sigma' must be float"):
        evaluate(EN_P, EN_R, lang="en", metrics=["cider(sigma=wide)"])
    with pytest.raises(ScorekitError, match=r"'alpha' must be in \[0, 1\]"):
        evaluate(EN_P, EN_R, lang="en", metrics=["meteor(alpha=1.5)"])
    with pytest.raises(ScorekitError, match="set for the whole batch"):
        evaluate(EN_P, EN_R, lang="en", metrics=["bleu(tokenizer=13a)"])
    with pytest.raises(ScorekitError, match="Korean captions only"):
        evaluate(EN_P, EN_R, lang="en", metrics=["bleu(ko_units=surface)"])


def test_plan_groups_keys_in_order_and_keys_results_as_written():
    from scorekit.engine.driver import plan as make_plan

    plan = make_plan("caption", ["bleu_4", "cider", "bleu_1", "chrf(beta=3)", "chrf"],
                     {"lang": "en", "tokenizer": None})
    assert [(p.metric.name, p.keys) for p in plan] == [
        ("bleu", [("bleu_4", "bleu_4"), ("bleu_1", "bleu_1")]), ("cider", [("cider", "cider")]),
        ("chrf", [("chrf", "chrf(beta=3)")]), ("chrf", [("chrf", "chrf")])]
    assert [p.metric.values.get("beta") for p in plan] == [None, None, 3, 2]
