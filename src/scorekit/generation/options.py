"""Typed options of the caption driver (:func:`scorekit.generation.evaluate`): a misspelt key is
an error naming it, with "did you mean" — never silently the default."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from scorekit.errors import ScorekitError, UnknownNameError


@dataclass(frozen=True)
class CaptionOptions:
    bleu_mode: str = "coco"                 # coco | sentence | sacrebleu
    tokenizer: str | None = None            # coco | 13a | kiwi | whitespace (default per language)
    cider_df: str | Path | None = None      # document-frequency file for CIDEr
    cider_sigma: float = 6.0
    alpha: float = 0.9                      # METEOR
    beta: float = 3.0
    gamma: float = 0.5
    lexicon: Any = None                     # Korean METEOR synonym lexicon file(s)
    meteor15_resources: str | Path | None = None   # Meteor 1.5 distribution (default: pycocoevalcap's)
    bert_model: str | None = None
    num_layers: int | None = None           # BERTScore layer (default: bert_score's per-model layer)
    allow_english_model: bool = False       # BERTScore: allow a model that cannot read Hangul on Korean
    delta: float | None = None              # Korean METEOR: content-unit weight (default 0.9)
    ko_units: str | None = None             # Korean ROUGE/BLEU units: content (default) | surface
    clip_model: str | None = None
    media: list | None = None               # CLIPScore: one image/video path per item
    media_kind: str = "images"              # images | videos

    @classmethod
    def from_mapping(cls, options: "Mapping[str, Any] | CaptionOptions | None") -> "CaptionOptions":
        if isinstance(options, CaptionOptions):
            return options
        options = dict(options or {})
        known = [f.name for f in fields(cls)]
        for key in options:
            if key not in known:
                raise UnknownNameError("caption option", key, known)
        opts = cls(**{k: v for k, v in options.items() if v is not None})
        for name, typ in (("cider_sigma", float), ("alpha", float), ("beta", float), ("gamma", float)):
            value = getattr(opts, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ScorekitError(f"caption option {name!r} must be a number, got {value!r}")
        if opts.media_kind not in ("images", "videos"):
            raise UnknownNameError("media kind", opts.media_kind, ["images", "videos"])
        return opts

    def metric_params(self, name: str) -> dict[str, Any]:
        """The parameters of one metric that these options set."""
        table = {"bleu": {"mode": self.bleu_mode, "ko_units": self.ko_units},
                 "cider": {"sigma": self.cider_sigma, "df": self.cider_df},
                 "cider_d": {"sigma": self.cider_sigma, "df": self.cider_df},
                 "cider_plain": {"df": self.cider_df},
                 "meteor": {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma, "lexicon": self.lexicon,
                            "delta": self.delta},
                 "meteor_nltk": {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma},
                 "rouge_l": {"ko_units": self.ko_units},
                 "meteor15": {"resources": None if self.meteor15_resources is None else str(self.meteor15_resources)},
                 "bertscore": {"model": self.bert_model, "num_layers": self.num_layers,
                               "allow_english_model": self.allow_english_model},
                 "clipscore": {"model": self.clip_model}}
        return table.get(name, {})
