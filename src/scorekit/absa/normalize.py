"""Normalisation for matching (aspect_term, polarity) pairs — spec §3.1 ``normalize_for_eval`` /
``normalize_polarity``: NFC, casefold, whitespace and edge punctuation for a term; synonyms for a
polarity (missing -> neutral, a recorded fallback). The rules: docs/absa.md, "Matching and
normalisation"."""

from __future__ import annotations

import re
from functools import lru_cache

from scorekit.text.normalize import nfc

_WS = re.compile(r"\s+")
_EDGE_PUNCT = ".,;:!?\"'`“”‘’()[]{}<>「」『』《》〈〉…·~"

POLARITY_SYNONYMS = {
    "pos": "positive", "positive": "positive", "긍정": "positive",
    "neg": "negative", "negative": "negative", "부정": "negative",
    "neu": "neutral", "neutral": "neutral", "중립": "neutral",
    "mixed": "mixed", "혼합": "mixed",
}
#: polarities a prediction may carry to count as "valid" (§3.5 pred_valid_polars)
VALID_POLARITIES = frozenset({"positive", "negative", "neutral"})


def normalize_term(value: object) -> str:
    """Normalised aspect term; ``""`` for implicit / missing."""
    return _normalize_term(value) if isinstance(value, str) and value else ""


@lru_cache(maxsize=65536)  # aspect terms repeat a lot across a run
def _normalize_term(value: str) -> str:
    return _WS.sub(" ", nfc(value).casefold()).strip().strip(_EDGE_PUNCT).strip()


def normalize_polarity(value: object) -> tuple[str, bool]:
    """``(polarity, missing)``: canonical polarity and whether it was missing (-> neutral)."""
    given = isinstance(value, str) and value.strip()
    return _normalize_polarity(value) if given else ("neutral", True)


@lru_cache(maxsize=4096)
def _normalize_polarity(value: str) -> tuple[str, bool]:
    key = nfc(value).strip().casefold()
    return POLARITY_SYNONYMS.get(key, key), False
