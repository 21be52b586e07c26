"""The one metric registry answers for every result key every family writes."""

import pytest

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics import REGISTRY, Metric, Stats, VALUE_KINDS, describe, split_name
from scorekit.metrics.registry import FAMILY_MODULES


def test_every_family_loads_and_declares_valid_metadata():
    for family in FAMILY_MODULES:
        infos = REGISTRY.infos(family)
        assert infos, family
        for info in infos:
            assert info.kind in VALUE_KINDS and info.doc and info.family == family


@pytest.mark.parametrize("key,family,kind,higher", [
    ("ndcg@10", "retrieval", "rate", True), ("recall(rel=2)@10", "retrieval", "rate", True),
    ("r_precision", "retrieval", "rate", True), ("bleu_4", "caption", "rate", True),
    ("cider", "caption", "score", True), ("meteor", "caption", "rate", True),
    ("N_pred_final_aspects", "absa", "count", True), ("n_break", "absa", "count", False),
    ("break_rate", "absa", "rate", False), ("polarity_conflict_rate", "absa", "rate", False),
    ("delta_f1", "absa", "score", True), ("tuple_f1_s2", "absa", "rate", True),
    ("words", "summary", "count", False), ("lead/rouge1@3", "sweep", "rate", True),
    ("bertscore_f1@n7-7", "sweep", "score", True), ("u_mass", "topics", "score", True),
    ("c_v", "topics", "rate", True),
])
def test_describe(key, family, kind, higher):
    info = describe(key, family)
    assert info is not None and info.key == key
    assert (info.kind, info.higher_is_better) == (kind, higher)


def test_corpus_flags():
    assert describe("bleu_1", "caption").corpus and describe("cider", "caption").corpus
    assert not describe("meteor", "caption").corpus and not describe("ndcg@10").corpus


def test_every_absa_metric_is_declared():
    from scorekit.absa.metrics import METRIC_NAMES

    assert all(describe(k, "absa") is not None for k in METRIC_NAMES)


def test_unknown_key_is_none_and_unknown_name_suggests():
    assert describe("no_such_metric") is None
    with pytest.raises(UnknownNameError, match="did you mean 'ndcg'"):
        REGISTRY.metric_class("retrieval", "ndgc")


def test_split_name():
    assert split_name("recall(rel=2)@10") == ("recall", {"rel": "2", "k": "10"})
    assert split_name("bleu_4") == ("bleu_4", {})
    with pytest.raises(ScorekitError):
        split_name("recall(rel)@10")


def test_metric_keys_resolve_without_mutating_the_class():
    class Plain(Metric):
        name, family = "plain", "test"

    Plain()
    assert Plain.keys == () and Plain.result_keys() == ("plain",)


def test_retrieval_metric_faces_agree():
    import numpy as np

    from scorekit.metrics import get_metric
    from scorekit.retrieval.evaluate import RetrievalBatch
    from scorekit.retrieval.inputs import as_qrels, as_run

    j = RetrievalBatch(as_qrels({"a": {"d1": 0, "d2": 1}, "b": {"d3": 1}}),
                       as_run({"a": {"d1": 2.0, "d2": 1.0}, "b": {"d3": 1.0}}))
    assert np.array_equal(j.judged().pos, [0, 1, 0])
    m = get_metric("retrieval", "mrr", k=10)
    assert m(j) == {"mrr@10": 0.75}
    m.update(j).update(j)
    assert m.compute() == {"mrr@10": 0.75} and len(m.state()) == 4
    assert m.score(m.state().take([1, 3])) == {"mrr@10": 1.0}
    assert isinstance(m.state(), Stats)


def test_absa_aggregate_seeds_signature_puts_version_last():
    from scorekit.absa.aggregate import signature

    sig = signature(seeds=2, std="ddof0")
    assert "|metrics:counts,tuple_f1,transitions,conflicts,implicit_invalid,process,validator,override|" in sig
    assert sig.endswith("|override_summary:no|seeds:2|std:ddof0|version:" + __import__("scorekit").__version__)
    assert sig.count("version:") == 1


def test_docs_table_reads_the_registry():
    from scorekit.metrics.table import markdown

    table = markdown("caption")
    assert "| `chrf_pp` | higher | rate | yes |" in table and "| `meteor` | higher | rate | no |" in table


def test_a_bad_parameter_value_names_its_metric():
    # -m "chrf(beta=3),rouge_l_coco(beta=-1)" said only "parameter 'beta' must be in [0, inf]"
    from scorekit.metrics import Param

    class Ranged(Metric):
        name, family = "ranged", "test"
        params = (Param("beta", float, 1.0, low=0.0), Param("mode", str, "a", choices=("a", "b")))

    with pytest.raises(ScorekitError, match=r"^ranged: parameter 'beta' must be in \[0, inf\], got -1.0$"):
        Ranged(beta="-1")
    with pytest.raises(UnknownNameError, match=r"^ranged: unknown value of parameter 'mode' 'c'"):
        Ranged(mode="c")
    assert Ranged(beta="2").values == {"beta": 2.0, "mode": "a"}
