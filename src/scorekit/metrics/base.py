"""One metric, two faces: functional and stateful, both over per-item sufficient statistics.

The life of a metric (sacrebleu's shape, torchmetrics' faces)::

    stats = m.item_stats(batch)          # per-item sufficient statistics (a Stats, one row/item)
    stats = m.merge(stats_a, stats_b)    # shards / batches combined (row-wise concatenation)
    values = m.score(stats)              # {key: corpus value}, from the merged statistics
    per_item = m.item_scores(stats)      # {key: array of per-item values}

Stateful face: ``m.update(batch)``, ``m.compute()``, ``m.merge_state(other)``, ``m.reset()``.
Functional face: ``m(batch)`` == update on a fresh copy then compute.

Statistics are kept **per item** (rows), so merging is concatenation, a bootstrap resample is a
row index, and a corpus score (BLEU's n-gram sums, CIDEr's document frequencies) is recomputed
from any subset exactly — what comparisons and the Ray engine rely on.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError

VALUE_KINDS = ("rate", "count", "score")  # rate: in [0, 1]; count: a non-negative count;
#                                           score: any other number (CIDEr 0..10, ICC, z-scores)


def format_value(value: Any) -> str:
    """A parameter value as the name grammar writes it (``3``, ``0.85``, ``true``, ``a.tsv;b.tsv``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if value != int(value) else str(int(value))
    if isinstance(value, (list, tuple)):
        return ";".join(format_value(v) for v in value)
    return str(value)


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class Param:
    """A typed metric parameter (``k`` of ``ndcg@10``, ``beta`` of ``chrf(beta=3)``): its type,
    default, allowed values (``choices``, or a ``low``..``high`` range), other spellings
    (``aliases``), whether its value is pinned in the signature (``strict``: the range's ends
    themselves are excluded), and whether it is set once for the whole batch (``batch``: the language and tokenizer every caption metric shares) rather
    than per metric in the name grammar."""

    name: str
    type: type
    default: Any = None
    doc: str = ""
    signature: bool = True   # does the value belong in the signature?
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    aliases: tuple[str, ...] = ()
    batch: bool = False
    strict: bool = False

    def outside(self, value: Any) -> bool:
        """Is ``value`` outside the declared range (``low``..``high``; ends excluded when strict)?"""
        lo, hi = self.low, self.high
        if self.strict:
            return (lo is not None and value <= lo) or (hi is not None and value >= hi)
        return (lo is not None and value < lo) or (hi is not None and value > hi)

    def coerce(self, value: Any) -> Any:
        """``value`` (a Python value, or the text of the name grammar) as this parameter's type,
        checked against its choices and range; a wrong value is one line naming the parameter."""
        if isinstance(value, str) and self.type is not str and value.strip().lower() == "none" \
                and self.default is None:
            return None
        if value is None or isinstance(value, self.type) and not (self.type is int and isinstance(value, bool)):
            out = value
        elif self.type is bool and isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            out = value.strip().lower() in _TRUE
        elif self.type is float and isinstance(value, bool):
            raise ScorekitError(f"parameter {self.name!r} must be a number, got {value!r}")
        elif self.type is bool and isinstance(value, (int, np.integer)) and value in (0, 1):
            out = bool(value)
        elif self.type is bool:   # bool("maybe") would be True
            raise ScorekitError(f"parameter {self.name!r} must be true or false, got {value!r}")
        else:
            try:
                out = self.type(value)
            except (TypeError, ValueError):
                raise ScorekitError(f"parameter {self.name!r} must be {self.type.__name__}, got {value!r}") from None
        if out is None:
            return out
        if self.type is float and not np.isfinite(out):   # nan passes every range check
            raise ScorekitError(f"parameter {self.name!r} must be a finite number, got {value!r}")
        if self.choices and out not in self.choices:
            raise UnknownNameError(f"value of parameter {self.name!r}", out, [str(c) for c in self.choices])
        if self.outside(out):
            lo = "-inf" if self.low is None else f"{self.low:g}"
            hi = "inf" if self.high is None else f"{self.high:g}"
            left, right = ("(", ")") if self.strict else ("[", "]")
            raise ScorekitError(f"parameter {self.name!r} must be in {left}{lo}, {hi}{right}, got {out!r}")
        return out

    def describe(self) -> str:
        """One line for help and the docs: ``beta (int, default 2; 1..)``."""
        allowed = ""
        if self.choices:
            allowed = "; " + " | ".join(str(c) for c in self.choices)
        elif self.low is not None or self.high is not None:
            allowed = f"; {'' if self.low is None else f'{self.low:g}'}..{'' if self.high is None else f'{self.high:g}'}"
        return f"{self.name} ({self.type.__name__}, default {self.default!r}{allowed})"


@dataclass(frozen=True)
class MetricInfo:
    """What the registry knows about a metric key without computing anything."""

    key: str                      # result key, e.g. "ndcg@10", "bleu_4", "bertscore_f1"
    metric: str                   # registered metric name producing it, e.g. "ndcg", "bleu"
    family: str                   # "retrieval", "caption", "summary", "topics", "absa", ...
    higher_is_better: bool = True
    kind: str = "rate"            # one of VALUE_KINDS
    doc: str = ""
    corpus: bool = False          # True: the score is computed from merged statistics
    #                               (BLEU, CIDEr, chrF), not the mean of per-item values


@dataclass
class Stats:
    """Per-item sufficient statistics: named columns with one row per item (numpy arrays or
    lists), plus corpus-level ``meta`` that must be equal across shards (e.g. a tokenizer)."""

    columns: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()), ()))

    def take(self, index: Sequence[int] | np.ndarray) -> "Stats":
        """The statistics of a subset (or resample, with repeats) of the items."""
        idx = np.asarray(index, dtype=np.int64)
        return Stats({k: v[idx] if isinstance(v, np.ndarray) else [v[i] for i in idx]
                      for k, v in self.columns.items()}, dict(self.meta))

    @staticmethod
    def concat(parts: Sequence["Stats"]) -> "Stats":
        parts = [p for p in parts if p is not None]
        if not parts:
            return Stats()
        meta = parts[0].meta
        for p in parts[1:]:
            if p.meta != meta:
                raise ScorekitError(f"cannot merge statistics computed differently: {meta} vs {p.meta}")
        vals = {k: [p.columns[k] for p in parts] for k in parts[0].columns}
        return Stats({k: np.concatenate(vs) if isinstance(parts[0].columns[k], np.ndarray)
                      else [x for v in vs for x in v] for k, vs in vals.items()}, dict(meta))


