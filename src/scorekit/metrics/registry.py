"""The one metric registry: name -> metric class, and result key -> :class:`MetricInfo`.

Families register their metric classes (``@register``) — or, for a result key with no
computation of its own here (a count an ABSA aggregate writes, a topic-model summary), declare its
metadata (:func:`declare`). The CLI's ``--metrics`` choices and "did you mean", the docs tables,
the report's metadata, comparisons and the oracle test harness look them up here. Names are
parsed with typed parameters: ``ndcg@10``, ``bleu_4``, ``recall(rel=2)@10``.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.base import VALUE_KINDS, Metric, MetricInfo

# family -> modules whose import registers that family's metrics (imported lazily, on first use,
# so `scorekit retrieval` never imports torch: these modules import no model code at top level).
FAMILY_MODULES: dict[str, tuple[str, ...]] = {
    "retrieval": ("scorekit.retrieval.metric",),
    "caption": ("scorekit.generation.metrics",),
    "summary": ("scorekit.summarization.metric_info",),
    "sweep": ("scorekit.summarization.metric_info",),
    "topics": ("scorekit.topics.metric_info",),
    "absa": ("scorekit.absa.metric_info",),
}


class MetricRegistry:
    def __init__(self) -> None:
        self._classes: dict[tuple[str, str], type[Metric]] = {}   # (family, name) -> class
        self._keys: dict[tuple[str, str], MetricInfo] = {}        # (family, key) -> info
        self._loaded: set[str] = set()

    def register(self, cls: type[Metric]) -> type[Metric]:
        if not cls.name or not cls.family:
            raise TypeError(f"{cls.__name__}: a metric needs a name and a family")
        if cls.kind not in VALUE_KINDS:
            raise TypeError(f"{cls.__name__}: kind must be one of {VALUE_KINDS}, not {cls.kind!r}")
        self._classes[(cls.family, cls.name)] = cls
        for key in cls.result_keys():
            self._keys[(cls.family, key)] = cls.info(key)
        return cls

    def declare(self, info: MetricInfo) -> MetricInfo:
        if info.kind not in VALUE_KINDS:
            raise TypeError(f"{info.key}: kind must be one of {VALUE_KINDS}, not {info.kind!r}")
        self._keys[(info.family, info.key)] = info
        return info

    def _load(self, family: str | None) -> None:
        fams = [family] if family else list(FAMILY_MODULES)
        for fam in fams:
            if fam in self._loaded:
                continue
            self._loaded.add(fam)
            for mod in FAMILY_MODULES.get(fam, ()):
                importlib.import_module(mod)

    def families(self) -> list[str]:
        return list(FAMILY_MODULES)

    def names(self, family: str | None = None) -> list[str]:
        """Registered metric (class) names."""
        self._load(family)
        return [n for (f, n) in self._classes if family is None or f == family]

    def keys(self, family: str | None = None) -> list[str]:
        """Declared result keys."""
        self._load(family)
        return list(dict.fromkeys(k for (f, k) in self._keys if family is None or f == family))

    def infos(self, family: str | None = None) -> list[MetricInfo]:
        self._load(family)
        return [i for (f, _), i in self._keys.items() if family is None or f == family]

    def metric_class(self, family: str, name: str) -> type[Metric]:
        self._load(family)
        try:
            return self._classes[(family, name)]
        except KeyError:
            raise UnknownNameError(f"{family} metric", name, self.names(family) + self.keys(family)) from None

    def classes(self, family: str | None = None) -> list[type[Metric]]:
        self._load(family)
        return [c for (f, _), c in self._classes.items() if family is None or f == family]

    def _exact(self, key: str, family: str | None) -> MetricInfo | None:
        if family is not None:
            return self._keys.get((family, key))
        for (f, k), info in self._keys.items():
            if k == key:
                return info
        return None

    def info(self, key: str, family: str | None = None) -> MetricInfo | None:
        """Metadata of a result key. Tries the key itself, then without a ``system/`` prefix (the
        sweep's ``lead/rouge1@3``), then the base of a parameterised name (``ndcg@10`` ->
        ``ndcg``; ``rouge1@n7-7`` -> ``rouge1``), as a key or a metric class name."""
        self._load(family)
        found = self._exact(key, family)
        if found is not None:
            return found
        bare = key.rsplit("/", 1)[-1]
        try:
            base, _ = split_name(bare)
        except ScorekitError:
            base = None
        for cand in dict.fromkeys(c for c in (bare, base) if c):
            found = self._exact(cand, family)
            if found is not None:
                return MetricInfo(key, found.metric, found.family, found.higher_is_better, found.kind,
                                  found.doc, found.corpus)
            for (f, n), cls in self._classes.items():
                if n == cand and (family is None or f == family):
                    info = cls.info()
                    return MetricInfo(key, n, f, info.higher_is_better, info.kind, info.doc, info.corpus)
        return None


_NAME = re.compile(r"^\s*([A-Za-z_][\w\-]*?)\s*(?:\((?P<args>[^)]*)\))?\s*(?:@\s*(?P<k>[^\s@]+))?\s*$")


def split_name(text: str) -> tuple[str, dict[str, str]]:
    """``"recall(rel=2)@10"`` -> ``("recall", {"rel": "2", "k": "10"})``; ``"bleu_4"`` stays one
    name (families decide whether a suffix is a parameter)."""
    m = _NAME.match(text)
    if not m:
        raise ScorekitError(f"cannot read metric name {text!r} (expected e.g. ndcg@10, bleu_4, recall(rel=2)@10)")
    params: dict[str, str] = {}
    if m.group("args"):
        for part in m.group("args").split(","):
            if not part.strip():
                continue
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise ScorekitError(f"cannot read parameter {part.strip()!r} in {text!r} (expected name=value)")
            params[key.strip()] = value.strip()
    if m.group("k") is not None:
        params["k"] = m.group("k")
    return m.group(1), params


def split_names(text: str) -> list[str]:
    """Split a comma-separated list of names on the commas outside parentheses:
    ``"P(rel=2,judged_only=1)@5,ndcg@10"`` -> ``["P(rel=2,judged_only=1)@5", "ndcg@10"]``; each
    part is then read by :func:`split_name` (or a family's own parser)."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


REGISTRY = MetricRegistry()


def register(cls: type[Metric]) -> type[Metric]:
    """Class decorator: add a metric to the one registry."""
    return REGISTRY.register(cls)


def declare(family: str, key: str, *, doc: str, kind: str = "rate", higher_is_better: bool = True,
            metric: str | None = None, corpus: bool = False) -> MetricInfo:
    """Declare the metadata of a result key that has no :class:`Metric` class of its own (a count
    in an ABSA aggregate, a topic-model summary number)."""
    return REGISTRY.declare(MetricInfo(key, metric or key, family, higher_is_better, kind, doc, corpus))


def get_metric(family: str, name: str, **params: Any) -> Metric:
    return REGISTRY.metric_class(family, name)(**params)


def describe(key: str, family: str | None = None) -> MetricInfo | None:
    """Metadata (direction, kind of value, doc, corpus-level or not) of a result key, or None."""
    return REGISTRY.info(key, family)
