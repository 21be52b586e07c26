"""Caption metrics: scorekit vs the anchor libraries, same inputs, same run, ratios printed.

5,000 synthetic English captions x 5 references (seeded; small vocabulary so n-grams collide):

* CIDEr-D   — scorekit ``cider_d`` vs pycocoevalcap ``Cider`` (both on the same tokens; values
              checked equal to 1e-9).                                        goal: >= 5x faster
* BLEU      — scorekit ``corpus_bleu`` (13a tokenisation + statistics + score) vs
              ``sacrebleu.corpus_bleu`` on the same raw strings (equal to 1e-9). goal: not slower
              (also COCO BLEU vs pycocoevalcap ``Bleu(4)``, for reference)
* ROUGE-L   — scorekit ``rouge_scores(kinds=("rougeL",))`` (the summarisation engineer's module)
              vs rouge-score ``RougeScorer(["rougeL"]).score_multi`` per item.   goal: >= 3x
* METEOR    — scorekit ``meteor_batch`` (the METEOR engineer's module) vs nltk ``meteor_score``
              on BENCH_CAPTION_METEOR_N items (default 1,000; nltk is slow) x 5 refs. goal: >= 10x
* Kiwi      — tokenisation of 25,000 Korean sentences with ``tokenize_batch`` (2 cores). goal: < 5 s

    python -m benchmarks caption       (BENCH_CAPTION_N=1000 for a quicker run)
"""

from __future__ import annotations

import math
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

N = int(os.environ.get("BENCH_CAPTION_N", "5000"))
N_METEOR = int(os.environ.get("BENCH_CAPTION_METEOR_N", "1000"))
N_KIWI = int(os.environ.get("BENCH_CAPTION_KIWI_N", "25000"))
REFS = 5

DET = "a the two some an".split()
ADJ = "red white small large young old black brown green wooden".split()
NOUN = "man woman dog cat bus car street table plate food child beach wave surfboard kite bike horse".split()
VERB = "is riding sitting standing holding walking eating playing looking flying".split()
PREP = "on in with near at of next to under".split()

KO_NOUN = "바다 파도 해변 산 구름 나무 도시 거리 사람 하늘 강 배 다리 숲 꽃".split()
KO_ADJ = "푸른 파란 하얀 높은 넓은 아름다운 예쁜 조용한 붐비는".split()
KO_PART = "이 가 을 를 에 에서 위로 으로".split()
KO_VERB = "부서진다 밀려온다 걸려 있다 걸어간다 지나간다 흐른다 피어오른다 보인다".split()


def caption(rng: random.Random) -> str:
    words = [rng.choice(DET)] + ([rng.choice(ADJ)] if rng.random() < 0.6 else []) + [rng.choice(NOUN), rng.choice(VERB)]
    for _ in range(rng.randint(1, 3)):
        words += [rng.choice(PREP), rng.choice(DET)] + ([rng.choice(ADJ)] if rng.random() < 0.4 else []) + [rng.choice(NOUN)]
    s = " ".join(words)
    return s[0].upper() + s[1:] + rng.choice([".", "", " ."])


def ko_caption(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(2, 4)):
        parts.append((rng.choice(KO_ADJ) + " " if rng.random() < 0.5 else "") + rng.choice(KO_NOUN) + rng.choice(KO_PART))
    return " ".join(parts) + " " + rng.choice(KO_VERB)


def data(n: int, seed: int = 0):
    rng = random.Random(seed)
    return [caption(rng) for _ in range(n)], [[caption(rng) for _ in range(REFS)] for _ in range(n)]


def timed(fn, repeat: int = 1):
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def line(name: str, ours: float, theirs: float, anchor: str, goal: str) -> str:
    ratio = theirs / ours if ours > 0 else math.inf
    s = f"{name:<9} scorekit {ours:7.3f}s  {anchor:<28} {theirs:7.3f}s  speed-up {ratio:6.1f}x  (goal {goal})"
    print(s, flush=True)
    return s


