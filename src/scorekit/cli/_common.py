"""What every evaluation sub-command shares: output options, the output transaction, emission.

``@output_options`` adds ``--output/-o FILE.json`` (``-`` = the JSON on stdout, no table),
``--format`` and ``--quiet``, plus the report and history options every evaluation gets:

- ``--report FILE.html``: also write the self-contained HTML report of this run;
- ``--record/--no-record``: save the run(s) in the run history (``scorekit runs``). Recording is
  OFF by default (tests and CI never touch ``~/.scorekit``); set ``SCOREKIT_RECORD=1`` to record
  every evaluation, and ``--no-record`` to skip one;
- ``--store PATH``: which history database (default ``$SCOREKIT_STORE`` or ``~/.scorekit/runs.db``).

The command runs inside one :class:`scorekit.io.outputs.Outputs` transaction: ``-o``,
``--report`` and the store are checked before the command body starts; the command registers
its own side outputs (``outputs().file(path, "--per-query")``, ``outputs().directory(dir,
"--plot")``) before its work; ``emit`` stages the JSON, the report and the runs to record; the
files appear (and runs are recorded) only when the command returns, and nothing is left behind
when it fails. Commands without ``output_options`` use ``@transactional``. Printing tables
stays the caller's job.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from scorekit.io.outputs import STDOUT, Outputs
from scorekit.report import tables
from scorekit.result import Result, ResultSet, _jsonable

# The report/history options, kept out of the command function's arguments (see module doc).
SHARED_OPTIONS = ("report", "record", "store")
_META_KEY = "scorekit.shared_options"
_TX_KEY = "scorekit.outputs"
RECORD_ENV = "SCOREKIT_RECORD"


def shared_options() -> dict:
    """The running command's ``--report``/``--record``/``--store`` values (:data:`SHARED_OPTIONS`)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(_META_KEY, {}) if ctx is not None else {}


def example(*lines: str, heading: str = "Example:") -> str:
    """The epilog every command's --help ends with: ``Example:`` and the command lines, kept as
    written (click's ``\\b`` stops re-wrapping)."""
    return "\b\n" + heading + "\n" + "\n".join("  " + line for line in lines)


FORMAT_OPTION = click.option("--format", "fmt", type=click.Choice(["table", "csv", "markdown", "latex"]),
                             default="table", show_default=True, help="How to print tables on stdout.")
STORE_OPTION = click.option("--store", "store", type=click.Path(dir_okay=False, path_type=Path),
                            help="Run history database (default: $SCOREKIT_STORE or ~/.scorekit/runs.db).")


def output_options(func: Callable) -> Callable:
    """Decorator adding the shared output options to a click command."""
    opts = [
        click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write results as JSON (metrics, per-item details, signature) to this file."),
        FORMAT_OPTION,
        click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout (use with --output)."),
        click.option("--report", "report", type=click.Path(dir_okay=False, path_type=Path),
                     help="Also write a self-contained HTML report (charts, per-item drill-down) to this file."),
        click.option("--record/--no-record", "record", default=None,
                     help=f"Save the run in the run history (see `scorekit runs`). Off unless "
                          f"{RECORD_ENV}=1."),
        STORE_OPTION,
    ]

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("quiet"):  # -q: no progress bars either
            from scorekit import progress

            progress.enable(False)
        shared = {k: kwargs.pop(k) for k in SHARED_OPTIONS}
        ctx = click.get_current_context(silent=True)
        if ctx is not None:
            ctx.meta[_META_KEY] = shared
        if is_stdout(kwargs.get("output")):
            kwargs["quiet"] = True  # stdout carries the JSON alone
        with Outputs() as tx:
            # every shared destination is checked before the command does any work
            if ctx is not None:
                ctx.meta[_TX_KEY] = tx
                protect_inputs(tx, ctx)
            output = kwargs.get("output")
            if output is not None and not is_stdout(output):
                tx.file(output, "--output")
            if shared.get("report"):
                tx.file(shared["report"], "--report")
            if record_enabled(shared.get("record")):
                tx.store(shared.get("store"), "--store")
            return func(*args, **kwargs)

    for opt in reversed(opts):
        command = opt(command)
    return command


def warn(*messages: str) -> None:
    """Warnings on stderr, as every command prints them: ``scorekit: warning: ...``."""
    for message in messages:
        click.echo(f"scorekit: warning: {message}", err=True)


