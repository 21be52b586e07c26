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

import contextlib
import functools
import gc
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from scorekit.errors import InputError, UnknownNameError
from scorekit.signature import make_signature

LANGS = ("en", "ko")

Tokens = Sequence[str]
Text = str | Sequence[str]


# -- the alignment (nltk's three greedy stages) ----------------------------------------------
class Prepared:
    """One tokenised sentence: exact keys, stem keys, their sets, and (built on first need)
    key -> ascending positions."""

    __slots__ = ("exact", "stem", "eset", "sset", "_pos", "_spos", "_syn_union")

    def __init__(self, exact: list[str], stem: list[str]):
        self.exact, self.stem = exact, stem
        self.eset, self.sset = set(exact), set(stem)
        self._pos = self._spos = self._syn_union = None

    def positions(self) -> dict[str, list[int]]:
        if self._pos is None:
            self._pos = _positions(self.exact, range(len(self.exact)))
        return self._pos

    def stem_positions(self) -> dict[str, list[int]]:
        if self._spos is None:
            self._spos = _positions(self.stem, range(len(self.stem)))
        return self._spos

    def syn_union(self, synonyms: Callable[[str], frozenset[str]]) -> frozenset[str]:
        """Every synonym of every stem: a reference sharing none of these cannot match in stage 3."""
        if self._syn_union is None:
            self._syn_union = frozenset().union(*map(synonyms, self.sset))
        return self._syn_union


def _stage_pairs(hpos: dict[str, list[int]], rpos: dict[str, list[int]],
                 pairs: list[tuple[int, int]], keys=None) -> None:
    """nltk ``_match_enums``: walking the hypothesis from its last word, each word takes the
    highest free equal reference word. Keys never interact, so for a key with hypothesis
    positions a and reference positions b this pairs the last k = min(|a|, |b|) of each, in order."""
    for w in hpos.keys() & rpos.keys() if keys is None else keys:
        a, b = hpos[w], rpos[w]
        if len(a) == 1 and len(b) == 1:
            pairs.append((a[0], b[0]))
        else:
            k = min(len(a), len(b))
            if k:
                pairs.extend(zip(a[len(a) - k:], b[len(b) - k:]))


