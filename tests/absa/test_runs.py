"""#26: several ABSA runs over the same scorecards are compared by the one comparison engine
(scorekit.stats.compare.compare): paired over scorecards, Holm per measure over the runs compared
with the baseline — the same rows `scorekit runs compare` gives a pair; seeds summarised in the
library, not in the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scorekit.absa.runs import aggregate_runs, aggregate_seed_runs, compared_keys, per_item_rows
from scorekit.absa.scorecard import make_scorecard
from scorekit.errors import ScorekitError
from scorekit.io.absa_jsonl import read_outputs
from scorekit.stats.compare import HOLM_FAMILY, compare_runs, document
from scorekit.stats.significance import holm_bonferroni

EX = Path(__file__).resolve().parents[2] / "examples" / "absa" / "results"
SEEDS = ("cr_demo__seed42_proposed", "cr_demo__seed123_proposed")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("absa")
    out = []
    for name in SEEDS + ("cr_demo__seed7_proposed",):
        src = EX / (name if name in SEEDS else SEEDS[1])
        d = root / name
        d.mkdir()
        rows = read_outputs(src / "outputs.jsonl").rows
        if name not in SEEDS:   # a third run: the second with its first two rows' predictions swapped
            rows = [rows[1] | {"meta": rows[0]["meta"]}, rows[0] | {"meta": rows[1]["meta"]}] + rows[2:]
        (d / "scorecards.jsonl").write_text("".join(json.dumps(make_scorecard(e, run_id=name), ensure_ascii=False)
                                                    + "\n" for e in rows), encoding="utf-8")
        out.append(d)
    return out


def test_runs_over_the_same_scorecards_are_compared_with_the_first(runs):
    done = aggregate_runs(runs, compare_runs=True)
    comp = done.comparison
    assert comp["baseline"] == SEEDS[0] and comp["family"] == HOLM_FAMILY and comp["correction"] == "holm"
    assert {r["system"] for r in comp["rows"]} == {runs[1].name, runs[2].name}
    measures = {r["measure"] for r in comp["rows"]}
    assert measures <= set(compared_keys()) and "tuple_f1_s2" in measures
    assert not measures & {"triplet_f1_s2", "N", "override_hint_invalid_rate"}   # no aliases, counts, pass-through
    dicts = [dict(r.to_result().to_dict(), per_item=per_item_rows(r)) for r in done.runs]
    for measure in measures:   # one Holm family per measure, over the two runs compared with the baseline
        rows = [r for r in comp["rows"] if r["measure"] == measure]
        pair = [compare_runs(dicts[0], d, metrics=[measure])["comparison"]["rows"][0] for d in dicts[1:]]
        assert [r["p_value"] for r in rows] == pytest.approx([p["p_value"] for p in pair], nan_ok=True)
        finite = [r for r in rows if r["p_value"] is not None]
        if len(finite) == len(rows):
            assert [r["p_adjusted"] for r in rows] == pytest.approx(list(holm_bonferroni([r["p_value"] for r in rows])))
    payload = done.payload()   # the one multi-run JSON: the baseline's name and metrics on top
    assert [r["name"] for r in payload["runs"]] == [r.name for r in runs]
    assert payload["name"] == runs[0].name and payload["metrics"] == payload["runs"][0]["metrics"]
    assert payload == document("absa", payload["runs"], signature=payload["runs"][0]["signature"],
                               comparison=comp)


def test_runs_without_shared_scorecards_cannot_be_compared(runs, tmp_path):
    other = tmp_path / "other__seed1_proposed"
    shutil.copytree(runs[1], other)
    cards = [json.loads(x) for x in (other / "scorecards.jsonl").read_text(encoding="utf-8").splitlines()]
    for c in cards:
        c["text_id"] = "x-" + str(c["text_id"])
    (other / "scorecards.jsonl").write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cards),
                                            encoding="utf-8")
    done = aggregate_runs([runs[0], other])   # by default: aggregated, and told why not compared
    assert done.comparison is None and "comparison" not in done.payload()
    assert done.warnings == ["runs not compared: the runs share none (--no-compare silences this)"]
    with pytest.raises(ScorekitError, match="share none"):
        aggregate_runs([runs[0], other], compare_runs=True)
    assert aggregate_runs([runs[0], other], compare_runs=False).warnings == []


def test_several_runs_are_compared_by_default_and_not_when_asked(runs):
    default, asked, off = (aggregate_runs(runs, compare_runs=c) for c in (None, True, False))
    assert default.comparison == asked.comparison and default.warnings == []
    assert off.comparison is None and off.warnings == [] and "comparison" not in off.payload()
    assert aggregate_runs(runs[:1]).comparison is None       # one run: nothing to compare


def test_runs_that_cannot_be_paired_say_why(runs):
    from scorekit.absa.runs import _unpaired

    done = aggregate_runs(runs[:2], compare_runs=False)
    assert _unpaired(done.runs) is None
    done.runs[1].ids = done.runs[0].ids + done.runs[0].ids[:1]
    assert _unpaired(done.runs) == f"{runs[1].name} repeats a text_id"


def test_seed_runs_mean_and_std_from_the_library(runs):
    seeds = aggregate_seed_runs(runs[:2], "cr_demo_aggregated")
    one, two = (aggregate_runs([r]).runs[0].aggregate.metrics for r in runs[:2])
    assert seeds.result.metrics["tuple_f1_s2"] == pytest.approx((one["tuple_f1_s2"] + two["tuple_f1_s2"]) / 2)
    assert seeds.result.extra["std"]["N"] == 0.0 and seeds.result.extra["n_seeds"]["N"] == 2
    assert "|seeds:2|std:ddof0|" in seeds.result.signature


def test_cli_compare_writes_the_comparison_block(runs, tmp_path, capsys):
    from scorekit.cli import main

    out, off = tmp_path / "cmp.json", tmp_path / "off.json"
    assert main(["absa", "aggregate", str(runs[0]), str(runs[1]), "--outdir", str(tmp_path / "m"),
                 "-o", str(out)]) == 0         # compared without asking
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["comparison"]["family"] == HOLM_FAMILY
    assert doc["name"] == runs[0].name and doc["metrics"] == doc["runs"][0]["metrics"]   # the baseline on top
    retrieval = tmp_path / "retrieval.json"   # the shape `scorekit retrieval` writes for several runs
    ex = EX.parents[1] / "retrieval"
    assert main(["retrieval", "--qrels", str(ex / "qrels.txt"), "--run", str(ex / "run_v1.txt"),
                 "--run", str(ex / "run_v2.txt"), "-m", "ndcg@10", "-o", str(retrieval), "-q"]) == 0
    shared = json.loads(retrieval.read_text(encoding="utf-8"))
    assert list(doc) == list(shared) and list(doc["comparison"]) == list(shared["comparison"])
    row = next(r for r in doc["comparison"]["rows"] if r["measure"] == "tuple_f1_s2")
    assert row["value"] == doc["runs"][1]["metrics"]["tuple_f1_s2"]
    assert "compared with cr_demo__seed42_proposed" in capsys.readouterr().out
    assert main(["absa", "aggregate", str(runs[0]), str(runs[1]), "--outdir", str(tmp_path / "m2"), "--compare",
                 "-o", str(tmp_path / "asked.json")]) == 0
    assert json.loads((tmp_path / "asked.json").read_text(encoding="utf-8"))["comparison"] == doc["comparison"]
    capsys.readouterr()
    assert main(["absa", "aggregate", str(runs[0]), str(runs[1]), "--outdir", str(tmp_path / "m3"), "--no-compare",
                 "-o", str(off)]) == 0
    no = json.loads(off.read_text(encoding="utf-8"))
    def same(runs):   # each run's time of writing differs when the two commands straddle a second
        return [{k: v for k, v in r.items() if k != "created"} for r in runs]

    assert "comparison" not in no and same(no["runs"]) == same(doc["runs"])
    assert [k for k in doc if k != "comparison"] == list(no) and no["metrics"] == doc["metrics"]
    assert "compared with" not in capsys.readouterr().out


def test_two_runs_of_one_name_are_compared(runs, tmp_path):
    # before: a KeyError traceback (exit 1) when two RUNs had one directory name (the same run
    # given twice, or a/run and b/run): the comparison named the second 'run#B', the values were
    # looked up by run_id
    other = tmp_path / "copy" / runs[1].name
    shutil.copytree(runs[1], other)
    for pair in ([runs[1], other], [runs[1], runs[1]]):
        done = aggregate_runs(pair)
        rows = done.comparison["rows"]
        assert {r["system"] for r in rows} == {f"{runs[1].name}#2"} and done.comparison["baseline"] == runs[1].name
        assert rows and all(r["value"] == r["baseline_value"] for r in rows)
