"""Signature strings that pin everything that changes a score, in the spirit of sacrebleu.

A signature is ``key:value`` pairs joined by ``|``, in a fixed order, ending in the scorekit
version: ``task:retrieval|rel:1|measures:ndcg@10,mrr|version:0.1.0``. Two results with the same
signature were computed the same way; papers can quote it.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def make_signature(task: str, params: Mapping[str, Any] | None = None, **more: Any) -> str:
    """Build ``task:<task>|k:v|...|version:<scorekit version>`` from ordered parameters."""
    return str(Signature(task, params, **more))


def parse_signature(signature: str) -> dict[str, str]:
    """Inverse of :func:`make_signature` (values come back as strings)."""
    return {key: value for key, _, value in (part.partition(":") for part in signature.split("|"))}
