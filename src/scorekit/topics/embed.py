"""Keyword embeddings for the semantic topic metrics: all-MiniLM-L6-v2 through the shared
:class:`scorekit.neural.encoder.Encoder` (topic-metrics.md §1: 384-dim word embeddings).

Every keyword is embedded once (NFC, as the encoder does); Korean keywords go through the same
model, and a keyword the tokenizer turns into nothing is refused (topics are validated before,
by :func:`scorekit.topics.validate.validate_topics`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scorekit.errors import ScorekitError


class KeywordEmbedder:
    """Embeds keywords with the shared encoder, checking that the tokenizer yields a token.
    ``option``: how the user gives another model, named when the model cannot read Hangul."""

    def __init__(self, model: str | None = None, *, cache_dir=None, batch_size: int = 256,
                 num_layers: int | None = None, allow_english_model: bool = False,
                 option: str = "model=PATH"):
        from scorekit.neural.encoder import Encoder

        self.encoder = Encoder.load(model, cache_dir=cache_dir, batch_size=batch_size, num_layers=num_layers)
        self.allow_english_model = allow_english_model
        self.option = option

    def signature_params(self) -> dict[str, object]:
        return self.encoder.signature_params()

    def embed(self, words: Sequence[str]) -> np.ndarray:
        words = list(words)
        tok = getattr(getattr(self.encoder, "_loaded", None), "tokenizer", None)
        if tok is not None:   # a model that cannot read Hangul is never silently used on Korean
            from scorekit.neural.hangul import check_hangul

            check_hangul(tok, words, self.encoder.name, allow=self.allow_english_model,
                         what="embedding model", option=self.option)
            for w in words:
                if not tok.tokenize(w):
                    raise ScorekitError(f"keyword {w!r} cannot be embedded: the model's tokenizer "
                                        "produces no token for it")
        return self.encoder.embed(words)

    def topic_vectors(self, topics: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """One ``(|W_i|, d)`` matrix per topic; each distinct keyword is embedded once."""
        vocab = list(dict.fromkeys(w for t in topics for w in t))
        emb = self.embed(vocab)
        index = {w: i for i, w in enumerate(vocab)}
        return [emb[[index[w] for w in t]] for t in topics]


__all__ = ["KeywordEmbedder"]
