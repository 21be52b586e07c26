"""Any accepted qrels/run form -> :class:`Qrels` / :class:`Run` (docs/retrieval.md, "Inputs").

Accepted: a TREC file (plain or ``.gz``), a JSON file or dict ``{qid: {docid: number}}`` or
``{qid: [docid, ...]}`` (relevant docs / a ranking), the spec's list form (query i gets id
``q{i+1}``, a ranked list gets scores ``len - rank`` as in the spec's ranx conversion), a pandas
DataFrame, a ranx ``Qrels``/``Run``, a Parquet file or ``irds:<id>`` (:mod:`.sources`); a run also
as a folder or glob of shards, read in name order as the one file they were cut from. Ids are
normalised like text (:mod:`scorekit.io.ids`): keys of one JSON object or dict that become equal
that way are a duplicate.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scorekit.errors import InputError
from scorekit.io.ids import clean_id
from scorekit.retrieval.data import Qrels, Run

_QID_COLS = ("q_id", "qid", "query_id", "query")
_DOC_COLS = ("doc_id", "docid", "document_id", "doc")
_REL_COLS = ("relevance", "rel", "label", "score")
_SCORE_COLS = ("score", "rank_score", "similarity")


def _flatten(mapping: Mapping, what: str, source: str, integer: bool):
    qids, docids, values = [], [], []
    seen: dict[str, Any] = {}
    for qid, docs in mapping.items():
        key = clean_id(qid, source, None, "query id")
        if not key.strip():   # a JSON key "": TREC files cannot hold one, qrels/runs never match it
            raise InputError(f"empty query id {qid!r}", source)
        if key in seen:
            raise InputError(f"duplicate query id {key!r} (two spellings, equal once normalised: NFC, "
                             "invisible characters removed)", source)
        seen[key] = qid
        if isinstance(docs, Mapping):
            items = docs.items()
        elif isinstance(docs, (list, tuple)):
            items = _ranked_items(docs, qid, what, source)
        else:
            raise InputError(f"query {qid!r}: expected {{docid: number}} or a list of docids, "
                             f"found {type(docs).__name__}", source)
        for docid, value in items:
            if not str(docid).strip():
                raise InputError(f"query {qid!r}: empty document id {docid!r}", source)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise InputError(f"query {qid!r}, document {docid!r}: expected a number, found {value!r}", source)
            if not math.isfinite(value) or (integer and value != int(value)):
                must = "relevance must be an integer" if integer else "score must be a finite number"
                raise InputError(f"query {qid!r}, document {docid!r}: {must}, found {value!r}", source)
            qids.append(str(qid))
            docids.append(str(docid))
            values.append(value)
    return pa.array(qids, pa.string()), pa.array(docids, pa.string()), values


def _ranked_items(docs: Sequence, qid: Any, what: str, source: str):
    seen: set[str] = set()
    for k, doc in enumerate(docs, 1):
        if isinstance(doc, bool) or not isinstance(doc, (str, int)):
            # str() would make null, [..] or {..} a document id ('None') that matches nothing
            raise InputError(f"query {qid!r}: document {k} of the list must be a document id (a string), "
                             f"found {'null' if doc is None else f'{type(doc).__name__} {doc!r}'}", source)
        if str(doc) in seen:
            raise InputError(f"query {qid!r}: document {doc!r} listed twice in the {what}", source)
        seen.add(str(doc))
    n = len(docs)
    # relevant-doc lists are binary (rel 1); rankings get descending scores n, n-1, ...
    return [(d, 1 if what == "qrels" else n - i) for i, d in enumerate(docs)]


def _from_frame(df: Any, what: str, source: str):
    from scorekit.retrieval.sources import pick_column

    def pick(options: Sequence[str], role: str):
        return pick_column(list(df.columns), options, role, f"DataFrame {what}", source)

    qcol, dcol = pick(_QID_COLS, "query id"), pick(_DOC_COLS, "document id")
    vcol = pick(_REL_COLS if what == "qrels" else _SCORE_COLS, "relevance" if what == "qrels" else "score")
    qid = pa.array(df[qcol].astype(str).to_numpy(), pa.string())
    docid = pa.array(df[dcol].astype(str).to_numpy(), pa.string())
    values = df[vcol].to_numpy()
    if values.dtype.kind not in "iufb":
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError(f"DataFrame {what}: column {vcol!r} must be numeric", source) from None
    return qid, docid, values


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike))


def _from_mapping(mapping: Mapping, what: str, source: str, **name: Any) -> Qrels | Run:
    q, d, v = _flatten(mapping, what, source, integer=what == "qrels")
    if what == "qrels":
        return Qrels.from_arrays(q, d, np.asarray(v, dtype=np.int64), source=source)
    return Run.from_arrays(q, d, np.asarray(v, dtype=np.float64), source=source, **name)


def _from_python(obj: Any, what: str, **name: Any) -> Qrels | Run:
    """Qrels or a run from a DataFrame, a ranx object (``to_dict``), a dict or the list form."""
    source = f"<{what}>"
    if hasattr(obj, "columns"):
        return (Qrels if what == "qrels" else Run).from_arrays(*_from_frame(obj, what, source), source=source,
                                                               **name)
    if hasattr(obj, "to_dict") and not isinstance(obj, Mapping):
        if what == "run":
            name["name"] = name["name"] or getattr(obj, "name", None)
        obj = obj.to_dict()
    if isinstance(obj, (list, tuple)):
        obj = _list_form(obj, what)
    if isinstance(obj, Mapping):
        return _from_mapping(obj, what, source, **name)
    raise InputError(f"cannot read {'qrels' if what == 'qrels' else 'a run'} from a {type(obj).__name__}")


def _read_file(path: str | os.PathLike, what: str, **name: Any) -> Qrels | Run:
    """A TREC file, or JSON ``{qid: {docid: number}}`` (``.json``/``.json.gz``: ranx's and
    pytrec_eval's dict form; a ranked list ``{qid: [docid, ...]}`` too)."""
    if not Path(path).name.lower().endswith((".json", ".json.gz")):
        from scorekit.io.trec import read_qrels, read_run

        return read_qrels(path) if what == "qrels" else read_run(path, **name)
    from scorekit.io.jsonfile import read_json_object

    mapping = read_json_object(path, f"{what} file", "a JSON object {qid: {docid: number}}")
    if what == "run":
        name["name"] = name["name"] or Path(path).name.split(".")[0]
    return _from_mapping(mapping, what, str(path), **name)


def as_qrels(obj: Any) -> Qrels:
    if isinstance(obj, Qrels):
        return obj
    import scorekit.retrieval.sources as sources

    if sources.is_irds(obj):
        return sources.irds_qrels(obj)
    if sources.is_parquet(obj):
        return sources.read_parquet(obj, "qrels")
    if _is_path(obj):
        return _read_file(obj, "qrels")
    return _from_python(obj, "qrels")


def as_run(obj: Any, name: str | None = None) -> Run:
    if isinstance(obj, Run):
        if name is not None:
            obj.name = name
        return obj
    import scorekit.retrieval.sources as sources

    if sources.is_parquet(obj):
        return sources.read_parquet(obj, "run", name=name)
    if _is_shards(obj):
        return _run_from_shards(obj, name)
    if _is_path(obj):
        return _read_file(obj, "run", name=name)
    return _from_python(obj, "run", name=name)


def _is_shards(obj: Any) -> bool:
    """A folder, or a glob that names no existing file."""
    if not _is_path(obj) or (isinstance(obj, str) and obj.startswith("irds:")):
        return False
    p = Path(obj)
    return p.is_dir() or (not p.exists() and any(c in str(obj) for c in "*?["))


def _run_from_shards(spec: Any, name: str | None) -> Run:
    """The shards of ``spec`` (see :func:`scorekit.io.records.expand`), each read and checked on
    its own, then joined as one run."""
    from scorekit.io.records import expand

    files = expand(spec, "run")
    runs = [as_run(f) for f in files]
    if len(runs) == 1:
        run = runs[0]
        run.name = name or run.name
        return run
    qid = pa.chunked_array([r.qids.take(pa.array(r.q)) for r in runs], pa.string())
    docid = pa.chunked_array([c for r in runs for c in r.docs.chunks], pa.string())
    score = np.concatenate([r.score for r in runs])
    starts = np.cumsum([0] + [len(r) for r in runs])
    source = str(spec)
    try:
        return Run.from_arrays(qid, docid, score, name=name or runs[0].name, source=source,
                               line_of=lambda row: row)
    except InputError as exc:    # a row of the joined run: name its shard and line there
        if exc.line is None or exc.path != source:
            raise
        i = int(np.searchsorted(starts, exc.line, side="right")) - 1
        shard = runs[i]
        raise InputError(f"{exc.message} (shards are read as one run)", shard.source,
                         shard.line_of(exc.line - int(starts[i]))) from None


def _list_form(lists: Sequence, what: str) -> dict[str, Any]:
    """The spec's form: element i (a list of docids, or {docid: value}) is query ``q{i+1}``."""
    out = {}
    for i, docs in enumerate(lists):
        if isinstance(docs, str) or not isinstance(docs, (list, tuple, Mapping)):
            raise InputError(f"{what} list form: item {i} must be a list of document ids, "
                             f"found {type(docs).__name__}")
        out[f"q{i + 1}"] = docs
    return out
