"""Meteor 1.5's text handling, reimplemented: the ``-norm`` normaliser (English), Java's
``String.hashCode`` (Meteor compares words by hash key), and the Snowball English stemmer exactly
as the jar's ``org.tartarus.snowball`` build computes it (absolute R1/R2 marks; nltk's
``SnowballStemmer`` differs on a few words such as *realization*).

Each behaviour was pinned against the jar as an oracle (``tests/generation/test_meteor15*.py``):
Java regular expressions are translated literally (``\\p{Digit}`` is ASCII 0-9, ``\\s`` the six
ASCII spaces, ``replaceAll`` is non-overlapping left to right like :func:`re.sub`), Java's
``StringTokenizer`` splits on `` \\t\\n\\r\\f`` only and ``trim`` drops every char <= U+0020.
"""

from __future__ import annotations

import re

# ----------------------------------------------------------------------------- normaliser
_ALPHA = ("A-Za-z\u0160\u017d\u0161\u017e\u0178\xc0-\xd6\xd8-\xf6\xf8-\u017e"
          "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f")
_ALNUM = "0-9" + _ALPHA
_JS = " \t\n\x0b\f\r"          # Java regex \s (no UNICODE_CHARACTER_CLASS)
_TOKEN_SPLIT = re.compile("[ \t\n\r\f]+")   # java.util.StringTokenizer's default delimiters

_R_SEP_OTHER = re.compile("([^" + _ALNUM + _JS + ".'`,\\-\u2018\u2019])")
_R_MULTI_DOT = re.compile(r"\.([.]+)")
_R_MULTI_DOT2 = re.compile(r"DOTMULTI\.([^.])")
# applied in order: commas, quotes (then dashes are unified), hyphens between words, contractions
_PUNCT_RULES = [(re.compile(a), b) for a, b in (
    (r"([^0-9])[,]([^0-9])", r"\1 , \2"), (r"([0-9])[,]([^0-9])", r"\1 , \2"),
    (r"([^0-9])[,]([0-9])", r"\1 , \2"), ("([`\u2018\u2019])", "'"), ("([\u201c\u201d]|'')", ' " '))]
_WORD_RULES = [(re.compile(a), b) for a, b in (
    ("([" + _ALNUM + ".])[\\-]([" + _ALNUM + "])", r"\1 \2"),
    ("([^" + _ALPHA + "])[']([^" + _ALPHA + "])", r"\1 ' \2"),
    ("([^" + _ALPHA + "0-9])[']([" + _ALPHA + "])", r"\1 ' \2"),
    ("([" + _ALPHA + "])[']([^" + _ALPHA + "])", r"\1 ' \2"),
    ("([" + _ALPHA + "])[']([" + _ALPHA + "])", r"\1 '\2"),
    ("([0-9])[']([s])", r"\1 '\2"))]
_R_WHITE = re.compile("[ \u2000-\u200a\u202f\u205f\u3000\xa0]+")
_R_NBP_ALPHA = re.compile("[" + _ALPHA + "]")
_R_NBP_LOWER = re.compile("^[a-z]")
_R_NBP_NUM = re.compile("^[0-9]+")
_JAVA_TRIM = "".join(chr(c) for c in range(33))

NBP_ANY, NBP_NUM_ONLY = 1, 2


