"""The answer block and the cross-file overview, on the real output of each family (no browser:
tests/report/test_first_view.py checks the same answers in Chromium)."""

from __future__ import annotations

import copy
import re

from tests.report.report_helpers import Elements
from scorekit.report.html import render_report

RAW_KEYS = ("baseline_meteor", "meteor_improvement_pct", "target_1", "target_2", "bertscore_f1", "tuple_f1_s1",
            "break_rate", "sd_avg")


def answer_of(page: str) -> str:
    m = re.search(r'<div class="sk-answer".*?</div>(?=<div class="sk-warnings"|<details)', page, re.S)
    assert m, "no answer block"
    return m.group(0)


def visible_text(html: str) -> str:
    """The text a reader sees (tags and attribute values left out)."""
    return "".join(Elements(html).text)


def test_answers_speak_in_labels_not_keys(real):
    for name in ("caption_en", "caption_ko", "summary", "topics_en", "absa_seed42", "absa_seeds"):
        text = visible_text(answer_of(render_report([real.json(name)])))
        for key in RAW_KEYS:
            assert key not in text, (name, key)


def test_caption_answer_is_meteor_against_its_baseline_with_the_targets(real):
    data = real.json("caption_en")
    rep = data["extra"]["report"]
    html = answer_of(render_report([data]))
    el = Elements(html)
    (base,) = el.find(data_answer="baseline_meteor")
    assert float(base["data-value"]) == rep["baseline_meteor"]
    (pct,) = el.find(data_answer="meteor_change_pct")
    assert float(pct["data-value"]) == rep["meteor_improvement_pct"]
    text = visible_text(html)
    assert f"{data['metrics'][rep['primary']]:.4f}" in text and "final target" in text and "BERTScore F1" in text


def test_recipes_are_shown_whatever_they_are_called(real):
    data = copy.deepcopy(real.json("caption_en"))
    data["extra"]["report"]["meteor_recipe"] = "Meteor 1.5 (pycocoevalcap)"
    data["extra"]["report"]["baseline_recipe"] = "AI-Hub English baseline, Meteor 1.5"
    data["extra"]["report"]["spec_note"] = "the spec's ROUGE-L is 0 on Korean"
    page = render_report([data])
    text = visible_text(answer_of(page))
    assert "spec note: the spec's ROUGE-L is 0 on Korean" in text      # any other entry, in words
    assert 'data-extra="report"' not in page and "baseline_meteor" not in visible_text(page)
    assert "recipe of METEOR: Meteor 1.5 (pycocoevalcap)" in text
    assert "recipe of baseline: AI-Hub English baseline, Meteor 1.5" in text


def test_retrieval_answer_follows_the_first_measure_listed(real):
    data = real.json("retrieval_compare")
    first = next(iter(data["runs"][0]["metrics"]))
    html = answer_of(render_report([data]))
    assert f"Best on {first.replace('_', ' ')}" in visible_text(html)
    sig = Elements(html).with_class("sk-sig")
    assert {a["data-sig"] for a in sig} >= {"sig-none"}     # shape + colour class on every mark


def test_overview_of_several_files_ranks_and_marks_the_best(real):
    a, b = real.json("topics_en"), real.json("topics_ko")
    page = render_report([a, b], sources=["en.json", "ko.json"])
    table = re.search(r'<table class="sk-table sk-overview.*?</table>', page, re.S).group(0)
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    order = [re.findall(r"<td[^>]*>([^<]*)</td>", r)[1] for r in rows]
    best_first = sorted([a, b], key=lambda d: -d["metrics"]["overall"])
    assert order == [d["name"] for d in best_first]
    assert 'class="num best"' in table
    assert "ranked by overall" in page


def test_several_files_each_answer_in_the_contents(real):
    names = ("retrieval_compare", "caption_en", "sweep", "absa_seeds", "topics_en")
    page = render_report([real.json(n) for n in names], sources=[f"{n}.json" for n in names])
    toc = visible_text(re.search(r'<nav class="toc">.*?</nav>', page, re.S).group(0))
    sweep = real.json("sweep")["extra"]["recommendation"]["interval"][0]
    caption = real.json("caption_en")
    assert f"Recommended n = {sweep:g}" in toc
    prim = caption["extra"]["report"]["primary"]          # meteor15 for English (Meteor 1.5, as COCO)
    assert prim == "meteor15"
    assert f"METEOR 1.5 {caption['metrics'][prim]:.4f} against the baseline" in toc
    assert f"Overall {real.json('topics_en')['metrics']['overall']:.4f}" in toc
    assert toc.count("Best on") == 1 and "tuple F1" in toc


