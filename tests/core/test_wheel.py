"""`make wheel` builds a wheel that works outside the checkout: installed into a fresh virtual
environment (which sees the shared environment's dependencies, not scorekit's sources), every
family's example command runs from a temporary folder — `examples/demo.sh` (retrieval, caption,
summarisation, topics, ABSA) plus fusion, COCO captions with METEOR 1.5, the HTML report and the
RL summariser — so package data (the Korean lexicon, the report's CSS/JS, the packaged news
articles) travels with it."""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

DATA = ["scorekit/data/lexicon/ko_synonyms.tsv", "scorekit/report/assets/report.css",
        "scorekit/report/assets/report.js", "scorekit/data/summarization/news_en.jsonl",
        "scorekit/data/summarization/news_ko.jsonl"]


def _copy_source(dest: Path) -> None:
    """What a checkout holds that the wheel is built from (no build outputs, no caches)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    shutil.copytree(ROOT / "src", dest / "src", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "Makefile"):
        shutil.copy2(ROOT / name, dest / name)


def _run(cmd, cwd, env, timeout=900) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_wheel_installs_and_every_family_runs_outside_the_checkout(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("needs make")
    src = tmp_path / "src-copy"
    _copy_source(src)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # make wheel, with this interpreter's setuptools standing in for .venv's
    dist = tmp_path / "dist"
    _run(["make", "wheel", f"BIN={Path(sys.executable).parent}", f"DIST={dist}"], src, env)
    wheels = list(dist.glob("scorekit-*-py3-none-any.whl"))
    assert len(wheels) == 1
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    assert set(DATA) <= names, set(DATA) - names
    assert not any(n.startswith(("tests/", "examples/")) for n in names)

    # a fresh venv; the shared environment's site-packages are appended (a path in a .pth file:
    # its own .pth files, the editable scorekit among them, are not run), so nothing is reinstalled
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    purelib = next(venv.glob("lib/python*/site-packages"))
    (purelib / "shared-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps",
          "--no-index", str(wheels[0])], tmp_path, env)
    vpy, sk = str(venv / "bin" / "python"), str(venv / "bin" / "scorekit")
    where = _run([vpy, "-c", "import scorekit, sys; print(scorekit.__file__)"], tmp_path, env).strip()
    assert Path(where).is_relative_to(purelib), where

    # every family's example command, from a folder that holds only the examples
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    (work / ".venv").symlink_to(venv)        # examples/demo.sh runs .venv/bin/scorekit
    env = {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    out = _run(["bash", "examples/demo.sh"], work, env, timeout=1800)
    for family in ("retrieval", "caption", "summarization", "topics", "absa"):
        assert f"════ {family} ════" in out, family
    assert (work / "out" / "retrieval" / "retrieval.json").is_file()
    ex = "examples"
    _run([sk, "fuse", "--run", f"{ex}/retrieval/run_v1.txt", "--run", f"{ex}/retrieval/run_v2.txt",
          "--method", "wsum", "--optimize", "--qrels", f"{ex}/retrieval/qrels.txt", "--metric", "ndcg@3",
          "-o", "fused.txt"], work, env)
    _run([sk, "caption", "-p", f"{ex}/caption/coco_results_en.json", "-r", f"{ex}/caption/coco_captions_en.json",
          "--lang", "en", "-m", "bleu,meteor15,rouge_l_coco,cider", "--baseline-meteor", "0.33", "-o", "coco.json"],
         work, env)
    # the Korean METEOR reads the packaged lexicon; the report inlines the packaged CSS and JS
    _run([sk, "caption", "-p", f"{ex}/caption/predictions_ko.json", "-r", f"{ex}/caption/references_ko.json",
          "--lang", "ko", "-m", "meteor", "-o", "ko.json", "--report", "ko.html"], work, env)
    html = (work / "ko.html").read_text()
    css = (ROOT / "src/scorekit/report/assets/report.css").read_text().strip().splitlines()[0]
    assert css in html
    _run([sk, "report", "coco.json", "out/retrieval/retrieval.json", "-o", "report.html"], work, env)
    _run([sk, "train-summarizer", "--num-train", "6", "--epochs", "1", "--checkpoint", "policy.pt"], work, env)
    assert (work / "policy.pt").is_file()
