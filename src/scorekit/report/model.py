"""The report's reading of a result JSON: :class:`Doc` (always a list of runs), the per-item
fields, the primary metric, and each metric's metadata (direction, kind of value) from the one
registry, :func:`scorekit.metrics.describe`; a key it does not know is :data:`UNKNOWN` (how that is
charted and its direction found: docs/report.md, "What the charts follow")."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from scorekit.errors import ScorekitError

# Most useful metric per task, tried in order (case-insensitive), when the result names none.
PRIMARY_METRICS: dict[str, tuple[str, ...]] = {
    "retrieval": ("ndcg@10", "ndcg_cut_10", "ndcg", "ndcg@5", "ndcg@3", "map", "mrr", "recip_rank"),
    "caption": ("meteor", "cider_d", "cider", "bertscore_f1", "bleu_4", "rouge_l"),
    "summary": ("rouge1", "rouge_1", "rouge-1", "rouge2", "bertscore_f1"),
    "sweep": ("rouge1", "rouge_1", "rouge-1", "bertscore_f1"),
    "topics": ("overall", "sc", "semantic_coherence", "coherence", "npmi", "c_v"),
    "absa": ("tuple_f1_s2", "tuple_f1", "f1", "micro_f1"),
}
# Where to look next when the task's own family does not know a key (older registries).
TASK_FAMILY = {"sweep": "summary", "summarize-rl-cv": "summary"}
UNKNOWN = "unknown"      # kind of a key the registry does not know: charted on its own axis
# Name-based fallback for direction when the registry does not know a key.
_LOWER_BETTER = re.compile(r"(error|loss|perplexity|latency|seconds|time_|_time|break|conflict|"
                           r"distance|redundan|\bfp\b|\bfn\b|false_)", re.I)
TEXT_FIELDS_FIRST = ("query", "prediction", "candidate", "hypothesis", "summary", "references",
                     "reference", "document", "text", "keywords", "words", "image", "video")
ID_KEYS = ("id",)
# per-item columns that number something (a fold, a seed) rather than measure it: never charted
INDEX_KEYS = ("fold", "seed")
HINT_KEYS = {"primary_metric", "lower_is_better", "warnings", "sweep"}


@dataclass
class Doc:
    """One input file, normalised: always a list of runs (a single result is one run)."""

    task: str
    runs: list[dict[str, Any]]
    comparison: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)   # top-level extra of a multi-run file
    source: str | None = None
    index: int = 0

    @property
    def multi(self) -> bool:
        return len(self.runs) > 1

    def run_name(self, i: int) -> str:
        return str(self.runs[i].get("name") or f"#{i + 1}")

    def names(self) -> list[str]:
        return [self.run_name(i) for i in range(len(self.runs))]

    def hints(self) -> dict[str, Any]:
        """Hint keys from the top-level extra, else the first run's extra."""
        return {k: v for src in (self.runs[0].get("extra") or {}, self.extra) for k, v in src.items()
                if k in HINT_KEYS}

    def extra_value(self, key: str) -> Any:
        """An ``extra`` entry from the top level, else the first run."""
        return self.extra[key] if key in self.extra else (self.runs[0].get("extra") or {}).get(key)

    def metric_names(self) -> list[str]:
        return list(dict.fromkeys(m for r in self.runs for m in (r.get("metrics") or {})))


def read_result(path: Any) -> dict[str, Any]:
    """Read and check one result JSON file (any command's ``--output``); errors name file, line."""
    from scorekit.io.atomic import read_text
    from scorekit.io.jsonfile import parse_json

    data = parse_json(read_text(path, "result JSON"), path)
    load_doc(data, str(path))  # validates the shape; raises a one-line ScorekitError
    return data


