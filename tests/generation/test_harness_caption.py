"""Every registered caption metric through the shared oracle harness (tests/harness.py), English
and Korean. CLIPScore needs a local CLIP model and images: its harness case runs in
tests/neural/test_clipscore.py's conditions only (skipped here without them)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import MetricCase, check_metric
from scorekit.metrics import REGISTRY

EN = "a man rides the wave dog dogs runs in park cat sleeps on sofa red car road . , two".split()
KO = "고양이가 소파 위에서 잔다 파란 바다에 하얀 파도가 친다 사람들 산 구름이 높은".split()


def batches(words):
    sentence = st.lists(st.sampled_from(words), min_size=1, max_size=9).map(" ".join)
    item = st.tuples(sentence, st.lists(sentence, min_size=1, max_size=3))
    return st.lists(item, min_size=2, max_size=6)


def _coco(preds, refs):
    from scorekit.text.english import coco_tokenize

    gts = {i: [" ".join(coco_tokenize(r)) for r in rs] for i, rs in enumerate(refs)}
    res = {i: [" ".join(coco_tokenize(p))] for i, p in enumerate(preds)}
    return gts, res


def bleu_oracle(preds, refs):
    from pycocoevalcap.bleu.bleu import Bleu

    score, items = Bleu(4).compute_score(*_coco(preds, refs), verbose=0)
    keys = [f"bleu_{n}" for n in range(1, 5)]
    return dict(zip(keys, score)), {k: items[n] for n, k in enumerate(keys)}


def cider_oracle(key):
    def oracle(preds, refs):
        from pycocoevalcap.cider.cider import Cider

        score, items = Cider().compute_score(*_coco(preds, refs))
        return {key: score}, {key: list(items)}
    return oracle


def rouge_coco_oracle(preds, refs):
    from pycocoevalcap.rouge.rouge import Rouge

    score, items = Rouge().compute_score(*_coco(preds, refs))
    return {"rouge_l_coco": score}, {"rouge_l_coco": list(items)}


def rouge_l_oracle(preds, refs):
    from rouge_score import rouge_scorer

    sc = rouge_scorer.RougeScorer(["rougeL"])
    items = [sc.score_multi(rs, p)["rougeL"].fmeasure for p, rs in zip(preds, refs)]
    return {"rouge_l": float(np.mean(items))}, {"rouge_l": items}


def chrf_oracle(key, **kw):
    def oracle(preds, refs):
        import sacrebleu

        n = max(len(r) for r in refs)
        streams = [[r[j] if j < len(r) else None for r in refs] for j in range(n)]
        m = sacrebleu.CHRF(**kw)
        return ({key: m.corpus_score(preds, streams).score / 100},
                {key: [m.sentence_score(p, rs).score / 100 for p, rs in zip(preds, refs)]})
    return oracle


EN_CASES = {
    "bleu": MetricCase(REGISTRY.metric_class("caption", "bleu"), oracle=bleu_oracle, rel=1e-12),
    "cider": MetricCase(REGISTRY.metric_class("caption", "cider"), oracle=cider_oracle("cider")),
    "cider_d": MetricCase(REGISTRY.metric_class("caption", "cider_d"), oracle=cider_oracle("cider_d")),
    "cider_plain": MetricCase(REGISTRY.metric_class("caption", "cider_plain"), oracle=None,
                              oracle_test="tests/generation/test_cider.py (vrama91 CIDEr formula)"),
    "rouge_l": MetricCase(REGISTRY.metric_class("caption", "rouge_l"), oracle=rouge_l_oracle, rel=1e-12),
    "rouge_l_coco": MetricCase(REGISTRY.metric_class("caption", "rouge_l_coco"), oracle=rouge_coco_oracle, rel=1e-12),
    "meteor_nltk": MetricCase(REGISTRY.metric_class("caption", "meteor_nltk"), oracle=None,
                              oracle_test="tests/generation/test_meteor.py (nltk meteor_score with WordNet)"),
    "meteor15": MetricCase(REGISTRY.metric_class("caption", "meteor15"), oracle=None,
                           oracle_test="tests/generation/test_meteor15.py (the Meteor 1.5 jar through Java)"),
    "chrf": MetricCase(REGISTRY.metric_class("caption", "chrf"), oracle=chrf_oracle("chrf"), rel=0),
    "chrf_pp": MetricCase(REGISTRY.metric_class("caption", "chrf_pp"), oracle=chrf_oracle("chrf_pp", word_order=2), rel=0),
    # the shipped MiniLM cannot read Hangul: allowed here, where only the properties are checked
    "bertscore": MetricCase(REGISTRY.metric_class("caption", "bertscore"), {"allow_english_model": True}, oracle=None,
                            oracle_test="tests/neural/test_bertscore.py (bert_score)", shard_rel=1e-6),
}
NEEDS_MEDIA = {"clipscore"}
# `meteor` is the Korean METEOR (English: meteor15, meteor_nltk); it has no English case
KO_ONLY = {"meteor": MetricCase(REGISTRY.metric_class("caption", "meteor"), {"lang": "ko"}, oracle=None,
                                oracle_test="tests/generation/test_meteor_ko.py (the spec's worked numbers)")}


def test_every_registered_caption_metric_has_a_case():
    assert set(REGISTRY.names("caption")) - NEEDS_MEDIA == set(EN_CASES) | set(KO_ONLY)


@pytest.mark.parametrize("name", [n for n in EN_CASES if n != "bertscore"])
@settings(max_examples=20, deadline=None)
@given(data=batches(EN))
def test_english(name, data):
    check_metric(EN_CASES[name], [p for p, _ in data], [r for _, r in data])


@pytest.mark.parametrize("name", ["bleu", "cider_d", "rouge_l", "meteor", "meteor_nltk", "chrf", "chrf_pp"])
@settings(max_examples=8, deadline=None)
@given(data=batches(KO))
def test_korean_properties(name, data):
    case = KO_ONLY.get(name) or EN_CASES[name]
    ko = MetricCase(case.cls, {"lang": "ko"}, oracle=case.oracle if name.startswith("chrf") else None,
                    oracle_test=case.oracle_test or "the English case above (same statistics)", rel=case.rel)
    check_metric(ko, [p for p, _ in data], [r for _, r in data])


def test_bertscore_properties():
    pytest.importorskip("torch")
    data = [("a man rides a wave", ["a man riding a wave"]), ("고양이가 잔다", ["고양이가 소파 위에서 잔다"]),
            ("two dogs", ["dogs play", "two dogs run"])]
    check_metric(EN_CASES["bertscore"], [p for p, _ in data], [r for _, r in data])
