"""The sentence encoders of one sweep: each model folder loaded once (:meth:`Encoder.load
<scorekit.neural.encoder.Encoder.load>`, local files only), the embeddings of its last call shared,
so ``textrank(encoder=DIR)`` and ``centroid(encoder=DIR)`` over the same documents embed once. A
folder must read the Hangul of Korean documents (:func:`scorekit.neural.hangul.check_hangul`)
unless the user allows an English model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from scorekit.neural import _hf
from scorekit.neural.encoder import Encoder, default_model_path
from scorekit.neural.hangul import check_hangul


class SharedEncoder:
    """An :class:`~scorekit.neural.encoder.Encoder` plus a one-entry memo of its last call.
    ``signature`` is ``<name>@<content hash>``."""

    def __init__(self, encoder):
        self.encoder = encoder
        self.signature = f"{encoder.name}@{encoder.content_hash}"
        self._last: tuple[tuple[str, ...], np.ndarray] | None = None
        self.calls = 0      # embed calls that reached the model

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        key = tuple(texts)
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        self.calls += 1
        self._last = (key, self.encoder.embed(list(texts)))
        return self._last[1]


class EncoderPool:
    """One :class:`SharedEncoder` per model folder for the lifetime of a sweep; ``texts`` (a sample
    of the inputs) for the Hangul check of every folder but the shipped MiniLM (``model=None``)."""

    def __init__(self, *, texts: Sequence[str] = (), allow_english_model: bool = False):
        self.texts = list(texts)
        self.allow_english_model = allow_english_model
        self._shared: dict[str, SharedEncoder] = {}

    def get(self, model: str | os.PathLike | None) -> SharedEncoder:
        _hf.require_torch()
        folder = str(default_model_path() if model is None else _hf.resolve_model_dir(model))
        shared = self._shared.get(folder)
        if shared is None:
            enc = Encoder.load(folder if model is not None else None)
            if model is not None:
                check_hangul(enc.tokenizer, self.texts, enc.name, allow=self.allow_english_model,
                             what="summariser encoder", option=f"encoder=DIR instead of {model}")
            shared = self._shared[folder] = SharedEncoder(enc)
        return shared
