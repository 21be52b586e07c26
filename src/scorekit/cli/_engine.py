"""``--engine local|ray``, ``--address`` and ``--ray-timeout`` for the commands that can run on a
Ray cluster (retrieval, caption, summary, sweep, absa aggregate). See docs/scale-out.md."""

from __future__ import annotations

from collections.abc import Callable

import click

_TIMEOUT_KEY = "scorekit.ray_timeout"


def _check_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from scorekit.engine.ray_engine import parse_address

    try:
        return parse_address(value)
    except ValueError as exc:
        raise click.BadParameter(f"{value!r}: {exc}", ctx=ctx, param=param) from None


def _keep_timeout(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
    if value is not None:
        ctx.meta[_TIMEOUT_KEY] = value


def engine_options(func: Callable) -> Callable:
    func = click.option("--ray-timeout", type=click.FloatRange(min=0, min_open=True, max=86_400),
                        expose_value=False, callback=_keep_timeout, metavar="SECONDS",
                        help="How long to wait for the Ray cluster at --address / $RAY_ADDRESS before "
                             "giving up with an error (default: $SCOREKIT_RAY_TIMEOUT or 30).")(func)
    func = click.option("--address", metavar="HOST:PORT", callback=_check_address,
                        help="Join this Ray cluster (default: $RAY_ADDRESS; without either, --engine ray "
                             "starts a local Ray with this machine's cores, on 127.0.0.1 only, and stops "
                             "it at the end).")(func)
    func = click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                        help="Where the work runs: this process, or Ray tasks over shards "
                             "(the ray extra: pip install -e '.[ray]' in the checkout, or a built wheel's [ray]); the numbers are the same.")(func)
    return func


def open_engine(engine: str, address: str | None, quiet: bool = False):
    """A started RayEngine (use as a context manager) or None for the local engine."""
    if engine == "local" and not address:
        return None        # (and no import of the Ray engine module)
    from scorekit.engine.ray_engine import get_engine

    ctx = click.get_current_context(silent=True)
    timeout = ctx.meta.get(_TIMEOUT_KEY) if ctx is not None else None
    kw = {} if engine != "ray" else {"quiet": quiet, "timeout": timeout, "exit_on_timeout": True}
    return get_engine(engine, address, progress=None if not quiet else False, **kw)
