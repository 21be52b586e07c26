"""BLEU, three ways, from one set of per-item sufficient statistics (spec caption-metrics.md §5.1).

For a hypothesis ``h`` with references ``R`` the statistics are

* ``correct[n]`` = sum over n-grams g of h of min(count_h(g), max_r count_r(g))  (clipped matches)
* ``total[n]``   = max(0, |h| - n + 1)                                            (n-grams of h)
* ``hyp_len`` = |h| and every reference length (the "closest" one is chosen per item: smallest
  |len(r) - |h||, ties to the shorter reference — pycocoevalcap, sacrebleu and nltk agree).

Corpus statistics are sums. The three scores:

* :func:`coco_bleu` — pycocoevalcap ``Bleu(4)``: BLEU-n = BP * prod_{k<=n}((c_k + 1e-15) /
  (t_k + 1e-9))^(1/n), BP = exp(1 - 1/ratio) when ratio = (hyp + 1e-15)/(ref + 1e-9) < 1; the same
  formula per item gives its per-image scores (its "tiny"/"small" constants kept, so a sentence with
  no matches scores ~1e-6^(1/n), not 0, exactly as pycocoevalcap).
* :func:`sacrebleu_score` — sacrebleu ``BLEU.compute_bleu`` (0-100, smoothing ``exp`` by default,
  ``floor``/``add-k``/``none``, ``effective_order``).
* :func:`nltk_sentence_bleu` — ``nltk.translate.bleu_score.sentence_bleu`` with
  ``SmoothingFunction().method1`` (epsilon 0.1 added to zero-count numerators; denominators at least
  1; 0 when no unigram matches), the spec's §5.1 code with weights (1/n,...,1/n,0,...).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.generation.batch import CaptionMetric, KoreanUnitsMetric
from scorekit.generation.ngrams import ngram_matrix
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.text.tokenizers import tokenize_batch

MAX_N = 4
_TINY = 1e-15   # pycocoevalcap bleu_scorer: "so that if guess is 0 still return 0"
_SMALL = 1e-9


@dataclass(frozen=True)
class BleuStats:
    """Sufficient statistics of one item (or, after :func:`merge`, of a corpus)."""

    hyp_len: int
    ref_len: int                 # closest reference length (summed over items after merge)
    correct: tuple[int, ...]
    total: tuple[int, ...]


def bleu_stats_arrays(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]],
                      max_n: int = MAX_N, matrix=None) -> dict:
    """The statistics of many items as arrays (``hyp_len``, closest ``ref_len``, ``correct`` and
    ``total`` of shape (items, max_n)), vectorised over one sparse n-gram matrix: the per-item
    reference maxima are a grouped max, the clipped matches ``min(h, max_r)``. ``matrix``: the
    :func:`ngram_matrix` of the hypotheses followed by every reference (in order), when already
    built (shared with CIDEr); built here otherwise."""
    from scipy import sparse

    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference lists")
    if any(len(r) == 0 for r in refs):
        raise ValueError("BLEU needs at least one reference per item")
    n_items = len(hyps)
    n_refs = np.fromiter((len(r) for r in refs), dtype=np.int64, count=n_items)
    M = matrix if matrix is not None else ngram_matrix(list(hyps) + [r for rs in refs for r in rs], max_n)
    if M.counts.shape[0] != n_items + int(n_refs.sum()):
        raise ValueError("the n-gram matrix does not match the hypotheses and references")
    ref_item = np.repeat(np.arange(n_items), n_refs)
    G = M.counts.shape[1]
    H = M.counts[:n_items]
    R = M.counts[n_items:].tocoo()
    # max over an item's references, per n-gram
    key = ref_item[R.row] * G + R.col
    srt = np.argsort(key, kind="stable")
    key, val = key[srt], R.data[srt]
    if len(key):
        starts = np.concatenate(([0], np.nonzero(np.diff(key))[0] + 1))
        ukey, umax = key[starts], np.maximum.reduceat(val, starts)
    else:
        ukey, umax = key, val
    Rmax = sparse.csr_matrix((umax, (ukey // G, ukey % G)), shape=(n_items, G))
    O = sparse.csr_matrix((np.ones(G), (np.arange(G), M.order)), shape=(G, max_n))
    correct = np.rint(np.asarray((H.minimum(Rmax) @ O).todense())).astype(np.int64).reshape(n_items, max_n)
    hyp_len = M.lengths[:n_items].astype(np.int64)
    ref_len = M.lengths[n_items:]
    # closest reference length, ties to the shorter: min of |r - h| * big + r within each item
    if n_items:
        big = int(ref_len.max(initial=0)) + 1
        score = np.abs(ref_len - hyp_len[ref_item]) * big + ref_len
        first = np.concatenate(([0], np.cumsum(n_refs)[:-1]))
        closest = (np.minimum.reduceat(score, first) % big).astype(np.int64)
    else:
        closest = np.zeros(0, np.int64)
    total = np.maximum(0, hyp_len[:, None] - np.arange(max_n)[None, :]).astype(np.int64)
    return {"hyp_len": hyp_len, "ref_len": closest, "correct": correct, "total": total}


def bleu_stats_batch(hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]],
                     max_n: int = MAX_N, matrix=None) -> list[BleuStats]:
    """Per-item :class:`BleuStats` (:func:`bleu_stats_arrays`, one object per item)."""
    a = bleu_stats_arrays(hyps, refs, max_n, matrix)
    return [BleuStats(h, r, tuple(c), tuple(t)) for h, r, c, t in
            zip(a["hyp_len"].tolist(), a["ref_len"].tolist(), a["correct"].tolist(), a["total"].tolist())]


def merge(stats: Iterable[BleuStats]) -> BleuStats:
    """Corpus statistics: sums of lengths and counts."""
    stats = list(stats)
    if not stats:
        raise ValueError("no statistics to merge")
    return BleuStats(sum(s.hyp_len for s in stats), sum(s.ref_len for s in stats),
                     tuple(map(sum, zip(*(s.correct for s in stats)))),
                     tuple(map(sum, zip(*(s.total for s in stats)))))


def _coco_from(s: BleuStats) -> list[float]:
    out, bleu = [], 1.0
    for k in range(len(s.correct)):
        bleu *= float(s.correct[k] + _TINY) / (s.total[k] + _SMALL)
        out.append(bleu ** (1.0 / (k + 1)))
    ratio = (s.hyp_len + _TINY) / (s.ref_len + _SMALL)
    if ratio < 1:
        bp = math.exp(1 - 1 / ratio)
        out = [b * bp for b in out]
    return out


def coco_bleu(stats: Sequence[BleuStats]) -> tuple[list[float], list[list[float]]]:
    """pycocoevalcap ``Bleu(n).compute_score``: ([BLEU-1..n] of the corpus, per-item lists)."""
    return _coco_from(merge(stats)), [_coco_from(s) for s in stats]


def sacrebleu_breakdown(s: BleuStats, *, smooth_method: str = "exp", smooth_value: float | None = None,
                        effective_order: bool = False) -> dict:
    """sacrebleu ``BLEU.compute_bleu`` on (merged) statistics: its ``BLEUScore`` fields ``score``
    (0-100), ``precisions`` (0-100, smoothed as sacrebleu reports them), ``bp``, ``ratio``,
    ``sys_len``, ``ref_len``."""
    defaults = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
    if smooth_method not in defaults:
        raise ValueError(f"unknown smooth_method {smooth_method!r}")
    if smooth_value is None:
        smooth_value = defaults[smooth_method]
    correct, total = list(s.correct), list(s.total)
    sys_len, ref_len = s.hyp_len, s.ref_len
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    max_n = len(correct)
    precisions = [0.0] * max_n
    out = {"score": 0.0, "precisions": precisions, "bp": bp, "sys_len": sys_len, "ref_len": ref_len,
           "ratio": sys_len / ref_len if ref_len else 0}
    if not any(correct):
        return out
    smooth_mteval, eff_order = 1.0, max_n
    for n in range(1, max_n + 1):
        if smooth_method == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [math.log(p) if p != 0.0 else -9999999999 for p in precisions[:eff_order]]
    out["score"] = bp * math.exp(sum(logs) / eff_order)
    return out


def sacrebleu_score(s: BleuStats, *, smooth_method: str = "exp", smooth_value: float | None = None,
                    effective_order: bool = False) -> float:
    """sacrebleu ``BLEU.compute_bleu`` on (merged) statistics; 0-100."""
    return sacrebleu_breakdown(s, smooth_method=smooth_method, smooth_value=smooth_value,
                               effective_order=effective_order)["score"]


def nltk_weights(n: int, max_n: int = MAX_N) -> tuple[float, ...]:
    """The spec's §5.1 weights for BLEU-n: (1/n,)*n + (0,)*(4-n)."""
    return tuple([1.0 / n] * n + [0.0] * (max_n - n))


