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


def _tiny_builder():
    """examples/summarization/make_tiny_encoders.py: the one builder of the tiny BERT-, ELECTRA-
    and XLNet-shaped model folders the docs use too."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "summarization" / "make_tiny_encoders.py"
    spec = importlib.util.spec_from_file_location("make_tiny_encoders", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def tiny_encoders(tmp_path_factory):
    """{"bert", "electra", "xlnet"} -> a tiny, randomly initialised model folder whose vocabulary
    is the words of the shipped English news (so Hangul is unknown to it)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import json
    import pathlib

    news = pathlib.Path(__file__).resolve().parents[2] / "examples" / "summarization" / "news_en.jsonl"
    texts = [v for line in news.read_text(encoding="utf-8").splitlines() if line.strip()
             for v in json.loads(line).values() if isinstance(v, str)]
    return _tiny_builder().build_all(tmp_path_factory.mktemp("encoders"), texts)


@pytest.fixture(scope="session")
def tiny_korean_bert(tmp_path_factory):
    """A tiny BERT whose WordPiece vocabulary holds the Korean news' words and syllables."""
    pytest.importorskip("transformers")
    import json
    import pathlib

    news = pathlib.Path(__file__).resolve().parents[2] / "examples" / "summarization" / "news_ko.jsonl"
    texts = [v for line in news.read_text(encoding="utf-8").splitlines() if line.strip()
             for v in json.loads(line).values() if isinstance(v, str)]
    from scorekit.neural.hangul import PROBE

    return _tiny_builder().build_bert(tmp_path_factory.mktemp("ko") / "bert-ko-tiny", [*texts, PROBE],
                                     lower=False)
