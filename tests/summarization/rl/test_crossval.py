"""K-fold cross-validation: folds, held-out evaluation, statistics, leakage refusal."""

import numpy as np
import pytest

from scorekit.errors import ScorekitError
from scorekit.summarization.rl.crossval import compare, cross_validate, fold_indices
from scorekit.summarization.rl.episode import PreparedArticle
from scorekit.summarization.rl.policy import PolicyConfig
from scorekit.stats.significance import paired_test

DIM = 6


def article(rng, i, n_sent=5):
    """The reference is the first sentence: lead-n is the best system, TextRank (flat) arbitrary."""
    emb = rng.normal(size=(n_sent, DIM))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    sentences = [" ".join(f"w{i}_{s}_{k}" for k in range(4)) + "." for s in range(n_sent)]
    tr = rng.dirichlet(np.ones(n_sent))
    return PreparedArticle(f"d{i}", sentences, emb, tr, [], np.zeros((0, DIM)), reference=sentences[0],
                           source=" ".join(sentences))


def overlap_reward(summaries, references):
    return np.array([len(set(s.split()) & set(r.split())) / max(len(r.split()), 1)
                     for s, r in zip(summaries, references)])


def test_folds_partition_the_articles():
    parts = fold_indices(10, 3, seed=1)
    assert sorted(np.concatenate(parts).tolist()) == list(range(10))
    assert [len(p) for p in parts] == [4, 3, 3]
    assert [p.tolist() for p in fold_indices(10, 3, seed=1)] == [p.tolist() for p in parts]
    with pytest.raises(ScorekitError):
        fold_indices(10, 1)
    with pytest.raises(ScorekitError):
        fold_indices(2, 3)


def test_cross_validation_held_out_numbers_and_statistics():
    rng = np.random.default_rng(0)
    arts = [article(rng, i) for i in range(12)]
    config = PolicyConfig(embed_dim=DIM, hidden=8, k_sentences=1, state="rich", compress="first-words")
    res = cross_validate(arts, overlap_reward, folds=3, config=config, n_list=(2, 4), epochs=4, lr=0.05,
                         baseline="greedy")
    # every article is held out exactly once and the folds are recorded per item
    assert sorted(r["fold"] for r in res.per_item) == [1] * 4 + [2] * 4 + [3] * 4
    # lead scores are exactly the overlap of the first n words with the reference (4 words)
    assert res.metrics["lead@2/bertscore_f1"] == pytest.approx(0.5)
    assert res.metrics["lead/bertscore_f1"] == pytest.approx(0.75)
    # the learned policy finds the lead sentence on held-out articles
    assert res.metrics["rl/bertscore_f1"] == pytest.approx(0.75)
    assert res.extra["rl_first_sentence_share"] == 1.0
    rows = {(r["system"], r["n"]): r for r in res.extra["table"]}
    assert set(rows) >= {(s, n) for s in ("rl", "lead", "textrank", "random", "untrained") for n in (2, 4, "all")}
    assert all(r["low"] <= r["bertscore_f1"] <= r["high"] for r in rows.values())
    comps = {(c["against"], c["n"]): c for c in res.extra["comparisons"]}
    tr = np.array([r["rl/bertscore_f1"] for r in res.per_item]) - np.array([r["textrank/bertscore_f1"] for r in res.per_item])
    assert comps[("textrank", "all")]["diff"] == pytest.approx(tr.mean())
    assert res.extra["goal"] == {"not_worse_than_lead": True, "better_than_textrank": True, "goal_reached": True}
    assert len(res.extra["reward_curve"]["episodes"]) == 3 and len(res.extra["reward_curve"]["per_epoch"][0]) == 4
    assert res.extra["sweep"]["n"] == [2, 4] and "rl" in res.extra["sweep"]["series"]
    assert "folds:3" in res.signature and "state=rich" in res.signature


def test_compare_uses_the_shared_paired_tests():
    a, b = np.array([0.5, 0.6, 0.7, 0.8]), np.array([0.4, 0.6, 0.5, 0.7])
    c = compare(a, b)
    assert c["p_t"] == paired_test(a, b, "t").p_value
    assert c["low"] <= c["diff"] <= c["high"] and c["diff"] == pytest.approx(0.1)


def test_duplicate_documents_would_leak_and_are_refused():
    rng = np.random.default_rng(0)
    arts = [article(rng, i) for i in range(6)]
    twin = PreparedArticle("twin", arts[0].sentences, arts[0].sent_emb, arts[0].textrank, [], np.zeros((0, DIM)),
                           reference="x", source=arts[0].source)
    with pytest.raises(ScorekitError, match="same document"):
        cross_validate(arts + [twin], overlap_reward, folds=2, config=PolicyConfig(embed_dim=DIM, hidden=4))
    with pytest.raises(ScorekitError, match="duplicate article id"):
        cross_validate(arts + [arts[1]], overlap_reward, folds=2, config=PolicyConfig(embed_dim=DIM, hidden=4))


def test_cross_validation_trains_with_the_ema_momentum_it_is_given():
    """--baseline-momentum reaches the folds' training (it was used by the final policy only) and
    is pinned in the signature."""
    rng = np.random.default_rng(1)
    arts = [article(rng, i) for i in range(9)]
    config = PolicyConfig(embed_dim=DIM, hidden=8, k_sentences=1, state="rich", compress="first-words")
    run = {m: cross_validate(arts, overlap_reward, folds=3, config=config, n_list=(2, 4), epochs=3, lr=0.5,
                             baseline="ema", baseline_momentum=m, systems=("rl",)) for m in (0.0, 0.99)}
    assert "baseline:ema(0)" in run[0.0].signature and "baseline:ema(0.99)" in run[0.99].signature
    curves = [run[m].extra["reward_curve"]["episodes"] for m in run]   # the folds' training rewards
    assert curves[0] != curves[1]
