"""`scorekit train-summarizer` and `scorekit summarize` (Phase 2 of the n-word spec). Every check
that can fail is done before any model is loaded or any training starts."""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path

import click

from scorekit.cli._common import (emit, example, options, output_options, print_table, shared_options,
                                  signature_line)
from scorekit.cli._types import MAX_COUNT, MAX_SEED, usage_error
from scorekit.cli.sweep import parse_int_list
from scorekit.errors import InputError, MissingDependencyError, ScorekitError


class _Number(click.ParamType):
    """A finite number within bounds, checked at parse time (``nan``/``inf`` rejected)."""

    def __init__(self, kind: type, low: float, *, open_low: bool = False, high: float,
                 open_high: bool = False):
        self.kind, self.low, self.open_low, self.high, self.open_high = kind, low, open_low, high, open_high
        self.name = "integer" if kind is int else "number"

    def convert(self, value, param, ctx):
        try:
            v = (value if isinstance(value, self.kind) and not isinstance(value, bool)
                 else self.kind(str(value).strip()))
        except ValueError:
            self.fail(f"expected {'an integer' if self.kind is int else 'a number'}, got {value!r}", param, ctx)
        if isinstance(v, float) and not math.isfinite(v):
            self.fail(f"expected a finite number, got {value!r}", param, ctx)
        too_low = v <= self.low if self.open_low else v < self.low
        if too_low or (v >= self.high if self.open_high else v > self.high):
            self.fail(f"expected a value {'>' if self.open_low else '>='} {_show(self.low)} and "
                      f"{'<' if self.open_high else '<='} {_show(self.high)}, got {value!r}", param, ctx)
        return v


def _show(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) >= 1e4 else f"{x:g}"


POSITIVE_INT = _Number(int, 1, high=MAX_COUNT)


def _load_pairs(data: Path | None, dataset: str | None, split: str, limit: int | None, dataset_files, lang: str):
    from scorekit.summarization.data import load_pairs

    if not dataset and dataset_files is not None:
        raise usage_error("--dataset-files needs --dataset (cnn_dailymail or xsum)")
    return load_pairs(data, dataset, split=split, limit=limit, files=dataset_files, lang=lang)


data_options = options(
    click.option("--data", type=click.Path(path_type=Path),
                 help="JSONL/CSV of (document, reference) records. Default: the sample shipped with "
                      "scorekit (30 English or, with --lang ko, 10 Korean news items)."),
    click.option("--dataset", type=click.Choice(["cnn_dailymail", "xsum"]),
                 help="Load a Hugging Face corpus from local files or the local cache (never downloads)."),
    click.option("--dataset-files", type=click.Path(path_type=Path),
                 help="Local parquet/jsonl/csv files of --dataset; from a folder only the files named "
                      "for --split (train-*, test-*, validation-*) are read."),
    click.option("--lang", type=click.Choice(["en", "ko"]), default="en", show_default=True),
    click.option("--encoder", help="Sentence encoder directory (default: the shipped all-MiniLM-L6-v2)."),
    click.option("--reward", default="bertscore", show_default=True,
                 help="The reward's BERTScore in the metric grammar, e.g. bertscore(model=DIR,num_layers=N) "
                      "(default: the shipped MiniLM at bert_score's layer; bert-base-uncased: "
                      "bertscore(model=DIR/bert-base-uncased,num_layers=9)); any parameter of "
                      "`scorekit summary`'s bertscore except idf."),
    click.option("--allow-english-model", is_flag=True,
                 help="Allow --lang ko with the shipped English-only all-MiniLM-L6-v2 as encoder or reward "
                      "model (its tokenizer reads Hangul only as decomposed jamo; see docs/rl.md)."),
    click.option("--n", "n_list", default="7,9,11,13", show_default=True, help="Summary lengths (N_LIST)."))


