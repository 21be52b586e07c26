"""Readers: topics JSON (list or {name: [...]}), ratings CSV (wide or long), corpus text; errors
name file:line."""

import unicodedata

import numpy as np
import pytest

from scorekit.errors import InputError
from scorekit.io.topics import parse_ratings, parse_topics, read_corpus, read_topics


def test_list_and_object_forms(tmp_path):
    ts = parse_topics('[["computer", "software"], ["경제", "시장", "주식"]]')
    assert ts.names == ["t1", "t2"] and ts.topics[1] == ["경제", "시장", "주식"]
    ts = parse_topics('{"tech": [" computer ", "software"], "money": ["bank", "loan"]}')
    assert ts.names == ["tech", "money"] and ts.topics[0] == ["computer", "software"]
    nfd = unicodedata.normalize("NFD", "경제")
    p = tmp_path / "t.json"
    p.write_text(f'[["{nfd}", "시장"]]', encoding="utf-8")
    assert read_topics(p).topics[0][0] == "경제"


@pytest.mark.parametrize("text,line,msg", [
    ("[]", 1, "empty"),
    ('[\n  ["a", "b"],\n  ["c"]\n]', 3, "at least 2"),
    ('{\n "x": ["a", "b"],\n "y": ["a", "a", "b"]\n}', 3, "duplicate"),
    ('[\n ["a", ""]\n]', 2, "cannot be embedded"),
    ('[["a", "\\u200b"]]', 1, "cannot be embedded"),
    ('[["a", "b"],\n "c"]', 2, "expected a list"),
    ('[["a", "b"]\n ["c"]]', 2, "invalid JSON"),
    ('"hello"', 1, "expected a JSON list"),
    ('[["a", 3]]', 1, "not a string"),
    ('{\n "x": ["a", "b"],\n "": ["c", "d"]\n}', 3, "empty topic name ''"),          # was accepted
    ('{\n "\\u200b": ["c", "d"]\n}', 2, "empty topic name"),
])
def test_topic_errors_name_the_line(text, line, msg):
    with pytest.raises(InputError, match=msg) as err:
        parse_topics(text, "topics.json")
    assert err.value.path == "topics.json" and err.value.line == line
    assert str(err.value).startswith(f"topics.json:{line}: ")


TOPICS = parse_topics('{"tech": ["a", "b"], "cars": ["c", "d"], "books": ["e", "f"]}')


def test_ratings_wide_and_long():
    r = parse_ratings("topic,human,gpt\ntech,4,5\nbooks,2,\n", TOPICS)
    assert r.topic_index.tolist() == [0, 2] and r.raters == ["human", "gpt"]
    np.testing.assert_allclose(r.mean, [4.5, 2.0])
    r = parse_ratings("topic,rater,score\ncars,h,3\ntech,h,1\ncars,g,5\n", TOPICS)
    assert r.topic_index.tolist() == [0, 1] and r.raters == ["h", "g"]
    assert np.isnan(r.matrix[0, 1]) and r.mean.tolist() == [1.0, 4.0]
    listed = parse_topics('[["a", "b"], ["c", "d"]]')
    assert parse_ratings("topic,s\n1,3\nt2,4\n", listed).topic_index.tolist() == [0, 1]


@pytest.mark.parametrize("text,line,msg", [
    ("", 1, "empty ratings"),
    ("name\n", 1, "header"),
    ("score,x\n", 1, "header"),
    ("topic,h\ntech,4\nplanes,3\n", 3, "unknown topic 'planes'"),
    ("topic,h\ntech,four\n", 2, "not a number"),
    ("topic,h\ntech,4,5\n", 2, "expected 2 fields"),
    ("topic,h\ntech,4\ntech,5\n", 3, "twice"),
    ("topic,h\ntech,nan\n", 2, "finite"),
    ("topic,rater,score\ntech,h,1\ntech,h,2\n", 3, "rated twice"),
])
def test_rating_errors_name_the_line(text, line, msg):
    with pytest.raises(InputError, match=msg) as err:
        parse_ratings(text, TOPICS, "r.csv")
    assert err.value.line == line


def test_corpus(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("doc one\n\n  \ndoc two\n", encoding="utf-8")
    assert read_corpus(p) == ["doc one", "doc two"]
    p.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        read_corpus(p)
    p.write_bytes(b"ok\n\xff\n")
    with pytest.raises(InputError, match="UTF-8") as err:
        read_corpus(p)
    assert err.value.line == 2
