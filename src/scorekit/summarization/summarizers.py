"""n-word summarisers for the magic-n sweep (nword-summarization.md, Phase 1 §4; Phase 2 §4).

* ``lead``: the first ``n`` words of the document.
* ``textrank``: sentences scored by PageRank over the SBERT cosine-similarity graph
  (:func:`textrank_scores`), then :func:`compress_to_n_words` (exactly ``n`` words).
* ``centroid``: sentences scored by the cosine of their embedding to the document's mean sentence
  embedding (:func:`centroid_scores`), then the same :func:`compress_to_n_words`.
* ``random``: ``n`` words drawn by a permutation of word positions seeded by the seed and the
  document text, kept in document order (nested across n, identical across runs and data orders).

A document with fewer than ``n`` words is summarised whole. ``prepare(documents)`` does the
per-document work once, ``summarize(prepared, n)`` is then cheap for every ``n``. Names follow the
metric-name grammar (:func:`parse_summarizers`); without ``encoder=DIR`` TextRank and centroid
embed with the shipped all-MiniLM-L6-v2.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics.registry import split_name, split_specs
from scorekit.neural.encoder import Encoder
from scorekit.registry import Registry
from scorekit.summarization.sentences import split_sentences, words
from scorekit.text.normalize import nfc

EmbedFn = Callable[[Sequence[str]], np.ndarray]


def check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
        raise ScorekitError(f"summary length n must be a positive integer, got {n!r}")
    return int(n)


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


def centroid_scores(sentence_embeddings: np.ndarray) -> np.ndarray:
    """Importance of each sentence: the cosine between its embedding and the document's centroid
    (the mean of its sentence embeddings). A zero vector scores 0."""
    x = np.asarray(sentence_embeddings, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"expected a (sentences, dim) array, got shape {x.shape}")
    if len(x) == 0:
        return np.zeros(0)
    centroid = x.mean(axis=0)
    denom = np.linalg.norm(x, axis=1) * np.linalg.norm(centroid)
    return np.divide(x @ centroid, denom, out=np.zeros(len(x)), where=denom > 0)


def rank_order(scores: np.ndarray) -> np.ndarray:
    """Sentence indices by decreasing score; ties go to the earlier sentence."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def compress_to_n_words(sentences: Sequence[str], order: Sequence[int], n: int) -> str:
    """Exactly ``min(n, total words)`` words: whole sentences taken in ``order`` until the
    budget is spent, the last one truncated to its first words; output in document order."""
    remaining = check_n(n)
    sent_words = [words(s) for s in sentences]
    take: dict[int, int] = {}
    for i in map(int, order):
        k = min(len(sent_words[i]), remaining)
        if k:
            take[i] = k
            remaining -= k
    return " ".join(w for i in sorted(take) for w in sent_words[i][:take[i]])


@dataclass
class Prepared:
    """Per-document state a summariser computes once and reuses for every n."""

    document: str
    n_words: int
    sentences: list[str] = field(default_factory=list)
    order: np.ndarray | None = None    # sentence ranking (TextRank, centroid) / word permutation (random)


class LeadSummarizer:
    """The first ``n`` words. Also cuts an external system's summaries to ``n`` words (the sweep's
    ``--system``): the same word counting as lead-n."""

    name = "lead"
    params: dict[str, type] = {}

    def prepare(self, documents: Sequence[str]) -> list[Prepared]:
        return [Prepared(nfc(d), len(words(d))) for d in documents]

    def summarize(self, prepared: Prepared, n: int) -> str:
        return " ".join(words(prepared.document)[:check_n(n)])

    def signature_params(self) -> dict:
        return {"summarizer": "lead"}


class RandomSummarizer:
    name = "random"
    params = {"seed": int}

    def __init__(self, seed: int = 42):
        self.seed = int(seed)
        if not 0 <= self.seed <= 0xFFFFFFFF:   # numpy's seed words; a negative one was a traceback
            raise ScorekitError(f"random summarizer seed must be between 0 and 4294967295, got {seed}")

    def prepare(self, documents: Sequence[str]) -> list[Prepared]:
        docs = [nfc(d) for d in documents]
        return [Prepared(d, len(words(d)), order=np.random.default_rng(
            [self.seed, zlib.crc32(d.encode("utf-8"))]).permutation(len(words(d)))) for d in docs]

    def summarize(self, prepared: Prepared, n: int) -> str:
        w = words(prepared.document)
        return " ".join(w[i] for i in np.sort(prepared.order[:check_n(n)]))

    def signature_params(self) -> dict:
        return {"summarizer": "random", "seed": self.seed}


class _SentenceRanker:
    """Sentences embedded once (batched over every document), ranked by :meth:`score`, then
    :func:`compress_to_n_words`. ``embed`` maps texts to an array; None = the shipped MiniLM."""

    name = ""

    def __init__(self, embed: EmbedFn | None = None, *, lang: str = "en", model_name: str | None = None):
        self._embed = embed
        self.model_name = model_name
        self.lang = lang

    @property
    def embed(self) -> EmbedFn:
        """The sentence encoder; the shipped MiniLM loaded on first use, named with its folder's
        content hash (``all-MiniLM-L6-v2@<hash>``)."""
        if self._embed is None:
            enc = Encoder.load()
            self._embed, self.model_name = enc.embed, f"{enc.name}@{enc.content_hash}"
        return self._embed

    def prepare(self, documents: Sequence[str]) -> list[Prepared]:
        docs = [nfc(d) for d in documents]
        sents = [split_sentences(d, self.lang) for d in docs]
        flat = [s for ss in sents for s in ss]
        emb = np.asarray(self.embed(flat)) if flat else np.zeros((0, 1))
        out = []
        for d, ss, end in zip(docs, sents, np.cumsum([len(ss) for ss in sents])):
            scores = self.score(emb[end - len(ss):end]) if len(ss) else np.zeros(0)
            out.append(Prepared(d, len(words(d)), ss, rank_order(scores)))
        return out

    def summarize(self, prepared: Prepared, n: int) -> str:
        return compress_to_n_words(prepared.sentences, prepared.order, n)


