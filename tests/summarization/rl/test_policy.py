"""Phase-2 policies: a gradient step helps on a toy problem, seeds, checkpoints, masks."""

import numpy as np
import pytest
import torch

from scorekit.errors import InputError
from scorekit.summarization.rl.chunking import Chunk, chunk_english_rules, chunk_korean, chunk_sentences
from scorekit.summarization.rl.episode import PreparedArticle, assemble, decide
from scorekit.summarization.rl.policy import PolicyConfig, sample_until_budget, sample_without_replacement
from scorekit.summarization.rl.train import Policy, train

DIM = 8


def toy_article(rng: np.random.Generator, i: int, n_sent: int = 6) -> PreparedArticle:
    """Sentence 'gold' carries a feature direction e_0; the reward is 1 iff a gold word is chosen."""
    gold = int(rng.integers(n_sent))
    emb = rng.normal(size=(n_sent, DIM)) * 0.3
    emb[gold, 0] += 2.0
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    sentences = [("gold " * 4).strip() if s == gold else ("filler " * 4).strip() for s in range(n_sent)]
    chunks = [Chunk(tuple(sentences[s].split()[:2]), s) for s in range(n_sent)] + \
             [Chunk(tuple(sentences[s].split()[2:]), s) for s in range(n_sent)]
    chunk_emb = np.concatenate([emb, emb])
    return PreparedArticle(f"a{i}", sentences, emb, np.full(n_sent, 1 / n_sent), chunks, chunk_emb,
                           reference="gold")


def gold_reward(summaries, references):
    return np.array([1.0 if "gold" in s.split() else 0.0 for s in summaries])


def expected_reward(policy: Policy, articles, n_samples: int = 30) -> float:
    gen = torch.Generator().manual_seed(0)
    total = 0.0
    with torch.no_grad():
        for a in articles:
            for _ in range(n_samples):
                d = decide(a, 2, policy.sentence, policy.chunk, greedy=False, generator=gen)
                total += gold_reward([d.summary], [""])[0]
    return total / (len(articles) * n_samples)


def test_policy_gradient_raises_expected_reward_on_toy_problem():
    rng = np.random.default_rng(1)
    articles = [toy_article(rng, i) for i in range(40)]
    policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=16, k_sentences=1), seed=3)
    before = expected_reward(policy, articles)
    train(policy, articles, gold_reward, n_list=(2,), epochs=4, lr=0.05, seed=3)
    after = expected_reward(policy, articles)
    assert after > before + 0.3, (before, after)


def test_training_is_deterministic_under_a_seed():
    rng = np.random.default_rng(5)
    articles = [toy_article(rng, i) for i in range(10)]
    logs = []
    for _ in range(2):
        policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=16, k_sentences=1), seed=11)
        logs.append(train(policy, articles, gold_reward, n_list=(2, 3), epochs=2, lr=0.05, seed=11).rewards)
        logs.append([p.detach().clone() for p in policy.parameters()])
    assert logs[0] == logs[2]
    assert all(torch.equal(a, b) for a, b in zip(logs[1], logs[3]))


def test_checkpoint_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    articles = [toy_article(rng, i) for i in range(5)]
    policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=16, k_sentences=2), seed=1)
    train(policy, articles, gold_reward, n_list=(3,), epochs=1, lr=0.05, seed=1)
    path = tmp_path / "policy.pt"
    policy.save(path)
    loaded = Policy.load(path)
    assert loaded.config == policy.config and loaded.baselines == policy.baselines
    for a in articles:
        assert loaded.summarize(a, 3) == policy.summarize(a, 3)
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a scorekit summariser checkpoint"):
        Policy.load(tmp_path / "junk.pt")
    with pytest.raises(InputError, match="checkpoint not found"):
        Policy.load(tmp_path / "missing.pt")


def test_fewer_sentences_than_k():
    rng = np.random.default_rng(3)
    article = toy_article(rng, 0, n_sent=1)
    policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=8, k_sentences=3), seed=0)
    d = decide(article, 5, policy.sentence, policy.chunk, greedy=False, generator=torch.Generator().manual_seed(0))
    assert d.sentences == [0]
    assert len(d.summary.split()) == 4  # the whole (4-word) document: shorter than n
    logits = torch.tensor([0.0, 5.0, 1.0, -1.0])
    idx, lp = sample_without_replacement(logits, 10, greedy=True)
    assert idx == [1, 2, 0, 3]  # k clipped to the candidate count, best logit first
    assert torch.isfinite(lp)
    picked, _ = sample_until_budget(torch.tensor([0.0, 2.0, 1.0]), [3, 2, 4], 5, greedy=True)
    assert picked == [1, 2]  # 2 + 4 words >= budget 5


def test_summary_has_exactly_n_words_in_document_order():
    article = PreparedArticle("x", ["a b c", "d e f"], np.eye(2), np.array([0.5, 0.5]),
                              [Chunk(("a", "b", "c"), 0), Chunk(("d", "e", "f"), 1)], np.eye(2))
    assert assemble(article, [1, 0], 4) == "a b c d"


def test_empty_article():
    article = PreparedArticle("e", [], np.zeros((0, DIM)), np.zeros(0), [], np.zeros((0, DIM)))
    policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=8), seed=0)
    assert policy.summarize(article, 7) == ""


BASE_NPS = ["The city council", "a new public library", "the old train station.", "the county fire department.",
            "a children's wing,", "two damaged bridges."]


def test_rule_chunker_keeps_noun_phrases_whole_and_has_verb_phrases():
    sentences = ["The city council of Riverton voted on Tuesday to build a new public library near the old "
                 "train station.", "No injuries were reported, according to the county fire department.",
                 "The mayor said the library would include a children's wing, a computer lab and rooms.",
                 "Engineers will inspect two damaged bridges."]
    chunks = [" ".join(c) for s in sentences for c in chunk_english_rules(s)]
    for np_ in BASE_NPS:  # every base noun phrase lies inside one chunk
        assert any(np_ in c for c in chunks), (np_, chunks)
    assert "would include a children's wing," in chunks  # a verb phrase is a candidate
    assert "will inspect two damaged bridges." in chunks
    for s in sentences:  # words are kept, in order
        assert [w for c in chunk_english_rules(s) for w in c] == s.split()
    # a run of function words stays with what follows ("and will be paid", not "and" | "will")
    assert ["and", "will", "be", "paid", "later."] in chunk_english_rules("It will cost a lot and will be paid later.")


def test_korean_chunker():
    ko = chunk_korean("고양이가 소파 위에서 자고 강아지는 마당에서 뛰어논다.")
    assert [w for c in ko for w in c] == "고양이가 소파 위에서 자고 강아지는 마당에서 뛰어논다.".split()
    assert ko[0][-1] == "자고"  # connective ending closes the chunk
    all_chunks, method = chunk_sentences(["One two three.", "Four five"], lang="en", use_spacy=False)
    assert method == "rules" and [c.sentence for c in all_chunks] == [0, 1]
