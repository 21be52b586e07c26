"""Qrels, runs and queries from Parquet files and the local ir_datasets cache (docs/retrieval.md,
"Inputs"): Parquet (``.parquet``/``.pq``) with ranx's or ir_measures' column names; ``irds:<dataset
id>`` read **only from the local ir_datasets cache** (``$IR_DATASETS_HOME``, default
``~/.ir_datasets``): any attempt by ir_datasets to fetch a file is stopped and reported in one line
saying how to download it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scorekit.errors import InputError, MissingDependencyError
from scorekit.io.ids import clean_id
from scorekit.retrieval.data import Qrels, Run, to_numpy
from scorekit.text.normalize import nfc

IRDS_PREFIX = "irds:"
_QID = ("query_id", "q_id", "qid")
_DOC = ("doc_id", "docid")
_REL = ("relevance", "rel", "label", "score")   # ranx writes qrels as q_id, doc_id, score
_SCORE = ("score",)


# --- Parquet ---------------------------------------------------------------------------------

def is_parquet(path: Any) -> bool:
    return isinstance(path, (str, os.PathLike)) and str(path).lower().endswith((".parquet", ".pq"))


def pick_column(columns: list, options: tuple[str, ...], role: str, label: str, source: str) -> Any:
    """The first of ``options`` among ``columns`` (without case), or one error naming them all."""
    names = {str(c).lower(): c for c in columns}
    for o in options:
        if o in names:
            return names[o]
    raise InputError(f"{label} needs a {role} column (one of {', '.join(options)}); "
                     f"found {', '.join(map(str, columns))}", source)


def _column(table: pa.Table, options: tuple[str, ...], role: str, what: str, source: str) -> pa.ChunkedArray:
    return table.column(pick_column(table.column_names, options, role, f"Parquet {what}", source))


def _strings(col: pa.ChunkedArray) -> pa.ChunkedArray:
    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    return col if col.type == pa.string() else col.cast(pa.string())


def _numbers(col: pa.ChunkedArray, role: str, what: str, source: str) -> np.ndarray:
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        raise InputError(f"Parquet {what}: column {role!r} must be numeric, found {col.type}", source)
    if col.null_count:
        raise InputError(f"Parquet {what}: column {role!r} has {col.null_count} empty values", source)
    return to_numpy(col)


def read_parquet(path: str | os.PathLike, what: str, name: str | None = None) -> Qrels | Run:
    """A Parquet qrels (``what="qrels"``) or run (``what="run"``) file."""
    import pyarrow.parquet as pq

    source = str(path)
    if not Path(path).exists():
        raise InputError(f"{what} file not found", source)
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({str(exc).splitlines()[0]})", source) from None
    qid = _strings(_column(table, _QID, "query id", what, source))
    docid = _strings(_column(table, _DOC, "document id", what, source))
    if what == "qrels":
        rel = _numbers(_column(table, _REL, "relevance", what, source), "relevance", what, source)
        return Qrels.from_arrays(qid, docid, rel, source=source)
    score = _numbers(_column(table, _SCORE, "score", what, source), "score", what, source)
    return Run.from_arrays(qid, docid, score, name=name or Path(path).name.split(".")[0], source=source)


# --- ir_datasets (local cache only) ----------------------------------------------------------

def is_irds(obj: Any) -> bool:
    return isinstance(obj, str) and obj.startswith(IRDS_PREFIX)


class _WouldDownload(Exception):
    pass


@contextlib.contextmanager
def _no_downloads():
    """Make every ir_datasets download raise instead of touching the network (files already in
    the cache are read as usual)."""
    from ir_datasets.util import download

    original_path, original_stream = download.Download.path, download.Download.stream

    def path(self, force=True):
        cached = self._cache_path
        if force and not (cached is not None and os.path.exists(cached) and cached != os.devnull):
            raise _WouldDownload(cached)
        return original_path(self, force)

    def stream(self):
        if self._stream:
            raise _WouldDownload(None)
        return original_stream(self)

    download.Download.path = path
    download.Download.stream = stream
    try:
        yield
    finally:
        download.Download.path = original_path
        download.Download.stream = original_stream


@contextlib.contextmanager
def _tidy_irds_home():
    """Remove the empty folders ir_datasets makes when it is imported (one per registered
    dataset family, ~28) or a dataset is opened, so reading the cache leaves it as it was.
    Folders that existed before, or that now hold a file, are kept."""
    home = Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")
    anchor = home
    while not anchor.exists() and anchor.parent != anchor:
        anchor = anchor.parent
    before = {root for root, _, _ in os.walk(home)} if home.is_dir() else set()
    try:
        yield
    finally:
        if home.is_dir():
            for root, _, _ in os.walk(home, topdown=False):
                if root not in before:
                    with contextlib.suppress(OSError):
                        os.rmdir(root)            # only succeeds when empty
        p = home.parent
        while p != anchor and p.is_relative_to(anchor) and str(p) not in before:
            try:
                os.rmdir(p)
            except OSError:
                break
            p = p.parent


def _dataset(name: str):
    try:
        import ir_datasets
    except ImportError:
        raise MissingDependencyError("reading ir_datasets needs the ir_datasets package: "
                                     "pip install -e '.[ir_datasets]' in the scorekit checkout, or a built wheel's [ir_datasets]") from None
    dataset_id = name[len(IRDS_PREFIX):]
    try:
        return dataset_id, ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f"unknown ir_datasets dataset {dataset_id!r} (see https://ir-datasets.com)",
                         name) from None


def _not_cached(dataset_id: str, what: str) -> InputError:
    return InputError(f"the {what} of ir_datasets dataset {dataset_id!r} are not in the local cache "
                      f"({os.environ.get('IR_DATASETS_HOME', '~/.ir_datasets')}); scorekit never downloads: "
                      f"fetch them once with `python -c \"import ir_datasets; "
                      f"ir_datasets.load('{dataset_id}').{what}_iter().__next__()\"`")


def irds_qrels(name: str) -> Qrels:
    """The qrels of ``irds:<dataset id>`` from the local ir_datasets cache."""
    with _tidy_irds_home():
        dataset_id, ds = _dataset(name)
        if not ds.has_qrels():
            raise InputError(f"ir_datasets dataset {dataset_id!r} has no qrels", name)
        try:
            with _no_downloads():
                qrels = [(q.query_id, q.doc_id, q.relevance) for q in ds.qrels_iter()]
        except _WouldDownload:
            raise _not_cached(dataset_id, "qrels") from None
    if not qrels:
        raise InputError(f"ir_datasets dataset {dataset_id!r}: empty qrels", name)
    qids, docids, rels = (list(c) for c in zip(*qrels))
    return Qrels.from_arrays(pa.array(qids, pa.string()), pa.array(docids, pa.string()),
                             np.asarray(rels, dtype=np.int64), source=name)


def irds_queries(name: str) -> dict[str, str]:
    """``{query_id: text}`` (ids and texts normalised like all text: NFC, invisible characters
    removed) of ``irds:<dataset id>`` from the local ir_datasets cache."""
    with _tidy_irds_home():
        dataset_id, ds = _dataset(name)
        if not ds.has_queries():
            raise InputError(f"ir_datasets dataset {dataset_id!r} has no queries", name)
        out: dict[str, str] = {}
        try:
            with _no_downloads():
                for q in ds.queries_iter():
                    text = getattr(q, "text", None)
                    out[clean_id(q.query_id, name, None, "query id")] = nfc(
                        getattr(q, "title", "") if text is None else text)
        except _WouldDownload:
            raise _not_cached(dataset_id, "queries") from None
    return out
