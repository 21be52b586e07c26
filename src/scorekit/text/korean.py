"""Korean morphological analysis through Kiwi (kiwipiepy + kiwipiepy-model, offline).

The spec's Okt needs a JVM and is slower; Kiwi gives surface morphs, lemma forms (``자`` -> ``자다``)
for stem matching, and Sejong POS tags so particles (조사, ``J*``) and punctuation (``S[FPSEOW]``)
can be dropped as the spec's EnhancedKoreanMETEOR does. All input is NFC-normalised first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from scorekit.errors import MissingDependencyError
from scorekit.text.normalize import nfc

# Sejong tags Kiwi emits for punctuation and symbols (numbers SN, Latin SL, Hanja SH are kept).
PUNCT_TAGS = frozenset({"SF", "SP", "SS", "SSO", "SSC", "SE", "SO", "SW"})
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


class Morph(NamedTuple):
    form: str   # surface form as analysed
    tag: str    # Sejong POS tag (NNG, VV, JKS, SF, ...)
    lemma: str  # dictionary form: verbs/adjectives get 다 (자 -> 자다); others equal form
    start: int = -1  # character span in the analysed (NFC) text, -1 when unknown
    end: int = -1


def is_particle(tag: str) -> bool:
    return tag.startswith("J")


def is_punct(tag: str) -> bool:
    return tag in PUNCT_TAGS


def has_hangul(text: str) -> bool:
    return bool(_HANGUL.search(text))


_KIWIS: dict[int, object] = {}   # per process: a forked child cannot use its parent's Kiwi (its
#                                  thread pool did not survive the fork), so it builds its own and
#                                  keeps the parent's referenced, never destroyed (a destructor
#                                  would wait for threads that are gone)


def get_kiwi():
    kiwi = _KIWIS.get(os.getpid())
    if kiwi is None:
        kiwi = _KIWIS[os.getpid()] = _new_kiwi()
    return kiwi


def _new_kiwi():
    try:
        from kiwipiepy import Kiwi
    except ImportError as exc:  # pragma: no cover - kiwipiepy is a core dependency
        raise MissingDependencyError(
            "Korean text needs kiwipiepy and kiwipiepy-model: pip install kiwipiepy kiwipiepy-model"
        ) from exc
    workers = int(os.environ.get("SCOREKIT_KIWI_WORKERS", "0")) or (os.cpu_count() or 1)
    return Kiwi(num_workers=workers)


_USER_KIWIS: dict[str, object] = {}


def get_kiwi_with(entries: Sequence[tuple[str, str]], key: str):
    """A Kiwi with each ``(word, POS)`` registered as a user word, so a lexicon word stays one
    morph in context (``해질녘`` is one noun, not 해+지+ㄹ+녘). Cached per ``key`` (the lexicon's
    fingerprint). Nouns are added as they are; a verb/adjective (``주무시다``) adds its stem
    (``주무시``) unless the plain Kiwi already analyses the word as stem + 다 (asked of the plain
    Kiwi, so the answer does not depend on the lexicon's order)."""
    key = f"{os.getpid()}:{key}"     # per process, as get_kiwi
    kiwi = _USER_KIWIS.get(key)
    if kiwi is not None:
        return kiwi
    try:
        from kiwipiepy import Kiwi
    except ImportError as exc:  # pragma: no cover
        raise MissingDependencyError(
            "Korean text needs kiwipiepy and kiwipiepy-model: pip install kiwipiepy kiwipiepy-model"
        ) from exc
    # Which verbs Kiwi already splits as stem + 다 is asked of the plain Kiwi, all at once, before
    # any user word is added: every analysis after an add_user_word makes Kiwi rebuild its
    # model (~0.8 s each; 44 s for the starter lexicon when asked word by word).
    entries = [(nfc(word), tag) for word, tag in entries]
    verbs = [w for w, tag in entries if tag in ("VV", "VA") and w.endswith("다") and len(w) >= 2]
    plain = get_kiwi()
    split_already = {w: toks for w, toks in zip(verbs, plain.tokenize(verbs))} if verbs else {}
    workers = int(os.environ.get("SCOREKIT_KIWI_WORKERS", "0")) or (os.cpu_count() or 1)
    kiwi = Kiwi(num_workers=workers)
    for word, tag in entries:
        if tag in ("VV", "VA"):
            if word not in split_already:
                continue
            stem = word[:-1]
            toks = split_already[word]
            if len(toks) == 2 and toks[0].form == stem and toks[0].tag.split("-")[0] == tag:
                continue
            kiwi.add_user_word(stem, tag, 0.0)
        else:
            kiwi.add_user_word(word, tag, 0.0)
    if len(_USER_KIWIS) >= 4:
        _USER_KIWIS.pop(next((k for k in _USER_KIWIS if k.startswith(f"{os.getpid()}:")), None), None)
    _USER_KIWIS[key] = kiwi
    return kiwi


def _morphs(tokens) -> list[Morph]:
    return [Morph(t.form, t.tag, getattr(t, "lemma", None) or t.form, t.start, t.start + t.len)
            for t in tokens]


def analyze(text: str) -> list[Morph]:
    """Morphs of one text (NFC-normalised first)."""
    text = nfc(text)
    if not text.strip():
        return []
    return _morphs(get_kiwi().tokenize(text))


def analyze_batch(texts: Sequence[str], kiwi=None) -> list[list[Morph]]:
    """Morphs of many texts; Kiwi spreads the batch over its worker threads. ``kiwi``: an
    instance with user words (:func:`get_kiwi_with`), default the plain shared one."""
    texts = [nfc(t) for t in texts]
    out: list[list[Morph]] = [[] for _ in texts]
    idx = [i for i, t in enumerate(texts) if t.strip()]
    if idx:
        for i, toks in zip(idx, (kiwi or get_kiwi()).tokenize([texts[i] for i in idx])):
            out[i] = _morphs(toks)
    return out


def select(morphs: Iterable[Morph], *, drop_particles: bool = False, drop_punct: bool = True,
           lemma: bool = False) -> list[str]:
    """Strings from morphs: surface forms (or lemmas), optionally without particles/punctuation."""
    return [
        (m.lemma if lemma else m.form)
        for m in morphs
        if not (drop_particles and is_particle(m.tag)) and not (drop_punct and is_punct(m.tag))
    ]


def tokenize(text: str, *, drop_particles: bool = False, drop_punct: bool = True,
             lemma: bool = False) -> list[str]:
    return select(analyze(text), drop_particles=drop_particles, drop_punct=drop_punct, lemma=lemma)


def tokenize_batch(texts: Sequence[str], *, drop_particles: bool = False, drop_punct: bool = True,
                   lemma: bool = False) -> list[list[str]]:
    """Like ``[tokenize(t) for t in texts]`` but batched over Kiwi's worker threads, and without
    building :class:`Morph` tuples (this is the hot path of corpus metrics on Korean)."""
    texts = [nfc(t) for t in texts]   # nfc() itself skips work on clean NFC text
    out: list[list[str]] = [[] for _ in texts]
    idx = [i for i, t in enumerate(texts) if t.strip()]
    if not idx:
        return out
    for i, toks in zip(idx, get_kiwi().tokenize([texts[i] for i in idx])):
        out[i] = [
            ((getattr(t, "lemma", None) or t.form) if lemma else t.form)
            for t in toks
            if not (drop_particles and t.tag.startswith("J")) and not (drop_punct and t.tag in PUNCT_TAGS)
        ]
    return out


def kiwi_version() -> str:
    try:
        import kiwipiepy

        return kiwipiepy.__version__
    except Exception:  # pragma: no cover
        return "unknown"
