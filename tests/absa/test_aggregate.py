"""structural_metrics.csv / _table.md layout and the multi-seed mean ± std."""

import pytest
from tests.absa.rows import entry, t

from scorekit.absa.aggregate import (aggregate_run, aggregate_seeds, aggregated_csv, parse_metrics_csv,
                                     run_id_from_dir, structural_metrics_csv, structural_metrics_md)
from scorekit.absa.metrics import METRIC_NAMES
from scorekit.absa.scorecard import make_scorecard


def test_csv_roundtrip_one_row_per_run():
    cards = [make_scorecard(entry("a", [t("맛", "positive")], [t("맛", "negative")], [t("맛", "negative")]))]
    agg = aggregate_run(cards, "r1")
    text = structural_metrics_csv([("r1", agg.metrics), ("r2", agg.metrics)])
    header = text.splitlines()[0].split(",")
    assert header == ["run_id", *METRIC_NAMES]
    rows = parse_metrics_csv(text)
    assert [r["run_id"] for r in rows] == ["r1", "r2"]
    assert rows[0]["tuple_f1_s2"] == 1.0 and rows[0]["tuple_f1_s1"] == 0.0 and rows[0]["fix_rate"] == 1.0
    assert rows[0]["break_rate"] is None and rows[0]["override_hint_invalid_rate"] is None   # N/A -> empty cell
    md = structural_metrics_md([("r1", agg.metrics)], agg.signature)
    assert "| r1 |" in md and "N/A" in md and "1.0000" in md and "signature: task:absa" in md


def test_seed_mean_std_population():
    # N_gold 50, 50, 33 -> mean 44.3333, population std 8.0139 (the spec project's own integrated report)
    seeds = [("s42", {"N_gold": 50, "tuple_f1_s2": 0.5, "fix_rate": None}),
             ("s123", {"N_gold": 50, "tuple_f1_s2": 0.7, "fix_rate": 0.2}),
             ("s456", {"N_gold": 33, "tuple_f1_s2": 0.6, "fix_rate": None})]
    agg = aggregate_seeds(seeds)
    i = agg.metrics.index("N_gold")
    assert agg.mean[i] == pytest.approx(44.3333, abs=1e-4) and agg.std[i] == pytest.approx(8.0139, abs=1e-4)
    j = agg.metrics.index("tuple_f1_s2")
    assert agg.mean[j] == pytest.approx(0.6) and agg.std[j] == pytest.approx((2 * 0.01 / 3) ** 0.5)
    k = agg.metrics.index("fix_rate")
    assert (agg.mean[k], agg.std[k], agg.n[k]) == (0.2, 0.0, 1)      # N/A seeds left out
    n = agg.metrics.index("override_hint_invalid_rate")
    assert agg.mean[n] is None and agg.n[n] == 0
    assert aggregated_csv(agg).splitlines()[0] == "metric,mean,std,n_seeds"


def test_run_id_from_dir():
    assert run_id_from_dir("cr_n50_m1__seed42_proposed") == ("cr_n50_m1", "42")
    assert run_id_from_dir("plain") == ("plain", None)
