"""The ABSA key groups (#26: on the metric contract, one declaration per group) through the shared
harness (tests/harness.py) over random pipeline rows: against the naive per-row oracle
(tests/absa/absa_oracle.py); shards of scorecards merge to the whole, NFD rows (Hangul as jamo)
score as NFC, no scorecards (counts 0, the rest N/A) and one scorecard, stateful = functional."""

from __future__ import annotations

from hypothesis import strategies as st

from scorekit.absa.metrics import AbsaBatch
from scorekit.absa.scorecard import make_scorecard
from scorekit.metrics import REGISTRY
from tests.absa.absa_oracle import oracle_metrics
from tests.absa.test_properties import entry_st
from tests.harness import MetricCase, Shape, harness_test


def _map(x, fn, skip):
    if isinstance(x, str):
        return fn(x)
    if isinstance(x, list):
        return [_map(v, fn, skip) for v in x]
    if isinstance(x, dict):
        return {k: v if k in skip else _map(v, fn, skip) for k, v in x.items()}
    return x


def _text(batch: AbsaBatch, fn, everything: bool = True) -> AbsaBatch:
    """Every string of the scorecards rewritten, or (``everything=False``) all but the gold."""
    skip = () if everything else ("inputs",)
    return AbsaBatch([_map(c, fn, skip) for c in batch.scorecards], batch.override_summary)


ROWS = Shape("scorecards", size=len, slice=lambda b, a, c: b.slice(a, c), text=_text)
OVERRIDE = {"override_hint_invalid_total": 3, "override_hint_invalid_rate": 0.25, "override_hint_repair_total": 1}
BATCHES = st.lists(entry_st(), min_size=1, max_size=12).map(
    lambda entries: AbsaBatch([make_scorecard(e) for e in entries], OVERRIDE))


def oracle_for(cls):
    def oracle(b):
        want = oracle_metrics([c["runtime"]["parsed_output"] for c in b.scorecards])
        return {k: want[k] for k in cls.result_keys() if k in want}, {}
    return oracle


def case(cls) -> MetricCase:
    keys = cls.result_keys()
    covered = set(keys) & set(oracle_metrics([]))
    na = tuple(k for k in keys if cls.info(k).kind != "count")
    if cls.name == "override":   # passed through from the run's summary (CR runs have none: N/A)
        return MetricCase(cls, batches=BATCHES.map(lambda b: AbsaBatch(b.scorecards)), shape=ROWS, oracle_test="tests/absa/test_metrics.py "
                          "(test_override_summary_passthrough)", empty="nan", single_na=keys, max_examples=8)
    return MetricCase(cls, batches=BATCHES, shape=ROWS, rel=1e-12, empty="counts", single_na=na,
                      zero_on_empty=("validator_clear_rate", "risk_resolution_rate") if cls.name == "validator" else (),
                      oracle=oracle_for(cls) if covered else None,
                      oracle_test="" if covered else "tests/absa/test_metrics.py (hand-made rows)", max_examples=8)


HARNESS_CASES = [case(cls) for cls in REGISTRY.classes("absa")]
test_harness = harness_test(HARNESS_CASES)
