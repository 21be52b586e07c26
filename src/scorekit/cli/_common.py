"""What every sub-command shares: options, the output transaction, emission, tables.

A command runs inside one :class:`scorekit.io.outputs.Outputs` transaction (``@output_options``
or ``@transactional``): ``-o``, ``--report`` and the store are checked before the command body
starts; the command registers its own side outputs (``outputs().file(path, "--per-query")``)
before its work; ``emit`` stages the JSON, the report and the runs to record (``--record``, off
unless ``SCOREKIT_RECORD=1``); the files appear only when the command returns, and nothing is
left behind when it fails. Printing tables stays the caller's job.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import sys
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from scorekit import progress
from scorekit.io.outputs import STDOUT, Outputs
from scorekit.report import tables
from scorekit.result import Result, ResultSet, _jsonable

# The report/history options, kept out of the command function's arguments (see module doc).
SHARED_OPTIONS = ("report", "record", "store")
_META_KEY = "scorekit.shared_options"
_TX_KEY = "scorekit.outputs"
_TIMEOUT_KEY = "scorekit.ray_timeout"
RECORD_ENV = "SCOREKIT_RECORD"


def shared_options() -> dict:
    """The running command's ``--report``/``--record``/``--store`` values (:data:`SHARED_OPTIONS`)."""
    return click.get_current_context().meta.get(_META_KEY, {})


def example(*lines: str, heading: str = "Example:") -> str:
    """The epilog every command's --help ends with: ``Example:`` and the command lines, kept as
    written (click's ``\\b`` stops re-wrapping)."""
    return "\b\n" + heading + "\n" + "\n".join("  " + line for line in lines)


def options(*opts: Callable) -> Callable:
    """One decorator applying ``opts`` as if stacked in this order above the function."""
    return lambda func: functools.reduce(lambda f, opt: opt(f), reversed(opts), func)


FORMAT_OPTION = click.option("--format", "fmt", type=click.Choice(["table", "csv", "markdown", "latex"]),
                             default="table", show_default=True, help="How to print tables on stdout.")
STORE_OPTION = click.option("--store", "store", type=click.Path(dir_okay=False, path_type=Path),
                            help="Run history database (default: $SCOREKIT_STORE or ~/.scorekit/runs.db).")
QUIET_OPTION = click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout.")
LANG_OPTION = click.option("--lang", type=click.Choice(["en", "ko"]), default="en", show_default=True,
                           help="Text language (Hangul is detected either way).")
STEM_OPTION = click.option("--stem", is_flag=True,
                           help="Porter-stem English tokens for ROUGE (Kiwi lemmas for Korean).")
DEVICE_OPTION = click.option("--device", default=None,
                             help="Torch device for the model metrics (default: cuda when available).")


def transactional(func: Callable, register: Callable | None = None) -> Callable:
    """For commands without ``output_options``: run the command inside one :class:`Outputs`
    (committed when it returns, nothing left behind when it fails)."""

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        with Outputs() as tx:
            ctx.meta[_TX_KEY] = tx
            protect_inputs(tx, ctx)
            if register is not None:   # every shared destination is checked before any work
                register(tx, kwargs)
            return func(*args, **kwargs)

    return command


def _register_shared(tx: Outputs, kwargs: dict) -> None:
    shared = shared_options()
    if kwargs.get("output") is not None and not is_stdout(kwargs["output"]):
        tx.file(kwargs["output"], "--output")
    if shared.get("report"):
        tx.file(shared["report"], "--report")
    if record_enabled(shared.get("record")):
        tx.store(shared.get("store"), "--store")


