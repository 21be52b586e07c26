"""Where scorekit keeps what it derives once and reuses across runs (compiled METEOR 1.5 tables,
Kiwi's answers about a lexicon): ``$SCOREKIT_CACHE``, else ``$XDG_CACHE_HOME/scorekit``, else
``~/.cache/scorekit``. Everything there can be deleted; it is rebuilt on the next run."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    if env := os.environ.get("SCOREKIT_CACHE"):
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "scorekit"
