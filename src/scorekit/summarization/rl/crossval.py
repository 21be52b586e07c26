"""K-fold cross-validation of the RL summariser against lead-n, TextRank, random-n and the
untrained policy, every number on articles the policy never saw in training (docs/rl.md).

Per fold a fresh policy (same seed) trains on the other K−1 folds and summarises the held-out one
greedily. Each system: mean and 95% bootstrap CI; the policy against lead-n and TextRank: paired t
and bootstrap tests; goal: not worse than lead-n, better than TextRank at p < 0.05 (paired t).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.stats.bootstrap import bootstrap_mean_ci
from scorekit.stats.significance import paired_test
from scorekit.summarization.rl.episode import PreparedArticle
from scorekit.summarization.rl.policy import PolicyConfig
from scorekit.summarization.rl.train import N_LIST, Policy, document_key, train
from scorekit.summarization.summarizers import RandomSummarizer, compress_to_n_words, rank_order

SYSTEMS = ("rl", "lead", "textrank", "random", "untrained")
COMPARED = ("lead", "textrank")
ALPHA = 0.05


def fold_indices(n_items: int, folds: int, seed: int = 42) -> list[np.ndarray]:
    """Held-out indices of each fold: a seeded permutation cut into ``folds`` near-equal parts."""
    if folds < 2:
        raise ScorekitError(f"cross-validation needs at least 2 folds, got {folds}")
    if n_items < folds:
        raise ScorekitError(f"{folds} folds need at least {folds} articles, got {n_items}")
    perm = np.random.default_rng(seed).permutation(n_items)
    return [np.sort(part) for part in np.array_split(perm, folds)]


def baseline_summary(system: str, article: PreparedArticle, n: int) -> str:
    if system == "lead":
        return " ".join(article.source.split()[:n])
    if system == "textrank":
        return compress_to_n_words(article.sentences, rank_order(article.textrank), n) if article.sentences else ""
    if system == "random":
        rs = RandomSummarizer(42)
        return rs.summarize(rs.prepare([article.source])[0], n)
    raise ScorekitError(f"unknown baseline {system!r}")


def _check_unique(articles: Sequence[PreparedArticle]) -> None:
    seen: dict[str, str] = {}
    ids: set[str] = set()
    for a in articles:
        if a.id in ids:
            raise ScorekitError(f"duplicate article id {a.id!r}: folds could leak")
        ids.add(a.id)
        key = document_key(a.source) if a.source else a.id
        if key in seen:
            raise ScorekitError(f"articles {seen[key]!r} and {a.id!r} have the same document: folds would leak")
        seen[key] = a.id


def compare(a: np.ndarray, b: np.ndarray, seed: int = 42) -> dict:
    """Paired comparison of per-article scores ``a`` vs ``b``."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    mean, low, high = bootstrap_mean_ci(d, seed=seed)
    t = paired_test(a, b, "t")
    boot = paired_test(a, b, "bootstrap", seed=seed)
    return {"diff": mean, "low": low, "high": high, "p_t": t.p_value, "p_bootstrap": boot.p_value}


