"""What every caption metric is computed on: a :class:`CaptionBatch` (predictions, their
references, the language and tokenizer, tokens computed once and shared by the metrics), and the
:class:`CaptionMetric` base that the caption metrics (BLEU, METEOR, ROUGE-L, CIDEr, chrF,
BERTScore, CLIPScore) derive from.

Both faces take a batch as a ``CaptionBatch`` or a plain ``(predictions, references)`` pair::

    m = CIDErD(lang="en")
    m((preds, refs))                      # functional: {"cider_d": ...}
    m.update((preds[:100], refs[:100])); m.update((preds[100:], refs[100:])); m.compute()

Tokens: English captions use the COCO tokenizer (as pycocoevalcap does before BLEU/CIDEr), Korean
ones Kiwi morphs (punctuation dropped, particles kept, like the spec's ``okt.morphs``).

Korean ROUGE/BLEU units (issue #15, :class:`KoreanUnitsMetric`): ``content`` units (the default)
or ``surface`` morphs, as in scorekit 0.1 — chosen on the Korean pair set (docs/caption.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.generation.ngrams import ngram_matrix
from scorekit.metrics.base import Metric, Param, Stats
from scorekit.text.tokenizers import (BATCH_TOKENIZERS, default_tokenizer, get_tokenizer,
                                       tokenize_batch)

LANGS = ("ko", "en")


@dataclass
class CaptionBatch:
    predictions: list[str]
    references: list[list[str]]
    lang: str = "en"
    tokenizer: str | None = None          # None: the language's default
    media: list | None = None             # CLIPScore: one image/video per item
    media_kind: str = "images"
    _tokens: dict = field(default_factory=dict, repr=False)   # tokenizer -> (hyps, refs)
    _ngrams: dict = field(default_factory=dict, repr=False)   # (tokenizer, max_n) -> NgramMatrix
    _models: dict = field(default_factory=dict, repr=False)   # model outputs shared by metrics (BERTScore's)

    def __post_init__(self) -> None:
        if self.lang not in LANGS:
            raise UnknownNameError("language", self.lang, LANGS)
        self.predictions = list(self.predictions)
        self.references = [[r] if isinstance(r, str) else list(r) for r in self.references]
        if len(self.predictions) != len(self.references):
            raise ScorekitError(f"{len(self.predictions)} predictions but {len(self.references)} reference lists")
        for i, refs in enumerate(self.references):
            if not refs:
                raise ScorekitError(f"item {i}: empty reference list")

    def __len__(self) -> int:
        return len(self.predictions)

    def _sliced(self, a: int, b: int) -> dict:
        return {"predictions": self.predictions[a:b], "references": self.references[a:b],
                "media": None if self.media is None else list(self.media[a:b]), "_tokens": {}, "_ngrams": {},
                "_models": {}}

    def slice(self, a: int, b: int) -> "CaptionBatch":
        """Items ``a..b-1`` as a batch of their own (a shard; nothing computed carried over)."""
        return replace(self, **self._sliced(a, b))

    @property
    def tokenizer_name(self) -> str:
        return self.tokenizer or default_tokenizer(self.lang)

    def zero_empty(self, values) -> np.ndarray:
        """Empty predictions score 0 (and are counted in the mean)."""
        values = np.asarray(values, dtype=np.float64).copy()
        if len(values):
            values[np.array([not p.strip() for p in self.predictions], dtype=bool)] = 0.0
        return values

    def per_text_tokenizer(self):
        """The tokenizer as a ``str -> list[str]`` function giving what :meth:`tokens` gives
        text by text, or None for the batch tokenizers (Kiwi) and once :meth:`tokens` has run."""
        name = self.tokenizer_name
        return None if name in BATCH_TOKENIZERS or name in self._tokens else get_tokenizer(name)

    def tokens(self, tokenizer: str | None = None) -> tuple[list[list[str]], list[list[list[str]]]]:
        """(prediction tokens, reference tokens) with the batch's tokenizer (or ``tokenizer``),
        computed once per tokenizer."""
        name = tokenizer or self.tokenizer_name
        if name not in self._tokens:
            flat = list(self.predictions) + [r for refs in self.references for r in refs]
            toks = tokenize_batch(flat, name) if flat else []
            ends = list(accumulate(map(len, self.references), initial=len(self.predictions)))
            self._tokens[name] = (toks[:ends[0]], [toks[a:b] for a, b in zip(ends, ends[1:])])
        return self._tokens[name]

    def ngrams(self, tokenizer: str | None = None, max_n: int = 4):
        """One :class:`~scorekit.generation.ngrams.NgramMatrix` over the prediction tokens then
        every reference's (rows ``0..n-1`` the predictions, then the references in order),
        built once per tokenizer and shared by BLEU and CIDEr."""
        name = tokenizer or self.tokenizer_name
        key = (name, max_n)
        if key not in self._ngrams:
            hyps, refs = self.tokens(name)
            self._ngrams[key] = ngram_matrix(list(hyps) + [r for rs in refs for r in rs], max_n)
        return self._ngrams[key]


class CaptionMetric(Metric):
    """Base of the caption metrics. Per-item metrics keep one column per result key and score
    the mean (this class's :meth:`score`); corpus metrics (BLEU, CIDEr, chrF) override it."""

    family = "caption"
    params: tuple[Param, ...] = (Param("lang", str, "en", "language: en or ko", choices=LANGS, batch=True),
                                 Param("tokenizer", str, None, "tokens for n-gram metrics (default per language)",
                                       batch=True))

    # the same, for a metric that tokenises in its own way (chrF's characters, rouge-score's
    # tokens): the batch's tokenizer changes none of its numbers, so it is not pinned
    own_tokens: tuple[Param, ...] = tuple(replace(p, signature=False) if p.name == "tokenizer" else p
                                          for p in params)

    transient: tuple[str, ...] = ()   # per-process caches (a model, one batch's results): not pickled

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self.transient}

    def batch(self, batch: Any) -> CaptionBatch:
        if isinstance(batch, CaptionBatch):
            return batch
        if isinstance(batch, dict):
            batch = (batch["predictions"], batch["references"])
        try:
            predictions, references = batch
        except (TypeError, ValueError):
            raise ScorekitError(f"{self.name}: a batch is a CaptionBatch or a (predictions, references) pair") from None
        return CaptionBatch(predictions, references, self.values["lang"], self.values["tokenizer"])

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {k: np.asarray(stats.columns[k], dtype=np.float64) for k in self.result_keys()
                if k in stats.columns}

    def score(self, stats: Stats) -> dict[str, float]:
        return {k: float(np.mean(v)) if len(v) else float("nan") for k, v in self.item_scores(stats).items()}