class Metric:
    """Base class of every metric. Subclasses set the class attributes and implement
    :meth:`item_stats` and :meth:`score` (and :meth:`item_scores` when per-item values differ
    from scoring each row alone)."""

    name: ClassVar[str] = ""
    family: ClassVar[str] = ""
    keys: ClassVar[tuple[str, ...]] = ()          # result keys produced (default: (name,))
    higher_is_better: ClassVar[bool] = True
    kind: ClassVar[str] = "rate"
    corpus: ClassVar[bool] = False
    params: ClassVar[tuple[Param, ...]] = ()
    needs_model: ClassVar[bool] = False   # computes with a model: one per worker (Ray actors)
    shard_align: ClassVar[int] = 1       # shards are cut where the pairs before are a multiple
    #                                      of this (a batched encoder pads as in one process)
    key_info: ClassVar[Mapping[str, Mapping[str, Any]]] = {}   # per-key overrides of MetricInfo
    #                                                           fields (doc, kind, direction)
    # The run's ``--allow-english-model`` (``allow_english_model=True`` of the evaluate functions),
    # set on every metric of a plan: a model metric may then score Korean with a model that cannot
    # read Hangul. An acknowledgement for the whole run, not a parameter: it changes no number, so
    # it is neither written in the name grammar nor pinned in the signature.
    allow_english_model: bool = False

    def __init__(self, **params: Any):
        known = {p.name: p for p in self.params}
        spelled = {a: p.name for p in self.params for a in p.aliases}
        given: dict[str, Any] = {}
        for key, value in params.items():
            name = spelled.get(key, key)
            if name not in known:
                raise UnknownNameError(f"{self.name} parameter", key, list(known) + list(spelled))
            if name in given:
                raise ScorekitError(f"{self.name}: parameter {name!r} given twice")
            given[name] = value
        try:
            self.values = {p.name: p.coerce(given[p.name]) if p.name in given else p.default for p in self.params}
        except ScorekitError as exc:   # say whose parameter: -m "chrf(beta=3),rouge_l_coco(beta=-1)"
            exc.args = (f"{self.name}: {exc.args[0]}", *exc.args[1:])
            raise
        self._state: list[Stats] = []

    # -- declaration ------------------------------------------------------------------
    @classmethod
    def result_keys(cls) -> tuple[str, ...]:
        """The result keys this metric produces (``keys``, or its name alone)."""
        return tuple(cls.keys) or (cls.name,)

    @classmethod
    def doc(cls) -> str:
        return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())

    @classmethod
    def info(cls, key: str | None = None) -> MetricInfo:
        """Metadata of one result key of this metric (default: its first key)."""
        key = key or cls.result_keys()[0]
        fields = dict(key=key, metric=cls.name, family=cls.family, higher_is_better=cls.higher_is_better,
                      kind=cls.kind, doc=cls.doc(), corpus=cls.corpus)
        return MetricInfo(**{**fields, **cls.key_info.get(key, {})})

    def spec(self) -> str:
        """The canonical name of this metric with its parameters, in the name grammar:
        ``chrf(beta=3)``; parameters at their default, set for the batch, or not pinned in the
        signature are left out, the rest in declaration order — so ``get_metric`` of this text
        (with the batch's parameters) rebuilds a metric that gives the same numbers."""
        args = [f"{p.name}={format_value(self.values[p.name])}" for p in self.params
                if not p.batch and p.signature and self.values[p.name] != p.default]
        return f"{self.name}({','.join(args)})" if args else self.name

    def pins(self) -> dict[str, Any]:
        """What changes this metric's numbers beside its parameters — a stemmer's or tokenizer's
        version, a model's name and layer, a lexicon's content hash — declared by the metric."""
        return {}

    def signature_params(self) -> dict[str, Any]:
        """This metric's field in a signature (:func:`scorekit.signature.make_signature`): its
        canonical spec (:meth:`spec`) -> its pins, ``;``-separated
        (``meteor_nltk:stem=porter-nltk3.9.1;synonyms=wordnet-3.0``); none without pins (its
        spec alone, in the ``metrics`` list, rebuilds it: :func:`scorekit.metrics.get_metric`)."""
        pins = ";".join(f"{k}={format_value(v)}" for k, v in self.pins().items())
        return {self.spec(): pins} if pins else {}

    # -- the computation (subclasses) -------------------------------------------------
    def item_stats(self, batch: Any) -> Stats:
        raise NotImplementedError

    def whole(self, batch: Any) -> None:
        """Called by the driver with the whole batch before it is cut into shards. A metric whose
        item statistics depend on the whole batch (BERTScore's idf, from every reference) keeps
        what it needs here; it travels to the workers with the metric. Default: nothing."""

    def merge(self, *parts: Stats) -> Stats:
        return Stats.concat(parts)

    def score(self, stats: Stats) -> dict[str, float]:
        raise NotImplementedError

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        raise NotImplementedError

    # -- stateful face ----------------------------------------------------------------
    def update(self, batch: Any) -> "Metric":
        self._state.append(self.item_stats(batch))
        return self

    def merge_state(self, other: "Metric") -> "Metric":
        if type(other) is not type(self) or other.values != self.values:
            raise ScorekitError(f"cannot merge {other.name}{other.values} into {self.name}{self.values}")
        self._state.extend(other._state)
        return self

    def state(self) -> Stats:
        return self.merge(*self._state)

    def compute(self) -> dict[str, float]:
        return self.score(self.state())

    def reset(self) -> "Metric":
        self._state = []
        return self

    # -- functional face --------------------------------------------------------------
    def __call__(self, batch: Any) -> dict[str, float]:
        fresh = copy.copy(self)
        fresh._state = []
        return fresh.update(batch).compute()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.values.items())
        return f"{type(self).__name__}({args})"
