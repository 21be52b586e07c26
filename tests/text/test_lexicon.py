"""Synonym lexicon loading: TSV/JSON, NFC, symmetric non-transitive pairs, merging, clear errors."""

from __future__ import annotations

import gzip
import unicodedata

import pytest

from scorekit.errors import InputError
from scorekit.text.lexicon import Lexicon

# the spec's _load_korean_synonyms dictionary (caption-metrics §2.5) plus §2.3's 해변≈바닷가
SPEC = {  # in dictionary form (the lexicon's words carry a POS; 푸른 is written 푸르다)
    "푸르다": ["파랗다", "푸르르다"],
    "아름답다": ["예쁘다", "곱다", "수려하다"],
    "바다": ["해양", "바닷가", "해변"],
    "파도": ["물결", "너울"],
    "해변": ["바닷가"],
}


def test_starter_lexicon_covers_the_spec():
    lex = Lexicon.default()
    for head, syns in SPEC.items():
        for s in syns:
            assert lex.are_synonyms(head, s) and lex.are_synonyms(s, head), (head, s)
    assert len(lex) >= 60 and lex.sources == ("scorekit:ko_synonyms.tsv",)
    assert lex.pos("푸르다") == "VA" and lex.pos("파도") == "NNG" and lex.pos("주무시다") == "VV"


def test_pos_column_and_inline_tags(tmp_path):
    p = tmp_path / "p.tsv"
    p.write_text("NNG\t파도\t물결\n걷다\t거닐다\n해/NNG\t태양\n", encoding="utf-8")
    lex = Lexicon.read(p)
    assert lex.entries() == [("거닐다", "VV"), ("걷다", "VV"), ("물결", "NNG"), ("태양", "NNG"),
                             ("파도", "NNG"), ("해", "NNG")]
    q = tmp_path / "q.tsv"
    q.write_text("VV\t파도\t물결\n", encoding="utf-8")
    assert Lexicon.read(q).fingerprint != Lexicon.from_dict({"파도": "물결"}).fingerprint  # POS pinned
    bad = tmp_path / "bad.tsv"
    bad.write_text("NNX\t파도\t물결\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.tsv:1: unknown part of speech 'NNX'"):
        Lexicon.read(bad)


def test_pairs_are_symmetric_not_transitive():
    lex = Lexicon.from_dict(SPEC)
    assert lex.synonyms("해양") == {"바다"}
    assert not lex.are_synonyms("해양", "해변")  # both synonyms of 바다, not of each other
    assert lex.synonyms("해변") == {"바다", "바닷가"}
    assert lex.are_synonyms("바다", "바다") and "바다" in lex and "산" not in lex


def test_tsv_and_json_read_the_same(tmp_path):
    tsv = tmp_path / "a.tsv"
    tsv.write_text("# comment\n\n바다\t해양\t바닷가\n 파도 \t물결\n", encoding="utf-8")
    js = tmp_path / "a.json"
    js.write_text('{"바다": ["해양", "바닷가"], "파도": "물결"}', encoding="utf-8")
    a, b = Lexicon.read(tsv), Lexicon.read(js)
    assert a.pairs() == b.pairs() == [("물결", "파도"), ("바다", "바닷가"), ("바다", "해양")]
    assert a.fingerprint == b.fingerprint and a.sources == (str(tsv),)
    gz = tmp_path / "c.tsv.gz"
    gz.write_bytes(gzip.compress("산\t산악\n".encode()))
    assert Lexicon.read(gz).pairs() == [("산", "산악")]


def test_nfd_files_are_normalised(tmp_path):
    p = tmp_path / "nfd.tsv"
    p.write_text(unicodedata.normalize("NFD", "바다\t해양\n"), encoding="utf-8")
    lex = Lexicon.read(p)
    assert lex.are_synonyms("바다", "해양") and lex.words() == ["바다", "해양"]
    assert lex.are_synonyms(unicodedata.normalize("NFD", "바다"), "해양")


def test_load_merges_user_files_with_the_starter(tmp_path):
    p = tmp_path / "u.tsv"
    p.write_text("송아지\t소\n", encoding="utf-8")
    merged = Lexicon.load(p)
    assert merged.are_synonyms("송아지", "소") and merged.are_synonyms("바다", "해양")
    assert len(merged) == len(Lexicon.default()) + 1
    assert Lexicon.load(p, include_default=False).pairs() == [("소", "송아지")]
    assert merged.fingerprint != Lexicon.default().fingerprint
    assert Lexicon.default().merge(Lexicon.read(p)).pairs() == merged.pairs()


@pytest.mark.parametrize("content,where,msg", [
    ("바다\t해양\n파도\n", ":2:", "at least one synonym"),
    ("# c\n바다\t\t해양\n", ":2:", "empty field 2"),
    ("바다\t해양\t\n", ":1:", "empty field 3"),
])
def test_malformed_tsv_names_file_and_line(tmp_path, content, where, msg):
    p = tmp_path / "bad.tsv"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=msg) as err:
        Lexicon.read(p)
    assert str(err.value).startswith(f"{p}{where} ")


@pytest.mark.parametrize("content,line,msg", [
    ('{"바다": ["해양"],\n "파도": [물결]}', 2, "invalid JSON"),
    ('{"바다": ["해양"],\n "파도": []}', 2, "non-empty list"),
    ('{"바다": ["해양"],\n\n "파도": [3]}', 3, "non-empty list"),
    ('["바다", "해양"]', None, "expected a JSON object"),
])
def test_malformed_json(tmp_path, content, line, msg):
    p = tmp_path / "bad.json"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=msg) as err:
        Lexicon.read(p)
    assert err.value.line == line and err.value.path == str(p)


def test_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="lexicon file not found"):
        Lexicon.read(tmp_path / "missing.tsv")
    p = tmp_path / "latin1.tsv"
    p.write_bytes("바다\t해양\n".encode() + b"caf\xe9\tcoffee\n")
    with pytest.raises(InputError, match="invalid UTF-8") as err:
        Lexicon.read(p)
    assert err.value.line == 2