def _positions(keys: Sequence[str], idx: Iterable[int]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i in idx:
        p = out.get(keys[i])
        if p is None:
            out[keys[i]] = [i]
        else:
            p.append(i)
    return out


def _synonym_stage(hyp_left: list[int], hkeys: Sequence[str], rpos: dict[str, list[int]],
                   synonyms: Callable[[str], frozenset[str]], pairs: list[tuple[int, int]]) -> None:
    """nltk ``_enum_wordnetsyn_match``: walking the hypothesis from its last word, among the free
    reference words that are synonyms of the word, the highest-positioned one (unique, so set
    iteration order cannot matter)."""
    for i in reversed(hyp_left):
        syns = synonyms(hkeys[i])
        if syns.isdisjoint(rpos):
            continue
        best, best_word = -1, None
        for word, p in rpos.items():
            if p and p[-1] > best and word in syns:
                best, best_word = p[-1], word
        if best_word is not None:
            rpos[best_word].pop()
            pairs.append((i, best))


def align(h: Prepared, r: Prepared, synonyms: Callable[[str], frozenset[str]]) -> tuple[int, int]:
    """``(matches, chunks)`` of nltk's staged alignment: exact keys, then stem keys, then
    synonyms of the hypothesis stem among the reference stems (nltk passes stemmed leftovers).
    Set intersections decide first whether a stage can match anything at all, so most stages
    cost one C-level set operation."""
    pairs: list[tuple[int, int]] = []
    nh, nr = len(h.exact), len(r.exact)
    common = h.eset & r.eset
    if common:
        if len(h.eset) == nh and len(r.eset) == nr:  # no repeated word: one position each
            hx, rx = h.exact.index, r.exact.index
            pairs = [(hx(w), rx(w)) for w in common]
        else:
            _stage_pairs(h.positions(), r.positions(), pairs, common)
    if len(pairs) < nh and len(pairs) < nr and (not h.sset.isdisjoint(r.sset)
                                                 or not h.syn_union(synonyms).isdisjoint(r.sset)):
        mh = {i for i, _ in pairs}
        mr = {j for _, j in pairs}
        hyp_left = [i for i in range(nh) if i not in mh]
        ref_left = [j for j in range(nr) if j not in mr]
        hs, rs = h.stem, r.stem
        shared = {hs[i] for i in hyp_left}.intersection([rs[j] for j in ref_left])
        if shared:
            n0 = len(pairs)
            hp, rp = h.stem_positions(), r.stem_positions()
            _stage_pairs({k: [i for i in hp[k] if i not in mh] for k in shared},
                         {k: [j for j in rp[k] if j not in mr] for k in shared}, pairs, shared)
            mh.update(i for i, _ in pairs[n0:])
            mr.update(j for _, j in pairs[n0:])
            hyp_left = [i for i in hyp_left if i not in mh]
            ref_left = [j for j in ref_left if j not in mr]
        if hyp_left and ref_left:
            if not h.syn_union(synonyms).isdisjoint([rs[j] for j in ref_left]):
                _synonym_stage(hyp_left, hs, _positions(rs, ref_left), synonyms, pairs)
    if not pairs:
        return 0, 0
    if len(pairs) == 1:
        return 1, 1
    pairs.sort()
    chunks = 1
    pi, pj = pairs[0]
    for i, j in pairs[1:]:
        if i != pi + 1 or j != pj + 1:
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


class _StemCache(dict):
    """Lower-cased word -> Porter stem, filled on first sight (shared across calls)."""

    def __init__(self):
        super().__init__()
        self.stem = _porter().stem

    def __missing__(self, word: str) -> str:
        s = self[word] = self.stem(word)
        return s


class _EnglishPrep:
    def __init__(self):
        self.stems = _StemCache()

    def __call__(self, tokens: Sequence[str]) -> Prepared:
        low = [t.lower() for t in tokens]
        return Prepared(low, list(map(self.stems.__getitem__, low)))


@functools.lru_cache(maxsize=1)
def _english_prep() -> _EnglishPrep:
    return _EnglishPrep()


def _as_tokens(text: Text, what) -> list[str]:
    """English input: a token list as given, or a string split on whitespace."""
    if isinstance(text, str):
        return text.split()
    if type(text) is list or isinstance(text, Sequence):
        for t in text:
            if type(t) is not str and not isinstance(t, str):
                break
        else:
            return text if type(text) is list else list(text)
    what = what() if callable(what) else what
    raise InputError(f"{what}: expected a string or a list of string tokens, got {type(text).__name__}")


def _check_refs(refs: object, where) -> Sequence[Text]:
    if type(refs) is list and refs:
        return refs
    where = where() if callable(where) else where
    if isinstance(refs, str) or not isinstance(refs, Sequence):
        raise InputError(f"{where}: references must be a list (of strings or token lists)")
    if len(refs) == 0:
        raise InputError(f"{where}: empty reference list")
    return refs


@contextlib.contextmanager
def _gc_paused():
    """The hot loop allocates many short-lived acyclic objects; cyclic-GC passes over a large
    heap (e.g. a loaded nltk WordNet) would otherwise dominate its run time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _english_batch(predictions: Sequence[Text], references: Sequence[Sequence[Text]],
                   alpha: float, beta: float, gamma: float, wordnet=None) -> np.ndarray:
    with _gc_paused():
        return _english_batch_loop(predictions, references, alpha, beta, gamma, wordnet)


def _english_batch_loop(predictions, references, alpha, beta, gamma, wordnet) -> np.ndarray:
    from scorekit.text.wordnet import get_wordnet

    wn = wordnet or get_wordnet()
    syn = getattr(wn, "synonym_lookup", wn.synonyms)
    prep = _english_prep()
    out = np.zeros(len(predictions), dtype=np.float64)
    for k, (pred, refs) in enumerate(zip(predictions, references)):
        refs = _check_refs(refs, lambda: f"item {k}")
        h = prep(_as_tokens(pred, lambda: f"item {k} prediction"))
        best = None
        for r in refs:
            rp = prep(_as_tokens(r, lambda: f"item {k} reference"))
            m, chunks = align(h, rp, syn)
            s = score_from_counts(m, len(h.exact), len(rp.exact), chunks, alpha, beta, gamma)
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
        from scorekit.generation.meteor_ko import korean_meteor_batch

        from scorekit.generation.meteor_ko import DEFAULT_DELTA

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


def meteor_signature(*, lang: str = "en", alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5,
                     lexicon=None, tokenizer: str | None = None, delta: float | None = None) -> str:
    """Signature pinning what changes a METEOR number (for Results built on :func:`meteor_batch`)."""
    _check_lang(lang)
    params: dict[str, object] = {"lang": lang, "alpha": alpha, "beta": beta, "gamma": gamma}
    if lang == "en":
        import nltk

        params.update(tok=tokenizer or "given", lower="yes", stem=f"porter-nltk{nltk.__version__}",
                      synonyms="wordnet-3.0")
    else:
        from scorekit.generation.meteor_ko import DEFAULT_DELTA, UNITS_VERSION, resolve_lexicon
        from scorekit.text.korean import kiwi_version

        params.update(tok=f"kiwi{kiwi_version()}-units{UNITS_VERSION}", lemma="kiwi",
                      delta=DEFAULT_DELTA if delta is None else delta,
                      lexicon=resolve_lexicon(lexicon).fingerprint)
    return make_signature("meteor", params)
