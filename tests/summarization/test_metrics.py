"""Summary metrics: the spec's Density code verbatim as oracle, Efficiency, ROUGE per item
against rouge-score, Korean."""

import re

import numpy as np
import pytest
from hypothesis import given, strategies as st

from scorekit.generation.model_metrics import load_bertscorer
from scorekit.summarization import metrics as M

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")


def simple_tokenize(text):  # the definition scorekit documents for the spec's undefined helper
    return re.findall(r"\w+", text.lower())


def compute_density(pred, original):  # nword-summarization.md, Phase 2 Metrics §4, verbatim
    pred_tokens = simple_tokenize(pred)
    orig_tokens = simple_tokenize(original)

    pred_set = set(pred_tokens)
    orig_set = set(orig_tokens)

    if not pred_tokens:
        return 0.0

    overlap = pred_set & orig_set
    return len(overlap) / len(pred_tokens)


TEXT = st.lists(st.sampled_from(["the", "The", "court", "opened", "an", "inquiry", "x1", "café", ",", "."]),
                max_size=15).map(" ".join)


@given(TEXT, TEXT)
def test_density_is_the_spec_code(pred, source):
    assert M.density(pred, source) == compute_density(pred, source)
    ctx = M.prepare_contexts(["ref"], [source])
    per = M.score_predictions([pred], ctx)  # the batch path agrees
    assert per["density"][0] == compute_density(pred, source)


def test_density_divides_a_set_by_a_token_count():
    assert M.density("the the the", "the") == pytest.approx(1 / 3)
    assert M.token_density("the the the", "the") == 1.0
    assert M.density("", "anything") == 0.0 and M.token_density("", "x") == 0.0
    # spec example: 11 of 12 prediction words occur in the source -> 0.92
    src = " ".join(f"w{i}" for i in range(11))
    pred = src + " novel"
    assert M.density(pred, src) == M.token_density(pred, src) == pytest.approx(11 / 12)


def test_efficiency_spec_example():
    assert M.efficiency(0.42, "one two three four five six seven eight nine") == pytest.approx(0.42 / 9)
    assert round(M.efficiency(0.42, " ".join(["w"] * 9)), 3) == 0.047  # spec prints 0.046 (truncated)
    assert M.efficiency(0.5, "") == 0.5  # max(1, words)


def test_korean_density_ignores_particles():
    src = "서울시가 한강 공원에 자전거 도로를 만든다"
    assert M.density("서울시는 자전거 도로 만든다", src) == 1.0
    assert M.density("부산시는 다리를 만든다", src) < 1.0


@given(st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=5))
def test_rouge_per_item_equals_rouge_score(pairs):
    sc = rouge_scorer.RougeScorer(["rouge1", "rouge2"])
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    per = M.score_predictions(preds, M.prepare_contexts(refs))
    for i, (p, r) in enumerate(pairs):
        s = sc.score(r, p)
        assert per["rouge1"][i] == s["rouge1"].fmeasure
        assert per["rouge2"][i] == s["rouge2"].fmeasure
        assert per["rouge1_r"][i] == s["rouge1"].recall
        assert per["rouge2_r"][i] == s["rouge2"].recall


@given(st.lists(st.tuples(st.text(alphabet=" abcderunsingplayedkt", max_size=40),
                          st.lists(st.text(alphabet=" abcderunsingplayedkt", max_size=40), min_size=1, max_size=3)),
                min_size=1, max_size=5))
def test_rouge_use_stemmer_equals_rouge_score(items):
    """#26: summary rouge(use_stemmer=true), built from the name grammar, equals rouge-score's
    RougeScorer(use_stemmer=True) (score_multi); the batch's --stem gives the same numbers."""
    import nltk

    from scorekit.metrics import get_metric
    from scorekit.summarization.metrics import SummaryBatch

    preds, refs = [p for p, _ in items], [rs for _, rs in items]
    m = get_metric("summary", "rouge(use_stemmer=true)")
    per = m.item_scores(m.item_stats(SummaryBatch(preds, refs, "en")))
    sc = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
    for i, (p, rs) in enumerate(items):
        s = sc.score_multi(rs, p)
        for kind in ("rouge1", "rouge2"):
            assert per[kind][i] == pytest.approx(s[kind].fmeasure, rel=1e-12, abs=1e-15)
            assert per[kind + "_r"][i] == pytest.approx(s[kind].recall, rel=1e-12, abs=1e-15)
    plain = get_metric("summary", "rouge")
    batch_stem = plain.item_scores(plain.item_stats(SummaryBatch(preds, refs, "en", stem=True)))
    for k in per:
        np.testing.assert_array_equal(batch_stem[k], per[k])
    assert m.signature_params() == {"rouge(use_stemmer=true)": f"stem=porter-nltk{nltk.__version__}"}


