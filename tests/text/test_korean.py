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


class _CountingKiwi:
    """A Kiwi that records every text it is asked to analyse."""

    def __init__(self, kiwi, log):
        self._kiwi, self._log = kiwi, log

    def tokenize(self, texts, *args, **kwargs):
        texts = [texts] if isinstance(texts, str) else list(texts)
        self._log.extend(texts)
        return self._kiwi.tokenize(texts, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._kiwi, name)


def test_one_kiwi_and_one_analysis_per_text_for_a_whole_korean_caption_run(monkeypatch, tmp_path):
    """Issue #29: a Korean caption run with METEOR, BLEU, ROUGE-L and CIDEr builds one Kiwi and
    analyses each distinct text once; the answer about the lexicon's verbs comes from the cache
    folder on the next start (no analysis before the user words are added)."""
    from scorekit.generation import evaluate
    from scorekit.text import korean_units

    made, asked = [], []
    real_new = korean._new_kiwi
    monkeypatch.setattr(korean, "_new_kiwi",
                        lambda multi=True: made.append(multi) or _CountingKiwi(real_new(multi), asked))
    monkeypatch.setattr(korean, "_USER_KIWIS", {})
    monkeypatch.setattr(korean, "_memo", (0, {}))
    monkeypatch.setattr(korean_units, "_last", (None, {}))
    monkeypatch.setenv("SCOREKIT_CACHE", str(tmp_path / "cache"))
    preds = ["해질녘 바닷가에서 두 명이 걷는다", "요리를 하고 있다", "파도가 부서진다"]
    refs = [["해질녘에 바닷가를 두 사람이 걷고 있다", "파도가 부서진다"], ["요리하는 중이다"],
            ["파도가 해변에 부서진다", "요리를 하고 있다"]]
    res = evaluate(preds, refs, lang="ko", metrics=["meteor", "bleu", "rouge_l", "cider"])
    distinct = set(preds) | {r for rs in refs for r in rs}
    assert made == [False]          # no text spells one of Kiwi's multi-word names: built without them
    analysed = [t for t in asked if t in distinct]
    assert sorted(analysed) == sorted(distinct)                 # each text once, all four metrics
    assert set(asked) - distinct                                # the lexicon's verbs, asked once, cold
    assert res.metrics["cider"] > 0 and 0 < res.metrics["meteor"] <= 1

    # a warm start: the verbs' answer is read from the cache, so Kiwi analyses only the captions
    made.clear(), asked.clear()
    monkeypatch.setattr(korean, "_USER_KIWIS", {})
    monkeypatch.setattr(korean, "_memo", (0, {}))
    monkeypatch.setattr(korean_units, "_last", (None, {}))
    again = evaluate(preds, refs, lang="ko", metrics=["meteor", "bleu", "rouge_l", "cider"])
    assert made == [False] and sorted(asked) == sorted(distinct)
    assert again.metrics == res.metrics


def test_lexicon_words_stay_one_morph_in_every_metrics_tokens():
    """CIDEr/BLEU surface tokens come from the one analysis by the Kiwi that knows the starter
    lexicon's words (docs/caption.md "One Korean analysis per text")."""
    assert korean.tokenize_batch(["해질녘 하늘이 붉다"])[0] == ["해질녘", "하늘", "이", "붉", "다"]
    assert [m.form for m in korean.analyze("해질녘 하늘이 붉다")][:1] == ["해질녘"]
    assert "+lex" in korean.analyser_version()
