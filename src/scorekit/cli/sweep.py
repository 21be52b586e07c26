"""``scorekit sweep``: the magic-n sweep (nword-summarization.md Phase 1); examples in its epilog."""

from __future__ import annotations

import math
from pathlib import Path

import click

from scorekit.cli._common import (DEVICE_OPTION, LANG_OPTION, STEM_OPTION, MetricsOption, emit, engine_options,
                                  example, open_engine, output_options, outputs, print_table, signature_line, warn)
from scorekit.cli._types import SEED, count, resamples, usage_error
from scorekit.report import tables

DEFAULT_N = "1,3,5,7,9,11,13,15,17,19,21"
MAX_WORDS = 1_000_000   # a summary length past any document


def parse_int_list(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise usage_error(f"{what}: expected comma-separated integers, got {text!r}") from None
    if not values:
        raise usage_error(f"{what}: no values given")
    if bad := [v for v in values if v <= 0]:
        raise usage_error(f"{what}: summary length n must be positive, got {bad[0]}")
    if huge := [v for v in values if v > MAX_WORDS]:
        raise usage_error(f"{what}: summary length n must be at most {MAX_WORDS:,}, got {huge[0]}")
    return values


TABLE_FORMATS = {".csv": "csv", ".md": "markdown", ".tex": "latex"}


@click.command("sweep",
               epilog=example("scorekit sweep --data docs.jsonl --n 5,10,20 --summarizer lead,textrank,random \\",
                              "    --report sweep.html",
                              "scorekit sweep --data news.jsonl --plot plots/ -o sweep.json \\",
                              "    --summarizer 'lead,random,textrank(encoder=models/bert-base-uncased),textrank(encoder=models/xlnet-base-cased),centroid(encoder=models/electra-base-discriminator)' \\",
                              "    --system bart=bart_xsum.jsonl",
                              "scorekit sweep --data docs.jsonl \\",
                              "    -m \"rouge,bertscore(model=DIR,num_layers=9),efficiency\"",
                              "scorekit sweep --data docs.jsonl -m rouge,density,words   # no model needed",
                              heading="Examples:"))
@click.option("--data", type=click.Path(path_type=Path),
              help="JSONL/JSON/CSV/Parquet of (document, reference) records, or a folder or quoted "
                   "glob of such shards.")
@click.option("--dataset", type=click.Choice(["cnn_dailymail", "xsum"]),
              help="Use CNN/DailyMail 3.0.0 or XSUM from local files or the local HF cache.")
@click.option("--dataset-files", type=click.Path(path_type=Path),
              help="Local parquet/jsonl/csv file(s) (a file or folder) holding --dataset's split.")
@click.option("--split", default="test", show_default=True, help="Dataset split (with --dataset).")
@click.option("--limit", type=count(1), help="Use only the first LIMIT documents.")
@click.option("--n", "n_list", default=DEFAULT_N, show_default=True, help="Summary lengths (words).")
@click.option("--summarizer", "summarizers", default="lead,textrank", show_default=True,
              help="Comma-separated summarisers, each NAME or NAME(param=value,...): lead, random(seed=N), "
                   "textrank(encoder=DIR,damping=D), centroid(encoder=DIR). encoder= is a local model folder "
                   "(BERT, ELECTRA, XLNet, sentence-transformers; loaded once per sweep); without it the "
                   "shipped all-MiniLM-L6-v2.")
@click.option("--system", "systems", multiple=True, metavar="NAME=FILE",
              help="An external system's summaries (JSONL/JSON/CSV/Parquet with id and prediction/summary "
                   "fields, one per document): swept cut to its first n words at every n, and at full "
                   "length as 'NAME (full)'. Repeatable.")
@click.option("--metrics", "-m", default=None, cls=MetricsOption, family="summary",
              lead="Comma-separated metrics, parameters in parentheses, each scored once (default: "
                   "rouge,bertscore,efficiency,density,words; BERTScore and Efficiency skipped when torch or "
                   "the model is missing); efficiency follows the bertscore(...) beside it.")
@DEVICE_OPTION
@click.option("--allow-english-model", is_flag=True,
              help="Embed or score Korean with a model that cannot read Hangul (encoders and BERTScore; "
                   "refused by default).")
@LANG_OPTION
@STEM_OPTION
@click.option("--seed", type=SEED, default=42, show_default=True, help="Seed of the random summariser and the bootstrap.")
@click.option("--bootstrap", "n_resamples", default=1000, show_default=True, type=resamples(1),
              help="Bootstrap resamples for the 95% CIs.")
@click.option("--band", default="0.5,0.9", show_default=True,
              help="Gain band of the recommendation rule (share of the total quality gain).")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one PNG per metric (mean and 95% CI against n) into this folder (created if missing).")
@click.option("--table", "table_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the per-n table to this .csv/.md/.tex file.")
@click.option("--table-format", "table_fmt", type=click.Choice(sorted(set(TABLE_FORMATS.values()))),
              help="The --table format when its name has no .csv/.md/.tex ending (e.g. a FIFO).")
@engine_options
@output_options
def command(data, dataset, dataset_files, split, limit, n_list, summarizers, systems, metrics, device,
            allow_english_model, lang, stem, seed, n_resamples, band, plot_dir, table_path, table_fmt, engine,
            address, output, fmt, quiet):
    """Summarise every document at every n (lead-n, TextRank and centroid over any local encoder,
    random, external systems) and tabulate ROUGE-1/2, BERTScore F1, Efficiency and Density with
    95% bootstrap CIs; recommend an n interval."""
    from scorekit.summarization.summarizers import parse_summarizers
    from scorekit.summarization.sweep import plot_sweep, sweep_files, sweep_table

    ns = parse_int_list(n_list, "--n")
    names = parse_summarizers(summarizers)   # unknown name -> did-you-mean error
    system_files: list[tuple[str, Path]] = []   # --system NAME=FILE: names unlike any other
    for item in systems:
        name, eq, file = (x.strip() for x in item.partition("="))
        if not eq or not name or not file:
            raise usage_error(f"--system: expected NAME=FILE, got {item!r}")
        if name in {s.label for s in names} or any(name == n for n, _ in system_files):
            raise usage_error(f"--system {item}: the name {name!r} is already used")
        system_files.append((name, Path(file)))
    try:
        low, high = map(float, band.split(","))
    except ValueError:
        low = high = math.nan
    if not math.isfinite(low + high):
        raise usage_error(f"--band expects 2 comma-separated finite numbers, got {band!r}")
    if not 0 <= low <= high <= 1:
        raise usage_error(f"--band: expected fractions 0 <= LOW <= HIGH <= 1 like 0.5,0.9, got {band!r}")
    if (data is None) == (dataset is None):
        raise usage_error("give exactly one of --data FILE or --dataset NAME")
    if table_fmt is not None and table_path is None:
        raise usage_error("--table-format goes with --table")
    fmt_table = table_fmt or (TABLE_FORMATS.get(table_path.suffix.lower()) if table_path is not None else None)
    if table_path is not None and fmt_table is None:
        raise usage_error(f"--table {table_path}: expected a file name ending in .csv, .md or .tex, "
                          "or --table-format csv|markdown|latex")
    table_out = outputs().file(table_path, "--table") if table_path is not None else None
    plot_out = outputs().directory(plot_dir, "--plot") if plot_dir is not None else None
    if data is not None and dataset_files is not None:
        raise usage_error("--dataset-files goes with --dataset, not --data")
    sweep, result = sweep_files(data=data, dataset=dataset, dataset_files=dataset_files, split=split, limit=limit,
                                ns=ns, summarizers=names, systems=system_files, metrics=metrics or None,
                                device=device, allow_english_model=allow_english_model, warn=warn,
                                engine=open_engine(engine, address, quiet), lang=lang, stem=stem, seed=seed,
                                n_resamples=n_resamples, band=(low, high))
    header, rows = sweep_table(sweep)
    if table_out is not None:
        table_out.write_text(tables.render(header, rows, fmt_table, digits=4))
    plots = ([plot_dir / p.name for p in plot_sweep(sweep, plot_out.staging)]
             if plot_out is not None else [])
    if plots:
        result.extra["plots"] = [str(p) for p in plots]
    emit(result, output=output, fmt=fmt, quiet=quiet)

    short = {n: c for n, c in sweep.short_documents.items() if c}
    if short:
        worst = max(short)
        click.echo(f"scorekit: note: {short[worst]} of {len(sweep.ids)} documents have fewer than {worst} "
                   f"words; their summary is the whole document (per n: "
                   + ", ".join(f"n={n}: {c}" for n, c in short.items()) + ")", err=True)
    if quiet:
        return
    if fmt == "table":
        header, rows = sweep_table(sweep, compact=True)
    print_table(header, rows, fmt, title=f"n-word sweep over {len(sweep.ids)} documents "
                f"(mean and 95% bootstrap CI)")
    rec = sweep.recommendation
    if fmt in ("table", "markdown"):
        click.echo(("\n" if fmt == "markdown" else "")
                   + f"recommended n: {', '.join(map(str, rec['interval']))} — {rec['rule']}")
        for label, words in result.extra["sweep"].get("full_length", {}).items():
            click.echo(f"{label}: the whole summaries, {words:.1f} words on average")
    for p in plots if fmt == "table" else []:
        click.echo(f"plot: {p}")
    signature_line(result.signature, fmt)
