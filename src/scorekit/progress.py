"""Progress bars for anything that can take more than a couple of seconds.

Library code wraps long loops in :func:`track`; bars show only when the CLI has switched them on
(``enable()``) and stderr is a terminal, so library users and tests see no noise.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
_enabled = False


def enable(on: bool = True) -> None:
    global _enabled
    _enabled = on


def is_enabled() -> bool:
    return _enabled and sys.stderr.isatty()


def track(iterable: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    if not is_enabled():
        yield from iterable
        return
    from rich.progress import track as _rich_track
    from rich.console import Console

    yield from _rich_track(
        iterable, description=description, total=total, console=Console(stderr=True), transient=True
    )
