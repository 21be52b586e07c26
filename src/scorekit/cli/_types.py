"""Numeric option types checked at parse time: finite floats, ranged ints and floats.

``--alpha nan``, ``--threshold-edge inf`` or ``--topn 0`` fail before any work, as one usage line
(``scorekit topics: error: Invalid value for '--topn': 0 is not in the range x>=1.``), exit 2.

    @click.option("--alpha", type=finite(0, 1, min_open=True, max_open=True), default=0.05)
    @click.option("--topn", type=count(1), default=20)
"""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteFloat(click.FloatRange):
    """A float that is finite (no nan/inf), optionally within a range."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            text = value.strip().lower().lstrip("+-")
            if text in ("nan", "inf", "infinity"):
                self.fail(f"{value!r} is not a finite number.", param, ctx)
        rv = super().convert(value, param, ctx)
        if isinstance(rv, float) and not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return rv

    def __repr__(self) -> str:
        return f"FiniteFloat({self._describe_range()})"


def finite(min: float | None = None, max: float | None = None, *, min_open: bool = False,
           max_open: bool = False) -> FiniteFloat:
    """A finite float option type, optionally limited to [min, max] (open ends on request)."""
    return FiniteFloat(min, max, min_open=min_open, max_open=max_open)


def count(min: int = 0, max: int | None = None) -> click.IntRange:
    """An integer option type limited to ``min <= x`` (and ``<= max``)."""
    return click.IntRange(min, max)


def parse_floats(text: str, n: int, option: str) -> list[float]:
    """``"0.5,0.5"`` -> ``[0.5, 0.5]``: exactly ``n`` finite comma-separated numbers, else a
    one-line :class:`~scorekit.errors.ScorekitError` naming the option."""
    from scorekit.errors import ScorekitError

    try:
        vals = [float(x) for x in text.split(",")]
    except ValueError:
        vals = []
    if len(vals) != n or not all(math.isfinite(v) for v in vals):
        raise ScorekitError(f"{option} expects {n} comma-separated finite numbers, got {text!r}")
    return vals
