"""Classic topic-coherence anchors over a reference corpus, equal to gensim's ``CoherenceModel``.

Measures (Röder et al. 2015 as gensim implements them; ``EPSILON = 1e-12``):

* ``u_mass``  — boolean-document probabilities, one-preceding segmentation:
  mean over ``i > j`` of ``log((D(w_i, w_j)/N + ε) / (D(w_j)/N))``.
* ``c_npmi``  — boolean sliding window (10 tokens), one-one segmentation:
  mean over ordered pairs of ``NPMI = log((P(a,b)+ε)/(P(a)P(b))) / -log(P(a,b)+ε)``.
* ``c_uci``   — the same pairs with plain PMI.
* ``c_v``     — boolean sliding window (110), one-set segmentation, indirect cosine:
  each keyword's context vector ``v_i[j] = NPMI(w_i, w_j)`` over the topic's words (diagonal
  included), the topic's ``u[j] = Σ_i NPMI(w_i, w_j)``; mean over i of ``cos(v_i, u)``.

Counting reproduces gensim's single-process accumulator (``processes=1``) exactly, with the
quirks docs/topics.md lists (absent words dropped, the first topic's ``topn`` cut). Sliding
windows: a document shorter than the window is one window, an empty one too; inside a document
gensim marks a word absent when one copy leaves the window even if another copy is still inside,
so a word counts in window ``k`` iff it occurs in the window and the gap between its latest
occurrence so far and its last occurrence before the window is at least the window size (or it
has none before). Each word's presence is a set of window intervals built from its add/remove
events with one ``lexsort``; all co-occurrences are one sparse (word x window) product.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.topics.batch import TopicMetric

EPSILON = 1e-12
MEASURES = ("c_v", "c_npmi", "c_uci", "u_mass")
WINDOW_SIZES = {"c_v": 110, "c_npmi": 10, "c_uci": 10, "u_mass": None}


# --- corpus tokenisation ---------------------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)


def tokenize_corpus(documents: Sequence[str], tokenizer: str = "auto") -> list[list[str]]:
    """Tokens of each document (NFC first).

    ``whitespace``: split on whitespace (a pre-tokenised corpus, case kept). ``regex``: lower-cased
    ``\\w+`` runs. ``kiwi``: Kiwi morphemes without particles and punctuation. ``auto``: Kiwi for
    documents with Hangul, ``regex`` otherwise.
    """
    from scorekit.text.normalize import nfc

    docs = [nfc(d) for d in documents]
    if tokenizer == "whitespace":
        return [d.split() for d in docs]
    if tokenizer == "regex":
        return [_WORD.findall(d.lower()) for d in docs]
    if tokenizer in ("kiwi", "auto"):
        from scorekit.text import korean

        idx = [i for i, d in enumerate(docs) if tokenizer == "kiwi" or korean.has_hangul(d)]
        out = [_WORD.findall(d.lower()) for d in docs]
        toks = korean.tokenize_batch([docs[i] for i in idx], drop_particles=True, drop_punct=True)
        for i, t in zip(idx, toks):
            out[i] = [w.lower() for w in t]
        return out
    raise UnknownNameError("tokenizer", tokenizer, ["auto", "kiwi", "regex", "whitespace"])


# --- counting ---------------------------------------------------------------------------------------

@dataclass
class Counts:
    """Occurrence statistics of the relevant words: ``occ[i]`` windows (or documents) holding word
    i, ``co[i, j]`` holding both (``co[i, i] = occ[i]``), out of ``num_docs`` virtual documents."""

    words: list[str]
    occ: np.ndarray
    co: np.ndarray
    num_docs: int
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        self.index = {w: i for i, w in enumerate(self.words)}


def _encode(texts: Sequence[Sequence[str]], index: dict[str, int]):
    """Flatten the corpus: doc lengths, and (doc, position, word id) of every relevant token."""
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    docs, pos, ids = [], [], []
    for d, text in enumerate(texts):
        for p, tok in enumerate(text):
            i = index.get(tok)
            if i is not None:
                docs.append(d)
                pos.append(p)
                ids.append(i)
    return (lengths, np.asarray(docs, dtype=np.int64), np.asarray(pos, dtype=np.int64),
            np.asarray(ids, dtype=np.int64))


def _presence_counts(rows: np.ndarray, cols: np.ndarray, n_words: int, n_cols: int):
    from scipy import sparse

    data = np.ones(rows.size, dtype=np.float64)
    mat = sparse.csr_matrix((data, (rows, cols)), shape=(n_words, max(n_cols, 1)))
    mat.sum_duplicates()
    mat.data[:] = 1.0
    occ = np.asarray(mat.sum(axis=1)).ravel()
    co = (mat @ mat.T).toarray()
    return occ.astype(np.int64), np.rint(co).astype(np.int64)


def count_documents(texts: Sequence[Sequence[str]], words: Sequence[str]) -> Counts:
    """Boolean-document counts (gensim's ``p_boolean_document`` / ``CorpusAccumulator``)."""
    words = list(dict.fromkeys(words))
    _, docs, _, ids = _encode(texts, {w: i for i, w in enumerate(words)})
    occ, co = _presence_counts(ids, docs, len(words), len(texts))
    return Counts(words, occ, co, len(texts))


def count_windows(texts: Sequence[Sequence[str]], words: Sequence[str], window_size: int) -> Counts:
    """Boolean sliding-window counts equal to gensim's ``WordOccurrenceAccumulator``."""
    if window_size < 1:
        raise ScorekitError(f"window size must be at least 1, got {window_size}")
    w = int(window_size)
    words = list(dict.fromkeys(words))
    index = {x: i for i, x in enumerate(words)}
    lengths, docs, pos, ids = _encode(texts, index)
    n_win = np.maximum(lengths - w + 1, 1)                     # windows per document (empty -> 1)
    offset = np.concatenate([[0], np.cumsum(n_win)[:-1]])
    total_windows = int(n_win.sum())
    if ids.size == 0:
        return Counts(words, np.zeros(len(words), np.int64), np.zeros((len(words),) * 2, np.int64),
                      total_windows)
    short = lengths[docs] <= w                                  # the whole document is one window
    # long documents: events per (doc, word); add at max(0, p-w+1), remove at p+1 (if a window
    # exists then); at equal steps remove comes first (gensim clears the edge token, then sets
    # the entering one).
    ld, lp, li = docs[~short], pos[~short], ids[~short]
    add_step = np.maximum(0, lp - w + 1)
    rem_ok = lp + 1 <= n_win[ld] - 1
    ev_doc = np.concatenate([ld, ld[rem_ok]])
    ev_word = np.concatenate([li, li[rem_ok]])
    ev_step = np.concatenate([add_step, lp[rem_ok] + 1])
    ev_val = np.concatenate([np.ones(ld.size, bool), np.zeros(int(rem_ok.sum()), bool)])
    order = np.lexsort((ev_val, ev_step, ev_word, ev_doc))     # remove (False) before add (True)
    ev_doc, ev_word, ev_step, ev_val = ev_doc[order], ev_word[order], ev_step[order], ev_val[order]
    same_next = np.zeros(ev_doc.size, bool)
    same_next[:-1] = (ev_doc[1:] == ev_doc[:-1]) & (ev_word[1:] == ev_word[:-1])
    end = np.where(same_next, np.roll(ev_step, -1) - 1, n_win[ev_doc] - 1)
    keep = ev_val & (end >= ev_step)
    start_g = offset[ev_doc[keep]] + ev_step[keep]
    length = end[keep] - ev_step[keep] + 1
    rows_long = np.repeat(ev_word[keep], length)
    # expand intervals into window indices
    first = np.repeat(start_g - np.concatenate([[0], np.cumsum(length)[:-1]]), length)
    cols_long = first + np.arange(int(length.sum()))
    rows = np.concatenate([rows_long, ids[short]])
    cols = np.concatenate([cols_long, offset[docs[short]]])
    occ, co = _presence_counts(rows, cols, len(words), total_windows)
    return Counts(words, occ, co, total_windows)


# --- confirmation measures on counts -----------------------------------------------------------------

def _npmi_matrix(counts: Counts, ids: np.ndarray, normalize: bool = True) -> np.ndarray:
    n = float(counts.num_docs)
    p = counts.occ[ids] / n
    co = counts.co[np.ix_(ids, ids)] / n
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log((co + EPSILON) / (p[:, None] * p[None, :]))
        if not normalize:
            return pmi
        return pmi / (-np.log(co + EPSILON))


def _u_mass(counts: Counts, ids: np.ndarray) -> float:
    n = float(counts.num_docs)
    i, j = np.tril_indices(ids.size, -1)                 # w' = topic[i], w* = topic[j], j < i
    star = counts.occ[ids[j]]
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.log(((counts.co[ids[i], ids[j]] / n) + EPSILON) / (star / n))
    vals = np.where(star == 0, 0.0, vals)
    return float(np.mean(vals)) if vals.size else float("nan")


def _pairwise(counts: Counts, ids: np.ndarray, normalize: bool) -> float:
    m = _npmi_matrix(counts, ids, normalize)
    off = ~np.eye(ids.size, dtype=bool)
    return float(np.mean(m[off])) if ids.size > 1 else float("nan")


def _c_v(counts: Counts, ids: np.ndarray) -> float:
    m = _npmi_matrix(counts, ids, True)                  # v_i = m[i], u = Σ_i m[i]
    u = m.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = (m @ u) / (np.sqrt((m * m).sum(axis=1)) * np.sqrt((u * u).sum()))
    return float(np.mean(cos))


@dataclass
class CoherenceScores:
    """Per-topic coherence, its mean (gensim's ``get_coherence``) and what was dropped."""

    measure: str
    per_topic: np.ndarray
    score: float
    window_size: int | None
    dropped: dict[int, list[str]]       # topic index -> words not in the corpus
    num_docs: int


class KeywordsNotInCorpus(ScorekitError):
    """A topic none of whose keywords occurs in the reference corpus (the CLI names the files)."""


def resolve_topics(topics: Sequence[Sequence[str]], vocabulary: set[str], topn: int | None = 20,
                   names: Sequence[str] | None = None, cut: bool | None = None
                   ) -> tuple[list[list[str]], dict[int, list[str]]]:
    """gensim's topic handling: drop words absent from the corpus, then the ``topn`` cut (when
    the first topic is longer than ``topn``; ``cut`` decides instead, for a shard of a topic set
    whose first topic decided it)."""
    kept, dropped = [], {}
    for i, words in enumerate(topics):
        inside = [w for w in words if w in vocabulary]
        missing = [w for w in words if w not in vocabulary]
        if missing:
            dropped[i] = missing
        if not inside:
            label = names[i] if names is not None else f"#{i + 1}"
            raise KeywordsNotInCorpus(
                f"topic {label}: none of its keywords occurs in the reference corpus "
                f"({', '.join(words[:5])}{', …' if len(words) > 5 else ''})")
        kept.append(inside)
    if topn is not None and kept and (len(kept[0]) > topn if cut is None else cut):
        kept = [t[:topn] for t in kept]
    return kept, dropped


def coherence(topics: Sequence[Sequence[str]], texts: Sequence[Sequence[str]], measure: str = "c_v",
              *, window_size: int | None = None, topn: int | None = 20,
              names: Sequence[str] | None = None, counts: Counts | None = None,
              cut: bool | None = None) -> CoherenceScores:
    """Coherence of each topic over tokenised ``texts``; equal to
    ``CoherenceModel(topics=..., texts=texts, dictionary=Dictionary(texts), coherence=measure,
    window_size=window_size, topn=topn, processes=1)``."""
    if measure not in MEASURES:
        raise UnknownNameError("coherence measure", measure, MEASURES)
    if not topics:
        raise ScorekitError("the topic list is empty")
    vocab = {tok for text in texts for tok in text}
    kept, dropped = resolve_topics(topics, vocab, topn, names, cut)
    relevant = list(dict.fromkeys(w for t in kept for w in t))
    win = None if measure == "u_mass" else window_size or WINDOW_SIZES[measure]
    if counts is None:
        counts = count_documents(texts, relevant) if win is None else count_windows(texts, relevant, win)
    confirm = {"u_mass": _u_mass, "c_v": _c_v, "c_npmi": partial(_pairwise, normalize=True),
               "c_uci": partial(_pairwise, normalize=False)}[measure]
    per_topic = np.array([confirm(counts, np.array([counts.index[w] for w in words], dtype=np.int64))
                          for words in kept], dtype=np.float64)
    return CoherenceScores(measure=measure, per_topic=per_topic, score=float(np.mean(per_topic)),
                           window_size=win, dropped=dropped, num_docs=counts.num_docs)


def topic_diversity(topics: Sequence[Sequence[str]], topk: int | None = 10) -> float:
    """Share of unique words among all topics' top-``topk`` words (Dieng et al. 2020, as OCTIS'
    ``TopicDiversity``): ``|∪ top_k(T_i)| / Σ |top_k(T_i)|`` (= ``/(topk * T)`` when every topic has
    at least ``topk`` words). ``topk=None`` uses every keyword, which makes it ``1 - CD``."""
    if not topics:
        raise ScorekitError("the topic list is empty")
    cut = [list(t) if topk is None else list(t)[:topk] for t in topics]
    total = sum(len(t) for t in cut)
    return len(set().union(*map(set, cut))) / total if total else float("nan")



# --- on the metric contract (over a TopicBatch with its reference corpus) ---

CORPUS_MEASURES = {"npmi": "c_npmi", "c_v": "c_v", "u_mass": "u_mass"}


@register
class CorpusCoherence(TopicMetric):
    """gensim's CoherenceModel over the reference corpus (processes=1): NPMI (c_npmi, window
    10), C_V (window 110) and UMass (document co-occurrence), per topic and their mean (NaN when
    a topic has none, as gensim).

    Keywords absent from the corpus are left out of a topic, as gensim does."""

    name = "coherence"
    keys = ("npmi", "c_v", "u_mass")
    per_topic = True
    params = (Param("topn", int, 20, "gensim's topn: every topic is cut to its first topn words when the "
                    "set's first topic has more in the corpus (decided for the whole set)", low=1),)
    key_info = {"npmi": {"doc": "NPMI coherence (gensim c_npmi, window 10), -1..1."},
                "c_v": {"doc": "C_V coherence (gensim c_v, window 110), 0..1.", "kind": "rate"},
                "u_mass": {"doc": "UMass coherence (gensim u_mass, document co-occurrence), <= 0."}}

    def item_stats(self, batch: Any) -> Stats:
        b = self.batch(batch)
        if b.texts is None:
            raise ScorekitError("the corpus coherences need a reference corpus (--corpus)")
        if not len(b):
            return Stats({**{key: np.zeros(0) for key in CORPUS_MEASURES}, "dropped": []})
        topn = self.values["topn"]
        cut = topn is not None and b.first_in_vocab is not None and b.first_in_vocab > topn
        topics = b.corpus_topics or b.topics
        res = {key: coherence(topics, b.texts, measure, topn=topn, names=b.names, cut=cut)
               for key, measure in CORPUS_MEASURES.items()}
        dropped = res["u_mass"].dropped     # every measure's: the words not in the corpus
        return Stats({**{key: r.per_topic for key, r in res.items()},
                      "dropped": [dropped.get(i, []) for i in range(len(b.topics))]})


@register
class TopicDiversity(TopicMetric):
    """Topic diversity: distinct words in the top-k of every topic / (k x topics) (Dieng et al.
    2020, as OCTIS)."""

    name = "topic_diversity"
    kind = "rate"
    params = (Param("topk", int, 10, "top-k words per topic", low=1),)

    def score(self, stats: Stats) -> dict[str, float]:
        kw = stats.columns["keywords"]
        return {"topic_diversity": topic_diversity(kw, self.values["topk"]) if kw else float("nan")}


__all__ = ["CORPUS_MEASURES", "CorpusCoherence", "TopicDiversity", "EPSILON", "MEASURES", "WINDOW_SIZES",
           "CoherenceScores", "Counts", "coherence", "count_documents", "count_windows", "resolve_topics",
           "tokenize_corpus", "topic_diversity"]
