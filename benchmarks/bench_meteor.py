"""METEOR: scorekit's meteor_batch vs nltk's meteor_score loop, same inputs, same run.

5,000 English captions x 5 references (synthetic, seeded, caption-like vocabulary rich in
inflections and WordNet synonyms). nltk reads the same Debian WordNet 3.0 files (copied to a temp
nltk_data with a lexnames file); its WordNet is loaded before timing, while scorekit is timed
cold (fresh WordNet reader and stem cache). Values are checked equal (|diff| <= 1e-9).
Also times Korean METEOR (Kiwi units + lexicon) on 5,000 x 5 Korean captions, for reference.

    python -m benchmarks meteor        (BENCH_METEOR_N=1000 for a quicker run)
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np

N = int(os.environ.get("BENCH_METEOR_N", "5000"))
REFS = 5

ADJ = "big large small little tiny young old red blue white black happy beautiful pretty tall busy quiet".split()
NOUN = ("dog dogs puppy man men woman women person people child children kid boy girl car cars "
        "automobile bus bike bicycle house building street road city town beach shore sea ocean "
        "wave waves field grass ball tree trees river boat ship sky mountain hill table food").split()
VERB = ("runs running ran walks walking walked sits sitting sat stands standing rides riding "
        "plays playing looks looking watches jumped jumps eats eating holds holding crosses").split()
PREP = "on in near next to along across with under over beside by".split()
DET = "a the an two some several".split()


def caption(rng: random.Random) -> list[str]:
    words = [rng.choice(DET)]
    if rng.random() < 0.6:
        words.append(rng.choice(ADJ))
    words += [rng.choice(NOUN), rng.choice(["is", "are", ""]), rng.choice(VERB)]
    for _ in range(rng.randint(0, 2)):
        words += [rng.choice(PREP), rng.choice(DET)] + ([rng.choice(ADJ)] if rng.random() < 0.4 else []) + [rng.choice(NOUN)]
    return [w for w in words if w]


def data(n: int, seed: int = 0):
    rng = random.Random(seed)
    preds = [caption(rng) for _ in range(n)]
    refs = [[caption(rng) for _ in range(REFS)] for _ in range(n)]
    return preds, refs


def _nltk_meteor(tmp: Path):
    from scorekit.text.wordnet import export_for_nltk

    export_for_nltk(tmp)
    import nltk

    nltk.data.path.insert(0, str(tmp))
    from nltk.corpus import wordnet
    from nltk.translate.meteor_score import meteor_score

    wordnet.synsets("dog")  # load the reader outside the timing
    return meteor_score


def main() -> None:
    from scorekit.generation import meteor as M
    from scorekit.generation.rouge import porter_stem
    from scorekit.text.wordnet import WordNet

    preds, refs = data(N)
    with tempfile.TemporaryDirectory() as tmp:
        nltk_meteor = _nltk_meteor(Path(tmp))
        # cold: a fresh WordNet reader and empty stem cache, the whole set in one call
        porter_stem.cache_clear()
        t0 = time.perf_counter()
        wn = WordNet()
        ours = M.meteor_batch(preds, refs, wordnet=wn)
        t_cold = time.perf_counter() - t0
        # side by side: the machine is shared, so alternate chunks between the two libraries
        # and sum, letting load changes hit both alike
        t_ours = t_nltk = 0.0
        theirs = np.empty(N)
        ours_warm = np.empty(N)
        step = max(1, N // 5)
        for a in range(0, N, step):
            b = min(N, a + step)
            t0 = time.perf_counter()
            ours_warm[a:b] = M.meteor_batch(preds[a:b], refs[a:b], wordnet=wn)
            t_ours += time.perf_counter() - t0
            t0 = time.perf_counter()
            theirs[a:b] = [nltk_meteor(r, p) for p, r in zip(preds[a:b], refs[a:b])]
            t_nltk += time.perf_counter() - t0
    diff = float(np.max(np.abs(ours - theirs)))
    assert diff <= 1e-9 and np.array_equal(ours, ours_warm), f"METEOR differs from nltk by {diff}"
    print(f"METEOR en  {N} captions x {REFS} refs: scorekit {t_ours:.2f}s (cold, one call: {t_cold:.2f}s), "
          f"nltk meteor_score loop {t_nltk:.2f}s -> {t_nltk / t_ours:.1f}x ({t_nltk / t_cold:.1f}x vs cold) "
          f"(max |diff| {diff:.1e}, mean {ours.mean():.4f})")

    rng = random.Random(1)
    words = ("푸른 파란 하얀 아름다운 예쁜 큰 작은 바다가 바닷가에서 해변을 파도가 물결이 사람들이 아이가 "
             "하늘은 구름이 산이 걷는다 걸었다 달린다 뛰었다 밀려온다 다가온다 부서진다 바라본다 흐른다").split()
    sent = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(3, 9)))  # noqa: E731
    kpreds = [sent() for _ in range(N)]
    krefs = [[sent() for _ in range(REFS)] for _ in range(N)]
    from scorekit.text.korean import get_kiwi

    from scorekit.text.korean_units import units_batch

    get_kiwi()  # model load outside the timing
    distinct = list(dict.fromkeys(kpreds + [r for rs in krefs for r in rs]))
    t0 = time.perf_counter()
    units_batch(distinct)
    t_kiwi = time.perf_counter() - t0
    t0 = time.perf_counter()
    kscores = M.meteor_batch(kpreds, krefs, lang="ko")
    t_ko = time.perf_counter() - t0
    print(f"METEOR ko  {N} captions x {REFS} refs: scorekit {t_ko:.2f}s, of which Kiwi analysis of "
          f"{len(distinct)} texts ~{t_kiwi:.2f}s (mean {kscores.mean():.4f}; no anchor library scores "
          "Korean this way)")


if __name__ == "__main__":
    main()
