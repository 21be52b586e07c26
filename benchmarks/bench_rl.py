"""Phase-2 RL summariser: minutes for NUM_TRAIN articles x 1 epoch on this machine (CPU).

The spec trained on 200 CNN/DailyMail articles on a T4 GPU; here the shipped English sample is
cycled up to ``BENCH_RL_N`` articles (default 200) with the default MiniLM encoder and BERTScore
reward. Prints the preparation time (sentence/chunk embeddings) and the training time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

N = int(os.environ.get("BENCH_RL_N", "200"))
SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "summarization" / "news_en.jsonl"


def main() -> None:
    from scorekit.summarization.data import read_pairs
    from scorekit.summarization.rl.pipeline import Toolkit
    from scorekit.summarization.rl.policy import PolicyConfig
    from scorekit.summarization.rl.train import N_LIST, Policy, train

    from scorekit.summarization.sentences import split_sentences

    pairs = read_pairs(SAMPLE)
    m = len(pairs)
    # Cycle the sample, but make every copy a different article (its sentences rotated, the
    # reference's words reordered): identical copies would let the BERTScorer's state cache
    # answer most rewards and flatter the timing.
    ids, docs, refs = [], [], []
    for i in range(N):
        j, c = i % m, i // m
        sents = split_sentences(pairs.documents[j])
        c_doc = c % max(1, len(sents))
        docs.append(" ".join(sents[c_doc:] + sents[:c_doc]))
        ref = pairs.references[j] if isinstance(pairs.references[j], str) else " ".join(pairs.references[j])
        words = ref.split()
        c_ref = c % max(1, len(words))
        refs.append(" ".join(words[c_ref:] + words[:c_ref]))
        ids.append(f"{pairs.ids[j]}#{c}")
    t0 = time.perf_counter()
    toolkit = Toolkit.load()
    if os.environ.get("BENCH_RL_NO_CACHE", "1") == "1":
        # Time the model, not the BERTScorer's state cache (cycled data repeats sentences).
        from scorekit.neural.bertscore import BERTScorer

        toolkit.bertscorer = BERTScorer(cache_size=0)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    articles, chunker = toolkit.prepare(ids, docs, refs)
    t_prep = time.perf_counter() - t0
    policy = Policy.create(PolicyConfig(embed_dim=articles[0].sent_emb.shape[1]), seed=42)
    t0 = time.perf_counter()
    log = train(policy, articles, toolkit.reward, n_list=N_LIST, epochs=1, seed=42)
    t_train = time.perf_counter() - t0
    print(f"RL summariser, {N} articles x 1 epoch, N_LIST={list(N_LIST)}, chunker={chunker}, "
          f"{os.cpu_count()} CPU cores, BERTScorer state cache "
          f"{'off' if os.environ.get('BENCH_RL_NO_CACHE', '1') == '1' else 'on'}")
    print(f"  load models      {t_load:7.1f} s")
    print(f"  prepare articles {t_prep:7.1f} s  (sentence + chunk embeddings, TextRank)")
    print(f"  train            {t_train:7.1f} s  = {t_train / 60:.2f} min "
          f"({t_train / N:.2f} s/article; final running reward {log.running():.4f})")
    print(f"  total            {(t_load + t_prep + t_train) / 60:.2f} min")
