"""Sentence splitting and word counting for n-word summaries.

A "word" is a whitespace-separated token, as the spec counts summary length
(``len(pred.split())``, nword-summarization.md Phase 2 metrics §4). Sentences: text containing
Hangul goes through Kiwi's ``split_into_sents``; other text through a rule-based splitter (end
punctuation followed by space and a capital letter, digit or quote, except after common
abbreviations and single initials) — offline, no NLTK data needed. Newlines always end a
sentence (CNN/DailyMail highlights and many corpora put one sentence per line).
"""

from __future__ import annotations

import re

from scorekit.text.korean import get_kiwi, has_hangul
from scorekit.text.normalize import nfc

_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st mt vs etc inc ltd co corp no fig gen gov sen rep rev col lt sgt "
    "capt cmdr adm maj jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k u.n e.g i.e a.m p.m "
    "approx dept est".split()
)
# candidate boundary: ., ! or ? (possibly repeated), optional closing quotes/brackets, then space
_BOUNDARY = re.compile(r"([.!?]+)([\"'\u201d\u2019)\]]*)(\s+)(?=[\"'\u201c\u2018(\[]?[A-Z0-9\u00c0-\u024f])")


def words(text: str) -> list[str]:
    """Whitespace words, the unit of "n" in an n-word summary."""
    return text.split()


def _split_english_line(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(line):
        if m.group(1) == ".":
            prev = line[start:m.start(1)].split()
            last = prev[-1].lower().rstrip(".") if prev else ""
            # "Mr. Smith", "U.S. officials", "J. Smith": not a boundary
            if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
                continue
        pieces.append(line[start:m.end(2)].strip())
        start = m.end(3)
    return [p for p in [*pieces, line[start:].strip()] if p]


def split_sentences(text: str, lang: str = "en") -> list[str]:
    """Sentences of a document (NFC). ``lang="ko"`` or any Hangul -> Kiwi; else rule-based."""
    text = nfc(text)
    korean = lang == "ko" or has_hangul(text)
    out: list[str] = []
    for line in [line for line in text.splitlines() if line.strip()]:
        out += ([s.text.strip() for s in get_kiwi().split_into_sents(line)] if korean
                else _split_english_line(line))
    return [s for s in out if s]
