"""Several topic models in one comparison: ranked on every measure, per-topic tests and CIs
(given embeddings, so no model is loaded), and the two-sample permutation test against scipy."""

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from scorekit.errors import ScorekitError
from scorekit.io.topics import parse_topics
from scorekit.metrics import describe
from scorekit.stats.bootstrap import bootstrap_mean_ci
from scorekit.stats.significance import paired_test, unpaired_test
from scorekit.topics.evaluate import PER_TOPIC_OF, compare_topic_models, evaluate_topics

A = parse_topics('{"tech": ["computer", "software", "code"], "cars": ["car", "engine", "road"],'
                 ' "money": ["bank", "loan", "code"], "경제": ["경제", "시장", "주식"]}')
B = parse_topics('{"b1": ["computer", "road", "loan"], "b2": ["car", "bank", "시장"], "b3": ["engine", "경제", "code"]}')
CORPUS = ["The computer runs software code.", "A car engine on the road.", "The bank gave a loan.",
          "software code for the bank", "car loan from the bank", "경제 성장과 주식 시장", "주식 시장과 경제"]


def _vectors(topics, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(len(t), 8)) for t in topics.topics]


def _model(topics, name, seed, corpus=CORPUS):
    return evaluate_topics(topics.topics, names=topics.names, word_vectors=_vectors(topics, seed), corpus=corpus,
                           name=name, n_resamples=200)


def test_every_measure_ranked_with_direction_and_cis():
    models = [_model(A, "a", 0), _model(B, "b", 1), _model(A, "a2", 2)]
    doc = compare_topic_models(models, n_resamples=300, seed=7)
    assert [r["name"] for r in doc["runs"]] == ["a", "b", "a2"]
    assert set(doc["ranking"]) == set(models[0].metrics)
    for key, entries in doc["ranking"].items():
        lower = not describe(key, "topics").higher_is_better
        vals = [e["value"] for e in entries if e["value"] is not None]
        assert vals == sorted(vals, reverse=not lower), key
        assert [e["rank"] for e in entries] == sorted(e["rank"] for e in entries) and entries[0]["rank"] == 1
        for e in entries:
            m = next(r for r in models if r.name == e["model"])
            assert e["value"] == m.metrics[key]
            if key in PER_TOPIC_OF:   # the model value is the mean of its per-topic column; CI around it
                col = [row[PER_TOPIC_OF[key]] for row in m.per_item]
                assert m.metrics[key] == pytest.approx(np.mean(col), abs=1e-12), key
                assert (e["ci_low"], e["ci_high"]) == pytest.approx(
                    bootstrap_mean_ci(col, n_resamples=300, seed=7)[1:], abs=0)
                assert e["ci_low"] <= e["value"] <= e["ci_high"]
            else:
                assert "ci_low" not in e


def test_rows_paired_when_topics_match_unpaired_otherwise_and_holm():
    a, b, a2 = _model(A, "a", 0), _model(B, "b", 1), _model(A, "a2", 2)
    doc = compare_topic_models([a, b, a2], n_resamples=500, seed=3)
    rows = doc["comparison"]["rows"]
    assert doc["comparison"]["baseline"] == "a" and {r["system"] for r in rows} == {"b", "a2"}
    for r in rows:
        assert 0 < r["p_value"] <= r["p_adjusted"] <= 1 and r["significant"] == (r["p_adjusted"] < 0.05)
        assert r["ci_low"] <= r["difference"] <= r["ci_high"] or r["ci_low"] == r["ci_high"]
    sc_b = next(r for r in rows if r["system"] == "b" and r["measure"] == "sc")
    sc_a2 = next(r for r in rows if r["system"] == "a2" and r["measure"] == "sc")
    assert sc_b["test"].startswith("two-sample") and sc_a2["test"].startswith("paired")
    xa = np.array([row["sc"] for row in a.per_item])
    assert sc_b["p_value"] == unpaired_test(np.array([row["sc"] for row in b.per_item]), xa,
                                            n_resamples=500, seed=3).p_value
    assert sc_a2["p_value"] == paired_test(np.array([row["sc"] for row in a2.per_item]), xa, "randomization",
                                           n_resamples=500, seed=3).p_value
    assert sc_a2["difference"] == pytest.approx(sc_a2["value"] - sc_a2["baseline_value"], abs=1e-12)
    json.dumps(doc, allow_nan=False)   # the JSON a report reads


