"""METEOR (spec caption-metrics §2; the primary caption metric).

For one hypothesis ``h`` and one reference ``r`` (Lavie & Agarwal 2007, as nltk computes it)::

    m       = |alignment(h, r)|                    (unigram matches, at most one per word)
    P = m / |h|,   R = m / |r|
    Fmean   = P * R / (alpha * P + (1 - alpha) * R)          alpha = 0.9
    Penalty = gamma * (chunks / m) ** beta                    gamma = 0.5, beta = 3
    METEOR  = Fmean * (1 - Penalty)        (0 when m = 0 or a side is empty)

and with several references the best (max) score. ``chunks`` is the number of runs of matches
adjacent in both sentences once the matches are sorted by hypothesis position.

The alignment is nltk's (``nltk.translate.meteor_score``, nltk >= 3.9), reproduced exactly: three
greedy stages, each run on the words left unmatched by the previous one, each walking the
hypothesis from its LAST word to its first and matching a word to the highest-positioned
still-free reference word it may match:

1. exact  — the lower-cased words are equal;
2. stem   — their Porter stems (nltk's ``PorterStemmer``) are equal;
3. synonym — the reference word's stem is a WordNet lemma name (without ``_``) of a synset of the
   hypothesis word's stem (nltk passes the *stemmed* leftovers to this stage), read from Debian's
   WordNet 3.0 files by :mod:`scorekit.text.wordnet` instead of nltk_data.

Korean (``lang="ko"``) runs the same alignment and formula on the spec's EnhancedKoreanMETEOR
units (§2.5): see :mod:`scorekit.generation.meteor_ko`.

The fast path (``meteor_batch``) tokenises and stems every distinct sentence once, caches stems
and synonym sets per word, and aligns with dictionaries of reference positions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorekit.errors import InputError, ScorekitError, UnknownNameError
from scorekit.generation.batch import CaptionMetric
from scorekit.generation.meteor_align import (  # noqa: F401  (re-exported: the formula's home)
    Prepared, Text, _check_refs, _gc_paused, align_pairs, count_chunks, score_from_counts)
from scorekit.generation.rouge import porter_stem
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.signature import Signature

LANGS = ("en", "ko")


# -- English ---------------------------------------------------------------------------------
def _prepare(tokens: Sequence[str]) -> Prepared:
    low = [t.lower() for t in tokens]
    return Prepared(low, list(map(porter_stem, low)))


def _as_tokens(text: Text, what) -> list[str]:
    """English input: a token list as given, or a string split on whitespace."""
    if isinstance(text, str):
        return text.split()
    if isinstance(text, Sequence) and all(isinstance(t, str) for t in text):
        return text if type(text) is list else list(text)
    what = what() if callable(what) else what
    raise InputError(f"{what}: expected a string or a list of string tokens, got {type(text).__name__}")


def _english_batch(predictions: Sequence[Text], references: Sequence[Sequence[Text]],
                   alpha: float, beta: float, gamma: float, wordnet=None) -> np.ndarray:
    from scorekit.text.wordnet import get_wordnet

    wn = wordnet or get_wordnet()
    syn = getattr(wn, "synonym_lookup", wn.synonyms)
    out = np.zeros(len(predictions), dtype=np.float64)
    with _gc_paused():
        for k, (pred, refs) in enumerate(zip(predictions, references)):
            refs = _check_refs(refs, lambda: f"item {k}")
            h = _prepare(_as_tokens(pred, lambda: f"item {k} prediction"))
            scores = []
            for r in refs:
                rp = _prepare(_as_tokens(r, lambda: f"item {k} reference"))
                pairs = align_pairs(h, rp, syn)
                m, chunks = (len(pairs), count_chunks(pairs)) if pairs else (0, 0)
                scores.append(score_from_counts(m, len(h.exact), len(rp.exact), chunks, alpha, beta,
                                                gamma))
            out[k] = max(scores)
    return out


# -- public API ------------------------------------------------------------------------------
def _check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise UnknownNameError("language", lang, LANGS)
    return lang


def meteor_batch(predictions: Sequence[Text], references: Sequence[Sequence[Text]], *,
                 lang: str = "en", alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                 lexicon=None, wordnet=None, delta: float | None = None) -> np.ndarray:
    """METEOR of each prediction against its own list of references (best reference wins).

    English: equal to ``nltk.translate.meteor_score.meteor_score(refs, pred)`` on the same tokens
    (strings are split on whitespace; pass token lists to use another tokeniser).
    Korean (``lang="ko"``): the spec's EnhancedKoreanMETEOR on Kiwi units; ``lexicon`` is a
    :class:`scorekit.text.lexicon.Lexicon`, a path or list of paths merged with the starter
    lexicon, or None for the starter lexicon alone.
    """
    _check_lang(lang)
    if len(predictions) != len(references):
        raise InputError(f"{len(predictions)} predictions but {len(references)} reference lists")
    if lang == "ko":
        from scorekit.generation.meteor_ko import DEFAULT_DELTA, korean_meteor_batch

        return korean_meteor_batch(predictions, references, alpha=alpha, beta=beta, gamma=gamma,
                                   lexicon=lexicon, delta=DEFAULT_DELTA if delta is None else delta)
    return _english_batch(predictions, references, alpha, beta, gamma, wordnet)


def meteor(prediction: Text, references: Sequence[Text], *, lang: str = "en", alpha: float = 0.9,
           beta: float = 3.0, gamma: float = 0.5, lexicon=None, wordnet=None,
           delta: float | None = None) -> float:
    """METEOR of one prediction against several references (max over references); see
    :func:`meteor_batch`."""
    _check_refs(references, "meteor")
    return float(meteor_batch([prediction], [references], lang=lang, alpha=alpha, beta=beta,
                              gamma=gamma, lexicon=lexicon, wordnet=wordnet, delta=delta)[0])


def meteor_signature_fields(*, lang: str = "en", alpha: float = 0.9, beta: float = 3.0,
                            gamma: float = 0.5, lexicon=None, tokenizer: str | None = None,
                            delta: float | None = None) -> dict[str, object]:
    """The one builder of what pins a METEOR number: parameters, tokens, stemmer and synonym
    source (the Korean lexicon by content, not by path), and Korean's content-unit weight delta."""
    _check_lang(lang)
    params: dict[str, object] = {"lang": lang, "alpha": alpha, "beta": beta, "gamma": gamma}
    if lang == "en":
        import nltk

        params.update(tok=tokenizer or "given", lower="yes", stem=f"porter-nltk{nltk.__version__}",
                      synonyms="wordnet-3.0")
    else:
        from scorekit.generation.meteor_ko import DEFAULT_DELTA, resolve_lexicon
        from scorekit.text.korean_units import UNITS_VERSION
        from scorekit.text.korean import kiwi_version

        params.update(tok=f"kiwi{kiwi_version()}-units{UNITS_VERSION}", lemma="kiwi",
                      delta=DEFAULT_DELTA if delta is None else delta,
                      lexicon=resolve_lexicon(lexicon).fingerprint)
    return params


