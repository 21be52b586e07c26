"""Tokenizer registry: 13a equals sacrebleu's, every tokenizer NFC-normalises, Kiwi for Korean."""

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.errors import UnknownNameError
from scorekit.text.tokenizers import TOKENIZERS, get_tokenizer, tokenize_batch

sacrebleu_13a = pytest.importorskip("sacrebleu.tokenizers.tokenizer_13a")

ALPHABET = "abcXYZ019 .,-&;:!?()[]{}\"'/<>$%@#~`^_+=*|\\\n\t가나다"
text = st.text(alphabet=ALPHABET, max_size=60)


@given(text)
def test_13a_equals_sacrebleu(s):
    expected = sacrebleu_13a.Tokenizer13a()(s.rstrip())
    assert " ".join(get_tokenizer("13a")(s)) == expected


@given(st.lists(st.sampled_from(["&quot;", "&amp;", "&lt;", "&gt;", "<skipped>", "-\n", "a", " ", "5", "-", "."]),
                max_size=20))
def test_13a_escapes_equal_sacrebleu(parts):
    s = "".join(parts)
    assert " ".join(get_tokenizer("13a")(s)) == sacrebleu_13a.Tokenizer13a()(s.rstrip())


@pytest.mark.parametrize("name", ["coco", "13a", "kiwi", "whitespace"])
def test_every_tokenizer_normalises_nfc(name):
    composed = "해변에서 파도가 Café"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    tok = get_tokenizer(name)
    assert tok(decomposed) == tok(composed)
    assert all(unicodedata.is_normalized("NFC", t) for t in tok(decomposed))


def test_kiwi_gives_morphs_and_drops_punctuation():
    toks = get_tokenizer("kiwi")("푸른 바다 위로 하얀 파도가 부서진다.")
    assert "바다" in toks and "파도" in toks and "가" in toks  # particle kept, like okt.morphs
    assert "." not in toks
    assert tokenize_batch(["파도가 친다", ""], "kiwi") == [get_tokenizer("kiwi")("파도가 친다"), []]


def test_unknown_name_suggests():
    with pytest.raises(UnknownNameError, match="did you mean 'coco'"):
        get_tokenizer("cocoa")
    assert set(TOKENIZERS.names()) == {"coco", "13a", "kiwi", "ko-content", "whitespace"}


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
@pytest.mark.parametrize("name", ["coco", "13a", "whitespace"])
def test_a_large_batch_split_over_processes_gives_the_same_tokens(monkeypatch, name):
    """Pure-Python tokenizers share a large batch among forked processes (scorekit.forkmap): the
    tokens are the text-by-text ones, in order."""
    import random

    from scorekit import forkmap
    from scorekit.text import tokenizers

    rng = random.Random(4)
    words = ["A", "man's", "dog,", "don't", "1,000", "U.S.", "\u201cquoted\u201d", "co-op", "파도가", "e.g.", "--"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(500)]
    forks = []
    real = forkmap.os.fork
    monkeypatch.setattr(forkmap.os, "fork", lambda: forks.append(1) or real())
    monkeypatch.setattr(tokenizers, "MIN_TEXTS_PER_PROCESS", 100)
    monkeypatch.setenv("SCOREKIT_WORKERS", "3")
    fn = get_tokenizer(name)
    assert tokenize_batch(texts, name) == [fn(t) for t in texts]
    assert len(forks) == 2
