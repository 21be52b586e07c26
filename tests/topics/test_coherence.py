"""NPMI / C_V / UMass / UCI equal gensim's CoherenceModel (processes=1) on generated corpora."""

import logging
import warnings

import numpy as np
import pytest
from gensim.corpora import Dictionary
from gensim.models.coherencemodel import CoherenceModel
from hypothesis import given, strategies as st

from scorekit.errors import ScorekitError
from scorekit.topics.coherence import coherence, count_windows, tokenize_corpus, topic_diversity

logging.getLogger("gensim").setLevel(logging.ERROR)
EN = ["apple", "bank", "car", "data", "engine", "film", "game", "house"]
KO = ["경제", "시장", "주식", "정부", "선거", "영화", "배우", "음악"]


def gensim_scores(topics, texts, measure, window_size=None, topn=20):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cm = CoherenceModel(topics=topics, texts=texts, dictionary=Dictionary(texts), coherence=measure,
                            window_size=window_size, topn=topn, processes=1)
        return np.array(cm.get_coherence_per_topic(), dtype=np.float64), float(cm.get_coherence())


@st.composite
def corpora(draw):
    vocab = draw(st.sampled_from([EN, KO, EN[:4] + KO[:4]]))[: draw(st.integers(3, 8))]
    # few word types + long documents: repeats inside a window exercise gensim's sliding-set quirk
    texts = draw(st.lists(st.lists(st.sampled_from(vocab), max_size=45), min_size=1, max_size=8))
    present = sorted({w for t in texts for w in t})
    if len(present) < 2:
        texts.append(vocab[:2])
        present = sorted({w for t in texts for w in t})
    topics = draw(st.lists(st.lists(st.sampled_from(present), min_size=2, max_size=6, unique=True),
                           min_size=1, max_size=4))
    return texts, topics


@pytest.mark.parametrize("measure", ["c_v", "c_npmi", "c_uci", "u_mass"])
@given(data=corpora(), window=st.one_of(st.none(), st.integers(1, 15)))
def test_equals_gensim(measure, data, window):
    texts, topics = data
    if measure == "u_mass":
        window = None
    ref_topics, ref = gensim_scores(topics, texts, measure, window)
    ours = coherence(topics, texts, measure, window_size=window)
    np.testing.assert_allclose(ours.per_topic, ref_topics, rtol=0, atol=1e-9)
    if np.isnan(ref):
        assert np.isnan(ours.score)
    else:
        assert ours.score == pytest.approx(ref, abs=1e-9)


def test_default_windows_on_a_longer_corpus():
    rng = np.random.default_rng(42)
    vocab = [f"w{i}" for i in range(40)]
    texts = [list(rng.choice(vocab, size=int(rng.integers(0, 300)))) for _ in range(30)]
    topics = [list(rng.choice(vocab, size=10, replace=False)) for _ in range(6)]
    for measure in ("c_v", "c_npmi", "u_mass"):
        ref, _ = gensim_scores(topics, texts, measure)
        np.testing.assert_allclose(coherence(topics, texts, measure).per_topic, ref, atol=1e-9)


def test_sliding_window_quirk_is_reproduced():
    # window 3 over "a a b c d": gensim drops "a" when the first copy leaves, though the second
    # copy is still in the window [a b c]; "a" is counted in 1 window, not 2
    counts = count_windows([["a", "a", "b", "c", "d"]], ["a", "b"], 3)
    assert counts.num_docs == 3
    assert counts.occ.tolist() == [1, 3]
    assert counts.co[0, 1] == 1


def test_empty_documents_count_as_windows():
    counts = count_windows([["a", "b"], [], ["a"]], ["a", "b"], 10)
    assert counts.num_docs == 3
    assert counts.occ.tolist() == [2, 1]


def test_oov_words_are_dropped_like_gensim_and_all_oov_is_an_error():
    texts = [["apple", "bank", "car"], ["bank", "car", "data"]]
    topics = [["apple", "zebra", "car"], ["bank", "data"]]
    res = coherence(topics, texts, "c_npmi")
    assert res.dropped == {0: ["zebra"]}
    ref, _ = gensim_scores(topics, texts, "c_npmi")
    np.testing.assert_allclose(res.per_topic, ref, atol=1e-12)
    with pytest.raises(ScorekitError, match="none of its keywords"):
        coherence([["zebra", "yak"]], texts, "c_v", names=["animals"])


def test_topn_cut_follows_the_first_topic_like_gensim():
    vocab = [f"w{i}" for i in range(30)]
    rng = np.random.default_rng(1)
    texts = [list(rng.choice(vocab, 50)) for _ in range(10)]
    topics = [vocab[:25], vocab[5:12]]
    for topn in (5, 20):
        ref, _ = gensim_scores(topics, texts, "c_npmi", topn=topn)
        np.testing.assert_allclose(coherence(topics, texts, "c_npmi", topn=topn).per_topic, ref, atol=1e-9)


def test_topic_diversity():
    topics = [["a", "b", "c"], ["c", "d", "e"], ["a", "f", "g"]]
    # OCTIS TopicDiversity: unique top-k words / (k * #topics)
    assert topic_diversity(topics, topk=3) == pytest.approx(7 / 9)
    assert topic_diversity(topics, topk=2) == pytest.approx(len({"a", "b", "c", "d", "f"}) / 6)
    assert topic_diversity([["a", "b"], ["c", "d"]]) == 1.0


def test_tokenize_corpus_korean_and_english():
    docs = ["경제 성장과 주식 시장이 좋아졌다.", "The Stock market, RISES!"]
    toks = tokenize_corpus(docs)
    assert "경제" in toks[0] and "주식" in toks[0] and "시장" in toks[0]
    assert "과" not in toks[0] and "이" not in toks[0]          # particles dropped
    assert toks[1] == ["the", "stock", "market", "rises"]
    assert tokenize_corpus(["A b"], "whitespace") == [["A", "b"]]
    # NFD input is normalised before tokenising
    import unicodedata
    assert tokenize_corpus([unicodedata.normalize("NFD", "경제 시장")], "regex") == [["경제", "시장"]]
