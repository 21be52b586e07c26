"""retrieval.inputs: the JSON and Python forms of qrels and runs; a malformed one is an InputError
naming the file."""

import json

import pytest

from scorekit.errors import InputError
from scorekit.retrieval.inputs import as_qrels, as_run


@pytest.mark.parametrize("doc, found", [(None, "found null"), (["a"], "found list"), ({"x": 1}, "found dict"),
                                        (True, "found bool"), (1.5, "found float")])
def test_ranked_list_of_non_ids_is_an_error(tmp_path, doc, found):
    # before: str() made null a document 'None' (and [..] "['a']"), scored as an irrelevant hit
    for read, name in ((as_run, "run.json"), (as_qrels, "qrels.json")):
        p = tmp_path / name
        p.write_text(json.dumps({"q1": ["d1", doc]}), encoding="utf-8")
        with pytest.raises(InputError, match=rf"{name}: query 'q1': document 2 of the list must be a document id.*{found}"):
            read(p)


def test_ranked_list_of_ids_still_reads(tmp_path):
    p = tmp_path / "run.json"
    p.write_text(json.dumps({"q1": ["d1", "d2", 7]}), encoding="utf-8")
    run = as_run(p)
    assert run.docids.to_pylist() and sorted(map(str, run.docids.to_pylist())) == ["7", "d1", "d2"]


@pytest.mark.parametrize("data, message", [({"": {"d1": 1}}, "empty query id ''"),
                                           ({"q1": {"": 1}}, "query 'q1': empty document id ''"),
                                           ({"q1": [" "]}, "query 'q1': empty document id ' '")])
def test_empty_ids_are_errors(tmp_path, data, message):
    # before: accepted, with only a warning that query '' has no ranking
    for read, name in ((as_run, "run.json"), (as_qrels, "qrels.json")):
        p = tmp_path / name
        p.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(InputError, match=rf"{name}: {message}"):
            read(p)
