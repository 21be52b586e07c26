"""The shared oracle harness every registered metric runs through (torchmetrics' MetricTester
idea). For a metric class and a reference implementation it checks, on hypothesis-generated
batches:

* **oracle** — the corpus score and the per-item scores equal the reference library's;
* **shards merge to the whole** — ``update`` on two or three shards then ``compute`` equals the
  functional face on everything, and ``merge_state`` of two metrics equals one;
* **NFD input equals NFC** — decomposed text (Hangul jamo) scores as its composed twin;
* **empty and single-item** — no items give NaN for every key (documented), one item a number;
* **stateful equals functional** exactly.

Usage (see ``docs/adding-a-metric.md``)::

    from harness import MetricCase, check_metric
    check_metric(MetricCase(ChrF, oracle=my_oracle), batch)
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class MetricCase:
    cls: type
    params: dict[str, Any] = field(default_factory=dict)
    # oracle(predictions, references) -> (corpus {key: value}, per-item {key: list}); None when the
    # metric's reference comparison lives in its own test file (named in ``oracle_test``)
    oracle: Callable | None = None
    oracle_test: str = ""
    rel: float = 1e-9           # tolerance against the oracle (exact metrics use 1e-9 or tighter)
    shard_rel: float = 0.0      # tolerance shards vs whole: 0 = bit-identical. float32 neural
    #                             encoders pad per batch (bert_score's padding mode), so a token
    #                             state can move by ~1e-8 with the batch it is encoded in

    def make(self):
        return self.cls(**self.params)


def _same(a: dict, b: dict, rel: float = 0.0) -> None:
    assert a.keys() == b.keys(), (a.keys(), b.keys())
    for k in a:
        x, y = np.asarray(a[k], dtype=float), np.asarray(b[k], dtype=float)
        if rel == 0.0:
            np.testing.assert_array_equal(x, y, err_msg=k)
        else:
            np.testing.assert_allclose(x, y, rtol=rel, atol=1e-12, err_msg=k)


def check_oracle(case: MetricCase, preds: list[str], refs: list[list[str]]) -> None:
    if case.oracle is None:
        assert case.oracle_test, f"{case.cls.__name__}: no oracle and no oracle test named"
        return
    m = case.make()
    stats = m.item_stats((preds, refs))
    want_corpus, want_items = case.oracle(preds, refs)
    got = m.score(stats)
    _same({k: got[k] for k in want_corpus}, want_corpus, case.rel)
    items = m.item_scores(stats)
    _same({k: items[k] for k in want_items}, want_items, case.rel)


def check_shards(case: MetricCase, preds: list[str], refs: list[list[str]]) -> None:
    whole = case.make()((preds, refs))
    cuts = sorted({0, len(preds) // 3, (2 * len(preds)) // 3, len(preds)})
    s = case.make()
    for a, b in zip(cuts, cuts[1:]):
        s.update((preds[a:b], refs[a:b]))
    _same(s.compute(), whole, case.shard_rel)
    half = len(preds) // 2
    left, right = case.make().update((preds[:half], refs[:half])), case.make().update((preds[half:], refs[half:]))
    _same(left.merge_state(right).compute(), whole, case.shard_rel)
    # stateful on everything at once equals functional
    _same(case.make().update((preds, refs)).compute(), whole)


def check_nfd(case: MetricCase, preds: list[str], refs: list[list[str]]) -> None:
    nfd = lambda t: unicodedata.normalize("NFD", t)  # noqa: E731
    nfc = lambda t: unicodedata.normalize("NFC", t)  # noqa: E731
    a = case.make()(([nfd(p) for p in preds], [[nfd(r) for r in rs] for rs in refs]))
    b = case.make()(([nfc(p) for p in preds], [[nfc(r) for r in rs] for rs in refs]))
    _same(a, b, case.shard_rel)


def check_empty_and_single(case: MetricCase, pred: str, refs: list[str]) -> None:
    m = case.make()
    empty = m(([], []))
    assert empty and all(math.isnan(v) for v in empty.values()), empty
    one = m(([pred], [refs]))
    assert one.keys() == empty.keys() and all(math.isfinite(v) for v in one.values()), one


def check_metric(case: MetricCase, preds: list[str], refs: list[list[str]]) -> None:
    """Every property at once on one batch (at least one item)."""
    check_oracle(case, preds, refs)
    check_shards(case, preds, refs)
    check_nfd(case, preds, refs)
    check_empty_and_single(case, preds[0], refs[0])
