"""Invisible format characters are removed before any metric sees the text, in every language."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, strategies as st

from scorekit.text.normalize import INVISIBLE, SIGNATURE, nfc, strip_invisible

KO_PREDS = ["파란 바다에 하얀 파도가 치며 해변으로 다가온다", "도심 거리를 사람들이 바쁘게 지나가고 있다",
            "산꼭대기에 구름이 피어오르고 있다"]
KO_REFS = [["파란 바다에 하얀 파도가 치며 해변으로 밀려온다", "파도가 해변에 부서진다"],
           ["도심 거리를 사람들이 지나가고 있다"], ["산 위로 구름이 피어오르고 숲이 우거져 있다"]]


def _sprinkle(text: str, marks: str) -> str:
    """Put invisible characters inside words (between every second pair of characters)."""
    out = []
    for i, ch in enumerate(text):
        out.append(ch)
        if ch != " " and i % 2:
            out.append(marks[i % len(marks)])
    return "".join(out)


def test_every_listed_character_is_removed():
    assert set(INVISIBLE) == {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"}
    assert nfc("\ufeff해\u200b변\u00ad이\u2060 a\u200cb\u200dc") == "해변이 abc"
    assert SIGNATURE == "nfc+invisible"


@given(st.text(max_size=30))
def test_result_is_nfc_without_invisible_characters(text):
    out = nfc(text)
    assert unicodedata.is_normalized("NFC", out)
    assert not set(out) & set(INVISIBLE)
    assert nfc(out) == out
    assert strip_invisible(text) == "".join(c for c in text if c not in INVISIBLE)


@pytest.mark.parametrize("metric", ["meteor", "bleu_4", "rouge_l", "cider"])
def test_korean_caption_scores_ignore_zero_width_characters(metric):
    from scorekit.generation import evaluate

    clean = evaluate(KO_PREDS, KO_REFS, lang="ko", metrics=[metric]).metrics[metric]
    dirty_preds = [_sprinkle(p, INVISIBLE) for p in KO_PREDS]
    dirty_refs = [[_sprinkle(r, "\u200b\ufeff") for r in refs] for refs in KO_REFS]
    dirty = evaluate(dirty_preds, dirty_refs, lang="ko", metrics=[metric]).metrics[metric]
    assert dirty == clean
    assert clean > 0


def test_english_caption_scores_ignore_soft_hyphens_and_zero_width_spaces():
    from scorekit.generation import evaluate

    pred, refs = "a small dog runs across the green field", ["a dog is running across a field"]
    clean = evaluate([pred], [refs], lang="en", metrics=["bleu", "meteor15", "meteor_nltk"]).metrics
    dirty = evaluate([_sprinkle(pred, "\u00ad\u200b")], [[_sprinkle(refs[0], "\u2060")]],
                           lang="en", metrics=["bleu", "meteor15", "meteor_nltk"]).metrics
    assert dirty == clean


def test_text_signatures_say_invisible_characters_are_removed():
    from scorekit.generation import evaluate
    from scorekit.summarization.metrics import summary_metrics

    cap = evaluate(["a dog"], [["a dog runs"]], lang="en", metrics=["bleu_1"])
    assert "|norm:nfc+invisible|" in cap.signature
    summ = summary_metrics(["a dog"], ["a dog runs"], bertscorer=None)
    assert "|norm:nfc+invisible|" in summ.signature
