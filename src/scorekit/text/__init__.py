"""Shared text layer: normalisation, tokenisers (English COCO/13a, Korean via Kiwi), lexicons."""

from scorekit.text.normalize import nfc

__all__ = ["nfc"]
