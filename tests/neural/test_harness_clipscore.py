"""CLIPScore (the caption metric) through the shared oracle harness (tests/harness.py) on a tiny
offline CLIP (conftest.py) and random images: shards merge to the whole (through the one driver's
model path too), NFD captions = NFC, one item a number, stateful = functional. Its oracle,
torchmetrics' CLIPScore, is compared in tests/neural/test_clipscore.py."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scorekit.generation.batch import CaptionBatch
from scorekit.metrics import REGISTRY
from tests.harness import MetricCase, run_case

CLIPSCORE = MetricCase(REGISTRY.metric_class("caption", "clipscore"), fixture="tiny_clip_dir", shard_rel=1e-6,
                       oracle_test="tests/neural/test_clipscore.py (torchmetrics CLIPScore)",
                       # no items: the metric refuses (it asks for --images), it does not score NaN
                       empty="error")
HARNESS_CASES = [CLIPSCORE]


def test_clipscore_properties(tiny_clip_dir):       # tiny_clip_dir skips without torch/transformers
    from PIL import Image

    rng = np.random.default_rng(7)
    images = [Image.fromarray(rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)) for _ in range(4)]
    batch = CaptionBatch(["a dog on the beach", "푸른 바다", "the red car", "파도가 친다"],
                         [["a dog"], ["바다", "하늘"], ["a car", "sky"], ["하얀 파도"]], media=images)
    run_case(dataclasses.replace(CLIPSCORE, params={"model": str(tiny_clip_dir)}), batch)
