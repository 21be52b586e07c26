"""Progress bars for anything that can take more than a couple of seconds.

Library code wraps long loops in :func:`track`; bars show only when the CLI has switched them on
(``enable()``; ``-q``/``--quiet`` switches them off again) and stderr is a terminal, so library
users, pipes, logs and tests see no noise. A bar appears only once the loop has run for
``delay`` seconds, so short runs print nothing at all.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
_enabled = False
DELAY = float(os.environ.get("SCOREKIT_PROGRESS_DELAY", "2"))


def enable(on: bool = True) -> None:
    global _enabled
    _enabled = on


def is_enabled() -> bool:
    return _enabled and sys.stderr.isatty()


def track(iterable: Iterable[T], description: str, total: int | None = None,
          delay: float | None = None) -> Iterator[T]:
    """Yield from ``iterable``; on a terminal, after ``delay`` seconds (default :data:`DELAY`),
    show a transient bar on stderr for the rest of the loop."""
    if not is_enabled():
        yield from iterable
        return
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    wait = DELAY if delay is None else delay
    start = time.monotonic()
    bar = task = None
    try:
        for done, item in enumerate(iterable, 1):
            yield item
            if bar is None and time.monotonic() - start >= wait:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                           TimeElapsedColumn, TimeRemainingColumn)

                bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), TimeRemainingColumn(),
                               console=Console(stderr=True), transient=True)
                bar.start()
                task = bar.add_task(description, total=total, completed=done)
            elif bar is not None:
                bar.update(task, completed=done)
    finally:
        if bar is not None:
            bar.stop()
