"""ROUGE-N and ROUGE-L with rouge-score semantics, Korean through Kiwi, and pycocoevalcap's ROUGE-L.

Definitions (Lin 2004; spec ``nword-summarization.md`` "Phase 1 Metrics" §1 and the caption spec):

* ROUGE-N: ``hits = sum_g min(count_pred(g), count_ref(g))`` over the n-grams ``g``;
  ``P = hits / max(#pred n-grams, 1)``, ``R = hits / max(#ref n-grams, 1)``,
  ``F = 2PR / (P + R)`` (0 when ``P + R == 0``). The spec's formula is the recall ``R``
  (its worked example: ROUGE-1 = 3/4, ROUGE-2 = 1/3).
* ROUGE-L: ``P = LCS / |pred|``, ``R = LCS / |ref|``, ``F = 2PR / (P + R)``; all 0 when either
  side is empty — exactly ``rouge_score.rouge_scorer.RougeScorer`` (``rougeL``, not ``rougeLsum``).
* Several references (``rouge_multi``): per kind, the reference with the highest F (the first on
  ties), as ``RougeScorer.score_multi`` does.
* COCO ROUGE-L (``coco_rouge_l``): pycocoevalcap's ``Rouge.calc_score``: ``P* = max_r LCS/|pred|``
  and ``R* = max_r LCS/|ref_r|`` taken independently over the references, then
  ``F = (1 + b^2) P* R* / (R* + b^2 P*)`` with ``b = 1.2`` (``rouge_l_coco(beta=...)``); the
  corpus score is the mean.

Tokenisation (``rouge_tokenize``; docs/summarization.md "Tokenisation"): English exactly as
rouge-score's ``DefaultTokenizer``; text with Hangul (which rouge-score deletes) or ``lang="ko"``
through Kiwi morphemes without particles and punctuation. All text is NFC-normalised first.

The LCS length is computed bit-parallel (Hyyrö 2004) on Python integers, and a reference can be
prepared once (:class:`PreparedReference`) and scored against many predictions.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from scorekit.errors import UnknownNameError
from scorekit.generation.batch import (DEFAULT_KOREAN_UNITS, CaptionMetric, KoreanUnitsMetric,
                                      check_units)
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.text.korean import has_hangul
from scorekit.text.normalize import nfc

KINDS = ("rouge1", "rouge2", "rougeL")
_KIND_RE = re.compile(r"^rouge([1-9])$")
_TOKEN_RE = re.compile(r"[a-z0-9]+")
_VALID_TOKEN_RE = re.compile(r"^[a-z0-9]+$")


class Score(NamedTuple):
    precision: float
    recall: float
    fmeasure: float


def fmeasure(precision: float, recall: float) -> float:
    """Harmonic mean, 0 when both are 0 (``rouge_score.scoring.fmeasure``)."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


# --------------------------------------------------------------------------- tokenisation

@functools.lru_cache(maxsize=1)
def _porter():
    from nltk.stem import porter

    return porter.PorterStemmer()


@functools.lru_cache(maxsize=None)
def porter_stem(token: str) -> str:
    """NLTK's Porter stem (NLTK_EXTENSIONS mode) as rouge-score and nltk's ``meteor_score`` take it,
    memoised."""
    return _porter().stem(token)


def _english_tokens(text: str, stem: bool) -> list[str]:
    # Equivalent to rouge-score's sub(non-alnum, " ") + split + filter: maximal [a-z0-9] runs.
    tokens = _TOKEN_RE.findall(text.lower())
    if stem:
        tokens = [porter_stem(t) if len(t) > 3 else t for t in tokens]
        tokens = [t for t in tokens if _VALID_TOKEN_RE.match(t)]
    return tokens


def rouge_tokenize(text: str, *, lang: str = "en", stem: bool = False) -> list[str]:
    """Tokens for ROUGE: rouge-score's tokenizer for English, Kiwi morphs for Korean.

    ``lang="en"`` still sends text containing Hangul to Kiwi (rouge-score would drop it all).
    """
    return rouge_tokenize_batch([text], lang=lang, stem=stem)[0]


