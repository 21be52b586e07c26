"""The answer: the first thing under each result's title (docs/report.md, "The first view answers
the question"), one function per task registered with ``@answer("task")``. Every number shown
carries ``data-answer="<what>"`` and its full-precision ``data-value``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorekit.report.charts import esc, fmt, nth, num_attr
from scorekit.report.model import (LABELS, Doc, best_values, is_number, label, lower_is_better,
                                   primary_metric, sort_key)
from scorekit.report import parts
from scorekit.report.parts import delta_text, pct_text, text_html
from scorekit.report.sections.base import registrar

AnswerFn = Callable[[Doc], str]
ANSWERS: dict[str, AnswerFn] = {}
answer = registrar(ANSWERS)
TILES = 6   # metrics shown as tiles by the generic answer

# significance: shape AND colour (never colour alone)
SIG_BETTER, SIG_WORSE, SIG_NONE = "▲", "▼", "○"
SIG_TEXT = {SIG_BETTER: "significantly better", SIG_WORSE: "significantly worse", SIG_NONE: "not significant"}
SIG_SHORT = {SIG_BETTER: "better", SIG_WORSE: "worse", SIG_NONE: "n.s."}
SIG_CLASS = {SIG_BETTER: "sig-better", SIG_WORSE: "sig-worse", SIG_NONE: "sig-none"}


def answer_html(doc: Doc) -> str:
    # several systems compared against a baseline (retrieval, `runs compare` of any task, ...):
    # the best system, its margin and its significance; else the task's own answer
    fn = (comparison_answer if doc.multi and doc.comparison and doc.task not in OWN_COMPARISON
          else ANSWERS.get(doc.task, generic_answer))
    body = fn(doc) or generic_answer(doc)
    return (f'<div class="sk-answer" data-task="{esc(doc.task)}" role="region" '
            f'aria-label="the answer">{body}</div>' if body else "")


# ---------------------------------------------------------------------------------- pieces
def num(value: Any, what: str, digits: int = 4, cls: str = "") -> str:
    """A number of the answer: shown rounded, full precision in ``data-value``."""
    shown = fmt(value, digits) if is_number(value) else "–"
    c = f' class="{cls}"' if cls else ""
    return f'<b data-answer="{esc(what)}" data-value="{num_attr(value if is_number(value) else None)}"{c}>{shown}</b>'


def change(value: Any, base: Any, what: str, pct: Any = None) -> str:
    """``+0.6000 (+150.0%)``: the absolute change, then the relative one (as everywhere)."""
    if (ch := parts.change(value, base, pct)) is None:
        return "–"
    d, pct = ch
    rel = f' (<span data-answer="{esc(what)}_pct" data-value="{num_attr(pct)}">{pct_text(pct)}</span>)' \
        if is_number(pct) else ""
    return f'<span data-answer="{esc(what)}" data-value="{num_attr(d)}">{delta_text(d)}</span>{rel}'


def sig_mark(symbol: str, what: str = "", short: bool = False) -> str:
    """▲ better / ▼ worse / ○ not significant: a shape and a colour (and words)."""
    attr = f' data-answer="{esc(what)}"' if what else ""
    words = SIG_SHORT[symbol] if short else SIG_TEXT[symbol]
    return (f'<span class="sk-sig {SIG_CLASS[symbol]}"{attr} data-sig="{SIG_CLASS[symbol]}" title="{SIG_TEXT[symbol]}">'
            f'<span aria-hidden="true">{symbol}</span> {words}</span>')


def tiles(doc: Doc, keys: Sequence[str]) -> str:
    """The first run's metrics ``keys`` as tiles: the label above, the number big."""
    arrow = {True: ' <span class="sk-dir" title="lower is better">↓ better</span>', False: ""}
    out = "".join(f'<div class="sk-tile" title="{esc(key)}"><span class="sk-tile-label">'
                  f'{text_html(label(key, doc.task))}{arrow[lower_is_better(key, doc)]}</span>'
                  f'{num(_metrics(doc).get(key), key)}</div>' for key in keys)
    return f'<div class="sk-tiles">{out}</div>' if out else ""