def test_holm_family_is_per_measure_over_the_models_as_in_stats_compare():
    """The project's one Holm family (stats.compare.HOLM_FAMILY): a measure's corrected p depends
    only on that measure's rows, not on how many other measures are compared, and equals
    stats.compare.compare's on the same paired rows."""
    from scorekit.stats.compare import HOLM_FAMILY, compare
    from scorekit.stats.significance import holm_bonferroni

    with_corpus = [_model(A, "a", 0), _model(B, "b", 1), _model(A, "a2", 2), _model(A, "a3", 4)]
    without = [_model(A, "a", 0, None), _model(B, "b", 1, None), _model(A, "a2", 2, None), _model(A, "a3", 4, None)]
    many = compare_topic_models(with_corpus, n_resamples=400, seed=5)["comparison"]
    few = compare_topic_models(without, n_resamples=400, seed=5)["comparison"]
    assert many["family"] == few["family"] == HOLM_FAMILY and many["correction"] == "holm"
    assert {r["measure"] for r in many["rows"]} == {"sc", "sd_avg", "npmi", "c_v", "u_mass"}
    assert {r["measure"] for r in few["rows"]} == {"sc", "sd_avg"}
    for measure in ("sc", "sd_avg"):
        m = [(r["system"], r["p_value"], r["p_adjusted"]) for r in many["rows"] if r["measure"] == measure]
        f = [(r["system"], r["p_value"], r["p_adjusted"]) for r in few["rows"] if r["measure"] == measure]
        assert m == f and len(m) == 3, measure
    for measure in {r["measure"] for r in many["rows"]}:   # Holm over exactly this measure's systems
        fam = [r for r in many["rows"] if r["measure"] == measure]
        assert [r["p_adjusted"] for r in fam] == list(holm_bonferroni([r["p_value"] for r in fam]))
    # models with the same topics: the per-topic columns are per-item values, so stats.compare
    # pairs them itself; the same rows get the same raw and corrected p
    same = [with_corpus[0], with_corpus[2], with_corpus[3]]
    ours = compare_topic_models(same, n_resamples=400, seed=5)["comparison"]["rows"]
    theirs = compare([m.to_dict() for m in same], method="randomization", metrics=["sc", "npmi"],
                     n_resamples=400, seed=5)["rows"]
    for t in theirs:
        o = next(r for r in ours if r["system"] == t["system"] and r["measure"] == t["measure"])
        assert (o["p_value"], o["p_adjusted"], o["significant"]) == (t["p_value"], t["p_adjusted"], t["significant"])
        assert o["value"] == pytest.approx(t["value"], abs=1e-12)
        assert o["improvement_pct"] == pytest.approx(t["improvement_pct"], abs=1e-9)


def test_change_is_relative_to_the_absolute_baseline():
    """u_mass is negative and higher is better: a rise shows as a positive change."""
    doc = compare_topic_models([_model(A, "a", 0), _model(B, "b", 1)], n_resamples=200, seed=1)
    for r in doc["comparison"]["rows"]:
        want = (r["value"] - r["baseline_value"]) / abs(r["baseline_value"]) * 100
        assert r["improvement_pct"] == pytest.approx(want, rel=1e-12), r["measure"]
    assert any(r["baseline_value"] < 0 for r in doc["comparison"]["rows"])


def test_one_model_or_duplicate_names_refused():
    with pytest.raises(ScorekitError, match="at least two"):
        compare_topic_models([_model(A, "a", 0)])
    with pytest.raises(ScorekitError, match="distinct names"):
        compare_topic_models([_model(A, "a", 0), _model(B, "a", 1)])


@settings(max_examples=25, deadline=None)
@given(a=st.lists(st.integers(0, 6), min_size=2, max_size=6), b=st.lists(st.integers(0, 6), min_size=2, max_size=6))
def test_unpaired_test_matches_scipys_exact_permutation_test(a, b):
    """With many resamples the Monte Carlo p-value is within sampling error of scipy's exact one."""
    from scipy import stats

    x, y = np.array(a, float), np.array(b, float)
    ours = unpaired_test(x, y, n_resamples=20000, seed=1)
    assert ours.statistic == pytest.approx(x.mean() - y.mean(), abs=1e-12)
    if np.all(np.concatenate([x, y]) == x[0]):
        assert ours.p_value == 1.0
        return
    exact = stats.permutation_test((x, y), lambda u, v: np.mean(u) - np.mean(v), permutation_type="independent",
                                   alternative="two-sided", n_resamples=np.inf).pvalue
    assert abs(ours.p_value - exact) < 0.02 + 0.05 * exact
