"""Helpers for the report tests: real result JSON of every family, made by running the real
`scorekit` commands on the shipped examples/ (as examples/*/demo.sh do), and an HTML element
parser. A uniquely named module, so `tests/cli` can import it too."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
DATA = Path(__file__).parent / "data"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
HAVE_BROWSER = os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)   # hand-made fixtures still read by tests/cli/test_runs.py

# name -> (family, the command line after `scorekit`, "{out}" = the JSON written)
COMMANDS: dict[str, list[str]] = {
    "retrieval_compare": ["retrieval", "--qrels", f"{EX}/retrieval/qrels.txt", "--run", f"{EX}/retrieval/run_v1.txt",
                          "--run", f"{EX}/retrieval/run_v2.txt", "--name", "v1", "--name", "v2", "--metrics",
                          "hit_rate@1,hit_rate@3,hit_rate@5,mrr,map@3,map@5,ndcg@3,ndcg@5", "--test", "randomization"],
    "retrieval_v1": ["retrieval", "--qrels", f"{EX}/retrieval/qrels.txt", "--run", f"{EX}/retrieval/run_v1.txt",
                     "--name", "v1"],
    "caption_ko": ["caption", "--predictions", f"{EX}/caption/predictions_ko.json", "--references",
                   f"{EX}/caption/references_ko.json", "--lang", "ko", "--metrics", "meteor,cider,bleu_4,rouge_l"],
    "caption_en": ["caption", "-p", f"{EX}/caption/predictions_en.jsonl", "-r", f"{EX}/caption/references_en.csv",
                   "--lang", "en", "--metrics", "meteor15,meteor_nltk,cider,bleu,rouge_l"],
    "summary": ["summary", "--predictions", f"{EX}/summarization/summaries.jsonl", "--references",
                f"{EX}/summarization/summaries.jsonl", "--sources", f"{EX}/summarization/summaries.jsonl",
                "-m", "rouge,density,words"],
    "sweep": ["sweep", "--data", f"{EX}/summarization/news_en.jsonl", "--n", "5,10,20,30",
              "--summarizer", "lead,textrank,random", "-m", "rouge,density,words"],
    "topics_en": ["topics", "--topics", f"{EX}/topics/topics_en.json", "--corpus", f"{EX}/topics/corpus_en.txt",
                  "--ratings", f"{EX}/topics/ratings_en.csv", "--pairs", "3"],
    "topics_ko": ["topics", "--topics", f"{EX}/topics/topics_ko.json", "--pairs", "4", "--allow-english-model"],
    # ABSA: run directories copied to {absa}; scorecards first (below), then these
    "absa_seed42": ["absa", "aggregate", "{absa}/cr_demo__seed42_proposed"],
    "absa_both": ["absa", "aggregate", "{absa}/cr_demo__seed42_proposed", "{absa}/cr_demo__seed123_proposed"],
    "absa_seeds": ["absa", "aggregate-seeds", "{absa}/cr_demo__seed42_proposed", "{absa}/cr_demo__seed123_proposed"],
}
FAMILIES: dict[str, tuple[str, ...]] = {
    "retrieval": ("retrieval_compare", "retrieval_v1"),
    "caption": ("caption_ko", "caption_en"),
    "summary": ("summary",),
    "sweep": ("sweep",),
    "topics": ("topics_en", "topics_ko"),
    "absa": ("absa_seed42", "absa_both", "absa_seeds"),
}


def scorekit(argv: list[str]) -> tuple[int, str, str]:
    """Run the real CLI in this process; (exit status, stdout, stderr)."""
    from scorekit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


class RealOutputs:
    """Every family's real result JSON in ``root`` (``json(name)``, ``path(name)``), and each
    family's ``--report`` HTML written by the evaluation command itself (``direct(name)``)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        absa = self.root / "absa"
        shutil.copytree(EX / "absa" / "results", absa)
        for seed in ("42", "123"):
            code, _, err = scorekit(["absa", "scorecards", absa / f"cr_demo__seed{seed}_proposed"])
            assert code == 0, err
        for name, argv in COMMANDS.items():
            argv = [a.replace("{absa}", str(absa)) for a in argv]
            code, _, err = scorekit(argv + ["-o", self.path(name), "--report", self.direct(name), "-q"])
            assert code == 0, f"scorekit {' '.join(argv)}: {err}"

    def path(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def direct(self, name: str) -> Path:
        return self.root / f"{name}.direct.html"

    def json(self, name: str) -> dict:
        return json.loads(self.path(name).read_text(encoding="utf-8"))

    def names(self) -> list[str]:
        return list(COMMANDS)


def load(name: str) -> dict:
    """A hand-made fixture of tests/report/data (only tests/cli/test_runs.py still reads them)."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


class Elements(HTMLParser):
    """Collect every start tag as (tag, attrs dict) plus the text of the document."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, str]]:
        out = []
        for t, a in self.elements:
            if tag and t != tag:
                continue
            if all((a.get(k.replace("_", "-")) == v) if v is not True else (k.replace("_", "-") in a)
                   for k, v in attrs.items()):
                out.append(a)
        return out

    def with_class(self, cls: str, tag: str | None = None) -> list[dict[str, str]]:
        return [a for t, a in self.elements if (tag is None or t == tag) and cls in a.get("class", "").split()]