def rouge_tokenize_batch(texts: Sequence[str], *, lang: str = "en", stem: bool = False,
                         korean: Sequence[bool] | None = None, units: str = "surface") -> list[list[str]]:
    """Tokenise many texts; the Korean ones go to Kiwi in one multithreaded batch.

    ``korean`` forces the choice per text (used to tokenise a prediction and its references
    the same way); by default each text is checked for Hangul as in :func:`rouge_tokenize`.
    ``units``: Korean tokens are Kiwi surface morphs without particles (``"surface"``, as before
    issue #15) or content-unit lemmas (``"content"``: tokenizer ``ko-content``).
    """
    check_units(units)
    texts = [nfc(t) for t in texts]
    if korean is None and texts and lang not in ("en", "ko"):
        raise UnknownNameError("language", lang, ["en", "ko"])
    flags = list(korean) if korean is not None else [lang == "ko" or has_hangul(t) for t in texts]
    ko = [t for t, f in zip(texts, flags) if f]
    if ko and units == "content":
        from scorekit.text.korean_units import content_tokens_batch

        done = iter([[t.lower() for t in toks] for toks in content_tokens_batch(ko)])
    elif ko:
        from scorekit.text.korean import analyze_batch, select

        done = iter([[t.lower() for t in select(m, drop_particles=True, drop_punct=True,
                                                lemma=stem)] for m in analyze_batch(ko)])
    return [next(done) if f else _english_tokens(t, stem) for f, t in zip(flags, texts)]


def coco_tokenize(text: str) -> list[str]:
    """pycocoevalcap's Rouge splits on single spaces (its input is PTB-tokenised already)."""
    return text.split(" ")


# --------------------------------------------------------------------------- statistics

def ngram_counts(tokens: Sequence[str], n: int) -> Counter:
    if n == 1:
        return Counter(tokens)
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _score_counts(pred: Counter, ref: Counter) -> Score:
    if len(pred) < len(ref):
        hits = sum(min(c, ref[g]) for g, c in pred.items() if g in ref)
    else:
        hits = sum(min(c, pred[g]) for g, c in ref.items() if g in pred)
    precision = hits / max(sum(pred.values()), 1)
    recall = hits / max(sum(ref.values()), 1)
    return Score(precision, recall, fmeasure(precision, recall))


def rouge_n(pred: Sequence[str], ref: Sequence[str], n: int) -> Score:
    """ROUGE-N of one prediction against one reference (token lists)."""
    if n <= 0:
        raise ValueError(f"ROUGE-N needs n >= 1, got {n}")
    return _score_counts(ngram_counts(pred, n), ngram_counts(ref, n))


def _match_masks(tokens: Iterable) -> dict:
    masks: dict = {}
    for i, t in enumerate(tokens):
        masks[t] = masks.get(t, 0) | (1 << i)
    return masks


def _lcs_with_masks(masks: dict, m: int, seq: Iterable) -> int:
    # Hyyrö's bit-vector LCS: V has a 0 at row i once row i is matched; LCS = zeros in V.
    full = (1 << m) - 1
    v = full
    get = masks.get
    for y in seq:
        mask = get(y)
        if mask is not None:
            u = v & mask
            v = ((v + u) | (v - u)) & full
    return m - v.bit_count()


def lcs_length(a: Sequence, b: Sequence) -> int:
    """Length of the longest common subsequence of two token sequences (bit-parallel)."""
    if len(a) < len(b):
        a, b = b, a
    return _lcs_with_masks(_match_masks(a), len(a), b)


def _lcs_score(lcs: int, n_pred: int, n_ref: int) -> Score:
    if n_pred == 0 or n_ref == 0:
        return Score(0.0, 0.0, 0.0)
    precision = lcs / n_pred
    recall = lcs / n_ref
    return Score(precision, recall, fmeasure(precision, recall))


def rouge_l(pred: Sequence[str], ref: Sequence[str]) -> Score:
    """ROUGE-L (sentence-level LCS) of one prediction against one reference."""
    return _lcs_score(lcs_length(pred, ref), len(pred), len(ref))


