"""Summarisation inputs: (document, reference) pairs and single-role text files for ``scorekit
summary`` (records read by :mod:`scorekit.io.records`; field names below, docs/summarization.md
"Input formats"), and the spec's corpora (CNN/DailyMail 3.0.0, XSUM) through Hugging Face
``datasets``: local files or the local cache only, never a download. Ids are normalised like the
texts (:mod:`scorekit.io.ids`); two ids of one input that become equal that way are duplicates.
"""

from __future__ import annotations

import os
import re
from importlib import resources
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, MissingDependencyError, ScorekitError, UnknownNameError
from scorekit.io.ids import clean_id, record_id
from scorekit.io.records import expand, file_kind, read_records
from scorekit.text.normalize import nfc

ID_FIELDS = ("id",)
DOCUMENT_FIELDS = ("document", "article", "source", "text")
REFERENCE_FIELDS = ("reference", "references", "highlights", "summary")
PREDICTION_FIELDS = ("prediction", "summary", "candidate", "text")


@dataclass
class Pairs:
    ids: list[str]
    documents: list[str]
    references: list[str | list[str]]
    source: str = ""

    def __len__(self) -> int:
        return len(self.ids)

    def head(self, limit: int | None) -> "Pairs":
        return self if limit is None else Pairs(self.ids[:limit], self.documents[:limit],
                                                self.references[:limit], self.source)


def shard_records(path: str | os.PathLike) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """``(file, line, record)`` of a file, or of every shard of a folder or glob in name order
    (:mod:`scorekit.io.records`: .jsonl, .json, .csv, .tsv, .txt, .parquet; ``.gz`` too)."""
    for shard in expand(Path(path), "input shards"):
        kind = file_kind(shard)
        if kind not in ("jsonl", "json", "csv", "tsv", "txt", "parquet"):
            raise InputError(f"unsupported file type {kind!r} (expected .jsonl, .json, .csv, .tsv, .txt or "
                             ".parquet; or a folder or glob of such shards)", shard)
        columns, records = read_records(shard, "input file")
        if columns == []:
            raise InputError("empty CSV file (expected a header row)", shard, 1)
        for no, rec in records:
            yield shard, no, rec


def _field(rec: dict, names: Sequence[str]) -> tuple[str | None, Any]:
    return next(((n, rec[n]) for n in names if rec.get(n) is not None), (None, None))


def _text(value: Any, what: str, path: Path, line: int, rid: str, allow_list: bool) -> str | list[str]:
    if allow_list and isinstance(value, list):
        if not value:
            raise InputError(f"empty {what} list (id {rid})", path, line)
        return [_text(v, what, path, line, rid, False) for v in value]  # type: ignore[misc]
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {type(value).__name__} (id {rid})", path, line)
    if not value.strip():
        raise InputError(f"empty {what} (id {rid})", path, line)
    return nfc(value)


def _id(rec: dict, path: Path, line: int) -> str | None:
    """The record's id, normalised (:func:`~scorekit.io.ids.clean_id`); None when it has none."""
    _, raw = _field(rec, ID_FIELDS)
    if raw is None:
        return None
    rid = clean_id(record_id(raw, path, line), path, line)
    if not rid.strip():
        raise InputError(f"empty id {raw!r}", path, line)
    return rid


def read_pairs(path: str | os.PathLike) -> Pairs:
    """(document, reference) pairs; ids default to the record number."""
    ids, docs, refs = [], [], []
    seen: dict[str, tuple[Path, int]] = {}
    for p, no, rec in shard_records(path):
        rid = _id(rec, p, no) or str(len(ids) + 1)
        if rid in seen:
            first, at = seen[rid]
            where = f"line {at}" if first == p else f"{first}:{at}"
            raise InputError(f"duplicate id {rid!r} (first at {where})", p, no)
        seen[rid] = (p, no)
        dname, doc = _field(rec, DOCUMENT_FIELDS)
        if dname is None:
            raise InputError(f"no document field (expected one of {', '.join(DOCUMENT_FIELDS)})", p, no)
        rname, ref = _field(rec, [f for f in REFERENCE_FIELDS if f != dname])
        if rname is None:
            raise InputError(f"no reference field (expected one of {', '.join(REFERENCE_FIELDS)})", p, no)
        docs.append(_text(doc, "document", p, no, rid, False))
        refs.append(_text(ref, "reference", p, no, rid, True))
        ids.append(rid)
    if not ids:
        raise InputError("no (document, reference) records", path)
    return Pairs(ids, docs, refs, str(path))