def change_pct(x: float | None) -> str:
    """A relative change as every command prints it: ``+74.3%``, ``-5.7%`` (``–`` when undefined)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if math.isinf(x):
        return "+inf%" if x > 0 else "-inf%"
    return f"{x:+.1f}%"


def p_value(x: float | None) -> str:
    """A p-value as the comparison tables print it: 4 decimals, ``1.2e-05`` below 1e-4, ``–`` when undefined."""
    return "–" if x is None or math.isnan(x) else (f"{x:.4f}" if x >= 1e-4 else f"{x:.1e}")


def print_comparison(comp, fmt: str, arrows: bool = False) -> None:
    """The rows of a comparison with the baseline (``scorekit retrieval``, ``scorekit rag``): a
    significant row is marked ``*`` (``arrows``: ▲/▼ in the terminal table); CSV keeps raw numbers."""
    raw = fmt == "csv"

    def mark(row) -> str:
        if not row["significant"]:
            return ""
        return ("▲" if row["value"] > row["baseline_value"] else "▼") if arrows and fmt == "table" else "*"

    rows = [[row["measure"], row["system"], row["baseline_value"], row["value"],
             row["improvement_pct"] if raw else change_pct(row["improvement_pct"]),
             row["p_value"] if raw else p_value(row["p_value"]),
             row["p_adjusted"] if raw else p_value(row["p_adjusted"]), mark(row)] for row in comp.rows]
    if not raw:
        sys.stdout.write("\n")
    print_table(["measure", "system", f"baseline ({comp.baseline})", "value", "improvement", "p", "p (Holm)", "sig."],
                rows, fmt, title=f"Compared with {comp.baseline}")


def console():
    """stdout console. When stdout is not a terminal (a pipe, a file, CI logs) rich would fall
    back to 80 columns and wrap wide tables mid-cell; give it room instead (COLUMNS still wins)."""
    from rich.console import Console

    wide = not sys.stdout.isatty() and "COLUMNS" not in os.environ
    return Console(soft_wrap=False, width=240 if wide else None)


def print_table(header: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table",
                title: str | None = None, digits: int = 4) -> None:
    """Print one table. ``--format csv`` prints ONE table per command, so stdout loads as one
    CSV: the command's tables are collected and printed when it succeeds, a single one as it is,
    several as their union (see :func:`csv_union`)."""
    if fmt == "csv":
        try:
            tx = outputs()
        except RuntimeError:
            tx = None
        if tx is not None:
            pending = getattr(tx, "_csv_tables", None)
            if pending is None:
                pending = tx._csv_tables = []
                tx.after_commit(lambda: sys.stdout.write(tables.to_csv(*csv_union(pending))))
            pending.append((title, list(header), [list(r) for r in rows]))
            return
    out = tables.render(header, rows, fmt, digits=digits, title=title)
    if isinstance(out, str):
        sys.stdout.write(out)
        if fmt != "csv":
            sys.stdout.write("\n")
    else:
        console().print(out)


def csv_union(parts: Sequence[tuple[str | None, Sequence[str], Sequence[Sequence[Any]]]]
              ) -> tuple[list[str], list[list[Any]]]:
    """Several tables as one: a first column ``table`` (each table's title) and the union of
    their columns by name, in first-seen order; a cell a table lacks is empty. One table stays
    as it is."""
    if len(parts) == 1:
        return list(parts[0][1]), [list(r) for r in parts[0][2]]
    columns: list[str] = []
    for _, header, _ in parts:
        columns += [h for h in header if h not in columns]
    rows = []
    for i, (title, header, body) in enumerate(parts, 1):
        where = {h: j for j, h in enumerate(header)}
        for r in body:
            rows.append([title or f"table {i}"] + [r[where[c]] if c in where else None for c in columns])
    return ["table"] + columns, rows


def metrics_table(results: Sequence[Result]) -> tuple[list[str], list[list[Any]]]:
    """One row per result, one column per metric (union, in first-seen order)."""
    names: list[str] = []
    for r in results:
        names += [m for m in r.metrics if m not in names]
    header = ["system"] + names
    rows = [[r.name or f"#{i + 1}"] + [r.metrics.get(m) for m in names] for i, r in enumerate(results)]
    return header, rows


def is_stdout(path: Any) -> bool:
    """``-o -``: the JSON goes to stdout."""
    return path is not None and str(path) == STDOUT


def outputs() -> Outputs:
    """This command's output transaction (register side outputs on it before any work)."""
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        tx = ctx.meta.get(_TX_KEY)
        if tx is not None:
            return tx
        ctx = ctx.parent
    raise RuntimeError("no output transaction: decorate the command with output_options or transactional")


def protect_inputs(tx: Outputs, ctx: click.Context) -> None:
    """Every existing file named by a parameter (``--qrels FILE``, ``--topics NAME=FILE``,
    ``RESULTS...``) is an input no output of another option may replace: ``-o run.txt`` given
    the run itself is a one-line error before any work, not a lost input."""
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, (str, os.PathLike)) and str(v) not in ("", STDOUT):
                text = str(v)
                long = [o for o in param.opts if o.startswith("--")]
                names = [*long, *param.opts] if long else [param.human_readable_name, *param.opts]
                tx.protect(text, names)
                if "=" in text and not os.path.exists(text):
                    tx.protect(text.split("=", 1)[1], names)