def load_doc(data: Any, source: str | None = None, index: int = 0) -> Doc:
    """Validate a parsed result JSON and normalise it into a :class:`Doc`."""
    where = f"{source}: " if source else ""
    if not isinstance(data, dict):
        raise ScorekitError(f"{where}not a scorekit result (expected a JSON object, got {type(data).__name__})")
    runs = data.get("runs")
    multi = runs is not None
    if multi and not (isinstance(runs, list) and runs and all(isinstance(r, dict) for r in runs)):
        raise ScorekitError(f"{where}'runs' must be a non-empty list of result objects")
    if not multi and "metrics" not in data:
        raise ScorekitError(f"{where}not a scorekit result (no 'metrics' and no 'runs' key)")
    runs = [{**r, "task": r.get("task", data.get("task"))} for r in runs] if multi else [data]
    for i, r in enumerate(runs):
        if not isinstance(r.get("metrics", {}), dict):
            raise ScorekitError(f"{where}run {i + 1}: 'metrics' must be an object of name -> number")
        items = r.get("per_item") or []
        if not isinstance(items, list) or not all(isinstance(row, dict) for row in items):
            raise ScorekitError(f"{where}run {i + 1}: 'per_item' must be a list of objects")
        for key in ("task", "name", "signature"):   # a list here failed later: a traceback, a 'damaged' store
            if r.get(key) is not None and not isinstance(r[key], str):
                raise ScorekitError(f"{where}run {i + 1}: {key!r} must be a string, got {type(r[key]).__name__}")
    task = str(data.get("task") or runs[0].get("task") or "unknown")
    comparison = data.get("comparison") if isinstance(data.get("comparison"), dict) else None
    extra = data.get("extra") if multi and isinstance(data.get("extra"), dict) else {}
    return Doc(task=task, runs=runs, comparison=comparison, extra=extra, source=source, index=index)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def best_values(metrics: Sequence[Mapping[str, Any]], names: Sequence[str],
                lower_better: Callable[[str], bool], at_least: int = 2) -> dict[str, Any]:
    """Each metric's best value over the runs' ``metrics`` (bold), given by ``at_least`` runs."""
    values = {k: [m.get(k) for m in metrics if is_number(m.get(k))] for k in names}
    return {k: min(vals) if lower_better(k) else max(vals) for k, vals in values.items()
            if len(vals) >= at_least}


def sort_key(value: Any, lower_better: bool) -> tuple[int, float]:
    """Worst first: ascending for higher-is-better, descending for lower-is-better; missing last.
    (Best first is ``sort_key(value, not lower_better)``.)"""
    finite = is_number(value) and math.isfinite(value)
    return (0, -value if lower_better else value) if finite else (1, 0.0)


