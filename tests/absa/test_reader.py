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
