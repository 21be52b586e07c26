"""Input generators for the end-to-end benchmarks: files on disk, as a user would hand them over.

Every generator is seeded and takes *shape* options, so a result can be checked to hold for
more than one kind of data:

* captions  — ``n_images`` x ``refs``; ``length`` (short | long | mixed words per caption);
              ``ko_share`` (fraction of images whose captions are Korean); ``punct`` (share of
              captions with commas, quotes, contractions, brackets, numbers).
* TREC      — ``n_queries`` x ``n_docs``; ``ids`` (``d123`` | ``D1234567`` | ``msmarco`` =
              ``msmarco_doc_00_1234567``); ``precision`` (decimals of the score); ``order``
              (``sorted`` query by query, best first, or ``shuffled`` lines).
* summaries — ``n`` documents with a candidate summary each; ``ko_share``.
* topics    — ``n_docs`` corpus documents and ``n_topics`` topics x 10 keywords.
* ABSA      — ``n`` scorecard records (JSONL) in the Conflict-Review schema.

Run ``python -m benchmarks.gen KIND DIR [key=value ...]`` to write one data set by hand.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np

# ---------------------------------------------------------------- captions
DET = "a the two some an one three several".split()
ADJ = ("red white small large young old black brown green wooden tall empty busy little "
       "yellow blue dark bright crowded open").split()
NOUN = ("man woman dog cat bus car street table plate food child beach wave surfboard kite bike "
        "horse train boy girl giraffe elephant pizza sandwich bench field tennis player clock "
        "tower kitchen room bed window road sign truck boat water sky building park").split()
VERB = ("is riding sitting standing holding walking eating playing looking flying parked "
        "laying waiting carrying watching throwing").split()
PREP = "on in with near at of under behind beside across".split()
EXTRA = ["with a frisbee", "(in the rain)", "that's full", "who doesn't move", "at 3:30",
         "on a 1,000-foot hill", "black-and-white", "\"smiling\"", "dog's", "St. Mark's", "u.s.",
         "and/or", "can't", "next to it ;", "-- quickly", "..."]
KO_NOUN = "바다 파도 해변 산 구름 나무 도시 거리 사람 하늘 강 배 다리 숲 꽃 고양이 강아지 자동차 기차 아이".split()
KO_ADJ = "푸른 파란 하얀 높은 넓은 아름다운 예쁜 조용한 붐비는 작은 큰 오래된".split()
KO_PART = "이 가 을 를 에 에서 위로 으로 와 과".split()
KO_VERB = "부서진다 밀려온다 걸려 있다 걸어간다 지나간다 흐른다 피어오른다 보인다 앉아 있다 달린다".split()
LENGTHS = {"short": (1, 2), "long": (4, 8), "mixed": (1, 6)}


def en_caption(rng: random.Random, length: str = "mixed", punct: float = 0.2) -> str:
    lo, hi = LENGTHS[length]
    words = [rng.choice(DET)] + ([rng.choice(ADJ)] if rng.random() < 0.6 else []) + [rng.choice(NOUN), rng.choice(VERB)]
    for _ in range(rng.randint(lo, hi)):
        words += [rng.choice(PREP), rng.choice(DET)] + ([rng.choice(ADJ)] if rng.random() < 0.4 else []) + [rng.choice(NOUN)]
        if rng.random() < punct:
            words.append(rng.choice(EXTRA))
    if rng.random() < punct:
        words.insert(rng.randrange(1, len(words)), ",")
        words = " ".join(words).replace(" ,", ",").split(" ")
    s = " ".join(words)
    return s[0].upper() + s[1:] + rng.choice([".", "", " .", "!"])


def ko_caption(rng: random.Random, length: str = "mixed") -> str:
    lo, hi = LENGTHS[length]
    parts = []
    for _ in range(rng.randint(lo + 1, hi + 2)):
        parts.append((rng.choice(KO_ADJ) + " " if rng.random() < 0.5 else "") + rng.choice(KO_NOUN) + rng.choice(KO_PART))
    return " ".join(parts) + " " + rng.choice(KO_VERB) + rng.choice([".", ""])


def captions(directory: Path, n_images: int, *, refs: int = 5, length: str = "mixed",
             ko_share: float = 0.0, punct: float = 0.2, seed: int = 0) -> tuple[Path, Path]:
    """predictions.json ``{id: caption}`` and references.json ``{id: [ref, ...]}`` (the spec's
    evaluate.py format)."""
    rng = random.Random(seed)
    preds, refs_out = {}, {}
    for i in range(n_images):
        ko = rng.random() < ko_share
        make = (lambda: ko_caption(rng, length)) if ko else (lambda: en_caption(rng, length, punct))
        key = f"img_{i:07d}"
        preds[key] = make()
        refs_out[key] = [make() for _ in range(refs)]
    directory.mkdir(parents=True, exist_ok=True)
    p, r = directory / "predictions.json", directory / "references.json"
    p.write_text(json.dumps(preds, ensure_ascii=False, indent=1), encoding="utf-8")
    r.write_text(json.dumps(refs_out, ensure_ascii=False, indent=1), encoding="utf-8")
    return p, r


# ---------------------------------------------------------------- TREC
def _doc_names(kind: str, ids: np.ndarray):
    import pyarrow as pa
    import pyarrow.compute as pc

    if kind == "d":
        return pc.binary_join_element_wise("d", pc.cast(pa.array(ids), pa.string()), "")
    if kind == "D7":
        return pc.binary_join_element_wise("D", pc.utf8_lpad(pc.cast(pa.array(ids), pa.string()), 7, "0"), "")
    if kind == "msmarco":
        shard = pc.utf8_lpad(pc.cast(pa.array(ids % 60), pa.string()), 2, "0")
        rest = pc.cast(pa.array(ids * 37 % 9_999_991), pa.string())
        return pc.binary_join_element_wise("msmarco_doc_", shard, "_", rest, "")
    raise ValueError(f"ids must be d, D7 or msmarco, not {kind!r}")


def trec(directory: Path, n_queries: int, n_docs: int = 1000, *, ids: str = "d", precision: int = 3,
         order: str = "sorted", judged: int = 20, pool: int = 0, seed: int = 0) -> tuple[Path, Path]:
    """qrels.txt (``judged`` per query, half from the run's top 200, grades 0-3) and run.txt
    (``n_docs`` per query), written by pyarrow (no Python loop over lines). ``pool``: documents
    drawn from that many ids (a small collection, every document judged for some query, as in a
    re-ranking run) instead of a million; queries are named q0, q1, ... (not lexicographic)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    corpus = 1_000_003
    qnames = pa.array([f"q{i}" if ids == "d" else str(1000000 + i * 7) for i in range(n_queries)])

    def const(value: str, n: int):
        return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value])).cast(pa.string())

    if pool:
        if pool < max(n_docs, 2 * judged):
            raise ValueError(f"pool must hold at least n_docs and 2 x judged ids, not {pool}")
        corpus = pool
        docs = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :n_docs]
    else:
        step = 997  # distinct documents within a query (step * n_docs < corpus)
        docs = (rng.integers(0, corpus, n_queries)[:, None] + np.arange(n_docs)[None, :] * step) % corpus
    score = np.sort(np.round(rng.normal(size=(n_queries, n_docs)) * 10, precision), axis=1)[:, ::-1]
    q = np.repeat(np.arange(n_queries, dtype=np.int32), n_docs)
    rank = np.tile(np.arange(1, n_docs + 1, dtype=np.int32), n_queries)
    flat_docs, flat_score = docs.ravel(), score.ravel()
    if order == "shuffled":
        perm = rng.permutation(q.size)
        q, rank, flat_docs, flat_score = q[perm], rank[perm], flat_docs[perm], flat_score[perm]
    elif order != "sorted":
        raise ValueError(f"order must be sorted or shuffled, not {order!r}")
    directory.mkdir(parents=True, exist_ok=True)
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    run_path, qrels_path = directory / "run.txt", directory / "qrels.txt"
    import pyarrow.compute as pc

    scores = pc.cast(pa.array(flat_score), pa.string())  # shortest repr of the rounded score
    run = pa.table({
        "q": pa.DictionaryArray.from_arrays(pa.array(q), qnames).cast(pa.string()),
        "z": const("Q0", q.size), "d": _doc_names(ids, flat_docs), "r": rank, "s": scores,
        "t": const("bench", q.size)})
    pacsv.write_csv(run, run_path, opts)
    del run
    half = judged // 2
    top = docs[:, :min(200, n_docs)]
    pick = rng.permuted(np.tile(np.arange(top.shape[1]), (n_queries, 1)), axis=1)[:, :half]
    from_run = np.take_along_axis(top, pick, axis=1)
    if pool:   # judged documents this query did not retrieve
        others = np.argsort(rng.random((n_queries, pool)), axis=1)
        others = np.array([row[~np.isin(row, got)][:judged - half] for row, got in zip(others, docs)])
    else:
        others = (docs[:, :judged - half] + 500_000) % corpus  # not in this query's ranking
    qd = np.concatenate([from_run, others], axis=1)
    qq = np.repeat(np.arange(n_queries, dtype=np.int32), judged)
    qrels = pa.table({
        "q": pa.DictionaryArray.from_arrays(pa.array(qq), qnames).cast(pa.string()),
        "z": const("0", qq.size), "d": _doc_names(ids, qd.ravel()),
        "r": rng.choice([0, 1, 1, 2, 3], size=qq.size)})
    pacsv.write_csv(qrels, qrels_path, opts)
    return qrels_path, run_path