class FakeBERTScorer:
    name, num_layers = "fake", 3

    def score(self, candidates, references, idf_sentences=None):
        class Out:
            f1 = np.array([0.5 + 0.01 * len(c.split()) for c in candidates])
            truncated = 0
        return Out()

    def pin(self, truncated=0):
        return f"{self.name}/L{self.num_layers}"


def test_summary_metrics_result_and_efficiency():
    res = M.summary_metrics(["a b c", "court opened"], ["a b", ["x", "court opened inquiry"]],
                            ["a b c d", "the court opened"], ids=["d1", "d2"], bertscorer=FakeBERTScorer())
    assert res.per_item[0]["id"] == "d1"
    assert res.per_item[0]["efficiency"] == pytest.approx(0.53 / 3)
    assert res.per_item[1]["rouge1_r"] == pytest.approx(2 / 3)  # best of two references
    assert res.metrics["words"] == 2.5
    assert "bertscore:fake/L3" in res.signature and res.signature.startswith("task:summary|")
    assert res.metrics["density"] == 1.0


def test_summary_metrics_default_adds_bertscore_and_efficiency_like_the_cli():
    pytest.importorskip("torch")
    res = M.summary_metrics(["a court opened an inquiry"], ["the court opened an inquiry"])
    assert {"bertscore_f1", "efficiency"} <= set(res.metrics)
    assert "match=" in res.signature and "trunc=" in res.signature and "dtype=" in res.signature
    off = M.summary_metrics(["a court opened an inquiry"], ["the court opened an inquiry"], bertscorer=None)
    assert "bertscore_f1" not in off.metrics and "|bertscore:no|" in off.signature


def test_summary_metrics_extra_registered_metrics_equal_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    preds, refs = ["a court opened an inquiry", "법원이 조사를 시작했다"], ["the court opened an inquiry", "법원이 조사에 착수했다"]
    res = M.summary_metrics(preds, refs, bertscorer=None, metrics=["chrf"])
    assert res.metrics["chrf"] == sacrebleu.CHRF().corpus_score(preds, [refs]).score / 100


@pytest.mark.slow
def test_bertscore_parameters_through_the_grammar_equal_the_scorer_built_with_them():
    """#26: BERTScore's parameters are reachable only as `bertscore(...)` (no per-metric flags);
    each equals a BERTScorer built with it, and efficiency written bare follows it (one model,
    one F1: efficiency = F1 / max(1, words))."""
    pytest.importorskip("torch")
    preds = ["a court opened an inquiry", "the bank raised its rates today", "법원이 조사를 시작했다"]
    refs = ["the court opened an inquiry", ["rates rose", "the central bank raised rates"], "법원이 조사에 착수했다"]
    for args, kw in (("num_layers=3", {"num_layers": 3}), ("idf=true", {"idf": True}),
                     ("num_layers=2,idf=true,batch_size=2", {"num_layers": 2, "idf": True, "batch_size": 2})):
        res = M.summary_metrics(preds, refs, metrics=[f"bertscore({args})", "efficiency", "words"],
                                allow_english_model=True)   # MiniLM on the Korean item: the run's option
        key = f"bertscore_f1({args})"
        want = M.summary_metrics(preds, refs, bertscorer=load_bertscorer(True, allow_english_model=True, **kw),
                                 metrics=["bertscore", "efficiency"])
        assert res.metrics[key] == pytest.approx(want.metrics["bertscore_f1"], abs=1e-12), args
        assert res.metrics["efficiency"] == pytest.approx(want.metrics["efficiency"], abs=1e-12), args
        for row in res.per_item:
            assert row["efficiency"] == pytest.approx(row[key] / max(1.0, row["words"]), abs=1e-15)
    default = M.summary_metrics(preds[:2], refs[:2], metrics=["bertscore", "bertscore(num_layers=3)"])
    assert default.metrics["bertscore_f1"] != default.metrics["bertscore_f1(num_layers=3)"]
    with pytest.raises(M.ScorekitError, match="set for the whole batch"):
        M.summary_metrics(preds, refs, metrics=["bertscore(lang=ko)"])
    with pytest.raises(M.ScorekitError, match="set for the whole run, not per metric: --allow-english-model"):
        M.summary_metrics(preds, refs, metrics=["bertscore(allow_english_model=true)"])
