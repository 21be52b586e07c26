"""The batch the topic measures (:mod:`scorekit.topics.semantic`, :mod:`scorekit.topics.coherence`)
compute over, and their base class: one item per topic (its keywords, its keyword embeddings,
and — for the corpus anchors — the reference corpus every topic shares).

Per-item statistics are per-topic quantities (SC with its PageRank weights and cosines, the topic
centroid, the keyword set, the gensim coherences), so shards of a topic set merge by concatenation
and every set-level measure (SD over all pairs, CD, topic diversity) is scored once from the
merged rows: the same numbers in one process, in forked parts and on Ray.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics.base import Metric, Stats


DEFAULT_EMBEDDER = (None, None)   # (model, num_layers): the shipped all-MiniLM-L6-v2, its last layer


class _NfcTexts(list):
    """A tokenised corpus already in NFC (shards share it without normalising it again)."""

    normalized = True


@dataclass
class TopicBatch:
    """A topic set to score: keywords per topic, each topic's ``(|W|, d)`` keyword embeddings
    (``word_vectors``: one list every measure uses, or ``{embedder: list}``, one list per embedder
    configuration ``(model, num_layers)`` the measures name — computed once each), topic names, and for the corpus anchors the tokenised reference corpus (``texts``), the
    topics as the corpus is matched (``corpus_topics``: lower-cased for the lower-casing
    tokenizers) and ``first_in_vocab``: how many words of the whole set's first topic the corpus
    has (gensim cuts every topic to ``topn`` when that is more than ``topn``; decided for the whole
    set and given to every shard, while ``topn`` is the coherence measure's parameter)."""

    topics: list[list[str]]
    word_vectors: list[np.ndarray] | dict[tuple, list[np.ndarray]] | None = None
    names: list[str] | None = None
    texts: list[list[str]] | None = field(default=None, repr=False)
    corpus_topics: list[list[str]] | None = None
    first_in_vocab: int | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        from scorekit.text.normalize import nfc

        self.topics = [[nfc(w) for w in t] for t in self.topics]     # keywords and corpus meet in NFC
        if self.corpus_topics is not None:
            self.corpus_topics = [[nfc(w) for w in t] for t in self.corpus_topics]
        if self.texts is not None and not getattr(self.texts, "normalized", False):
            self.texts = _NfcTexts([[nfc(w) for w in doc] for doc in self.texts])
        if self.texts is not None and self.first_in_vocab is None and self.topics:   # every shard's
            vocab = {tok for doc in self.texts for tok in doc}
            first = (self.corpus_topics or self.topics)[0]
            self.first_in_vocab = sum(w in vocab for w in first)
        self.names = list(self.names) if self.names is not None else [f"t{i + 1}" for i in range(len(self.topics))]
        sets = self.word_vectors.values() if isinstance(self.word_vectors, dict) else [self.word_vectors]
        if any(v is not None and len(v) != len(self.topics) for v in sets):
            raise ScorekitError("one embedding matrix per topic expected")

    def __len__(self) -> int:
        return len(self.topics)

    def slice(self, a: int, b: int) -> "TopicBatch":
        vec = self.word_vectors
        vec = {k: v[a:b] for k, v in vec.items()} if isinstance(vec, dict) else None if vec is None else vec[a:b]
        return TopicBatch(self.topics[a:b], vec,
                          self.names[a:b], self.texts, None if self.corpus_topics is None else self.corpus_topics[a:b],
                          self.first_in_vocab)

    def centres(self, embedder: tuple | None = None) -> np.ndarray:
        """``e_T`` of every topic (the mean of its keyword embeddings), computed once per embedder,
        stacked by size as :func:`~scorekit.topics.semantic.semantic_coherence` computes them (the
        same bits)."""
        key = ("centres", embedder if isinstance(self.word_vectors, dict) else None)
        if key not in self._cache:
            vectors = self.vectors(embedder)
            out = np.empty((len(vectors), vectors[0].shape[1])) if vectors else np.zeros((0, 0))
            by_size: dict[int, list[int]] = {}
            for i, m in enumerate(vectors):
                by_size.setdefault(m.shape[0], []).append(i)
            for idx in by_size.values():
                out[idx] = np.stack([np.asarray(vectors[i], dtype=np.float64) for i in idx]).mean(axis=1)
            self._cache[key] = out
        return self._cache[key]

    def vectors(self, embedder: tuple | None = None) -> list[np.ndarray]:
        """The keyword embeddings of ``embedder`` (``(model, num_layers)``; default the shipped
        model); a single list given for the batch serves every embedder."""
        if self.word_vectors is None:
            raise ScorekitError("the semantic topic measures need keyword embeddings")
        if isinstance(self.word_vectors, dict):
            return self.word_vectors[embedder or DEFAULT_EMBEDDER]
        return self.word_vectors


class TopicMetric(Metric):
    """Base of the topic measures: a batch is a :class:`TopicBatch` (or ``(topics, vectors)``).
    A measure over keyword embeddings declares ``model`` and ``num_layers``
    (:data:`scorekit.topics.semantic.EMBEDDER`); ``embedded_with`` is what the driver embedded its
    keywords with (the encoder's signature fields), pinned in its signature."""

    family = "topics"
    kind = "score"
    embedded_with: dict | None = None
    per_topic = False   # True: each key is a column of per-topic values, the model's value their mean

    def embedder(self) -> tuple | None:
        """``(model, num_layers)`` of a measure over keyword embeddings; None for one that reads none."""
        v = self.values
        return (v["model"], v["num_layers"]) if "model" in v else None

    def pins(self) -> dict:
        return dict(self.embedded_with or {})

    def _part(self, cls: type["TopicMetric"]) -> "TopicMetric":
        """A measure this one is derived from, with this one's values of its parameters."""
        return cls(**{p.name: self.values[p.name] for p in cls.params if p.name in self.values})

    def batch(self, batch: Any) -> TopicBatch:
        if isinstance(batch, TopicBatch):
            return batch
        topics, vectors = batch
        return TopicBatch(topics, vectors)

    def item_stats(self, batch: Any) -> Stats:
        """The keyword sets (what a set-level measure over keywords reads)."""
        return Stats({"keywords": list(self.batch(batch).topics)})

    def score(self, stats: Stats) -> dict[str, float]:
        return {k: mean_or_nan(stats.columns[k]) for k in self.result_keys()}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        if not self.per_topic:
            return {}   # a set-level measure: no per-topic value
        return {k: np.asarray(stats.columns[k], dtype=np.float64) for k in self.result_keys()}


def mean_or_nan(x: np.ndarray) -> float:
    return float(np.mean(x)) if len(x) else float("nan")


__all__ = ["DEFAULT_EMBEDDER", "TopicBatch", "TopicMetric", "mean_or_nan"]
