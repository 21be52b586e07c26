"""The one metric registry: name -> metric class, and result key -> :class:`MetricInfo`.

Families register their metric classes (``@register``) — or, for a result key with no
computation of its own here (a count an ABSA aggregate writes, a topic-model summary), declare its
metadata (:func:`declare`). The CLI's ``--metrics`` choices and "did you mean", the docs tables,
the report's metadata, comparisons and the oracle test harness look them up here. Names are
parsed with typed parameters: ``ndcg@10``, ``bleu_4``, ``recall(rel=2)@10``, ``chrf(beta=3)``
(:class:`MetricSpec`; :func:`split_specs` splits a ``-m`` list); :func:`get_metric` builds any
registered metric from such a name, checked against its declared :class:`Param` declarations.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from typing import Any

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.base import VALUE_KINDS, Metric, MetricInfo

# family -> modules whose import registers that family's metrics (imported lazily, on first use,
# so `scorekit retrieval` never imports torch: these modules import no model code at top level).
FAMILY_MODULES: dict[str, tuple[str, ...]] = {
    "retrieval": ("scorekit.retrieval.metric",),
    "caption": ("scorekit.generation.metrics",),
    "summary": ("scorekit.summarization.metrics",),
    "topics": ("scorekit.topics.semantic", "scorekit.topics.coherence", "scorekit.topics.meta"),
    "absa": ("scorekit.absa.metrics",),
}


# a family whose commands also score another family's metrics: ``scorekit summary -m chrf``
ALSO_SCORES: dict[str, tuple[str, ...]] = {"summary": ("caption",)}
# a task that writes another family's keys (with a suffix: the sweep's ``lead/rouge1@3``)
SAME_KEYS: dict[str, str] = {"sweep": "summary"}


def _same(family: str | None) -> str | None:
    return SAME_KEYS.get(family, family) if family is not None else None


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

    def _load(self, family: str | None) -> str | None:
        """Import ``family``'s metric modules (every family's for None); the family as registered."""
        family = _same(family)
        for fam in [family] if family else list(FAMILY_MODULES):
            if fam not in self._loaded:
                self._loaded.add(fam)
                for mod in FAMILY_MODULES.get(fam, ()):
                    importlib.import_module(mod)
        return family

    def families(self) -> list[str]:
        return list(FAMILY_MODULES)

    def _of(self, table: dict, family: str | None) -> list[tuple[str, Any]]:
        """``(name or key, entry)`` of ``table`` in ``family`` (every family for None)."""
        family = self._load(family)
        return [(n, v) for (f, n), v in table.items() if family is None or f == family]

    def names(self, family: str | None = None) -> list[str]:
        """Registered metric (class) names."""
        return [n for n, _ in self._of(self._classes, family)]

    def keys(self, family: str | None = None) -> list[str]:
        """Declared result keys."""
        return list(dict.fromkeys(k for k, _ in self._of(self._keys, family)))

    def infos(self, family: str | None = None) -> list[MetricInfo]:
        return [i for _, i in self._of(self._keys, family)]

    def classes(self, family: str | None = None) -> list[type[Metric]]:
        return [c for _, c in self._of(self._classes, family)]

    def metric_class(self, family: str, name: str) -> type[Metric]:
        family = self._load(family)
        try:
            return self._classes[(family, name)]
        except KeyError:
            raise UnknownNameError(f"{family} metric", name, self.names(family) + self.keys(family)) from None

    def _exact(self, key: str, family: str | None) -> MetricInfo | None:
        return next((info for k, info in self._of(self._keys, family) if k == key), None)

    def info(self, key: str, family: str | None = None) -> MetricInfo | None:
        """Metadata of a result key. Tries the key itself, then without a ``system/`` prefix (the
        sweep's ``lead/rouge1@3``), then the base of a parameterised name (``ndcg@10`` ->
        ``ndcg``; ``rouge1@n7-7`` -> ``rouge1``), as a key or a metric class name."""
        family = self._load(family)
        if (found := self._exact(key, family)) is not None:
            return found
        bare = key.rsplit("/", 1)[-1]
        try:
            base, _ = split_name(bare)
        except ScorekitError:
            base = None
        for cand in dict.fromkeys(c for c in (bare, base) if c):
            if (found := self._exact(cand, family)) is not None:
                return replace(found, key=key)
            if (cls := next((c for n, c in self._of(self._classes, family) if n == cand), None)):
                return replace(cls.info(), key=key)
        return next((found for other in ALSO_SCORES.get(family or "", ())
                     if (found := self.info(key, other)) is not None), None)


_NAME = re.compile(r"^\s*([A-Za-z_][\w\-]*?)\s*(?:\((?P<args>[^)]*)\))?\s*(?:@\s*(?P<k>[^\s@]+))?\s*$")


def split_name(text: str) -> tuple[str, dict[str, str]]:
    """``"recall(rel=2)@10"`` -> ``("recall", {"rel": "2", "k": "10"})``; ``"bleu_4"`` stays one
    name (families decide whether a suffix is a parameter)."""
    m = _NAME.match(text)
    if not m:
        raise ScorekitError(f"cannot read metric name {text!r} (expected e.g. ndcg@10, bleu_4, recall(rel=2)@10)")
    params: dict[str, str] = {}
    for part in (m.group("args") or "").split(","):
        if part.strip():
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise ScorekitError(f"cannot read parameter {part.strip()!r} in {text!r} (expected name=value)")
            params[key.strip()] = value.strip()
    if m.group("k") is not None:
        params["k"] = m.group("k")
    return m.group(1), params


def split_specs(text: str) -> list[str]:
    """``"chrf(beta=3),meteor(alpha=0.85,beta=0.2),bleu_4"`` -> one metric spec per item: commas
    inside parentheses belong to the parameters."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ScorekitError(f"unbalanced ')' in metric list {text!r}")
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    if depth:
        raise ScorekitError(f"unbalanced '(' in metric list {text!r}")
    out.append(text[start:])
    return [x.strip() for x in out if x.strip()]