def _check_kinds(kinds: Sequence[str]) -> list[str]:
    kinds = list(kinds)
    for k in kinds:
        if k != "rougeL" and not _KIND_RE.match(k):
            raise UnknownNameError("ROUGE kind", k, ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL"])
    return kinds


class PreparedReference:
    """One reference's n-gram counts and LCS match masks, computed once, scored many times."""

    __slots__ = ("tokens", "_counts", "_masks")

    def __init__(self, tokens: Sequence[str]):
        self.tokens = list(tokens)
        self._counts: dict[int, Counter] = {}
        self._masks: dict | None = None

    def counts(self, n: int) -> Counter:
        if n not in self._counts:
            self._counts[n] = ngram_counts(self.tokens, n)
        return self._counts[n]

    def score(self, pred: Sequence[str], kind: str, pred_counts: dict[int, Counter] | None = None) -> Score:
        if kind == "rougeL":
            if self._masks is None:
                self._masks = _match_masks(self.tokens)
            lcs = _lcs_with_masks(self._masks, len(self.tokens), pred)
            return _lcs_score(lcs, len(pred), len(self.tokens))
        n = int(kind[5:])
        pred_counts = {} if pred_counts is None else pred_counts
        if n not in pred_counts:
            pred_counts[n] = ngram_counts(pred, n)
        return _score_counts(pred_counts[n], self.counts(n))


def rouge_multi(pred_tokens: Sequence[str],
                refs_tokens: Sequence[Sequence[str] | PreparedReference],
                kinds: Sequence[str] = KINDS) -> dict[str, Score]:
    """Scores against several references: per kind the reference with the best F (first on
    ties), as ``RougeScorer.score_multi``. References may be :class:`PreparedReference`."""
    kinds = _check_kinds(kinds)
    if not refs_tokens:
        raise ValueError("rouge_multi needs at least one reference")
    refs = [r if isinstance(r, PreparedReference) else PreparedReference(r) for r in refs_tokens]
    pred_counts: dict[int, Counter] = {}
    # max keeps the first of equal scores
    return {kind: max((ref.score(pred_tokens, kind, pred_counts) for ref in refs),
                      key=lambda s: s.fmeasure) for kind in kinds}


def rouge_scores(predictions: Sequence[str], references: Sequence[str | Sequence[str]], *,
                 kinds: Sequence[str] = KINDS, lang: str = "en", stem: bool = False,
                 units: str | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Per-item ROUGE of texts: ``{kind: {"precision"|"recall"|"fmeasure": array}}``.

    A reference may be one string or a list of strings (best-of as :func:`rouge_multi`). A pair
    whose prediction or any reference contains Hangul (or every pair, with ``lang="ko"``) is
    tokenised entirely by Kiwi so both sides split alike; ``units`` picks the Korean tokens
    (see :func:`rouge_tokenize_batch`; default :data:`DEFAULT_KOREAN_UNITS`).
    """
    units = check_units(units or DEFAULT_KOREAN_UNITS)
    kinds = _check_kinds(kinds)
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    if lang not in ("en", "ko"):
        raise UnknownNameError("language", lang, ["en", "ko"])
    refs = [[r] if isinstance(r, str) else list(r) for r in references]
    texts, flags, spans = [], [], []   # spans: (start, size) of each item's texts
    for p, rs in zip(predictions, refs):
        group = [p] + rs
        ko = lang == "ko" or any(has_hangul(t) for t in group)
        spans.append((len(texts), len(group)))
        texts += group
        flags += [ko] * len(group)
    toks = rouge_tokenize_batch(texts, stem=stem, korean=flags, units=units)
    return rouge_scores_of_tokens([toks[start] for start, _ in spans],
                                  [toks[start + 1:start + size] for start, size in spans], kinds)


def rouge_scores_of_tokens(pred_tokens: Sequence[Sequence[str]], refs_tokens: Sequence[Sequence[Sequence[str]]],
                           kinds: Sequence[str] = KINDS) -> dict[str, dict[str, np.ndarray]]:
    """:func:`rouge_scores` of texts already tokenised (each prediction's tokens, its
    references' token lists)."""
    kinds = _check_kinds(kinds)
    out = {k: {f: np.zeros(len(pred_tokens)) for f in Score._fields} for k in kinds}
    for i, (pred, refs) in enumerate(zip(pred_tokens, refs_tokens)):
        for k, s in rouge_multi(pred, refs, kinds).items():
            out[k]["precision"][i], out[k]["recall"][i], out[k]["fmeasure"][i] = s
    return out


# --------------------------------------------------------------------------- COCO ROUGE-L

def coco_rouge_l(pred_tokens: Sequence[str], refs_tokens: Sequence[Sequence[str]],
                 beta: float = 1.2) -> float:
    """pycocoevalcap ``Rouge().calc_score`` on token lists (use :func:`coco_tokenize` on
    PTB-tokenised strings to match it byte for byte). An empty prediction scores 0; an empty
    reference contributes P = R = 0 (pycocoevalcap would divide by zero on either)."""
    if not refs_tokens:
        raise ValueError("coco_rouge_l needs at least one reference")
    n_pred = len(pred_tokens)
    if n_pred == 0:
        return 0.0
    masks = _match_masks(pred_tokens)
    lcs = [_lcs_with_masks(masks, n_pred, ref) for ref in refs_tokens]
    prec_max = max(x / float(n_pred) for x in lcs)
    rec_max = max(x / float(len(ref)) if ref else 0.0 for x, ref in zip(lcs, refs_tokens))
    if prec_max != 0 and rec_max != 0:
        return ((1 + beta ** 2) * prec_max * rec_max) / float(rec_max + beta ** 2 * prec_max)
    return 0.0




def stemmer_pin(stem: bool) -> dict:
    """The signature pin of ROUGE's stemming: NLTK's Porter stemmer, by version (none unstemmed)."""
    if not stem:
        return {}
    import nltk

    return {"stem": f"porter-nltk{nltk.__version__}"}


@register
class RougeL(KoreanUnitsMetric, CaptionMetric):
    """ROUGE-L F1: LCS-based precision and recall, the best reference (rouge-score semantics, the
    spec's §5.2); Korean through Kiwi morphs (rouge-score itself scores Korean as 0).

    ``use_stemmer``: rouge-score's ``RougeScorer(use_stemmer=True)``, Porter stems of English
    tokens longer than 3 characters; Korean surface morphs become Kiwi lemmas (Korean content
    units are lemmas already)."""

    name = "rouge_l"
    params = CaptionMetric.own_tokens + (KoreanUnitsMetric.KO_UNITS,
                                     Param("use_stemmer", bool, False,
                                           "Porter-stem English tokens as rouge-score (Korean surface: Kiwi lemmas)"))

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        if not len(b):
            return Stats({"rouge_l": np.zeros(0)})
        units = self.units(b.lang)
        if b.lang == "ko" and units == "content":
            # every text of a Korean batch is Korean to ROUGE: its content units are the batch's
            # ko-content tokens (shared with BLEU, Kiwi runs once), lower-cased as rouge_scores does
            hyps, refs = b.tokens("ko-content")
            res = rouge_scores_of_tokens([[t.lower() for t in h] for h in hyps],
                                         [[[t.lower() for t in r] for r in rs] for rs in refs], ("rougeL",))
        else:
            res = rouge_scores(b.predictions, b.references, kinds=("rougeL",), lang=b.lang,
                               stem=self.values["use_stemmer"], units=units)
        return Stats({"rouge_l": b.zero_empty(res["rougeL"]["fmeasure"])})

    def pins(self) -> dict:
        """Korean units, the stemmer, and for Korean Kiwi's version (its morphs are the tokens;
        the batch's tokenizer is not)."""
        kiwi = {}
        if self.values["lang"] == "ko":
            from scorekit.text.korean import analyser_version

            kiwi = {"kiwi": analyser_version()}
        return {**super().pins(), **stemmer_pin(self.values["use_stemmer"]), **kiwi}


@register
class RougeLCoco(CaptionMetric):
    """pycocoevalcap ROUGE-L: F_beta (beta 1.2) of the max LCS precision and recall over the
    references, on the caption tokens."""

    name = "rouge_l_coco"
    params = CaptionMetric.params + (Param("beta", float, 1.2, "weight of recall against precision "
                                                               "(pycocoevalcap's Rouge.beta; 0: precision)", low=0),)

    def item_stats(self, batch) -> Stats:
        hyps, refs = self.batch(batch).tokens()   # the corpus value is the mean, as pycocoevalcap's
        return Stats({"rouge_l_coco": np.array([coco_rouge_l(h, rs, self.values["beta"])
                                                for h, rs in zip(hyps, refs)], dtype=np.float64)})

