"""``--engine local|ray`` and ``--address`` for the commands that can run on a Ray cluster
(retrieval, caption, summary, sweep, absa aggregate). See docs/scale-out.md."""

from __future__ import annotations

from collections.abc import Callable

import click


def engine_options(func: Callable) -> Callable:
    func = click.option("--address", metavar="HOST:PORT",
                        help="Join this Ray cluster (default: $RAY_ADDRESS; without either, --engine ray "
                             "starts a local Ray with this machine's cores and stops it at the end).")(func)
    func = click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                        help="Where the work runs: this process, or Ray tasks over shards "
                             "(the ray extra: pip install -e '.[ray]' in the checkout, or a built wheel's [ray]); the numbers are the same.")(func)
    return func


def open_engine(engine: str, address: str | None, quiet: bool = False):
    """A started RayEngine (use as a context manager) or None for the local engine."""
    if engine == "local" and not address:
        return None        # (and no import of the Ray engine module)
    from scorekit.engine.ray_engine import get_engine

    eng = get_engine(engine, address, progress=None if not quiet else False)
    return eng
