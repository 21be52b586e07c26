"""Readers and writers. Metrics never touch files; everything on disk goes through here."""

from scorekit.io.atomic import atomic_write, open_text

__all__ = ["atomic_write", "open_text"]
