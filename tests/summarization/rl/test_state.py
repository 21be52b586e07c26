"""The extended sentence state (position, length, novelty), first-n-words compression, baselines
and the leakage guard."""

import numpy as np
import pytest
import torch

from scorekit.errors import ScorekitError
from scorekit.summarization.rl.episode import PreparedArticle, decide, first_words
from scorekit.summarization.rl.policy import PolicyConfig, SentencePolicyModel, parse_state, static_width
from scorekit.summarization.rl.train import Policy, check_disjoint, train

DIM = 8


def lead_article(rng, i, n_sent=6):
    """Reward is 1 iff the summary starts with the first sentence's words: position is the signal."""
    emb = rng.normal(size=(n_sent, DIM))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    sentences = [f"s{i}w{s} " + " ".join(f"x{i}{s}{k}" for k in range(3)) for s in range(n_sent)]
    return PreparedArticle(f"a{i}", sentences, emb, np.full(n_sent, 1 / n_sent), [], np.zeros((0, DIM)),
                           reference=f"s{i}w0", source=" ".join(sentences))


def lead_reward(summaries, references):
    return np.array([1.0 if s.split()[:1] == [r] else 0.0 for s, r in zip(summaries, references)])


def test_state_names():
    assert parse_state("spec") == ("emb", "textrank")
    assert parse_state("rich") == ("emb", "textrank", "position", "length", "novelty")
    assert parse_state("length,textrank") == ("textrank", "length")
    for bad in ("foo", "", "novelty", "emb,bogus"):
        with pytest.raises(ScorekitError):
            parse_state(bad)
    assert static_width(PolicyConfig(embed_dim=DIM, state="spec")) == DIM + 1
    assert static_width(PolicyConfig(embed_dim=DIM, state="rich")) == DIM + 1 + 3 + 2
    with pytest.raises(ScorekitError):
        PolicyConfig(compress="bogus")


@pytest.mark.parametrize("state,baseline", [("rich", "greedy"), ("position,length", "ema"),
                                            ("textrank,position,novelty", "none")])
def test_position_feature_learns_lead(state, baseline):
    rng = np.random.default_rng(0)
    articles = [lead_article(rng, i) for i in range(30)]
    policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=8, k_sentences=1, state=state,
                                        compress="first-words"), seed=0)
    before = sampled_reward(policy, articles)
    train(policy, articles, lead_reward, n_list=(2,), epochs=6, lr=0.05, seed=0, baseline=baseline)
    after = sampled_reward(policy, articles)
    greedy = np.mean([lead_reward([policy.summarize(a, 2)], [a.reference])[0] for a in articles])
    assert greedy == 1.0 and after > before + 0.3, (before, after)


def sampled_reward(policy, articles, draws=10):
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        return np.mean([lead_reward([decide(a, 2, policy.sentence, policy.chunk, greedy=False, generator=gen).summary],
                                    [a.reference])[0] for a in articles for _ in range(draws)])


def test_spec_state_cannot_see_position():
    """Control for the test above: with random embeddings and flat TextRank, the spec's state
    carries no position signal, so the greedy policy cannot learn to always lead."""
    rng = np.random.default_rng(0)
    articles = [lead_article(rng, i) for i in range(30)]
    policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=8, k_sentences=1, state="spec",
                                        compress="first-words"), seed=0)
    train(policy, articles, lead_reward, n_list=(2,), epochs=6, lr=0.05, seed=0, baseline="greedy")
    after = np.mean([lead_reward([policy.summarize(a, 2)], [a.reference])[0] for a in articles])
    assert after < 0.9


def test_novelty_penalises_a_duplicate_second_pick():
    config = PolicyConfig(embed_dim=2, hidden=4, k_sentences=2, state="textrank,novelty")
    model = SentencePolicyModel(config)
    with torch.no_grad():
        model.novelty_weight.fill_(50.0)
        for p in model.net.parameters():
            p.zero_()
    emb = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    adjust = model.step_adjust(emb)
    first = adjust([])
    assert torch.allclose(first, first[0].expand(3))  # no effect on the first pick
    second = adjust([0])
    assert second[1] < second[2]  # the duplicate of sentence 0 is penalised


def test_first_words_compression():
    article = PreparedArticle("x", ["a b c", "d e f", "g h"], np.eye(3), np.full(3, 1 / 3), [], np.zeros((0, 3)))
    assert first_words(article, [2, 0], 4) == "a b c g"
    assert first_words(article, [1], 7) == "d e f g h"  # filled from the following sentences
    assert first_words(article, [0], 5) == "a b c d e"  # sentence 0 gives lead-n
    assert first_words(article, [2], 4) == "g h"  # nothing follows the last sentence
    policy = Policy.create(PolicyConfig(embed_dim=3, hidden=4, k_sentences=1, compress="first-words"), seed=0)
    d = decide(article, 2, policy.sentence, policy.chunk, greedy=True)
    assert d.chunks == [] and len(d.summary.split()) == 2


def test_training_refuses_overlapping_evaluation_articles():
    rng = np.random.default_rng(1)
    arts = [lead_article(rng, i) for i in range(4)]
    with pytest.raises(ScorekitError, match="also training articles.*a1"):
        check_disjoint(arts[:2], arts[1:3])
    same_text = PreparedArticle("other-id", arts[0].sentences, arts[0].sent_emb, arts[0].textrank, [],
                                np.zeros((0, DIM)), source=arts[0].source)
    with pytest.raises(ScorekitError, match="other-id"):
        train(Policy.create(PolicyConfig(embed_dim=DIM, hidden=4)), arts[:2], lead_reward, heldout=[same_text])
    check_disjoint(arts[:2], arts[2:])  # disjoint: fine


def test_unknown_baseline():
    with pytest.raises(ScorekitError, match="baseline"):
        train(Policy.create(PolicyConfig(embed_dim=DIM)), [], lead_reward, baseline="mean")
