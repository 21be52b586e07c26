"""Signature strings that pin everything that changes a score, in the spirit of sacrebleu.

A signature is ``key:value`` pairs joined by ``|``, in one layout for every family
(:func:`make_signature`)::

    task:<family>|<batch fields>|metrics:<canonical specs>|<spec>:<pins>|...|<semantics>|version:<v>

``task:caption|lang:en|norm:nfc+invisible|tok:coco|metrics:bleu,chrf(beta=3),meteor_nltk|
meteor_nltk:lower=yes;stem=porter-nltk3.9.1;synonyms=wordnet-3.0|version:0.1.0``: the batch's
fields (language, normalisation, tokenizer), the metrics as the name grammar writes them with their
non-default parameters (``get_metric(spec)`` rebuilds each), one field per metric that declares
pins (a tokenizer's, stemmer's or Kiwi's version, a model's name and content hash), then the
family's semantics (retrieval's ``rel``/``order``/``missing``/``mean``). Two results with the same
signature were computed the same way; papers can quote it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit import __version__


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value) if value != int(value) else str(int(value))
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt(v) for v in value)
    if value is None:
        return "none"
    return str(value).replace("|", "/")


class Signature:
    """A structured signature (sacrebleu's idea): ordered fields, rendered to the string form.

    ``task`` comes first and ``version`` always last, whatever order fields are added in; a field
    value may not itself be a signature (nesting is flattened by :meth:`update`, which takes a
    mapping or another :class:`Signature`'s fields). ``str(sig)`` is the string results carry.
    """

    def __init__(self, task: str, fields: Mapping[str, Any] | None = None, **more: Any):
        self.task = task
        self.fields: dict[str, Any] = {}
        self.update(fields or {}, **more)

    def update(self, fields: "Mapping[str, Any] | Signature" = (), **more: Any) -> "Signature":
        items = fields.fields if isinstance(fields, Signature) else dict(fields or {})
        for key, value in {**items, **more}.items():
            if key in ("task", "version"):
                continue
            if isinstance(value, Signature):
                raise TypeError(f"signature field {key!r}: nest fields with update(), not a Signature value")
            self.fields[key] = value
        return self

    def __str__(self) -> str:
        fields = (f"{key}:{_fmt(value)}" for key, value in self.fields.items())
        return "|".join([f"task:{self.task}", *fields, f"version:{__version__}"])

    def __repr__(self) -> str:
        return f"Signature({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    @classmethod
    def parse(cls, text: str) -> "Signature":
        fields = parse_signature(text)
        task = fields.pop("task", "")
        fields.pop("version", None)
        return cls(task, fields)


def metric_fields(metrics: Sequence[Any]) -> dict[str, Any]:
    """``metrics``: the canonical specs (:meth:`~scorekit.metrics.base.Metric.spec`) in the order
    given, then one ``<spec>: k=v;k=v`` field per metric that declares pins
    (:meth:`~scorekit.metrics.base.Metric.signature_params`). Two metrics whose specs are equal
    but whose pins differ (``bertscore`` and ``bertscore(model=DIR)``: the folder is pinned by
    the model's name, not in the spec) share one field holding both pins, ``" + "``-joined."""
    out: dict[str, Any] = {"metrics": list(dict.fromkeys(m.spec() for m in metrics))}
    for m in metrics:
        for key, pins in m.signature_params().items():
            have = out.get(key)
            out[key] = pins if have is None or pins in have.split(" + ") else f"{have} + {pins}"
    return out


def make_signature(task: str, batch: Mapping[str, Any] | None = None, *,
                   metrics: Sequence[Any] | Mapping[str, Any] | None = None,
                   semantics: Mapping[str, Any] | None = None) -> str:
    """The one layout (module docstring): ``task``, the ``batch`` fields, the ``metrics`` (built
    :class:`~scorekit.metrics.base.Metric` objects, or their :func:`metric_fields` kept from
    earlier; none or empty: no ``metrics`` field), the ``semantics`` fields, the scorekit version."""
    fields = dict(metrics) if isinstance(metrics, Mapping) else metric_fields(metrics) if metrics else {}
    batch, semantics = dict(batch or {}), dict(semantics or {})
    clash = sorted(set(fields) & (set(batch) | set(semantics)))
    if clash:
        raise ValueError(f"signature of {task}: a metric's field would overwrite {clash}")
    return str(Signature(task, {**batch, **fields, **semantics}))


def parse_signature(signature: str) -> dict[str, str]:
    """Inverse of :func:`make_signature` (values come back as strings)."""
    return {key: value for key, _, value in (part.partition(":") for part in signature.split("|"))}


def metric_specs(fields: Mapping[str, str]) -> list[str]:
    """The metric specs a parsed signature names: its ``metrics`` list, and for runs stored
    before the one layout, retrieval's ``measures`` and every other field key (caption and
    summary signatures had one field per metric, keyed by its spec)."""
    from scorekit.metrics.registry import split_specs

    listed = split_specs(fields.get("metrics") or fields.get("measures") or "")
    return list(dict.fromkeys([*listed, *(k for k in fields if k not in ("task", "metrics", "measures"))]))
