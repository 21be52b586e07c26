"""The ``scorekit`` command: a thin layer over the Python API. Each sub-command's module is
imported only when it runs, so ``scorekit retrieval`` never pays for importing torch."""

from __future__ import annotations

import contextlib
import difflib
import importlib
import os
import re
import signal
import sys

import click

from scorekit import __version__
from scorekit.errors import ScorekitError

# sub-command name -> (module, one-line help shown in `scorekit --help`)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "retrieval": ("scorekit.cli.retrieval", "Rank metrics (nDCG, MAP, MRR, P/R, hit rate) for TREC/JSON runs; compare systems with significance tests."),
    "rag": ("scorekit.cli.rag", "RAG retrieval from passages (no document ids): match to reference passages, then trec_eval measures; --compat ranx-k."),
    "fuse": ("scorekit.cli.fuse", "Fuse retrieval runs into one (RRF, CombSUM, CombMNZ, ... with ranx's normalisations)."),
    "caption": ("scorekit.cli.caption", "Caption / generation metrics: METEOR, CIDEr-D, BLEU, ROUGE-L, BERTScore, CLIPScore (Korean and English)."),
    "summary": ("scorekit.cli.summary", "Score given n-word summaries: ROUGE-1/2, BERTScore, Efficiency, Density."),
    "sweep": ("scorekit.cli.sweep", "The magic-n sweep: summarise every document at every n and tabulate the metrics."),
    "train-summarizer": ("scorekit.cli.rl", "Train the reinforcement-learned n-word summariser (Phase 2)."),
    "summarize": ("scorekit.cli.rl", "Summarise documents to n words with a trained policy, TextRank or lead-n."),
    "topics": ("scorekit.cli.topics", "Topic-model metrics: semantic coherence, distinctiveness, diversity, NPMI/C_V/UMass."),
    "absa": ("scorekit.cli.absa", "Conflict-Review aspect-sentiment metrics: scorecards, aggregation, reports."),
    "report": ("scorekit.cli.report", "Render result JSON files into one self-contained HTML report."),
    "runs": ("scorekit.cli.runs", "The run history: list, show, compare and remove recorded evaluations."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in SUBCOMMANDS:
            return None
        module = importlib.import_module(SUBCOMMANDS[name][0])
        return getattr(module, name.replace("-", "_"), None) or getattr(module, "command")

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help from the table above, so `scorekit --help` imports nothing heavy.
        with formatter.section("Commands"):
            formatter.write_dl([(name, SUBCOMMANDS[name][1]) for name in self.list_commands(ctx)])

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError:
            name = args[0] if args else ""
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise click.UsageError(f"No such command '{name}'.{hint}", ctx) from None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog="\b\nExample:\n  scorekit retrieval --qrels examples/retrieval/qrels.txt \\\n"
                    "      --run examples/retrieval/run_v1.txt --report out/report.html")
@click.version_option(__version__, prog_name="scorekit")
def cli() -> None:
    """scorekit — exact, fast evaluation for retrieval, captioning, summarisation, topic models
    and aspect-sentiment pipelines, in Korean and English.

    Every sub-command prints a table, writes JSON with --output (metrics, per-item details and a
    signature string that pins how the numbers were computed) and exits 2 with one clear line on
    a user mistake. Run `scorekit COMMAND --help` for details.
    """


_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|bool_|str_)\w*\(([^()]*)\)")


def _plain(message: str) -> str:
    """One line, and numpy scalars as plain numbers (``np.float64(nan)`` -> ``nan``)."""
    return " ".join(_NUMPY_SCALAR.sub(r"\1", message).split())


