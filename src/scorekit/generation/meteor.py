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

import functools
from collections.abc import Callable, Sequence

import numpy as np

from scorekit.errors import InputError, UnknownNameError
from scorekit.signature import make_signature

LANGS = ("en", "ko")

Tokens = Sequence[str]
Text = str | Sequence[str]


# -- the alignment (nltk's three greedy stages) ----------------------------------------------
def _exact_stage(hyp_left: list[int], hkeys: Sequence[str], ref_left: list[int],
                 rkeys: Sequence[str], pairs: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """nltk ``_match_enums``: last hypothesis word first, each takes the highest free equal word."""
    positions: dict[str, list[int]] = {}
    for j in ref_left:
        positions.setdefault(rkeys[j], []).append(j)
    left: list[int] = []
    used: set[int] = set()
    for i in reversed(hyp_left):
        p = positions.get(hkeys[i])
        if p:
            j = p.pop()
            pairs.append((i, j))
            used.add(j)
        else:
            left.append(i)
    left.reverse()
    return left, ([j for j in ref_left if j not in used] if used else ref_left)


def _synonym_stage(hyp_left: list[int], hkeys: Sequence[str], ref_left: list[int],
                   rkeys: Sequence[str], synonyms: Callable[[str], frozenset[str]],
                   pairs: list[tuple[int, int]]) -> None:
    """nltk ``_enum_wordnetsyn_match``: among the free reference words that are synonyms of the
    hypothesis word, the highest-positioned one (unique, so iteration order cannot matter)."""
    positions: dict[str, list[int]] = {}
    for j in ref_left:
        positions.setdefault(rkeys[j], []).append(j)
    for i in reversed(hyp_left):
        syns = synonyms(hkeys[i])
        best, best_word = -1, None
        for word, p in positions.items():
            if p and p[-1] > best and word in syns:
                best, best_word = p[-1], word
        if best_word is not None:
            positions[best_word].pop()
            pairs.append((i, best))


def align(h_exact: Sequence[str], h_stem: Sequence[str], r_exact: Sequence[str],
          r_stem: Sequence[str], synonyms: Callable[[str], frozenset[str]]) -> tuple[int, int]:
    """``(matches, chunks)`` of the staged alignment; stage 3 compares ``h_stem``/``r_stem`` keys."""
    pairs: list[tuple[int, int]] = []
    hyp_left, ref_left = _exact_stage(list(range(len(h_exact))), h_exact,
                                      list(range(len(r_exact))), r_exact, pairs)
    if hyp_left and ref_left:
        hyp_left, ref_left = _exact_stage(hyp_left, h_stem, ref_left, r_stem, pairs)
        if hyp_left and ref_left:
            _synonym_stage(hyp_left, h_stem, ref_left, r_stem, synonyms, pairs)
    if not pairs:
        return 0, 0
    pairs.sort()
    chunks = 1
    pi, pj = pairs[0]
    for i, j in pairs[1:]:
        if not (i == pi + 1 and j == pj + 1):
            chunks += 1
        pi, pj = i, j
    return len(pairs), chunks


def score_from_counts(matches: int, hyp_len: int, ref_len: int, chunks: int,
                      alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """The METEOR formula, with nltk's exact floating-point operations (0 on a zero division)."""
    try:
        precision = float(matches) / hyp_len
        recall = float(matches) / ref_len
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag_frac = float(chunks) / matches
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


# -- English ---------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _porter():
    from nltk.stem.porter import PorterStemmer  # nltk's Porter (NLTK_EXTENSIONS mode), as meteor_score

    return PorterStemmer()


class _EnglishPrep:
    """Per-word caches shared across calls: lower-cased word -> Porter stem."""

    def __init__(self):
        self.stems: dict[str, str] = {}
        self.stem = _porter().stem

    def __call__(self, tokens: Sequence[str]) -> tuple[list[str], list[str]]:
        low = [t.lower() for t in tokens]
        stems = self.stems
        out = []
        for w in low:
            s = stems.get(w)
            if s is None:
                s = stems[w] = self.stem(w)
            out.append(s)
        return low, out


@functools.lru_cache(maxsize=1)
def _english_prep() -> _EnglishPrep:
    return _EnglishPrep()


def _as_tokens(text: Text, what: str) -> list[str]:
    """English input: a token list as given, or a string split on whitespace."""
    if isinstance(text, str):
        return text.split()
    if not isinstance(text, Sequence) or not all(isinstance(t, str) for t in text):
        raise InputError(f"{what}: expected a string or a list of string tokens, got {type(text).__name__}")
    return list(text)


def _check_refs(refs: object, where: str) -> Sequence[Text]:
    if isinstance(refs, str) or not isinstance(refs, Sequence):
        raise InputError(f"{where}: references must be a list (of strings or token lists)")
    if len(refs) == 0:
        raise InputError(f"{where}: empty reference list")
    return refs


def _english_batch(predictions: Sequence[Text], references: Sequence[Sequence[Text]],
                   alpha: float, beta: float, gamma: float, wordnet=None) -> np.ndarray:
    from scorekit.text.wordnet import get_wordnet

    syn = (wordnet or get_wordnet()).synonyms
    prep = _english_prep()
    out = np.zeros(len(predictions), dtype=np.float64)
    for k, (pred, refs) in enumerate(zip(predictions, references)):
        refs = _check_refs(refs, f"item {k}")
        h_low, h_stem = prep(_as_tokens(pred, f"item {k} prediction"))
        best = None
        for r in refs:
            r_low, r_stem = prep(_as_tokens(r, f"item {k} reference"))
            m, chunks = align(h_low, h_stem, r_low, r_stem, syn) if h_low and r_low else (0, 0)
            s = score_from_counts(m, len(h_low), len(r_low), chunks, alpha, beta, gamma)
            if best is None or s > best:
                best = s
        out[k] = best
    return out


# -- public API ------------------------------------------------------------------------------
def _check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise UnknownNameError("language", lang, LANGS)
    return lang


def meteor_batch(predictions: Sequence[Text], references: Sequence[Sequence[Text]], *,
                 lang: str = "en", alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                 lexicon=None, wordnet=None) -> np.ndarray:
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
        from scorekit.generation.meteor_ko import korean_meteor_batch

        return korean_meteor_batch(predictions, references, alpha=alpha, beta=beta, gamma=gamma,
                                   lexicon=lexicon)
    return _english_batch(predictions, references, alpha, beta, gamma, wordnet)


def meteor(prediction: Text, references: Sequence[Text], *, lang: str = "en", alpha: float = 0.9,
           beta: float = 3.0, gamma: float = 0.5, lexicon=None, wordnet=None) -> float:
    """METEOR of one prediction against several references (max over references); see
    :func:`meteor_batch`."""
    _check_refs(references, "meteor")
    return float(meteor_batch([prediction], [references], lang=lang, alpha=alpha, beta=beta,
                              gamma=gamma, lexicon=lexicon, wordnet=wordnet)[0])


def meteor_signature(*, lang: str = "en", alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                     lexicon=None, tokenizer: str | None = None) -> str:
    """Signature pinning what changes a METEOR number (for Results built on :func:`meteor_batch`)."""
    _check_lang(lang)
    params: dict[str, object] = {"lang": lang, "alpha": alpha, "beta": beta, "gamma": gamma}
    if lang == "en":
        import nltk

        params.update(tok=tokenizer or "given", lower="yes", stem=f"porter-nltk{nltk.__version__}",
                      synonyms="wordnet-3.0")
    else:
        from scorekit.generation.meteor_ko import resolve_lexicon
        from scorekit.text.korean import kiwi_version

        params.update(tok=f"kiwi{kiwi_version()}-units", lemma="kiwi",
                      lexicon=resolve_lexicon(lexicon).fingerprint)
    return make_signature("meteor", params)
