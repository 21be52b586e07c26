"""The caption driver: resolve metric names through the one registry, compute each metric on one
shared :class:`~scorekit.generation.batch.CaptionBatch`, and return a
:class:`~scorekit.result.Result` with per-caption scores and the signature.

A metric whose dependency is missing (torch, a model) is skipped, with its reason in
``result.extra["skipped"]``, when it came from the defaults, and raises when it was asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.generation.batch import LANGS, CaptionBatch
from scorekit.metrics.base import Metric
from scorekit.metrics.registry import MetricSpec, get_metric, metric_class_for, scoring_families
from scorekit.result import Result
from scorekit.signature import make_signature, metric_specs, parse_signature

FAMILY = "caption"
# The metrics a caption run scores when none are named: the headline METEOR follows the language
# (generation/targets.py): Meteor 1.5 for English, as COCO reports it; scorekit's Korean METEOR for
# Korean; then CIDEr-D, BERTScore, BLEU and ROUGE-L.
DEFAULT_METRICS_BY_LANG = {"en": ("bleu", "meteor15", "rouge_l", "cider", "bertscore"),
                           "ko": ("bleu", "meteor", "rouge_l", "cider", "bertscore")}
default_metrics = DEFAULT_METRICS_BY_LANG.__getitem__
MEDIA_KINDS = ("images", "videos")


def tokenizer_pin(lang: str, tokenizer: str | None, metrics: Sequence[Metric]) -> dict[str, str]:
    """The batch's tokenizer as a signature field (``tok``: ``coco``, ``13a``, ``kiwi-<version>``),
    what :func:`metric_from_signature` rebuilds a metric with; empty when no metric reads it (its
    ``tokenizer`` Param is pinned; chrF and ROUGE-L tokenise in their own way)."""
    from scorekit.text.tokenizers import default_tokenizer

    if not any(p.signature for m in metrics for p in m.params if p.name == "tokenizer"):
        return {}
    tok = tokenizer or default_tokenizer(lang)
    if tok == "kiwi":  # Kiwi's model changes the tokens, so pin its version
        from scorekit.text.korean import analyser_version

        tok = f"kiwi-{analyser_version()}"
    return {"tok": tok}


def evaluate(predictions: Sequence[str], references: Sequence[Sequence[str] | str], *, lang: str = "en",
             metrics: Sequence[Any] | None = None, tokenizer: str | None = None, media: Sequence | None = None,
             media_kind: str = "images", ids: Sequence[str] | None = None, name: str | None = None,
             engine: Any = None, allow_english_model: bool = False) -> Result:
    """Score captions with the requested metrics (default :func:`default_metrics` of ``lang``): a
    :class:`Result` with the corpus scores, one row per caption and the signature.

    ``metrics``: names in the grammar ``chrf(beta=3)``, ``meteor(alpha=0.85,beta=0.2,gamma=0.6)``,
    ``bleu_4`` (results keyed as written); ``tokenizer``, ``media`` (CLIPScore's images or videos,
    one per item) are set for the whole batch, as is ``allow_english_model`` (BERTScore on Korean
    with a model that cannot read Hangul: allowed, it changes no number); ``engine``: None (this
    process), ``"fork"`` (parts over this machine's cores) or a started
    :class:`~scorekit.engine.ray_engine.RayEngine` — the numbers are the same
    (:mod:`scorekit.engine.driver`).

    >>> res = evaluate(["a man rides a wave"], [["a man riding a wave", "a surfer"]], metrics=["bleu_1"])
    """
    from scorekit.engine.driver import plan, run
    from scorekit.text.normalize import SIGNATURE as NORM

    if media_kind not in MEDIA_KINDS:
        raise UnknownNameError("media kind", media_kind, MEDIA_KINDS)
    batch = CaptionBatch(predictions, references, lang, tokenizer, list(media) if media else None, media_kind)
    planned = plan(FAMILY, list(default_metrics(lang) if metrics is None else metrics),
                   {"lang": lang, "tokenizer": tokenizer}, optional=metrics is None,
                   allow_english_model=allow_english_model)
    if media and getattr(engine, "name", None) == "ray":
        raise ScorekitError("--engine ray does not score CLIPScore media yet; run it with --engine local")
    scored = run(planned, batch, engine)
    sig = make_signature(FAMILY, {"lang": lang, "norm": NORM, **tokenizer_pin(lang, tokenizer, scored.used)},
                         metrics=scored.used)
    ids = [str(i) for i in ids] if ids is not None else [str(i + 1) for i in range(len(batch))]
    per_item = [{"id": id_, "prediction": batch.predictions[i], "references": batch.references[i],
                 **{k: float(v[i]) for k, v in scored.per_item.items()}} for i, id_ in enumerate(ids)]
    inputs = {"lang": lang, "n_items": len(batch)}
    if getattr(engine, "name", "local") != "local" and engine is not None:
        inputs["engine"] = getattr(engine, "name", str(engine))
    return Result(task="caption", metrics=scored.metrics, signature=sig, per_item=per_item, name=name,
                  inputs=inputs, extra={"skipped": scored.skipped})


def metric_from_signature(key: str, signature: str) -> Metric | None:
    """Rebuild the metric that produced the result ``key`` of a caption or summary run from the
    run's signature: the batch's language and tokenizer, and the metric's canonical spec (every
    parameter it ran with) through :func:`scorekit.metrics.get_metric` in the run's family (a
    summary run also scores caption metrics) — or None when the signature names no such metric."""
    fields = parse_signature(signature or "")
    family = fields.get("task")
    if family not in (FAMILY, "summary") or fields.get("recipe", "scorekit") != "scorekit":
        return None   # not a caption or summary run, or --recipe spec: not rebuilt from the registry

    def declared(name: str) -> tuple[str, type[Metric]]:
        """The family and class of ``name`` among the families the run scores."""
        *others, last = scoring_families(family)
        for f in others:
            try:
                return f, metric_class_for(f, name)
            except ScorekitError:
                continue
        return last, metric_class_for(last, name)

    def build(spec: str, **params: Any) -> Metric:
        return get_metric(declared(MetricSpec(spec).name)[0], spec, **params)

    lang = fields.get("lang", "en")
    tok = fields.get("tok")
    common = {"lang": lang if lang in LANGS else "en",
              "tokenizer": "kiwi" if tok and tok.startswith("kiwi") else (tok if tok in ("coco", "13a", "whitespace")
                                                                          else None)}
    # Korean Kiwi tokens: the default (no tokenizer named; BLEU on content units, pinned ko_units=)
    # or --tokenizer kiwi (surface morphs) - the field's pins tell which
    tokenizers = [None, "kiwi"] if common["lang"] == "ko" and common["tokenizer"] == "kiwi" else [common["tokenizer"]]
    try:
        wanted = MetricSpec(key)
        cls = declared(wanted.name)[1]
        asked = build(key, **dict(common, tokenizer=tokenizers[0]))
    except ScorekitError:
        return None
    found: list[tuple[int, Metric]] = []
    for spec in metric_specs(fields):   # canonical specs; their pins in the field of that name
        built = []
        for t in tokenizers:
            try:
                if declared(MetricSpec(spec).name)[1] is cls:
                    built.append(build(spec, **dict(common, tokenizer=t)))
            except ScorekitError:
                continue
        if not built:
            continue
        # the tokenizer whose pins the run wrote (no field, or "-" in a run stored before the one
        # layout: none)
        m = next((b for b in built if b.signature_params().get(b.spec(), "-") == (fields.get(b.spec()) or "-")),
                 built[-1])
        if all(m.values[p] == asked.values[p] for p in wanted.args):
            found.append((len(MetricSpec(spec).args), m))
    # the key's own metric: the spec with what the key names and the fewest other settings;
    # "chrf" next to "chrf(beta=3)" is the plain one
    return min(found, key=lambda x: x[0])[1] if found else None


def stats_from_rows(metric: Metric, rows: Sequence[Mapping[str, Any]]):
    """Per-item statistics re-derived from stored per-item rows that keep the prediction and its
    references (as ``scorekit caption`` and ``scorekit summary`` write them), or None when the
    rows lack the text."""
    if not rows or not all(isinstance(r.get("prediction"), str) and r.get("references") for r in rows):
        return None
    preds = [r["prediction"] for r in rows]
    refs = [[x] if isinstance(x := r["references"], str) else list(x) for r in rows]
    return metric.item_stats((preds, refs))