# Options that became metric parameters of the name grammar (#26): what to write instead.
MOVED_TO_GRAMMAR = {
    "topics": {"--model": "sc(model=DIR),sd(model=DIR),cd,semdiv(model=DIR),overall(model=DIR)",
               "--num-layers": "sc(num_layers=N),sd(num_layers=N),cd,semdiv(num_layers=N),overall(num_layers=N)",
               "--threshold-edge": "sc(threshold_edge=X)", "--damping": "sc(damping=X)",
               "--gamma": "sd(gamma_overlap=X)", "--topk": "topic_diversity(topk=K)",
               "--topn": "coherence(topn=N)", "--sis": "overall(sis=X)",
               "--semdiv-weights": "semdiv(alpha_vd=A,beta_cd=B)",
               "--overall-weights": "overall(w_sc=A,w_sd=B,w_semdiv=C,w_sis=D)"},
    "caption": {"--lexicon": "meteor(lexicon=A.tsv;B.tsv)", "--bert-model": "bertscore(model=DIR)",
                "--num-layers": "bertscore(num_layers=N)", "--clip-model": "clipscore(model=DIR)"},
    "summary": {"--bertscore": "rouge,bertscore", "--bertscore-model": "bertscore(model=DIR)",
                "--num-layers": "bertscore(num_layers=N)"},
    "sweep": {"--bertscore": "rouge,bertscore,efficiency,density,words", "--no-bertscore": "rouge,density,words",
              "--bertscore-model": "rouge,bertscore(model=DIR),efficiency,density,words",
              "--num-layers": "rouge,bertscore(num_layers=N),efficiency,density,words"},
    **dict.fromkeys(("train-summarizer", "summarize"),
                    {"--bert-model": "bertscore(model=DIR)", "--num-layers": "bertscore(num_layers=N)"}),
}
# The option that takes the metric names, where it is not -m (the RL commands' reward).
GRAMMAR_OPTION = dict.fromkeys(("train-summarizer", "summarize"), "--reward")


def _usage_line(exc: click.UsageError) -> str:
    """click's Usage/Try/Error block as ONE line: ``scorekit <cmd>: error: ...``; an option that
    moved into the name grammar says how to write it now."""
    prog = exc.ctx.command_path if exc.ctx is not None else "scorekit"
    if isinstance(exc, click.NoSuchOption) and exc.ctx is not None:
        command = exc.ctx.command.name
        if moved := MOVED_TO_GRAMMAR.get(command, {}).get(exc.option_name):
            return (f"{prog}: error: {exc.option_name} is now set in the metric names: "
                    f"{GRAMMAR_OPTION.get(command, '-m')} \"{moved}\"")
    return f"{prog}: error: {_plain(exc.format_message())}"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so the output transaction rolls back exactly as it
    does for Ctrl-C (temporaries and staging folders removed, nothing half-written)."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; every user mistake ends as one line on stderr and exit status 2. SIGINT ends
    with 130 and SIGTERM with 143, both after rolling the staged outputs back."""
    from scorekit import progress

    pid, previous = os.getpid(), None

    def on_sigterm(signum, frame):
        if os.getpid() != pid:            # a forked worker: die the default way, run no cleanup of ours
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            return os.kill(os.getpid(), signal.SIGTERM)
        raise Terminated()

    with contextlib.suppress(ValueError):   # not the main thread: leave signals alone
        previous = signal.signal(signal.SIGTERM, on_sigterm)
    progress.enable(True)
    try:
        with cli.make_context("scorekit", sys.argv[1:] if argv is None else list(argv)) as ctx:
            cli.invoke(ctx)
    except ScorekitError as exc:
        click.echo(f"scorekit: error: {_plain(str(exc))}", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        if isinstance(exc, click.UsageError) and not isinstance(exc, click.exceptions.NoArgsIsHelpError):
            click.echo(_usage_line(exc), err=True)
        else:
            exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except Terminated:
        click.echo("scorekit: terminated", err=True)
        return 143
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("scorekit: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    except EOFError as exc:  # a truncated compressed input that a reader did not name
        click.echo(f"scorekit: error: an input file ends early (truncated or damaged compressed file): {exc}",
                   err=True)
        return 2
    except OSError as exc:  # a path the user gave cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"scorekit: error: {where}{exc.strerror or exc}", err=True)
        return 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return 0


def run() -> None:
    """The ``scorekit`` command: :func:`main`, then exit without tearing the interpreter down:
    every output is committed by then, and freeing millions of small objects one by one is 40-50
    ms of a one-second run. Ray's, a profiler's or a tracer's exit handlers still run."""
    from scorekit.heap import prepare

    prepare(sys.argv[1:])     # large temporaries reuse freed pages instead of faulting new ones
    code = main()
    with contextlib.suppress(BrokenPipeError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    if "ray" in sys.modules or "coverage" in sys.modules or sys.getprofile() or sys.gettrace():
        sys.exit(code)            # Ray's exit handlers; a profiler or tracer reports at exit
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    os._exit(code)
