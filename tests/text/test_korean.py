import unicodedata

from scorekit.text import korean


def test_nfd_input_is_normalised_before_analysis():
    text = "고양이가 잔다"
    assert korean.tokenize(unicodedata.normalize("NFD", text)) == korean.tokenize(text)


def test_particles_and_punctuation_dropped_and_lemmas():
    morphs = korean.analyze("고양이가 소파 위에서 잠을 자고 있었다.")
    forms = korean.select(morphs, drop_particles=True)
    assert "가" not in forms and "에서" not in forms and "." not in forms
    assert "고양이" in forms
    assert "자다" in korean.select(morphs, lemma=True)


def test_batch_matches_single_and_keeps_empty():
    texts = ["강아지가 뛴다", "", "하늘이 맑다."]
    assert korean.tokenize_batch(texts) == [korean.tokenize(t) for t in texts]


def test_batch_fast_path_equals_single_for_every_option():
    texts = ["고양이가 소파 위에서 잠을 자고 있었다.", "파란 하늘 아래 사람들이 걷는다!", "  ", "Kiwi는 빠르다"]
    for opts in ({}, {"lemma": True}, {"drop_particles": True}, {"drop_punct": False, "lemma": True}):
        assert korean.tokenize_batch(texts, **opts) == [korean.tokenize(t, **opts) for t in texts]