def numeric_item_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per-item columns that hold numbers (in first-seen order), ``id`` excluded."""
    seen: dict[str, bool] = {}
    for row in rows:
        for k, v in row.items():
            if k not in ID_KEYS and k not in INDEX_KEYS:
                seen[k] = seen.get(k, True) and (v is None or is_number(v))
    return [k for k, ok in seen.items() if ok and any(is_number(r.get(k)) for r in rows)]


def text_item_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    keys = list(dict.fromkeys(k for row in rows[:200] for k, v in row.items() if k not in ID_KEYS
                              and (isinstance(v, str) or isinstance(v, list) and v
                                   and all(isinstance(x, str) for x in v))))
    order = {k: i for i, k in enumerate(TEXT_FIELDS_FIRST)}
    return sorted(keys, key=lambda k: (order.get(k, len(order)), keys.index(k)))


# --------------------------------------------------------------------------- metric metadata
@lru_cache(maxsize=4096)
def describe_key(key: str, task: str) -> Any:
    """The registry's :class:`~scorekit.metrics.MetricInfo` of a result key, or None; a retrieval
    key in any spelling the CLI accepts (``ndcg_cut.10``, ``P@5``, ``AP``, ...) is known."""
    from scorekit.metrics import describe

    tries = [(key, task)]
    if task == "retrieval" and (canonical := retrieval_measure_name(key)) not in (None, "", key):
        tries.append((canonical, task))
    if task in TASK_FAMILY:   # also lead/rouge1@10 (a sweep column) and rouge1@n10-10 as rouge1
        base = re.sub(r"@n?\d+(-\d+)?$", "", key.rsplit("/", 1)[-1])
        tries += [(key, TASK_FAMILY[task]), (base, TASK_FAMILY[task])]
    for k, family in tries:
        with contextlib.suppress(Exception):   # a name the registry cannot parse is simply unknown
            if (info := describe(k, family)) is not None:
                return info
    return None


@lru_cache(maxsize=4096)
def retrieval_measure_name(key: str) -> str | None:
    """The canonical name (``ndcg@10``) of a retrieval measure in any spelling, or None."""
    from scorekit.retrieval.names import parse_measure

    try:
        return parse_measure(key).name
    except Exception:  # noqa: BLE001 - not a measure name
        return None


def metric_kind(key: str, task: str) -> str:
    """``rate`` (charted on 0..1), ``count``, ``score`` or :data:`UNKNOWN` (own axis)."""
    info = describe_key(key, task)
    return info.kind if info is not None else UNKNOWN


def lower_is_better(metric: str, doc: Doc | None = None, task: str | None = None) -> bool:
    """The result's ``extra["lower_is_better"]`` hint, else the registry's, else by the name."""
    if doc is not None:
        hint = doc.hints().get("lower_is_better")
        if isinstance(hint, (list, tuple)):
            return metric in hint
        task = task or doc.task
    if task:
        info = describe_key(metric, task)
        if info is not None:
            return not info.higher_is_better
    return bool(_LOWER_BETTER.search(metric))


def metric_doc(key: str, task: str) -> str:
    info = describe_key(key, task)
    return (info.doc or "").strip().splitlines()[0] if info is not None and info.doc else ""


# ------------------------------------------------------------------------------ primary metric
def primary_metric(doc: Doc) -> str | None:
    """The metric the drill-down sorts by: ``extra["primary_metric"]``, else the task's usual
    headline metric, else the first corpus metric that is also per item."""
    rows = [row for r in doc.runs for row in (r.get("per_item") or [])]
    fields = numeric_item_fields(rows)
    metrics = doc.metric_names()
    hint = doc.hints().get("primary_metric")
    if isinstance(hint, str) and (hint in fields or (not fields and hint in metrics)):
        return hint
    rec = doc.extra_value("recommendation")
    if doc.task == "sweep" and isinstance(rec, dict):   # the recommended summarizer, metric and n
        n = rec.get("interval") or []
        cand = f"{rec.get('summarizer')}/{rec.get('metric')}@{n[0] if isinstance(n, list) and n else None}"
        if cand in fields:
            return cand
    first = next((m for m in metrics if m in fields or not fields), None)
    if doc.task == "retrieval" and first:   # the first measure the user listed (in its order)
        return first
    pool = fields or metrics
    lower = {f.lower(): f for f in pool}
    for cand in PRIMARY_METRICS.get(doc.task, ()):
        if cand in lower:
            return lower[cand]
    return next((m for m in metrics if m in fields), pool[0] if pool else None)


# ------------------------------------------------------------------------------ human labels
LABELS: dict[str, str] = {
    # captions
    "meteor": "METEOR", "meteor15": "METEOR 1.5", "meteor_nltk": "METEOR (nltk)", "cider": "CIDEr-D",
    "cider_d": "CIDEr-D", "bertscore_f1": "BERTScore F1", "bertscore_p": "BERTScore precision",
    "bertscore_r": "BERTScore recall", "bleu": "BLEU", "bleu_1": "BLEU-1", "bleu_2": "BLEU-2",
    "bleu_3": "BLEU-3", "bleu_4": "BLEU-4", "rouge_l": "ROUGE-L", "spice": "SPICE", "clipscore": "CLIPScore",
    "chrf": "chrF",
    # summaries
    "rouge1": "ROUGE-1 F1", "rouge2": "ROUGE-2 F1", "rouge1_r": "ROUGE-1 recall", "rouge2_r": "ROUGE-2 recall",
    "rouge1_p": "ROUGE-1 precision", "rouge2_p": "ROUGE-2 precision", "efficiency": "Efficiency",
    "density": "Density", "token_density": "token density", "words": "words per summary",
    # topics
    "overall": "Overall", "sc": "semantic coherence (SC)", "sd_avg": "semantic distinctiveness (SD)",
    "sd": "semantic distinctiveness (SD)", "vd": "VD", "cd": "CD", "semdiv": "semantic diversity (SemDiv)",
    "npmi": "NPMI", "c_v": "C_V", "u_mass": "UMass", "topic_diversity": "topic diversity", "sis": "SIS",
    # ABSA
    "tuple_f1_s1": "tuple F1, stage 1", "tuple_f1_s2": "tuple F1, stage 2", "delta_f1": "ΔF1 (S2 − S1)",
    "fix_rate": "fix rate", "break_rate": "break rate", "net_gain": "net gain",
    # result keys of the caption report
    "baseline_meteor": "baseline METEOR", "meteor_improvement_pct": "change vs baseline",
    "target_1": "1st target", "target_2": "2nd target", "final": "final target",
}
_RETRIEVAL_LABELS = {"ndcg": "nDCG", "map": "MAP", "mrr": "MRR", "precision": "P", "recall": "R",
                     "hit_rate": "hit rate", "r_precision": "R-precision", "bpref": "bpref", "err": "ERR"}


def label(key: str, task: str | None = None) -> str:
    """A metric's name for a reader (``BERTScore F1``, ``nDCG@10`` for ``ndcg_cut.10``, a caption
    key with a folder parameter as ``BERTScore F1 (model=…/a/b)``); else the key as written."""
    from scorekit.metrics.registry import declared_key

    if key in LABELS:
        return LABELS[key]
    if task == "retrieval":
        fam, _, k = (retrieval_measure_name(key) or "").partition("@")
        if fam in _RETRIEVAL_LABELS:
            return _RETRIEVAL_LABELS[fam] + (f"@{k}" if k else "")
    base = declared_key(key) if task == "caption" else key
    if base != key and base in LABELS:    # a folder parameter by its last two parts
        args = re.sub(r"=([^,=();]*/)([^,=();/]+/[^,=();/]+)(?=[,)])", r"=…/\2", key[len(base):])
        return f"{LABELS[base]} {args}"
    return key
