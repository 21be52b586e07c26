"""The caption driver: resolve metric names through the one registry, compute each metric on one
shared :class:`~scorekit.generation.batch.CaptionBatch`, and return a
:class:`~scorekit.result.Result` with per-caption scores and the signature.

A metric whose dependency is missing (torch, a model) is skipped, with its reason in
``result.extra["skipped"]``, when it came from the defaults, and raises when it was asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import MissingDependencyError, UnknownNameError
from scorekit.generation.batch import LANGS, CaptionBatch, tokenizer_for
from scorekit.generation.options import CaptionOptions
from scorekit.metrics.base import Metric
from scorekit.metrics.registry import REGISTRY
from scorekit.result import Result
from scorekit.signature import Signature

FAMILY = "caption"
# The headline METEOR follows the language (generation/targets.py): Meteor 1.5 for English, as COCO
# reports it; scorekit's Korean METEOR for Korean.
DEFAULT_METRICS_BY_LANG = {"en": ("bleu", "meteor15", "rouge_l", "cider", "bertscore"),
                           "ko": ("bleu", "meteor", "rouge_l", "cider", "bertscore")}


def default_metrics(lang: str) -> tuple[str, ...]:
    """The metrics a caption run scores when none are named: the language's headline METEOR,
    CIDEr-D, BERTScore, BLEU and ROUGE-L."""
    return DEFAULT_METRICS_BY_LANG[lang]


__all__ = ["DEFAULT_METRICS_BY_LANG", "default_metrics", "LANGS", "evaluate", "resolve", "build_metric", "caption_signature",
           "tokenizer_for"]


def resolve(names: Sequence[str]) -> list[tuple[type[Metric], list[str]]]:
    """Metric names or result keys -> [(metric class, wanted keys)] in the order first asked."""
    classes = {cls.name: cls for cls in REGISTRY.classes(FAMILY)}
    key_to = {k: cls for cls in classes.values() for k in cls.result_keys()}
    plan: dict[str, list[str]] = {}
    for name in names:
        if name in classes:
            plan[name] = list(dict.fromkeys(plan.get(name, []) + list(classes[name].result_keys())))
        elif name in key_to:
            owner = key_to[name].name
            plan.setdefault(owner, [])
            if name not in plan[owner]:
                plan[owner].append(name)
        else:
            raise UnknownNameError("caption metric", name, list(classes) + list(key_to))
    return [(classes[n], keys) for n, keys in plan.items()]


def build_metric(cls: type[Metric], lang: str, options: CaptionOptions) -> Metric:
    return cls(lang=lang, tokenizer=options.tokenizer, **options.metric_params(cls.name))


def caption_signature(lang: str, tokenizer: str | None, keys: Sequence[str],
                      metrics: Sequence[Metric]) -> Signature:
    tok = tokenizer or tokenizer_for(lang)
    if tok == "kiwi":  # Kiwi's model changes the tokens, so pin its version
        from scorekit.text.korean import analyser_version

        tok = f"kiwi-{analyser_version()}"
    from scorekit.text.normalize import SIGNATURE as NORM

    sig = Signature("caption", {"lang": lang, "norm": NORM, "tok": tok, "metrics": list(keys)})
    for m in metrics:
        sig.update(m.signature_params())
    return sig


def evaluate(predictions: Sequence[str], references: Sequence[Sequence[str] | str], *, lang: str = "en",
             metrics: Sequence[str] | None = None, options: Mapping[str, Any] | CaptionOptions | None = None,
             ids: Sequence[str] | None = None, name: str | None = None) -> Result:
    """Score captions with the requested metrics (default :func:`default_metrics` of ``lang``): a
    :class:`Result` with the corpus scores, one row per caption and the signature.

    >>> res = evaluate(["a man rides a wave"], [["a man riding a wave", "a surfer"]], metrics=["bleu_1"])
    """
    if lang not in LANGS:
        raise UnknownNameError("language", lang, LANGS)
    opts = CaptionOptions.from_mapping(options)
    batch = CaptionBatch(predictions, references, lang, opts.tokenizer, opts.media, opts.media_kind)
    explicit = metrics is not None
    out_m: dict[str, float] = {}
    out_p: dict[str, Any] = {}
    used: list[Metric] = []
    skipped: dict[str, str] = {}
    for cls, keys in resolve(list(metrics) if explicit else list(default_metrics(lang))):
        metric = build_metric(cls, lang, opts)
        try:
            stats = metric.item_stats(batch)
        except MissingDependencyError as exc:
            if explicit:
                raise
            skipped[cls.name] = str(exc)
            continue
        corpus, per = metric.score(stats), metric.item_scores(stats)
        for k in keys:
            if k in corpus:
                out_m[k] = corpus[k]
                out_p[k] = per[k]
        used.append(metric)
    sig = caption_signature(lang, opts.tokenizer, list(out_m), used)
    ids = [str(i) for i in ids] if ids is not None else [str(i + 1) for i in range(len(batch))]
    per_item = []
    for i, id_ in enumerate(ids):
        row = {"id": id_, "prediction": batch.predictions[i], "references": batch.references[i]}
        row.update({k: float(v[i]) for k, v in out_p.items()})
        per_item.append(row)
    return Result(task="caption", metrics=out_m, signature=str(sig), per_item=per_item, name=name,
                  inputs={"lang": lang, "n_items": len(batch)}, extra={"skipped": skipped})


def metric_from_signature(key: str, signature: str) -> Metric | None:
    """Rebuild the caption metric that produced ``key`` from a run's signature (language,
    tokenizer, BLEU mode, CIDEr sigma and document frequencies), or None when it cannot be."""
    from scorekit.signature import parse_signature

    fields = parse_signature(signature or "")
    if fields.get("task") not in ("caption", "summary"):
        return None
    if fields.get("recipe", "scorekit") != "scorekit":   # --recipe spec: not rebuilt from the registry
        return None
    try:
        (cls, _), = resolve([key])
    except UnknownNameError:
        return None
    lang = fields.get("lang", "en")
    tok = fields.get("tok")
    tok = "kiwi" if tok and tok.startswith("kiwi") else (tok if tok in ("coco", "13a", "whitespace") else None)
    params: dict[str, Any] = {"lang": lang if lang in LANGS else "en", "tokenizer": tok}
    if cls.name == "meteor" and params["lang"] != "ko":   # an English `meteor` of scorekit <= 0.1: nltk's
        return None
    if cls.name == "bleu":
        params["mode"] = fields.get("bleu", "coco")
    if cls.name in ("cider", "cider_d", "cider_plain"):
        spec = fields.get(cls.name if cls.name == "cider_plain" else "cider", "")
        for part in spec.split(","):
            if part.startswith("sigma") and cls.name != "cider_plain":
                params["sigma"] = float(part[5:])
        if "df:file:" in spec:
            params["df"] = spec.split("df:file:", 1)[1]
    return cls(**params)


def stats_from_rows(metric: Metric, rows: Sequence[Mapping[str, Any]]):
    """Per-item statistics re-derived from stored per-item rows that keep the prediction and its
    references (as ``scorekit caption`` writes them), or None when the rows lack the text."""
    if not rows or not all(isinstance(r.get("prediction"), str) and r.get("references") for r in rows):
        return None
    preds = [r["prediction"] for r in rows]
    refs = [[x] if isinstance(x := r["references"], str) else list(x) for r in rows]
    return metric.item_stats((preds, refs))
