"""BERTScore throughput: scorekit vs bert_score, same model (all-MiniLM-L6-v2, layer 6), same CPU.

``python -m benchmarks neural`` (env ``NEURAL_BENCH_PAIRS`` changes the 2,000 pairs,
``NEURAL_BENCH_REPEATS`` the number of alternating repeats; the best time of each side counts). Both run on
the same 2,000 English + Korean caption pairs, with and without idf; the values are checked equal
(1e-5) before the ratio is printed. bert_score is run with the minimal transformers-5 workaround
described in docs/neural.md (empty texts only; none occur here).
"""

from __future__ import annotations

import os
import random
import time

import numpy as np

EN_SUBJ = ["a man", "a woman", "two dogs", "a child", "an old man", "a group of people", "a red car",
           "a small boat", "the cat", "three birds", "a cyclist", "a young girl"]
EN_VERB = ["is walking along", "is sitting on", "runs across", "is looking at", "stands near",
           "is playing in", "rides through", "waits beside", "jumps over", "sleeps under"]
EN_OBJ = ["the beach", "a busy street", "a snowy mountain", "the river", "a wooden bench",
          "a crowded market", "the park at night", "an empty field", "the old bridge", "a city square"]
EN_TAIL = ["", " in the rain", " at sunset", " while talking on the phone", " with a red umbrella",
           " on a sunny afternoon", " as waves break on the shore"]
KO_SUBJ = ["한 남자가", "여자가", "아이들이", "강아지 두 마리가", "노인이", "사람들이", "자전거 탄 사람이"]
KO_PLACE = ["해변에서", "서울의 밤거리에서", "눈 덮인 산에서", "강가에서", "시장에서", "공원에서", "다리 위에서"]
KO_VERB = ["걷고 있다", "뛰어논다", "앉아 있다", "사진을 찍는다", "이야기를 나눈다", "바다를 바라본다"]
KO_TAIL = ["", " 비가 내리는 가운데", " 해 질 무렵에", " 푸른 하늘 아래", " 하얀 파도가 부서지는 동안"]


def caption_pairs(n: int, seed: int = 42) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)

    def en():
        return rng.choice(EN_SUBJ).capitalize() + " " + rng.choice(EN_VERB) + " " + rng.choice(EN_OBJ) + rng.choice(EN_TAIL) + "."

    def ko():
        return rng.choice(KO_SUBJ) + " " + rng.choice(KO_PLACE) + rng.choice(KO_TAIL) + " " + rng.choice(KO_VERB) + "."

    cands, refs = [], []
    for i in range(n):
        make = en if i % 2 == 0 else ko
        cands.append(make())
        refs.append(make())
    return cands, refs


def _oracle():
    """bert_score with the one transformers-5 fix it needs (empty sentences)."""
    import bert_score.utils as U

    if not getattr(U.sent_encode, "_scorekit_patched", False):
        orig = U.sent_encode

        def sent_encode(tokenizer, sent):
            if sent.strip() == "":
                return [tokenizer.cls_token_id, tokenizer.sep_token_id]
            return orig(tokenizer, sent)

        sent_encode._scorekit_patched = True
        U.sent_encode = sent_encode
    import bert_score

    return bert_score


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from scorekit.neural.bertscore import BERTScorer
    from scorekit.neural.encoder import default_model_path

    n = int(os.environ.get("NEURAL_BENCH_PAIRS", "2000"))
    cands, refs = caption_pairs(n)
    path = str(default_model_path())
    bert_score = _oracle()
    print(f"BERTScore, {n} caption pairs (half English, half Korean), all-MiniLM-L6-v2 layer 6, "
          f"CPU, torch threads={torch.get_num_threads()}")
    # warm both (model load, first-call allocations) so the timings compare the scoring itself
    bert_score.score(cands[:8], refs[:8], model_type=path, num_layers=6, nthreads=0)
    BERTScorer(num_layers=6).score(cands[:8], refs[:8])
    repeats = int(os.environ.get("NEURAL_BENCH_REPEATS", "1"))
    for idf in (False, True):
        t_ref = t_sk = c_ref = c_sk = float("inf")
        # alternate the two (and keep each one's best time): the CPU is shared, so a burst of
        # someone else's load should not land on one side only
        for rep in range(repeats):
            for side in (("ref", "sk") if (rep + idf) % 2 == 0 else ("sk", "ref")):
                t0, c0 = time.perf_counter(), time.process_time()
                if side == "ref":
                    P, R, F = bert_score.score(cands, refs, model_type=path, num_layers=6, idf=idf)
                    t_ref = min(t_ref, time.perf_counter() - t0)
                    c_ref = min(c_ref, time.process_time() - c0)
                else:
                    # a fresh scorer each time: its sentence-state cache must not help a repeat
                    out = BERTScorer(num_layers=6, idf=idf).score(cands, refs)
                    t_sk = min(t_sk, time.perf_counter() - t0)
                    c_sk = min(c_sk, time.process_time() - c0)
        diff = max(np.abs(P.numpy() - out.precision).max(), np.abs(R.numpy() - out.recall).max(),
                   np.abs(F.numpy() - out.f1).max())
        assert diff < 1e-5, f"values differ by {diff}"
        print(f"  idf={'on ' if idf else 'off'}: bert_score {n / t_ref:8.1f} pairs/s ({t_ref:.2f}s) | "
              f"scorekit {n / t_sk:8.1f} pairs/s ({t_sk:.2f}s) | speed-up x{t_ref / t_sk:.2f} | "
              f"CPU time x{c_ref / c_sk:.2f} ({c_ref:.1f}s vs {c_sk:.1f}s) | "
              f"max |diff| {diff:.1e} | F1 mean {out.f1.mean():.6f}")
    print("  GPU: not measured (no GPU lent to this task)")


if __name__ == "__main__":
    main()
