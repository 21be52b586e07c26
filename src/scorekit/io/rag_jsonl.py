"""RAG retrieval records, one JSON object per line (issue #30; the format is docs/rag.md's):
``{"id", "question", "retrieved": [passage, ...], "references": [passage, ...]}``, a passage a
string or an object with a string ``page_content``. Strict: the first malformed line is an error
naming the file, the line and the field.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from scorekit.errors import InputError
from scorekit.io.atomic import read_bytes
from scorekit.io.jsonfile import DuplicateKeyError, object_without_duplicates


@dataclass
class RagQuestion:
    id: str
    question: str
    retrieved: list[str]
    references: list[str]
    line: int | None = None


@dataclass
class RagData:
    """One system's answers: every question with its retrieved and reference passages."""

    questions: list[RagQuestion]
    source: str = "<rag>"
    name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.questions)


def passage_text(value: Any, where: str, path: str | None = None, line: int | None = None) -> str:
    """A passage as text: a string, or an object (dict or attribute) with ``page_content``."""
    if isinstance(value, str):
        return value
    content = value.get("page_content") if isinstance(value, dict) else getattr(value, "page_content", None)
    if isinstance(content, str):
        return content
    raise InputError(f"{where}: expected a string or an object with a string \"page_content\", "
                     f"found {type(value).__name__}", path, line)


def question_from(obj: Any, path: str | None = None, line: int | None = None, index: int = 0) -> RagQuestion:
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, found {type(obj).__name__}", path, line)
    qid = obj.get("id", obj.get("query_id", obj.get("qid")))
    if qid is None:
        qid = str(index + 1)
    elif isinstance(qid, bool) or not isinstance(qid, (str, int)):
        raise InputError(f"field 'id': expected a string or an integer, found {type(qid).__name__}", path, line)
    question = obj.get("question", obj.get("query", ""))
    if not isinstance(question, str):
        raise InputError(f"field 'question': expected a string, found {type(question).__name__}", path, line)
    out = {}
    for key in ("retrieved", "references"):
        if key not in obj:
            raise InputError(f"missing field {key!r}", path, line)
        value = obj[key]
        if not isinstance(value, list):
            raise InputError(f"field {key!r}: expected a list of passages, found {type(value).__name__}", path, line)
        out[key] = [passage_text(v, f"field {key!r}[{i}]", path, line) for i, v in enumerate(value)]
    if not out["references"]:
        raise InputError(f"question {str(qid)!r}: field 'references' is empty (each question needs at "
                         f"least one reference passage)", path, line)
    return RagQuestion(str(qid), question, out["retrieved"], out["references"], line)


def check_unique(questions: list[RagQuestion], source: str) -> None:
    seen: dict[str, int | None] = {}
    for q in questions:
        if q.id in seen:
            also = f" (first at line {seen[q.id]})" if seen[q.id] is not None else ""
            raise InputError(f"duplicate question id {q.id!r}{also}", source, q.line)
        seen[q.id] = q.line


def read_rag_jsonl(path: str | os.PathLike, *, name: str | None = None) -> RagData:
    data = read_bytes(path, "RAG JSONL file").removeprefix(b"\xef\xbb\xbf")
    src = str(path)
    questions: list[RagQuestion] = []
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"), object_pairs_hook=object_without_duplicates)
        except UnicodeDecodeError as exc:
            raise InputError(f"invalid UTF-8 at byte {exc.start}", src, lineno) from None
        except DuplicateKeyError as dup:
            raise InputError(f"duplicate key {dup.key!r} in one JSON object", src, lineno) from None
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InputError(f"invalid JSON ({exc})", src, lineno) from None
        questions.append(question_from(obj, src, lineno, len(questions)))
    if not questions:
        raise InputError("no records (expected one JSON object per line with 'retrieved' and 'references')", src)
    check_unique(questions, src)
    return RagData(questions, src, name)