def _preflight(command: str, lang: str, encoder: str | None, reward: str, allow: bool,
               state: str | None = None) -> None:
    """Before any model loads: torch installed, ``--reward`` (checked against the bertscore
    declaration) and ``--state`` valid and, for Korean, models that read Hangul (the only shipped
    model is English-only)."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(f"{command} needs torch and transformers ({exc.name or exc} is not "
                                     "installed): install the neural extra, pip install -e '.[neural]' in the scorekit "
                                     "checkout or a built wheel's [neural]") from None
    from scorekit.summarization.rl.pipeline import REWARD_OPTION, reward_metric

    try:
        reward_spec = reward_metric(reward)
    except ScorekitError as exc:
        raise usage_error(f"--reward: {exc}") from None
    if state is not None:
        from scorekit.summarization.rl.policy import parse_state

        try:
            parse_state(state)
        except ScorekitError as exc:
            raise usage_error(f"--state: {exc}") from None
    if lang != "ko" or allow:
        return
    english = [(what, how) for what, how, value in (("--encoder", "--encoder PATH", encoder),
                                                    ("the reward's model", REWARD_OPTION, reward_spec.values["model"]))
               if value is None]
    if english:
        raise usage_error(f"--lang ko: {' and '.join(w for w, _ in english)} default"
                          f"{'' if len(english) > 1 else 's'} to the shipped all-MiniLM-L6-v2, which is "
                          f"English-only; give a Korean-capable model ({', '.join(h for _, h in english)}) "
                          "or --allow-english-model")


# --------------------------------------------------------------------------- train-summarizer

@click.command("train-summarizer",
               epilog=example("scorekit train-summarizer --folds 3 --epochs 5 --report cv.html",
                              "scorekit train-summarizer --num-train 20 --checkpoint policy.pt", heading="Examples:"))
@data_options
@click.option("--split", default="train", show_default=True, help="Split of --dataset to train on.")
@click.option("--num-train", type=POSITIVE_INT, default=200, show_default=True,
              help="Articles used for training (NUM_TRAIN); with --folds, the articles cross-validated.")
# epochs to baseline: defaults chosen by cross-validation on the shipped samples (docs/rl.md)
@click.option("--epochs", type=_Number(int, 1, high=1_000_000), default=5, show_default=True)
@click.option("--k", "k_sentences", type=_Number(int, 1, high=1_000), default=1, show_default=True,
              help="Sentences the policy picks per article.")
@click.option("--lr", type=_Number(float, 0.0, open_low=True, high=1e6), default=1e-2, show_default=True, help="Adam learning rate.")
@click.option("--hidden", type=_Number(int, 1, high=65_536), default=32, show_default=True,
              help="Hidden units of the policy MLPs.")
@click.option("--state", default="rich", show_default=True,
              help="Sentence state: spec (SBERT + TextRank, the spec's), rich (+ position, length, "
                   "novelty) or a comma list of emb,textrank,position,length,novelty.")
@click.option("--compress", type=click.Choice(["first-words", "chunks"]), default="first-words",
              show_default=True, help="How the chosen sentences become n words: their first n words, "
                                      "or the chunk policy.")
@click.option("--baseline", type=click.Choice(["greedy", "ema", "none"]), default="greedy",
              show_default=True, help="REINFORCE baseline: the greedy choice's reward (self-critical), a "
                                      "moving average of rewards, or none.")
@click.option("--baseline-momentum", type=_Number(float, 0.0, high=1.0, open_high=True), default=0.9,
              show_default=True, help="Momentum of the moving-average baseline (--baseline ema).")
@click.option("--seed", type=_Number(int, 0, high=MAX_SEED), default=42, show_default=True)
@click.option("--folds", type=_Number(int, 2, high=MAX_COUNT),
              help="Run K-fold cross-validation instead: train on K-1 folds, evaluate on the held-out "
                   "one, and compare with lead-n and TextRank (means, 95% CIs, paired tests).")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to save the trained policy (.pt). Required without --folds; with --folds, "
                   "a policy trained on all the articles is saved there after the cross-validation.")
@output_options
def train_summarizer(data, dataset, dataset_files, lang, encoder, reward, allow_english_model, n_list,
                     split, num_train, epochs, k_sentences, lr, hidden, state, compress, baseline, baseline_momentum,
                     seed, folds, checkpoint, output, fmt, quiet):
    """Train the RL n-word summariser: REINFORCE, one article per episode, BERTScore-F1 reward.
    With --folds K, cross-validate it instead and compare it with lead-n and TextRank on
    held-out articles.
    """
    ns = parse_int_list(n_list, "--n")
    _preflight("train-summarizer", lang, encoder, reward, allow_english_model, state)
    if checkpoint is None and folds is None:
        raise usage_error("give --checkpoint FILE.pt (where to save the policy) or --folds K")
    if folds is None and (output is not None or shared_options().get("report") is not None):
        option = "--output" if output is not None else "--report"
        raise usage_error(f"{option} holds the cross-validation results: it needs --folds K (plain training "
                          "writes only the --checkpoint)")
    if checkpoint is not None:   # fail now, not after training (-o, --report: the transaction)
        if checkpoint.is_dir():
            raise InputError("--checkpoint is a directory; expected a file path", checkpoint)
        if not checkpoint.parent.is_dir():
            raise InputError(f"--checkpoint: folder {checkpoint.parent} does not exist", checkpoint)
        if not os.access(checkpoint.parent, os.W_OK):
            raise InputError(f"--checkpoint: folder {checkpoint.parent} is not writable", checkpoint)
    pairs = _load_pairs(data, dataset, split, num_train, dataset_files, lang)
    if folds is not None and folds > len(pairs):
        raise usage_error(f"--folds {folds} needs at least {folds} articles, got {len(pairs)}")

    from scorekit.summarization.rl.pipeline import train_summarizer as train

    with _training_bar() as bar:
        cv, policy, log = train(pairs, n_list=ns, epochs=epochs, k_sentences=k_sentences, lr=lr, hidden=hidden,
                                state=state, compress=compress, baseline=baseline, baseline_momentum=baseline_momentum,
                                seed=seed, folds=folds, final=checkpoint is not None,
                                say=None if quiet else (lambda m: click.echo(m, err=True)), progress=bar,
                                encoder=encoder, reward=reward, lang=lang,
                                allow_english_model=allow_english_model)
    if cv is not None:
        if not quiet:
            print_cv(cv, fmt)
        emit(cv, output=output, fmt=fmt, quiet=quiet)
    if policy is not None:
        policy.save(checkpoint)
    if policy is not None and not quiet:   # with --folds stdout holds the tables
        click.echo(f"trained on {len(log.rewards) // epochs} articles x {epochs} epoch(s) in "
                   f"{policy.meta['minutes']:.2f} min; final running reward {log.running():.4f}\n"
                   f"saved {checkpoint}", err=folds is not None)


@contextlib.contextmanager
def _training_bar():
    """The training progress bar on stderr (a terminal only): episodes done and running reward."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    bar = Progress(TextColumn("training"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TextColumn("running reward {task.fields[reward]:.4f}"), TimeElapsedColumn(),
                   console=err, transient=True, disable=not err.is_terminal)
    task = []   # started at the first update, when the total is known

    def update(done: int, total: int, reward: float) -> None:
        if not task:
            bar.start()
            task.append(bar.add_task("train", total=total, reward=float("nan")))
        bar.update(task[0], completed=done, reward=reward)

    try:
        yield update
    finally:
        if task:
            bar.stop()