def main() -> None:
    from scorekit.generation import bleu as B
    from scorekit.generation.cider import cider_d
    from scorekit.text.english import coco_tokenize

    preds, refs = data(N)
    print(f"{N} captions x {REFS} references (synthetic, seeded)", flush=True)
    # the same tokens for both sides (tokenisation is not part of the CIDEr comparison)
    hyp_t = [coco_tokenize(p) for p in preds]
    ref_t = [[coco_tokenize(r) for r in rs] for rs in refs]

    # CIDEr-D
    from pycocoevalcap.cider.cider import Cider

    gts = {i: [" ".join(t) for t in rs] for i, rs in enumerate(ref_t)}
    res = {i: [" ".join(t)] for i, t in enumerate(hyp_t)}
    t_ref, (c_ref, _) = timed(lambda: Cider().compute_score(gts, res))
    t_sk, c_sk = timed(lambda: cider_d(hyp_t, ref_t), repeat=2)
    assert math.isclose(c_sk.score, c_ref, rel_tol=1e-9), (c_sk.score, c_ref)
    line("CIDEr-D", t_sk, t_ref, "pycocoevalcap Cider", ">= 5x")

    # BLEU: raw strings, 13a, vs sacrebleu
    import sacrebleu

    streams = [[rs[j] for rs in refs] for j in range(REFS)]
    from scorekit.text.tokenizers import tokenize_13a_str

    def sb():
        return sacrebleu.corpus_bleu(preds, streams).score

    def ours():
        tokenize_13a_str.cache_clear()
        return B.corpus_bleu(preds, refs, tokenize="13a")

    # both tokenizers are lru-cached: sacrebleu's per metric instance (new on every call), ours cleared
    import logging

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its "tokenized period" warning
    t_ref, b_ref = timed(sb, repeat=2)
    t_sk, b_sk = timed(ours, repeat=2)
    assert math.isclose(b_sk, b_ref, rel_tol=1e-9), (b_sk, b_ref)
    line("BLEU", t_sk, t_ref, "sacrebleu corpus_bleu", "not slower")

    from pycocoevalcap.bleu.bleu import Bleu

    t_ref, (cb_ref, _) = timed(lambda: Bleu(4).compute_score(gts, res, verbose=0))
    t_sk, (cb_sk, _) = timed(lambda: B.coco_bleu(B.bleu_stats_batch(hyp_t, ref_t)), repeat=2)
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(cb_sk, cb_ref))
    line("COCO BLEU", t_sk, t_ref, "pycocoevalcap Bleu(4)", "reference only")

    # ROUGE-L
    try:
        from scorekit.generation.rouge import rouge_scores
    except ImportError:
        print("ROUGE-L   skipped: scorekit.generation.rouge not present")
    else:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"])
        t_ref, r_ref = timed(lambda: [scorer.score_multi(rs, p)["rougeL"].fmeasure for p, rs in zip(preds, refs)])
        t_sk, r_sk = timed(lambda: rouge_scores(preds, refs, kinds=("rougeL",), lang="en"), repeat=2)
        assert np.allclose(r_sk["rougeL"]["fmeasure"], r_ref, atol=1e-9)
        line("ROUGE-L", t_sk, t_ref, "rouge-score score_multi", ">= 3x")

    # METEOR
    try:
        from scorekit.generation.meteor import meteor_batch
        from benchmarks.bench_meteor import _nltk_meteor
    except ImportError as exc:
        print(f"METEOR    skipped: {exc}")
    else:
        m = min(N_METEOR, N)
        mh = [t for t in hyp_t[:m]]
        mr = [rs for rs in ref_t[:m]]
        with tempfile.TemporaryDirectory() as tmp:
            nltk_meteor = _nltk_meteor(Path(tmp))
            t_ref, m_ref = timed(lambda: [nltk_meteor(rs, h) for h, rs in zip(mh, mr)])
        meteor_batch(mh[:1], mr[:1], lang="en")  # WordNet loaded outside the timing, as for nltk
        t_sk, m_sk = timed(lambda: meteor_batch(mh, mr, lang="en"))
        assert np.allclose(m_sk, m_ref, atol=1e-6)
        print(f"(METEOR on the first {m} items)")
        line("METEOR", t_sk, t_ref, "nltk meteor_score", ">= 10x")

    # Kiwi
    from scorekit.text.korean import get_kiwi, tokenize_batch

    rng = random.Random(1)
    ko = [ko_caption(rng) for _ in range(N_KIWI)]
    get_kiwi().tokenize("워밍업 문장입니다")  # model load and first-call set-up outside the timing
    t0 = time.perf_counter()
    toks = tokenize_batch(ko)
    t_kiwi = time.perf_counter() - t0
    assert len(toks) == N_KIWI
    print(f"Kiwi      {N_KIWI} Korean sentences tokenised in {t_kiwi:.2f}s on {os.cpu_count()} cores "
          f"(goal < 5 s)", flush=True)


if __name__ == "__main__":
    main()
