"""Documentation that runs: every ```bash/```sh/```shell/```console and ```python block in
README.md and docs/*.md is executed against a fresh copy of the shipped examples/.

Blocks of one document run in order in one working folder (a block may use the files an earlier
one wrote), with the repository's examples/ copied in, so `examples/retrieval/qrels.txt` works as
it does from the repo root, and `scorekit` on PATH. Python blocks of one document share one
namespace. A block is skipped only when the line right before its fence is a marker saying why:

    <!-- not-run: needs CNN/DailyMail on disk -->

Shell blocks run with `bash -e -o pipefail` (in a ```console block only the `$ ` lines run).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"bash", "sh", "shell", "console"}
PYTHON = {"python", "py", "python3"}
MARKER = re.compile(r"<!--\s*not-run:\s*(?P<why>.+?)\s*-->")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")
BLOCK_TIMEOUT_S = 600


@dataclass
class Block:
    doc: Path
    line: int            # 1-based line of the opening fence
    lang: str
    code: str
    skip: str | None     # the not-run reason

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def extract_blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path`` whose language is a shell or Python, with its marker."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group("fence"), m.group("lang").lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence[:3]):
            body.append(lines[i])
            i += 1
        i += 1
        if lang not in SHELL | PYTHON:
            continue
        prev = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.search(prev)
        code = "\n".join(body) + "\n"
        if lang == "console":
            code = "\n".join(ln.strip()[2:] for ln in body if ln.strip().startswith("$ ")) + "\n"
        blocks.append(Block(path, start + 1, "python" if lang in PYTHON else "shell", code,
                            marker.group("why") if marker else None))
    return blocks


def test_extractor_finds_blocks_and_markers(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("x\n```bash\necho hi\n```\n<!-- not-run: needs a GPU -->\n```python\nimport os\n```\n"
                   "```\nplain\n```\n```console\n$ scorekit --help\nUsage: ...\n```\n", encoding="utf-8")
    blocks = extract_blocks(doc)
    assert [(b.lang, b.skip) for b in blocks] == [("shell", None), ("python", "needs a GPU"), ("shell", None)]
    assert blocks[2].code == "scorekit --help\n"


def _scorekit_env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    src = str(ROOT / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
                "TOKENIZERS_PARALLELISM": "false", "SCOREKIT_STORE": str(work / ".scorekit" / "runs.db"),
                "HOME": str(work), "COLUMNS": "200", "MPLBACKEND": "Agg"})
    env.pop("SCOREKIT_RECORD", None)
    return env


def _run_shell(block: Block, work: Path, env: dict[str, str]) -> str | None:
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=work, env=env,
                       capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
    if r.returncode != 0:
        tail = (r.stderr.strip() or r.stdout.strip()).splitlines()[-3:]
        return f"exit {r.returncode}: " + " | ".join(tail)
    return None


def _run_python(block: Block, namespace: dict, work: Path, env: dict[str, str]) -> str | None:
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    os.chdir(work)
    os.environ.update({k: env[k] for k in ("SCOREKIT_STORE", "HOME", "MPLBACKEND")})
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block.code, block.where, "exec"), namespace)
    except Exception as exc:   # noqa: BLE001 - reported with the block's place
        return f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
    return None


def run_doc(doc: Path, work: Path) -> tuple[list[str], int, list[str]]:
    """Run every block of ``doc`` in ``work``; returns (failures, blocks run, skipped)."""
    shutil.copytree(ROOT / "examples", work / "examples")
    env = _scorekit_env(work)
    namespace: dict = {"__name__": "__docs__"}
    failures, ran, skipped = [], 0, []
    for block in extract_blocks(doc):
        if block.skip:
            skipped.append(f"{block.where}: {block.skip}")
            continue
        ran += 1
        why = (_run_shell(block, work, env) if block.lang == "shell"
               else _run_python(block, namespace, work, env))
        if why:
            failures.append(f"{block.where} ({block.lang}): {why}")
    return failures, ran, skipped


# a doc that starts a local Ray runs in the xdist group of the Ray tests: two local Ray clusters
# starting at the same moment on one machine can fail to start their GCS
_STARTS_RAY = re.compile(r"RayEngine\(|--engine ray")
_DOC_PARAMS = [pytest.param(d, marks=pytest.mark.xdist_group("ray")) if _STARTS_RAY.search(d.read_text(encoding="utf-8"))
               else d for d in DOCS]


@pytest.mark.slow
@pytest.mark.parametrize("doc", _DOC_PARAMS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_documented_blocks_run(doc, tmp_path):
    failures, ran, skipped = run_doc(doc, tmp_path)
    assert not failures, "documented blocks that fail:\n" + "\n".join(failures)


def test_every_skip_says_why():
    for doc in DOCS:
        for block in extract_blocks(doc):
            if block.skip is not None:
                assert len(block.skip) >= 10, f"{block.where}: the not-run marker must say why"