def output_options(func: Callable) -> Callable:
    """Decorator adding the shared output options to a click command."""
    inner = transactional(func, _register_shared)

    @functools.wraps(func)
    def command(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("quiet"):  # -q: no progress bars either
            progress.enable(False)
        click.get_current_context().meta[_META_KEY] = {k: kwargs.pop(k) for k in SHARED_OPTIONS}
        if is_stdout(kwargs.get("output")):
            kwargs["quiet"] = True  # stdout carries the JSON alone
        return inner(*args, **kwargs)

    return options(
        click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
                     help="Write results as JSON (metrics, per-item details, signature) to this file."),
        FORMAT_OPTION,
        click.option("--quiet", "-q", is_flag=True, help="Print nothing on stdout (use with --output)."),
        click.option("--report", "report", type=click.Path(dir_okay=False, path_type=Path),
                     help="Also write a self-contained HTML report (charts, per-item drill-down) to this file."),
        click.option("--record/--no-record", "record", default=None,
                     help=f"Save the run in the run history (see `scorekit runs`). Off unless "
                          f"{RECORD_ENV}=1."),
        STORE_OPTION)(command)


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
    raw, arrows = fmt == "csv", arrows and fmt == "table"
    rows = [[row["measure"], row["system"], row["baseline_value"], row["value"],
             row["improvement_pct"] if raw else change_pct(row["improvement_pct"]),
             *(row[k] if raw else p_value(row[k]) for k in ("p_value", "p_adjusted")),
             "" if not row["significant"] else "*" if not arrows
             else "▲" if row["value"] > row["baseline_value"] else "▼"] for row in comp.rows]
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
    ctx = click.get_current_context(silent=True)
    tx = ctx.meta.get(_TX_KEY) if fmt == "csv" and ctx is not None else None
    if tx is not None:
        pending = getattr(tx, "_csv_tables", None)
        if pending is None:
            pending = tx._csv_tables = []
            tx.after_commit(lambda: sys.stdout.write(tables.to_csv(*csv_union(pending))))
        pending.append((title, list(header), [list(r) for r in rows]))
        return
    out = tables.render(header, rows, fmt, digits=digits, title=title)
    if isinstance(out, str):
        sys.stdout.write(out if fmt == "csv" else out + "\n")
    else:
        console().print(out)


def csv_union(parts: Sequence[tuple[str | None, Sequence[str], Sequence[Sequence[Any]]]]
              ) -> tuple[list[str], list[list[Any]]]:
    """Several tables as one: a first column ``table`` (each table's title) and the union of
    their columns by name, in first-seen order; a cell a table lacks is empty. One table stays
    as it is."""
    if len(parts) == 1:
        return list(parts[0][1]), [list(r) for r in parts[0][2]]
    columns = list(dict.fromkeys(h for _, header, _ in parts for h in header))
    rows = []
    for i, (title, header, body) in enumerate(parts, 1):
        where = {h: j for j, h in enumerate(header)}
        rows += [[title or f"table {i}"] + [r[where[c]] if c in where else None for c in columns]
                 for r in body]
    return ["table"] + columns, rows


def metrics_table(results: Sequence[Result]) -> tuple[list[str], list[list[Any]]]:
    """One row per result, one column per metric (union, in first-seen order)."""
    names = list(dict.fromkeys(m for r in results for m in r.metrics))
    return ["system"] + names, [[r.name or f"#{i + 1}"] + [r.metrics.get(m) for m in names]
                                for i, r in enumerate(results)]


def is_stdout(path: Any) -> bool:
    return path is not None and str(path) == STDOUT


def outputs() -> Outputs:
    """This command's output transaction (register side outputs on it before any work)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or _TX_KEY not in ctx.meta:   # (click shares meta between nested contexts)
        raise RuntimeError("no output transaction: decorate the command with output_options or transactional")
    return ctx.meta[_TX_KEY]


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


def dumps_json(data: Any) -> str:
    """JSON text, indented by 2; a result's ``per_item`` rows one per line, compact (large runs
    write hundreds of thousands of rows: one line each is as readable and encodes in C)."""
    rows = data.get("per_item") if isinstance(data, dict) else None
    if not (isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)):
        return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
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
    """Stage the :func:`dumps_json` text for ``path`` (``-`` = stdout) in the transaction."""
    if is_stdout(path):
        outputs().stdout(payload)
    else:
        stage_text(path, payload, option)


def write_report(path: Path, doc: dict[str, Any], source: str | None = None) -> None:
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
        doc = payload if payload is not None and ("runs" in payload or "metrics" in payload) else (
            results[0].to_dict() if len(results) == 1 else ResultSet(results).to_dict())
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
    env = os.environ.get(RECORD_ENV, "").strip().lower() in ("1", "true", "yes", "on")
    return bool(flag) if flag is not None else env


class Group(click.Group):
    """A sub-command group whose command list shows each one-line summary whole (click cuts
    them at ~45 characters, mid-phrase)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, cmd.get_short_help_str(limit=10_000))
                                for name, cmd in sorted(self.commands.items()) if not cmd.hidden])


