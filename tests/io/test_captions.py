"""Caption readers: the spec's evaluate.py JSON, JSONL, CSV; pairing policy; clear errors."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit.errors import InputError
from scorekit.io.captions import read_caption_set, read_predictions, read_references


def write(tmp_path, name, content):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False),
                     encoding="utf-8")
    return p


def test_spec_json_formats(tmp_path):
    preds = write(tmp_path, "p.json", {"v1": "파란 바다", "v2": ["하얀 파도"], "v3": []})
    refs = write(tmp_path, "r.json", {"v1": ["푸른 바다", "바다"], "v2": "파도", "v3": ["산"]})
    cs = read_caption_set(preds, refs)
    assert cs.ids == ["v1", "v2", "v3"]
    assert cs.predictions == ["파란 바다", "하얀 파도", ""]
    assert cs.references == [["푸른 바다", "바다"], ["파도"], ["산"]]
    assert cs.n_empty_predictions == 1


def test_jsonl_and_csv(tmp_path):
    preds = write(tmp_path, "p.jsonl", '{"id": 1, "prediction": "a dog"}\n\n{"id": "2", "caption": "a cat"}\n')
    refs = write(tmp_path, "r.csv", "id,reference\n1,a dog runs\n1,\"a dog, running\"\n2,a cat\n")
    cs = read_caption_set(preds, refs)
    assert cs.ids == ["1", "2"] and cs.references[0] == ["a dog runs", "a dog, running"]


def test_nfc_on_read(tmp_path):
    import unicodedata

    preds = write(tmp_path, "p.json", {"v": unicodedata.normalize("NFD", "파도")})
    assert read_predictions(preds)["v"] == "파도"


def test_one_sided_ids_default_and_strict(tmp_path):
    preds = write(tmp_path, "p.json", {"a": "x", "extra": "y"})
    refs = write(tmp_path, "r.json", {"a": ["x"], "missing": ["z"]})
    cs = read_caption_set(preds, refs)
    assert cs.ids == ["a", "missing"] and cs.predictions == ["x", ""]
    assert any("'missing'" in w for w in cs.warnings) and any("'extra'" in w for w in cs.warnings)
    with pytest.raises(InputError, match="'missing'"):
        read_caption_set(preds, refs, strict=True)


@pytest.mark.parametrize("content, pattern", [
    ({"v1": []}, "id 'v1': empty reference list"),
    ({"v1": [3]}, "id 'v1': reference 1 must be a string, got int"),
    ({"v1": {"a": 1}}, "must be a list of strings, got dict"),
    ({"v1": ["ok", " "]}, "reference 2 is empty"),
])
def test_bad_references(tmp_path, content, pattern):
    with pytest.raises(InputError, match=pattern):
        read_references(write(tmp_path, "r.json", content))


def test_bad_predictions(tmp_path):
    with pytest.raises(InputError, match=r"p.json:3: id 'v2': prediction must be a string, got int"):
        read_predictions(write(tmp_path, "p.json", '{\n  "v1": "a",\n  "v2": 5\n}'))
    with pytest.raises(InputError, match="expected one prediction, got a list of 2"):
        read_predictions(write(tmp_path, "p2.json", {"v": ["a", "b"]}))
    with pytest.raises(InputError, match=r"p.jsonl:2: duplicate prediction id 'a'"):
        read_predictions(write(tmp_path, "p.jsonl", '{"id":"a","prediction":"x"}\n{"id":"a","prediction":"y"}\n'))
    with pytest.raises(InputError, match=r"bad.json:1: invalid JSON"):
        read_predictions(write(tmp_path, "bad.json", "{oops"))
    with pytest.raises(InputError, match=r"p.txt: unknown caption file format"):
        read_predictions(write(tmp_path, "p.txt", "x"))


def test_invalid_utf8(tmp_path):
    with pytest.raises(InputError, match=r"p.jsonl:2: invalid UTF-8"):
        read_predictions(write(tmp_path, "p.jsonl", b'{"id":"a","prediction":"x"}\n{"id":"b","prediction":"\xff"}\n'))


@settings(max_examples=150, database=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(st.text(st.characters(blacklist_characters='"\\'), min_size=1, max_size=8), st.lists(st.text(max_size=12), min_size=1, max_size=3),
                       min_size=1, max_size=20),
       st.sampled_from([None, 1, 2]), st.booleans())
def test_member_lines_name_the_line_of_each_key(data, indent, ascii_only):
    # the line of every key of a keyed caption file, in order, found in one pass over the text
    from scorekit.io.jsonfile import member_lines

    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    lines = text.split("\n")
    found = member_lines(text)
    assert len(found) == len(data) and found == sorted(found)
    for key, line in zip(data, found):
        assert json.dumps(key, ensure_ascii=ascii_only) + ":" in lines[line - 1]
    if indent is not None:   # one member per line
        assert len(set(found)) == len(data)


@pytest.mark.parametrize("raw, found", [("null", "found null"), ("true", "found a boolean"), ('["a"]', "found a list"),
                                        ('{"x": 1}', "found an object"), ("1.5", "found a number")])
def test_prediction_id_of_the_wrong_json_type_is_an_error(tmp_path, raw, found):
    # before: str(None) made the id 'None', reported only as a missing prediction scoring 0
    p = write(tmp_path, "p.jsonl", '{"id": "a", "prediction": "x"}\n{"id": ' + raw + ', "prediction": "y"}\n')
    with pytest.raises(InputError, match=rf"p.jsonl:2: field 'id' must be a string or an integer, {found}"):
        read_predictions(p)


@pytest.mark.parametrize("content", ["", " \n\n", "{}", "[]"])
def test_a_predictions_file_without_predictions_is_an_error(tmp_path, content):
    # before: every reference scored 0 with exit status 0
    name = "p.jsonl" if content.strip() in ("", ) else "p.json"
    with pytest.raises(InputError, match=rf"{name}: no predictions"):
        read_predictions(write(tmp_path, name, content))


@pytest.mark.parametrize("name, content, line", [
    ("p.jsonl", '{"id": "", "prediction": "x"}\n', 1),
    ("p.jsonl", '{"id": "\u200b", "prediction": "x"}\n', 1),   # invisible only: empty once normalised
    ("p.json", '{\n "a": "x",\n "": "y"\n}', 3),
])
def test_empty_id_is_an_error(tmp_path, name, content, line):
    with pytest.raises(InputError, match=rf"{name}:{line}: empty id"):
        read_predictions(write(tmp_path, name, content))
    refs = write(tmp_path, "r.csv", "id,reference\na,one\n,two\n")
    with pytest.raises(InputError, match=r"r.csv:3: empty id ''"):
        read_references(refs)
