"""Anchor: ranx-k 0.0.17 ``evaluate_with_ranx_similarity`` on a RAG JSONL file (a dict-backed
retriever returning LangChain Documents), its stdout progress discarded.

    python ranxk_rag.py data.jsonl out.json K METHOD THRESHOLD [MODE]
"""

import contextlib
import io
import json
import sys

from langchain_core.documents import Document
from ranx_k.evaluation import evaluate_with_ranx_similarity


class DictRetriever:
    def __init__(self, answers):
        self.answers = answers

    def invoke(self, question):
        return [Document(page_content=t if isinstance(t, str) else t["page_content"]) for t in self.answers[question]]


def main(data, out, k, method, threshold, mode="reference_based"):
    rows = [json.loads(line) for line in open(data, encoding="utf-8") if line.strip()]
    questions = [r["id"] for r in rows]
    retriever = DictRetriever({r["id"]: r["retrieved"] for r in rows})
    refs = [r["references"] for r in rows]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        res = evaluate_with_ranx_similarity(retriever, questions, refs, k=int(k), method=method,
                                            similarity_threshold=float(threshold), evaluation_mode=mode)
    json.dump({key: float(v) for key, v in res.items()}, open(out, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:7])
