"""chrF / chrF++ equal sacrebleu's CHRF() and CHRF(word_order=2) (/ 100), corpus and sentence
level, English and Korean, one or several references; stateful equals functional."""

import math
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.generation.chrf import ChrF, ChrFPP

sacrebleu = pytest.importorskip("sacrebleu")

WORDS = ["a", "man", "rides", "wave", "the", "dog", "dog.", "(hi)", "!", "-", "고양이가", "소파", "위에서",
         "잔다", "파란", "바다에", "하얀", "파도가", "친다.", "사람들", "Big", "big", "cat's", "e.g.", ""]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)
item = st.tuples(sentence, st.lists(sentence, min_size=1, max_size=3))
corpus = st.lists(item, min_size=1, max_size=8)


def oracle(cls_kwargs, preds, refs):
    n = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(n)]
    m = sacrebleu.CHRF(**cls_kwargs)
    corpus_score = m.corpus_score(preds, streams).score / 100
    sentences = [m.sentence_score(p, rs).score / 100 for p, rs in zip(preds, refs)]
    return corpus_score, sentences


@pytest.mark.parametrize("cls,kwargs", [(ChrF, {}), (ChrFPP, {"word_order": 2})])
@settings(max_examples=150, deadline=None)
@given(data=corpus)
def test_equals_sacrebleu(cls, kwargs, data):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    want, want_items = oracle(kwargs, preds, refs)
    m = cls()
    stats = m.item_stats((preds, refs))
    assert m.score(stats)[m.name] == want
    assert m.item_scores(stats)[m.name].tolist() == want_items
    # stateful over two shards equals the functional face
    s = cls()
    s.update((preds[:3], refs[:3])).update((preds[3:], refs[3:]))
    assert s.compute() == m((preds, refs)) == {m.name: want}


def test_korean_spec_sentence_and_nfd_input():
    pred, ref = "파란 바다에 하얀 파도가 친다", "푸른 바다 위로 하얀 파도가 부서진다"
    want = sacrebleu.CHRF().sentence_score(pred, [ref]).score / 100
    assert 0 < want < 1
    nfd = unicodedata.normalize("NFD", pred)
    assert ChrF()(([nfd], [[ref]]))["chrf"] == want == ChrF()(([pred], [[ref]]))["chrf"]


def test_empty_inputs_and_empty_prediction():
    assert math.isnan(ChrF()(([], []))["chrf"])
    assert ChrF()(([""], [["a cat"]]))["chrf"] == 0.0
    assert ChrFPP().item_scores(ChrFPP().item_stats(([""], [["a cat"]])))["chrf_pp"].tolist() == [0.0]


def test_available_through_the_caption_driver():
    from scorekit.generation import evaluate

    preds, refs = ["a man rides a wave", "a dog"], [["a man riding a wave"], ["the dog runs"]]
    res = evaluate(preds, refs, lang="en", metrics=["chrf", "chrf_pp"])
    streams = [[r[0] for r in refs]]
    assert res["chrf"] == sacrebleu.CHRF().corpus_score(preds, streams).score / 100
    assert res["chrf_pp"] == sacrebleu.CHRF(word_order=2).corpus_score(preds, streams).score / 100
    assert "|metrics:chrf,chrf_pp|version:" in res.signature   # canonical specs: every parameter at its default
    np.testing.assert_array_equal(res.column("chrf"), [sacrebleu.CHRF().sentence_score(p, r).score / 100
                                                       for p, r in zip(preds, refs)])