def signature_line(sig: str, fmt: str) -> None:
    if fmt == "table":
        console().print(f"[dim]signature: {sig}[/dim]", soft_wrap=True, markup=True, highlight=False)
    elif fmt == "markdown":
        sys.stdout.write(f"\n`signature: {sig}`\n")
    elif fmt == "latex":
        sys.stdout.write(f"% signature: {sig}\n")


# ------------------------------------------------------------------ --engine (docs/scale-out.md)

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


engine_options = options(
    click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                 help="Where the work runs: this process, or Ray tasks over shards "
                      "(the ray extra: pip install -e '.[ray]' in the checkout, or a built wheel's [ray]); the numbers are the same."),
    click.option("--address", metavar="HOST:PORT", callback=_check_address,
                 help="Join this Ray cluster (default: $RAY_ADDRESS; without either, --engine ray "
                      "starts a local Ray with this machine's cores, on 127.0.0.1 only, and stops "
                      "it at the end)."),
    click.option("--ray-timeout", type=click.FloatRange(min=0, min_open=True, max=86_400),
                 expose_value=False, callback=_keep_timeout, metavar="SECONDS",
                 help="How long to wait for the Ray cluster at --address / $RAY_ADDRESS before "
                      "giving up with an error (default: $SCOREKIT_RAY_TIMEOUT or 30)."))


def open_engine(engine: str, address: str | None, quiet: bool = False):
    """A started RayEngine (use as a context manager) or None for the local engine."""
    if engine == "local" and not address:
        return None        # (and no import of the Ray engine module)
    from scorekit.engine.ray_engine import get_engine

    timeout = click.get_current_context().meta.get(_TIMEOUT_KEY)
    kw = {} if engine != "ray" else {"quiet": quiet, "timeout": timeout, "exit_on_timeout": True}
    return get_engine(engine, address, progress=None if not quiet else False, **kw)


@contextlib.contextmanager
def engine_scope(engine: str, address: str | None, quiet: bool = False):
    """:func:`open_engine` as a context: the engine (or None) while the block runs."""
    eng = open_engine(engine, address, quiet)
    with eng if eng is not None else contextlib.nullcontext():
        yield eng


# --------------------------------------------------------------------------- --metrics

class MetricsOption(click.Option):
    """``--metrics`` whose help lists the family's registered metrics and keys, read from the
    one registry when help is shown (so startup imports no metric module)."""

    def __init__(self, *args, family: str, lead: str, **kwargs):
        self.family, self.lead = family, lead
        super().__init__(*args, help=lead, **kwargs)

    def process_value(self, ctx, value):
        """``-m ","`` or ``-m ""`` names no metric: an error, not a run that scores nothing."""
        value = super().process_value(ctx, value)
        if value is not None:
            from scorekit.metrics.registry import split_specs

            if not split_specs(value):
                raise click.BadParameter(f"no metric named in {value!r} (leave -m out for the defaults)", ctx, self)
        return value

    def get_help_record(self, ctx):
        from scorekit.metrics.registry import REGISTRY

        names = REGISTRY.names(self.family)
        # keys a metric class computes (not keys only declared, such as --recipe spec's spec_cider)
        keys = list(dict.fromkeys(i.key for i in REGISTRY.infos(self.family) if i.metric in names and i.key not in names))
        specs = []
        for cls in REGISTRY.classes(self.family):   # each metric with the parameters it declares
            params = [p.name for p in cls.params if not p.batch]
            specs.append(f"{cls.name}({', '.join(params)})" if params else cls.name)
        self.help = f"{self.lead} Metrics: {', '.join(specs)}. Keys: {', '.join(keys)}."
        return super().get_help_record(ctx)
