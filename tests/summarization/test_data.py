"""Readers: file:line errors, empty references, CSV/JSON/TXT, and the offline corpus loaders."""

import json

import pytest

from scorekit.errors import InputError, MissingDependencyError
from scorekit.summarization import data as D


def write(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_jsonl_pairs_and_aliases(tmp_path):
    p = write(tmp_path / "d.jsonl", [json.dumps({"id": "a", "article": "Doc one.", "highlights": "Ref."}),
                                     "",
                                     json.dumps({"document": "Doc two.", "references": ["R1", "R2"]})])
    pairs = D.read_pairs(p)
    assert pairs.ids == ["a", "2"] and pairs.references == ["Ref.", ["R1", "R2"]]


@pytest.mark.parametrize("line, message", [
    ({"id": "x", "document": "d", "reference": "  "}, "d.jsonl:2: empty reference (id x)"),
    ({"id": "x", "document": "d"}, "d.jsonl:2: no reference field"),
    ({"id": "x", "reference": "r"}, "d.jsonl:2: no document field"),
    ({"id": "x", "document": "d", "reference": []}, "d.jsonl:2: empty reference list (id x)"),
    ({"id": "x", "document": 3, "reference": "r"}, "d.jsonl:2: document must be a string"),
])
def test_jsonl_errors_name_file_and_line(tmp_path, line, message):
    p = write(tmp_path / "d.jsonl", [json.dumps({"id": "ok", "document": "d", "reference": "r"}), json.dumps(line)])
    with pytest.raises(InputError) as err:
        D.read_pairs(p)
    assert str(err.value).startswith(str(tmp_path / message.split(":")[0]) + ":" + message.split(":", 1)[1])


def test_invalid_json_and_duplicates(tmp_path):
    p = write(tmp_path / "d.jsonl", ['{"document": "d", "reference": "r"}', "{oops"])
    with pytest.raises(InputError, match=r"d.jsonl:2: invalid JSON"):
        D.read_pairs(p)
    p = write(tmp_path / "e.jsonl", ['{"id": 1, "document": "d", "reference": "r"}'] * 2)
    with pytest.raises(InputError, match=r"e.jsonl:2: duplicate id '1'"):
        D.read_pairs(p)


def test_csv_pairs_and_errors(tmp_path):
    p = write(tmp_path / "d.csv", ["id,document,reference", 'a,"Doc, one.",Ref one', "b,Doc two.,"])
    with pytest.raises(InputError, match=r"d.csv:3: empty reference \(id b\)"):
        D.read_pairs(p)
    p = write(tmp_path / "ok.csv", ["id,document,reference", 'a,"Doc, one.",Ref one'])
    assert D.read_pairs(p).documents == ["Doc, one."]
    with pytest.raises(InputError, match="unsupported file type"):
        D.read_pairs(write(tmp_path / "d.xml", ["<x/>"]))


def test_read_texts_and_align(tmp_path):
    preds = write(tmp_path / "p.txt", ["first summary", ""])
    refs = write(tmp_path / "r.jsonl", [json.dumps({"reference": "one"}), json.dumps({"reference": "two"})])
    ids, texts = D.align({"prediction": (str(preds), D.read_texts(preds, "prediction")),
                          "reference": (str(refs), D.read_texts(refs, "reference"))})
    assert ids == ["1", "2"] and texts["prediction"] == ["first summary", ""]
    short = write(tmp_path / "s.txt", ["only one"])
    with pytest.raises(InputError, match="1 references but 2 predictions"):
        D.align({"prediction": (str(preds), D.read_texts(preds, "prediction")),
                 "reference": (str(short), D.read_texts(short, "reference"))})
    a = write(tmp_path / "a.jsonl", [json.dumps({"id": "x", "prediction": "p"})])
    b = write(tmp_path / "b.jsonl", [json.dumps({"id": "y", "reference": "r"})])
    with pytest.raises(InputError, match="no reference for id 'x'"):
        D.align({"prediction": (str(a), D.read_texts(a, "prediction")),
                 "reference": (str(b), D.read_texts(b, "reference"))})


def test_corpus_not_cached_is_a_clear_missing_dependency(tmp_path, monkeypatch):
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(MissingDependencyError, match="not available offline.*--dataset-files"):
        D.load_corpus("xsum", cache_dir=str(tmp_path / "cache"))


def test_corpus_from_local_files(tmp_path):
    pytest.importorskip("datasets")
    f = write(tmp_path / "test.jsonl", [json.dumps({"id": "c1", "article": "An article.", "highlights": "A point."}),
                                        json.dumps({"id": "c2", "article": "Another.", "highlights": "More."})])
    pairs = D.load_corpus("cnn_dailymail", files=f, limit=1, cache_dir=str(tmp_path / "cache"))
    assert pairs.ids == ["c1"] and pairs.references == ["A point."]
    bad = write(tmp_path / "x.jsonl", [json.dumps({"document": "d", "summary": "s"})])
    with pytest.raises(InputError, match="missing column"):
        D.load_corpus("cnn_dailymail", files=bad, cache_dir=str(tmp_path / "cache"))


def test_one_record_without_an_id_is_an_error_not_a_silent_positional_alignment(tmp_path):
    # before: align() paired every file by position as soon as one prediction lacked an id (or had
    # "id": null), so reversed predictions were scored against the wrong references, exit 0
    refs = write(tmp_path / "r.jsonl", [json.dumps({"id": i, "reference": f"ref {i}"}) for i in "abc"])
    for bad, at in ([{"prediction": "p c"}, 1], [{"id": None, "prediction": "p c"}, 1]):
        preds = write(tmp_path / "p.jsonl", [json.dumps(bad)] + [json.dumps({"id": i, "prediction": f"p {i}"}) for i in "ba"])
        with pytest.raises(InputError, match=rf"p.jsonl:{at}: prediction 1 has no id but others have"):
            D.read_texts(preds, "prediction")
    D.read_texts(refs, "reference")


@pytest.mark.parametrize("raw, found", [('["a"]', "a list"), ('{"x": 1}', "an object"), ("true", "a boolean"),
                                        ("1.5", "a number")])
def test_id_of_the_wrong_json_type_is_an_error(tmp_path, raw, found):
    p = write(tmp_path / "d.jsonl", ['{"id": "ok", "document": "d", "reference": "r", "prediction": "p"}',
                                     '{"id": ' + raw + ', "document": "d", "reference": "r", "prediction": "p"}'])
    with pytest.raises(InputError, match=rf"d.jsonl:2: field 'id' must be a string or an integer, found {found}"):
        D.read_pairs(p)
    with pytest.raises(InputError, match=rf"d.jsonl:2: field 'id' must be a string or an integer, found {found}"):
        D.read_texts(p, "prediction")
    p = write(tmp_path / "e.jsonl", ['{"id": "\u200b", "document": "d", "reference": "r"}'])
    with pytest.raises(InputError, match=r"e.jsonl:1: empty id"):
        D.read_pairs(p)