def parse_nonbreaking_prefixes(text: str) -> dict[str, int]:
    """``nonbreaking/english.prefixes``: prefix -> NBP_ANY | NBP_NUM_ONLY, comments skipped."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        toks = java_tokens(line)
        if not toks or toks[0].startswith("#"):
            continue
        out[toks[0]] = NBP_NUM_ONLY if len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#" else NBP_ANY
    return out


def java_tokens(line: str) -> list[str]:
    """``new StringTokenizer(line)``: split on space, tab, newline, carriage return, form feed."""
    return [t for t in _TOKEN_SPLIT.split(line) if t]


def java_trim(text: str) -> str:
    return text.strip(_JAVA_TRIM)


def normalize_line(line: str, nbp: dict[str, int]) -> str:
    """``Normalizer.normalizeLine(line, LANG_EN, keepPunctuation=true)`` (Meteor's ``-norm``),
    before lowercasing."""
    w = " " + line + " "
    w = _R_SEP_OTHER.sub(r" \1 ", w)
    w = _R_MULTI_DOT.sub(r" DOTMULTI\1", w)
    while "DOTMULTI." in w:
        w = _R_MULTI_DOT2.sub(r"DOTDOTMULTI \1", w)
        w = w.replace("DOTMULTI.", "DOTDOTMULTI")
    for rx, rep in _PUNCT_RULES:
        w = rx.sub(rep, w)
    w = w.replace("\u2013", "-").replace("--", "-")
    for rx, rep in _WORD_RULES:
        w = rx.sub(rep, w)
    words = java_tokens(w)
    parts = []
    n = len(words)
    for i, word in enumerate(words):
        if len(word) > 1 and word.endswith("."):
            pre = word[:-1]
            kind = nbp.get(pre)
            if "." in pre and _R_NBP_ALPHA.search(pre):
                parts.append(word.replace(".", ""))
            elif kind == NBP_ANY or (i < n - 1 and _R_NBP_LOWER.match(words[i + 1])):
                parts.append(word)
            elif kind == NBP_NUM_ONLY and i < n - 1 and _R_NBP_NUM.match(words[i + 1]):
                parts.append(word)
            else:
                parts.append(pre + " .")
        else:
            parts.append(word)
        parts.append(" ")
    w = "".join(parts)
    while "DOTDOTMULTI" in w:
        w = w.replace("DOTDOTMULTI", "DOTMULTI.")
    w = w.replace("DOTMULTI", ".")
    return java_trim(_R_WHITE.sub(" ", w))


def java_lower(text: str) -> str:
    """``String.toLowerCase()`` (root-like locale); Python's ``str.lower`` agrees on the text
    Meteor sees (final sigma included) except for rare special casings."""
    return text.lower()


# ----------------------------------------------------------------------------- Java hashCode
def java_hash(text: str) -> int:
    """``String.hashCode()`` (signed 32-bit, over UTF-16 code units)."""
    h = 0
    if text.isascii() or max(text) < "\U00010000":
        for ch in text:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
    else:
        data = text.encode("utf-16-le")
        for k in range(0, len(data), 2):
            h = (31 * h + (data[k] | data[k + 1] << 8)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= (1 << 31) else h


# ----------------------------------------------------------------------------- Snowball English
_V = frozenset("aeiouy")
_V_WXY = frozenset("aeiouywxY")
_VALID_LI = frozenset("cdeghkmnrt")
_EXCEPTION1 = {"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
               "idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
               "singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
               "cosmos": "cosmos", "bias": "bias", "andes": "andes"}
_EXCEPTION2 = frozenset(("inning", "outing", "canning", "herring", "earring", "proceed", "exceed",
                         "succeed"))
_STEP1B = ("eedly", "ingly", "edly", "eed", "ing", "ed")
_STEP2 = (("ization", "ize"), ("ational", "ate"), ("fulness", "ful"), ("ousness", "ous"),
          ("iveness", "ive"), ("tional", "tion"), ("biliti", "ble"), ("lessli", "less"),
          ("entli", "ent"), ("ation", "ate"), ("alism", "al"), ("aliti", "al"), ("ousli", "ous"),
          ("iviti", "ive"), ("fulli", "ful"), ("enci", "ence"), ("anci", "ance"), ("abli", "able"),
          ("izer", "ize"), ("ator", "ate"), ("alli", "al"), ("bli", "ble"), ("ogi", "og"),
          ("li", ""))
_STEP3 = (("ational", "ate"), ("tional", "tion"), ("alize", "al"), ("icate", "ic"),
          ("iciti", "ic"), ("ative", ""), ("ical", "ic"), ("ness", ""), ("ful", ""))
_STEP4 = tuple((suf, "") for suf in ("ement", "ance", "ence", "able", "ible", "ment", "ant", "ent",
                                      "ism", "ate", "iti", "ous", "ive", "ize", "ion", "al", "er",
                                      "ic"))
# the suffixes of steps 2-4 replaced only when this holds of (word, suffix start, R2)
_ONLY_IF = {"ogi": lambda w, i, p2: i >= 1 and w[i - 1] == "l",
            "li": lambda w, i, p2: i >= 1 and w[i - 1] in _VALID_LI,
            "ative": lambda w, i, p2: i >= p2,
            "ion": lambda w, i, p2: i >= 1 and w[i - 1] in "st"}
_DOUBLES = frozenset(("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"))


def _gopast_regions(w: str, start: int) -> int:
    """Position after the first non-vowel that follows a vowel, searching from ``start``."""
    n = len(w)
    i = start
    while i < n and w[i] not in _V:
        i += 1
    while i < n and w[i] in _V:
        i += 1
    return i + 1 if i < n else n


def _shortv(w: str, end: int) -> bool:
    """Snowball ``shortv`` tested backwards from ``end``."""
    if end >= 3 and w[end - 1] not in _V_WXY and w[end - 2] in _V and w[end - 3] not in _V:
        return True
    return end == 2 and w[1] not in _V and w[0] in _V


def snowball_english(word: str) -> str:
    """The Snowball English (Porter2) stemmer as the jar's generated Java code runs it."""
    if word in _EXCEPTION1:
        return _EXCEPTION1[word]
    if len(word.encode("utf-16-le")) < 6:     # `not hop 3`, counted in UTF-16 units
        return word
    chars = list(word[1:] if word.startswith("'") else word)
    if chars and chars[0] == "y":
        chars[0] = "Y"
    for i in range(1, len(chars)):
        if chars[i] == "y" and chars[i - 1] in _V:
            chars[i] = "Y"
    w = "".join(chars)
    n = len(w)
    special = 5 if w.startswith(("gener", "arsen")) else 6 if w.startswith("commun") else None
    p1 = min(_gopast_regions(w, 0) if special is None else special, n)
    p2 = _gopast_regions(w, p1) if p1 < n else n
    # Step 0
    w = next((w[: -len(suf)] for suf in ("'s'", "'s", "'") if w.endswith(suf)), w)
    # Step 1a
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith(("ied", "ies")):
        w = w[:-3] + ("i" if len(w) - 3 >= 2 else "ie")
    elif w.endswith("s") and not w.endswith(("us", "ss")):
        k = len(w) - 1          # `next gopast v`: a vowel before the letter preceding the s
        if k >= 1 and any(c in _V for c in w[: k - 1]):
            w = w[:-1]
    if w in _EXCEPTION2:
        return w
    # Step 1b
    for suf in _STEP1B:
        if w.endswith(suf):
            start = len(w) - len(suf)
            if suf in ("eed", "eedly"):
                if start >= p1:
                    w = w[:start] + "ee"
            elif any(c in _V for c in w[:start]):
                w = w[:start]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif w[-2:] in _DOUBLES:
                    w = w[:-1]
                elif len(w) == p1 and _shortv(w, len(w)):
                    w += "e"
            break
    # Step 1c
    if len(w) >= 3 and w[-1] in "yY" and w[-2] not in _V:
        w = w[:-1] + "i"
    # Steps 2, 3 and 4: the first listed suffix of the word, replaced when it starts in the region
    for table, region in ((_STEP2, p1), (_STEP3, p1), (_STEP4, p2)):
        suf, rep = next(((suf, rep) for suf, rep in table if w.endswith(suf)), ("", None))
        start = len(w) - len(suf)
        if rep is not None and start >= region and _ONLY_IF.get(suf, lambda *_: True)(w, start, p2):
            w = w[:start] + rep
    # Step 5
    start = len(w) - 1
    if w.endswith("e") and (start >= p2 or (start >= p1 and not _shortv(w, start))):
        w = w[:start]
    elif w.endswith("l") and start >= p2 and start >= 1 and w[start - 1] == "l":
        w = w[:start]
    return w.replace("Y", "y")
