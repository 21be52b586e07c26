"""Magic-n sweep and ROUGE speed, side by side with rouge-score.

1. ROUGE-1/2/L on 3,000 (prediction, reference) pairs: scorekit vs rouge_score.RougeScorer
   (same numbers checked), and ROUGE-L alone (the >= 3x goal).
2. The sweep: 200 documents x 11 values of n (N_LIST) with lead-n and TextRank, ROUGE only
   (goal: under 30 s on 2 cores; sentence embeddings once per document). The anchor is the
   ROUGE part of the same sweep scored with rouge-score.
3. With BERTScore (default all-MiniLM-L6-v2): documents per second of the full sweep.

Documents are built from the shipped public-domain sample (examples/summarization): each
synthetic document concatenates 12 sentences drawn with a fixed seed.

    python -m benchmarks sweep            # SCOREKIT_BENCH_BERTSCORE_DOCS=20 to change part 3
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "summarization" / "news_en.jsonl"


def corpus(n_docs: int, seed: int = 0) -> tuple[list[str], list[str]]:
    from scorekit.summarization.sentences import split_sentences

    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    pool = [s for r in rows for s in split_sentences(r["document"])]
    rng = random.Random(seed)
    docs, refs = [], []
    for _ in range(n_docs):
        docs.append(" ".join(rng.sample(pool, 12)))
        refs.append(rng.choice(rows)["reference"])
    return docs, refs


def _time(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench_rouge() -> None:
    from rouge_score import rouge_scorer

    from scorekit.generation.rouge import rouge_scores

    docs, refs = corpus(3000, seed=1)
    preds = [" ".join(d.split()[: 5 + i % 40]) for i, d in enumerate(docs)]
    for kinds in (["rougeL"], ["rouge1", "rouge2", "rougeL"]):
        scorer = rouge_scorer.RougeScorer(kinds)
        t_ref, theirs = _time(lambda: [scorer.score(r, p) for p, r in zip(preds, refs)])
        t_sk, ours = _time(lambda: rouge_scores(preds, refs, kinds=kinds))
        for k in kinds:
            assert ours[k]["fmeasure"].tolist() == [s[k].fmeasure for s in theirs], k
        print(f"ROUGE {'+'.join(kinds):22s} 3000 pairs: rouge-score {t_ref:.3f}s  scorekit {t_sk:.3f}s  "
              f"-> {t_ref / t_sk:.1f}x (identical numbers)", flush=True)


def bench_sweep() -> None:
    from rouge_score import rouge_scorer

    from scorekit.neural.encoder import Encoder
    from scorekit.summarization.summarizers import LeadSummarizer, TextRankSummarizer
    from scorekit.summarization.sweep import N_LIST, run_sweep

    docs, refs = corpus(200)
    Encoder.load()  # model loading is not part of the sweep
    t_sweep, res = _time(lambda: run_sweep(docs, refs, ns=N_LIST, summarizers=["lead", "textrank"]))
    status = "OK" if t_sweep < 30 else "OVER GOAL"
    print(f"sweep 200 docs x {len(N_LIST)} n, lead+TextRank, ROUGE only: {t_sweep:.2f}s "
          f"(goal < 30 s: {status}); recommended n {res.recommendation['interval']}", flush=True)

    # anchor: the ROUGE part of the same sweep through rouge-score, vs scorekit's ROUGE alone
    tr = TextRankSummarizer()
    lead = LeadSummarizer()
    t_prep, prepared = _time(lambda: (lead.prepare(docs), tr.prepare(docs)))
    preds = [s.summarize(p, n) for s, ps in zip((lead, tr), prepared) for n in N_LIST for p in ps]
    targets = refs * (2 * len(N_LIST))
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"])
    t_ref, _ = _time(lambda: [scorer.score(r, p) for p, r in zip(preds, targets)])
    from scorekit.summarization.metrics import prepare_contexts, score_predictions

    t_sk, _ = _time(lambda: score_predictions(preds, prepare_contexts(refs, docs) * (2 * len(N_LIST))))
    print(f"  of which sentence split + embedding + TextRank: {t_prep:.2f}s; ROUGE-1/2 of the "
          f"{len(preds)} summaries: rouge-score {t_ref:.3f}s, scorekit {t_sk:.3f}s (with Density) "
          f"-> {t_ref / t_sk:.1f}x", flush=True)


def bench_bertscore() -> None:
    from scorekit.errors import MissingDependencyError
    from scorekit.summarization.metrics import load_bertscorer
    from scorekit.summarization.sweep import N_LIST, run_sweep

    n_docs = int(os.environ.get("SCOREKIT_BENCH_BERTSCORE_DOCS", "50"))
    docs, refs = corpus(n_docs)
    try:
        scorer = load_bertscorer()
    except MissingDependencyError:
        print("BERTScore unavailable (torch/model missing): skipped")
        return
    t, _ = _time(lambda: run_sweep(docs, refs, ns=N_LIST, summarizers=["lead", "textrank"], bertscorer=scorer))
    print(f"sweep with BERTScore (MiniLM, CPU) {n_docs} docs x {len(N_LIST)} n x 2 summarisers: {t:.2f}s "
          f"-> {n_docs / t:.2f} documents/s ({n_docs * len(N_LIST) * 2 / t:.0f} summaries/s)", flush=True)


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    bench_rouge()
    bench_sweep()
    bench_bertscore()


if __name__ == "__main__":
    main()
