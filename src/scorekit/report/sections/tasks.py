"""The task sections (``@task_section("task")``, one renderer per task, as the answers in
:mod:`.answer`); what each shows and reads: docs/report.md, "Task-specific sections"."""

from __future__ import annotations

import numpy as np

from scorekit.report import charts
from scorekit.report.charts import esc, fmt, num_attr
from scorekit.report.model import (Doc, is_number, lower_is_better, numeric_item_fields,
                                   primary_metric, sort_key)
from scorekit.report.parts import cell, change_cell, figure, grid, section, table, text_html
from scorekit.report.sections.base import task_section
from scorekit.report.sections.common import kind_charts


# ---- retrieval: queries a run misses entirely; per-query wins/ties/losses against the baseline
@task_section("retrieval")
def retrieval_section(doc: Doc) -> tuple[str, set[str]]:
    prim = primary_metric(doc)
    if not prim:
        return "", set()
    per = [{str(row.get("id")): row.get(prim) for row in (r.get("per_item") or [])} for r in doc.runs]
    out = []
    zero = [sum(1 for v in p.values() if is_number(v) and v == 0) for p in per]
    if any(per):
        rows = [[doc.run_name(i), len(p), zero[i], (zero[i] / len(p)) if p else None] for i, p in enumerate(per)]
        out.append(table(["system", "queries", f"{prim} = 0", "share"], rows, cls="sk-failures",
                         caption=f"queries with {prim} = 0 (nothing relevant found)"))
    if doc.multi:
        names = doc.names()
        base = (doc.comparison or {}).get("baseline")
        b = names.index(base) if base in names else 0
        lb = lower_is_better(prim, doc)
        rows = []   # [system, wins, ties, losses] against the baseline, per query
        for k, p in enumerate(per):
            if k != b:
                diffs = [(bv - v) if lb else (v - bv) for qid, v in p.items()
                         if is_number(v) and is_number(bv := per[b].get(qid))]
                wins, ties = sum(d >= 1e-12 for d in diffs), sum(abs(d) < 1e-12 for d in diffs)
                rows.append([names[k], wins, ties, len(diffs) - wins - ties])
        if rows:
            cats, wins, ties, losses = (list(c) for c in zip(*rows))
            out.append(table(["system", "wins", "ties", "losses"], rows, cls="sk-wtl",
                             caption=f"per-query {prim} against {names[b]}"))
            out.append(figure(charts.grouped_bars(cats, {"wins": wins, "ties": ties, "losses": losses},
                                                  title=f"queries better / equal / worse than {names[b]} ({prim})",
                                                  digits=0, integer=True, scale="count",
                                                  colors=("#009E73", "#999999", "#D55E00"))))
    return section("retrieval: per-query outcome", "".join(out), cls="sk-task-retrieval"), set()


# ---------------------- captions: the worst and best as cards, prediction beside its references
@task_section("caption")
def caption_section(doc: Doc) -> tuple[str, set[str]]:
    # the METEOR baseline, the §7 targets and the recipes are the answer (sections/answer.py),
    # in words: not again as raw keys under "more details"
    consumed = {"report"} if isinstance(doc.extra_value("report"), dict) else set()
    prim = primary_metric(doc)
    items = doc.runs[0].get("per_item") or []
    if not prim or not items or not any("prediction" in row for row in items):
        return "", consumed
    lb = lower_is_better(prim, doc)
    order = sorted(range(len(items)), key=lambda i: (sort_key(items[i].get(prim), lb), i))
    scored = [i for i in order if is_number(items[i].get(prim))]
    worst, best = scored[:5], list(reversed(scored[-5:])) if len(scored) > 5 else []

    def card(i: int) -> str:
        row = items[i]
        refs = row.get("references") or row.get("reference") or []
        refs = [refs] if isinstance(refs, str) else refs
        scores = " · ".join(f"{esc(k)} {fmt(v)}" for k, v in row.items() if is_number(v))
        pred = row.get("prediction", "")
        pred_html = text_html(pred) if pred else '<i class="empty">(empty prediction)</i>'
        return (f'<div class="sk-card" data-id="{esc(row.get("id"))}" data-value="{num_attr(row.get(prim))}">'
                f'<div class="sk-card-head"><b>{text_html(row.get("id"))}</b> <span>{scores}</span></div>'
                f'<div class="sk-pair"><div><h5>prediction</h5><p>{pred_html}</p></div>'
                f'<div><h5>references</h5><ol>{"".join(f"<li>{text_html(r)}</li>" for r in refs)}</ol></div>'
                "</div></div>")

    body = (f"<h4>worst by {esc(prim)}</h4>" + "".join(card(i) for i in worst)
            + (f"<h4>best by {esc(prim)}</h4>" + "".join(card(i) for i in best) if best else ""))
    return section("captions: prediction beside references", body, cls="sk-task-caption"), consumed


