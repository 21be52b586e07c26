"""Shared test setup: offline everywhere, deterministic hypothesis profiles."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from hypothesis import HealthCheck, settings  # noqa: E402

# `tests` is a package (an __init__.py in every folder), so two families may both have
# test_metrics.py (tests.absa.test_metrics, tests.summarization.test_metrics) and shared helpers
# are imported by their package path: `from tests.harness import MetricCase`,
# `from tests.absa.rows import entry`. pyproject.toml puts the repository root first on sys.path
# (pythonpath = ["."]), so `tests` is this folder, never another distribution's `tests`.

settings.register_profile(
    "default", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough", max_examples=500, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