def nltk_sentence_bleu(s: BleuStats, weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
                       epsilon: float = 0.1) -> float:
    """nltk ``sentence_bleu(..., smoothing_function=SmoothingFunction(epsilon).method1)``.

    ``s`` must carry at least ``len(weights)`` orders."""
    if s.correct[0] == 0:
        return 0.0
    logs = []
    for w, num, tot in zip(weights, s.correct, s.total):
        den = max(1, tot)
        p = (num + epsilon) / den if num == 0 else num / den
        logs.append(w * math.log(p))
    hyp, ref = s.hyp_len, s.ref_len
    bp = 1 if hyp > ref else (0 if hyp == 0 else math.exp(1 - ref / hyp))
    return bp * math.exp(math.fsum(logs))


def corpus_bleu(predictions: Sequence[str], references: Sequence[Sequence[str]], *,
                tokenize: str = "13a", smooth_method: str = "exp", lowercase: bool = False) -> float:
    """sacrebleu ``corpus_bleu`` on raw strings (references per item; any number >= 1)."""
    def prep(texts):
        return tokenize_batch([t.lower() for t in texts] if lowercase else list(texts), tokenize)

    stats = bleu_stats_batch(prep(predictions), [prep(rs) for rs in references])
    return sacrebleu_score(merge(stats), smooth_method=smooth_method)


