"""Shared fixtures for the summarisation tests."""

import zlib

import numpy as np
import pytest


def _fake_embed(texts):
    """Deterministic stand-in for the SBERT encoder: bag-of-words hashed into 64 dims, so
    sentences sharing words are similar (tests TextRank without loading a model)."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, zlib.crc32(w.strip(".,!?").encode()) % 64] += 1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms > 0, norms, 1.0)


@pytest.fixture
def fake_embed():
    return _fake_embed
