"""Korean METEOR: the spec's EnhancedKoreanMETEOR (caption-metrics §2.4–§2.5) on Kiwi.

Units. The spec tokenises with Okt and drops particles (``Josa``) and punctuation. Kiwi splits
finer than Okt (``파란`` -> ``파랗/VA + ㄴ/ETM``), so morphs are regrouped into Okt-sized *units*:

* particles (``J*``) and punctuation/symbols are dropped (spec: 조사 제거 정규화);
* a grammatical ending (``E*``: 었, 고, ㄴ다, ...) or a suffix (``XS*``: 하, 들, ...) joins the unit
  before it, so ``파란``, ``치고``, ``사람들`` are one unit each (otherwise any two sentences would
  "match" on their endings);
* each unit has a *surface* (its morphs joined, NFC: ``파랗+ㄴ`` -> ``파란``) and a *lemma*
  (dictionary form: a verb/adjective's Kiwi lemma ``파랗다``; ``root+하`` -> ``수려하다``; a noun
  without its plural/derivational ``XSN`` suffix: ``사람들`` -> ``사람``). Latin letters are
  lower-cased, as nltk's METEOR does.

Stages (the same greedy alignment as nltk's English METEOR, :func:`scorekit.generation.meteor.align`):
1. exact on surfaces, 2. lemma (the spec's "stem") on lemmas, 3. synonyms: two lemmas are
synonyms when the lexicon pairs them (symmetric, not transitive — the spec's ``synonym_match``).
Lexicon words are written naturally (``푸른``, ``청색의``) and mapped to lemmas by the same unit
analysis, so ``푸른 ~ 파란`` becomes ``푸르다 ~ 파랗다``. Then P, R, Fmean (alpha 0.9), the
fragmentation penalty (gamma 0.5, beta 3) and the max over references, exactly as in English.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from scorekit.errors import InputError
from scorekit.text.lexicon import Lexicon
from scorekit.text.normalize import nfc

_VERBAL = ("VV", "VA", "VX", "VCP", "VCN")


def _is_attached(tag: str) -> bool:
    return tag.startswith("E") or tag.startswith("XS")


def units(morphs) -> tuple[list[str], list[str]]:
    """(surfaces, lemmas) of the METEOR units of one analysed text (``scorekit.text.korean.Morph``)."""
    from scorekit.text.korean import is_particle, is_punct

    groups: list[list] = []
    for m in morphs:
        if is_particle(m.tag) or is_punct(m.tag):
            continue
        if groups and _is_attached(m.tag):
            groups[-1].append(m)
        else:
            groups.append([m])
    surfaces, lemmas = [], []
    for g in groups:
        surfaces.append(nfc("".join(m.form for m in g)).lower())
        lemmas.append(_lemma(g).lower())
    return surfaces, lemmas


def _lemma(group) -> str:
    head = group[0]
    if head.tag.split("-")[0] in _VERBAL:
        return nfc(head.lemma)
    # root + verb/adjective-deriving suffix (수려+하 -> 수려하다); XSN (들, 님) is dropped.
    derived = [m for m in group[1:] if m.tag.startswith(("XSV", "XSA"))]
    if derived:
        return nfc(head.form + "".join(m.form for m in derived) + "다")
    return nfc(head.form)


def units_batch(texts: Sequence[str]) -> list[tuple[list[str], list[str]]]:
    from scorekit.text.korean import analyze_batch

    return [units(ms) for ms in analyze_batch(texts)]


# -- lexicon -> lemma synonym index -----------------------------------------------------------
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


def lemma_synonyms(lexicon: Lexicon) -> dict[str, frozenset[str]]:
    """Lexicon pairs as lemma -> lemmas (each word analysed into units; a word that is several
    units, a phrase, keys on its space-joined lemmas and so never matches a single unit)."""
    cached = _INDEX_CACHE.get(lexicon.fingerprint)
    if cached is not None:
        return cached
    words = lexicon.words()
    key = {}
    for w, (_, lemmas) in zip(words, units_batch(words)):
        key[w] = " ".join(lemmas) if lemmas else w
    table: dict[str, set[str]] = {}
    for a, b in lexicon.pairs():
        ka, kb = key[a], key[b]
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
                        beta: float = 3.0, gamma: float = 0.5, lexicon=None) -> np.ndarray:
    from scorekit.generation.meteor_align import Prepared, _check_refs, _gc_paused

    index = lemma_synonyms(resolve_lexicon(lexicon))

    def synonyms(lemma: str) -> frozenset[str]:
        return index.get(lemma) or frozenset((lemma,))

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
    analysed = {t: Prepared(*u) for t, u in zip(distinct, units_batch(distinct))}
    out = np.zeros(len(spans), dtype=np.float64)
    with _gc_paused():
        _score_all(spans, texts, analysed, synonyms, out, alpha, beta, gamma)
    return out


def _score_all(spans, texts, analysed, synonyms, out, alpha, beta, gamma) -> None:
    from scorekit.generation.meteor_align import align, score_from_counts

    for k, (start, end) in enumerate(spans):
        h = analysed[nfc(texts[start])]
        scores = []
        for t in texts[start + 1:end]:
            r = analysed[nfc(t)]
            m, chunks = align(h, r, synonyms)
            scores.append(score_from_counts(m, len(h.exact), len(r.exact), chunks, alpha, beta, gamma))
        out[k] = max(scores)
