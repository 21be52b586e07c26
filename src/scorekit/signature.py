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


def make_signature(task: str, params: Mapping[str, Any] | None = None, **more: Any) -> str:
    """Build ``task:<task>|k:v|...|version:<scorekit version>`` from ordered parameters."""
    parts = [f"task:{task}"]
    for key, value in {**(params or {}), **more}.items():
        parts.append(f"{key}:{_fmt(value)}")
    parts.append(f"version:{__version__}")
    return "|".join(parts)


def parse_signature(signature: str) -> dict[str, str]:
    """Inverse of :func:`make_signature` (values come back as strings)."""
    out: dict[str, str] = {}
    for part in signature.split("|"):
        key, _, value = part.partition(":")
        out[key] = value
    return out