# -------------- topics: one row per topic, its keywords (their per-keyword numbers as tooltips)
WORD_KEYS = ("keywords", "words", "top_words", "topic")
HEADLINE = ("sc", "coherence", "npmi", "c_v")


def _keywords_cell(row: dict, key: str, per_word: list[str]) -> str:
    words = [str(w) for w in row.get(key) or []]
    spans = []
    for j, w in enumerate(words):
        tip = " · ".join(f"{k} {fmt(row[k][j])}" for k in per_word
                         if isinstance(row.get(k), list) and j < len(row[k]) and is_number(row[k][j]))
        title = f' title="{esc(tip)}"' if tip else ""
        spans.append(f'<span class="kw"{title}>{text_html(w)}</span>')
    return f'<td class="sk-keywords">{", ".join(spans)}</td>'


@task_section("topics")
def topics_section(doc: Doc) -> tuple[str, set[str]]:
    items = doc.runs[0].get("per_item") or []
    key = next((k for k in WORD_KEYS if any(isinstance(r.get(k), list) for r in items)), None)
    if not key:
        return "", set()
    nums = numeric_item_fields(items)
    n_words = {len(r.get(key) or []) for r in items}
    per_word = [k for k in dict.fromkeys(k for r in items for k in r)
                if k != key and all(isinstance(r.get(k), list) and len(r[k]) == len(r.get(key) or [])
                                    and all(is_number(x) for x in r[k]) for r in items if r.get(key))]
    rows = [[cell(r.get("id")), _keywords_cell(r, key, per_word)] + [cell(r.get(m)) for m in nums]
            for r in items]
    about = (f"{len(items)} topics, {'/'.join(str(n) for n in sorted(n_words))} keywords each"
             + (f"; a keyword's tooltip shows its {', '.join(per_word)}" if per_word else ""))
    out = [f'<p class="note">{esc(about)}</p>', table(["topic", key] + nums, rows, cls="sk-topics", raw_cells=True)]
    head = next((m for m in HEADLINE if m in nums), nums[0] if nums else None)
    if head:
        ids = [str(r.get("id")) for r in items]
        out.append(figure(charts.grouped_bars(ids, {"": [r.get(head) for r in items]},
                                              title=f"{head} per topic ({'lower' if lower_is_better(head, doc) else 'higher'}"
                                                    " is better)", kind="bar", scale="per-topic")))
    return section("topics: keywords and per-topic scores", "".join(out), cls="sk-task-topics"), set()


# ------------------------------------- ABSA: stage 1 -> stage 2 tuple F1; the spread over seeds
STAGES = (("tuple_f1_s1", "tuple_f1_s2"), ("triplet_f1_s1", "triplet_f1_s2"))


def _spread_from_std(doc: Doc) -> str:
    std = doc.extra_value("std")
    if not isinstance(std, dict) or not std:
        return ""
    n_seeds = doc.extra_value("n_seeds") if isinstance(doc.extra_value("n_seeds"), dict) else {}
    mean = doc.runs[0].get("metrics") or {}
    names = [m for m in mean if m in std]
    rows = [[cell(m), cell(mu), cell(sd), cell(n_seeds.get(m)),
             f'<td class="num">{f"{mu:.4f} ± {sd:.4f}" if both else "–"}</td>']
            for m in names for mu, sd in [(mean.get(m), std.get(m))]
            for both in [is_number(mu) and is_number(sd)]]
    seeds = max((v for v in n_seeds.values() if is_number(v)), default=None)
    out = table(["metric", "mean", "std", "seeds", "mean ± std"], rows, cls="sk-seeds", raw_cells=True,
                caption=f"across {seeds} seeds (std: population, ddof=0)" if seeds else "across seeds")
    charted = [m for m in names if is_number(mean.get(m))]
    errors = [std.get(m) if is_number(std.get(m)) else None for m in charted]
    return out + grid(kind_charts(charted, {"": [mean.get(m) for m in charted]}, doc.task,
                                  errors={"": errors}, title="mean ± std over seeds"))


