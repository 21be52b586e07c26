"""``scorekit summary``: score given n-word summaries (nword-summarization.md Phase 1/2 metrics);
the input files are described in docs/summarization.md."""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._common import (DEVICE_OPTION, LANG_OPTION, STEM_OPTION, MetricsOption, emit, engine_options,
                                  engine_scope, example, output_options, print_table, signature_line)


@click.command("summary",
               epilog=example("scorekit summary --predictions summaries.jsonl --references refs.jsonl \\",
                              "    --sources docs.jsonl -o summary.json --report summary.html",
                              "scorekit summary -p summaries.jsonl -r refs.jsonl \\",
                              "    -m \"rouge,bertscore(model=DIR,num_layers=9,idf=true),efficiency,chrf(beta=3)\""))
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path),
              help="Summaries to score: a file, or a folder or quoted glob of JSONL/JSON/CSV/Parquet "
                   "shards (records with ids).")
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="Reference summaries (a record may hold a list of references); file, folder or glob.")
@click.option("--sources", "-s", type=click.Path(path_type=Path),
              help="Source documents (adds Density and token Density); file, folder or glob.")
@LANG_OPTION
@STEM_OPTION
@DEVICE_OPTION
@click.option("--allow-english-model", is_flag=True,
              help="Score Korean with a BERTScore model that cannot read Hangul (refused by default; "
                   "it changes no number; the model is the metric's: -m \"bertscore(model=DIR)\").")
@click.option("--metrics", "-m", default=None, cls=MetricsOption, family="summary",
              lead="Comma-separated metrics, parameters in parentheses, keyed as written (default: "
                   "rouge,bertscore,efficiency,density,words; BERTScore and Efficiency skipped when torch or "
                   "the model is missing, density only with --sources). Any caption metric too "
                   "(chrf(beta=3), bleu_4, cider, meteor_nltk, ...); efficiency follows the bertscore(...) beside it.")
@click.option("--name", help="System name in tables and JSON (default: the predictions file name).")
@engine_options
@output_options
def command(predictions, references, sources, lang, stem, device, allow_english_model, metrics, name, engine,
            address, output, fmt, quiet):
    """Score summaries: ROUGE-1/2 (F and recall), BERTScore F1, Efficiency (F1 per word) and
    Density (words reused from the source)."""
    from scorekit.metrics.registry import split_specs
    from scorekit.summarization.data import read_summaries
    from scorekit.summarization.metrics import summary_metrics

    ids, texts = read_summaries(predictions, references, sources)
    with engine_scope(engine, address, quiet) as eng:
        result = summary_metrics(texts["prediction"], texts["reference"], texts.get("document"), ids=ids,
                                 lang=lang, stem=stem, name=name or predictions.stem, device=device,
                                 allow_english_model=allow_english_model,
                                 metrics=split_specs(metrics) if metrics else None, engine=eng)
    result.inputs.update({"predictions": str(predictions), "references": str(references),
                          "sources": str(sources) if sources else None})
    emit(result, output=output, fmt=fmt, quiet=quiet)
    if not quiet:   # one system: metrics down the rows, so the table fits a terminal
        print_table(["metric", result.name or "summaries"], [[m, v] for m, v in result.metrics.items()], fmt,
                    title=f"summary metrics over {len(ids)} summaries")
        for metric, reason in result.inputs.get("skipped", {}).items():
            click.echo(f"note: {metric} skipped: {reason}", err=True)
        signature_line(result.signature, fmt)