def read_texts(path: str | os.PathLike, role: str) -> tuple[list[str | None], list[str | list[str]], list[int]]:
    """One role's texts (``prediction``, ``reference`` or ``document``): ``(ids or None, texts,
    lines)``. A reference may be a list; empty texts are errors except empty predictions."""
    fields = {"prediction": PREDICTION_FIELDS, "reference": REFERENCE_FIELDS,
              "document": DOCUMENT_FIELDS}[role]
    single = Path(path).is_file()
    ids: list[str | None] = []
    texts: list[str | list[str]] = []
    lines: list[int | None] = []
    seen: dict[str, tuple[Path, int]] = {}
    for p, no, rec in shard_records(path):
        names = ("text",) if file_kind(p) == "txt" else fields  # .txt: one text per line, any role
        rid = _id(rec, p, no)
        name, value = _field(rec, names)
        if name is None:
            raise InputError(f"no {role} field (expected one of {', '.join(names)})", p, no)
        label = rid if rid is not None else f"record {len(texts) + 1}"
        if role == "prediction" and isinstance(value, str) and not value.strip():
            texts.append("")  # an empty summary is a legitimate (bad) prediction
        else:
            texts.append(_text(value, role, p, no, label, role == "reference"))
        ids.append(rid)
        lines.append(no if single else None)  # shards: their errors are raised here, by shard
        if not single:
            if rid is None:
                raise InputError(f"a {role} without an id: records in several shards are aligned by id", p, no)
            if rid in seen:
                first, at = seen[rid]
                raise InputError(f"duplicate id {rid!r} (also at {first}:{at})", p, no)
            seen[rid] = (p, no)
    if not texts:
        raise InputError(f"no {role}s", path)
    if single and None in ids and any(i is not None for i in ids):
        # one record without an id would make align() pair every file by position, ignoring ids
        k = ids.index(None)
        raise InputError(f"{role} {k + 1} has no id but others have (give every record an id, or none)",
                         path, lines[k])
    return ids, texts, lines


def align(named: dict[str, tuple[str, tuple[list, list, list]]]) -> tuple[list[str], dict[str, list]]:
    """Align several role files by id when all carry ids, else by position (counts must agree)."""
    items = list(named.items())
    with_ids = all(all(i is not None for i in data[0]) for _, (_, data) in items)
    first_role, (first_path, (first_ids, _, _)) = items[0]
    if with_ids:
        order = list(first_ids)
        out: dict[str, list] = {}
        for role, (path, (ids, texts, lines)) in items:
            index = {i: k for k, i in enumerate(ids)}
            if len(index) != len(ids):
                dup = next(i for i in ids if ids.count(i) > 1)
                raise InputError(f"duplicate id {dup!r}", path, lines[ids.index(dup)])
            missing = [i for i in order if i not in index]
            if missing:
                raise InputError(f"no {role} for id {missing[0]!r} ({len(missing)} missing)", path)
            wanted = set(order)  # once: building it per id made aligning quadratic
            extra = [i for i in ids if i not in wanted]
            if extra:
                raise InputError(f"id {extra[0]!r} has no {first_role}", path, lines[ids.index(extra[0])])
            out[role] = [texts[index[i]] for i in order]
        return [str(i) for i in order], out
    n = len(first_ids)
    for role, (path, (ids, _, _)) in items:
        if len(ids) != n:
            raise InputError(f"{len(ids)} {role}s but {n} {first_role}s in {first_path} "
                             "(give every record an id to align by id)", path)
    return [str(i + 1) for i in range(n)], {role: data[1] for role, (_, data) in items}


CORPORA = {   # name: (title, Hub id, config, document column, reference column)
    "cnn_dailymail": ("CNN/DailyMail 3.0.0", "cnn_dailymail", "3.0.0", "article", "highlights"),
    "xsum": ("XSUM", "xsum", None, "document", "summary"),
}


SPLIT_NAMES = ("train", "validation", "test")
_SPLIT_ALIASES = {"valid": "validation", "val": "validation", "dev": "validation"}


def split_of_file(path: Path) -> str | None:
    """The split a data file belongs to by its name (``test-00000-of-00001.parquet``,
    ``train.jsonl``, ``validation_0.csv``), or None when the name does not say."""
    m = re.match(r"([a-z]+)(?:[-_.]|$)", path.name.lower())
    if not m:
        return None
    word = _SPLIT_ALIASES.get(m.group(1), m.group(1))
    return word if word in SPLIT_NAMES else None


def split_files(folder: Path, split: str) -> list[str]:
    """The files of ``folder`` that belong to ``split``, chosen by name — never by sort order.

    A folder whose files carry no split name is one unnamed split and is read whole; a folder
    with named splits gives only the files of the split asked for (an error when it has none).
    """
    files = sorted(f for f in folder.iterdir() if f.is_file() and not f.name.startswith("."))
    if not files:
        raise InputError("no data files in the folder", folder)
    named = {f: split_of_file(f) for f in files}
    present = sorted({s for s in named.values() if s})
    if not present:
        return [str(f) for f in files]
    want = _SPLIT_ALIASES.get(split.lower(), split.lower())
    chosen = [str(f) for f, s in named.items() if s == want]
    if not chosen:
        raise InputError(f"no files of split {split!r} (the folder has {', '.join(present)}; "
                         "files are matched by name, e.g. test-00000-of-00001.parquet)", folder)
    return chosen


