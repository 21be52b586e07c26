"""Chunks (short phrases) that the chunk policy chooses from (docs/rl.md, "Compression").

English: spaCy's noun chunks and the stretches between them (with ``en_core_web_sm``), else a cut
after punctuation and before closed-class words. Korean: an eojeol ending in EC, EF, JC or
punctuation (Kiwi) closes a chunk. Chunk words are the text's whitespace words.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from scorekit.text import korean
from scorekit.text.normalize import nfc

# closed-class words that start a new phrase and never occur inside a base noun phrase
_BOUNDARY_WORDS = frozenset(
    # coordinating conjunctions and subordinators
    "and but or nor so yet because although though while whereas unless if since until "
    # relative and interrogative pronouns / adverbs
    "which that who whom whose where when why how "
    # prepositions
    "about above across after against along among around at before behind below beneath beside "
    "between beyond by despite during except for from in inside into near of off on onto out "
    "outside over past through throughout to toward towards under underneath unlike up upon via "
    "with within without according "
    # auxiliaries and modals (a verb phrase starts here)
    "is are was were be been being am has have had having do does did will would shall should can "
    "could may might must said says".split()
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


def chunk_english_rules(sentence: str) -> list[list[str]]:
    chunks: list[list[str]] = []
    current: list[str] = []
    content = False  # does the current chunk hold a word that is not a boundary word?
    for word in nfc(sentence).split():
        bare = _PUNCT_START.sub("", word).lower().rstrip(",;:.!?)]\"”’")
        boundary = bare in _BOUNDARY_WORDS
        if boundary and content:  # runs of function words ("and will be") stay together
            chunks.append(current)
            current, content = [], False
        current.append(word)
        content = content or not boundary
        if _PUNCT_END.search(word):
            chunks.append(current)
            current, content = [], False
    if current:
        chunks.append(current)
    return chunks


@functools.lru_cache(maxsize=1)
def _spacy_nlp():
    try:
        import spacy

        return spacy.load("en_core_web_sm")
    except Exception:  # spaCy or its model not installed: the rule-based chunker is used
        return None


def chunk_english_spacy(sentence: str) -> list[list[str]] | None:
    """Noun chunks and the stretches between them (verb phrases, prepositions), in order."""
    nlp = _spacy_nlp()
    if nlp is None:
        return None
    text = nfc(sentence)
    doc = nlp(text)
    cuts = sorted({0, len(text)} | {s.start_char for s in doc.noun_chunks} | {s.end_char for s in doc.noun_chunks})
    pieces = [text[a:b].split() for a, b in zip(cuts, cuts[1:])]
    # a noun chunk may end inside a whitespace word ("U.S.-based"): keep words whole
    words, out, pos = text.split(), [], 0
    for piece in pieces:
        if not piece:
            continue
        if out and pos < len(words) and piece[0] != words[pos]:
            out[-1].extend(piece)
        else:
            out.append(list(piece))
        pos += len(piece)
    return [p for p in out if p]


def chunk_korean(sentence: str, max_words: int = 5) -> list[list[str]]:
    sentence = nfc(sentence)
    eojeols = sentence.split()
    if not eojeols:
        return []
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
    closing = {j for j, tag in last_tag.items() if tag in ("EC", "EF", "JC") or korean.is_punct(tag)}
    ends = sorted(closing | {len(eojeols) - 1})   # the last eojeol of each chunk
    chunks = [eojeols[a:b + 1] for a, b in zip([0] + [e + 1 for e in ends[:-1]], ends)]
    return [piece for c in chunks for piece in _split_long(c, max_words)]


def chunk_sentences(sentences: list[str], lang: str = "en", use_spacy: bool = True) -> tuple[list[Chunk], str]:
    """All chunks of ``sentences`` in document order, and the name of the chunker used."""
    out: list[Chunk] = []
    method = "kiwi" if lang == "ko" else "rules"
    for i, s in enumerate(sentences):
        if lang == "ko":
            pieces = chunk_korean(s)
        elif use_spacy and (pieces := chunk_english_spacy(s)) is not None:
            method = "spacy"
        else:
            pieces = chunk_english_rules(s)
        out.extend(Chunk(tuple(p), i) for p in pieces if p)
    return out, method
