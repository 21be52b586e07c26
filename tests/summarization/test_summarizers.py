"""Summarisers: exact word budgets, determinism, TextRank = networkx PageRank on the SBERT graph."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.summarization import summarizers as S

DOC = ("The council approved the library. The library will open in two years. "
       "Residents asked about parking near the library. The weather was sunny.")


def test_lead_is_first_n_words():
    lead = S.LeadSummarizer()
    (p,) = lead.prepare([DOC])
    assert lead.summarize(p, 4) == "The council approved the"
    assert lead.summarize(p, 1000) == " ".join(DOC.split())  # short document: the whole of it
    assert p.n_words == len(DOC.split())


@pytest.mark.parametrize("n", [0, -3, 2.5, True])
def test_bad_n(n):
    lead = S.LeadSummarizer()
    (p,) = lead.prepare([DOC])
    with pytest.raises(ScorekitError):
        lead.summarize(p, n)


sentence_lists = st.lists(st.lists(st.sampled_from(["a", "b", "cc", "dd", "e."]), max_size=8).map(" ".join),
                          min_size=1, max_size=6)


@given(sentence_lists, st.integers(1, 40), st.randoms(use_true_random=False))
def test_compress_gives_exactly_n_words(sentences, n, rnd):
    order = list(range(len(sentences)))
    rnd.shuffle(order)
    out = S.compress_to_n_words(sentences, order, n)
    total = sum(len(s.split()) for s in sentences)
    assert len(out.split()) == min(n, total)
    # the top-ranked non-empty sentence comes first in the budget: it is fully included or cut
    top = next((i for i in order if sentences[i].split()), None)
    if top is not None:
        words = sentences[top].split()
        assert " ".join(words[:min(n, len(words))]) in out


def test_compress_keeps_document_order_and_cuts_last_ranked():
    sents = ["one two three", "four five", "six seven eight nine"]
    assert S.compress_to_n_words(sents, [2, 0, 1], 5) == "one six seven eight nine"
    assert S.compress_to_n_words(sents, [2, 0, 1], 6) == "one two six seven eight nine"
    assert S.compress_to_n_words(sents, [1, 2, 0], 3) == "four five six"


def _networkx_pagerank(emb, damping=0.85):
    nx = pytest.importorskip("networkx")
    w = S.similarity_graph(emb)
    g = nx.from_numpy_array(w)
    pr = nx.pagerank(g, alpha=damping, tol=1e-13, max_iter=100000, weight="weight")
    return np.array([pr[i] for i in range(len(emb))])


@given(arrays(np.float64, st.tuples(st.integers(1, 12), st.integers(2, 8)),
              elements=st.floats(-1, 1, allow_nan=False, width=32)))
def test_textrank_equals_networkx_pagerank(emb):
    ours = S.textrank_scores(emb)
    assert ours.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(ours, _networkx_pagerank(emb), rtol=1e-6, atol=1e-9)


def test_textrank_prefers_central_sentence(fake_embed):
    sents = ["library council vote", "library council budget", "library council parking", "sunny weather"]
    scores = S.textrank_scores(fake_embed(sents))
    assert scores.argmax() in (0, 1, 2) and scores[3] == scores.min()
    assert list(S.rank_order(np.array([0.2, 0.5, 0.5, 0.1]))) == [1, 2, 0, 3]  # ties: earlier first


def test_textrank_summarizer_exact_words_and_embeds_once(fake_embed):
    calls = []

    def embed(texts):
        calls.append(len(texts))
        return fake_embed(texts)

    tr = S.TextRankSummarizer(embed)
    prepared = tr.prepare([DOC, "Short one."])
    assert len(calls) == 1 and calls[0] == 5  # all sentences of all documents in one call
    for n in (1, 3, 7, 11):
        assert len(tr.summarize(prepared[0], n).split()) == n
    assert tr.summarize(prepared[1], 9) == "Short one."
    assert "library" in tr.summarize(prepared[0], 5)


def test_textrank_korean_sentences(fake_embed):
    doc = "서울시가 자전거 도로를 만든다. 자전거 도로는 12킬로미터다. 날씨가 맑았다."
    tr = S.TextRankSummarizer(fake_embed)
    (p,) = tr.prepare([doc])
    assert len(p.sentences) == 3
    assert len(tr.summarize(p, 4).split()) == 4


def test_random_is_deterministic_nested_and_in_order():
    r = S.RandomSummarizer(seed=7)
    (p,) = r.prepare([DOC])
    (q,) = S.RandomSummarizer(seed=7).prepare([DOC])
    words = DOC.split()
    prev: list[str] = []
    for n in (1, 3, 5, 9):
        out = r.summarize(p, n).split()
        assert out == S.RandomSummarizer(seed=7).summarize(q, n).split()
        assert len(out) == n
        idx = [i for i in np.sort(p.order[:n])]
        assert out == [words[i] for i in idx]  # document order
        assert set(prev) <= set(out)  # nested across n
        prev = out
    (other,) = S.RandomSummarizer(seed=8).prepare([DOC])
    assert not np.array_equal(other.order, p.order)


def test_registry_did_you_mean():
    with pytest.raises(UnknownNameError, match="textrank"):
        S.make_summarizer("textrnk")


def test_summarizer_names_use_the_metric_name_grammar():
    specs = S.parse_summarizers("lead, textrank(encoder=models/bert-base-uncased, damping=0.9),"
                                "centroid(encoder=~/m/electra-base-discriminator/),random(seed=7),lead")
    assert [s.label for s in specs] == ["lead", "textrank(bert-base-uncased, damping=0.9)",
                                        "centroid(electra-base-discriminator)", "random(seed=7)"]
    assert specs[1].encoder == "models/bert-base-uncased" and dict(specs[1].params)["damping"] == 0.9
    assert S.make_summarizer(specs[3]).seed == 7 and S.make_summarizer("random", seed=3).seed == 3
    assert S.make_summarizer(specs[1]).damping == 0.9
    # two folders with the same name: labelled as written, so curves never merge
    a, b = S.parse_summarizers("textrank(encoder=a/bert),textrank(encoder=b/bert)")
    assert (a.label, b.label) == ("textrank(encoder=a/bert)", "textrank(encoder=b/bert)")


@pytest.mark.parametrize("text, message", [
    ("textrank(encodr=x)", "unknown parameter 'encodr' (textrank takes encoder, damping)"),
    ("lead(encoder=x)", "lead takes no parameters"),
    ("random(seed=x)", "seed must be an integer"),
    ("textrank(damping=2)", "damping must be between 0 and 1"),
    ("random(seed=-1)", "seed must be between 0 and 4294967295, got -1"),       # was numpy's traceback
    ("random(seed=4294967296)", "seed must be between 0 and 4294967295"),
    ("textrank@5", "takes no @ suffix"),
    ("centroyd", "did you mean 'centroid'"),
    ("textrank(encoder)", "expected name=value"),
    (",", "no summariser given"),
])
def test_bad_summarizer_names_are_one_line_errors(text, message):
    with pytest.raises(ScorekitError) as err:
        [S.make_summarizer(s) for s in S.parse_summarizers(text)]
    assert message in str(err.value) and "\n" not in str(err.value)


def test_centroid_ranks_by_cosine_to_the_mean(fake_embed):
    sents = ["The library opens soon.", "The library is big and the library is new.",
             "Cats sleep all day.", "The new library has books."]
    emb = fake_embed(sents).astype(np.float64)
    scores = S.centroid_scores(emb)
    c = emb.mean(axis=0)
    np.testing.assert_allclose(scores, emb @ c / (np.linalg.norm(emb, axis=1) * np.linalg.norm(c)))
    assert int(np.argmin(scores)) == 2   # the off-topic sentence
    (p,) = S.CentroidSummarizer(fake_embed).prepare([" ".join(sents)])
    assert p.order.tolist() == S.rank_order(scores).tolist()
    assert S.CentroidSummarizer(fake_embed).summarize(p, 6) == S.compress_to_n_words(sents, p.order, 6)
