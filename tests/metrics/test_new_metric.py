"""docs/adding-a-metric.md, checked: a new metric with a parameter is one source file, and is then
reachable from the API, the CLI (`-m` grammar, its help, "did you mean"), the report, the
signature, the run store and `runs compare`, forked parts and Ray — with nothing else edited.

The source file below is written to a temporary folder and imported, as a user's own package
would be; the registry is restored afterwards (the harness-coverage test demands a case for every
registered class, and this one is not shipped)."""

from __future__ import annotations

import importlib
import json
import os
import sys

import numpy as np
import pytest

from scorekit.errors import ScorekitError

SOURCE = '''
"""Length ratio: LR = (sum_i |h_i| / sum_i |r_i|) ** power, with r_i the shortest reference of item i
(a corpus metric: the sums are merged over shards before the ratio)."""

import numpy as np

from scorekit.generation.batch import CaptionMetric
from scorekit.metrics import Param, Stats
from scorekit.metrics.registry import register


@register
class LengthRatio(CaptionMetric):
    """Caption length over the shortest reference's, summed over the corpus, to a power."""

    name = "len_ratio_demo"
    kind = "score"
    corpus = True
    params = (*CaptionMetric.params, Param("power", float, 1.0, "the exponent", low=0.0, high=10.0))

    def item_stats(self, batch):
        hyps, refs = self.batch(batch).tokens()
        return Stats({"hyp": np.array([len(h) for h in hyps], dtype=float),
                      "ref": np.array([min(len(r) for r in rs) for rs in refs], dtype=float)})

    def score(self, stats):
        return {"len_ratio_demo": float((stats.columns["hyp"].sum() / stats.columns["ref"].sum())
                                        ** self.values["power"])}

    def item_scores(self, stats):
        return {"len_ratio_demo": (stats.columns["hyp"] / stats.columns["ref"]) ** self.values["power"]}
'''

REFS = [["a man rides a wave on a board"], ["two dogs play in the park", "dogs play"],
        ["a cat sleeps on the sofa"], ["a child eats an apple"], ["the sun sets over the sea"],
        ["a red car on the road"], ["고양이가 소파 위에서 잔다"]]
A = ["a man on a wave", "dogs play", "a cat on a sofa", "child eats", "sun over sea", "a car", "고양이가 잔다"]
B = ["a man rides a wave", "two dogs play in a park", "a cat sleeps on a sofa", "a child eats an apple",
     "the sun sets over the sea", "a red car", "고양이가 소파에서 잔다"]


def oracle(preds, refs, power):
    """The formula on whitespace words (these captions have no punctuation, so COCO's tokens are
    the words)."""
    h = np.array([len(p.split()) for p in preds], dtype=float)
    r = np.array([min(len(x.split()) for x in rs) for rs in refs], dtype=float)
    return (h.sum() / r.sum()) ** power, (h / r) ** power


@pytest.fixture
def toy(tmp_path, monkeypatch):
    from scorekit.metrics.registry import REGISTRY

    REGISTRY.names("caption")                      # the shipped family first
    classes, keys = dict(REGISTRY._classes), dict(REGISTRY._keys)
    pkg = tmp_path / "userpkg"
    pkg.mkdir()
    (pkg / "sk_toy_metric.py").write_text(SOURCE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(pkg))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pkg), os.environ.get("PYTHONPATH", "")]))
    mod = importlib.import_module("sk_toy_metric")
    yield mod
    REGISTRY._classes.clear(), REGISTRY._classes.update(classes)
    REGISTRY._keys.clear(), REGISTRY._keys.update(keys)
    sys.modules.pop("sk_toy_metric", None)


