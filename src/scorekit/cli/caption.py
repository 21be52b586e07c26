"""``scorekit caption``: caption metrics with the spec's report (caption-metrics.md §6-§8)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from scorekit.cli._common import (MetricsOption, change_pct, emit, engine_options, example, open_engine,
                                  output_options, print_table, signature_line, warn)
from scorekit.cli._types import finite, usage_error
from scorekit.errors import ScorekitError

# What --recipe spec reads; every other option changes the tokens, metrics or their parameters.
SPEC_OPTIONS = {"predictions", "references", "lang", "baseline_meteor", "recipe", "strict", "output", "fmt",
                "quiet", "report", "record", "store", "plot", "plot_format"}


@click.command("caption",
               epilog=example("scorekit caption -p preds.json -r refs.json --lang ko \\",
                              "    -o results.json --report captions.html",
                              "scorekit caption -p preds.json -r refs.json --lang ko \\",
                              "    -m \"bleu,meteor(lexicon=syn.tsv),rouge_l,cider,bertscore(model=DIR,num_layers=9)\"",
                              "scorekit caption -p preds.json -r refs.json --lang ko --recipe spec",
                              "scorekit caption -p results.json -r captions_val2014.json --lang en \\",
                              "    -m bleu,meteor15,rouge_l_coco,cider",
                              "scorekit caption -p preds.json -r refs.json --lang en -m \"chrf(beta=3),bleu_4\"",
                              "scorekit caption -p preds.json -r refs.json --lang en \\",
                              "    -m \"bleu(mode=sacrebleu),chrf\" --tokenizer 13a --scale 100",
                              heading="Examples:"))
@click.option("--predictions", "-p", required=True, type=click.Path(path_type=Path),
              help="Predictions: JSON {id: caption | [caption]}, JSONL or CSV.")
@click.option("--references", "-r", required=True, type=click.Path(path_type=Path),
              help="References: JSON {id: [ref, ...]}, JSONL or CSV (one row per reference).")
@click.option("--lang", type=click.Choice(["ko", "en"]), required=True, help="Caption language.")
@click.option("--metrics", "-m", default=None, cls=MetricsOption, family="caption",
              lead="Comma-separated metrics or keys, with parameters in parentheses: "
                   "\"bleu(mode=sacrebleu),chrf(beta=3),meteor(alpha=0.85),cider(df=df.json)\" "
                   "(default: bleu,meteor,rouge_l,cider,bertscore for ko; meteor15 in place of meteor for en); "
                   "results are keyed as written. In every BLEU mode bleu_n is cumulative BLEU up to n-grams "
                   "(bleu_4 = BLEU); bleu(mode=sacrebleu) adds sacrebleu's breakdown (bleu_precision_1..4, "
                   "bleu_bp, bleu_ratio, bleu_hyp_len, bleu_ref_len).")
@click.option("--baseline-meteor", type=finite(0, 1, min_open=True), default=None,
              help="METEOR baseline for the report (default: the language's AI-Hub baseline, spec §2.1: "
                   "Korean 0.3052 against meteor, English 0.33 against meteor15).")
@click.option("--recipe", type=click.Choice(["scorekit", "spec"]), default="scorekit", show_default=True,
              help="spec: the caption spec's own code (Okt morphs, nltk METEOR and sentence BLEU-4, the first "
                   "reference of each id, averaged; §2.4, §5.1, §6.1), the recipe of the 0.3052 baseline. "
                   "Needs konlpy and Java; --lang ko only.")
@click.option("--scale", type=click.Choice(["1", "100"]), default="1", show_default=True,
              help="Scale of the metrics sacrebleu reports: 100 prints chrF, chrF++ and, in "
                   "bleu(mode=sacrebleu), BLEU and its n-gram precisions as sacrebleu does (0-100); pinned in "
                   "the signature. Other metrics stay in [0, 1].")
@click.option("--tokenizer", type=click.Choice(["coco", "13a", "kiwi", "whitespace"]), default=None,
              help="Tokens for BLEU/CIDEr/English METEOR, for the whole batch (default: coco for en, kiwi for ko).")
@click.option("--images", type=click.Path(path_type=Path), default=None, help="Images named <id>.jpg|png for CLIPScore.")
@click.option("--videos", type=click.Path(path_type=Path), default=None, help="Videos named <id>.mp4|... for CLIPScore.")
@click.option("--allow-english-model", is_flag=True,
              help="Score Korean with a BERTScore model that cannot read Hangul (refused by default); "
                   "for the whole run, it changes no number.")
@click.option("--strict", is_flag=True, help="Ids on one side only are an error (default: a missing "
                                             "prediction scores 0, an unreferenced prediction is ignored).")
@engine_options
@output_options
def command(predictions, references, lang, metrics, baseline_meteor, recipe, scale, tokenizer, images, videos,
            allow_english_model, strict, engine, address, output, fmt, quiet):
    """Score captions: METEOR (primary), CIDEr-D and BERTScore (secondary), BLEU-4 and ROUGE-L
    (reference), with the comparison against the METEOR baseline and the §7 target table.
    A metric's parameters are set in its name: -m "bleu(mode=sentence),meteor(lexicon=syn.tsv)",
    -m "bleu,meteor,rouge_l,cider,bertscore(model=DIR,num_layers=9)", -m "clipscore(model=DIR)".

    The headline METEOR follows the language: scorekit's Korean METEOR (`meteor`) against 0.3052,
    Meteor 1.5 (`meteor15`, as COCO reports it) against 0.33 for English; the report names the
    recipe of both.
    """
    from scorekit.generation.driver import default_metrics
    from scorekit.generation.targets import evaluate_files
    from scorekit.metrics.registry import MetricSpec, split_specs

    if recipe == "spec":   # it fixes tokens, metrics, parameters: an option changing them is an error
        if lang != "ko":
            raise ScorekitError("--recipe spec is the caption spec's Korean evaluation code (Okt morphs): use it "
                                "with --lang ko")
        ctx = click.get_current_context()
        if wrong := [p for p in ctx.command.params if p.name not in SPEC_OPTIONS
                     and ctx.get_parameter_source(p.name) is click.core.ParameterSource.COMMANDLINE]:
            raise ScorekitError(f"{wrong[0].opts[0]} does not apply to --recipe spec, which fixes the spec's "
                                "tokens, metrics and parameters")
    if images and videos:
        raise usage_error("give --images or --videos, not both")
    if metrics:
        specs = [MetricSpec(t) for t in split_specs(metrics)]
    else:   # a default is skipped with its reason when a dependency is missing (clipscore is not)
        specs = ([MetricSpec(d, optional=True) for d in default_metrics(lang)]
                 + ([MetricSpec("clipscore")] if images or videos else []))
    result = evaluate_files(predictions, references, lang=lang, recipe=recipe, scale=int(scale), tokenizer=tokenizer,
                            metrics=specs if recipe == "scorekit" else None,
                            images=images, videos=videos, strict=strict, baseline_meteor=baseline_meteor,
                            allow_english_model=allow_english_model,
                            engine=open_engine(engine, address, quiet) if recipe == "scorekit" else None,
                            warn=warn)
    if not quiet:
        _print_report(result, fmt)
    emit(result, output=output, fmt=fmt, quiet=quiet)


def _print_report(result, fmt: str) -> None:
    from scorekit.metrics.registry import first_written

    m, rep = result.metrics, result.extra["report"]
    prim, spec = rep["primary"], rep.get("recipe") == "spec"
    if spec:
        order = [prim, "bleu_4", "spec_rouge_l", "rouge_l", "spec_cider", "cider"]
        role = {prim: "primary (spec)", "bleu_4": "reference (spec)", "spec_rouge_l": "reference (spec; 0 on Korean)",
                "rouge_l": "scorekit, beside spec_rouge_l", "spec_cider": "secondary (spec; always 0)",
                "cider": "scorekit, beside spec_cider"}
    else:
        written = first_written(m)    # declared key -> the key written for it: bertscore_f1(model=DIR)
        order = [prim, *(written.get(k, k) for k in ("cider", "bertscore_f1", "bertscore_p", "bertscore_r",
                                                      "bleu_4", "rouge_l"))]
        role = {prim: "primary", **dict.fromkeys(rep["secondary"], "secondary"),
                **dict.fromkeys(rep["reference"], "reference")}
    keys = [k for k in order if k in m] + [k for k in m if k not in order]
    print_table(["metric", "score", "role"], [[k, m[k], role.get(k, "")] for k in keys], fmt,
                title=f"caption metrics ({result.inputs['n_items']} items, lang {result.inputs['lang']}, "
                      f"recipe {rep.get('recipe', 'scorekit')})")
    t_rows = [[r["metric"], r["value"], r["baseline"], r["target_1"], r["target_2"], r["final"],
               r["reached"] or "-"] for r in rep["targets"] if r["value"] is not None]
    if t_rows:
        models = {r["model"] for r in rep["targets"] if r.get("model") and r["value"] is not None}
        title = "targets (spec §7)" + (f"; BERTScore model {models.pop()}" if models else "")
        print_table(["metric", "value", "baseline", "target 1 (+10%)", "target 2 (+20%)", "final", "reached"],
                    t_rows, fmt, title=title)
    if "meteor_improvement_pct" in rep and fmt in ("table", "markdown"):
        sys.stdout.write(f"METEOR ({prim}) {m[prim]:.4f} vs baseline {rep['baseline_meteor']:.4f}: "
                         f"{change_pct(rep['meteor_improvement_pct'])}\n"
                         f"  number:   {rep['meteor_recipe']}\n  baseline: {rep['baseline_recipe']}\n"
                         + (f"  note:     {rep['note']}\n" if rep.get("note") else ""))
    if spec and fmt in ("table", "markdown"):
        sys.stdout.write("".join(f"spec: {why}\n" for why in result.extra["recipe"]["zero_on_korean"].values()))
    signature_line(result.signature, fmt)
