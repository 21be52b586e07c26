"""CLIPScore and RefCLIPScore (Hessel et al., 2021) — caption-metrics.md §5.3.

With E_I, E_c, E_r the L2-normalised CLIP embeddings of image v, candidate caption c and
references R::

    CLIP-S(c, v)       = w * max(cos(E_c, E_I), 0)                      (w = 2.5)
    RefCLIP-S(c, R, v) = H-mean(CLIP-S(c, v), max(max_{r in R} cos(E_c, E_r), 0))

(harmonic mean 2ab / (a + b), 0 when both are 0). A video is k uniformly sampled frames
(scorekit.neural.video) and scores the mean of the per-frame CLIP-S; its RefCLIP-S is the
harmonic mean of that mean and the reference term. The corpus score is the mean over items.

Spec quirk: caption-metrics.md §5.3 multiplies the *logits* (``logits_per_image``, i.e.
100 * cos with CLIP's learned temperature) by 2.5 and clips to [0, 100] — that is not CLIPScore
(it is 250 * cos for openai/clip-vit-base-patch32). We implement Hessel et al.'s definition.
torchmetrics' CLIPScore is 100 * max(cos, 0) (w = 100); ours divided by 2.5 times 100 equals it
(tests/neural/test_clipscore.py).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scorekit.errors import InputError, ScorekitError
from scorekit.neural import _hf
from scorekit.progress import track
from scorekit.neural.video import frames_of
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.text.normalize import nfc


@dataclass
class ClipScoreOutput:
    clip_score: np.ndarray
    ref_clip_score: np.ndarray | None
    signature: str
    long_texts: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())   # truncated candidates, references

    def mean(self) -> dict[str, float]:
        scores = {"clip_score": self.clip_score, "ref_clip_score": self.ref_clip_score}
        return {k: float(np.mean(v)) if len(v) else math.nan
                for k, v in scores.items() if v is not None}


def load_image(image):
    """An RGB PIL image from a PIL image or an image file (unreadable file -> InputError naming it)."""
    from PIL import Image, UnidentifiedImageError

    if isinstance(image, Image.Image):
        return image.convert("RGB")
    if isinstance(image, (str, os.PathLike)):
        path = Path(image)
        if not path.is_file():
            raise InputError("image file not found", path)
        try:
            with Image.open(path) as im:
                return im.convert("RGB")
        except (UnidentifiedImageError, OSError, ValueError) as exc:
            raise InputError(f"cannot read image: {exc}".splitlines()[0], path) from exc
    raise InputError(f"expected an image file path or a PIL image, got {type(image).__name__}")


def _features(out):
    """transformers 4 returns the projected features; transformers 5 a ModelOutput holding them."""
    return out if hasattr(out, "norm") else out.pooler_output


class CLIPScorer:
    """CLIPScore / RefCLIPScore with a CLIP model from a local directory or the local HF cache."""

    _models: dict[tuple, tuple] = {}
    _lock = threading.Lock()

    def __init__(self, model: str | os.PathLike, *, device: str | None = None, batch_size: int = 32,
                 w: float = 2.5, prefix: str = "", precision: str | None = None):
        torch = _hf.require_torch()
        if batch_size < 1:
            raise ScorekitError(f"batch size must be at least 1, got {batch_size}")
        model_dir = _hf.resolve_model_dir(model)
        self.device = _hf.pick_device(device)
        self.precision, dtype = _hf.pick_dtype(precision)
        key = (str(model_dir), self.device, self.precision)
        with self._lock:
            if key not in self._models:
                import transformers

                torch.manual_seed(_hf.SEED)
                try:
                    net = transformers.CLIPModel.from_pretrained(model_dir, local_files_only=True)
                    proc = transformers.CLIPProcessor.from_pretrained(model_dir, local_files_only=True)
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    raise InputError(f"cannot load a CLIP model from this directory: {exc}".splitlines()[0],
                                     model_dir) from exc
                net.eval().to(device=self.device, dtype=dtype)
                self._models[key] = (net, proc)
            self.model, self.processor = self._models[key]
        self.dtype = dtype
        self.name = _hf.model_display_name(model_dir, model)
        self.pin = f"{self.name}@{_hf.content_hash(model_dir)}"   # name and content hash, for signatures
        self.batch_size = int(batch_size)
        self.w = float(w)
        self.prefix = prefix
        self.max_length = int(self.model.config.text_config.max_position_embeddings)

    def signature(self, *, refs: bool, frames: int | None = None, truncated: int = 0) -> str:
        """The one builder of what pins a CLIPScore number."""
        params: dict[str, object] = {"model": self.pin, "w": self.w}
        if self.prefix:
            params["prefix"] = self.prefix
        params["refs"] = refs
        if frames is not None:
            params["frames"] = frames
        params.update({"trunc": self.max_length, "dtype": self.precision})
        if truncated:
            params["truncated"] = truncated
        return make_signature("clipscore", params)

    def embed_images(self, images: Sequence) -> np.ndarray:
        """L2-normalised image embeddings (n, d) as float64."""
        torch = _hf.require_torch()
        rows = []
        with torch.inference_mode():
            for start in track(range(0, len(images), self.batch_size), "CLIPScore images"):
                batch = [load_image(im) for im in images[start : start + self.batch_size]]
                pixels = self.processor(images=batch, return_tensors="pt")["pixel_values"]
                feats = _features(self.model.get_image_features(pixel_values=pixels.to(self.device, self.dtype)))
                rows.append(feats.float().cpu())
        return _normalise(torch.cat(rows) if rows else torch.zeros(0, self.model.config.projection_dim))

    def embed_texts(self, texts: Sequence[str]) -> tuple[np.ndarray, int]:
        """L2-normalised text embeddings (n, d) as float64 and the (distinct, NFC) texts that were
        truncated to the model window."""
        torch = _hf.require_torch()
        texts = [nfc(str(t)) for t in texts]
        unique = list(dict.fromkeys(texts))
        tok = self.processor.tokenizer
        lengths = [len(x) for x in tok(unique, add_special_tokens=True)["input_ids"]] if unique else []
        long = tuple(t for t, n in zip(unique, lengths) if n > self.max_length)
        order = sorted(range(len(unique)), key=lambda i: -lengths[i])
        feats = torch.zeros(len(unique), self.model.config.projection_dim)
        with torch.inference_mode():
            for start in track(range(0, len(order), self.batch_size), "CLIPScore texts"):
                idx = order[start : start + self.batch_size]
                enc = tok([unique[i] for i in idx], padding=True, truncation=True,
                          max_length=self.max_length, return_tensors="pt")
                out = self.model.get_text_features(input_ids=enc["input_ids"].to(self.device),
                                                   attention_mask=enc["attention_mask"].to(self.device))
                feats[idx] = _features(out).float().cpu()
        table = _normalise(feats)
        where = {t: i for i, t in enumerate(unique)}
        return table[[where[t] for t in texts]] if texts else table, long

    def _finish(self, clip, cand_emb, references, *, frames, long) -> ClipScoreOutput:
        ref_clip, long_refs = None, ()
        if references is not None:
            if len(references) != len(clip):
                raise ScorekitError(f"{len(clip)} candidates but {len(references)} reference sets")
            groups = [[r] if isinstance(r, str) else list(r) for r in references]
            for i, g in enumerate(groups):
                if not g:
                    raise ScorekitError(f"candidate {i} has no reference")
            ref_emb, long_refs = self.embed_texts([r for g in groups for r in g])
            ends = np.cumsum([len(g) for g in groups])
            best = [float((ref_emb[e - len(g) : e] @ cand_emb[i]).max())
                    for i, (g, e) in enumerate(zip(groups, ends))]
            text_sim = np.maximum(np.array(best, dtype=np.float64), 0.0)
            denom = clip + text_sim
            with np.errstate(invalid="ignore", divide="ignore"):
                ref_clip = np.where(denom > 0, 2 * clip * text_sim / denom, 0.0)
        return ClipScoreOutput(clip, ref_clip, self.signature(refs=references is not None, frames=frames,
                                                               truncated=len(long) + len(long_refs)),
                               (long, long_refs))

    def _candidates(self, candidates: Sequence[str], n: int, what: str) -> list[str]:
        if isinstance(candidates, str):
            raise ScorekitError("candidates must be a list of captions, not one string")
        candidates = list(candidates)
        if len(candidates) != n:
            raise ScorekitError(f"{n} {what} but {len(candidates)} candidates: they must pair up one to one")
        return [self.prefix + c if self.prefix else c for c in candidates]

    def score(self, images: Sequence, candidates: Sequence[str], references=None) -> ClipScoreOutput:
        """CLIP-S (and RefCLIP-S with ``references``) of each caption against its image."""
        images = list(images)
        cands = self._candidates(candidates, len(images), "images")
        img = self.embed_images(images)
        txt, long = self.embed_texts(cands)
        clip = self.w * np.maximum(np.einsum("nd,nd->n", img, txt), 0.0)
        return self._finish(clip, txt, references, frames=None, long=long)

    def score_videos(self, videos: Sequence, candidates: Sequence[str], references=None,
                     num_frames: int = 8) -> ClipScoreOutput:
        """Per video: the mean over its frames of CLIP-S; ``videos`` are files (sampled to
        ``num_frames`` uniform frames) or lists of frames (PIL images or image files)."""
        if num_frames < 1:
            raise ScorekitError(f"num_frames must be at least 1, got {num_frames}")
        videos = list(videos)
        cands = self._candidates(candidates, len(videos), "videos")
        frames = [frames_of(v, num_frames) for v in videos]
        img = self.embed_images([f for fs in frames for f in fs])
        txt, long = self.embed_texts(cands)
        ends = np.cumsum([len(fs) for fs in frames])
        clip = np.array([(self.w * np.maximum(img[e - len(fs) : e] @ txt[i], 0.0)).mean()
                         for i, (fs, e) in enumerate(zip(frames, ends))], dtype=np.float64)
        return self._finish(clip, txt, references, frames=num_frames, long=long)


def _normalise(t) -> np.ndarray:
    arr = t.double().numpy()
    return arr / np.maximum(np.linalg.norm(arr, axis=1, keepdims=True), 1e-12)


def clipscore(images: Sequence | None, candidates: Sequence[str], references=None, *, model: str | os.PathLike,
              videos: Sequence | None = None, num_frames: int = 8, ids: Sequence[str] | None = None,
              name: str | None = None, **kw) -> Result:
    """CLIPScore as a :class:`~scorekit.result.Result` (metrics ``clip_score`` and, with references,
    ``ref_clip_score``). Give ``images`` or ``videos``; ``kw`` goes to :class:`CLIPScorer`."""
    if (images is None) == (videos is None):
        raise ScorekitError("give either images or videos")
    if len(candidates) == 0:
        raise ScorekitError("nothing to score: the list of candidates is empty")
    scorer = CLIPScorer(model, **kw)
    out = (scorer.score(images, candidates, references) if images is not None
           else scorer.score_videos(videos, candidates, references, num_frames=num_frames))
    ids = [str(i) for i in (ids if ids is not None else range(len(out.clip_score)))]
    if len(ids) != len(out.clip_score):
        raise ScorekitError(f"{len(ids)} ids for {len(out.clip_score)} candidates")
    refs = out.ref_clip_score
    per_item = [{"id": i, "clip_score": float(out.clip_score[k]),
                 **({"ref_clip_score": float(refs[k])} if refs is not None else {})}
                for k, i in enumerate(ids)]
    return Result(task="clipscore", metrics=out.mean(), signature=out.signature, per_item=per_item,
                  inputs={"n_items": len(ids)}, name=name)


__all__ = ["CLIPScorer", "ClipScoreOutput", "clipscore", "load_image"]

