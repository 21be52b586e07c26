"""The shared, offline sentence encoder (interfaces.md "Encoder backend"; docs/neural.md).

``Encoder.embed(texts)``: one L2-normalised float32 vector per (NFC) text, the last hidden layer
pooled over the non-padding tokens as the folder's sentence-transformers pooling says (else the
mean); for all-MiniLM-L6-v2 ``SentenceTransformer(path).encode(texts, normalize_embeddings=True)``.
With ``cache_dir`` the vectors are kept on disk, keyed by model fingerprint and text hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.neural import _hf
from scorekit.neural._hf import default_model_path  # re-exported
from scorekit.text.normalize import nfc


def _json(path: Path):
    """The JSON in ``path``; None when it is no readable file or no JSON."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _pooling_mode(model_dir: Path) -> str:
    """The sentence-transformers pooling of the folder (the Pooling module ``modules.json`` names,
    else ``1_Pooling``), else attention-masked mean over the tokens: what suits a plain BERT,
    ELECTRA or XLNet encoder."""
    entries = _json(model_dir / "modules.json")
    entries = entries if isinstance(entries, list) else []
    found = [model_dir / str(e.get("path", "")) for e in entries
             if isinstance(e, dict) and str(e.get("type", "")).endswith("models.Pooling")]
    folder = next((p for p in found if (p / "config.json").is_file()), model_dir / "1_Pooling")
    data = _json(folder / "config.json")
    data = data if isinstance(data, dict) else {}
    modes = ("cls_token", "max_tokens", "mean_sqrt_len_tokens", "mean_tokens")
    return next((m for m in modes if data.get(f"pooling_mode_{m}")), "mean_tokens")


content_hash = _hf.content_hash   # re-exported (one hash of a model folder, in _hf)


class _DiskCache:
    """sqlite table text-hash -> pooled vector, one file per model/pooling/window/precision."""

    def __init__(self, directory: Path, key: str):
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"embeddings-{key}.sqlite"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS emb (h TEXT PRIMARY KEY, v BLOB)")
        self._db.commit()

    def get_many(self, hashes: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(hashes), 500):
                chunk = hashes[start : start + 500]
                sql = f"SELECT h, v FROM emb WHERE h IN ({','.join('?' * len(chunk))})"
                rows = self._db.execute(sql, chunk).fetchall()
                out.update((h, np.frombuffer(v, dtype=np.float32)) for h, v in rows)
        return out

    def put_many(self, items: list[tuple[str, np.ndarray]]) -> None:
        with self._lock:
            rows = [(h, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for h, v in items]
            self._db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?)", rows)
            self._db.commit()


