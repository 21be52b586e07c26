"""The summary family's own metrics (#26: on the metric contract) through the shared oracle
harness (tests/harness.py): ROUGE-1/2 against rouge-score, words against str.split; shards merge
to the whole, NFD = NFC, empty and single-item batches, stateful = functional. English and
Korean (Korean ROUGE goes through Kiwi, which rouge-score cannot: its oracle is
tests/summarization/test_metrics.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import MetricCase, check_metric
from scorekit.metrics import REGISTRY

EN = "a man rides the wave dog dogs runs in park cat sleeps on sofa red car road two".split()
KO = "고양이가 소파 위에서 잔다 파란 바다에 하얀 파도가 친다 사람들 산 구름이 높은".split()


def batches(words):
    sentence = st.lists(st.sampled_from(words), min_size=1, max_size=9).map(" ".join)
    return st.lists(st.tuples(sentence, st.lists(sentence, min_size=1, max_size=1)), min_size=2, max_size=6)


def rouge_oracle(preds, refs):
    from rouge_score import rouge_scorer

    sc = rouge_scorer.RougeScorer(["rouge1", "rouge2"])
    scores = [sc.score(rs[0], p) for p, rs in zip(preds, refs)]
    items = {"rouge1": [s["rouge1"].fmeasure for s in scores], "rouge1_r": [s["rouge1"].recall for s in scores],
             "rouge2": [s["rouge2"].fmeasure for s in scores], "rouge2_r": [s["rouge2"].recall for s in scores]}
    return {k: float(np.mean(v)) for k, v in items.items()}, items


def words_oracle(preds, refs):
    items = [float(len(p.split())) for p in preds]
    return {"words": float(np.mean(items))}, {"words": items}


CASES = {
    "rouge": MetricCase(REGISTRY.metric_class("summary", "rouge"), oracle=rouge_oracle, rel=1e-12),
    "words": MetricCase(REGISTRY.metric_class("summary", "words"), oracle=words_oracle, rel=0),
}
ELSEWHERE = {   # a batch of pairs cannot hold what these need
    "density": "needs the source documents: tests/summarization/test_metrics.py (the spec's compute_density)",
    "bertscore": "needs a model: tests/summarization/test_metrics.py and tests/engine/test_ray.py",
    "efficiency": "derived from BERTScore F1, needs a model: tests/summarization/test_metrics.py",
}


def test_every_registered_summary_metric_has_a_case():
    assert set(REGISTRY.names("summary")) == set(CASES) | set(ELSEWHERE)


@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=15, deadline=None)
@given(data=batches(EN))
def test_english(name, data):
    check_metric(CASES[name], [p for p, _ in data], [r for _, r in data])


@pytest.mark.parametrize("name", list(CASES))
@settings(max_examples=5, deadline=None)
@given(data=batches(KO))
def test_korean_properties(name, data):
    case = CASES[name]
    check_metric(MetricCase(case.cls, oracle=None, oracle_test="tests/summarization/test_metrics.py"),
                 [p for p, _ in data], [r for _, r in data])
