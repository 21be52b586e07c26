"""Duplicate JSON keys are an error naming the key and the line, in every JSON reader."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, strategies as st

from scorekit.errors import InputError
from scorekit.io.jsonfile import parse_json


def test_duplicate_key_names_key_and_line():
    text = '{\n  "a": 1,\n  "b": {"c": 1,\n        "c": 2}\n}'
    with pytest.raises(InputError) as err:
        parse_json(text, "f.json")
    assert str(err.value) == "f.json:4: duplicate key 'c' in one JSON object (each key may appear once)"


def test_same_key_in_different_objects_is_fine():
    assert parse_json('[{"id": 1}, {"id": 2}]') == [{"id": 1}, {"id": 2}]


def test_line_offset_for_jsonl_records():
    with pytest.raises(InputError, match=r"^f.jsonl:7: duplicate key 'x'"):
        parse_json('{"x": 1, "x": 2}', "f.jsonl", line=7)


_keys = st.text(alphabet="abc가나", min_size=1, max_size=2)
_json = st.recursive(st.none() | st.integers() | st.text(max_size=3),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
                     max_leaves=12)


@given(_json, st.booleans())
def test_parses_like_json_when_keys_are_unique(value, indent):
    text = json.dumps(value, ensure_ascii=False, indent=2 if indent else None)
    assert parse_json(text) == value


@given(st.dictionaries(_keys, st.integers(), min_size=1, max_size=4), st.data())
def test_any_repeated_key_is_found_on_its_line(obj, data):
    key = data.draw(st.sampled_from(sorted(obj)))
    lines = ["{"] + [f"  {json.dumps(k, ensure_ascii=False)}: {v}," for k, v in obj.items()]
    lines.append(f"  {json.dumps(key, ensure_ascii=False)}: 0")
    lines.append("}")
    with pytest.raises(InputError) as err:
        parse_json("\n".join(lines), "d.json")
    assert str(err.value).startswith(f"d.json:{len(lines) - 1}: duplicate key {key!r}")


def _scorekit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "scorekit", *args], capture_output=True, text=True, cwd=cwd)


def test_topics_with_a_repeated_topic_name_exits_2(tmp_path):
    p = tmp_path / "topics.json"
    p.write_text('{"cars": ["car", "road"],\n "books": ["book", "page"],\n "cars": ["engine", "fuel"]}\n')
    out = _scorekit("topics", "--topics", str(p), cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].endswith(f"{p}:3: duplicate key 'cars' in one JSON object (each key may appear once)")


def test_caption_predictions_with_a_repeated_id_exit_2(tmp_path):
    p = tmp_path / "pred.json"
    p.write_text('{"v1": "a dog runs",\n "v1": "a cat sleeps"}\n')
    r = tmp_path / "refs.json"
    r.write_text('{"v1": ["a dog runs"]}\n')
    out = _scorekit("caption", "-p", str(p), "-r", str(r), "--lang", "en", "--metrics", "bleu", cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{p}:2: duplicate key 'v1'" in out.stderr
