"""#26: one comparison engine. `scorekit retrieval` with two runs and `scorekit runs compare` of
the same two stored runs give the same rows: the same tests, the same Holm family (per measure,
over the systems compared with the baseline), the same corrected p, one JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorekit.cli import main
from scorekit.stats.compare import HOLM_FAMILY, correct

EX = Path(__file__).resolve().parents[2] / "examples" / "retrieval"


def test_holm_family_is_per_measure_over_systems():
    rows = [{"measure": "ndcg", "p_value": 0.01}, {"measure": "ndcg", "p_value": 0.04},
            {"measure": "mrr", "p_value": 0.03}]
    correct(rows, 0.05)
    assert [r["p_adjusted"] for r in rows] == pytest.approx([0.02, 0.04, 0.03])
    assert [r["significant"] for r in rows] == [True, True, True]


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_same_pair_same_corrected_p_from_both_commands(tmp_path, capsys, test):
    store, cmp_a, cmp_b = tmp_path / "runs.db", tmp_path / "a.json", tmp_path / "b.json"
    measures = "ndcg@10,map,mrr,recall@100"
    assert main(["retrieval", "--qrels", str(EX / "qrels.txt"), "--run", str(EX / "run_v1.txt"),
                 "--run", str(EX / "run_v2.txt"), "-m", measures, "--test", test, "-o", str(cmp_a), "-q",
                 "--record", "--store", str(store)]) == 0
    assert main(["runs", "compare", "1", "2", "--method", test, "--store", str(store),
                 "-o", str(cmp_b)]) == 0
    capsys.readouterr()
    a, b = json.loads(cmp_a.read_text()), json.loads(cmp_b.read_text())
    assert a["comparison"]["family"] == b["comparison"]["family"] == HOLM_FAMILY
    assert set(a["comparison"]) == set(b["comparison"]) and set(a) == set(b)   # one JSON shape
    ra = {r["measure"]: r for r in a["comparison"]["rows"]}
    rb = {r["measure"]: r for r in b["comparison"]["rows"]}
    assert set(ra) == set(rb) and len(ra) == 4
    for m in ra:
        assert rb[m]["p_value"] == pytest.approx(ra[m]["p_value"], rel=1e-12, abs=1e-15), m
        assert rb[m]["p_adjusted"] == pytest.approx(ra[m]["p_adjusted"], rel=1e-12, abs=1e-15), m
        assert rb[m]["significant"] == ra[m]["significant"]
