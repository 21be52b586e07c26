"""Caption metrics on Ray: per-shard sufficient statistics through the metric contract, merged
and scored once on the driver — the same ``item_stats`` / ``merge`` / ``score`` calls the
one-process driver makes, so BLEU's n-gram counts and CIDEr's document frequencies are exact.

* n-gram metrics (BLEU, CIDEr, ROUGE, METEOR, chrF): one Ray task per shard of items; each task
  tokenises its shard and returns each metric's per-item statistics.
* neural metrics (BERTScore, CLIPScore): Ray Data ``map_batches`` over an actor pool, one model
  per actor (loaded once, from local files), ``num_gpus=1`` per actor when the cluster has GPUs,
  CPU actors otherwise. Shards are cut where BERTScore's own batches are cut (a multiple of its
  batch size in (candidate, reference) pairs), so bert_score's batch-position padding rule gives
  the same numbers as one process.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scorekit.metrics.base import Metric, Stats
from scorekit.result import Result

NEURAL = ("bertscore", "clipscore")
ITEMS_PER_SHARD = 2_000


def _shard_bounds(references: Sequence[Sequence[str]], n_items_target: int, align_pairs: int = 1) -> list[int]:
    """Item indices where shards start (and the end), each shard about ``n_items_target`` items,
    cut only where the number of (candidate, reference) pairs before it is a multiple of
    ``align_pairs``."""
    n = len(references)
    cum = np.cumsum([len(r) for r in references])
    bounds = [0]
    while bounds[-1] < n:
        target = bounds[-1] + n_items_target
        if target >= n:
            bounds.append(n)
            break
        ok = np.flatnonzero((cum[target - 1:] % align_pairs) == 0)
        cut = target + int(ok[0]) if len(ok) else n
        bounds.append(min(cut, n))
    return bounds


def _stats_task(metrics_blob: bytes, predictions, references, lang, tokenizer) -> list[bytes]:
    from scorekit.generation.batch import CaptionBatch

    metrics = pickle.loads(metrics_blob)
    batch = CaptionBatch(predictions, references, lang, tokenizer)
    return [pickle.dumps(m.item_stats(batch)) for m in metrics]


class _NeuralActor:
    """One per Ray actor: the neural metrics (and so their models) built once."""

    def __init__(self, metrics_blob: bytes, lang: str, tokenizer: str | None):
        self.metrics = pickle.loads(metrics_blob)
        self.lang, self.tokenizer = lang, tokenizer

    def __call__(self, rows: dict[str, Any]) -> dict[str, Any]:
        from scorekit.generation.batch import CaptionBatch

        out = []
        for preds, refs in zip(rows["predictions"], rows["references"]):
            batch = CaptionBatch(list(preds), [list(r) for r in refs], self.lang, self.tokenizer)
            out.append(pickle.dumps([m.item_stats(batch) for m in self.metrics]))
        return {"shard": rows["shard"], "stats": np.array(out, dtype=object)}


def _neural_stats(engine, metrics: list[Metric], shards, lang, tokenizer) -> list[list[Stats]]:
    import ray.data

    ray = engine.ray
    gpus = int(ray.cluster_resources().get("GPU", 0))
    n_actors = max(1, min(len(shards), gpus or engine.n_workers))
    ds = ray.data.from_items([{"shard": i, "predictions": p, "references": r} for i, (p, r) in enumerate(shards)])
    ds = ds.map_batches(_NeuralActor, fn_constructor_args=(pickle.dumps(metrics), lang, tokenizer),
                        batch_size=1, concurrency=n_actors, num_gpus=1 if gpus else 0,
                        num_cpus=0 if gpus else 1, batch_format="numpy")
    rows = sorted(ds.take_all(), key=lambda r: int(r["shard"]))
    return [pickle.loads(r["stats"]) for r in rows]


def evaluate_sharded(engine, predictions: Sequence[str], references: Sequence[Sequence[str] | str], *,
                     lang: str = "en", metrics: Sequence[str] | None = None,
                     options: Mapping[str, Any] | None = None, ids: Sequence[str] | None = None,
                     name: str | None = None, items_per_shard: int = ITEMS_PER_SHARD) -> Result:
    """The Ray twin of :func:`scorekit.generation.evaluate` (same Result, same values)."""
    from scorekit.errors import ScorekitError
    from scorekit.generation.batch import CaptionBatch
    from scorekit.generation.driver import build_metric, caption_signature, default_metrics, resolve
    from scorekit.generation.options import CaptionOptions

    opts = CaptionOptions.from_mapping(options)
    whole = CaptionBatch(predictions, references, lang, opts.tokenizer)   # validates the inputs once
    if opts.media:
        raise ScorekitError("--engine ray does not score CLIPScore media yet; run it with --engine local")
    plan = resolve(list(metrics) if metrics is not None else list(default_metrics(lang)))
    built = [(build_metric(cls, lang, opts), keys) for cls, keys in plan]
    ngram = [m for m, _ in built if m.name not in NEURAL]
    neural = [m for m, _ in built if m.name in NEURAL]

    preds, refs = whole.predictions, whole.references
    stats: dict[str, list[Stats]] = {m.name: [] for m, _ in built}
    if ngram:
        bounds = _shard_bounds(refs, items_per_shard)
        blob = pickle.dumps(ngram)
        task = engine.ray.remote(max_retries=engine.retries)(_stats_task)
        blob_ref = engine.put(blob)
        refs_out = [task.remote(blob_ref, preds[a:b], refs[a:b], lang, opts.tokenizer)
                    for a, b in zip(bounds, bounds[1:])]
        for shard in engine.wait(refs_out, desc="caption shards"):
            for m, s in zip(ngram, shard):
                stats[m.name].append(pickle.loads(s))
    if neural:
        align = 64   # BERTScorer's default batch size: shard on its batch boundaries
        bounds = _shard_bounds(refs, items_per_shard, align)
        shards = [(preds[a:b], refs[a:b]) for a, b in zip(bounds, bounds[1:])]
        for shard in _neural_stats(engine, neural, shards, lang, opts.tokenizer):
            for m, s in zip(neural, shard):
                stats[m.name].append(s)

    out_m: dict[str, float] = {}
    out_p: dict[str, np.ndarray] = {}
    for m, keys in built:
        merged = m.merge(*stats[m.name])
        corpus, per = m.score(merged), m.item_scores(merged)
        for k in keys:
            if k in corpus:
                out_m[k] = corpus[k]
                out_p[k] = per[k]
    used = [m for m, _ in built]
    for m in neural:   # signature fields that depend on the loaded model
        m.scorer() if hasattr(m, "scorer") else None
    sig = caption_signature(lang, opts.tokenizer, list(out_m), used)
    ids = [str(i) for i in ids] if ids is not None else [str(i + 1) for i in range(len(whole))]
    per_item = []
    for i, id_ in enumerate(ids):
        row = {"id": id_, "prediction": preds[i], "references": refs[i]}
        row.update({k: float(v[i]) for k, v in out_p.items()})
        per_item.append(row)
    return Result(task="caption", metrics=out_m, signature=str(sig), per_item=per_item, name=name,
                  inputs={"lang": lang, "n_items": len(whole), "engine": "ray"}, extra={"skipped": {}})
