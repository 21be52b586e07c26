"""The caption spec's §6.1 report and §7 target table, against the yardstick of the language.

The spec's AI-Hub METEOR baselines (§2.1) are Korean **0.3052** (made by the spec's own code:
``--recipe spec`` reproduces it) and English **0.33** (read as Meteor 1.5, ``meteor15``); §7's
targets 1 and 2 are +10% and +20% over the baseline, the final target 0.40. The report names the
recipe of the number and of the baseline, and whether they compare (docs/caption.md "The
yardstick"). :func:`evaluate_files` is ``scorekit caption`` as one call: files in, a result with
this report out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scorekit.metrics.registry import first_written
from scorekit.result import Result


@dataclass(frozen=True)
class Yardstick:
    """The headline METEOR of a language and the baseline it is read against."""

    lang: str
    key: str               # the result key of the headline METEOR
    baseline: float
    baseline_recipe: str


YARDSTICKS: dict[str, Yardstick] = {
    "ko": Yardstick("ko", "meteor", 0.3052,
                    "AI-Hub Korean baseline (spec §2.1, §7), made with the spec's code: Okt morphs, nltk "
                    "METEOR (alpha 0.9, beta 3, gamma 0.5), one reference per item (§2.4, §6.1)"),
    "en": Yardstick("en", "meteor15", 0.33,
                    "AI-Hub English baseline (spec §2.1); the spec does not say how it was computed — "
                    "read here as Meteor 1.5, the METEOR COCO captioning reports"),
}

# How each METEOR key is computed (the recipe the report names beside the number).
METEOR_RECIPES: dict[tuple[str, str], str] = {
    ("scorekit", "meteor"): "scorekit Korean METEOR: Kiwi units, synonym lexicon, content-unit weight delta "
                            "(docs/caption.md, issue #15)",
    ("scorekit", "meteor15"): "Meteor 1.5 (rank task, -norm) as pycocoevalcap's meteor-1.5.jar reports it",
    ("scorekit", "meteor_nltk"): "nltk's METEOR (alpha 0.9, beta 3, gamma 0.5) on the caption tokens",
    ("spec", "meteor"): "the spec's code (§2.4): Okt morphs (konlpy), nltk METEOR (alpha 0.9, beta 3, "
                        "gamma 0.5), the first reference of each item, mean over items",
}

TARGETS: dict[str, dict[str, float | None]] = {
    "meteor": {"baseline": None, "target_1": None, "target_2": None, "final": 0.40},
    "cider": {"baseline": None, "target_1": 0.80, "target_2": 1.00, "final": 1.20},
    "bertscore_f1": {"baseline": None, "target_1": 0.75, "target_2": 0.80, "final": 0.85},
}


def report(metrics: dict[str, float], *, lang: str = "ko", recipe: str = "scorekit",
           baseline_meteor: float | None = None) -> dict[str, Any]:
    """The spec's §6.1 report: the language's headline METEOR against its baseline (``None``: the
    language's, :data:`YARDSTICKS`), with both recipes named, and the §7 targets reached.

    Each declared key (``meteor``, ``bertscore_f1``) is read from the result key written for it
    (``meteor(lexicon=x.tsv)``, ``bertscore_f1(model=DIR)``; the first written when several
    resolve to one: :func:`~scorekit.metrics.registry.first_written`), and the report names that key."""
    ys = YARDSTICKS.get(lang, YARDSTICKS["ko"])
    declared = ys.key if recipe == "scorekit" else "meteor"
    written = first_written(metrics)
    key = written.get(declared, declared)
    custom = baseline_meteor is not None
    base = float(baseline_meteor) if custom else ys.baseline
    meteor_recipe = METEOR_RECIPES.get((recipe, declared), declared)
    if key != declared:
        meteor_recipe += f"; parameters as written: {key}"
    rep: dict[str, Any] = {"primary": key, "secondary": [written.get(k, k) for k in ("cider", "bertscore_f1")],
                           "reference": [written.get(k, k) for k in ("bleu_4", "rouge_l")], "lang": lang,
                           "recipe": recipe,
                           "baseline_meteor": base, "meteor_recipe": meteor_recipe,
                           "baseline_recipe": "given with --baseline-meteor" if custom else ys.baseline_recipe}
    # The Korean baseline was made by the spec's recipe: only that recipe reads it like for like.
    rep["comparable"] = comparable = custom or lang != "ko" or recipe == "spec"
    if not comparable:
        rep["note"] = ("the baseline was made with the spec's recipe (Okt + nltk METEOR), the number with "
                       "scorekit's Korean METEOR: run `scorekit caption --recipe spec` to compare like for like")
    m = metrics.get(key)
    if m is not None and base:
        rep["meteor_improvement_pct"] = (m - base) / base * 100.0
    rows = []
    for name, t in TARGETS.items():
        if name == "meteor":  # §7: targets 1 and 2 are +10% and +20% over the baseline
            t = {**t, "baseline": base, "target_1": base * 1.1, "target_2": base * 1.2}
        row_key = key if name == "meteor" else written.get(name, name)
        value = metrics.get(row_key)
        reached = [n for n in ("target_1", "target_2", "final") if value is not None and value >= t[n]]
        rows.append({"metric": row_key, "value": value, **t,
                     "reached": reached[-1] if reached else None})
    rep["targets"] = rows
    return rep


def evaluate_files(predictions: Any, references: Any, *, lang: str, metrics: Sequence[Any] | None = None,
                   recipe: str = "scorekit", scale: int = 1, tokenizer: str | None = None, images: Any = None,
                   videos: Any = None, strict: bool = False, baseline_meteor: float | None = None,
                   engine: Any = None, warn: Any = None, allow_english_model: bool = False) -> Result:
    """``scorekit caption`` as one call: read the prediction and reference files (JSON, JSONL,
    CSV, COCO), score them (:func:`~scorekit.generation.driver.evaluate`, or the caption spec's own code with ``recipe="spec"``),
    put sacrebleu's metrics on ``scale`` (1 or 100) and add the spec's report (the headline METEOR
    against its baseline, the §7 targets) as ``extra["report"]``. ``images``/``videos``: a folder
    of ``<id>.jpg|png|...`` / ``<id>.mp4|...`` for CLIPScore. ``engine``: an unstarted RayEngine is
    started once the inputs are read and stopped at the end. ``allow_english_model``: the run's
    ``--allow-english-model`` (:func:`~scorekit.generation.driver.evaluate`). ``warn`` is called with each warning
    (ids on one side only, metrics skipped) as it arises; they are in ``extra`` too."""
    import contextlib
    from pathlib import Path

    from scorekit.generation.driver import evaluate
    from scorekit.generation.scale import rescale
    from scorekit.io.captions import media_paths, read_caption_set
    from scorekit.signature import Signature

    data = read_caption_set(predictions, references, strict=strict)
    kind = "images" if images else "videos"
    media = media_paths(images or videos, data.ids, kind) if images or videos else None
    warn = warn or (lambda _: None)
    for w in data.warnings:
        warn(w)
    name = Path(predictions).stem
    if recipe == "spec":
        from scorekit.generation.spec_recipe import evaluate_spec

        result = evaluate_spec(data.predictions, data.references, ids=data.ids, name=name)
    else:
        with engine if hasattr(engine, "__enter__") else contextlib.nullcontext():
            result = evaluate(data.predictions, data.references, lang=lang, metrics=metrics, tokenizer=tokenizer,
                              media=media, media_kind=kind, ids=data.ids, name=name, engine=engine,
                              allow_english_model=allow_english_model)
    rescale(result, int(scale))
    skipped = result.extra.get("skipped", {})
    for key, why in skipped.items():
        warn(f"skipped {key}: {why}")
    rep = report(result.metrics, lang=lang, recipe=recipe, baseline_meteor=baseline_meteor)
    result.inputs = {"predictions": str(predictions), "references": str(references), "lang": lang,
                     "n_items": len(data.ids), "n_empty_predictions": data.n_empty_predictions,
                     "n_missing_predictions": data.n_missing_predictions,
                     "n_ignored_predictions": data.n_dropped_predictions}
    recipe_info = result.extra.get("recipe")
    result.extra = {"report": rep, "warnings": data.warnings, "skipped": skipped,
                    "primary_metric": rep["primary"]}
    if recipe_info:   # the spec's numbers that are 0 on Korean, and scorekit's values shown beside them
        rep["zero_on_korean"] = dict(recipe_info["zero_on_korean"])
        rep["scorekit_beside"] = dict(recipe_info["scorekit_beside"])
        result.extra["recipe"] = recipe_info
    bert = next((v.removeprefix("model=") for k, v in Signature.parse(result.signature).fields.items()
                 if k.split("(")[0] == "bertscore"), None)
    for row in rep["targets"]:  # the §7 table names the model behind a BERTScore target
        if row["metric"].startswith("bertscore") and bert:
            row["model"] = bert
    return result
