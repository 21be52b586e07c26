"""Topic metrics speed: scorekit vs a naive per-pair loop (semantic metrics) and vs gensim's
CoherenceModel (NPMI / C_V / UMass), side by side in one run.

1. 1,000 topics x 10 keywords, random unit vectors of dim 384 (embeddings already computed):
   SC (PageRank per topic), SD over all 499,500 pairs, VD/CD/SemDiv/Overall. Goal: < 5 s.
   The naive baseline (networkx PageRank per topic, one Python iteration per pair) runs on a
   subset and is extrapolated linearly.
2. Coherence on a small synthetic corpus (Zipfian words): gensim CoherenceModel(processes=1)
   vs scorekit.topics.coherence, checking the numbers agree.
"""

from __future__ import annotations

import itertools
import logging
import time
import warnings

import numpy as np

SEED = 42


def _timed(fn, repeat: int = 1):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_semantic(n_topics: int = 1000, n_words: int = 10, dim: int = 384, vocab_size: int = 5000) -> None:
    import networkx as nx

    from scorekit.topics.semantic import (
        content_diversity, hierarchical_overlap, score_embeddings, semantic_coherence_from_parts,
        semantic_distinctiveness,
    )

    rng = np.random.default_rng(SEED)
    table = rng.normal(size=(vocab_size, dim))
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    ids = [rng.choice(vocab_size, n_words, replace=False) for _ in range(n_topics)]
    topics = [[f"w{i}" for i in t] for t in ids]
    vectors = [table[t] for t in ids]
    secs, res = _timed(lambda: score_embeddings(topics, vectors), repeat=3)
    n_pairs = res.distinctiveness.n_pairs
    print(f"semantic: {n_topics} topics x {n_words} keywords (dim {dim}), {n_pairs:,} pairs")
    print(f"  scorekit  SC + SD(all pairs) + SemDiv + Overall: {secs:.3f} s  "
          f"({'OK' if secs < 5 else 'SLOW'}: goal < 5 s)")

    # naive: networkx PageRank per topic, one Python iteration per pair (subset, extrapolated)
    sub_t, sub_p = 100, 20000
    t0 = time.perf_counter()
    for words, emb in zip(topics[:sub_t], vectors[:sub_t]):
        g = nx.Graph()
        g.add_nodes_from(range(n_words))
        for i, j in itertools.combinations(range(n_words), 2):
            s = float(emb[i] @ emb[j])
            if s >= 0.3:
                g.add_edge(i, j, weight=s)
        pr = nx.pagerank(g)
        centre = emb.mean(axis=0)
        cos = [float(emb[i] @ centre / np.linalg.norm(centre)) for i in range(n_words)]
        semantic_coherence_from_parts([pr[i] for i in range(n_words)], cos)
    naive_sc = (time.perf_counter() - t0) * n_topics / sub_t
    centres = [v.mean(axis=0) for v in vectors]
    pairs = itertools.islice(itertools.combinations(range(n_topics), 2), sub_p)
    t0 = time.perf_counter()
    total = 0.0
    for i, j in pairs:
        c = centres[i] @ centres[j] / (np.linalg.norm(centres[i]) * np.linalg.norm(centres[j]))
        total += semantic_distinctiveness(c, hierarchical_overlap(topics[i], topics[j]))
    naive_sd = (time.perf_counter() - t0) * n_pairs / sub_p
    content_diversity(topics)
    naive = naive_sc + naive_sd
    print(f"  naive loop (networkx per topic, Python per pair; extrapolated from {sub_t} topics / "
          f"{sub_p:,} pairs): {naive:.1f} s  (SC {naive_sc:.1f} s, SD {naive_sd:.1f} s)")
    print(f"  speed-up: {naive / secs:.0f}x")


def _zipf_corpus(n_docs: int, doc_len: int, vocab_size: int, seed: int = SEED) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab_size + 1)
    p /= p.sum()
    return [[f"w{i}" for i in rng.choice(vocab_size, size=int(rng.integers(doc_len // 2, doc_len * 2)), p=p)]
            for _ in range(n_docs)]


def bench_coherence(n_docs: int = 1000, doc_len: int = 60, vocab_size: int = 2000, n_topics: int = 20) -> None:
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    from scorekit.topics.coherence import coherence

    logging.getLogger("gensim").setLevel(logging.ERROR)
    texts = _zipf_corpus(n_docs, doc_len, vocab_size)
    rng = np.random.default_rng(SEED)
    present = sorted({w for t in texts for w in t}, key=lambda w: int(w[1:]))[:300]
    topics = [list(rng.choice(present, 10, replace=False)) for _ in range(n_topics)]
    n_tokens = sum(map(len, texts))
    print(f"coherence: {n_docs} documents, {n_tokens:,} tokens, {n_topics} topics x 10 words")
    for measure in ("c_npmi", "c_v", "u_mass"):
        def gensim_run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cm = CoherenceModel(topics=topics, texts=texts, dictionary=Dictionary(texts),
                                    coherence=measure, processes=1)
                return cm.get_coherence()

        g_secs, g_val = _timed(gensim_run)
        s_secs, s_res = _timed(lambda: coherence(topics, texts, measure), repeat=3)
        diff = abs(g_val - s_res.score)
        print(f"  {measure:7s} gensim {g_secs:7.3f} s   scorekit {s_secs:7.3f} s   "
              f"speed-up {g_secs / s_secs:6.1f}x   |diff| {diff:.1e}")


def main() -> None:
    bench_semantic()
    bench_coherence()


if __name__ == "__main__":
    main()
