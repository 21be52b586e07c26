"""Chunks (short phrases) that the chunk policy chooses from.

- English: spaCy noun chunks when spaCy and its ``en_core_web_sm`` model are installed (the spec's
  choice); otherwise a rule-based chunker that needs no model: a sentence is cut at punctuation
  and before clause-boundary function words (and, but, which, that, ...), and pieces longer than
  ``max_words`` are split evenly.
- Korean: Kiwi morphs; an eojeol (space-separated word) closes a chunk when it ends in a
  connective/final ending (EC, EF), a conjunctive particle (JC) or punctuation.

Chunk words are the whitespace words of the original text, so a summary of n chunk words has
exactly n words by the spec's ``len(pred.split())`` count.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from scorekit.text import korean
from scorekit.text.normalize import nfc

_BOUNDARY_WORDS = frozenset(
    "and but or nor so yet which that who whom whose where when while because although though "
    "after before since until unless if as than said says according".split()
)
_PUNCT_END = re.compile(r"[,;:.!?)\]\"”’]+$")
_PUNCT_START = re.compile(r"^[(\[\"“‘]+")


@dataclass(frozen=True)
class Chunk:
    words: tuple[str, ...]
    sentence: int  # index of the sentence the chunk comes from

    @property
    def text(self) -> str:
        return " ".join(self.words)


def _split_long(words: list[str], max_words: int) -> list[list[str]]:
    if len(words) <= max_words:
        return [words]
    parts = -(-len(words) // max_words)
    size = -(-len(words) // parts)
    return [words[i:i + size] for i in range(0, len(words), size)]


def chunk_english_rules(sentence: str, max_words: int = 6) -> list[list[str]]:
    chunks: list[list[str]] = []
    current: list[str] = []
    for word in nfc(sentence).split():
        bare = _PUNCT_START.sub("", word).lower()
        if current and bare in _BOUNDARY_WORDS:
            chunks.append(current)
            current = []
        current.append(word)
        if _PUNCT_END.search(word):
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return [piece for c in chunks for piece in _split_long(c, max_words)]


@functools.lru_cache(maxsize=1)
def _spacy_nlp():
    try:
        import spacy

        return spacy.load("en_core_web_sm")
    except Exception:  # spaCy or its model not installed: the rule-based chunker is used
        return None


def chunk_english_spacy(sentence: str) -> list[list[str]] | None:
    nlp = _spacy_nlp()
    if nlp is None:
        return None
    return [span.text.split() for span in nlp(nfc(sentence)).noun_chunks if span.text.split()]


def chunk_korean(sentence: str, max_words: int = 5) -> list[list[str]]:
    sentence = nfc(sentence)
    eojeols = sentence.split()
    if not eojeols:
        return []
    closing = set()
    tokens = korean.get_kiwi().tokenize(sentence)
    # map each morph to the eojeol containing its start offset
    starts, pos = [], 0
    for w in eojeols:
        pos = sentence.index(w, pos)
        starts.append(pos)
        pos += len(w)
    last_tag: dict[int, str] = {}
    j = 0
    for t in tokens:
        while j + 1 < len(starts) and t.start >= starts[j + 1]:
            j += 1
        last_tag[j] = t.tag
    for j, tag in last_tag.items():
        if tag in ("EC", "EF", "JC") or korean.is_punct(tag):
            closing.add(j)
    chunks, current = [], []
    for j, w in enumerate(eojeols):
        current.append(w)
        if j in closing:
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return [piece for c in chunks for piece in _split_long(c, max_words)]


def chunk_sentences(sentences: list[str], lang: str = "en", use_spacy: bool = True) -> tuple[list[Chunk], str]:
    """All chunks of ``sentences`` in document order, and the name of the chunker used."""
    out: list[Chunk] = []
    method = "kiwi" if lang == "ko" else "rules"
    for i, s in enumerate(sentences):
        if lang == "ko":
            pieces = chunk_korean(s)
        else:
            pieces = chunk_english_spacy(s) if use_spacy else None
            if pieces is None:
                pieces = chunk_english_rules(s)
            else:
                method = "spacy"
        out.extend(Chunk(tuple(p), i) for p in pieces if p)
    return out, method
