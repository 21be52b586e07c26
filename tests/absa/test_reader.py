"""The tolerant reader: malformed rows are skipped with their line and field named."""

import json

from scorekit.io.absa_jsonl import read_outputs, read_scorecards


def test_skips_and_names_line_and_field(tmp_path):
    good = {"meta": {"text_id": "a"}, "final_result": {"final_tuples": [{"aspect_term": "배송", "polarity": "positive"}]}}
    lines = [
        json.dumps(good, ensure_ascii=False),
        "",                                                                   # blank: ignored
        '{"final_result": {"final_tuples": "배송 positive"}}',                # field of the wrong shape
        '{"final_result": {"final_tuples": [{"aspect_term": "a", "polarity": 1}]}}',
        '{"meta": ',                                                          # broken JSON
        "[1, 2]",                                                             # not an object
        json.dumps(good, ensure_ascii=False),
    ]
    p = tmp_path / "outputs.jsonl"
    p.write_bytes(("\n".join(lines) + "\n").encode() + b'{"meta": {"text_id": "\xff"}}\n')
    r = read_outputs(p)
    assert len(r.rows) == 2 and r.lines == [1, 7]
    assert [(s.line, s.field) for s in r.skipped] == [
        (3, "final_result.final_tuples"), (4, "final_result.final_tuples.0.polarity"), (5, None), (6, None), (8, None)]
    assert "invalid UTF-8" in r.skipped[-1].reason
    w = r.warnings()
    assert w[0].startswith(f"{p}:3: skipped row: field 'final_result.final_tuples'")


def test_scorecard_schema(tmp_path):
    p = tmp_path / "scorecards.jsonl"
    p.write_text('{"runtime": {"parsed_output": {}}, "stage_delta": {"changed": true, "change_type": "guided_by_review"}}\n'
                 '{"stage_delta": {"changed": true, "change_type": "guided_by_review"}}\n'
                 '{"runtime": {}, "stage_delta": {"changed": true, "change_type": "maybe"}}\n', encoding="utf-8")
    r = read_scorecards(p)
    assert len(r.rows) == 1
    assert [(s.line, s.field) for s in r.skipped] == [(2, "runtime"), (3, "stage_delta.change_type")]


def test_aspect_term_span_forms_are_all_accepted(tmp_path):
    """``span`` as ``[start, end]``, ``{start, end}`` or null; a bad span names the span field."""
    from scorekit.io.absa_jsonl import read_outputs

    rows = []
    for span in ([0, 2], {"start": 0, "end": 2}, None, "0-2"):
        rows.append({"meta": {"text_id": f"r{len(rows)}"}, "final_result": {"final_tuples": [
            {"aspect_term": {"term": "배송", "span": span}, "polarity": "positive"}]}})
    p = tmp_path / "outputs.jsonl"
    p.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    res = read_outputs(p)
    assert [r["meta"]["text_id"] for r in res.rows] == ["r0", "r1", "r2"]
    assert len(res.skipped) == 1 and res.skipped[0].line == 4
    assert res.skipped[0].field == "final_result.final_tuples.0.aspect_term.span"


def test_duplicate_key_in_a_row_is_skipped_with_its_name(tmp_path):
    from scorekit.io.absa_jsonl import read_outputs

    p = tmp_path / "outputs.jsonl"
    p.write_text('{"meta": {"text_id": "a"}}\n{"meta": {"text_id": "b"}, "meta": {"text_id": "c"}}\n')
    res = read_outputs(p)
    assert [r["meta"]["text_id"] for r in res.rows] == ["a"]
    assert res.skipped[0].line == 2 and res.skipped[0].field == "meta"
    assert "duplicate key" in res.skipped[0].reason
