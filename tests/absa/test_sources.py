"""§2 extraction priorities and fallbacks, counted in the §5 N_pred_* figures."""

import unicodedata

from tests.absa.rows import entry, t

from scorekit.absa import sources
from scorekit.absa.aggregate import aggregate_run
from scorekit.absa.normalize import normalize_polarity, normalize_term
from scorekit.absa.scorecard import make_scorecard, wrap


def test_final_priority_and_fallbacks():
    both = entry("a", final=[t("배송", "positive")], final_result={"final_aspects": [t("포장", "negative")]},
                 inputs={"aspect_sentiments": [t("맛", "neutral")]})
    assert sources.extract_final(wrap(both)).source == "final_tuples"
    aspects = entry("b", final=[], final_result={"final_aspects": [t("포장", "negative")]},
                    inputs={"aspect_sentiments": [t("맛", "neutral")]})
    ex = sources.extract_final(wrap(aspects))
    assert ex.source == "final_aspects" and ex.pairs == {("포장", "negative")}
    inputs = entry("c", final=None, inputs={"aspect_sentiments": [t("맛", "neu")]})
    ex = sources.extract_final(wrap(inputs))
    assert ex.source == "inputs.aspect_sentiments" and ex.pairs == {("맛", "neutral")}
    none = entry("d", final=[{}])      # an empty dict is no tuple
    assert sources.extract_final(wrap(none)).source == "none"
    m = aggregate_run([make_scorecard(e) for e in (both, aspects, inputs, none)]).metrics
    assert (m["N_pred_final_tuples"], m["N_pred_final_aspects"], m["N_pred_inputs_aspect_sentiments"],
            m["N_pred_none"], m["N_agg_fallback_used"]) == (1, 1, 1, 1, 2)


def test_stage1_priority_and_fallbacks():
    trace = [{"stage": "Stage1", "agent": "ATSA", "output": {"aspect_sentiments": [t("사이즈", "neutral")]}}]
    direct = entry("a", s1=[t("색", "positive")], final=[t("색", "negative")], process_trace=trace)
    assert sources.extract_stage1(wrap(direct)).source == "stage1_tuples"
    via_trace = entry("b", s1=[], final=[t("사이즈", "negative")], process_trace=trace)
    ex = sources.extract_stage1(wrap(via_trace))
    assert ex.source == "trace_atsa" and ex.pairs == {("사이즈", "neutral")}
    fallback = entry("c", final=[t("사이즈", "negative")])
    ex = sources.extract_stage1(wrap(fallback))
    assert ex.source == "final_fallback" and ex.pairs == {("사이즈", "negative")}
    sc = make_scorecard(fallback)
    assert sc["stage_delta"]["changed"] is False   # stage1 fell back to the final tuples
    m = aggregate_run([make_scorecard(e) for e in (direct, via_trace, fallback)]).metrics
    assert (m["N_stage1_stage1_tuples"], m["N_stage1_trace_atsa"], m["N_stage1_final_fallback"]) == (1, 1, 1)


def test_tuple_shapes():
    items = sources.to_items([
        {"aspect_term": {"term": "Battery ", "span": {"start": 0, "end": 7}}, "label": "POS"},
        {"opinion_term": {"term": "화면"}, "polarity": "긍정"},
        {"aspect_term": "무시됨", "is_implicit": True, "polarity": "부정"},
        "not a dict", None, {},
    ])
    assert [(i.term, i.polarity) for i in items] == [("battery", "positive"), ("화면", "positive"), ("", "negative")]


def test_gold_lookup_order_and_absence():
    assert sources.gold_items(wrap({"inputs": {"gold_tuples": [t("a", "positive")]},
                                    "gold_tuples": [t("b", "positive")]}))[0].term == "a"
    assert sources.gold_items(wrap({"gold": [t("b", "positive")]}))[0].term == "b"
    assert sources.gold_items(wrap({"gold_triplets": [{"opinion_term": {"term": "c"}, "polarity": "neg"}]}))[0].term == "c"
    assert sources.gold_items(wrap({"inputs": {"gold_tuples": []}})) == ()
    assert sources.gold_items(wrap({"meta": {}})) is None


def test_scorecard_wrap_and_change_type():
    e = entry("x", [t("a", "positive")], [t("a", "negative")], [t("a", "negative")], arb=[{"k": 1}])
    sc = make_scorecard(e, run_id="r")
    assert sc["runtime"]["parsed_output"] is e and sc["run_id"] == "r" and sc["text_id"] == "x"
    assert sc["inputs"]["gold_tuples"] == [t("a", "negative")]
    assert sc["stage_delta"]["change_type"] == "guided_by_review"
    # the aggregator recomputes stage_delta with the same function when a scorecard lacks one
    bare = wrap(e)
    assert sources.stage_delta(bare)["change_type"] == "guided_by_review"
    assert sources.stage_delta(wrap(entry("y", [t("a", "positive")], [t("a", "positive")], review=[1])))[
        "change_type"] == "none"


def test_normalisation_rules():
    assert normalize_term(unicodedata.normalize("NFD", "  배송 ")) == "배송"
    assert normalize_term("“Battery   Life”.") == "battery life"
    assert normalize_term("「포장」") == "포장"
    assert normalize_term(None) == "" and normalize_term(3) == ""
    assert normalize_polarity("Neg") == ("negative", False)
    assert normalize_polarity(" 중립 ") == ("neutral", False)
    assert normalize_polarity("") == ("neutral", True)
    assert normalize_polarity(None) == ("neutral", True)
    assert normalize_polarity("great") == ("great", False)