BLEU_MODES = ("coco", "sentence", "sacrebleu")
# sacrebleu's BLEU breakdown (``bleu(mode=sacrebleu)`` only): its n-gram precisions (on the scores'
# scale), brevity penalty, length ratio and hypothesis / reference lengths
BREAKDOWN_KEYS = ("bleu_precision_1", "bleu_precision_2", "bleu_precision_3", "bleu_precision_4",
                  "bleu_bp", "bleu_ratio", "bleu_hyp_len", "bleu_ref_len")


@register
class BLEU(KoreanUnitsMetric, CaptionMetric):
    """BLEU-n (``bleu_1``..``bleu_4``) in every mode is cumulative BLEU of maximum order n:
    brevity penalty x geometric mean of the clipped 1..n-gram precisions — pycocoevalcap's
    ``Bleu(4)`` list, and sacrebleu's BLEU with ``max_ngram_order=n`` (so ``bleu_4`` is
    sacrebleu's BLEU score). They are never single n-gram precisions: in mode sacrebleu those are
    ``bleu_precision_1``..``4`` (sacrebleu's ``precisions``), with ``bleu_bp``, ``bleu_ratio``,
    ``bleu_hyp_len`` and ``bleu_ref_len`` (its BP, ratio, sys_len and ref_len).

    Modes: coco (pycocoevalcap's corpus BLEU), sacrebleu (corpus BLEU with exp smoothing, / 100;
    per item sentence BLEU with effective order), sentence (mean of nltk sentence_bleu with
    method1, spec §5.1).

    Per-item statistics: hypothesis length, closest reference length, clipped matches and
    n-gram totals per order; the corpus score comes from their sums."""

    name = "bleu"
    keys = ("bleu_1", "bleu_2", "bleu_3", "bleu_4") + BREAKDOWN_KEYS
    score_keys = ("bleu_1", "bleu_2", "bleu_3", "bleu_4")
    corpus = True
    params = CaptionMetric.params + (Param("mode", str, "coco", "coco | sentence | sacrebleu", choices=BLEU_MODES),
                                     KoreanUnitsMetric.KO_UNITS)

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        tok = "ko-content" if self.units(b.lang) == "content" else None
        hyps, refs = b.tokens(tok)
        a = bleu_stats_arrays(hyps, refs, MAX_N, b.ngrams(tok, MAX_N) if len(b) else None)
        return Stats({k: a[k] for k in ("hyp_len", "ref_len", "correct", "total")})

    def _compute(self, stats: Stats, corpus: bool):
        mode = self.values["mode"]
        keys = self.keys if mode == "sacrebleu" else self.score_keys
        if not len(stats):
            return {k: float("nan") if corpus else np.zeros(0) for k in keys}
        c = stats.columns
        if corpus and mode != "sentence":   # the score of the summed statistics
            rows = [BleuStats(int(c["hyp_len"].sum()), int(c["ref_len"].sum()),
                              tuple(int(x) for x in c["correct"].sum(axis=0)),
                              tuple(int(x) for x in c["total"].sum(axis=0)))]
        else:
            rows = [BleuStats(int(h), int(r), tuple(cc.tolist()), tuple(tt.tolist()))
                    for h, r, cc, tt in zip(c["hyp_len"], c["ref_len"], c["correct"], c["total"])]
        orders = range(1, len(self.score_keys) + 1)
        if mode == "coco":
            items = [_coco_from(s) for s in rows]
        elif mode == "sentence":
            items = [[nltk_sentence_bleu(s, nltk_weights(n)) for n in orders] for s in rows]
        else:   # sacrebleu: BLEU-n on orders 1..n; per item, sentence BLEU with effective order
            eff = not corpus
            items = [[sacrebleu_score(BleuStats(s.hyp_len, s.ref_len, s.correct[:n], s.total[:n]),
                                      effective_order=eff) / 100.0 for n in orders]
                     + _breakdown(sacrebleu_breakdown(s, effective_order=eff)) for s in rows]
        cols = {k: np.array([it[n] for it in items]) for n, k in enumerate(keys)}
        if not corpus:
            return cols
        return {k: float(np.mean(v) if mode == "sentence" else v[0]) for k, v in cols.items()}

    def score(self, stats: Stats) -> dict[str, float]:
        return self._compute(stats, True)

    def item_scores(self, stats: Stats) -> dict:
        return self._compute(stats, False)


def _breakdown(b: dict) -> list[float]:
    """sacrebleu's breakdown as :data:`BREAKDOWN_KEYS` (precisions on the scores' 0-1 scale)."""
    return [p / 100.0 for p in b["precisions"]] + [float(b[k]) for k in ("bp", "ratio", "sys_len",
                                                                         "ref_len")]