def print_cv(result, fmt: str) -> None:
    ex = result.extra
    ns = [r["n"] for r in ex["table"] if r["system"] == "rl"]
    cell = {(r["system"], r["n"]): r for r in ex["table"]}
    rows = [[s, *(f"{r['bertscore_f1']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
                  for r in (cell[s, n] for n in ns))] for s in dict.fromkeys(r["system"] for r in ex["table"])]
    k, m = result.inputs["folds"], result.inputs["n_articles"]
    print_table(["system"] + [f"n={n}" if n != "all" else "mean over n" for n in ns], rows, fmt,
                title=f"held-out BERTScore F1, {k}-fold cross-validation over {m} articles (mean [95% CI])")
    comp = [[c["against"], c["n"], f"{c['diff']:+.3f}", f"[{c['low']:+.3f}, {c['high']:+.3f}]", c["p_t"],
             c["p_bootstrap"]] for c in ex["comparisons"]]
    print_table(["rl vs", "n", "mean diff", "95% CI", "p (paired t)", "p (bootstrap)"], comp, fmt,
                title="the policy against lead-n and TextRank (paired per article)")
    if (goal := ex.get("goal")) and fmt in ("table", "markdown"):
        click.echo(f"not significantly worse than lead-n: {'yes' if goal['not_worse_than_lead'] else 'NO'}; "
                   f"significantly better than TextRank: {'yes' if goal['better_than_textrank'] else 'NO'}")
    signature_line(result.signature, fmt)


# --------------------------------------------------------------------------- summarize

@click.command("summarize",
               epilog=example("scorekit summarize --checkpoint policy.pt --exclude-trained --report summaries.html"))
@data_options
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path),
              help="A policy from `scorekit train-summarizer`; without it an untrained policy runs.")
@click.option("--num-test", type=POSITIVE_INT, default=200, show_default=True, help="Articles evaluated (NUM_TEST).")
@click.option("--split", default="test", show_default=True, help="Split of --dataset to use.")
@click.option("--exclude-trained", is_flag=True,
              help="Skip the articles the checkpoint was trained on (otherwise they are an error).")
@output_options
def summarize(data, dataset, dataset_files, lang, encoder, reward, allow_english_model, n_list,
              checkpoint, num_test, split, exclude_trained, output, fmt, quiet):
    """Summarise to n words with the trained policy and compare it with TextRank and lead-n
    on BERTScore F1, ROUGE-1/2, Efficiency and Density at each n.
    """
    ns = parse_int_list(n_list, "--n")
    if exclude_trained and checkpoint is None:
        raise usage_error("--exclude-trained needs --checkpoint (an untrained policy was trained on nothing)")
    _preflight("summarize", lang, encoder, reward, allow_english_model)
    from scorekit.summarization.rl.pipeline import EVAL_METRICS, summarize_pairs

    result = summarize_pairs(_load_pairs(data, dataset, split, None, dataset_files, lang), checkpoint=checkpoint,
                             exclude_trained=exclude_trained, num_test=num_test, n_list=ns, encoder=encoder,
                             reward=reward, lang=lang, allow_english_model=allow_english_model)
    if not quiet:
        rows = result.extra["table"]
        header = ["system", "n"] + [m for m in EVAL_METRICS if m in rows[0]]
        print_table(header, [[r[h] for h in header] for r in rows], fmt,
                    title="RL policy vs TextRank vs lead-n" + (" (UNTRAINED policy)" if not checkpoint else ""))
        signature_line(result.signature, fmt)
    emit(result, output=output, fmt=fmt, quiet=quiet)
