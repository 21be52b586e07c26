"""The shared oracle harness every registered metric runs through (torchmetrics' MetricTester
idea), for every family. A :class:`MetricCase` names the metric class and its parameters, where
its batches come from (a hypothesis strategy, or one fixed batch for a metric that needs a
model), the :class:`Shape` of those batches (how many items, how to cut items ``a..b`` into a
shard, how to rewrite their text, what the metric's ``update`` takes), and the reference
implementation when one exists. :func:`check_metric` then checks, on each batch:

* **oracle** — the corpus score and the per-item scores equal the reference library's (or the
  case names the test file that compares it: ``oracle_test``);
* **shards merge to the whole** — ``update`` on two or three shards then ``compute`` equals the
  functional face on everything, ``merge_state`` of two metrics equals one, and, for a batch the
  one driver (:mod:`scorekit.engine.driver`) runs, ``driver.run`` with the batch cut into shards
  (the driver's own cutting, ``Metric.merge`` and scoring) gives the same numbers;
* **NFD input equals NFC** — decomposed text (Hangul jamo) scores as its composed twin, both
  everywhere and on the candidates' side alone (NFD predictions or run against NFC references
  or qrels);
* **empty and single-item** — no items give NaN for every key (or, where the family documents
  it, a one-line error), one item a finite number for every key;
* **stateful equals functional** exactly.

Every test module that runs harness cases declares them in a module-level ``HARNESS_CASES``
list; ``tests/metrics/test_harness_coverage.py`` fails naming any registered metric class that
no module covers. Usage (see ``docs/adding-a-metric.md``)::

    from tests.harness import MetricCase, check_metric, harness_test, text_batches

    HARNESS_CASES = [MetricCase(ChrF, batches=text_batches(WORDS), oracle=sacrebleu_chrf)]
    test_harness = harness_test(HARNESS_CASES)      # one pytest test per case

    check_metric(HARNESS_CASES[0], CaptionBatch(["a man rides a wave"], [["a man riding"]]))
"""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# --- shapes of batches -----------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """How the harness handles one family's batches.

    ``size(batch)``: the number of items; ``slice(batch, a, b)``: items ``a..b-1`` as a batch of
    their own (a shard; ``slice(batch, 0, 0)`` is the empty batch); ``text(batch, fn, everything)``:
    the same batch with ``fn`` applied to every text and id in it, or (``everything=False``) only
    to the candidates' side — the predictions, the run — as when one file comes from a tool that
    writes NFD (None: the family has no text to normalise); ``feed(batch)``: what the metric's
    ``item_stats``/``update`` take (default: the batch itself)."""

    name: str
    size: Callable[[Any], int]
    slice: Callable[[Any, int, int], Any]
    text: Callable[[Any, Callable[[str], str], bool], Any] | None = None
    feed: Callable[[Any], Any] = lambda batch: batch   # noqa: E731


def _caption_text(batch: Any, fn: Callable[[str], str], everything: bool = True) -> Any:
    fresh = batch.slice(0, len(batch))     # a copy with nothing computed carried over (caches)
    changes: dict[str, Any] = {"predictions": [fn(p) for p in batch.predictions]}
    if everything:
        changes["references"] = [[fn(r) for r in rs] for rs in batch.references]
    if everything and getattr(batch, "sources", None) is not None:
        changes["sources"] = [fn(s) for s in batch.sources]
    return dataclasses.replace(fresh, **changes)


# A batch the one driver runs (CaptionBatch, SummaryBatch: ``len``, ``slice``, ``references``)
DRIVER_BATCH = Shape("driver batch", size=len, slice=lambda b, a, c: b.slice(a, c), text=_caption_text)


# --- cases -----------------------------------------------------------------------------------


@dataclass
class MetricCase:
    cls: type
    params: dict[str, Any] = field(default_factory=dict)
    # where batches come from: a hypothesis strategy of batches, or one fixed batch
    batches: Any = None
    batch: Any = None
    fixture: str = ""           # or: the pytest fixture the case's test builds its batch (and
    #                             model) from, filled in with dataclasses.replace (CLIPScore)
    shape: Shape = DRIVER_BATCH
    # oracle(batch) -> (corpus {key: value}, per-item {key: list}); None when the metric's
    # reference comparison lives in its own test file (named in ``oracle_test``)
    oracle: Callable | None = None
    oracle_test: str = ""
    rel: float = 1e-9           # tolerance against the oracle (exact metrics use 1e-9 or tighter)
    shard_rel: float = 0.0      # tolerance shards vs whole: 0 = bit-identical. float32 neural
    #                             encoders pad per batch (bert_score's padding mode), so a token
    #                             state can move by ~1e-8 with the batch it is encoded in
    nfd: bool = True            # check NFD input = NFC (needs ``shape.text``)
    empty: str = "nan"          # no items: "nan" (every key NaN) or "error" (one-line ScorekitError);
    #                             "counts": count keys 0 (``kind="count"``), every other key N/A
    zero_on_empty: tuple[str, ...] = ()   # keys documented as 0, not N/A, on no items
    single_na: tuple[str, ...] = ()   # keys that may be N/A (NaN/None: an empty denominator, a
    #                                   pair measure of one topic) on a single item
    max_examples: int = 15      # hypothesis examples per case
    id: str = ""                # pytest id (default: the class name and parameters)
    allow_english_model: bool = False   # the run's --allow-english-model (no parameter: changes no number)

    def make(self):
        m = self.cls(**self.params)
        m.allow_english_model = self.allow_english_model
        return m

    @property
    def name(self) -> str:
        if self.id:
            return self.id
        args = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.cls.family}:{self.cls.name}" + (f"({args})" if args else "")


def _same(a: dict, b: dict, rel: float = 0.0, what: str = "") -> None:
    assert a.keys() == b.keys(), (what, a.keys(), b.keys())
    for k in a:
        x, y = np.asarray(a[k], dtype=float), np.asarray(b[k], dtype=float)
        if rel == 0.0:
            np.testing.assert_array_equal(x, y, err_msg=f"{what} {k}")
        else:
            np.testing.assert_allclose(x, y, rtol=rel, atol=1e-12, err_msg=f"{what} {k}")


def _scores(m, stats) -> tuple[dict, dict]:
    """Corpus and per-item values from statistics, as the driver scores them."""
    return m.score(stats), {k: np.asarray(v, dtype=np.float64) for k, v in m.item_scores(stats).items()}


def cuts(n: int, parts: int = 3) -> list[int]:
    """Item indices cutting ``n`` items into up to ``parts`` non-empty shards."""
    return sorted({0, *(i * n // parts for i in range(1, parts)), n})


# --- the checks ------------------------------------------------------------------------------


def check_oracle(case: MetricCase, batch: Any) -> None:
    if case.oracle is None:
        assert case.oracle_test, f"{case.name}: no oracle and no oracle test named"
        return
    m = case.make()
    got, items = _scores(m, m.item_stats(case.shape.feed(batch)))
    want_corpus, want_items = case.oracle(batch)
    assert want_corpus or want_items, f"{case.name}: the oracle compared nothing"
    _same({k: got[k] for k in want_corpus}, want_corpus, case.rel, "oracle corpus")
    _same({k: items[k] for k in want_items}, want_items, case.rel, "oracle per item")


class ShardingExecutor:
    """An executor of the one driver (its ``map``/``map_model`` calls) that runs every shard in
    this process but makes the driver cut the batch into shards of ``items_per_shard`` items —
    so the driver's own cutting (``shard_bounds``, ``shard_align``), merge and scoring run as
    they do on forked parts and Ray."""

    name = "harness-shards"

    def __init__(self, items_per_shard: int):
        self.items_per_shard = items_per_shard
        self.calls = 0

    def map(self, fn, items, *, args=(), desc="shards"):
        self.calls += len(items)
        return [fn(item, *_sent(tuple(args))) for item in items]

    def map_model(self, make, make_args, fn, items, *, desc="shards"):
        self.calls += len(items)
        return [fn(make(*_sent(make_args)), item) for item in items]


def _sent(obj: Any) -> Any:
    """``obj`` as a Ray worker gets it (cloudpickled: retrieval's measure classes, made at run
    time, travel by value): what a metric learns while computing a shard stays in that copy, as
    it does in another process."""
    import cloudpickle

    return cloudpickle.loads(cloudpickle.dumps(obj))


def check_shards(case: MetricCase, batch: Any) -> None:
    shape = case.shape
    n = shape.size(batch)
    m = case.make()
    whole = m(shape.feed(batch))
    whole_corpus, whole_items = _scores(m, m.item_stats(shape.feed(batch)))
    _same(whole_corpus, whole, what="item_stats+score vs functional")
    # update on two or three shards, then compute; the merged statistics score every item as the whole
    bounds = cuts(n)
    s = case.make()
    for a, b in zip(bounds, bounds[1:]):
        s.update(shape.feed(shape.slice(batch, a, b)))
    _same(s.compute(), whole, case.shard_rel, "shards")
    _same(_scores(s, s.state())[1], whole_items, case.shard_rel, "shards per item")
    # merge_state of two metrics equals one (with one item, the other half is empty: merged too
    # where the family scores no items as NaN; where no items is an error, nothing to merge)
    half = (n + 1) // 2
    left = case.make().update(shape.feed(shape.slice(batch, 0, half)))
    right = case.make()
    if half < n or case.empty == "nan":
        right.update(shape.feed(shape.slice(batch, half, n)))
    _same(left.merge_state(right).compute(), whole, case.shard_rel, "merge_state")
    # stateful on everything at once equals functional
    _same(case.make().update(shape.feed(batch)).compute(), whole, what="stateful vs functional")
    if hasattr(batch, "slice") and hasattr(batch, "references") and shape.feed(batch) is batch:
        _check_driver(case, batch, whole, whole_items)


def _check_driver(case: MetricCase, batch: Any, whole: dict, whole_items: dict) -> None:
    """The one driver on this batch cut into shards: the same numbers as the whole."""
    from scorekit.engine.driver import Planned, run

    m = case.make()
    keys = [k for k in m.result_keys() if k in whole]
    ex = ShardingExecutor(max(1, -(-len(batch) // 3)))
    scored = run([Planned(m, [(k, k) for k in keys])], batch, ex)
    assert ex.calls >= (1 if m.needs_model else min(len(batch), 2)), "the driver did not cut the batch"
    _same(scored.metrics, {k: whole[k] for k in keys}, case.shard_rel, "driver shards")
    _same(scored.per_item, {k: whole_items[k] for k in keys}, case.shard_rel, "driver shards per item")
    # the signature pins (a model's truncation count, a tokenizer) are those of one process
    one = case.make()
    run([Planned(one, [(k, k) for k in keys])], batch)
    assert m.signature_params() == one.signature_params(), (m.signature_params(), one.signature_params())


def _normal(form: str) -> Callable[[str], str]:
    return lambda t: unicodedata.normalize(form, t)


def check_nfd(case: MetricCase, batch: Any) -> None:
    if not case.nfd:
        return
    text, feed = case.shape.text, case.shape.feed
    assert text is not None, f"{case.name}: NFD check asked for a shape without text"
    nfc = case.make()(feed(text(batch, _normal("NFC"), True)))
    # everything decomposed (Hangul as jamo), and only the candidates (NFD against NFC references)
    _same(case.make()(feed(text(batch, _normal("NFD"), True))), nfc, case.shard_rel, "NFD vs NFC")
    _same(case.make()(feed(text(text(batch, _normal("NFC"), True), _normal("NFD"), False))), nfc,
          case.shard_rel, "NFD candidates vs NFC")


def _na(v: Any) -> bool:
    return v is None or math.isnan(v)


def check_empty_and_single(case: MetricCase, batch: Any) -> None:
    shape = case.shape
    one = case.make()(shape.feed(shape.slice(batch, 0, 1)))
    assert one and all((k in case.single_na and _na(v)) or math.isfinite(v) for k, v in one.items()), one
    empty = shape.slice(batch, 0, 0)
    if case.empty == "error":
        from scorekit.errors import ScorekitError

        try:
            got = case.make()(shape.feed(empty))
        except ScorekitError as exc:
            assert str(exc) and "\n" not in str(exc), repr(str(exc))
            return
        raise AssertionError(f"{case.name}: no items gave {got}, not the documented error")
    assert case.empty in ("nan", "counts"), case.empty
    got = case.make()(shape.feed(empty))
    counts = {k for k in got if case.empty == "counts" and case.cls.info(k).kind == "count"} | set(case.zero_on_empty)
    assert got.keys() == one.keys() and all(got[k] == 0 if k in counts else _na(got[k]) for k in got), got


def check_metric(case: MetricCase, batch: Any) -> None:
    """Every property at once on one batch (at least one item)."""
    assert case.shape.size(batch) >= 1, "the harness needs a batch with at least one item"
    check_oracle(case, batch)
    check_shards(case, batch)
    check_nfd(case, batch)
    check_empty_and_single(case, batch)


def run_case(case: MetricCase, batch: Any = None) -> None:
    """Check ``case`` on its fixed batch (or ``batch``), else on ``max_examples`` hypothesis
    batches of its strategy."""
    if batch is not None or case.batch is not None:
        check_metric(case, case.batch if batch is None else batch)
        return
    assert case.batches is not None, f"{case.name}: no batches and no batch"
    from hypothesis import given, settings

    # the case's count under the default profile (60 examples), scaled with a bigger one
    # (HYPOTHESIS_PROFILE=thorough: 500 -> about 8x)
    n = max(case.max_examples, case.max_examples * settings.default.max_examples // 60)

    @settings(max_examples=n, deadline=None)
    @given(batch=case.batches)
    def every(batch):
        check_metric(case, batch)

    every()


def harness_test(cases: Sequence[MetricCase]):
    """A pytest test function with one test per case (ids: :attr:`MetricCase.name`)."""
    import pytest

    @pytest.mark.parametrize("case", list(cases), ids=[c.name for c in cases])
    def test_harness(case):
        run_case(case)

    return test_harness


def covered_classes(modules: Sequence[Any]) -> dict[type, list[str]]:
    """Metric class -> the modules whose ``HARNESS_CASES`` cover it."""
    out: dict[type, list[str]] = {}
    for mod in modules:
        for case in getattr(mod, "HARNESS_CASES", ()):
            out.setdefault(case.cls, []).append(mod.__name__)
    return out


# --- batches ---------------------------------------------------------------------------------


def text_batches(words: Sequence[str], *, make: Callable[[list, list], Any] | None = None,
                 max_refs: int = 3, min_items: int = 2, max_items: int = 6):
    """A hypothesis strategy of batches of (prediction, references) items made of ``words``,
    built with ``make(predictions, references)`` (default: an English CaptionBatch)."""
    from hypothesis import strategies as st

    if make is None:
        from scorekit.generation.batch import CaptionBatch

        make = CaptionBatch
    sentence = st.lists(st.sampled_from(list(words)), min_size=1, max_size=9).map(" ".join)
    item = st.tuples(sentence, st.lists(sentence, min_size=1, max_size=max_refs))
    return st.lists(item, min_size=min_items, max_size=max_items).map(
        lambda items: make([p for p, _ in items], [list(r) for _, r in items]))
