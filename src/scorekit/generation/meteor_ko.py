"""Korean METEOR: the spec's EnhancedKoreanMETEOR (caption-metrics §2.4–§2.5) on Kiwi units
(:mod:`scorekit.text.korean_units`, the unit rules of issue #15; docs/caption.md "Korean units").

Function units weigh ``1 - delta`` in precision and recall, content units ``delta``, as Meteor
1.5's ``delta`` parameter; ``delta = 0.5`` weighs them alike and reproduces nltk's unweighted
METEOR. Compound spacing is neutral (:func:`scorekit.text.korean_units.respace` per pair).

Stages (nltk's greedy alignment, :mod:`scorekit.generation.meteor`): 1. exact on surfaces,
2. lemma (the spec's "stem") on lemma+class, 3. synonyms: the lexicon pairs them (symmetric, not
transitive — the spec's ``synonym_match``). Lexicon words carry a POS and match units of their
class only. Then P, R (weighted), Fmean (alpha 0.9), the fragmentation penalty (gamma 0.5,
beta 3, chunks / matches) and the max over references.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from scorekit.errors import InputError
from scorekit.generation.meteor_align import Prepared, _check_refs, _gc_paused, align_pairs, count_chunks
from scorekit.text.korean_units import Unit, respace, units_batch
from scorekit.text.lexicon import Lexicon, pos_class
from scorekit.text.normalize import nfc

DEFAULT_DELTA = 0.9  # content weight; function units weigh 1 - delta (chosen on the pair set)


# -- lexicon -> key synonym index -------------------------------------------------------------
_INDEX_CACHE: dict[str, dict[str, frozenset[str]]] = {}


def resolve_lexicon(lexicon) -> Lexicon:
    """None -> starter lexicon; a Lexicon as is; a path or list of paths -> starter + those files."""
    if lexicon is None:
        return Lexicon.default()
    if isinstance(lexicon, Lexicon):
        return lexicon
    if isinstance(lexicon, (str, os.PathLike)):
        return Lexicon.load(lexicon)
    if isinstance(lexicon, Sequence):
        return Lexicon.load(*lexicon)
    raise InputError(f"lexicon: expected a Lexicon, a path or a list of paths, got {type(lexicon).__name__}")


def lexicon_key(word: str, tag: str) -> str:
    return f"{nfc(word).lower()}/{pos_class(tag)}"


def lemma_synonyms(lexicon: Lexicon) -> dict[str, frozenset[str]]:
    """Lexicon pairs as unit key (``lemma/class``) -> keys. Words are taken as written (dictionary
    form) with their POS: no out-of-context analysis."""
    cached = _INDEX_CACHE.get(lexicon.fingerprint)
    if cached is not None:
        return cached
    table: dict[str, set[str]] = {}
    for a, b in lexicon.pairs():
        ka, kb = lexicon_key(a, lexicon.pos(a)), lexicon_key(b, lexicon.pos(b))
        if ka != kb:
            table.setdefault(ka, set()).add(kb)
            table.setdefault(kb, set()).add(ka)
    index = {k: frozenset(v | {k}) for k, v in table.items()}
    _INDEX_CACHE[lexicon.fingerprint] = index
    return index


def _as_text(text, what: str) -> str:
    if isinstance(text, str):
        return text
    if isinstance(text, Sequence) and all(isinstance(t, str) for t in text):
        return " ".join(text)  # pre-tokenised Korean is re-analysed: units need Kiwi's tags
    raise InputError(f"{what}: expected a string or a list of string tokens, got {type(text).__name__}")


def korean_meteor_batch(predictions: Sequence, references: Sequence[Sequence], *, alpha: float = 0.9,
                        beta: float = 3.0, gamma: float = 0.5, lexicon=None,
                        delta: float = DEFAULT_DELTA) -> np.ndarray:
    delta = float(delta)
    if not 0.0 <= delta <= 1.0:
        raise InputError(f"delta: expected a number in [0, 1] (content-unit weight), got {delta:g}")
    lex = resolve_lexicon(lexicon)
    index = lemma_synonyms(lex)

    def synonyms(key: str) -> frozenset[str]:
        return index.get(key) or frozenset((key,))

    texts: list[str] = []
    spans = []
    for k, (pred, refs) in enumerate(zip(predictions, references)):
        refs = _check_refs(refs, f"item {k}")
        start = len(texts)
        texts.append(_as_text(pred, f"item {k} prediction"))
        texts.extend(_as_text(r, f"item {k} reference") for r in refs)
        spans.append((start, len(texts)))
    # analyse each distinct text once, in one multithreaded Kiwi batch
    distinct = list(dict.fromkeys(nfc(t) for t in texts))
    analysed = dict(zip(distinct, units_batch(distinct, lex)))
    out = np.zeros(len(spans), dtype=np.float64)
    with _gc_paused():
        for k, (start, end) in enumerate(spans):
            h = analysed[nfc(texts[start])]
            out[k] = max(pair_score(h, analysed[nfc(t)], synonyms, index, alpha, beta, gamma, delta)
                         for t in texts[start + 1:end])
    return out


def _prepared(us: list[Unit], index) -> tuple:
    keys = [u.hon + "/" + u.cls if u.hon and (u.hon + "/" + u.cls) in index else u.key for u in us]
    return Prepared([u.surface for u in us], keys)


def pair_score(h: list[Unit], r: list[Unit], synonyms, index, alpha: float, beta: float, gamma: float,
               delta: float) -> float:
    """METEOR of one hypothesis against one reference, both as units."""
    h, r = respace(r, h), respace(h, r)
    ph, pr = _prepared(h, index), _prepared(r, index)
    pairs = align_pairs(ph, pr, synonyms)
    if not pairs:
        return 0.0
    pairs.sort()     # the stages meet keys in set order: sum the weights in one fixed order
    hw = [(1.0 - delta) if u.function else delta for u in h]
    rw = [(1.0 - delta) if u.function else delta for u in r]
    try:
        precision = sum(hw[i] for i, _ in pairs) / sum(hw)
        recall = sum(rw[j] for _, j in pairs) / sum(rw)
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
    except ZeroDivisionError:
        return 0.0
    chunks = count_chunks(pairs)
    penalty = gamma * (float(chunks) / len(pairs)) ** beta
    return (1 - penalty) * fmean
