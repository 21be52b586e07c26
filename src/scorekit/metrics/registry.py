"""The one metric registry: name -> metric class, and result key -> :class:`MetricInfo`.

Families register their metric classes (``@register``); the CLI, docs tables, report metadata,
comparisons, the test harness and the Ray engine look them up here. Names are parsed with typed
parameters: ``ndcg@10``, ``bleu_4``, ``recall(rel=2)@10``.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.base import Metric, MetricInfo

# family -> modules whose import registers that family's metrics (imported lazily, on first use,
# so `scorekit retrieval` never imports torch).
FAMILY_MODULES: dict[str, tuple[str, ...]] = {}


class MetricRegistry:
    def __init__(self) -> None:
        self._classes: dict[tuple[str, str], type[Metric]] = {}   # (family, name) -> class
        self._keys: dict[tuple[str, str], MetricInfo] = {}        # (family, key) -> info
        self._loaded: set[str] = set()

    def register(self, cls: type[Metric]) -> type[Metric]:
        if not cls.name or not cls.family:
            raise TypeError(f"{cls.__name__}: a metric needs a name and a family")
        self._classes[(cls.family, cls.name)] = cls
        for key in (cls.keys or (cls.name,)):
            self._keys[(cls.family, key)] = MetricInfo(key, cls.name, cls.family, cls.higher_is_better,
                                                       cls.kind, cls.doc(), cls.corpus)
        return cls

    def _load(self, family: str | None) -> None:
        fams = [family] if family else list(FAMILY_MODULES)
        for fam in fams:
            if fam in self._loaded:
                continue
            self._loaded.add(fam)
            for mod in FAMILY_MODULES.get(fam, ()):
                try:
                    importlib.import_module(mod)
                except ImportError:   # an optional dependency missing: its metrics stay unknown
                    pass

    def names(self, family: str | None = None) -> list[str]:
        self._load(family)
        return [n for (f, n) in self._classes if family is None or f == family]

    def keys(self, family: str | None = None) -> list[str]:
        self._load(family)
        return [k for (f, k) in self._keys if family is None or f == family]

    def metric_class(self, family: str, name: str) -> type[Metric]:
        self._load(family)
        try:
            return self._classes[(family, name)]
        except KeyError:
            raise UnknownNameError(f"{family} metric", name, self.names(family) + self.keys(family)) from None

    def info(self, key: str, family: str | None = None) -> MetricInfo | None:
        self._load(family)
        for (f, k), info in self._keys.items():
            if k == key and (family is None or f == family):
                return info
        base, params = split_name(key)
        for (f, n), cls in self._classes.items():
            if n == base and (family is None or f == family):
                return MetricInfo(key, n, f, cls.higher_is_better, cls.kind, cls.doc(), cls.corpus)
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


REGISTRY = MetricRegistry()


def register(cls: type[Metric]) -> type[Metric]:
    """Class decorator: add a metric to the one registry."""
    return REGISTRY.register(cls)


def get_metric(family: str, name: str, **params: Any) -> Metric:
    return REGISTRY.metric_class(family, name)(**params)


def describe(key: str, family: str | None = None) -> MetricInfo | None:
    """Metadata (direction, kind of value, doc, corpus-level or not) of a result key, or None."""
    return REGISTRY.info(key, family)
