"""BERTScore and CLIPScore as caption metrics (the metric contract; models load lazily, on first
use, so registering them imports no torch). Both are per-item metrics: the corpus score is the
mean. An empty prediction scores 0 (CLIPScore by rule; BERTScore as bert_score scores it, which
is 0 unless rescaled with a baseline).

:class:`BERTScore` is the one declaration of BERTScore — its parameters, the scorer it loads, how
it scores a batch and what it pins in a signature — for every family: the summary family
registers it too (``summarization.metrics.SummaryBERTScore``, key ``bertscore_f1``, and
Efficiency derived from it)."""

from __future__ import annotations

import os

import numpy as np

from scorekit.errors import MissingDependencyError, ScorekitError
from scorekit.generation.batch import CaptionMetric
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.text.normalize import nfc

_LOADED: dict[tuple, object] = {}   # the BERTScorer last loaded in this process, by its parameters


def load_bertscorer(**kwargs):
    """A :class:`~scorekit.neural.bertscore.BERTScorer` built with ``kwargs``; one
    MissingDependencyError when torch, transformers or the model is missing."""
    try:
        from scorekit.neural.bertscore import BERTScorer
    except ImportError as exc:
        raise MissingDependencyError(
            f"BERTScore needs scorekit.neural.bertscore with torch and transformers ({exc}); "
            "install torch and transformers or run without BERTScore (-m without bertscore/efficiency)"
        ) from exc
    return BERTScorer(**kwargs)


_COLUMNS = {"bertscore_p": "precision", "bertscore_r": "recall", "bertscore_f1": "f1"}


@register
class BERTScore(CaptionMetric):
    """BERTScore P/R/F1: greedy cosine matching of contextual token embeddings, the best
    reference per candidate; default model the shipped all-MiniLM-L6-v2.

    Each key is a per-item mean. Its parameters in the name grammar:
    ``bertscore(model=DIR,num_layers=9,idf=true)``; a family registers a subclass with the keys
    it reports (the summary family: ``bertscore_f1``)."""

    name = "bertscore"
    keys = ("bertscore_p", "bertscore_r", "bertscore_f1")
    kind = "score"
    needs_model = True
    transient = ("_scorer",)   # a worker loads its own model, from the same parameters
    params = CaptionMetric.own_tokens + (   # the model tokenises: the batch tokenizer changes no number
        Param("model", str, None, "local model directory (pinned by its name and layer)", signature=False),
        Param("num_layers", int, None, "layer (default: bert_score's per-model layer)", low=1),
        Param("idf", bool, False, "idf-weight the tokens (idf from the batch's references)"),
        Param("rescale_with_baseline", bool, False, "rescale with baseline_path's (P, R, F) of the layer"),
        Param("baseline_path", str, None, "baseline CSV (LAYER,P,R,F; bert_score's rescale_baseline files) that "
              "rescale_with_baseline needs (pinned by its file name)",
              signature=False),
        Param("batch_size", int, 64, "sentences per encoder batch", low=1, signature=False),
        Param("device", str, None, "torch device (default: cuda when available, else cpu)", batch=True,
              signature=False))
    key_info = {"bertscore_p": {"doc": "BERTScore precision: mean greedy-matched cosine of candidate tokens."},
                "bertscore_r": {"doc": "BERTScore recall: mean greedy-matched cosine of reference tokens."},
                "bertscore_f1": {"doc": "BERTScore F1: harmonic mean of BERTScore precision and recall."}}

    def __init__(self, **params):
        super().__init__(**params)
        self.shard_align = int(self.values["batch_size"])   # shards cut on whole encoder batches
        self._long: set[str] = set()   # texts cut to the model window in this run (see score())
        self._idf_sentences = None   # idf=true: every reference of the whole batch (see whole())

    def use(self, scorer) -> "BERTScore":
        """Score with an already loaded BERTScorer (a worker elsewhere loads its own from the
        parameters)."""
        self._scorer = scorer
        return self

    def adopt(self, scorer) -> "BERTScore":
        """Score with a BERTScorer loaded by the caller, taking the parameters that rebuild it in
        another worker (model directory, layer, its ``allow_english_model``)."""
        model = getattr(scorer, "model_path", None)
        if getattr(scorer, "num_layers", None) is not None:
            self.values["num_layers"] = scorer.num_layers
        if isinstance(model, (str, os.PathLike)):
            self.values["model"] = str(model)
        self.allow_english_model = self.allow_english_model or bool(getattr(scorer, "allow_english_model", False))
        return self.use(scorer)

    def scorer(self):
        """The BERTScorer of these parameters, loaded once per process (metrics with the same
        parameters — BERTScore and Efficiency, a caption and a summary run — share it)."""
        if getattr(self, "_scorer", None) is None:
            v = self.values
            key = tuple((k, repr(x)) for k, x in v.items() if k not in ("lang", "tokenizer")) + \
                (self.allow_english_model,)
            if key not in _LOADED:
                _LOADED.clear()     # one model held at a time
                _LOADED[key] = load_bertscorer(
                    model=v["model"], num_layers=v["num_layers"], idf=bool(v["idf"]),
                    rescale_with_baseline=bool(v["rescale_with_baseline"]), baseline_path=v["baseline_path"],
                    batch_size=v["batch_size"], device=v["device"], allow_english_model=self.allow_english_model)
            self._scorer = _LOADED[key]
        return self._scorer

    def whole(self, batch) -> None:
        """idf=true: the idf comes from every reference of the whole batch, so a shard scored on
        a worker weighs tokens as one process does."""
        if self.values["idf"]:
            self._idf_sentences = [r for refs in self.batch(batch).references for r in refs]

    def output(self, batch):
        """The scorer's P/R/F1 on ``batch`` (a :class:`~scorekit.neural.bertscore.BERTScoreOutput`),
        computed once per batch and scorer: metrics derived from it (Efficiency) share it."""
        b = self.batch(batch)
        key = ("bertscore", self.scorer().pin())   # what pins its numbers (an id() is reused once freed)
        if key not in b._models:
            b._models[key] = self.scorer().score(b.predictions, b.references, idf_sentences=self._idf_sentences)
        return b._models[key]

    def with_long(self, batch, columns: dict) -> Stats:
        """``columns`` plus ``long``: per item, its texts (prediction, references) that the scorer
        cut to the model window. The column merges with the shards, so :meth:`score` counts the
        distinct long texts of the whole run on every executor, as one process does."""
        b, long = self.batch(batch), set(self.output(batch).long_texts)
        columns["long"] = [tuple(t for t in dict.fromkeys(map(nfc, (p, *([r] if isinstance(r, str) else r))))
                                 if t in long) if long else ()
                           for p, r in zip(b.predictions, b.references)]
        return Stats(columns)

    def item_stats(self, batch) -> Stats:
        out = self.output(batch)
        return self.with_long(batch, {k: np.asarray(getattr(out, _COLUMNS[k]), dtype=np.float64)
                                      for k in self.keys})

    def score(self, stats: Stats) -> dict[str, float]:
        """The mean of each key; also counts the long texts of ``stats`` into the pin (merged
        statistics in the driver, whatever executor computed them)."""
        self._long.update(t for texts in stats.columns.get("long", ()) for t in texts)
        return super().score(stats)

    def pins(self) -> dict:
        return {"model": self.scorer().pin(len(self._long))}