def _spread_from_records(doc: Doc) -> str:
    seeds = doc.extra_value("seeds")
    if not (isinstance(seeds, list) and seeds and all(isinstance(s, dict) for s in seeds)):
        return ""
    cols = [c for c in numeric_item_fields(seeds) if c != "seed"]
    rows = [[c, len(v), float(v.mean()) if v.size else None,
             float(v.std(ddof=1)) if v.size > 1 else None,
             float(v.min()) if v.size else None, float(v.max()) if v.size else None]
            for c in cols for v in [np.array([s[c] for s in seeds if is_number(s.get(c))], float)]]
    return (table(["metric", "seeds", "mean", "std (ddof=1)", "min", "max"], rows, cls="sk-seeds",
                  caption="across seeds")
            + figure(charts.box_plot({c: [s[c] for s in seeds if is_number(s.get(c))]
                                      for c in cols}, title="spread across seeds"))
            + table(list(seeds[0].keys()), [list(s.values()) for s in seeds], caption="per seed"))


def _stages(doc: Doc) -> str:
    rows = [[cell(doc.run_name(i)), cell(s1.rsplit("_", 1)[0].replace("_f1", " F1")),   # "tuple F1"
             cell(m[s1]), cell(m[s2]), change_cell(m[s2], m[s1])]
            for i, r in enumerate(doc.runs) for m in [r.get("metrics") or {}] for s1, s2 in STAGES
            if is_number(m.get(s1)) and is_number(m.get(s2))]
    if not rows:
        return ""
    return table(["run", "metric", "stage 1", "stage 2", "change"], rows, cls="sk-stages", raw_cells=True,
                 caption="stage 1 → stage 2 (change = stage 2 − stage 1, relative change)")


@task_section("absa")
def absa_section(doc: Doc) -> tuple[str, set[str]]:
    spread, rec = _spread_from_std(doc), _spread_from_records(doc)
    consumed = ({"std", "n_seeds"} if spread else set()) | ({"seeds"} if rec else set())
    return (section("ABSA: stage 1 → stage 2", _stages(doc), cls="sk-task-absa")
            + section("ABSA: spread over seeds", spread + rec, cls="sk-absa-seeds"), consumed)


# ---------- RL cross-validation: reward curves per fold; the policy against lead-n and TextRank
@task_section("summarize-rl-cv")
def rl_cv_section(doc: Doc) -> tuple[str, set[str]]:
    extra = doc.runs[0].get("extra") or {}
    out = []
    curve = (extra.get("reward_curve") or {}).get("episodes") or []
    if curve:
        length = max(len(c) for c in curve)
        window = max(1, length // 20)
        series = {f"fold {f + 1}": {"mean": [sum(w) / len(w) for i in range(len(c))
                                             for w in [c[max(0, i - window + 1):i + 1]]]
                                    + [None] * (length - len(c))} for f, c in enumerate(curve)}
        out.append(figure(charts.line_chart(list(range(1, length + 1)), series,
                                            title=f"training reward (running mean over {window} episodes)",
                                            xlabel="episode", ylabel="BERTScore F1")))
    comps = extra.get("comparisons") or []
    if comps:
        rows = [[c.get("against"), c.get("n"), c.get("diff"), f"[{c.get('low'):+.3f}, {c.get('high'):+.3f}]",
                 c.get("p_t"), c.get("p_bootstrap")] for c in comps]
        out.append(table(["rl vs", "n", "mean diff", "95% CI", "p (paired t)", "p (bootstrap)"], rows,
                         caption="held-out: the policy against lead-n and TextRank (paired per article)",
                         cls="sk-rl-compare"))
    goal = extra.get("goal") or {}
    if goal:
        out.append("<p>not significantly worse than lead-n: <b>{}</b>; significantly better than TextRank: "
                   "<b>{}</b></p>".format("yes" if goal.get("not_worse_than_lead") else "no",
                                          "yes" if goal.get("better_than_textrank") else "no"))
    if not out:
        return "", set()
    html = '<section class="sk-section sk-rl"><h3>reinforcement-learned summariser</h3>' + "".join(out) + "</section>"
    return html, {"reward_curve", "comparisons", "goal"}
