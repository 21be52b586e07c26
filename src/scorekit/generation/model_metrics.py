"""BERTScore and CLIPScore as caption metrics (the metric contract; models load lazily, on first
use, so registering them imports no torch). Both are per-item metrics: the corpus score is the
mean, and an empty prediction scores 0."""

from __future__ import annotations

from scorekit.errors import MissingDependencyError, ScorekitError
from scorekit.generation.batch import CaptionMetric
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register


@register
class BERTScore(CaptionMetric):
    """BERTScore P/R/F1: greedy cosine matching of contextual token embeddings, the best
    reference per candidate; default model the shipped all-MiniLM-L6-v2.

    Each key is a per-item mean."""

    name = "bertscore"
    keys = ("bertscore_p", "bertscore_r", "bertscore_f1")
    kind = "score"
    needs_model = True
    shard_align = 64      # BERTScorer's batch size: shards cut on its batches pad as one process
    transient = ("_scorer",)   # a worker loads its own model, from the same parameters
    params = CaptionMetric.params + (Param("model", str, None, "local model directory (pinned by its name "
                                           "and layer)", signature=False),
                                     Param("num_layers", int, None, "layer (default: bert_score's per-model layer)",
                                           low=1))
    key_info = {"bertscore_p": {"doc": "BERTScore precision: mean greedy-matched cosine of candidate tokens."},
                "bertscore_r": {"doc": "BERTScore recall: mean greedy-matched cosine of reference tokens."},
                "bertscore_f1": {"doc": "BERTScore F1: harmonic mean of BERTScore precision and recall."}}

    def scorer(self):
        if getattr(self, "_scorer", None) is None:
            try:
                from scorekit.neural.bertscore import BERTScorer
            except ImportError as exc:
                raise MissingDependencyError(f"BERTScore needs torch and transformers ({exc})") from None
            self._scorer = BERTScorer(self.values["model"], num_layers=self.values["num_layers"],
                                      allow_english_model=self.allow_english_model)
            self._truncated = 0
        return self._scorer

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        res = self.scorer().score(b.predictions, b.references)
        self._truncated += res.truncated
        return Stats({"bertscore_p": b.zero_empty(res.precision), "bertscore_r": b.zero_empty(res.recall),
                      "bertscore_f1": b.zero_empty(res.f1)})

    def pins(self) -> dict:
        from scorekit.neural.bertscore import compact_signature

        return {"model": compact_signature(self.scorer().signature_fields(self._truncated))}


@register
class CLIPScore(CaptionMetric):
    """CLIPScore: 2.5 x max(cos(image, caption), 0) with a local CLIP model, per image or video
    (mean over frames); RefCLIPScore: harmonic mean with the max caption-reference cosine."""

    name = "clipscore"
    keys = ("clipscore", "refclipscore")
    kind = "score"
    needs_model = True
    transient = ("_scorer",)
    params = CaptionMetric.params + (Param("model", str, None, "local CLIP model directory (pinned by its "
                                           "name)", signature=False),)
    key_info = {"refclipscore": {"doc": "RefCLIPScore: harmonic mean of CLIPScore and the max "
                                        "caption-reference CLIP cosine."}}

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        if not b.media:
            raise ScorekitError("clipscore needs --images DIR or --videos DIR (one file per id)")
        if not self.values["model"]:
            raise MissingDependencyError('clipscore needs a local CLIP model: -m "clipscore(model=PATH)"')
        try:
            from scorekit.neural.clipscore import CLIPScorer
        except ImportError as exc:
            raise MissingDependencyError(f"CLIPScore is not available ({exc})") from None
        if getattr(self, "_scorer", None) is None:
            self._scorer = CLIPScorer(self.values["model"])
        if b.media_kind == "videos":
            res = self._scorer.score_videos(b.media, b.predictions, b.references)
        else:
            res = self._scorer.score(b.media, b.predictions, b.references)
        from scorekit.signature import parse_signature

        fields = {k: v for k, v in parse_signature(res.signature).items() if k not in ("task", "version")}
        self._signature = "/".join([fields.pop("model", "")] + [f"{k}={v}" for k, v in fields.items()])
        cols = {"clipscore": b.zero_empty(res.clip_score)}
        if res.ref_clip_score is not None:
            cols["refclipscore"] = b.zero_empty(res.ref_clip_score)
        return Stats(cols)

    def pins(self) -> dict:
        return {"model": getattr(self, "_signature", "none")}

__all__ = ["BERTScore", "CLIPScore"]
