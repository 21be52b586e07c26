"""The pure-Python COCO tokenizer against pycocoevalcap's Java PTBTokenizer (one JVM per batch)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.text.english import COCO_PUNCTUATION, coco_tokenize, ptb_tokenize

pycoco_tok = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer")
JAR = Path(pycoco_tok.__file__).with_name("stanford-corenlp-3.4.1.jar")
needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="needs a Java runtime")

WORDS = ["a", "A", "man", "Man", "dog", "dogs", "cat", "riding", "the", "The", "on", "of", "bike",
         "street", "black-and-white", "two-story", "red", "is", "in", "kite", "T-shirt", "10-year-old",
         "o'clock", "U.S.", "Mr.", "St.", "etc.", "a.m.", "and/or", "bus", "I", "girl", "its", "TV"]
NUMBERS = ["2", "10", "3.5", "1,000", "3:30", "1/2", "90", "5.50", "1990s", ".5"]
CLITICS = ["'s", "n't", "'re", "'ll", "'ve", "'m", "'d"]
ENDS = ["", "", "", ".", ",", "!", "?", ";", ":", "...", "!!", "?!"]


@st.composite
def caption(draw):
    parts = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.integers(0, 9))
        if kind <= 4:
            piece = draw(st.sampled_from(WORDS))
        elif kind == 5:
            piece = draw(st.sampled_from(NUMBERS))
        elif kind == 6:
            if draw(st.booleans()):
                piece = draw(st.sampled_from(["do", "is", "ca", "wo", "does", "are"])) + "n't"
            else:
                base = draw(st.sampled_from(["it", "he", "they", "man", "dog", "John"]))
                piece = base + draw(st.sampled_from(CLITICS[:1] + CLITICS[2:]))
        elif kind == 7:
            piece = draw(st.sampled_from(["dogs'", "cannot", "gonna", "don't", "can't", "won't"]))
        elif kind == 8:
            piece = draw(st.sampled_from(["-", "--", "&", "$", "%", "'s"]))
        else:
            inner = draw(st.sampled_from(WORDS[:12]))
            o, c = draw(st.sampled_from([("(", ")"), ('"', '"'), ("[", "]"), ("'", "'"), ("{", "}")]))
            piece = o + inner + c
        piece += draw(st.sampled_from(ENDS)) if not piece.endswith(".") else ""
        parts.append(piece)
    return " ".join(parts)


def java_ptb(lines):
    """All lines through ONE JVM, exactly as pycocoevalcap invokes it.

    A sentinel last line: PTBLexer treats the end of a line as a sentence end ("etc." -> "etc. .")
    except at the very end of its input, so only the final caption of a batch would differ."""
    lines = list(lines) + ["x"]
    cmd = ["java", "-cp", str(JAR), "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase"]
    out = subprocess.run(cmd, input="\n".join(lines), capture_output=True, text=True, check=True).stdout
    got = out.split("\n")[: len(lines)]
    assert len(got) == len(lines)
    return got[:-1]


def coco_java(lines):
    # the post-processing of pycocoevalcap's PTBTokenizer.tokenize
    return [[w for w in line.rstrip().split(" ") if w not in pycoco_tok.PUNCTUATIONS and w]
            for line in java_ptb(lines)]


FIXED = [
    "A man riding a wave on top of a surfboard.",
    "Two dogs' toys (red and blue) lie on the floor, don't they?",
    "\"Hello,\" she said -- it's 3:30 p.m. in the U.S. and 1,000 people wait...",
    "A black-and-white photo of a 10-year-old boy [left] {right}",
    "The cat can't; won't! I'm sure we'll see, they've gone & he'd go.",
    "Mr. Smith's car is parked on St. James street etc.",
    "a  man   on a  bike .",
    "It\u2019s a \u201csmart\u201d dog \u2013 ok \u2014 fine\u2026 yes",
]


@needs_java
@pytest.mark.java
def test_fixed_captions_equal_java():
    assert [coco_tokenize(s) for s in FIXED] == coco_java(FIXED)


@needs_java
@pytest.mark.java
def test_random_captions_equal_java():
    # one hypothesis run collects the captions, then one JVM call checks all of them
    captions = []

    @settings(max_examples=600, database=None)
    @given(caption())
    def collect(c):
        captions.append(c)

    collect()
    captions = list(dict.fromkeys(captions))
    assert len(captions) > 300
    expected = coco_java(captions)
    mismatches = [(c, e, coco_tokenize(c)) for c, e in zip(captions, expected) if coco_tokenize(c) != e]
    assert not mismatches, mismatches[:5]
    # the raw PTB tokens agree too, up to sentence-final "." tokens (which COCO drops): PTBLexer
    # looks across line ends for those
    raw = java_ptb(captions)
    strip = lambda toks: [t for t in toks if t != "."]  # noqa: E731
    assert all(strip(ptb_tokenize(c)) == strip(r.split()) for c, r in zip(captions, raw))


def test_punctuation_removed_and_brackets_kept():
    assert coco_tokenize("A dog (brown), runs!") == ["a", "dog", "-lrb-", "brown", "-rrb-", "runs"]
    assert coco_tokenize("Don't stop.") == ["do", "n't", "stop"]
    assert coco_tokenize("") == []
    assert not COCO_PUNCTUATION & {"-lrb-", "-rrb-"}


def test_nfc_normalised():
    decomposed = "Cafe\u0301 au lait."
    assert coco_tokenize(decomposed) == ["caf\u00e9", "au", "lait"]


def _scan_every_chunk(text):
    """The tokenizer without its fast paths and cache: every chunk through the scanner, with its
    sentence context (the algorithm before the speed work)."""
    import re

    from scorekit.text import english as E

    text = E.nfc(text).translate(E._UNICODE_MAP)
    tokens = []
    pieces = re.split(r"(\s+)", text)
    for i in range(0, len(pieces), 2):
        chunk = pieces[i]
        if not chunk:
            continue
        space = pieces[i + 1] if i + 1 < len(pieces) else ""
        nxt = pieces[i + 2] if i + 2 < len(pieces) else ""
        sent_end = bool(nxt) and (space.startswith("  ") or nxt[:1].isupper())
        m = E._NEXT_WORD.fullmatch(nxt)
        sent_start = bool(m) and space == " " and m.group(1) in E._SENT_START
        tokens.extend(E._chunk_tokens(chunk, sent_end, sent_start))
    return [t.lower() for t in tokens]


_SPACES = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\u3000", "\u00a0", " \u2009 "])


@settings(max_examples=400, database=None)
@given(st.lists(st.one_of(caption(), st.sampled_from(WORDS + ["Cannot", "GONNA", "wanna", "ÉCOLE", "x_y"]),
                          st.text(max_size=6)), min_size=0, max_size=8), st.lists(_SPACES, min_size=8, max_size=8))
def test_fast_paths_and_cache_equal_the_scanner(parts, spaces):
    text = "".join(p + s for p, s in zip(parts, spaces)).strip()
    expected = _scan_every_chunk(text)
    assert ptb_tokenize(text) == expected
    assert ptb_tokenize(text) == expected  # second call: from the chunk cache


@needs_java
@pytest.mark.java
def test_plain_captions_with_odd_whitespace_equal_java():
    captions = ["Two  dogs\tplay in the park", "A MAN Cannot ride\u3000a bike", "gonna go   now",
                "the 1990s and 2 cats", "x_y z", "ÉCOLE  Riding"]
    assert [coco_tokenize(c) for c in captions] == coco_java(captions)


@needs_java
@pytest.mark.java
def test_comma_numbers_joined_to_words_equal_java():
    # found by the end-to-end benchmark: "1,000-foot" was split "1 , 000-foot"
    captions = ["a 1,000-foot hill", "a 1,000-foot-tall tree", "a 1,000,000-dollar prize", "2,000-year-old",
                "the 1,000-foot.", "a 1,000-foot's", "the 1,000s", "a 1,000- x", "at 3:30-pm ok", "3:30pm",
                "x -1,000-foot", "1,000.50 dollars", "1,000.5-foot", "+3:30-x", "at 10:30:45-pm"]
    assert [coco_tokenize(c) for c in captions] == coco_java(captions)