def cross_validate(articles: Sequence[PreparedArticle], reward_fn: Callable[[list[str], list[str]], np.ndarray],
                   *, folds: int = 3, config: PolicyConfig = PolicyConfig(), n_list: Sequence[int] = N_LIST,
                   epochs: int = 1, lr: float = 1e-3, seed: int = 42, baseline: str = "ema",
                   baseline_momentum: float = 0.9, systems: Sequence[str] = SYSTEMS, signature_params: dict | None = None,
                   progress: Callable[[str], None] | None = None, scored_with: Sequence = ()) -> Result:
    """Held-out comparison (see the module docstring). ``reward_fn(summaries, references)``
    scores summaries (BERTScore F1 in the CLI) for training and evaluation alike; ``scored_with``:
    the metric it computes (built, for the signature)."""
    articles = list(articles)
    _check_unique(articles)
    parts = fold_indices(len(articles), folds, seed)
    systems = ["rl"] + [s for s in systems if s != "rl"]
    n_list = list(n_list)
    scores = {s: np.full((len(articles), len(n_list)), np.nan) for s in systems}
    texts = {s: [[""] * len(n_list) for _ in articles] for s in systems}
    fold_of = np.zeros(len(articles), dtype=int)

    def score_into(system: str, idx: Sequence[int], make: Callable[[PreparedArticle, int], str]) -> None:
        where = [(i, j) for i in idx for j in range(len(n_list))]
        preds = [make(articles[i], n_list[j]) for i, j in where]
        values = reward_fn(preds, [articles[i].reference for i, _ in where])
        for (i, j), p, v in zip(where, preds, values):
            scores[system][i, j] = float(v)
            texts[system][i][j] = p

    everyone = range(len(articles))
    for s in systems:
        if s in ("lead", "textrank", "random"):
            score_into(s, everyone, lambda a, n, s=s: baseline_summary(s, a, n))
    if "untrained" in systems:
        score_into("untrained", everyone, Policy.create(config, seed=seed).eval().summarize)

    curves, firsts = [], []   # per greedy decision: did it pick the first sentence?
    for f, test_idx in enumerate(parts):
        fold_of[test_idx] = f
        train_idx = np.setdiff1d(np.arange(len(articles)), test_idx)
        if progress is not None:
            progress(f"fold {f + 1}/{folds}: training on {len(train_idx)} articles")
        policy = Policy.create(config, seed=seed)
        log = train(policy, [articles[i] for i in train_idx], reward_fn, n_list=n_list, epochs=epochs, lr=lr,
                    seed=seed, baseline=baseline, baseline_momentum=baseline_momentum,
                    heldout=[articles[i] for i in test_idx])
        curves.append(log.rewards)

        def make(a: PreparedArticle, n: int) -> str:
            d = policy.decide(a, n)
            firsts.append(bool(d.sentences) and min(d.sentences) == 0)
            return d.summary
        score_into("rl", test_idx, make)

    baseline = f"ema({baseline_momentum:g})" if baseline == "ema" else baseline   # as signed
    train_size, first_share = len(articles) - len(parts[0]), sum(firsts) / max(len(firsts), 1)
    signature_params = signature_params or {}
    overall = {s: scores[s].mean(axis=1) for s in systems}
    metrics: dict[str, float] = {}
    table, series = [], {}
    for s in systems:
        cells = [bootstrap_mean_ci(scores[s][:, j], seed=seed) for j in range(len(n_list))]
        for n, (m, lo, hi) in zip([*n_list, "all"], [*cells, bootstrap_mean_ci(overall[s], seed=seed)]):
            metrics[f"{s}@{n}/bertscore_f1" if n != "all" else f"{s}/bertscore_f1"] = m
            table.append({"system": s, "n": n, "bertscore_f1": m, "low": lo, "high": hi})
        series[s] = {"bertscore_f1": {k: [c[i] for c in cells]
                                      for i, k in enumerate(("mean", "low", "high"))}}
    comparisons = []
    for other in [s for s in COMPARED if s in systems]:
        pairs = [(n, scores["rl"][:, j], scores[other][:, j]) for j, n in enumerate(n_list)]
        comparisons += [{"against": other, "n": n, **compare(a, b, seed)}
                        for n, a, b in [*pairs, ("all", overall["rl"], overall[other])]]
    final = {c["against"]: c for c in comparisons if c["n"] == "all"}
    verdict = {}
    lead, tr = final.get("lead"), final.get("textrank")
    if lead:
        verdict["not_worse_than_lead"] = not (lead["diff"] < 0 and lead["p_t"] < ALPHA)
    if tr:
        verdict["better_than_textrank"] = bool(tr["diff"] > 0 and tr["p_t"] < ALPHA)
    if len(verdict) == 2:
        verdict["goal_reached"] = verdict["not_worse_than_lead"] and verdict["better_than_textrank"]
    pers = [max(len(c) // max(epochs, 1), 1) for c in curves]
    epochs_curve = [[float(np.mean(c[e * per:(e + 1) * per])) for e in range(epochs)]
                    for c, per in zip(curves, pers)]
    per_item = [{"id": a.id, "fold": int(fold_of[i]) + 1, "reference": a.reference,
                 **{f"{s}/bertscore_f1": float(overall[s][i]) for s in systems},
                 **{f"rl@{n}": texts["rl"][i][j] for j, n in enumerate(n_list)}}
                for i, a in enumerate(articles)]
    sig = make_signature("summarize-rl-cv", {
        "folds": folds, "seed": seed, "epochs": epochs, "lr": lr, "baseline": baseline,
        "policy": config.signature(),
        **signature_params, "n": n_list}, metrics=scored_with)
    curve = {"episodes": [list(map(float, c)) for c in curves], "per_epoch": epochs_curve}
    extra = {"table": table, "comparisons": comparisons, "goal": verdict,
             "sweep": {"n": n_list, "series": series}, "reward_curve": curve,
             "rl_first_sentence_share": first_share, "primary_metric": "rl/bertscore_f1"}
    return Result("summarize-rl-cv", metrics, sig, per_item=per_item,
                  inputs={"n_articles": len(articles), "folds": folds, "min_train_articles_per_fold": train_size},
                  extra=extra)
