"""Failed rows: any non-empty trace error is a failure, whatever its wording; the wording only
classifies it (parse / generate / other). Counted in n_failed, n_parse_failed, n_generate_failed,
and a failed implicit-gold row's prediction is invalid."""

import pytest
from tests.absa.rows import entry, t

from scorekit.absa.aggregate import aggregate_run
from scorekit.absa.failures import classify, row_failure, scorecard_failure
from scorekit.absa.scorecard import make_scorecard


def _with_trace_error(e, error, stage="stage1"):
    e = dict(e)
    e["process_trace"] = [{"stage": stage, "agent": "ATSA", "output": {}, "error": error}]
    return e


@pytest.mark.parametrize("message, kind", [
    ("JSON parse error: Expecting value at line 1", "parse"),
    ("json_parse", "parse"), ("atsa_parse failed", "parse"), ("SCHEMA_VALIDATION: missing field", "parse"),
    ("parse_failed", "parse"), ("JSONDecodeError", "parse"),
    ("timeout", "generate"), ("Request timed out after 60s", "generate"), ("generate_failed", "generate"),
    ("rate limit exceeded", "generate"), ("HTTP 503 Service Unavailable", "generate"),
    ("something odd happened", "other"),
])
def test_wording_classifies(message, kind):
    assert classify(message) == kind
    f = row_failure(_with_trace_error(entry("x", [t("a", "positive")], [t("a", "positive")]), message))
    assert f["failed"] and f["kind"] == kind and f["error"] == message
    assert f["parse_failed"] == (kind == "parse") and f["generate_failed"] == (kind == "generate")


@pytest.mark.parametrize("error", [{"code": 500, "msg": "boom"}, True, ["x"]])
def test_any_non_empty_error_value_is_a_failure(error):
    f = row_failure(_with_trace_error(entry("x", [], []), error))
    assert f["failed"]


@pytest.mark.parametrize("error", [None, "", "   ", False, [], {}])
def test_empty_errors_are_not_failures(error):
    f = row_failure(_with_trace_error(entry("x", [], []), error))
    assert not f["failed"] and f["kind"] is None


def test_flags_in_row_runtime_and_top_level():
    e = entry("x", [], [])
    assert row_failure({**e, "flags": {"generate_failed": True}})["kind"] == "generate"
    card = make_scorecard(e)
    assert not scorecard_failure(card)["failed"]
    assert scorecard_failure({**card, "flags": {"parse_failed": True}})["kind"] == "parse"
    card["runtime"]["error"] = "timeout"
    assert scorecard_failure(card)["kind"] == "generate"


def test_counts_and_implicit_invalid_in_aggregation():
    ok = entry("ok", [t("", "positive")], [t("", "positive")], [t("", "positive")])
    parse = _with_trace_error(entry("p", [t("", "positive")], [t("", "positive")], [t("", "positive")]),
                              "JSON parse error: Unterminated string")
    timeout = _with_trace_error(entry("g", [t("맛", "positive")], [t("맛", "positive")]), "timeout")
    other = _with_trace_error(entry("o", [t("맛", "positive")], [t("맛", "positive")]), "weird")
    m = aggregate_run([make_scorecard(e) for e in (ok, parse, timeout, other)]).metrics
    assert (m["n_failed"], m["n_parse_failed"], m["n_generate_failed"]) == (3, 1, 1)
    # both implicit-gold rows have a valid positive prediction; only the failed one is invalid
    assert m["implicit_gold_sample_n"] == 2 and m["implicit_invalid_sample_n"] == 1
    card = make_scorecard(parse)
    assert card["runtime"]["flags"]["failure_kind"] == "parse"
    assert card["runtime"]["flags"]["error"].startswith("JSON parse error")
