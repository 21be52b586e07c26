"""The sentence encoders of one sweep: each model folder loaded once, its embeddings shared.

``textrank(encoder=DIR)`` and ``centroid(encoder=DIR)`` in one sweep use one
:class:`SharedEncoder` for ``DIR``: the model is loaded once (:meth:`Encoder.load
<scorekit.neural.encoder.Encoder.load>`, local files only, batched, on the GPU when there is one)
and the sentence embeddings of the last call are remembered, so the second summariser over the same
documents embeds nothing. Pooling suits the folder (:mod:`scorekit.neural.encoder`): the
sentence-transformers pooling where the folder has one, else the attention-masked mean over the
tokens (BERT, ELECTRA, XLNet). When the documents contain Hangul the encoder must be able to read
it (:func:`scorekit.neural.hangul.check_hangul`) unless the user allows an English model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np


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
        out = self.encoder.embed(list(texts))
        self._last = (key, out)
        return out


class EncoderPool:
    """One :class:`SharedEncoder` per model folder for the lifetime of a sweep.

    ``texts``: a sample of the inputs, for the Hangul check; ``allow_english_model`` lets a model
    without Hangul pieces embed Korean anyway. ``model=None`` is the shipped all-MiniLM-L6-v2
    (the default TextRank, kept as it always was: not checked for Hangul).
    """

    def __init__(self, *, texts: Sequence[str] = (), allow_english_model: bool = False,
                 device: str | None = None, batch_size: int = 64):
        self.texts = list(texts)
        self.allow_english_model = allow_english_model
        self.device = device
        self.batch_size = batch_size
        self._shared: dict[str, SharedEncoder] = {}

    def get(self, model: str | os.PathLike | None) -> SharedEncoder:
        from scorekit.neural import _hf
        from scorekit.neural.encoder import Encoder, default_model_path

        _hf.require_torch()
        folder = str(default_model_path() if model is None else _hf.resolve_model_dir(model))
        shared = self._shared.get(folder)
        if shared is None:
            enc = Encoder.load(folder if model is not None else None, device=self.device,
                               batch_size=self.batch_size)
            if model is not None:
                from scorekit.neural.hangul import check_hangul

                check_hangul(enc.tokenizer, self.texts, enc.name, allow=self.allow_english_model,
                             what="summariser encoder",
                             option=f"encoder=DIR instead of {model}")
            shared = self._shared[folder] = SharedEncoder(enc)
        return shared

    def __len__(self) -> int:
        return len(self._shared)