def load_corpus(name: str, *, split: str = "test", limit: int | None = None,
                files: str | os.PathLike | None = None, cache_dir: str | None = None) -> Pairs:
    """CNN/DailyMail 3.0.0 (article -> highlights) or XSUM (document -> summary) from ``files`` (a
    parquet/jsonl/csv/arrow file, or a folder: its files named for ``split``, :func:`split_files`)
    or the local Hugging Face cache; never downloaded (not on disk: MissingDependencyError)."""
    if name not in CORPORA:
        raise UnknownNameError("dataset", name, CORPORA)
    title, hub_id, config, doc_col, ref_col = CORPORA[name]
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import datasets
    except ImportError as exc:
        raise MissingDependencyError("loading CNN/DailyMail or XSUM needs the datasets package: "
                                     "pip install datasets") from exc
    how = (f"{title} is not available offline. Provide it as local files "
           f"(parquet/jsonl/csv with columns {doc_col!r}, {ref_col!r}) and pass them "
           f"with --dataset-files, or fill the Hugging Face cache once on a machine with network: "
           f"python -c \"import datasets; datasets.load_dataset('{hub_id}'"
           + (f", '{config}'" if config else "") + f", split='{split}')\"")
    datasets.config.HF_DATASETS_OFFLINE = datasets.config.HF_HUB_OFFLINE = True
    split_arg = split if limit is None else f"{split}[:{int(limit)}]"
    if files is not None:
        fp = Path(files)
        if not fp.exists():
            raise InputError("dataset files not found", fp)
        data_files = str(fp) if fp.is_file() else split_files(fp, split)
        kind = file_kind(Path(data_files if isinstance(data_files, str) else data_files[0]))
        builder = "json" if kind == "jsonl" else kind
        if builder not in ("parquet", "json", "csv", "arrow"):
            raise InputError("expected parquet, jsonl, json, csv or arrow files", fp)
        args, kw = (builder,), {"data_files": {split: data_files}}
    else:
        args, kw = (hub_id, config) if config else (hub_id,), {}
    try:
        ds = datasets.load_dataset(*args, split=split_arg, cache_dir=cache_dir, **kw)
    except Exception as exc:  # datasets raises many types (ConnectionError, FileNotFoundError, ...)
        raise MissingDependencyError(f"{how} ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})") from None
    missing = [c for c in (doc_col, ref_col) if c not in ds.column_names]
    if missing:
        raise InputError(f"{title}: missing column(s) {', '.join(missing)} "
                         f"(found {', '.join(ds.column_names)})", files)
    id_col = "id" if "id" in ds.column_names else None
    ids, docs, refs = [], [], []
    for i, row in enumerate(ds):
        rid = clean_id(row[id_col], files, i + 1) if id_col else str(i + 1)
        doc, ref = row[doc_col], row[ref_col]
        if not isinstance(ref, str) or not ref.strip():
            raise InputError(f"{title}: empty reference (id {rid}, row {i + 1})", files)
        if not isinstance(doc, str) or not doc.strip():
            raise InputError(f"{title}: empty document (id {rid}, row {i + 1})", files)
        ids.append(rid)
        docs.append(nfc(doc))
        refs.append(nfc(ref))
    if not ids:
        raise InputError(f"{title}: no rows in split {split!r}", files)
    return Pairs(ids, docs, refs, f"{name}:{split}")


def read_summaries(predictions: str | os.PathLike, references: str | os.PathLike,
                   sources: str | os.PathLike | None = None) -> tuple[list[str], dict[str, list]]:
    """``scorekit summary``'s inputs read and aligned (by id when every file has ids, else by
    position): ``(ids, {"prediction": [...], "reference": [...], "document": [...]})``."""
    files = {"prediction": (str(predictions), read_texts(predictions, "prediction")),
             "reference": (str(references), read_texts(references, "reference"))}
    if sources is not None:
        files["document"] = (str(sources), read_texts(sources, "document"))
    return align(files)


def default_sample(lang: str = "en") -> Path:
    """The news sample shipped inside the package (30 English or 10 Korean items; found in a
    wheel install too)."""
    return Path(str(resources.files("scorekit") / "data" / "summarization" / f"news_{lang}.jsonl"))


def load_pairs(data: str | os.PathLike | None = None, dataset: str | None = None, *, split: str = "test",
               limit: int | None = None, files: Any = None, lang: str = "en") -> Pairs:
    """The (document, reference) pairs of ``train-summarizer``/``summarize``: a local copy of
    ``dataset`` (:func:`load_corpus`), else the file ``data``, else the shipped sample of ``lang``;
    the first ``limit``."""
    if dataset:
        return load_corpus(dataset, split=split, limit=limit, files=files)
    path = Path(data) if data is not None else default_sample(lang)
    if data is None and not path.is_file():
        raise ScorekitError("no --data given and the shipped sample is missing; pass --data FILE.jsonl")
    return read_pairs(path).head(limit)
