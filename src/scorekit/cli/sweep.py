"""``scorekit sweep``: the magic-n sweep (nword-summarization.md Phase 1).

    scorekit sweep --data docs.jsonl                       # N_LIST 1,3,...,21; lead + TextRank
    scorekit sweep --data docs.jsonl --n 5,7,9 --summarizer lead,textrank,random --plot plots/
    scorekit sweep --dataset cnn_dailymail --dataset-files test.parquet --limit 2000 -o sweep.json
"""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._types import count, parse_floats
from scorekit.cli._common import emit, output_options, outputs, print_table, signature_line
from scorekit.cli._engine import engine_options, open_engine
from scorekit.errors import ScorekitError

DEFAULT_N = "1,3,5,7,9,11,13,15,17,19,21"


def parse_int_list(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ScorekitError(f"{what}: expected comma-separated integers, got {text!r}") from None
    if not values:
        raise ScorekitError(f"{what}: no values given")
    bad = [v for v in values if v <= 0]
    if bad:
        raise ScorekitError(f"{what}: summary length n must be positive, got {bad[0]}")
    return values


def parse_band(text: str) -> tuple[float, float]:
    low, high = parse_floats(text, 2, "--band")
    if not 0 <= low <= high <= 1:
        raise ScorekitError(f"--band: expected fractions 0 <= LOW <= HIGH <= 1 like 0.5,0.9, got {text!r}")
    return low, high


def bert_layer_options(f):
    """``--num-layers`` and ``--allow-english-model`` for the commands that take a BERT model."""
    f = click.option("--allow-english-model", is_flag=True,
                     help="Score Korean with a BERTScore model that cannot read Hangul (refused by default).")(f)
    return click.option("--num-layers", type=click.IntRange(min=1), default=None,
                        help="BERTScore layer (default: bert_score's layer for a known model name, "
                             "else the last layer).")(f)


def load_bertscorer_option(flag: bool | None, model: str | None, num_layers: int | None = None,
                           allow_english_model: bool = False, texts=()):
    """``--bertscore`` forces it (error if unavailable), ``--no-bertscore`` skips it, default:
    use it when torch and the model are available, else warn and go on without."""
    from scorekit.summarization.metrics import load_bertscorer

    if flag is False:
        return None
    kwargs = {"model": model} if model else {}
    kwargs.update(num_layers=num_layers, allow_english_model=allow_english_model)
    scorer = load_bertscorer(required=bool(flag) or model is not None, **kwargs)
    if scorer is None:
        click.echo("scorekit: warning: BERTScore unavailable (torch/model missing); "
                   "running ROUGE and Density only", err=True)
    elif texts and not (flag or model):
        # default run on Korean with a model that cannot read Hangul: skip it, visibly (#15)
        from scorekit.neural.hangul import EnglishModelError, check_hangul

        try:
            check_hangul(scorer.tokenizer, texts, scorer.name, allow=allow_english_model)
        except EnglishModelError as exc:
            click.echo(f"scorekit: warning: skipped BERTScore: {exc}", err=True)
            return None
    return scorer


TABLE_FORMATS = {".csv": "csv", ".md": "markdown", ".tex": "latex"}


def table_format(path: Path) -> str:
    fmt = TABLE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ScorekitError(f"--table {path}: expected a file name ending in .csv, .md or .tex")
    return fmt


def write_table_file(dest, header, rows) -> None:
    """Stage the per-n table for ``dest`` (a registered output)."""
    from scorekit.report import tables

    dest.write_text(tables.render(header, rows, table_format(dest.path), digits=4))


@click.command("sweep")
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
              help="Comma-separated: lead, textrank, random.")
@click.option("--bertscore/--no-bertscore", default=None,
              help="BERTScore F1 and Efficiency (default: when torch and the model are available).")
@click.option("--bertscore-model", help="Local model directory for BERTScore (default all-MiniLM-L6-v2).")
@bert_layer_options
@click.option("--lang", type=click.Choice(["en", "ko"]), default="en", show_default=True,
              help="Text language (Hangul is detected either way).")
@click.option("--stem", is_flag=True, help="Porter-stem English tokens for ROUGE (Kiwi lemmas for Korean).")
@click.option("--seed", type=count(0), default=42, show_default=True, help="Seed of the random summariser and the bootstrap.")
@click.option("--bootstrap", "n_resamples", default=1000, show_default=True, type=count(1),
              help="Bootstrap resamples for the 95% CIs.")