def transactional(func: Callable) -> Callable:
    """For commands without ``output_options``: run the command inside one :class:`Outputs`
    (committed when it returns, nothing left behind when it fails)."""

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context(silent=True)
        with Outputs() as tx:
            if ctx is not None:
                ctx.meta[_TX_KEY] = tx
                protect_inputs(tx, ctx)
            return func(*args, **kwargs)

    return command


def dumps_json(data: Any) -> str:
    """JSON text, indented by 2; a result's ``per_item`` rows one per line, compact (large runs
    write hundreds of thousands of rows: one line each is as readable and encodes in C)."""
    import json

    rows = data.get("per_item") if isinstance(data, dict) else None
    if not (isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)):
        return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    import uuid

    mark = f"per-item-rows-{uuid.uuid4().hex}"
    head = json.dumps({**data, "per_item": mark}, ensure_ascii=False, indent=2, allow_nan=False)
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": ")).encode
    body = "[\n    " + ",\n    ".join(map(encode, rows)) + "\n  ]"
    return head.replace(f'"{mark}"', body, 1) + "\n"


def stage_text(path: Path, text: str, option: str) -> None:
    """Stage ``text`` for ``path`` in this command's transaction (registering the path unless the
    command registered it before its work)."""
    tx = outputs()
    dest = next((f for f in tx.files if f.path == Path(path)), None)
    (dest or tx.file(path, option)).write_text(text)


def write_json(path: Path, payload: str, option: str = "--output") -> None:
    """Stage ``payload`` for ``path`` (``-`` = stdout) in this command's transaction."""
    text = payload if payload.endswith("\n") else payload + "\n"
    if is_stdout(path):
        outputs().stdout(text)
    else:
        stage_text(path, text, option)


def write_report(path: Path, doc: dict[str, Any], source: str | None = None) -> None:
    """Stage the HTML report of ``doc`` for ``path`` in this command's transaction."""
    from scorekit.report.html import render_report

    stage_text(path, render_report([doc], sources=[source]), "--report")


def emit(results: Result | Sequence[Result], *, output: Path | None, fmt: str, quiet: bool,
         payload: dict[str, Any] | None = None) -> None:
    """Stage the JSON, the report (``--report``) and the runs to record (``--record``) in the
    command's output transaction; the files appear when the command returns. Printing tables is
    the caller's job, so each family can show what matters for it; ``payload`` overrides the JSON
    for multi-run outputs (and is what the report renders when it follows the result conventions)."""
    results = [results] if isinstance(results, Result) else list(results)
    payload = None if payload is None else _jsonable(payload)
    if output is not None:
        write_json(output, dumps_json(payload if payload is not None else results[0].to_dict()))
    shared = shared_options()
    source = str(output) if output and not is_stdout(output) else None
    report = shared.get("report")
    if report and results:
        doc = payload
        if doc is None or not ("runs" in doc or "metrics" in doc):
            doc = results[0].to_dict() if len(results) == 1 else ResultSet(results).to_dict()
        write_report(report, doc, source)
        if not quiet:
            outputs().after_commit(lambda: click.echo(f"report: {report}", err=True))
    if results and record_enabled(shared.get("record")):
        from scorekit.io.run_store import stamp_test_set

        for r in results:   # the leaderboard ranks runs of one test set together (scorekit runs leaderboard)
            stamp_test_set(r)
        tx = outputs()
        store = tx.store(shared.get("store"), "--store")
        store.add(results, source)
        if not quiet:
            def said() -> None:
                ids = next((ids for p, ids in tx.recorded if p == store.path), [])
                click.echo(f"recorded run{'s' if len(ids) > 1 else ''} {', '.join(f'#{i}' for i in ids)} "
                           f"in {store.path}", err=True)

            tx.after_commit(said)


def record_enabled(flag: bool | None) -> bool:
    """``--record``/``--no-record`` when given, else ``SCOREKIT_RECORD`` (1/true/yes/on)."""
    if flag is not None:
        return bool(flag)
    return os.environ.get(RECORD_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class Group(click.Group):
    """A sub-command group whose command list shows each one-line summary whole (click cuts
    them at ~45 characters, mid-phrase)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def signature_line(sig: str, fmt: str) -> None:
    if fmt == "table":
        console().print(f"[dim]signature: {sig}[/dim]", soft_wrap=True, markup=True, highlight=False)
    elif fmt == "markdown":
        sys.stdout.write(f"\n`signature: {sig}`\n")
    elif fmt == "latex":
        sys.stdout.write(f"% signature: {sig}\n")