def mini_table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    """A small table of ready HTML cells (the answer's own: no sorting, no scroll box needed)."""
    head = "".join(f'<th scope="col">{h}</th>' for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="sk-answer-table {cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def headline(html: str) -> str:
    return f'<p class="sk-headline">{html}</p>'


def _metrics(doc: Doc, i: int = 0) -> dict[str, Any]:
    return doc.runs[i].get("metrics") or {}


# --------------------------------------------------------------------------------- generic
def generic_answer(doc: Doc) -> str:
    return ranked_runs(doc) if doc.multi else tiles(doc, [k for k, v in _metrics(doc).items()
                                                          if is_number(v)][:TILES])


def one_run(doc: Doc, keys: Sequence[str], lead: Sequence[str], noun: str, no_items: str = "") -> str:
    """One run: its ``lead`` metrics said over its items (``noun``), then its ``keys`` as tiles."""
    m, n = _metrics(doc), len(doc.runs[0].get("per_item") or [])
    said = ", ".join(f"{esc(label(k, doc.task))} {fmt(m[k])}" for k in lead)
    return (headline((f"{said} over " if said else "") + (f"{n} {noun} of " if n else no_items)
                     + f"<b>{text_html(doc.run_name(0))}</b>.")
            + tiles(doc, [k for k in keys if is_number(m.get(k))][:8]))


def ranked_runs(doc: Doc, measures: Sequence[str] | None = None) -> str:
    """Several runs ranked by the primary metric; the best value of each measure in bold."""
    prim = primary_metric(doc) or (doc.metric_names() or [None])[0]
    if prim is None:
        return ""
    measures = list(measures or [prim] + [m for m in doc.metric_names() if m != prim][:TILES - 1])
    lb = {m: lower_is_better(m, doc) for m in measures}
    order = sorted(range(len(doc.runs)), key=lambda i: sort_key(_metrics(doc, i).get(prim), not lb[prim]))
    best = best_values([_metrics(doc, i) for i in range(len(doc.runs))], measures, lb.get, at_least=1)

    def value(i: int, m: str) -> str:
        v = _metrics(doc, i).get(m)
        return num(v, f"{doc.run_name(i)}/{m}", cls="best" if m in best and v == best[m] else "")

    rows = [[str(rank), text_html(doc.run_name(i))] + [value(i, m) for m in measures]
            for rank, i in enumerate(order, 1)]
    head = headline(f"Ranked by {esc(label(prim, doc.task))} ({'lower' if lb[prim] else 'higher'} "
                    f"is better): best is <b>{text_html(doc.run_name(order[0]))}</b>.")
    return head + mini_table(["#", "run"] + [text_html(label(m, doc.task)) + (" ↓" if lb[m] else "")
                                             for m in measures], rows, cls="sk-ranked")


# ------------------------------------------------------------------------------- retrieval
def significance(row: Mapping[str, Any], doc: Doc) -> str:
    """▲ / ▼ / ○ of one comparison row, by its measure's direction."""
    v, b = row.get("value"), row.get("baseline_value")
    if not (row.get("significant") and is_number(v) and is_number(b)):
        return SIG_NONE
    return SIG_BETTER if (v < b if lower_is_better(str(row.get("measure")), doc) else v > b) else SIG_WORSE


@answer("retrieval")
def retrieval_answer(doc: Doc) -> str:
    prim = primary_metric(doc)
    if not prim:
        return ""
    if doc.multi:
        return ranked_runs(doc)   # (with a comparison, answer_html answers with comparison_answer)
    m = _metrics(doc)
    keys = [prim] + [k for k in m if k != prim and is_number(m[k])][:TILES - 1]
    return (headline(f"<b>{text_html(doc.run_name(0))}</b> on {len(doc.runs[0].get('per_item') or [])} queries")
            + tiles(doc, keys))


def comparison_answer(doc: Doc) -> str:
    """The best system on the primary metric, its margin over the baseline, p and significance."""
    prim = primary_metric(doc)
    if not prim:
        return ""
    comp = doc.comparison or {}
    rows = [r for r in comp.get("rows") or [] if isinstance(r, dict)]
    names = doc.names()
    b = names.index(comp.get("baseline")) if comp.get("baseline") in names else 0
    base, bv, lb = names[b], _metrics(doc, b).get(prim), lower_is_better(prim, doc)
    order = sorted(range(len(doc.runs)), key=lambda i: sort_key(_metrics(doc, i).get(prim), not lb))
    best = order[0]
    by_sys = {str(r.get("system")): r for r in rows if r.get("measure") == prim}
    test = comp.get("test") or comp.get("method")
    how = ", ".join(x for x in (f"{test} test" if test else "", "Holm-corrected" if comp.get("correction") else "",
                                f"α = {comp.get('alpha')}" if comp.get("alpha") is not None else "") if x)
    # the reader's name, with the key as written when it reads differently (nDCG@10 (ndcg_cut.10))
    shown_name = esc(label(prim, doc.task))
    if label(prim, doc.task).replace(" ", "_").lower() != prim.lower():
        shown_name += f" <small>({esc(prim)})</small>"
    table_rows = []
    for rank, i in enumerate(order, 1):
        name, v, r = names[i], _metrics(doc, i).get(prim), by_sys.get(names[i]) or {}
        what = f"{name}/{prim}"
        table_rows.append([str(rank), text_html(name) + " <small>(baseline)</small>", num(v, what)]
                          + [""] * 3 if i == b else
                          [str(rank), text_html(name), num(v, what),
                           change(v, bv, f"{what}/change", r.get("improvement_pct")),
                           num(r.get("p_adjusted", r.get("p_value")), f"{what}/p"),
                           sig_mark(significance(r, doc), f"{what}/sig", short=True)])
    bname, wins = names[best], ""
    if best == b:
        head = (f"On {shown_name}, the baseline <b>{text_html(base)}</b> is best "
                f"({num(bv, 'best/' + prim)}).")
    else:
        r = by_sys.get(bname) or {}
        p, v = r.get("p_adjusted", r.get("p_value")), _metrics(doc, best).get(prim)
        head = (f"Best on {shown_name}: <b>{text_html(bname)}</b> {num(v, 'best/' + prim)}, "
                f"{change(v, bv, 'best/change', r.get('improvement_pct'))}"
                f" over {text_html(base)} — {sig_mark(significance(r, doc), 'best/sig')}"
                + (f" (p = {num(p, 'best/p')})" if is_number(p) else "") + ".")
        mine = [r for r in rows if str(r.get("system")) == bname]
        if len(mine) >= 2:   # on how many measures the best system is better
            counts = Counter(significance(r, doc) for r in mine)
            higher = sum(1 for r in mine if is_number(v := r.get("value"))
                         and is_number(bv := r.get("baseline_value"))
                         and (v < bv if lower_is_better(str(r.get("measure")), doc) else v > bv))
            wins = (f'<p class="sk-sub">{text_html(bname)} is better on '
                    f'<b data-answer="better_on" data-value="{higher}">{higher}</b> of {len(mine)} '
                    f"measures: {sig_mark(SIG_BETTER, short=True)} significantly on "
                    f"{counts[SIG_BETTER]}, {sig_mark(SIG_WORSE, short=True)} on "
                    f"{counts[SIG_WORSE]}, {sig_mark(SIG_NONE, short=True)} on "
                    f"{counts[SIG_NONE]}.</p>")
    by = f"the first measure listed ({esc(prim)})" if doc.task == "retrieval" else esc(prim)
    note = f'<p class="note">{esc(how) + "; " if how else ""}ranked by {by}.</p>'
    return (headline(head) + mini_table(["#", "system", esc(label(prim, doc.task)), f"change vs {text_html(base)}",
                                         "p", "sig."], table_rows, cls="sk-ranked") + wins + note)


# -------------------------------------------------------------------------------- captions
@answer("caption")
def caption_answer(doc: Doc) -> str:
    from scorekit.metrics.registry import declared_key

    rep = doc.extra_value("report") if isinstance(doc.extra_value("report"), dict) else {}
    m = _metrics(doc)
    prim = rep.get("primary") if isinstance(rep.get("primary"), str) else primary_metric(doc)
    if not prim or prim not in m:
        return generic_answer(doc)
    # a key written with parameters (bertscore_f1(model=DIR)) is named as its declared key, as in a
    # default run, unless another key of the run resolves to it too (then with its parameters)
    declared = Counter(declared_key(k) for k in m)

    def name(key: str) -> str:
        d = declared_key(key)
        return label(d if declared[d] == 1 else key, doc.task)

    base = rep.get("baseline_meteor")
    head = f"{esc(name(prim))} {num(m[prim], prim)} " + (
        f"against the baseline {num(base, 'baseline_meteor')}: "
        f"{change(m[prim], base, 'meteor_change', rep.get('meteor_improvement_pct'))}"
        if is_number(base) else "(no baseline given)")
    targets = [t for t in rep.get("targets") or [] if isinstance(t, dict)]
    first = next((t for t in targets if t.get("metric") == prim), None)
    if first is not None:
        reached = first.get("reached")
        head += (f" — <span data-answer='{esc(prim)}/reached' data-value='{esc(reached or '')}'>"
                 + (f"reached the {LABELS.get(reached, str(reached))}" if reached
                    else "no §7 target reached")
                 + "</span>")
    out = [headline(head + ".")]
    rows = []
    for t in targets:
        key = str(t.get("metric"))
        v = t.get("value") if is_number(t.get("value")) else m.get(key)
        reached = t.get("reached")
        status = (LABELS.get(reached, str(reached)) if reached else
                  ("not measured" if not is_number(v) else "none yet"))
        rows.append([f'<span title="{esc(key)}">{esc(name(key))}</span>', num(v, key),
                     " / ".join(fmt(t.get(k), 3) for k in ("target_1", "target_2", "final")),
                     f'<span data-answer="{esc(key)}/reached" data-value="{esc(reached or "")}">{esc(status)}</span>'])
    if rows:
        out.append(mini_table(["metric", "value", "§7 targets 1st / 2nd / final", "reached"], rows, cls="sk-targets"))
    others = [k for k in m if is_number(m[k]) and k not in {str(t.get("metric")) for t in targets} and k != prim]
    if others:
        def pair(k: str) -> str:   # a label's parameters may wrap: BERTScore F1 (model=…/a/b)
            head, sep, args = name(k).partition(" (")
            shown = (text_html(name(k)) if not sep or "=" not in args
                     else f'{text_html(head)} <span class="sk-args">({text_html(args)}</span>')
            return f'<span class="sk-pairv" title="{esc(k)}">{shown} {num(m[k], k)}</span>'
        out.append(f'<p class="sk-sub">also: {" · ".join(pair(k) for k in others)}</p>')
    known = {"primary", "secondary", "reference", "baseline_meteor", "meteor_improvement_pct", "targets"}
    rest = {k: v for k, v in rep.items()
            if k not in known and not k.endswith("_recipe") and v not in (None, "", [], {})}
    if rest:   # anything else the caption report says (notes, sources), in words
        out.append('<p class="note sk-caption-notes">' + "; ".join(
            f"{esc(LABELS.get(k, k.replace('_', ' ')))}: "
            + (fmt(v) if is_number(v) else text_html(v if isinstance(v, str) else
                                                     ", ".join(map(str, v)) if isinstance(v, list) else str(v)))
            for k, v in rest.items()) + "</p>")
    rec = [(k[: -len("_recipe")], v) for k, v in rep.items()
           if k.endswith("_recipe") and v not in (None, "", {}, [])]
    if rec:   # every *_recipe entry: what it names, the recipe
        out.append('<p class="note sk-recipes">' + "; ".join(
            f"recipe of {esc(label(w) if w in ('meteor', 'baseline') else w.replace('_', ' '))}: "
            "<code>"
            + esc(v if isinstance(v, str) else ", ".join(f"{a} {b}" for a, b in v.items())
                  if isinstance(v, dict) else str(v)) + "</code>" for w, v in rec) + "</p>")
    return "".join(out)


# -------------------------------------------------------------------------------- summaries
@answer("summary")
def summary_answer(doc: Doc) -> str:
    if doc.multi:
        return ranked_runs(doc)
    m = _metrics(doc)
    order = ("rouge1", "rouge2", "bertscore_f1", "efficiency", "density", "words")
    keys = sorted(m, key=lambda k: order.index(k) if k in order else len(order))
    return one_run(doc, keys, [k for k in ("rouge1", "bertscore_f1") if is_number(m.get(k))], "summaries",
                   "the summaries of ")


# ------------------------------------------------------------------------------------ sweep
@answer("sweep")
def sweep_answer(doc: Doc) -> str:
    rec, sweep = doc.extra_value("recommendation"), doc.hints().get("sweep")
    ns = [v for v in rec.get("interval") or [] if is_number(v)] if isinstance(rec, dict) else []
    if not ns or not isinstance(sweep, dict):
        return generic_answer(doc)
    span = f"{ns[0]:g}" if len(ns) == 1 else f"{ns[0]:g}–{ns[-1]:g}"
    metric, system = rec.get("metric"), rec.get("summarizer")
    n_list = list(sweep.get("n") or [])
    j = n_list.index(ns[0]) if ns[0] in n_list else None
    series = sweep.get("series") or {}
    head = (f'Recommended n = <b data-answer="n" data-value="{esc(",".join(f"{v:g}" for v in ns))}">{span}</b>'
            + (f" ({text_html(system)}, {esc(label(str(metric)))})" if system and metric else ""))
    rows = []
    if j is not None and metric:
        def at(s: str, key: str = "mean") -> float | None:
            return nth(((series.get(s) or {}).get(metric) or {}).get(key), j)
        for s in sorted(series, key=lambda s: sort_key(at(s), True)):
            low, high = at(s, "low"), at(s, "high")
            ci = f"[{fmt(low, 3)}, {fmt(high, 3)}]" if is_number(low) and is_number(high) else ""
            rows.append([text_html(s) + (" <small>(recommended)</small>" if s == system else ""),
                         num(at(s), f"{s}/{metric}@{ns[0]:g}"), ci])
    out = headline(head + ".") + (f'<p class="sk-sub">Why: {text_html(rec["rule"])}.</p>'
                                  if rec.get("rule") else "")
    if rows:
        out += mini_table(["summarizer", f"{esc(label(str(metric)))} at n = {ns[0]:g}", "95% CI"], rows,
                          cls="sk-ranked")
    return out


# --------------------------------------------------------------------------------------- RL
@answer("summarize-rl-cv")
def rl_answer(doc: Doc) -> str:
    extra = doc.runs[0].get("extra") or {}
    comps = [c for c in extra.get("comparisons") or [] if isinstance(c, dict)]
    table = [t for t in extra.get("table") or [] if isinstance(t, dict)]
    goal = extra.get("goal") or {}
    out = []
    if goal:
        def yes(key: str) -> str:
            v = goal.get(key)
            return f'<b data-answer="goal/{key}" data-value="{int(bool(v))}">{"yes" if v else "no"}</b>'
        out.append(headline("Policy against lead-n and TextRank (held-out BERTScore F1): "
                            f"not significantly worse than lead-n: {yes('not_worse_than_lead')}; "
                            f"significantly better than TextRank: {yes('better_than_textrank')}."))
    rows = []
    overall = [c for c in comps if c.get("n") == "all"]
    for c in overall or comps:   # the overall row per opponent; the table by n is below
        sig = is_number(c.get("p_t")) and c["p_t"] < 0.05 and is_number(c.get("diff"))
        sym = (SIG_BETTER if c["diff"] > 0 else SIG_WORSE) if sig else SIG_NONE
        what = f"rl-vs-{c.get('against')}@{c.get('n')}"
        rows.append([esc(c.get("against")) + ("" if overall else f" <small>n={esc(c.get('n'))}</small>"),
                     num(c.get("diff"), f"{what}/diff", 3),
                     f"[{fmt(c.get('low'), 3)}, {fmt(c.get('high'), 3)}]",
                     num(c.get("p_t"), f"{what}/p_t"), num(c.get("p_bootstrap"), f"{what}/p_bootstrap"),
                     sig_mark(sym, short=True)])
    if rows:
        out.append(mini_table(["rl vs" + (" (all n)" if overall else ""), "mean diff", "95% CI", "p (paired t)",
                               "p (bootstrap)", "sig."], rows, cls="sk-rl-answer"))
    means = [t for t in table if t.get("n") == "all" and t.get("system") in ("rl", "lead", "textrank")]
    if means:
        out.append('<p class="sk-sub">held-out mean [95% CI]: ' + "; ".join(
            f"{esc(t['system'])} {num(t.get('bertscore_f1'), t['system'] + '/mean', 3)} "
            f"[{fmt(t.get('low'), 3)}, {fmt(t.get('high'), 3)}]" for t in means) + "</p>")
    return "".join(out)


# ----------------------------------------------------------------------------------- topics
@answer("topics")
def topics_answer(doc: Doc) -> str:
    from scorekit.metrics.registry import split_name

    order = ("overall", "sc", "sd_avg", "semdiv", "npmi", "c_v", "u_mass", "topic_diversity", "vd", "cd")
    names = doc.metric_names()
    base = {k: split_name(k)[0] for k in names}   # "overall(sis=0.75)" is an overall, keyed as written
    keys = sorted(names, key=lambda k: order.index(base[k]) if base[k] in order else len(order))
    if doc.multi:
        return ranked_runs(doc, keys[:TILES])
    m = _metrics(doc)
    lead = [k for b in ("overall", "sc", "sd_avg") for k in keys if base[k] == b and is_number(m.get(k))][:3]
    return one_run(doc, keys, lead, "topics")


# ------------------------------------------------------------------------------------- ABSA
ABSA_HEAD = ("tuple_f1_s1", "tuple_f1_s2", "fix_rate", "break_rate", "net_gain")
OWN_COMPARISON = {"absa"}   # tasks whose answer shows the comparison in their own headline numbers


@answer("absa")
def absa_answer(doc: Doc) -> str:
    std = doc.extra_value("std") if not doc.multi else None
    std = std if isinstance(std, dict) else {}
    n_seeds = doc.extra_value("n_seeds") if isinstance(doc.extra_value("n_seeds"), dict) else {}
    keys = [k for k in ABSA_HEAD if k in doc.metric_names()]
    if not keys:
        return generic_answer(doc)

    # several runs compared with the first (seeds or systems over the same scorecards): each other
    # run's headline number carries its significance mark, the counts lead
    comp = doc.comparison if doc.multi and isinstance(doc.comparison, dict) else {}
    compared = {(str(r.get("system")), str(r.get("measure"))): r for r in comp.get("rows") or []
                if isinstance(r, dict)}

    def cell(i: int, k: str) -> str:
        v = _metrics(doc, i).get(k)
        what = f"{doc.run_name(i)}/{k}" if doc.multi else k
        s = std.get(k)
        spread = (f' <small>± <span data-answer="{esc(k)}/std" data-value="{num_attr(s)}">{fmt(s)}</span></small>'
                  if is_number(s) else "")
        r = compared.get((doc.run_name(i), k))
        if r is not None:   # the shape alone here (the legend below says it in words)
            sym, p = significance(r, doc), r.get("p_adjusted")
            spread += (f' <span class="sk-sig {SIG_CLASS[sym]}" data-answer="{esc(what)}/sig" '
                       f'data-sig="{SIG_CLASS[sym]}" title="{SIG_TEXT[sym]}'
                       + (f' (Holm p = {fmt(p)})' if is_number(p) else "") + f'">{sym}</span>')
        return num(v, what) + spread

    out = []
    m = _metrics(doc)
    if not doc.multi and is_number(m.get("tuple_f1_s1")) and is_number(m.get("tuple_f1_s2")):
        seeds = max((v for v in n_seeds.values() if is_number(v)), default=None)
        out.append(headline(
            f"tuple F1 {cell(0, 'tuple_f1_s1')} → {cell(0, 'tuple_f1_s2')} from stage 1 to stage 2 "
            f"({change(m['tuple_f1_s2'], m['tuple_f1_s1'], 'f1_change')})"
            + (f", mean ± std over {int(seeds)} seeds" if seeds else "") + "."))
    # one row per measure (a phone shows five rows, not five wide columns)
    header = ["measure"] + ([text_html(n).replace("_", "_<wbr>") for n in doc.names()] if doc.multi else
                            ["mean ± std" if std else "value"])
    rows = [[esc(label(k, doc.task)) + (' <span class="sk-dir">↓ better</span>' if lower_is_better(k, doc) else "")]
            + [cell(i, k) for i in range(len(doc.runs))] for k in keys]
    if compared:
        base = str(comp.get("baseline"))
        n_sig = sum(significance(r, doc) != SIG_NONE for r in compared.values())
        out.append(headline(
            f"{len(doc.runs) - 1} run{'s' if len(doc.runs) > 2 else ''} compared with <b>{text_html(base)}</b> "
            f'over the shared scorecards: significantly different on <b data-answer="compared/significant" '
            f'data-value="{n_sig}">{n_sig}</b> of {len(compared)} measure comparisons.'))
    out.append(mini_table(header, rows, cls="sk-absa-answer"))
    if compared:
        test = {"t": "paired t-test"}.get(str(comp.get("test") or "t"), f"paired {comp.get('test')} test")
        out.append(f'<p class="note">{sig_mark(SIG_BETTER, short=True)} · {sig_mark(SIG_WORSE, short=True)} · '
                   f"{sig_mark(SIG_NONE, short=True)} against the baseline: {esc(str(test))} over the scorecards, "
                   f"Holm per measure over the runs (α = {esc(str(comp.get('alpha', 0.05)))}).</p>")
    return "".join(out)
