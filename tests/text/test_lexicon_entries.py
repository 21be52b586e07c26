"""Every starter lexicon pair fires inside a real sentence, and the removed or restricted
ambiguous words do not fire on their other sense (issue #15)."""

from __future__ import annotations

import pytest

from scorekit.generation.meteor import meteor_batch
from scorekit.generation.meteor_ko import lexicon_key
from scorekit.text.korean_units import units_batch
from scorekit.text.lexicon import Lexicon

LEX = Lexicon.default()


def frame(word: str, tag: str) -> str:
    """A short real sentence using the word in its part of speech."""
    if tag in ("VV", "VA"):
        return f"아이가 {word[:-1]}고 있다" if tag == "VV" else f"그것은 {word[:-1]}고 좋다"
    return f"{word}{'을' if (ord(word[-1]) - 0xAC00) % 28 else '를'} 보았다"


@pytest.mark.parametrize("a,b", LEX.pairs())
def test_every_pair_fires_in_a_sentence(a, b):
    ta, tb = LEX.pos(a), LEX.pos(b)
    ua, ub = units_batch([frame(a, ta), frame(b, tb)])
    ka = {u.hon + "/" + u.cls if u.hon else u.key for u in ua} | {u.key for u in ua}
    kb = {u.hon + "/" + u.cls if u.hon else u.key for u in ub} | {u.key for u in ub}
    assert lexicon_key(a, ta) in ka, (a, [u.key for u in ua])   # the word stays one unit
    assert lexicon_key(b, tb) in kb, (b, [u.key for u in ub])
    with_lex, without = meteor_batch([frame(a, ta)], [[frame(b, tb)]], lang="ko"), \
        meteor_batch([frame(a, ta)], [[frame(b, tb)]], lang="ko", lexicon=Lexicon())
    assert with_lex[0] > without[0]


@pytest.mark.parametrize("hyp,trap,base", [
    ("여자가 차를 마신다", "여자가 자동차를 마신다", "여자가 연필을 마신다"),      # 차: tea, not car
    ("남자가 다리를 다쳤다", "남자가 교량을 다쳤다", "남자가 책상을 다쳤다"),      # 다리: leg
    ("아이가 배를 먹는다", "아이가 선박을 먹는다", "아이가 구름을 먹는다"),        # 배: pear
    ("벽에 못을 박는다", "벽에 호수를 박는다", "벽에 구름을 박는다"),              # 못: nail
    ("거리가 멀다", "도로가 멀다", "창문이 멀다"),                                # 거리: distance
    ("아이가 숙제를 한다", "태양이 숙제를 본다", "구름이 숙제를 본다"),            # 하다 is not 해
    ("새 해가 밝았다", "새 태양이 밝았다", "새 연필이 밝았다"),                    # 새 해: a year
])
def test_wrong_sense_does_not_fire(hyp, trap, base):
    t, b = meteor_batch([hyp, hyp], [[trap], [base]], lang="ko")
    assert t == pytest.approx(b)


def test_entries_stay_one_unit_in_context():
    (u,) = units_batch(["해질녘 하늘이 붉다"])[:1]
    assert u[0].lemma == "해질녘"
    (u,) = units_batch(["물결이 친다"])
    assert [x.key for x in u] == ["물결/N", "치다/V"]
    (u,) = units_batch(["해가 뜬다"])
    assert u[0].key == "해/N"