def meteor_signature(*, lang: str = "en", alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                     lexicon=None, tokenizer: str | None = None, delta: float | None = None) -> str:
    """Signature pinning what changes a METEOR number (for Results built on :func:`meteor_batch`)."""
    return str(Signature("meteor", meteor_signature_fields(lang=lang, alpha=alpha, beta=beta, gamma=gamma,
                                                           lexicon=lexicon, tokenizer=tokenizer, delta=delta)))


ENGLISH_METEORS = ("`meteor` is the Korean METEOR; on English captions use meteor15 (Meteor 1.5 as COCO "
                   "and pycocoevalcap report it, the headline) or meteor_nltk (nltk's METEOR)")


@register
class METEOR(CaptionMetric):
    """Korean METEOR (the spec's EnhancedKoreanMETEOR, §2.5): F-mean (alpha 0.9) of unit matches
    after exact/lemma/lexicon-synonym alignment of Kiwi units, function units weighted 1 - delta,
    x (1 - 0.5 (chunks/matches)^3), best reference.

    A per-item metric: the corpus score is the mean of the per-item scores (an empty prediction
    scores 0 and counts). English METEOR is ``meteor15`` (Meteor 1.5, COCO's) or ``meteor_nltk``
    (nltk's): one name per recipe."""

    name = "meteor"
    _fragment = (
        Param("alpha", float, 0.9, "weight of precision against recall in the F-mean", low=0, high=1),
        Param("beta", float, 3.0, "shape of the fragmentation penalty", low=0),
        Param("gamma", float, 0.5, "weight of the fragmentation penalty", low=0, high=1))
    params = (Param("lang", str, "ko", "language: ko (English: meteor15 or meteor_nltk)", choices=("ko", "en"),
                    batch=True),
              Param("tokenizer", str, None, "unused: Korean METEOR reads Kiwi units", batch=True),
              *_fragment,
              Param("lexicon", object, None, "Korean synonym lexicon file(s), ';'-separated: "
                    "meteor(lexicon=a.tsv;b.tsv)"),
              Param("delta", float, None, "Korean: weight of content units against function units (Meteor "
                    "1.5's delta; default 0.9)", low=0, high=1))

    def __init__(self, **params):
        super().__init__(**params)
        if self.values["lang"] != "ko":
            raise ScorekitError(ENGLISH_METEORS)
        lex = self.values["lexicon"]
        if isinstance(lex, str):   # the grammar's "a.tsv;b.tsv"
            self.values["lexicon"] = [x for x in lex.split(";") if x] or None

    def item_stats(self, batch) -> Stats:
        b, v = self.batch(batch), self.values
        if not len(b):
            return Stats({"meteor": np.zeros(0)})
        scores = meteor_batch(b.predictions, b.references, lang="ko", lexicon=v["lexicon"], delta=v["delta"],
                              alpha=v["alpha"], beta=v["beta"], gamma=v["gamma"])
        return Stats({"meteor": b.zero_empty(scores)})

    def pins(self) -> dict[str, object]:
        v = self.values
        fields = meteor_signature_fields(lang="ko", lexicon=v["lexicon"], delta=v["delta"])
        return {k: x for k, x in fields.items() if k not in ("lang", "alpha", "beta", "gamma")}


@register
class METEORnltk(CaptionMetric):
    """nltk's METEOR (``nltk.translate.meteor_score``): F-mean (alpha 0.9) of unigram matches after
    exact/Porter-stem/WordNet-synonym alignment x (1 - 0.5 (chunks/matches)^3), best reference, on
    the caption tokens (English: COCO tokens; Korean: Kiwi morphs, or ``tokenizer``).

    A per-item metric: the corpus score is the mean of the per-item scores (an empty prediction
    scores 0 and counts)."""

    name = "meteor_nltk"
    params = CaptionMetric.params + METEOR._fragment

    def item_stats(self, batch) -> Stats:
        b, v = self.batch(batch), self.values
        if not len(b):
            return Stats({"meteor_nltk": np.zeros(0)})
        hyps, refs = b.tokens()
        scores = meteor_batch(hyps, refs, lang="en", alpha=v["alpha"], beta=v["beta"], gamma=v["gamma"])
        return Stats({"meteor_nltk": b.zero_empty(scores)})

    def pins(self) -> dict[str, object]:
        fields = meteor_signature_fields(lang="en")
        return {k: x for k, x in fields.items() if k not in ("lang", "alpha", "beta", "gamma", "tok")}
