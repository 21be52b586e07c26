"""Unicode normalisation. Every text that enters a metric goes through :func:`nfc` first:
Korean often arrives decomposed (NFD jamo), which would otherwise never match its composed twin."""

from __future__ import annotations

import unicodedata


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)
