"""Sections every result gets: metrics (table + charts grouped by kind of value), the system
comparison, per-item distributions, the worst-first drill-down, the generic ``extra`` entries,
warnings, and the signature and inputs of each run."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.report import charts
from scorekit.report.charts import esc
from scorekit.report.model import (HINT_KEYS, ID_KEYS, UNKNOWN, Doc, best_values, describe_key, is_number,
                                   lower_is_better, metric_doc, metric_kind, numeric_item_fields,
                                   primary_metric, sort_key, text_item_fields)
from scorekit.report.parts import (FILTER, cell, change_cell, figure, grid, kv_table, pct_cell, section,
                                   table, text_html)
from scorekit.report.sections.answer import SIG_CLASS, SIG_SHORT, SIG_TEXT, significance

MAX_ITEMS = 500          # drill-down rows per table (worst first); the JSON keeps them all
MAX_DIST_METRICS = 6     # per-item distributions drawn per run
WIDE_METRICS = 14        # more metrics than this: one row per metric (not one very wide row)

WORD_LISTS = ("keywords", "words", "top_words")   # shown inline, comma-separated (not as a list)


# ----------------------------------------------------------------------- charts by kind of value
def kind_charts(categories: Sequence[str], series: Mapping[str, Sequence[Any]], task: str, *,
                markers: Mapping[tuple[str, str], str] | None = None, title: str = "metrics",
                errors: Mapping[str, Sequence[Any]] | None = None, kind_name: str = "bar") -> list[str]:
    """The figures of ``categories`` (metric names) by the registry's kind of value; nothing left
    out (which kinds share an axis: docs/report.md, "What the charts follow")."""
    by_kind: dict[str, list[int]] = {}
    for j, m in enumerate(categories):
        by_kind.setdefault(metric_kind(str(m), task), []).append(j)
    out = []

    def pick(idx: Sequence[int], src: Mapping[str, Sequence[Any]] | None) -> dict[str, list[Any]] | None:
        return None if src is None else {k: [charts.nth(v, j) for j in idx] for k, v in src.items()}

    lower = [str(m) for m in categories if lower_is_better(str(m), task=task)]

    def bars(idx: Sequence[int], what: str, scale: str, **kw: Any) -> None:
        svg = charts.grouped_bars([categories[j] for j in idx], pick(idx, series), markers=markers,
                                  title=f"{title}: {what}", errors=pick(idx, errors), scale=scale,
                                  lower=lower, kind="grouped-bars" if kind_name != "bar" else "bar", **kw)
        out.append(figure(svg, cls=f"sk-kind-{scale}"))

    if by_kind.get("rate"):
        bars(by_kind["rate"], "rates (0–1 axis)", "rate", domain=(0.0, 1.0))
    if by_kind.get("count"):
        bars(by_kind["count"], "counts", "count", integer=True, digits=2)
    # scores of one metric (BERTScore F1 of every system at every n) share one axis: the same
    # number is drawn the same length; scores of different metrics never share one
    same: dict[str, list[int]] = {}
    for j in by_kind.get("score", []):
        info = describe_key(str(categories[j]), task)
        same.setdefault(info.metric if info is not None else str(categories[j]), []).append(j)
    for metric, idx in same.items():
        if len(idx) > 1:
            bars(idx, f"{metric} (one axis)", "score")
            by_kind["score"] = [j for j in by_kind["score"] if j not in idx]
    # the remaining scores that all lie in [-1, 1] (SC, SD, NPMI, ...) share one axis too, so 0.07
    # is drawn a fifth as long as 0.37; one outside it (UMass -11.2, CIDEr 2.6) keeps its own
    unit = [j for j in by_kind.get("score", [])
            if all(not is_number(v := charts.nth(vals, j)) or abs(v) <= 1.0
                   for vals in series.values())]
    if len(unit) > 1:
        bars(unit, "scores within [−1, 1] (one axis)", "score")
        by_kind["score"] = [j for j in by_kind["score"] if j not in unit]
    for kind, what in (("score", "scores, each on its own axis"),
                       (UNKNOWN, "not in the metric registry, each on its own axis")):
        idx = by_kind.get(kind)
        if idx:
            svg = charts.panels([categories[j] for j in idx], pick(idx, series), title=f"{title}: {what}",
                                errors=pick(idx, errors), scale=kind, markers=markers)
            out.append(figure(svg, cls=f"sk-kind-{kind}"))
    return out


# ----------------------------------------------------------------------------- metrics table
def metrics_section(doc: Doc) -> str:
    names = doc.metric_names()
    if not names:
        return ""
    best = best_values([r.get("metrics") or {} for r in doc.runs], names, lambda m: lower_is_better(m, doc))

    def value(r: Mapping[str, Any], m: str) -> str:   # the best value of each metric in bold
        v = (r.get("metrics") or {}).get(m)
        return cell(v, cls="best" if m in best and v == best[m] else "")

    if len(names) > WIDE_METRICS:   # ABSA's 60: one row per metric, a column per run, counts last
        order = sorted(names, key=lambda m: (metric_kind(m, doc.task) == "count", names.index(m)))
        arrow = {True: ' <span class="sk-dir">↓ better</span>', False: ""}
        body = "".join(f'<tr><th scope="row" title="{esc(_header_title(m, doc))}">{text_html(m)}'
                       f'{arrow[lower_is_better(m, doc)]}</th>'
                       + "".join(value(r, m) for r in doc.runs) + "</tr>" for m in order)
        # long run names (cr_demo__seed42_proposed) may break after an underscore, not inside a word
        head = "".join(f'<th scope="col">{text_html(h).replace("_", "_<wbr>")}</th>'
                       for h in ["metric"] + (doc.names() if doc.multi else ["value"]))
        out = ('<div class="scroll sk-metrics-rows">'
               '<table class="sk-table sk-metrics sk-metrics-by-row sortable">'
               f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
    else:
        rows = [[cell(doc.run_name(i))] + [value(r, m) for m in names] for i, r in enumerate(doc.runs)]
        titles = [""] + [_header_title(m, doc) for m in names]
        out = table(["system"] + names, rows, cls="sk-metrics", raw_cells=True, header_titles=titles)
    # every metric is charted, except those the comparison chart already shows
    compared = {str(r.get("measure")) for r in (doc.comparison or {}).get("rows") or [] if isinstance(r, dict)}
    # a mean over seeds is charted once, with its spread, in the ABSA seeds section
    std = doc.extra_value("std") if not doc.multi else None
    spread = set(std) if isinstance(std, dict) else set()
    charted = [m for m in names if m not in compared and m not in spread
               and any(is_number((r.get("metrics") or {}).get(m)) for r in doc.runs)]
    if spread & set(names):
        out += '<p class="note">The means are charted with their spread over seeds below.</p>'
    if charted:
        series = {doc.run_name(i) if doc.multi else "": [(r.get("metrics") or {}).get(m) for m in charted]
                  for i, r in enumerate(doc.runs)}
        out += grid(kind_charts(charted, series, doc.task, kind_name="grouped" if doc.multi else "bar"))
    return out


def _header_title(m: str, doc: Doc) -> str:
    kind, d = metric_kind(m, doc.task), metric_doc(m, doc.task)
    direction = "lower is better" if lower_is_better(m, doc) else "higher is better"
    return f"{m}: {d + '; ' if d else ''}{kind if kind != UNKNOWN else 'not in the metric registry'}; {direction}"


# ----------------------------------------------------------------------- system comparison
def comparison_section(doc: Doc) -> str:
    comp = doc.comparison
    if not comp or not isinstance(comp.get("rows"), list):
        return ""
    rows = [r for r in comp["rows"] if isinstance(r, dict)]
    base, alpha = comp.get("baseline"), comp.get("alpha")
    method = comp.get("method") or comp.get("test")
    header = ["system", "measure", "value", "baseline", "change", "p", "p (Holm)", "sig."]
    markers = {(str(r.get("measure")), str(r.get("system"))): significance(r, doc) for r in rows}
    body = [[cell(r.get(k)) for k in ("system", "measure", "value", "baseline_value")]
            + [change_cell(r.get("value"), r.get("baseline_value"), r.get("improvement_pct")),
               cell(r.get("p_value")), cell(r.get("p_adjusted")),
               f'<td class="sigmark {SIG_CLASS[mark]}" data-significant="{sig}" '
               f'title="{SIG_TEXT[mark]}">{mark} {SIG_SHORT[mark]}</td>']
            for r in rows
            for mark, sig in [(significance(r, doc), int(bool(r.get("significant"))))]]
    note = (f'<p class="note">baseline: <b>{text_html(base)}</b>'
            + (f"; test: {esc(method)}" if method else "") + (f"; α = {esc(alpha)}" if alpha is not None else "")
            + "; change = system − baseline (relative change); ▲ = significantly better, ▼ = significantly "
              "worse than the baseline after Holm–Bonferroni, ○ = not significant.</p>")
    out = note + table(header, body, cls="sk-comparison", raw_cells=True)
    measures = list(dict.fromkeys(r.get("measure") for r in rows))
    names = doc.names()
    if base is not None and base not in names:
        names.insert(0, str(base))
    series: dict[str, list[Any]] = {n: [None] * len(measures) for n in names}
    for r in rows:
        j = measures.index(r.get("measure"))
        series.setdefault(str(r.get("system")), [None] * len(measures))[j] = r.get("value")
        if base is not None:
            series[str(base)][j] = r.get("baseline_value")
    for i, run in enumerate(doc.runs):  # fill from the runs' own metrics where rows are silent
        vals = series.setdefault(doc.run_name(i), [None] * len(measures))
        for j, m in enumerate(measures):
            if vals[j] is None:
                vals[j] = (run.get("metrics") or {}).get(m)
    out += grid(kind_charts([str(m) for m in measures], series, doc.task, markers=markers,
                            title="vs baseline (▲ significantly better, ▼ significantly worse, ○ not significant)",
                            kind_name="grouped"))
    return out


# ----------------------------------------------------------------------- per-item distributions
def distributions_section(doc: Doc) -> str:
    """Per-item score distributions: a histogram per metric for one run, else box plots."""
    runs_items = [r.get("per_item") or [] for r in doc.runs]
    fields = numeric_item_fields([row for items in runs_items for row in items])
    prim = primary_metric(doc) if fields else None
    fields = ([prim] if prim in fields else []) + [f for f in fields if f != prim]
    out = []
    for m in fields[:MAX_DIST_METRICS]:
        direction = "lower is better" if lower_is_better(m, doc) else "higher is better"
        if doc.multi:
            series = {doc.run_name(i): vals for i, items in enumerate(runs_items)
                      if (vals := [row.get(m) for row in items if is_number(row.get(m))])}
            if series:
                out.append(figure(charts.box_plot(series, title=f"{m} per item ({direction})", xlabel=m)))
        else:
            vals = [float(v) for row in runs_items[0]
                    if is_number(v := row.get(m)) and math.isfinite(v)]
            if not vals:
                continue
            rate = metric_kind(m, doc.task) == "rate" and all(0.0 <= v <= 1.0 for v in vals)
            out.append(figure(charts.histogram(vals, bins=10, value_range=(0.0, 1.0) if rate else None,
                                               title=f"{m} per item ({direction})", xlabel=m)))
    return grid(out)


# ------------------------------------------------------------------------------- drill-down
def drilldown_rows(doc: Doc, run: int = 0, limit: int = MAX_ITEMS) -> tuple[list[str], list[list[Any]], int]:
    """Per-item rows of one run, worst first by the primary metric."""
    items = doc.runs[run].get("per_item") or []
    prim = primary_metric(doc)
    lb = lower_is_better(prim, doc) if prim else False
    # (a stable sort: ties stay in file order)
    order = sorted(range(len(items)), key=lambda i: sort_key(items[i].get(prim), lb))
    texts = text_item_fields(items)
    nums = numeric_item_fields(items)
    nums = ([prim] if prim in nums else []) + [n for n in nums if n != prim]
    other = [k for k in dict.fromkeys(k for row in items[:200] for k in row)
             if k not in ID_KEYS and k not in texts and k not in nums]
    header = ["id"] + texts + nums + other
    def value(row: Mapping[str, Any], k: str) -> Any:
        v = row.get(k)
        return ", ".join(map(str, v)) if k in WORD_LISTS and isinstance(v, list) else v

    rows = [[items[i].get("id")] + [value(items[i], k) for k in texts + nums + other] for i in order[:limit]]
    return header, rows, len(items)


def drilldown_section(doc: Doc) -> str:
    prim = primary_metric(doc)
    out = [pivot_section(doc, prim)] if doc.multi else []
    for i in range(len(doc.runs)):
        header, rows, n = drilldown_rows(doc, i)
        if not rows:
            continue
        direction = "lower is better" if prim and lower_is_better(prim, doc) else "higher is better"
        note = (f'<p class="note">{n} items, worst first by <b>{esc(prim)}</b> ({direction})'
                + (f"; showing the worst {len(rows)} (the JSON has all)" if len(rows) < n else "") + "</p>")
        body = note + FILTER + table(header, rows, cls="sk-items", attrs=f' data-run="{esc(doc.run_name(i))}"')
        out.append(section(f"per item — {doc.run_name(i)}" if doc.multi else "per item (worst first)", body,
                           open_=not doc.multi, cls="sk-drill"))
    return "".join(out)


def pivot_section(doc: Doc, prim: str | None) -> str:
    """The primary metric per item of every system, worst for the baseline first, and changes."""
    if not prim:
        return ""
    base_name = (doc.comparison or {}).get("baseline")
    names = doc.names()
    b = names.index(base_name) if base_name in names else 0
    per = [{str(row.get("id")): row for row in (r.get("per_item") or [])} for r in doc.runs]
    ids = list(per[b]) + [i for p in per for i in p if i not in per[b]]
    if not ids:
        return ""
    lb = lower_is_better(prim, doc)
    ids.sort(key=lambda i: sort_key(per[b].get(i, {}).get(prim), lb))
    texts = [t for t in text_item_fields(list(per[b].values())) if t in ("query", "text", "document")]
    header = ["id"] + texts + [f"{n} {prim}" for n in names] + [f"change {n}" for k, n in enumerate(names) if k != b]
    rows = []
    for i in ids[:MAX_ITEMS]:
        vals = [p.get(i, {}).get(prim) for p in per]
        first = next((p[i] for p in per if i in p), {})
        changes = [change_cell(vals[k], vals[b]) for k in range(len(names)) if k != b]
        rows.append([cell(i)] + [cell(first.get(t)) for t in texts] + [cell(v) for v in vals] + changes)
    note = (f'<p class="note">{len(ids)} items; <b>{esc(prim)}</b> per system, worst for the baseline '
            f'<b>{text_html(names[b])}</b> first; change = system − baseline (relative change).</p>')
    return section(f"per item — {prim} by system",
                   note + FILTER + table(header, rows, cls="sk-items sk-pivot", raw_cells=True), cls="sk-drill")


# ---------------------------------------------------------------------------- extra, info
def render_extra_value(key: str, value: Any) -> str:
    """Generic rendering of one ``extra`` entry by shape."""
    if value is None or is_number(value) or isinstance(value, (str, bool)):
        return kv_table({key: value})
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            cols = list(dict.fromkeys(k for v in value for k in v))
            rows = [[pct_cell(v.get(c)) if c.endswith("_pct") else v.get(c) for c in cols] for v in value[:MAX_ITEMS]]
            return table(cols, rows, caption=key, cls="sk-extra", attrs=f' data-extra="{esc(key)}"', raw_cells=True)
        if all(isinstance(v, (str, int, float)) or v is None for v in value):
            return kv_table({key: value})
    if isinstance(value, dict):
        if all(is_number(v) or isinstance(v, (str, bool)) or v is None for v in value.values()):
            return f'<h4>{text_html(key)}</h4>' + kv_table(value)
        if all(isinstance(v, dict) and all(not isinstance(x, (dict, list)) for x in v.values())
               for v in value.values()):
            cols = list(dict.fromkeys(k for v in value.values() for k in v))
            rows = [[k] + [v.get(c) for c in cols] for k, v in value.items()]
            return table([""] + cols, rows, caption=key, cls="sk-extra", attrs=f' data-extra="{esc(key)}"')
        simple = {k: v for k, v in value.items()   # a scalar or a short list of scalars: one row
                  if v is None or is_number(v) or isinstance(v, (str, bool)) or (isinstance(v, list)
                  and len(v) <= 20 and all(isinstance(x, (str, int, float)) for x in v))}
        rest = "".join(render_extra_value(k, v) for k, v in value.items() if k not in simple)
        return f'<h4>{text_html(key)}</h4>' + (kv_table(simple) if simple else "") + rest
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return f'<h4>{text_html(key)}</h4><pre class="scroll">{esc(text[:20000])}</pre>'


def extra_section(doc: Doc, skip: set[str]) -> str:
    parts = []
    sources = [("", doc.extra)] + [(doc.run_name(i) if doc.multi else "", r.get("extra") or {})
                                  for i, r in enumerate(doc.runs)]
    for label, extra in sources:
        for k, v in extra.items():   # (a comparison is the system comparison section's)
            if not (k in HINT_KEYS or k in skip or v in ([], {}, None)
                    or k == "comparison" and doc.comparison is not None):
                key = f"{label}: {k}" if label else k
                body = render_extra_value(key, v)
                parts.append(f'<div class="sk-extra-entry" data-key="{esc(key)}">{body}</div>')
    return "".join(parts)


def warnings_html(doc: Doc) -> str:
    ws = doc.hints().get("warnings")
    items = "".join(f"<li>{text_html(w)}</li>" for w in (ws if isinstance(ws, list) else [ws]))
    return f'<div class="sk-warnings" role="note"><ul>{items}</ul></div>' if ws else ""


def runs_info(doc: Doc) -> str:
    """Signature, inputs and provenance of each run."""
    out = []
    for i, r in enumerate(doc.runs):
        meta = {k: r.get(k) for k in ("task", "created", "scorekit_version") if r.get(k)}
        inputs = r.get("inputs") or {}
        out.append(
            f'<div class="sk-run" data-run="{esc(doc.run_name(i))}"><h4>{text_html(doc.run_name(i))}</h4>'
            f'<p class="sig">signature: <code class="sk-signature">{esc(r.get("signature") or "–")}</code></p>'
            + (kv_table({**meta, **{f"input: {k}": v for k, v in inputs.items()}}) if meta or inputs else "")
            + "</div>")
    return "".join(out)
