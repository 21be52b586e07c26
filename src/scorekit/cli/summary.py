"""``scorekit summary``: score given n-word summaries (nword-summarization.md Phase 1/2 metrics).

    scorekit summary --predictions preds.jsonl --references refs.jsonl --sources docs.jsonl

Files are .jsonl/.json/.csv/.tsv records (``id`` plus ``prediction``/``reference``/``document``
fields, see docs/summarization.md) or .txt with one text per line. Records align by id when
every file has ids, otherwise by position.
"""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._common import emit, example, output_options, print_table, signature_line
from scorekit.cli._engine import engine_options, open_engine
from scorekit.cli.metric_options import MetricsOption, metric_specs
from scorekit.cli.sweep import bert_layer_options, load_bertscorer_option


@click.command("summary",
               epilog=example("scorekit summary --predictions summaries.jsonl --references refs.jsonl \\",
                              "    --sources docs.jsonl \\",
                              "    -o summary.json --report summary.html"))
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path),
              help="Summaries to score: a file, or a folder or quoted glob of JSONL/JSON/CSV/Parquet "
                   "shards (records with ids).")
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="Reference summaries (a record may hold a list of references); file, folder or glob.")
@click.option("--sources", "-s", type=click.Path(path_type=Path),
              help="Source documents (adds Density and token Density); file, folder or glob.")
@click.option("--bertscore/--no-bertscore", default=None,
              help="BERTScore F1 and Efficiency (default: when torch and the model are available).")
@click.option("--bertscore-model", help="Local model directory for BERTScore (default all-MiniLM-L6-v2).")
@bert_layer_options
@click.option("--lang", type=click.Choice(["en", "ko"]), default="en", show_default=True,
              help="Text language (Hangul is detected either way).")
@click.option("--stem", is_flag=True, help="Porter-stem English tokens for ROUGE (Kiwi lemmas for Korean).")
@click.option("--metrics", "-m", default=None, cls=MetricsOption, family="caption",
              lead="Extra comma-separated text metrics on the summaries, with parameters in parentheses "
                   "(e.g. \"chrf(beta=3),chrf_pp,bleu_4\"; keyed as written).")
@click.option("--name", help="System name in tables and JSON (default: the predictions file name).")
@engine_options
@output_options
def command(predictions, references, sources, bertscore, bertscore_model, num_layers, allow_english_model,
            lang, stem, metrics, name, engine, address, output, fmt, quiet, **options):
    """Score summaries: ROUGE-1/2 (F and recall), BERTScore F1, Efficiency (F1 per word) and
    Density (words reused from the source)."""
    from scorekit.summarization.data import align, read_texts
    from scorekit.summarization.metrics import summary_metrics

    files = {"prediction": (str(predictions), read_texts(predictions, "prediction")),
             "reference": (str(references), read_texts(references, "reference"))}
    if sources is not None:
        files["document"] = (str(sources), read_texts(sources, "document"))
    ids, texts = align(files)
    scorer = load_bertscorer_option(bertscore, bertscore_model, num_layers, allow_english_model,
                                    texts=[*texts["prediction"], *texts["reference"]])
    extra_metrics = metric_specs(metrics, "caption")
    eng = open_engine(engine, address, quiet)
    kw = dict(ids=ids, bertscorer=scorer, lang=lang, stem=stem, name=name or predictions.stem, metrics=extra_metrics)
    if eng is None:
        result = summary_metrics(texts["prediction"], texts["reference"], texts.get("document"), **kw)
    else:
        with eng:
            result = summary_metrics(texts["prediction"], texts["reference"], texts.get("document"), engine=eng,
                                     **kw)
    result.inputs.update({"predictions": str(predictions), "references": str(references),
                          "sources": str(sources) if sources else None})
    emit(result, output=output, fmt=fmt, quiet=quiet, **options)
    if quiet:
        return
    # one system: metrics down the rows, so the table fits a terminal
    header = ["metric", result.name or "summaries"]
    rows = [[m, v] for m, v in result.metrics.items()]
    print_table(header, rows, fmt, title=f"summary metrics over {len(ids)} summaries")
    signature_line(result.signature, fmt)