KOREAN_UNITS = ("surface", "content")
DEFAULT_KOREAN_UNITS = "content"


def check_units(units: str) -> str:
    if units not in KOREAN_UNITS:
        raise UnknownNameError("Korean ROUGE units", units, KOREAN_UNITS)
    return units


def korean_units(lang: str, tokenizer: str | None, units: str | None) -> str | None:
    """Units of Korean ROUGE/BLEU (issue #15): ``content`` (the default, chosen on the Korean
    pair set, docs/caption.md) or ``surface`` morphs; None when not Korean or a tokenizer was
    named explicitly."""
    if lang != "ko" or tokenizer:
        return None
    return check_units(units or DEFAULT_KOREAN_UNITS)


def korean_units_field(lang: str, tokenizer: str | None, units: str | None) -> dict[str, str]:
    """The signature field for :func:`korean_units` (empty when it does not apply)."""
    chosen = korean_units(lang, tokenizer, units)
    if chosen is None:
        return {}
    from scorekit.text.korean_units import UNITS_VERSION

    return {"ko_units": chosen if chosen == "surface" else f"content{UNITS_VERSION}"}


class KoreanUnitsMetric:
    """Mixin of the caption metrics whose Korean tokens are units (BLEU, ROUGE-L): the ``ko_units``
    parameter, refused where it does not apply (English, or a tokenizer named for the batch, which
    names the tokens itself), the units chosen and their signature pin."""

    KO_UNITS = Param("ko_units", str, None, "Korean units: content (default) or surface",
                     choices=KOREAN_UNITS)

    def __init__(self, **params):
        super().__init__(**params)
        v = self.values
        if v["ko_units"] is not None and v["lang"] != "ko":
            raise ScorekitError(f"{self.name}(ko_units=...) applies to Korean captions only (--lang ko)")
        if v["ko_units"] is not None and v["tokenizer"]:
            raise ScorekitError(f"{self.name}(ko_units=...) applies to Kiwi's units; --tokenizer "
                                f"{v['tokenizer']} names the tokens itself: give one or the other")

    def units(self, lang: str) -> str | None:
        """:func:`korean_units` of a batch in ``lang``."""
        return korean_units(lang, self.values["tokenizer"], self.values["ko_units"])

    def pins(self) -> dict:
        return korean_units_field(self.values["lang"], self.values["tokenizer"], self.values["ko_units"])
