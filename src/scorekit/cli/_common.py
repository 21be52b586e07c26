"""What every evaluation sub-command shares: output options and result emission.

``@output_options`` adds ``--output/-o FILE.json``, ``--format`` and ``--quiet``; ``emit`` prints
the table(s) to stdout in the chosen format and writes the JSON atomically. Hooks registered in
``EMIT_HOOKS`` (HTML report, run history) run after the JSON is written.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from scorekit.io.atomic import atomic_write
from scorekit.report import tables
from scorekit.result import Result

# Extra options and post-emit hooks other packages (report, history) plug in.
EXTRA_OPTIONS: list[Callable[[Callable], Callable]] = []
EMIT_HOOKS: list[Callable[[Sequence[Result], dict[str, Any]], None]] = []


def output_options(func: Callable) -> Callable:
    """Decorator adding the shared output options to a click command."""
    opts = [
        click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write results as JSON (metrics, per-item details, signature) to this file."),
        click.option("--format", "fmt", type=click.Choice(["table", "csv", "markdown", "latex"]),
                     default="table", show_default=True, help="How to print tables on stdout."),
        click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout (use with --output)."),
    ]
    for opt in reversed(opts + EXTRA_OPTIONS):
        func = opt(func)
    return func


def console():
    from rich.console import Console

    return Console(soft_wrap=False)


def print_table(header: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table",
                title: str | None = None, digits: int = 4) -> None:
    out = tables.render(header, rows, fmt, digits=digits, title=title)
    if isinstance(out, str):
        sys.stdout.write(out)
        if fmt != "csv":
            sys.stdout.write("\n")
    else:
        console().print(out)


def metrics_table(results: Sequence[Result]) -> tuple[list[str], list[list[Any]]]:
    """One row per result, one column per metric (union, in first-seen order)."""
    names: list[str] = []
    for r in results:
        names += [m for m in r.metrics if m not in names]
    header = ["system"] + names
    rows = [[r.name or f"#{i + 1}"] + [r.metrics.get(m) for m in names] for i, r in enumerate(results)]
    return header, rows


def write_json(path: Path, payload: str) -> None:
    with atomic_write(path) as fh:
        fh.write(payload)
        fh.write("\n")


def emit(results: Result | Sequence[Result], *, output: Path | None, fmt: str, quiet: bool,
         payload: dict[str, Any] | None = None, **options: Any) -> None:
    """Write JSON (atomically) then run hooks. Printing tables is the caller's job, so each
    family can show what matters for it; ``payload`` overrides the JSON for multi-run outputs."""
    results = [results] if isinstance(results, Result) else list(results)
    if output is not None:
        import json

        data = payload if payload is not None else results[0].to_dict()
        write_json(output, json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False))
    for hook in EMIT_HOOKS:
        hook(results, {"output": output, "fmt": fmt, "quiet": quiet, **options})


def signature_line(sig: str, fmt: str) -> None:
    if fmt == "table":
        console().print(f"[dim]signature: {sig}[/dim]")
    elif fmt == "markdown":
        sys.stdout.write(f"\n`signature: {sig}`\n")
    elif fmt == "latex":
        sys.stdout.write(f"% signature: {sig}\n")


def wraps_command(func: Callable) -> Callable:
    @functools.wraps(func)
    def inner(*a, **k):
        return func(*a, **k)

    return inner
