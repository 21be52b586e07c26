"""Topic-set validation shared by the reader and the Python API: every topic needs at least two
distinct keywords the model can embed (topic-metrics.md §1 builds a keyword graph per topic)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from scorekit.errors import ScorekitError
from scorekit.text.normalize import nfc


def validate_topics(topics: Sequence[Sequence[str]], names: Sequence[str] | None = None,
                    *, min_words: int = 2) -> list[list[str]]:
    """NFC-normalised, stripped keyword lists; a ScorekitError names the first bad topic."""
    if not topics:
        raise ScorekitError("the topic list is empty: expected at least one topic of keywords")
    out = []
    for i, words in enumerate(topics):
        topic = f"topic {names[i]!r}" if names is not None else f"topic #{i + 1}"
        if isinstance(words, str) or not isinstance(words, Sequence):
            raise ScorekitError(f"{topic}: expected a list of keywords, got {type(words).__name__}")
        clean = []
        for word in words:
            if not isinstance(word, str):
                raise ScorekitError(f"{topic}: keyword {word!r} is not a string")
            w = nfc(word).strip()
            if not any(not unicodedata.category(ch).startswith(("C", "Z")) for ch in w):
                raise ScorekitError(f"{topic}: keyword {word!r} cannot be embedded (empty or only "
                                    "whitespace/control characters)")
            clean.append(w)
        if len(clean) < min_words:
            raise ScorekitError(f"{topic}: has {len(clean)} keyword(s); at least {min_words} are "
                                "needed (the keyword graph and SC need pairs)")
        seen: set[str] = set()
        dup = [w for w in clean if w in seen or seen.add(w)]
        if dup:
            raise ScorekitError(f"{topic}: duplicate keyword(s) {', '.join(map(repr, dup))}")
        out.append(clean)
    return out


__all__ = ["validate_topics"]
