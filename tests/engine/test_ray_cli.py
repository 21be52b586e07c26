"""`--engine ray` through the real CLI: each command's JSON equals `--engine local`'s, a sharded
run (a folder of shard files) equals the whole file, a bad shard is one line and exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

pytestmark = pytest.mark.xdist_group("ray")   # with test_ray.py: one local Ray at a time
ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def sk(*args, cwd=None):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "SCOREKIT_RAY_NUM_CPUS": "2"}
    return subprocess.run([sys.executable, "-m", "scorekit", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env)


def _numbers(path: Path) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    items = [{k: v for k, v in row.items()} for row in doc.get("per_item", [])]
    return {"metrics": doc.get("metrics"), "signature": doc.get("signature"), "per_item": items,
            "runs": [(r["name"], r["metrics"]) for r in doc.get("runs", [])]}


def _both(tmp_path: Path, *args):
    out = {}
    for engine in ("local", "ray"):
        o = tmp_path / f"{engine}.json"
        r = sk(*args, "--engine", engine, "-o", o, "-q")
        assert r.returncode == 0, r.stderr
        out[engine] = _numbers(o)
    return out["local"], out["ray"]


def test_retrieval_sharded_run_and_comparison(tmp_path):
    lines = (EX / "retrieval" / "run_v2.txt").read_text().splitlines()
    shards = tmp_path / "v2"
    shards.mkdir()
    for i in range(3):
        (shards / f"part-{i}.trec").write_text("\n".join(lines[i::3]) + "\n")
    args = ["retrieval", "--qrels", EX / "retrieval" / "qrels.txt", "-m", "mrr,map@3,ndcg@3,hit_rate@3"]
    local = sk(*args, "--run", EX / "retrieval" / "run_v1.txt", "--run", EX / "retrieval" / "run_v2.txt",
               "-o", tmp_path / "local.json", "-q")
    assert local.returncode == 0, local.stderr
    ray = sk(*args, "--engine", "ray", "--run", EX / "retrieval" / "run_v1.txt", "--run", shards,
             "-o", tmp_path / "ray.json", "-q")
    assert ray.returncode == 0, ray.stderr
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("local.json", "ray.json"))
    assert [r["metrics"] for r in a["runs"]] == [r["metrics"] for r in b["runs"]]
    assert [r["per_item"] for r in a["runs"]] == [r["per_item"] for r in b["runs"]]
    assert a["comparison"]["rows"] == b["comparison"]["rows"]


def test_retrieval_bad_shard_is_one_line_naming_it(tmp_path):
    shards = tmp_path / "run"
    shards.mkdir()
    (shards / "a.trec").write_text((EX / "retrieval" / "run_v1.txt").read_text())
    (shards / "b.trec").write_text("q9 Q0 d1 0 1.0 x\nq9 Q0 d2 0 oops x\n")
    r = sk("retrieval", "--engine", "ray", "--qrels", EX / "retrieval" / "qrels.txt", "--run", shards)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("scorekit")]
    assert len(lines) == 1 and f"{shards / 'b.trec'}:2:" in lines[0], r.stderr


def test_caption_ray_equals_local(tmp_path):
    local, ray = _both(tmp_path, "caption", "-p", EX / "caption" / "predictions_ko.json", "-r",
                       EX / "caption" / "references_ko.json", "--lang", "ko", "--metrics", "bleu,cider,rouge_l,meteor")
    assert ray == local


def test_summary_and_sweep_ray_equal_local(tmp_path):
    s = EX / "summarization"
    local, ray = _both(tmp_path, "summary", "-p", s / "summaries.jsonl", "-r", s / "summaries.jsonl",
                       "-s", s / "summaries.jsonl", "-m", "rouge,density,chrf,bleu_4,chrf(beta=3)")
    assert {"chrf", "bleu_4", "chrf(beta=3)"} <= set(local["metrics"])   # corpus scores, merged (#26)
    assert ray == local
    local, ray = _both(tmp_path, "sweep", "--data", s / "news_en.jsonl", "--n", "5,9",
                       "--summarizer", "lead,random", "-m", "rouge,density,words", "--bootstrap", "100")
    assert ray == local


def test_absa_aggregate_from_a_folder_of_shards(tmp_path):
    run = tmp_path / "results" / "cr_demo__seed42_proposed"
    shutil.copytree(EX / "absa" / "results" / "cr_demo__seed42_proposed", run)
    assert sk("absa", "scorecards", run, "-q").returncode == 0
    cards = (run / "scorecards.jsonl").read_text(encoding="utf-8").splitlines()
    shards = tmp_path / "shards"
    shards.mkdir()
    for i in range(3):
        (shards / f"scorecards-{i}.jsonl").write_text("\n".join(cards[i * 5:(i + 1) * 5]) + "\n", encoding="utf-8")
    r = sk("absa", "aggregate", run, "-o", tmp_path / "local.json", "-q")
    assert r.returncode == 0, r.stderr
    r = sk("absa", "aggregate", shards, "--engine", "ray", "--outdir", tmp_path / "agg", "-o", tmp_path / "ray.json", "-q")
    assert r.returncode == 0, r.stderr
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("local.json", "ray.json"))
    assert a["metrics"] == b["metrics"] and a["signature"] == b["signature"]