class Encoder:
    """A sentence encoder over any local Hugging Face model. Build with :meth:`Encoder.load`."""

    _instances: dict[tuple, "Encoder"] = {}
    _lock = threading.Lock()

    def __init__(self, loaded: _hf.Loaded, *, batch_size: int, max_length: int | None,
                 cache_dir: Path | None, num_layers: int | None = None):
        if batch_size < 1:
            raise ScorekitError(f"batch size must be at least 1, got {batch_size}")
        self._loaded = loaded
        self.batch_size = int(batch_size)
        window = loaded.max_length
        self.max_length = window if max_length is None else min(int(max_length), window)
        if self.max_length < 2:
            raise ScorekitError(f"max_length must be at least 2 tokens, got {max_length}")
        self.pooling = _pooling_mode(loaded.model_dir)
        self.name = loaded.name
        self.device = loaded.device
        self.precision = loaded.precision
        self.model_dir = loaded.model_dir
        self._cache = None
        self.num_layers = num_layers
        if cache_dir is not None:
            key = f"{self.content_hash}-{self.pooling}-{self.max_length}-{self.precision}"
            if num_layers is not None:
                key += f"-L{num_layers}"
            self._cache = _DiskCache(Path(cache_dir), key)

    @classmethod
    def load(cls, model: str | os.PathLike | None = None, *, device: str | None = None,
             batch_size: int = 64, max_length: int | None = None, cache_dir: Path | None = None,
             precision: str | None = None, num_layers: int | None = None) -> "Encoder":
        """Load (once per argument set) an encoder from a local dir or the local HF cache only.
        ``model=None`` is the shipped all-MiniLM-L6-v2; ``precision`` defaults to fp32;
        ``num_layers`` pools that layer's states (the model keeps only its first layers)."""
        _hf.require_torch()   # say torch is missing before looking for any model
        key = (str(model), device, batch_size, max_length, str(cache_dir), precision, num_layers)
        with cls._lock:
            enc = cls._instances.get(key)
            if enc is None:
                path = default_model_path() if model is None else model
                loaded = _hf.load(path, device=device, precision=precision, requested=model,
                                  num_layers=num_layers)
                enc = cls(loaded, batch_size=batch_size, max_length=max_length,
                          cache_dir=None if cache_dir is None else Path(cache_dir), num_layers=num_layers)
                cls._instances[key] = enc
            return enc

    @property
    def content_hash(self) -> str:
        """:func:`content_hash` of the model folder (computed on first use)."""
        return content_hash(self.model_dir)

    @property
    def tokenizer(self):
        return self._loaded.tokenizer

    @property
    def dim(self) -> int:
        return int(self._loaded.model.config.hidden_size)

    def signature_params(self) -> dict[str, object]:
        """What pins this encoder's numbers, for signatures."""
        out = {"model": self._loaded.pin, "pool": self.pooling, "trunc": self.max_length, "dtype": self.precision}
        if self.num_layers is not None:
            out["layer"] = self.num_layers
        return out

    def embed(self, texts: Sequence[str], *, normalize: bool = True) -> np.ndarray:
        """float32 array (len(texts), dim): pooled last-layer token states, L2-normalised."""
        if isinstance(texts, str):
            raise ScorekitError("Encoder.embed expects a list of texts, not one string")
        texts = [nfc(str(t)).strip() for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # identical texts are embedded once
        unique = list(dict.fromkeys(texts))
        hashes = ({t: hashlib.sha256(t.encode("utf-8")).hexdigest() for t in unique}
                  if self._cache is not None else {})
        hit = self._cache.get_many(list(hashes.values())) if hashes else {}
        vectors = {t: hit[h] for t, h in hashes.items() if h in hit and hit[h].shape[0] == self.dim}
        todo = [t for t in unique if t not in vectors]
        if todo:
            fresh = self._encode(todo)
            vectors.update(zip(todo, fresh))
            if self._cache is not None:
                self._cache.put_many([(hashes[t], v) for t, v in zip(todo, fresh)])
        out[:] = [vectors[t] for t in texts]
        if normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out /= np.maximum(norms, 1e-12)  # torch.nn.functional.normalize's eps
        return out

    def _encode(self, texts: list[str]) -> np.ndarray:
        torch = _hf.require_torch()
        tok = self._loaded.tokenizer
        model = self._loaded.model
        enc = tok(texts, add_special_tokens=True, truncation=True, max_length=self.max_length)
        order = sorted(range(len(texts)), key=lambda i: -len(enc["input_ids"][i]))
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in enc]
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                batch = tok.pad({k: [enc[k][i] for i in idx] for k in keys}, return_tensors="pt")
                batch = {k: v.to(self.device) for k, v in batch.items()}
                hidden = model(**batch).last_hidden_state.float()
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                result[idx] = self._pool(torch, hidden, mask).cpu().numpy()
        return result

    def _pool(self, torch, hidden, mask):
        if self.pooling == "cls_token":
            return hidden[:, 0]
        if self.pooling == "max_tokens":
            return hidden.masked_fill(mask == 0, -1e9).max(dim=1).values
        summed = (hidden * mask).sum(dim=1)
        counts = mask.sum(dim=1).clamp(min=1e-9)
        if self.pooling == "mean_sqrt_len_tokens":
            return summed / torch.sqrt(counts)
        return summed / counts


__all__ = ["Encoder", "content_hash", "default_model_path"]
