"""``scorekit caption``: caption metrics with the spec's report (caption-metrics.md §6-§8)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from scorekit.cli._types import finite
from scorekit.cli._common import emit, output_options, print_table, signature_line
from scorekit.cli._engine import engine_options, open_engine
from scorekit.cli.metric_options import MetricsOption, metric_specs
from scorekit.signature import Signature


def _media_paths(directory: Path, ids: list[str], kind: str) -> list[Path]:
    from scorekit.errors import InputError

    exts = ((".jpg", ".jpeg", ".png", ".webp", ".bmp") if kind == "images"
            else (".mp4", ".avi", ".mov", ".mkv", ".webm"))
    if not directory.is_dir():
        raise InputError(f"{kind} directory not found", directory)
    by_stem = {p.stem: p for p in directory.iterdir() if p.suffix.lower() in exts}
    missing = [i for i in ids if i not in by_stem]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5])
        raise InputError(f"no {kind[:-1]} file for {len(missing)} id(s): {shown}", directory)
    return [by_stem[i] for i in ids]


@click.command("caption")
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path),
              help="Predictions: JSON {id: caption | [caption]}, JSONL or CSV.")
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="References: JSON {id: [ref, ...]}, JSONL or CSV (one row per reference).")
@click.option("--lang", type=click.Choice(["ko", "en"]), required=True, help="Caption language.")
@click.option("--metrics", "-m", default=None, cls=MetricsOption, family="caption",
              lead="Comma-separated metrics or keys, with parameters in parentheses: "
                   "\"bleu(mode=sentence),chrf(beta=3),meteor(alpha=0.85),cider(df=df.json)\" "
                   "(default: bleu,meteor,rouge_l,cider,bertscore); results are keyed as written.")
@click.option("--baseline-meteor", type=finite(0, 1, min_open=True), default=0.3052, show_default=True,
              help="METEOR baseline for the report (AI-Hub Korean 0.3052; English 0.33).")
@click.option("--tokenizer", type=click.Choice(["coco", "13a", "kiwi", "whitespace"]), default=None,
              help="Tokens for BLEU/CIDEr/English METEOR, for the whole batch (default: coco for en, kiwi for ko).")
@click.option("--lexicon", type=click.Path(path_type=Path), multiple=True,
              help="Extra Korean synonym lexicon (TSV or JSON) for METEOR; repeatable "
                   "(shorthand for meteor(lexicon=a.tsv;b.tsv)).")
@click.option("--images", type=click.Path(path_type=Path), default=None, help="Images named <id>.jpg|png for CLIPScore.")
@click.option("--videos", type=click.Path(path_type=Path), default=None, help="Videos named <id>.mp4|... for CLIPScore.")
@click.option("--bert-model", type=str, default=None,
              help="Local BERTScore model dir (default: all-MiniLM-L6-v2; shorthand for bertscore(model=DIR)).")
@click.option("--num-layers", type=click.IntRange(min=1), default=None,
              help="BERTScore layer (shorthand for bertscore(num_layers=N); default: bert_score's layer for "
                   "a known model name, e.g. 9 for bert-base-multilingual-cased; else the last layer).")
@click.option("--allow-english-model", is_flag=True,
              help="Score Korean with a BERTScore model that cannot read Hangul (refused by default).")
@click.option("--clip-model", type=str, default=None,
              help="Local CLIP model dir for CLIPScore (shorthand for clipscore(model=DIR)).")
@click.option("--strict", is_flag=True, help="Ids on one side only are an error (default: a missing "
                                             "prediction scores 0, an unreferenced prediction is ignored).")
@engine_options
@output_options
def command(predictions, references, lang, metrics, baseline_meteor, tokenizer, lexicon, images, videos,
            bert_model, num_layers, allow_english_model, clip_model, strict, engine, address, output, fmt,
            quiet, **extra):
    """Score captions: METEOR (primary), CIDEr-D and BERTScore (secondary), BLEU-4 and ROUGE-L
    (reference), with the comparison against the METEOR baseline and the §7 target table.
    A metric's parameters are set in its name: -m "bleu(mode=sentence),meteor(alpha=0.85)".

    \b
    Example:
      scorekit caption -p preds.json -r refs.json --lang ko -o results.json
      scorekit caption -p preds.json -r refs.json --lang en -m "chrf(beta=3),bleu_4"
    """
    from scorekit.errors import ScorekitError
    from scorekit.generation.driver import DEFAULT_METRICS, evaluate
    from scorekit.generation.targets import report
    from scorekit.io.captions import read_caption_set
    from scorekit.metrics.registry import MetricSpec

    if images and videos:
        raise ScorekitError("give --images or --videos, not both")
    shorthands = {"meteor": {"lexicon": [str(x) for x in lexicon] or None},
                  "bertscore": {"model": bert_model, "num_layers": num_layers,
                                "allow_english_model": allow_english_model or None},
                  "clipscore": {"model": clip_model}}
    defaults = list(DEFAULT_METRICS) + ([MetricSpec("clipscore")] if images or videos else [])
    names = metric_specs(metrics, "caption", defaults, shorthands)
    data = read_caption_set(predictions, references, strict=strict)
    media, media_kind = None, "images"
    if images or videos:
        media_kind = "images" if images else "videos"
        media = _media_paths(images or videos, data.ids, media_kind)
    for w in data.warnings:
        click.echo(f"scorekit: warning: {w}", err=True)
    eng = open_engine(engine, address, quiet)
    kw = dict(lang=lang, metrics=names, tokenizer=tokenizer, media=media, media_kind=media_kind, ids=data.ids,
              name=predictions.stem)
    if eng is None:
        result = evaluate(data.predictions, data.references, **kw)
    else:
        with eng:
            result = evaluate(data.predictions, data.references, engine=eng, **kw)
    skipped = result.extra["skipped"]
    for name, why in skipped.items():
        click.echo(f"scorekit: warning: skipped {name}: {why}", err=True)
    rep = report(result.metrics, baseline_meteor=baseline_meteor)
    result.inputs = {"predictions": str(predictions), "references": str(references), "lang": lang,
                     "n_items": len(data.ids), "n_empty_predictions": data.n_empty_predictions,
                     "n_missing_predictions": data.n_missing_predictions,
                     "n_ignored_predictions": data.n_dropped_predictions}
    result.extra = {"report": rep, "warnings": data.warnings, "skipped": skipped}
    bert_sig = next((v.removeprefix("model=") for k, v in Signature.parse(result.signature).fields.items()
                     if k.split("(")[0] == "bertscore"), None)
    for row in rep["targets"]:  # the §7 table names the model behind a BERTScore target
        if row["metric"].startswith("bertscore") and bert_sig:
            row["model"] = bert_sig
    if not quiet:
        _print_report(result, rep, fmt)
    emit(result, output=output, fmt=fmt, quiet=quiet, **extra)


def _print_report(result, rep, fmt: str) -> None:
    m = result.metrics
    order = ["meteor", "cider", "bertscore_f1", "bertscore_p", "bertscore_r", "bleu_4", "rouge_l"]
    role = {"meteor": "primary", "cider": "secondary", "bertscore_f1": "secondary",
            "bleu_4": "reference", "rouge_l": "reference"}
    keys = [k for k in order if k in m] + [k for k in m if k not in order]
    rows = [[k, m[k], role.get(k, "")] for k in keys]
    print_table(["metric", "score", "role"], rows, fmt,
                title=f"caption metrics ({result.inputs['n_items']} items, lang {result.inputs['lang']})")
    t_rows = [[r["metric"], r["value"], r["baseline"], r["target_1"], r["target_2"], r["final"],
               r["reached"] or "-"] for r in rep["targets"] if r["value"] is not None]
    if t_rows:
        models = {r["model"] for r in rep["targets"] if r.get("model") and r["value"] is not None}
        title = "targets (spec §7)" + (f"; BERTScore model {models.pop()}" if models else "")
        print_table(["metric", "value", "baseline", "target 1 (+10%)", "target 2 (+20%)", "final", "reached"],
                    t_rows, fmt, title=title)
    if "meteor_improvement_pct" in rep and fmt in ("table", "markdown"):
        sys.stdout.write(f"METEOR {m['meteor']:.4f} vs baseline {rep['baseline_meteor']:.4f}: "
                         f"{rep['meteor_improvement_pct']:+.2f}%\n")
    signature_line(result.signature, fmt)
