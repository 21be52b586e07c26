"""Unicode normalisation. Every text that enters a metric goes through :func:`nfc` first.

Two things happen, for every language:

1. **Invisible format characters are removed**: zero-width space, non-joiner and joiner
   (U+200B–U+200D), word joiner (U+2060), the byte-order mark / zero-width no-break space
   (U+FEFF) anywhere in the text, and the soft hyphen (U+00AD). They are invisible on screen but
   split or glue tokens: a zero-width space inside a Korean caption dropped its METEOR from 0.651
   to 0.335 and BLEU-4 from 0.276 to 1e-5. Signatures carry ``norm:nfc+invisible``.
2. **NFC composition**: Korean often arrives decomposed (NFD jamo), which would otherwise never
   match its composed twin.
"""

from __future__ import annotations

import re
import unicodedata

INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_INVISIBLE_RE = re.compile(f"[{INVISIBLE}]")

# What signatures say about text normalisation (the ``norm`` field).
SIGNATURE = "nfc+invisible"


def strip_invisible(text: str) -> str:
    """Remove the invisible format characters listed in :data:`INVISIBLE`."""
    return _INVISIBLE_RE.sub("", text) if _INVISIBLE_RE.search(text) else text


def nfc(text: str) -> str:
    """Invisible format characters removed, then NFC (see the module doc)."""
    if text.isascii():  # ASCII is NFC and holds none of the invisible characters
        return text
    text = strip_invisible(text)
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)