@click.option("--band", default="0.5,0.9", show_default=True,
              help="Gain band of the recommendation rule (share of the total quality gain).")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write one PNG per metric (mean and 95% CI against n) into this folder (created if missing).")
@click.option("--table", "table_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the per-n table to this .csv/.md/.tex file.")
@engine_options
@output_options
def command(data, dataset, dataset_files, split, limit, n_list, summarizers, bertscore, bertscore_model,
            num_layers, allow_english_model, lang, stem, seed, n_resamples, band, plot_dir, table_path, engine,
            address, output, fmt, quiet, **options):
    """Summarise every document at every n (lead-n, TextRank, random) and tabulate ROUGE-1/2,
    BERTScore F1, Efficiency and Density with 95% bootstrap CIs; recommend an n interval."""
    from scorekit.summarization.data import load_corpus, read_pairs
    from scorekit.summarization.summarizers import SUMMARIZERS
    from scorekit.summarization.sweep import plot_sweep, run_sweep, sweep_table, sweep_to_result

    ns = parse_int_list(n_list, "--n")
    names = [s.strip() for s in summarizers.split(",") if s.strip()]
    for s in names:
        SUMMARIZERS.get(s)  # unknown name -> did-you-mean error
    if not names:
        raise ScorekitError("--summarizer: no summariser given")
    low_high = parse_band(band)
    if (data is None) == (dataset is None):
        raise ScorekitError("give exactly one of --data FILE or --dataset NAME")
    tx = outputs()
    if table_path is not None:
        table_format(table_path)
        table_out = tx.file(table_path, "--table")
    plot_out = tx.directory(plot_dir, "--plot") if plot_dir is not None else None
    if data is not None:
        if dataset_files is not None:
            raise ScorekitError("--dataset-files goes with --dataset, not --data")
        pairs = read_pairs(data).head(limit)
    else:
        pairs = load_corpus(dataset, split=split, limit=limit, files=dataset_files)
    scorer = load_bertscorer_option(bertscore, bertscore_model, num_layers, allow_english_model,
                                    texts=[*pairs.documents[:64], *pairs.references[:64]])

    kw = dict(ns=ns, summarizers=names, lang=lang, stem=stem, seed=seed, n_resamples=n_resamples,
              band=low_high)
    eng = open_engine(engine, address, quiet)
    if eng is None:
        sweep = run_sweep(pairs.documents, pairs.references, ids=pairs.ids, bertscorer=scorer, **kw)
    else:
        with eng:
            sweep = run_sweep(pairs.documents, pairs.references, ids=pairs.ids, bertscorer=scorer, engine=eng, **kw)
    result = sweep_to_result(sweep, name=Path(pairs.source).stem if data else pairs.source,
                             inputs={"data": pairs.source})
    header, rows = sweep_table(sweep)
    if table_path is not None:
        write_table_file(table_out, header, rows)
    plots = ([plot_dir / p.name for p in plot_sweep(sweep, plot_out.staging)]
             if plot_out is not None else [])
    if plots:
        result.extra["plots"] = [str(p) for p in plots]
    emit(result, output=output, fmt=fmt, quiet=quiet, **options)

    short = {n: c for n, c in sweep.short_documents.items() if c}
    if short:
        worst = max(short)
        click.echo(f"scorekit: note: {short[worst]} of {len(pairs)} documents have fewer than {worst} "
                   f"words; their summary is the whole document (per n: "
                   + ", ".join(f"n={n}: {c}" for n, c in short.items()) + ")", err=True)
    if quiet:
        return
    if fmt == "table":
        header, rows = sweep_table(sweep, compact=True)
    print_table(header, rows, fmt, title=f"n-word sweep over {len(pairs)} documents "
                f"(mean and 95% bootstrap CI)")
    rec = sweep.recommendation
    line = (f"recommended n: {', '.join(map(str, rec['interval']))} — {rec['rule']}")
    if fmt in ("table", "markdown"):
        click.echo(("\n" if fmt == "markdown" else "") + line)
    for p in plots:
        if fmt == "table":
            click.echo(f"plot: {p}")
    signature_line(result.signature, fmt)
