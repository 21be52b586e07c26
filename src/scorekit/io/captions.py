"""Readers for caption predictions and references (spec caption-metrics.md §8.1 evaluate.py).

The formats — COCO ``.json`` (recognised from the content), ``.json`` keyed by id, ``.jsonl``,
``.csv``/``.tsv`` and ``.parquet`` (``.gz`` too), or a folder or glob of such shards — are
docs/caption.md's "Input formats" and docs/scale-out.md's shard inputs. Ids are normalised like
the text (:mod:`scorekit.io.ids`): two ids of one input that become equal are duplicates. Errors
name the file, the line (where the format has lines) and the id. Pairing (:func:`pair`): the
references define the test set — an id with references but no prediction scores as an empty
prediction (0, counted), a prediction without references is dropped, both reported by name
(``strict=True`` makes either an error); against COCO annotations the predictions' images are
the test set, as in pycocoevalcap (:func:`read_caption_set`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scorekit.errors import InputError
from scorekit.io.atomic import read_text
from scorekit.io.ids import clean_id, record_id
from scorekit.io.jsonfile import member_lines, parse_json
from scorekit.io.records import expand, file_kind, read_records
from scorekit.text.normalize import nfc

PRED_KEYS = ("prediction", "caption", "text", "hypothesis", "predictions", "captions")
REF_KEYS = ("references", "reference", "captions", "caption", "refs", "text")


def _coco_rows(data, path: Path) -> tuple[list[tuple[str, object, int | None]], str] | None:
    """A COCO file's (image id, caption, None) rows in file order and its kind ("annotations" or
    "results"), or None when ``data`` is neither."""
    if isinstance(data, dict) and isinstance(data.get("annotations"), list) and (
            "images" in data or (data["annotations"] and isinstance(data["annotations"][0], dict)
                                 and "image_id" in data["annotations"][0])):
        anns, kind = data["annotations"], "annotations"
    elif isinstance(data, list) and data and isinstance(data[0], dict) and "image_id" in data[0]:
        anns, kind = data, "results"
    else:
        return None
    rows = []
    for i, a in enumerate(anns, 1):
        what = f"COCO {kind[:-1]} {i}"
        if not isinstance(a, dict) or "image_id" not in a or "caption" not in a:
            raise InputError(f"{what}: expected an object with 'image_id' and 'caption'", path)
        img = a["image_id"]
        if isinstance(img, bool) or not isinstance(img, (int, str)):
            raise InputError(f"{what}: image_id must be an integer or a string, got {type(img).__name__}", path)
        if not isinstance(a["caption"], str):
            raise InputError(f"{what}: caption must be a string, got {type(a['caption']).__name__}", path)
        rows.append((str(img), a["caption"], None))
    return rows, kind


@dataclass
class CaptionSet:
    ids: list[str]
    predictions: list[str]
    references: list[list[str]]
    warnings: list[str] = field(default_factory=list)
    n_empty_predictions: int = 0
    n_missing_predictions: int = 0
    n_dropped_predictions: int = 0


def _fmt(path: Path) -> str:
    fmt = file_kind(path)
    if fmt in ("json", "jsonl", "csv", "tsv", "parquet"):
        return fmt
    raise InputError("unknown caption file format (expected .json, .jsonl, .csv, .tsv or .parquet; "
                     "or a folder or glob of such shards)", path)


def _prediction(value, path, line, key) -> str:
    if isinstance(value, list):
        if len(value) == 0:
            return ""
        if len(value) != 1:
            raise InputError(f"id {key!r}: expected one prediction, got a list of {len(value)}", path, line)
        value = value[0]
    if not isinstance(value, str):
        raise InputError(f"id {key!r}: prediction must be a string, got {type(value).__name__}", path, line)
    return nfc(value)


def _references(value, path, line, key) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise InputError(f"id {key!r}: references must be a list of strings, got {type(value).__name__}",
                         path, line)
    if not value:
        raise InputError(f"id {key!r}: empty reference list", path, line)
    for j, r in enumerate(value, 1):
        if not isinstance(r, str):
            raise InputError(f"id {key!r}: reference {j} must be a string, got {type(r).__name__}",
                             path, line)
        if not r.strip():
            raise InputError(f"id {key!r}: reference {j} is empty", path, line)
    return [nfc(r) for r in value]


def _records(path: Path, what: str) -> tuple[list[tuple[str, object, int | None]], str | None]:
    """(id, raw value, line) in file order, and the file's COCO kind ("annotations", "results"
    or None)."""
    fmt = _fmt(path)
    keys = PRED_KEYS if what == "predictions" else REF_KEYS
    if fmt == "json":
        text = read_text(path, f"{what} file")
        data = parse_json(text, path)
        coco = _coco_rows(data, path)
        if coco is not None:
            return coco
        if isinstance(data, dict):
            return [(str(k), v, ln) for (k, v), ln in zip(data.items(), member_lines(text))], None
        if not isinstance(data, list):
            raise InputError("expected a JSON object keyed by id (or a list of objects)", path)
        objs = ((None, o) for o in data)
    else:
        columns, objs = read_records(path, f"{what} file")
        if columns is not None:    # a CSV/TSV header or Parquet's columns
            at = None if fmt == "parquet" else 1
            if "id" not in columns:
                raise InputError("expected an 'id' column" if at is None
                                 else "expected a header row with an 'id' column", path, at)
            if not any(k in columns for k in keys):
                raise InputError(f"expected a text column named one of {', '.join(keys)}", path, at)
    rows = []
    for line, o in objs:
        if not isinstance(o, dict) or "id" not in o:
            raise InputError("expected an object with an 'id' key", path, line)
        rid, key = record_id(o["id"], path, line), next((k for k in keys if k in o), None)
        if key is None:
            raise InputError(f"expected one of the keys {', '.join(keys)}", path, line)
        rows.append((rid, o[key], line))
    return rows, None


def _read(path: str | Path, what: str) -> tuple[dict, bool]:
    """``what`` ("predictions": id -> text, or "references": id -> texts) and whether they came
    from COCO annotations files."""
    out: dict = {}
    seen: dict[str, tuple[Path, str, bool]] = {}  # first shard, raw id; one row per reference?
    annotations, preds = False, what == "predictions"
    shards = expand(Path(path), f"{what} shards")   # a file, or a folder's / glob's shards by name
    for shard, fmt in zip(shards, [_fmt(shard) for shard in shards]):
        records, coco = _records(shard, what)
        annotations |= coco == "annotations"
        for raw, value, line in records:
            key = clean_id(raw, shard, line)
            if not key.strip():
                raise InputError(f"empty id {raw!r}", shard, line)
            # CSV/TSV rows, Parquet rows holding one string and COCO captions are one reference each
            per_row = fmt in ("csv", "tsv") or (fmt == "parquet" and isinstance(value, str)) or bool(coco)
            refs = None if preds else _references(value, shard, line, key)
            if key in out and (preds or not (per_row and seen[key][2])):
                first, first_raw, _ = seen[key]
                also = "" if first == shard else f" (also in {first})"
                if raw != first_raw:
                    also += (" (two spellings, equal once normalised: NFC, invisible characters"
                             " removed)")
                raise InputError(f"duplicate {what[:-1]} id {key!r}{also}", shard, line)
            if preds:
                out[key] = _prediction(value, shard, line, key)
            else:
                out.setdefault(key, []).extend(refs)
            seen.setdefault(key, (shard, raw, per_row))
    if not out:   # an empty file, {} or []: every reference would silently score 0
        raise InputError(f"no {what}", shards[0] if len(shards) == 1 else path)
    return out, annotations


def read_predictions(path: str | Path) -> dict[str, str]:
    return _read(path, "predictions")[0]


def read_references(path: str | Path) -> dict[str, list[str]]:
    return _read(path, "references")[0]


def _names(ids: list[str], limit: int = 5) -> str:
    shown = ", ".join(repr(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def pair(predictions: dict[str, str], references: dict[str, list[str]], *, strict: bool = False,
         pred_path: str | Path | None = None, ref_path: str | Path | None = None) -> CaptionSet:
    """Align by id in reference order; see the module docstring for the missing-id policy."""
    missing = [k for k in references if k not in predictions]
    extra = [k for k in predictions if k not in references]
    warnings = []
    rules = ((missing, "reference id(s) have no prediction", "score 0", pred_path),
             (extra, "prediction id(s) have no references", "are ignored", ref_path))
    for bad, what, fate, path in rules:
        if bad and strict:
            raise InputError(f"{len(bad)} {what}: {_names(bad)}", path)
        if bad:
            warnings.append(f"{len(bad)} {what} and {fate}: {_names(bad)}")
    ids = list(references)
    preds = [predictions.get(k, "") for k in ids]
    empty = sum(1 for p in preds if not p.strip())
    return CaptionSet(ids, preds, [references[k] for k in ids], warnings, empty, len(missing), len(extra))


def read_caption_set(predictions: str | Path, references: str | Path, *, strict: bool = False) -> CaptionSet:
    preds = read_predictions(predictions)
    refs, annotations = _read(references, "references")
    # pycocoevalcap scores the results' images: an annotated image without a prediction is not
    # part of the test set (a COCO annotations file holds the whole split) — unless none has one
    left_out = [k for k in refs if k not in preds] if annotations and not strict else []
    left_out = left_out if len(left_out) < len(refs) else []
    refs = {k: v for k, v in refs.items() if k in preds or not left_out}
    out = pair(preds, refs, strict=strict, pred_path=predictions, ref_path=references)
    if left_out:
        out.warnings.insert(0, f"{len(left_out)} annotated image(s) have no prediction and are not scored "
                               f"(as pycocoevalcap, the predictions' images are the test set): {_names(left_out)}")
    return out


def media_paths(directory: str | Path, ids: list[str], kind: str = "images") -> list[Path]:
    """Each id's image (``<id>.jpg|jpeg|png|webp|bmp``) or video (``<id>.mp4|avi|mov|mkv|webm``) in
    ``directory``, in the order of ``ids``; a missing folder or file is one error naming it."""
    directory = Path(directory)
    exts = ((".jpg", ".jpeg", ".png", ".webp", ".bmp") if kind == "images"
            else (".mp4", ".avi", ".mov", ".mkv", ".webm"))
    if not directory.is_dir():
        raise InputError(f"{kind} directory not found", directory)
    by_stem = {p.stem: p for p in directory.iterdir() if p.suffix.lower() in exts}
    missing = [i for i in ids if i not in by_stem]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5])
        raise InputError(f"no {kind[:-1]} file for {len(missing)} id(s): {shown}", directory)
    return [by_stem[i] for i in ids]