def test_api_grammar_parameters_and_errors(toy):
    from scorekit.generation import evaluate

    res = evaluate(A, REFS, lang="en", metrics=["len_ratio_demo", "len_ratio_demo(power=2)"])
    for key, power in (("len_ratio_demo", 1.0), ("len_ratio_demo(power=2)", 2.0)):
        corpus, per = oracle(A, REFS, power)
        assert res.metrics[key] == pytest.approx(corpus, rel=1e-12)
        np.testing.assert_allclose([row[key] for row in res.per_item], per, rtol=1e-12)
    assert "len_ratio_demo(power=2)" in res.signature
    for bad, words in (("len_ratio_demo(power=11)", "power"), ("len_ratio_demo(powr=2)", "did you mean 'power'"),
                       ("len_ratio_dem", "did you mean 'len_ratio_demo'")):
        with pytest.raises(ScorekitError, match=words) as err:
            evaluate(A, REFS, lang="en", metrics=[bad])
        assert "\n" not in str(err.value)


def test_cli_report_store_and_runs_compare(toy, tmp_path, capsys):
    from scorekit.cli import main
    from scorekit.generation.driver import metric_from_signature
    from scorekit.io.run_store import RunStore
    from scorekit.stats.compare import compare_runs

    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps({str(i): r for i, r in enumerate(REFS)}, ensure_ascii=False), encoding="utf-8")
    db = tmp_path / "runs.db"
    docs = {}
    for label, preds in (("a", A), ("b", B)):
        p = tmp_path / f"{label}.json"
        p.write_text(json.dumps({str(i): c for i, c in enumerate(preds)}, ensure_ascii=False), encoding="utf-8")
        out, html = tmp_path / f"{label}_out.json", tmp_path / f"{label}.html"
        assert main(["caption", "-p", str(p), "-r", str(refs), "--lang", "en", "-m",
                     "len_ratio_demo(power=2),bleu_4", "-o", str(out), "--report", str(html),
                     "--record", "--store", str(db), "-q"]) == 0, capsys.readouterr().err
        docs[label] = json.loads(out.read_text(encoding="utf-8"))
        assert docs[label]["metrics"]["len_ratio_demo(power=2)"] == pytest.approx(oracle(preds, REFS, 2)[0], rel=1e-12)
        page = html.read_text(encoding="utf-8")
        assert "len_ratio_demo(power=2)" in page
        assert "Caption length over the shortest reference" in page      # the declared doc, not "unknown"
    capsys.readouterr()
    assert main(["caption", "--help"]) == 0
    assert "len_ratio_demo(power)" in capsys.readouterr().out.replace("\n", " ").replace("  ", "")
    with RunStore(db) as store:
        assert len(store.list(task="caption")) == 2
    m = metric_from_signature("len_ratio_demo(power=2)", docs["b"]["signature"])
    assert (m.name, m.values["power"]) == ("len_ratio_demo", 2.0)
    doc = compare_runs(docs["a"], docs["b"], method="bootstrap", n_resamples=200, seed=1)
    row = {r["measure"]: r for r in doc["comparison"]["rows"]}["len_ratio_demo(power=2)"]
    assert "corpus score" in row["test"]              # recomputed from merged statistics, power 2
    assert row["value"] == docs["b"]["metrics"]["len_ratio_demo(power=2)"]
    assert 0 <= row["p_value"] <= 1


def test_forked_parts_give_the_same_numbers(toy):
    from scorekit.engine.executors import Forked
    from scorekit.generation import evaluate

    one = evaluate(A * 5, REFS * 5, lang="en", metrics=["len_ratio_demo(power=3)"])
    forked = evaluate(A * 5, REFS * 5, lang="en", metrics=["len_ratio_demo(power=3)"],
                      engine=Forked(workers=2, items_per_shard=4))
    assert forked.metrics == one.metrics and forked.per_item == one.per_item


@pytest.mark.xdist_group("ray")
def test_ray_gives_the_same_numbers(toy):
    pytest.importorskip("ray")
    from scorekit.engine.ray_engine import RayEngine
    from scorekit.generation import evaluate

    one = evaluate(A * 5, REFS * 5, lang="en", metrics=["len_ratio_demo(power=3)", "bleu_4"])
    with RayEngine(num_cpus=2, progress=False) as eng:
        eng.items_per_shard = 4                   # several shards of 35 items
        on_ray = evaluate(A * 5, REFS * 5, lang="en", metrics=["len_ratio_demo(power=3)", "bleu_4"], engine=eng)
    assert on_ray.metrics == one.metrics and on_ray.per_item == one.per_item
