"""Kiwi without its multi-word name dictionary, for texts that cannot touch it (issue #29):
the filter must find every entry however it is spaced, and the analyses it lets through must be
Kiwi's own."""

import random

import pytest

from scorekit.text import kiwi_names, korean


def _entries(n, seed=0):
    surfaces = []
    with kiwi_names.dictionary_path().open(encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#") and line.strip():
                surfaces.append(line.split("\t", 1)[0])
    return random.Random(seed).sample(surfaces, n)


def _with_coda(word):
    """The last syllable given a coda ㄴ when it has none (Kiwi reads 바우언 as 바우어 + ㄴ)."""
    last = word[-1]
    if "\uac00" <= last <= "\ud7a3" and (ord(last) - 0xAC00) % 28 == 0:
        return word[:-1] + chr(ord(last) + 4)
    return word


def test_every_spelling_of_an_entry_is_found():
    for entry in _entries(300):
        glued = "".join(entry.split())
        for text in (f"{entry}가 왔다", f"어제 {glued}를 봤다", "고양이" + entry.replace(" ", "\u200b\t "),
                     _with_coda(entry) + " 왔다", entry.upper() + "!", entry.lower()):
            assert not kiwi_names.clear([text]), (entry, text)
            assert not kiwi_names.clear(["파도가 부서진다", text, "하늘이 맑다"]), (entry, text)


def test_texts_without_entries_are_clear_and_keys_do_not_join_texts():
    assert kiwi_names.clear(["파도가 부서진다", "요리를 하고 있다", "", "Kiwi는 빠르다"])
    assert kiwi_names.clear([])
    assert not kiwi_names.clear(["잭 바우어가 왔다"])
    # an entry split over two texts is not in either: 잭 | 바우어
    assert kiwi_names.clear(["나는 잭", "바우어를 만났다"])
    assert kiwi_names.key("잭  바우언") == kiwi_names.key("잭바우언")
    # characters outside the BMP and lone surrogates are read, not refused
    assert kiwi_names.clear(["a\ud800b 파도 \U0001F600"]) and not kiwi_names.clear(["잭 바우어\ud800"])


def test_a_batch_with_a_multi_word_name_is_analysed_with_the_full_dictionary(monkeypatch):
    made = []
    real = korean._new_kiwi
    monkeypatch.setattr(korean, "_new_kiwi", lambda multi=True: made.append(multi) or real(multi))
    monkeypatch.setattr(korean, "_USER_KIWIS", {})
    monkeypatch.setattr(korean, "_memo", (None, {}))
    assert [m.form for m in korean.analyze_batch(["파도가 부서진다"])[0]][:1] == ["파도"]
    got = korean.analyze_batch(["잭 바우어가 왔다", "파도가 부서진다"])
    assert got[0][0].form == "잭 바우어" and got[0][0].tag == "NNP"
    assert made == [False, True]
    # the full one now serves every batch; the one without names is let go
    korean.analyze_batch(["하늘이 맑다"])
    assert made == [False, True] and not any(k.endswith(":light") for k in korean._USER_KIWIS)


def _texts(n, seed=1):
    """Texts built to collide with the dictionary: words of its entries and Kiwi's default
    dictionary, with particles, most not spelling an entry."""
    rng = random.Random(seed)
    words = [w for e in _entries(20_000, seed) for w in e.split()]
    particles = ["은", "는", "이", "가", "을", "를", "에서", "의", "와", "", "", ""]
    out = []
    for _ in range(n):
        ws = [rng.choice(words) + rng.choice(particles) for _ in range(rng.randint(2, 7))]
        out.append(" ".join(ws) + rng.choice([".", " 있다.", " 보았다.", ""]))
    return out


@pytest.mark.slow
def test_kiwi_without_names_analyses_clear_texts_as_kiwi_with_them():
    """Checked beyond this on 71,611 texts (natural: konlpy's kolaw/kobill corpora, the spec, the
    docs; generated captions and RAG passages; 40,000 built to collide): no clear text differed."""
    texts = _texts(6000)
    clear = [t for t in texts if kiwi_names.clear([t])]
    touched = [t for t in texts if t not in set(clear)]
    assert len(clear) > 3000 and touched

    def analyses(kiwi, batch):
        return [[(t.form, t.tag, t.start, t.len, t.lemma) for t in toks] for toks in kiwi.tokenize(batch)]

    full, light = korean._new_kiwi(multi=True), korean._new_kiwi(multi=False)
    assert analyses(full, clear) == analyses(light, clear)
    # the dictionary does change texts that spell its entries: the check above can fail
    assert analyses(full, touched) != analyses(light, touched)
