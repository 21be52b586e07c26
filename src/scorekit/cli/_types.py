"""Option types checked at parse time (``--alpha nan``, ``--topn 0``: one usage line, exit 2, before
any work). Every integer option has an upper bound: an absurd count would otherwise reach numpy
or SQLite as a traceback."""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteFloat(click.FloatRange):
    """A float that is finite (no nan/inf), optionally within a range:
    ``finite(0, 1, min_open=True)``."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = value.strip().lower().lstrip("+-") if isinstance(value, str) else None
        if text in ("nan", "inf", "infinity"):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        rv = super().convert(value, param, ctx)
        if isinstance(rv, float) and not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return rv


finite = FiniteFloat

# Upper bounds (generous: each is far past any real use, and below what breaks downstream)
MAX_COUNT = 2**31 - 1          # items, documents, runs to show (numpy int32 indices)
MAX_SEED = 2**32 - 1           # numpy's legacy seeds and torch accept this range
MAX_RESAMPLES = 1_000_000      # bootstrap / permutation samples: a (samples x items) array is drawn
MAX_ID = 2**63 - 1             # run-store ids (SQLite INTEGER)
SEED = click.IntRange(0, MAX_SEED)   # a random seed


def count(min: int = 0, max: int = MAX_COUNT) -> click.IntRange:
    return click.IntRange(min, max)


def resamples(min: int = 1) -> click.IntRange:
    return click.IntRange(min, MAX_RESAMPLES)


def usage_error(message: str) -> click.UsageError:
    """A mistake in how the command was called, found after parsing (two options that clash, a
    list option's value): printed like click's own option errors, as ONE line
    ``scorekit COMMAND: error: message``, exit 2 — the one form every command uses."""
    return click.UsageError(message, click.get_current_context(silent=True))