# ---------------------------------------------------------------- summaries
def _sentence(rng: random.Random, ko: bool) -> str:
    return ko_caption(rng, "mixed") if ko else en_caption(rng, "mixed", 0.1)


def summaries(directory: Path, n: int, *, sentences: int = 8, ko_share: float = 0.0, seed: int = 0) -> Path:
    """summaries.jsonl: ``id``, ``document`` (``sentences`` sentences), ``reference`` (two of them,
    shuffled words dropped) and ``prediction`` (the first two sentences) per line."""
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "summaries.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            ko = rng.random() < ko_share
            sents = [_sentence(rng, ko) for _ in range(sentences)]
            ref = " ".join(rng.sample(sents, 2))
            rec = {"id": f"doc{i}", "document": " ".join(sents), "reference": ref, "prediction": " ".join(sents[:2])}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


# ---------------------------------------------------------------- topics
def topics(directory: Path, n_docs: int, *, n_topics: int = 20, doc_len: int = 60, vocab: int = 2000,
           seed: int = 0) -> tuple[Path, Path]:
    """corpus.txt (Zipfian words ``w123``, one document per line) and topics.json (``n_topics``
    x 10 words drawn from the 300 most frequent)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1)
    p /= p.sum()
    directory.mkdir(parents=True, exist_ok=True)
    corpus = directory / "corpus.txt"
    with open(corpus, "w") as fh:
        for _ in range(n_docs):
            words = rng.choice(vocab, size=int(rng.integers(doc_len // 2, doc_len * 2)), p=p)
            fh.write(" ".join(f"w{i}" for i in words) + "\n")
    tops = {f"t{k}": [f"w{i}" for i in rng.choice(300, 10, replace=False)] for k in range(n_topics)}
    path = directory / "topics.json"
    path.write_text(json.dumps(tops))
    return path, corpus


# ---------------------------------------------------------------- ABSA
def absa(directory: Path, n: int, *, seed: int = 0) -> Path:
    """A Conflict-Review run directory ``run/outputs.jsonl`` with ``n`` rows."""
    from benchmarks.bench_absa import synthetic_entries

    run = directory / "cr_bench__seed42_proposed"
    run.mkdir(parents=True, exist_ok=True)
    with open(run / "outputs.jsonl", "w", encoding="utf-8") as fh:
        for e in synthetic_entries(n, seed):
            fh.write(json.dumps(e, ensure_ascii=False) + "\n")
    return run


def main(argv: list[str]) -> int:
    kind, directory, *pairs = argv
    kwargs = {}
    for p in pairs:
        k, v = p.split("=", 1)
        kwargs[k] = float(v) if "." in v and v.replace(".", "").isdigit() else int(v) if v.isdigit() else v
    fn = globals()[kind]
    print(fn(Path(directory), **kwargs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