class MetricSpec:
    """One metric as the user named it: ``chrf(beta=3)`` -> name ``chrf``, arguments
    ``{"beta": "3"}`` (text, typed by the metric's :class:`~scorekit.metrics.base.Param`s when it
    is built). Results are keyed by the name as written (:meth:`label`); ``defaults`` are
    parameters another spec sets (summary's ``efficiency`` takes its BERTScore's), applied unless
    the spec sets them and not part of the label."""

    def __init__(self, text: str, defaults: dict[str, Any] | None = None, *, optional: bool = False):
        self.text = text.strip()
        self.name, self.args = split_name(self.text)
        self.defaults = dict(defaults or {})
        self.optional = optional    # from a default list: skipped when a dependency is missing

    @classmethod
    def of(cls, spec: "str | MetricSpec") -> "MetricSpec":
        return spec if isinstance(spec, MetricSpec) else cls(spec)

    def with_defaults(self, **params: Any) -> "MetricSpec":
        return MetricSpec(self.text, {**self.defaults, **{k: v for k, v in params.items() if v is not None}},
                          optional=self.optional)

    def label(self, key: str) -> str:
        """The result key of ``key`` (one of the metric's declared keys) for this spec."""
        return f"{key}({','.join(f'{k}={v}' for k, v in self.args.items())})" if self.args else key

    def params(self) -> dict[str, Any]:
        return {**self.defaults, **self.args}

    def __repr__(self) -> str:
        return f"MetricSpec({self.text!r})"


def declared_key(key: str) -> str:
    """The declared key a result key stands for: a key written with parameters in parentheses
    (``bertscore_f1(model=DIR)``, ``meteor(lexicon=x.tsv)``: :meth:`MetricSpec.label`) -> its
    declared key (``bertscore_f1``, ``meteor``); any other key is its own."""
    try:
        spec = MetricSpec(key)
    except ScorekitError:
        return key
    return spec.name if spec.args and "k" not in spec.args and spec.text.endswith(")") else key


def first_written(keys) -> dict[str, str]:
    """Declared key -> the result key that answers for it in a report (a target table, a headline):
    the first of ``keys`` (results keep the order written) that resolves to it, so
    ``-m "bertscore,bertscore(model=X)"`` reads ``bertscore_f1`` and ``-m "bertscore(model=X),bertscore"``
    reads ``bertscore_f1(model=X)``."""
    out: dict[str, str] = {}
    for key in keys:
        out.setdefault(declared_key(key), key)
    return out


REGISTRY = MetricRegistry()


def register(cls: type[Metric]) -> type[Metric]:
    """Class decorator: add a metric to the one registry."""
    return REGISTRY.register(cls)


def declare(family: str, key: str, *, doc: str, kind: str = "rate", higher_is_better: bool = True,
            metric: str | None = None, corpus: bool = False) -> MetricInfo:
    """Declare the metadata of a result key that has no :class:`Metric` class of its own (a count
    in an ABSA aggregate, a topic-model summary number)."""
    return REGISTRY.declare(MetricInfo(key, metric or key, family, higher_is_better, kind, doc, corpus))


def get_metric(family: str, spec: str, **params: Any) -> Metric:
    """The metric a spec of the name grammar names, built from its declaration:
    ``get_metric("caption", "chrf(beta=3)")``; keyword ``params`` (the batch's language and
    tokenizer) are added. A name that is one of a metric's result keys (``bleu_4``) builds that
    metric."""
    s = MetricSpec(spec)
    cls = metric_class_for(family, s.name)
    return cls(**params, **_typed(cls, s.args))


def scoring_families(family: str) -> tuple[str, ...]:
    """The families whose metrics a run of ``family`` scores: its own, then :data:`ALSO_SCORES`
    (a summary run scores caption metrics too)."""
    return (family, *ALSO_SCORES.get(family, ()))


def metric_class_for(family: str, name: str) -> type[Metric]:
    """The metric class named ``name`` or producing the result key ``name`` in ``family``."""
    REGISTRY._load(family)
    if (cls := REGISTRY._classes.get((family, name))) is not None:
        return cls
    return next((c for c in REGISTRY.classes(family) if name in c.result_keys()), None) \
        or REGISTRY.metric_class(family, name)   # raises with "did you mean"


# Options of the whole run that are no metric's parameter (they change no number): written in a
# metric's parentheses, they are refused with where to set them.
RUN_OPTIONS = {"allow_english_model": "--allow-english-model"}


def _typed(cls: type[Metric], args: dict[str, Any]) -> dict[str, Any]:
    """Grammar arguments checked against the declaration: a batch-level parameter (language,
    tokenizer) or a run option (:data:`RUN_OPTIONS`) is refused here, with where to set it."""
    for name, option in RUN_OPTIONS.items():
        if name in args:
            raise ScorekitError(f"{cls.name}({name}=...): {name} is set for the whole run, not per metric: "
                                f"{option} (in Python {name}=True)")
    for p in cls.params:
        for spelling in (p.name, *p.aliases):
            if p.batch and spelling in args:
                raise ScorekitError(f"{cls.name}({spelling}=...): {p.name} is set for the whole batch "
                                    f"(--{p.name.replace('_', '-')}), not per metric")
    return dict(args)


def describe(key: str, family: str | None = None) -> MetricInfo | None:
    """Metadata (direction, kind of value, doc, corpus-level or not) of a result key, or None."""
    return REGISTRY.info(key, family)