def test_topics_answer_leads_with_a_measure_written_with_parameters(real):
    """`scorekit topics -m "overall(sis=0.75)"` keys Overall as written: the answer still leads
    with it (before sc), as it does with a plain `overall`."""
    import copy

    data = copy.deepcopy(real.json("topics_en"))
    m = data["metrics"]
    data["metrics"] = {("overall(sis=0.75)" if k == "overall" else k): v for k, v in m.items()}
    text = visible_text(answer_of(render_report([data])))
    lead = text.index("overall(sis=0.75)")
    assert f"{m['overall']:.4f}" in text[lead:lead + 40] and lead < text.index("semantic coherence")


def test_absa_runs_compared_by_default_keep_their_own_answer_with_marks(real):
    """`absa aggregate RUN RUN` compares the runs with the first by default: the answer stays the
    ABSA headline of every run (not the generic best-system answer), each other run's numbers
    marked ▲/▼/○ from the comparison rows, the count of significant differences first."""
    data = copy.deepcopy(real.json("absa_both"))
    comp = data["comparison"]
    base, other = (r["name"] for r in data["runs"])
    assert comp["baseline"] == base and {r["system"] for r in comp["rows"]} == {other}
    el = Elements(answer_of(render_report([data])))
    for name in (base, other):
        for key in ("tuple_f1_s1", "tuple_f1_s2", "fix_rate", "break_rate", "net_gain"):
            (b,) = el.find(data_answer=f"{name}/{key}")
            assert float(b["data-value"]) == next(r for r in data["runs"] if r["name"] == name)["metrics"][key]
    marks = {a["data-answer"]: a["data-sig"] for a in el.find(data_answer=True) if a["data-answer"].endswith("/sig")}
    assert set(marks) == {f"{other}/{k}/sig" for k in ("tuple_f1_s1", "tuple_f1_s2", "fix_rate", "break_rate",
                                                          "net_gain")}
    (count,) = el.find(data_answer="compared/significant")
    assert int(count["data-value"]) == sum(bool(r["significant"]) for r in comp["rows"])
    assert "Best on" not in visible_text(answer_of(render_report([data])))
    # a significant drop of the break rate (lower is better) is marked better, a rise of F1 too
    for row in comp["rows"]:
        if row["measure"] in ("break_rate", "tuple_f1_s2"):
            row.update(significant=True, p_adjusted=0.01)
            row["value"], row["baseline_value"] = (0.1, 0.3) if row["measure"] == "break_rate" else (0.9, 0.8)
    el = Elements(answer_of(render_report([data])))
    (br,) = el.find(data_answer=f"{other}/break_rate/sig")
    (f1,) = el.find(data_answer=f"{other}/tuple_f1_s2/sig")
    assert br["data-sig"] == f1["data-sig"] == "sig-better" and "Holm p = 0.0100" in br["title"]
    (count,) = el.find(data_answer="compared/significant")
    assert int(count["data-value"]) == 2


def test_caption_answer_names_a_key_written_with_parameters_as_its_metric():
    """#26: meteor(lexicon=...) and bertscore_f1(model=DIR) answer as METEOR and BERTScore F1, as in
    a default run; when two keys stand for one metric, the parameters tell them apart."""
    from scorekit.generation.targets import report

    def answer(metrics):
        rep = report(metrics, lang="ko")
        data = {"task": "caption", "metrics": metrics, "signature": "task:caption|lang:ko",
                "extra": {"report": rep, "primary_metric": rep["primary"]}}
        return visible_text(answer_of(render_report([data])))

    one = answer({"meteor(lexicon=/a/b/syn.tsv)": 0.4, "cider": 0.9, "bertscore_f1(model=/x/y/klue)": 0.81,
                  "bertscore_p(model=/x/y/klue)": 0.79})
    assert "METEOR 0.4000 against the baseline 0.3052" in one and "reached the final target" in one
    assert "BERTScore F1" in one and "BERTScore precision" in one and "model=" not in one
    two = answer({"meteor": 0.4, "bertscore_f1": 0.7, "bertscore_f1(model=/x/y/klue)": 0.81})
    assert "BERTScore F1 (model=…/y/klue)" in two       # the other one, a folder by its last two parts
