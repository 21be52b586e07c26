"""The COCO caption tokenizer in pure Python (no Java): pycocoevalcap's Stanford CoreNLP 3.4.1
``PTBTokenizer -preserveLines -lowerCase`` followed by its ``PUNCTUATIONS`` removal (spec
caption-metrics.md §3.3 feeds these tokens to CIDEr/BLEU). The quirks reproduced (brackets kept as
``-lrb-``..., PTB contractions, abbreviation and initial periods) are listed in docs/caption.md
("Tokenizers"); exactness is tested against the Java tokenizer on many generated captions
(``tests/text/test_english.py``, marker ``java``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from scorekit.text.normalize import nfc

# The tokens pycocoevalcap removes after PTB tokenisation (its PUNCTUATIONS, compared after
# -lowerCase: the upper-case -LRB-/-RRB-/-LCB-/-RCB- entries never match, so they are omitted).
COCO_PUNCTUATION = frozenset(["''", "'", "``", "`", ".", "?", "!", ",", ":", "-", "--", "...", ";"])

# Abbreviations whose period PTBLexer keeps (checked against CoreNLP 3.4.1).
_ABBREV = frozenset("""mr mrs ms dr st jr sr prof gen capt lt col gov sen rep adm cmdr cpl sgt pvt
    maj esq messrs mt ft ave blvd rd ste dept assn univ inc corp ltd co bros plc vs etc cf al est
    rev ph tel jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu fri calif fla
    ariz mich va sq""".split())

_UNICODE_MAP = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"',
    "\u2013": " -- ", "\u2014": " -- ", "\u2015": " -- ",
    "\u2026": " ... ", "\u00a0": " ", "\u20ac": "$", "\u00a3": "#",
})
_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
_SPECIAL = {"cannot": ["can", "not"], "gonna": ["gon", "na"], "gotta": ["got", "ta"],
            "wanna": ["wan", "na"], "lemme": ["lem", "me"], "gimme": ["gim", "me"]}

# Titles never end a sentence; any other abbreviation before a capitalised word does, and PTBLexer
# then emits an extra "." token ("etc. The" -> "etc. . the"; an initial splits: "A. The" -> "a . the").
_TITLES = frozenset("""mr mrs ms dr st prof gen capt lt col gov sen rep adm cmdr cpl sgt pvt maj
    messrs mt ft ave ste dept vs cf rev ph""".split())

# An acronym/initial ends the sentence only before one of these capitalised words (empirical,
# CoreNLP 3.4.1): "U.S. The" -> "u.s. . the", "A. The" -> "a . the", but "U.S. TV" stays.
_SENT_START = frozenset("""The A An In It This That He She They We You There These At But If As
    When What Her Our Their One Some Many So Then Yet After While Since Now Such Other Here Mr.
    Ms.""".split())
_NEXT_WORD = re.compile(r"(Mr\.|Ms\.|[A-Z][a-z]*)")

# One scanner for a whitespace-free chunk; the alternatives are tried in order at each position.
_NUM = re.compile(
    r"[+-]?(?:\d+(?:[.,:/]\d+)*[,:]\d+(?:[.,:/]\d+)*(?=[^\W\d]|-)"  # 1,000s 3:30-pm: the number alone
    r"|(?:\d+(?:[.,:/]\d+)*|\.\d+)(?![\w-]))"  # 3.5 1,000 3:30 1/2 .5 -5
)
_SCAN = re.compile(
    r"""
    (?P<word>(?:\d+(?:,\d+)+(?:\.\d+)?-(?=\w))?  # 1,000-foot 2,000-year-old: one token
             \w+(?:(?:[-/]|'(?![sdm]\b|re\b|ve\b|ll\b))\w+|\.\w+)*)  # black-and-white o'clock
    | (?P<dots>\.{3,}|\.\.?)
    | (?P<dash>-{2,}|-)
    | (?P<bang>[!?]+)
    | (?P<other>.)
    """,
    re.VERBOSE | re.IGNORECASE,
)
_LONE_CLITIC = re.compile(r"'(?:s|m|d|re|ve|ll)(?![\w'])", re.IGNORECASE)
_ACRONYM = re.compile(r"^(?:[a-z]\.)+[a-z]?$", re.IGNORECASE)
_CLITIC = re.compile(r"^(.+?)(n't|'s|'m|'d|'re|'ve|'ll)$", re.IGNORECASE)


def _split_word(word: str) -> list[str]:
    low = word.lower()
    if low in _SPECIAL:
        return list(_SPECIAL[low])
    m = _CLITIC.match(word)
    return [m.group(1), m.group(2)] if m and m.group(1) else [word]


@lru_cache(maxsize=1 << 17)
def _chunk_tokens_cached(chunk: str, sent_end: bool, sent_start: bool) -> tuple[str, ...]:
    """The lower-cased tokens of one chunk in its context; captions reuse a small vocabulary, so
    most chunks are looked up, not scanned."""
    return tuple(t.lower() for t in _chunk_tokens(chunk, sent_end, sent_start))


def _chunk_tokens(chunk: str, sent_end: bool = False, sent_start: bool = False) -> list[str]:
    out: list[str] = []
    pos, n = 0, len(chunk)
    while pos < n:
        m = _SCAN.match(chunk, pos)
        kind, text = m.lastgroup, m.group()
        end = m.end()
        num = _NUM.match(chunk, pos)
        if num and num.end() > end:  # longest match wins, as in the JFlex lexer
            kind, text, end = "num", num.group(), num.end()
        if kind == "word":
            # clitics glued by an apostrophe: man's, it's (don't: below)
            if end < n and chunk[end] == "'" and (cl := _LONE_CLITIC.match(chunk, end)):
                out += [*_split_word(text), cl.group().lower()]
                pos = cl.end()
                continue
            low = text.lower()
            # a period directly after the word: keep it for abbreviations/initials/acronyms
            if end < n and chunk[end] == ".":
                initial = len(low) == 1 and low.isalpha()
                if low in _ABBREV or initial or _ACRONYM.match(low + "."):
                    last = end + 1 == n
                    if initial:
                        out += [text, "."] if last and sent_start else [text + "."]
                    else:
                        out.append(text + ".")
                        acronym = low not in _ABBREV
                        if last and (sent_start if acronym else sent_end and low not in _TITLES):
                            out.append(".")
                    pos = end + 1
                    continue
            if low.endswith("n") and end < n and chunk[end:end + 2].lower() == "'t":
                # don't: scanner stopped before 't because the apostrophe rule refuses it
                out += [text[:-1], text[-1] + "'t"] if text[:-1] else [text[-1] + "'t"]
                pos = end + 2
                continue
            out.extend(_split_word(text))
        elif kind in ("num", "bang"):
            out.append(text)
        elif kind == "dots":   # ".." is two periods
            out += ["..."] if len(text) >= 3 else ["."] * len(text)
        elif kind == "dash":
            out.append("--" if len(text) >= 2 else "-")
        else:
            ch = text
            if ch in _BRACKETS:
                out.append(_BRACKETS[ch])
            elif ch == '"':
                out.append("``" if pos == 0 else "''")
            elif ch == "'" and (cl := _LONE_CLITIC.match(chunk, pos)):
                out.append(cl.group())
                end = cl.end()
            elif ch == "'":
                out.append("`" if pos == 0 and end < n else "'")
            else:
                out.append(ch)
        pos = end
    return out


_SPLIT = re.compile(r"(\s+)")
_PLAIN = re.compile(r"[\w\s]*")  # only word characters and whitespace: every chunk is one token


@lru_cache(maxsize=1 << 17)
def _chunk_coco_cached(chunk: str, sent_end: bool, sent_start: bool) -> tuple[str, ...]:
    """:func:`_chunk_tokens_cached` without COCO's punctuation tokens."""
    return tuple(t for t in _chunk_tokens_cached(chunk, sent_end, sent_start) if t not in COCO_PUNCTUATION)


def _tokens(text: str, chunk_tokens) -> list[str]:
    text = nfc(text).translate(_UNICODE_MAP)
    if _PLAIN.fullmatch(text):
        # Fast path, same result as the scanner: a chunk of word characters is one word token
        # (no clitic, period or number rule can apply) unless it is one of the _SPECIAL words.
        tokens = text.lower().split()
        if _SPECIAL.keys().isdisjoint(tokens):
            return tokens
    chunks = text.split()
    if "." not in text or all("." not in c for c in chunks[:-1]):
        # the sentence context only matters to a chunk with a period that has a next chunk:
        # otherwise look each chunk up alone (most captions: "A dog runs." ends that way)
        return [t for c in chunks for t in chunk_tokens(c, False, False)]
    tokens: list[str] = []
    pieces = _SPLIT.split(text)  # chunks at even indices, their whitespace in between
    for i in range(0, len(pieces), 2):
        chunk = pieces[i]
        if not chunk:
            continue
        if "." not in chunk:
            tokens.extend(chunk_tokens(chunk, False, False))
            continue
        space = pieces[i + 1] if i + 1 < len(pieces) else ""
        nxt = pieces[i + 2] if i + 2 < len(pieces) else ""
        # sentence end for "etc."-like abbreviations: two spaces or a capital next (not end of line)
        sent_end = bool(nxt) and (space.startswith("  ") or nxt[:1].isupper())
        m = _NEXT_WORD.fullmatch(nxt)
        sent_start = bool(m) and space == " " and m.group(1) in _SENT_START
        tokens.extend(chunk_tokens(chunk, sent_end, sent_start))
    return tokens


def ptb_tokenize(text: str) -> list[str]:
    """PTB tokens, lower-cased, punctuation kept (what the Java tokenizer prints)."""
    return _tokens(text, _chunk_tokens_cached)


def coco_tokenize(text: str) -> list[str]:
    """Tokens as pycocoevalcap's PTBTokenizer wrapper returns them (punctuation removed)."""
    return _tokens(text, _chunk_coco_cached)
