"""Shared test setup: offline everywhere, deterministic hypothesis profiles."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pathlib  # noqa: E402
import sys  # noqa: E402

from hypothesis import HealthCheck, settings  # noqa: E402

# Tests are imported with --import-mode=importlib (so two families may both have test_metrics.py);
# that mode does not put a test's folder on sys.path, so make shared helper modules beside the
# tests (rows.py, absa_oracle.py, report_helpers.py, ...) importable by their plain names.
_TESTS = pathlib.Path(__file__).resolve().parent
for _d in sorted({p.parent for p in _TESTS.rglob("*.py") if "__pycache__" not in p.parts}):
    if str(_d) not in sys.path:
        sys.path.append(str(_d))

settings.register_profile(
    "default", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough", max_examples=500, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

