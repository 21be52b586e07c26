"""Readers and writers. Metrics never touch files; everything on disk goes through here."""
