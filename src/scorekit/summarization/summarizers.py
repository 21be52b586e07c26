"""n-word summarisers for the magic-n sweep (nword-summarization.md, Phase 1 §4; Phase 2 §4).

* ``lead``: the first ``n`` words of the document.
* ``textrank``: sentences scored by PageRank over the SBERT cosine-similarity graph
  (:func:`textrank_scores`), then :func:`compress_to_n_words` — whole sentences in rank order,
  the last one cut to fit, printed in document order — so the summary has exactly ``n`` words.
* ``random``: ``n`` words drawn uniformly without replacement, kept in document order; the draw
  is a seeded permutation of word positions (seed and document text), so summaries are nested
  (the words at ``n`` contain those at ``n - 2``) and identical across runs and data orders.

A document with fewer than ``n`` words is summarised as the whole document (every summariser);
the sweep counts such cases (:attr:`Prepared.n_words` lets callers check).

Each summariser has two steps: ``prepare(documents)`` does the per-document work once (sentence
splitting, embedding — batched over all documents — and ranking), ``summarize(prepared, n)`` is
then cheap for every ``n``. The Phase-2 RL summariser reuses :func:`textrank_scores`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.registry import Registry
from scorekit.summarization.sentences import split_sentences, words
from scorekit.text.normalize import nfc

EmbedFn = Callable[[Sequence[str]], np.ndarray]


def check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
        raise ScorekitError(f"summary length n must be a positive integer, got {n!r}")
    return int(n)


# --------------------------------------------------------------------------- TextRank

def similarity_graph(sentence_embeddings: np.ndarray) -> np.ndarray:
    """Edge weights: cosine similarity, negatives clipped to 0 (PageRank needs non-negative
    weights), no self-loops."""
    x = np.asarray(sentence_embeddings, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    x = np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
    sim = x @ x.T
    np.fill_diagonal(sim, 0.0)
    return np.clip(sim, 0.0, None)


def pagerank(weights: np.ndarray, damping: float = 0.85) -> np.ndarray:
    """PageRank of a weighted graph, solved exactly: ``x = d x P + (1 - d)/N``, ``sum x = 1``.

    ``P`` is the row-normalised weight matrix; a node without out-edges links to every node
    uniformly (networkx's default for dangling nodes), so this equals ``networkx.pagerank``.
    """
    w = np.asarray(weights, dtype=np.float64)
    n = w.shape[0]
    if n == 0:
        return np.zeros(0)
    rows = w.sum(axis=1, keepdims=True)
    p = np.where(rows > 0, w / np.where(rows > 0, rows, 1.0), 1.0 / n)
    x = np.linalg.solve(np.eye(n) - damping * p.T, np.full(n, (1.0 - damping) / n))
    return x / x.sum()


def textrank_scores(sentence_embeddings: np.ndarray, *, damping: float = 0.85) -> np.ndarray:
    """TextRank importance of each sentence (sums to 1) from its embedding: PageRank over the
    cosine-similarity graph (:func:`similarity_graph`)."""
    emb = np.asarray(sentence_embeddings)
    if emb.ndim != 2:
        raise ValueError(f"expected a (sentences, dim) array, got shape {emb.shape}")
    return pagerank(similarity_graph(emb), damping)


def rank_order(scores: np.ndarray) -> np.ndarray:
    """Sentence indices by decreasing score; ties go to the earlier sentence."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def compress_to_n_words(sentences: Sequence[str], order: Sequence[int], n: int) -> str:
    """Exactly ``min(n, total words)`` words: whole sentences taken in ``order`` until the
    budget is spent, the last one truncated to its first words; output in document order."""
    n = check_n(n)
    sent_words = [words(s) for s in sentences]
    take: dict[int, int] = {}
    remaining = n
    for i in order:
        if remaining == 0:
            break
        i = int(i)
        k = min(len(sent_words[i]), remaining)
        if k:
            take[i] = k
            remaining -= k
    return " ".join(w for i in sorted(take) for w in sent_words[i][:take[i]])


# --------------------------------------------------------------------------- summarisers

@dataclass
class Prepared:
    """Per-document state a summariser computes once and reuses for every n."""

    document: str
    n_words: int
    sentences: list[str] = field(default_factory=list)
    scores: np.ndarray | None = None   # TextRank: per-sentence importance
    order: np.ndarray | None = None    # sentence ranking (TextRank) / word permutation (random)


class LeadSummarizer:
    name = "lead"

    def prepare(self, documents: Sequence[str]) -> list[Prepared]:
        return [Prepared(nfc(d), len(words(d))) for d in documents]

    def summarize(self, prepared: Prepared, n: int) -> str:
        return " ".join(words(prepared.document)[:check_n(n)])

    def signature_params(self) -> dict:
        return {"summarizer": "lead"}


class RandomSummarizer:
    name = "random"

    def __init__(self, seed: int = 42):
        self.seed = int(seed)

    def prepare(self, documents: Sequence[str]) -> list[Prepared]:
        out = []
        for d in documents:
            d = nfc(d)
            m = len(words(d))
            rng = np.random.default_rng([self.seed, zlib.crc32(d.encode("utf-8"))])
            out.append(Prepared(d, m, order=rng.permutation(m)))
        return out

    def summarize(self, prepared: Prepared, n: int) -> str:
        n = check_n(n)
        w = words(prepared.document)
        return " ".join(w[i] for i in np.sort(prepared.order[:n]))

    def signature_params(self) -> dict:
        return {"summarizer": "random", "seed": self.seed}


def default_embed() -> tuple[EmbedFn, str]:
    """The shared SBERT encoder (all-MiniLM-L6-v2 by default), loaded lazily."""
    from scorekit.neural.encoder import Encoder

    enc = Encoder.load()
    return enc.embed, enc.name


class TextRankSummarizer:
    name = "textrank"

    def __init__(self, embed: EmbedFn | None = None, *, damping: float = 0.85, lang: str = "en",
                 model_name: str | None = None):
        self._embed = embed
        self.model_name = model_name
        self.damping = damping
        self.lang = lang

    @property
    def embed(self) -> EmbedFn:
        if self._embed is None:
            self._embed, self.model_name = default_embed()
        return self._embed

    def prepare(self, documents: Sequence[str]) -> list[Prepared]:
        docs = [nfc(d) for d in documents]
        sents = [split_sentences(d, self.lang) for d in docs]
        flat = [s for ss in sents for s in ss]
        emb = np.asarray(self.embed(flat)) if flat else np.zeros((0, 1))
        out, start = [], 0
        for d, ss in zip(docs, sents):
            e = emb[start:start + len(ss)]
            start += len(ss)
            scores = textrank_scores(e, damping=self.damping) if len(ss) else np.zeros(0)
            out.append(Prepared(d, len(words(d)), ss, scores, rank_order(scores)))
        return out

    def summarize(self, prepared: Prepared, n: int) -> str:
        return compress_to_n_words(prepared.sentences, prepared.order, n)

    def signature_params(self) -> dict:
        return {"summarizer": "textrank", "encoder": self.model_name or "custom",
                "damping": self.damping}


SUMMARIZERS: Registry[type] = Registry("summarizer")
SUMMARIZERS.register("lead", LeadSummarizer)
SUMMARIZERS.register("textrank", TextRankSummarizer)
SUMMARIZERS.register("random", RandomSummarizer)


def make_summarizer(name: str, *, embed: EmbedFn | None = None, seed: int = 42, lang: str = "en"):
    cls = SUMMARIZERS.get(name)
    if cls is TextRankSummarizer:
        return TextRankSummarizer(embed, lang=lang)
    if cls is RandomSummarizer:
        return RandomSummarizer(seed)
    return cls()
