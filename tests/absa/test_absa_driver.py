"""#26: the ABSA metrics (one declaration per key group) run through the one driver over a run's
scorecard rows — forked parts give the one-process numbers (to 1e-12; in fact bit for bit), the
per-item values of a ratio average to the ratio, and the declarations carry the words."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.absa.test_properties import runs

from scorekit.absa.aggregate import aggregate_run
from scorekit.absa.metrics import METRIC_NAMES, METRICS, AbsaBatch
from scorekit.absa.scorecard import make_scorecard
from scorekit.engine.driver import Planned, run
from scorekit.engine.executors import Forked
from scorekit.metrics import REGISTRY, describe


def same(a, b):
    assert list(a) == list(b)
    for k, v in a.items():
        w = b[k]
        assert (v is None and w is None) or abs(v - w) <= 1e-12, k
        assert type(v) is type(w), k      # counts stay ints, N/A stays None


@settings(max_examples=15, deadline=None)
@given(entries=runs, size=st.integers(1, 5))
def test_forked_shards_of_rows_equal_one_process(entries, size):
    cards = [make_scorecard(e) for e in entries]
    override = {"override_hint_invalid_total": 2, "override_hint_invalid_rate": 0.5}
    one = aggregate_run(cards, "r", override)
    forked = aggregate_run(cards, "r", override, engine=Forked(workers=2, items_per_shard=size))
    same(one.metrics, forked.metrics)
    assert np.array_equal(one.matrix, forked.matrix) and one.signature == forked.signature


@settings(max_examples=15, deadline=None)
@given(entries=runs)
def test_per_item_values_of_a_ratio_average_to_it(entries):
    cards = [make_scorecard(e) for e in entries]
    scored = run([Planned(m, [(k, k) for k in m.keys]) for m in METRICS], AbsaBatch(cards))
    for key, value in scored.metrics.items():
        if key.startswith("override") or key == "delta_f1":
            continue
        per = scored.per_item[key]
        if describe(key, "absa").kind == "count":
            assert per.sum() == value, key
        elif np.isfinite(per).any():
            assert math.isclose(np.nanmean(per), value, rel_tol=1e-12, abs_tol=1e-12), key
        else:   # an empty denominator: N/A (0 for the validator clear rate, as the spec says)
            assert value in (None, 0.0), key


def test_every_key_is_declared_once_with_its_words():
    classes = REGISTRY.classes("absa")
    assert [k for c in classes for k in c.result_keys()] == list(METRIC_NAMES) == REGISTRY.keys("absa")
    for c in classes:
        for k in c.result_keys():
            info = c.info(k)
            assert info.doc and info.doc != k.replace("_", " "), k
    assert not describe("n_break", "absa").higher_is_better and describe("n_fix", "absa").higher_is_better
    assert describe("net_gain", "absa").kind == "score" and describe("N", "absa").kind == "count"