class TextRankSummarizer(_SentenceRanker):
    name = "textrank"
    params = {"encoder": str, "damping": float}

    def __init__(self, embed: EmbedFn | None = None, *, damping: float = 0.85, lang: str = "en",
                 model_name: str | None = None):
        super().__init__(embed, lang=lang, model_name=model_name)
        if not 0 < damping < 1:
            raise ScorekitError(f"textrank damping must be between 0 and 1, got {damping}")
        self.damping = damping

    def score(self, sentence_embeddings: np.ndarray) -> np.ndarray:
        return textrank_scores(sentence_embeddings, damping=self.damping)

    def signature_params(self) -> dict:
        return {"summarizer": "textrank", "encoder": self.model_name or "custom",
                "damping": self.damping}


class CentroidSummarizer(_SentenceRanker):
    name = "centroid"
    params = {"encoder": str}

    def score(self, sentence_embeddings: np.ndarray) -> np.ndarray:
        return centroid_scores(sentence_embeddings)

    def signature_params(self) -> dict:
        return {"summarizer": "centroid", "encoder": self.model_name or "custom"}


SUMMARIZERS: Registry[type] = Registry("summarizer")
for _cls in (LeadSummarizer, TextRankSummarizer, CentroidSummarizer, RandomSummarizer):
    SUMMARIZERS.register(_cls.name, _cls)


@dataclass(frozen=True)
class SummarizerSpec:
    """One summariser as written (``textrank(encoder=models/bert-base-uncased)``): its registry
    name, typed parameters and the label its curves, table rows and per-item keys carry."""

    text: str
    name: str
    params: tuple[tuple[str, Any], ...] = ()
    label: str = ""

    @property
    def encoder(self) -> str | None:
        return dict(self.params).get("encoder")


def _label(name: str, params: dict[str, Any]) -> str:
    shown = [(Path(os.path.expanduser(str(v)).rstrip("/\\")).name or str(v)) if k == "encoder"
             else f"{k}={v}" for k, v in params.items()]
    return f"{name}({', '.join(shown)})" if shown else name


def parse_summarizer(text: str) -> SummarizerSpec:
    """One summariser in the metric-name grammar: ``name`` or ``name(param=value, ...)``."""
    name, raw = split_name(text)
    cls = SUMMARIZERS.get(name.lower())
    if "k" in raw:
        raise ScorekitError(f"summarizer {text!r}: takes no @ suffix (the sweep's --n sets the lengths)")
    params: dict[str, Any] = {}
    for key, value in raw.items():
        kind = cls.params.get(key)
        if kind is None:
            takes = ", ".join(cls.params) or "no parameters"
            raise ScorekitError(f"summarizer {text!r}: unknown parameter {key!r} ({cls.name} takes {takes})")
        try:
            params[key] = kind(value.strip("'\""))
        except ValueError:
            raise ScorekitError(f"summarizer {text!r}: {key} must be {'an integer' if kind is int else 'a number'},"
                                f" got {value!r}") from None
    return SummarizerSpec(text.strip(), cls.name, tuple(params.items()), _label(cls.name, params))


def parse_summarizers(names: str | Sequence[str | SummarizerSpec]) -> list[SummarizerSpec]:
    """``"lead,textrank(encoder=DIR),centroid(encoder=DIR)"`` (commas inside parentheses stay) or
    a list of names/specs -> specs, duplicates dropped. Two specs whose short labels collide (two
    folders of the same name) are labelled as written."""
    items = split_specs(names) if isinstance(names, str) else list(names)
    specs = [s if isinstance(s, SummarizerSpec) else parse_summarizer(str(s)) for s in items]
    unique = list({(s.name, s.params): s for s in specs}.values())
    if not unique:
        raise ScorekitError("--summarizer: no summariser given")
    labels = [s.label for s in unique]
    return [SummarizerSpec(s.text, s.name, s.params, s.text) if labels.count(s.label) > 1 else s
            for s in unique]


def make_summarizer(spec: str | SummarizerSpec, *, embed: EmbedFn | None = None, seed: int = 42,
                    lang: str = "en", model_name: str | None = None):
    """A summariser from its spec. ``embed`` (with ``model_name`` for the signature) is the
    sentence encoder of TextRank/centroid — the sweep passes the shared one of ``encoder=``;
    ``seed`` is the random summariser's unless the spec gives one."""
    spec = spec if isinstance(spec, SummarizerSpec) else parse_summarizer(spec)
    params = {k: v for k, v in spec.params if k != "encoder"}
    cls = SUMMARIZERS.get(spec.name)
    if cls is RandomSummarizer:
        return RandomSummarizer(params.get("seed", seed))
    if issubclass(cls, _SentenceRanker):
        return cls(embed, lang=lang, model_name=model_name, **params)
    return cls(**params)
