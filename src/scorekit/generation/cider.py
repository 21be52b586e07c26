"""CIDEr-D and plain CIDEr (spec caption-metrics.md §3), vectorised over sparse n-gram matrices.

For item i with candidate c and references S_i, order n (1..4):

    g_n(s)[w] = tf_s(w) * (log N - log max(1, df(w)))        (tf-idf; N = number of items,
                                                              df = items whose references hold w)
    CIDEr-D_n(c, S_i) = 1/|S_i| sum_j  [sum_w min(g_n(c)[w], g_n(s_j)[w]) g_n(s_j)[w]]
                                       / (||g_n(c)|| ||g_n(s_j)||) * exp(-(l_c - l_j)^2 / (2 sigma^2))
    CIDEr-D(c, S_i) = 10 * mean_n CIDEr-D_n,      corpus score = mean over items.

This is exactly pycocoevalcap's ``Cider`` (which, despite its name, *is* CIDEr-D: clipped counts,
the Gaussian length penalty, sigma 6, the x10). Quirks kept for exactness: the "length" in the
penalty is the number of **bigrams** (pycocoevalcap counts ``n == 1`` with 0-based n), so one-word
and empty captions both have length 0; a cosine with a zero norm is left unnormalised (it is 0).

Plain CIDEr (vrama91/cider ``Cider``; ``clipped=False, length_penalty=False``) drops the clipping
(``g_c * g_s``) and the penalty; the x10 and the division by |S_i| stay. Document frequencies
come from the evaluated references (``df_mode "corpus"``) or from a corpus file
(:func:`load_document_frequency`), e.g. the COCO validation set.

Note the spec's §6.1 ``evaluate_single`` scores CIDEr on one item at a time: with N = 1 every idf
is log 1 - log 1 = 0, so that CIDEr is always 0. scorekit scores the corpus.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scorekit.errors import InputError
from scorekit.generation.batch import CaptionMetric
from scorekit.generation.ngrams import ngram_counts, ngram_matrix
from scorekit.io.atomic import atomic_write, read_text
from scorekit.io.jsonfile import parse_json
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.text.normalize import nfc


@dataclass
class DocumentFrequency:
    """n-gram document frequencies plus the corpus size N they were counted over."""

    df: dict[tuple[str, ...], float]
    n_docs: int


@dataclass
class CiderOutput:
    score: float
    scores: np.ndarray          # per item


def document_frequency(refs_tokens: Sequence[Sequence[Sequence[str]]], n: int = 4) -> DocumentFrequency:
    """Per n-gram, the number of items whose references hold it."""
    items = Counter(g for refs in refs_tokens
                    for g in set().union(*(ngram_counts(r, n) for r in refs)))
    return DocumentFrequency({g: float(c) for g, c in items.items()}, len(refs_tokens))


def save_document_frequency(dfo: DocumentFrequency, path: str | Path) -> None:
    with atomic_write(path) as fh:
        json.dump({"n_docs": dfo.n_docs, "df": {" ".join(g): c for g, c in dfo.df.items()}},
                  fh, ensure_ascii=False)


def load_document_frequency(path: str | Path) -> DocumentFrequency:
    """Read ``{"n_docs": N, "df": {"a man": 12, ...}}`` (n-grams space-joined, tokenised as the
    captions will be). N-grams are normalised like the captions (NFC, invisible characters
    removed, blanks collapsed); a key given twice, or two keys that become one n-gram that way,
    is an error naming the line, as in every other reader."""
    def number(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    data = parse_json(read_text(path, "document-frequency file"), path)
    if not isinstance(data, dict) or "n_docs" not in data or not isinstance(data.get("df"), dict):
        raise InputError('expected JSON {"n_docs": N, "df": {ngram: count}}', path)
    n_docs = data["n_docs"]
    if not number(n_docs) or n_docs != int(n_docs) or n_docs < 1:
        raise InputError(f"n_docs must be an integer >= 1, got {n_docs!r}", path)
    df: dict[tuple[str, ...], float] = {}
    for key, value in data["df"].items():
        if not number(value) or value < 0:
            raise InputError(f"df[{key!r}]: expected a count >= 0, got {value!r}", path)
        gram = tuple(nfc(key).split())
        if not gram:
            raise InputError(f"df: empty n-gram {key!r}", path)
        if gram in df:
            raise InputError(f"df: duplicate n-gram {' '.join(gram)!r} (two keys equal once normalised: "
                             "NFC, invisible characters removed, blanks collapsed)", path)
        df[gram] = float(value)
    return DocumentFrequency(df, int(n_docs))


def cider(hyps_tokens: Sequence[Sequence[str]], refs_tokens: Sequence[Sequence[Sequence[str]]], *,
          n: int = 4, sigma: float = 6.0, clipped: bool = True, length_penalty: bool = True,
          df: DocumentFrequency | None = None, matrix=None) -> CiderOutput:
    """CIDEr-D (defaults) or, with ``clipped=False, length_penalty=False``, plain CIDEr.

    ``matrix``: the :func:`ngram_matrix` (order ``n``) of the hypotheses followed by every
    reference in order, when already built (shared with BLEU); built here otherwise."""
    from scipy import sparse

    if len(hyps_tokens) != len(refs_tokens):
        raise ValueError("one reference list per hypothesis")
    n_items = len(hyps_tokens)
    if n_items == 0:
        return CiderOutput(float("nan"), np.zeros(0))
    if any(len(r) == 0 for r in refs_tokens):
        raise ValueError("every item needs at least one reference")

    # one n-gram matrix over candidates and references: rows 0..n_items-1 are the candidates
    flat_refs = [r for refs in refs_tokens for r in refs]
    ref_item = np.repeat(np.arange(n_items), [len(r) for r in refs_tokens])
    if matrix is not None and (matrix.counts.shape[0] != n_items + len(flat_refs)
                               or int(matrix.order.max(initial=-1)) >= n):
        raise ValueError("the n-gram matrix does not match the hypotheses and references")
    M = matrix if matrix is not None else ngram_matrix(list(hyps_tokens) + flat_refs, n)
    H = M.counts[:n_items]
    R = M.counts[n_items:]
    V = M.counts.shape[1]

    # idf per column: log N - log max(1, df)
    if df is None:
        A = sparse.csr_matrix((np.ones(len(ref_item)), (ref_item, np.arange(len(ref_item)))),
                              shape=(n_items, len(ref_item)))
        present = (A @ (R > 0).astype(float)) > 0
        dfv = np.asarray(present.sum(axis=0), dtype=float).ravel()
    else:
        dfv = np.array([df.df.get(g, 0.0) for g in M.ngrams()], dtype=float)
    idf = float(np.log(float(n_items if df is None else df.n_docs))) - np.log(np.maximum(1.0, dfv))
    O = sparse.csr_matrix((np.ones(V), (np.arange(V), M.order)), shape=(V, n))

    Hw = H.multiply(idf).tocsr()
    Rw = R.multiply(idf).tocsr()
    h_norm = np.sqrt(np.asarray((Hw.multiply(Hw) @ O).todense()))
    r_norm = np.sqrt(np.asarray((Rw.multiply(Rw) @ O).todense()))
    Hrep = Hw[ref_item]
    if clipped:
        # min over the candidate's n-grams only (a reference-only n-gram contributes nothing)
        support = (H[ref_item] != 0).astype(float)
        prod = Hrep.minimum(Rw).multiply(support).multiply(Rw)
    else:
        prod = Hrep.multiply(Rw)
    val = np.asarray((prod @ O).todense())
    denom = h_norm[ref_item] * r_norm
    nz = (h_norm[ref_item] != 0) & (r_norm != 0)
    val = np.where(nz, val / np.where(nz, denom, 1.0), val)
    if length_penalty:
        # pycocoevalcap's "length" is the bigram count
        lens = np.maximum(0, M.lengths - 1).astype(float)
        h_len, r_len = lens[:n_items], lens[n_items:]
        delta = h_len[ref_item] - r_len
        val = val * (np.e ** (-(delta ** 2) / (2 * sigma ** 2)))[:, None]
    sums = np.zeros((n_items, n))
    np.add.at(sums, ref_item, val)
    scores = np.mean(sums, axis=1) / np.array([len(r) for r in refs_tokens], dtype=float) * 10.0
    return CiderOutput(float(np.mean(scores)), scores)


def cider_d(hyps_tokens, refs_tokens, *, sigma: float = 6.0, df: DocumentFrequency | None = None,
            n: int = 4) -> CiderOutput:
    """CIDEr-D = pycocoevalcap ``Cider`` (clipped, Gaussian length penalty, x10)."""
    return cider(hyps_tokens, refs_tokens, n=n, sigma=sigma, df=df)


@register
class CIDEr(CaptionMetric):
    """CIDEr-D (pycocoevalcap Cider): 10 x mean_n clipped tf-idf cosine x Gaussian length penalty
    (sigma 6), idf from the evaluated references (or a document-frequency file); 0..10.

    Per-item statistics are the tokens themselves: the idf is a corpus statistic, so a subset's
    score (a shard, a bootstrap resample) recomputes it from that subset's references."""

    name = "cider"
    kind = "score"
    corpus = True
    params = CaptionMetric.params + (Param("sigma", float, 6.0, "length-penalty width", low=1e-9),
                                     Param("df", object, None, "document-frequency file (default: the references)"))
    clipped = True
    length_penalty = True
    transient = ("_shared", "_last")   # caches of one batch's run stay where they were made

    def _df(self) -> DocumentFrequency | None:
        """The document frequencies of ``df=FILE`` (read once), None for the references'."""
        path = self.values["df"]
        if path and getattr(self, "_df_cache", (None,))[0] != path:
            self._df_cache = (path, load_document_frequency(path))
        return self._df_cache[1] if path else None

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        hyps, refs = b.tokens()
        stats = Stats({"hyp": list(hyps), "refs": list(refs)})
        # the batch's n-gram matrix (shared with BLEU) serves these very columns; a subset or a
        # merge of statistics has new column lists and builds its own
        self._shared = (stats.columns["hyp"], stats.columns["refs"], b.ngrams(None, 4) if len(b) else None)
        return stats

    def _run(self, stats: Stats) -> CiderOutput:
        df = self._df()
        hyps, refs = stats.columns.get("hyp", []), stats.columns.get("refs", [])
        key = (self.values.get("sigma"), self.values["df"])
        last = getattr(self, "_last", None)
        if last is not None and last[0] is hyps and last[1] is refs and last[2] == key:
            return last[3]  # score() and item_scores() of the same statistics: computed once
        shared = getattr(self, "_shared", None)
        matrix = shared[2] if shared is not None and shared[0] is hyps and shared[1] is refs else None
        out = cider(hyps, refs, sigma=self.values.get("sigma", 6.0), clipped=self.clipped,
                    length_penalty=self.length_penalty, df=df, matrix=matrix)
        self._last = (hyps, refs, key, out)
        return out

    def score(self, stats: Stats) -> dict[str, float]:
        return {self.result_keys()[0]: self._run(stats).score}

    def item_scores(self, stats: Stats) -> dict:
        return {self.result_keys()[0]: self._run(stats).scores.copy()}

    def pins(self) -> dict:
        df = self._df()
        if df is None:
            return {}
        # the counts themselves, by hash: a file of the same size and name may hold others
        digest = hashlib.sha256(repr((df.n_docs, sorted(df.df.items()))).encode()).hexdigest()[:12]
        return {"df_docs": df.n_docs, "df_ngrams": len(df.df), "df_hash": digest}


@register
class CIDErD(CIDEr):
    """CIDEr-D under its precise name (the same number as ``cider``)."""

    name = "cider_d"


@register
class CIDErPlain(CIDEr):
    """Original CIDEr (vrama91/cider): 10 x mean_n tf-idf cosine, no clipping, no length penalty."""

    name = "cider_plain"
    params = tuple(p for p in CIDEr.params if p.name != "sigma")   # no length penalty, no sigma
    clipped = False
    length_penalty = False