@register
class CLIPScore(CaptionMetric):
    """CLIPScore: 2.5 x max(cos(image, caption), 0) with a local CLIP model, per image or video
    (mean over frames); RefCLIPScore: harmonic mean with the max caption-reference cosine."""

    name = "clipscore"
    keys = ("clipscore", "refclipscore")
    kind = "score"
    needs_model = True
    transient = ("_scorer",)
    params = CaptionMetric.own_tokens + (Param("model", str, None, "local CLIP model directory (pinned by its "
                                           "name)", signature=False),)
    key_info = {"refclipscore": {"doc": "RefCLIPScore: harmonic mean of CLIPScore and the max "
                                        "caption-reference CLIP cosine."}}

    def __init__(self, **params):
        super().__init__(**params)
        self._long: tuple[set[str], set[str]] = (set(), set())   # truncated candidates, references

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
        score = self._scorer.score_videos if b.media_kind == "videos" else self._scorer.score
        res = score(b.media, b.predictions, b.references)
        from scorekit.signature import parse_signature

        fields = {k: v for k, v in parse_signature(res.signature).items()
                  if k not in ("task", "version", "truncated")}
        cols = {"clipscore": b.zero_empty(res.clip_score)}
        if res.ref_clip_score is not None:
            cols["refclipscore"] = b.zero_empty(res.ref_clip_score)
        # per item, its texts cut to the model window (candidate; references): merged with the
        # shards, score() counts them as one process does; the rest of the pin is the same on each
        long_c, long_r = map(set, res.long_texts)
        prefix = self._scorer.prefix or ""
        cols["long"] = [(tuple({nfc(prefix + p)} & long_c), tuple({nfc(r) for r in refs} & long_r))
                        for p, refs in zip(b.predictions, b.references)]
        pin = "/".join([fields.pop("model", "")] + [f"{k}={v}" for k, v in fields.items()])
        return Stats(cols, {"pin": pin})

    def score(self, stats: Stats) -> dict[str, float]:
        """The mean of each key; also takes the merged statistics' pin and long texts (see
        :meth:`pins`)."""
        if "pin" in stats.meta:
            self._pin = stats.meta["pin"]
            for kind, texts in zip(self._long, zip(*stats.columns["long"])):
                kind.update(t for ts in texts for t in ts)
        return super().score(stats)

    def pins(self) -> dict:
        """The scorer's pin, with ``/truncated=<n>``: the distinct candidates plus the distinct
        references cut to the model window over the run, as CLIPScorer counts them."""
        n = sum(map(len, self._long))
        return {"model": getattr(self, "_pin", "none") + (f"/truncated={n}" if n else "")}

__all__ = ["BERTScore", "CLIPScore", "load_bertscorer"]
