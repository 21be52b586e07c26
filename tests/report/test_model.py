"""report.model.load_doc: a malformed result JSON is one ScorekitError naming the file and run."""

import pytest

from scorekit.errors import ScorekitError
from scorekit.report.model import load_doc

GOOD = {"task": "retrieval", "name": "v1", "metrics": {"mrr": 0.5}, "signature": "task:retrieval",
        "per_item": [{"id": "q1", "mrr": 0.5}]}


@pytest.mark.parametrize("change, message", [
    ({"per_item": [1, 2]}, r"run 1: 'per_item' must be a list of objects"),   # was AttributeError in report
    ({"task": ["retrieval"]}, r"run 1: 'task' must be a string, got list"),    # was 'the run store is damaged'
    ({"name": {"a": 1}}, r"run 1: 'name' must be a string, got dict"),
    ({"signature": 5}, r"run 1: 'signature' must be a string, got int"),
])
def test_malformed_run_fields_are_one_line_errors(change, message):
    with pytest.raises(ScorekitError, match=r"^r.json: " + message):
        load_doc({"task": "retrieval", "runs": [GOOD, {**GOOD, **change}][::-1]}, "r.json")
    assert load_doc({"runs": [GOOD, {**GOOD, "name": None}]}).runs[1]["name"] is None
