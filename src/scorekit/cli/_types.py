"""Numeric option types checked at parse time: finite floats, ranged ints and floats.

``--alpha nan``, ``--threshold-edge inf``, ``--topn 0`` or ``--bootstrap 99999999999999999999``
fail before any work, as one usage line (``scorekit topics: error: Invalid value for '--topn': 0
is not in the range 1<=x<=2147483647.``), exit 2. Every integer option has an upper bound too:
an absurd count would otherwise reach numpy (``maximum supported dimension``) or SQLite as a
traceback.

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


# Upper bounds (generous: each is far past any real use, and below what breaks downstream)
MAX_COUNT = 2**31 - 1          # items, documents, runs to show (numpy int32 indices)
MAX_SEED = 2**32 - 1           # numpy's legacy seeds and torch accept this range
MAX_RESAMPLES = 1_000_000      # bootstrap / permutation samples: a (samples x items) array is drawn
MAX_LAYERS = 1_000             # transformer layers
MAX_ID = 2**63 - 1             # run-store ids (SQLite INTEGER)


def count(min: int = 0, max: int = MAX_COUNT) -> click.IntRange:
    """An integer option type limited to ``min <= x <= max``."""
    return click.IntRange(min, max)


SEED = click.IntRange(0, MAX_SEED)   # a random seed


def resamples(min: int = 1) -> click.IntRange:
    """A number of bootstrap / permutation samples, ``min <= x <= 1,000,000``."""
    return click.IntRange(min, MAX_RESAMPLES)


def usage_error(message: str) -> click.UsageError:
    """A mistake in how the command was called, found after parsing (two options that clash, a
    list option's value): printed like click's own option errors, as ONE line
    ``scorekit COMMAND: error: message``, exit 2 — the one form every command uses."""
    return click.UsageError(message, click.get_current_context(silent=True))
