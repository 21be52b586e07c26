"""``scorekit summary``: score given n-word summaries (nword-summarization.md Phase 1/2 metrics).

    scorekit summary --predictions preds.jsonl --references refs.jsonl --sources docs.jsonl

Files are .jsonl/.json/.csv/.tsv records (``id`` plus ``prediction``/``reference``/``document``
fields, see docs/summarization.md) or .txt with one text per line. Records align by id when
every file has ids, otherwise by position.
"""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._common import emit, output_options, print_table, signature_line
from scorekit.cli.sweep import bert_layer_options, load_bertscorer_option


@click.command("summary")
@click.option("--predictions", "-p", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Summaries to score.")
@click.option("--references", "-r", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Reference summaries (a record may hold a list of references).")
@click.option("--sources", "-s", type=click.Path(dir_okay=False, path_type=Path),
              help="Source documents (adds Density and token Density).")
@click.option("--bertscore/--no-bertscore", default=None,
              help="BERTScore F1 and Efficiency (default: when torch and the model are available).")
@click.option("--bertscore-model", help="Local model directory for BERTScore (default all-MiniLM-L6-v2).")
@bert_layer_options
@click.option("--lang", type=click.Choice(["en", "ko"]), default="en", show_default=True,
              help="Text language (Hangul is detected either way).")
@click.option("--stem", is_flag=True, help="Porter-stem English tokens for ROUGE (Kiwi lemmas for Korean).")
@click.option("--name", help="System name in tables and JSON (default: the predictions file name).")
@output_options
def command(predictions, references, sources, bertscore, bertscore_model, num_layers, allow_english_model,
            lang, stem, name, output, fmt, quiet, **options):
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
    result = summary_metrics(texts["prediction"], texts["reference"], texts.get("document"), ids=ids,
                             bertscorer=scorer, lang=lang, stem=stem,
                             name=name or predictions.stem)
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
