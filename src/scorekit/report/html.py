"""One self-contained HTML report from result JSON documents.

The file needs nothing but a browser: CSS and the small sorting/filtering script are inline,
charts are inline SVG (:mod:`scorekit.report.charts`), no font, script or image is fetched. It
reads the result JSON conventions (see ``docs/report.md``):

- a single result: ``Result.to_dict()`` — ``task``, ``name``, ``metrics``, ``signature``,
  ``per_item`` (rows ``{"id": ..., <metric>: number, <text field>: str | [str]}``), ``inputs``,
  ``extra``;
- several systems: ``{"task", "metrics", "signature", "runs": [Result.to_dict(), ...],
  "comparison": {"baseline": name, "rows": [{"system", "measure", "value", "baseline_value",
  "improvement_pct", "p_value", "p_adjusted", "significant"}]}}``;
- ``extra["sweep"] = {"n": [...], "series": {system: {metric: {"mean", "low", "high"}}}}``;
- optional hints: ``extra["primary_metric"]`` (what the drill-down sorts by, worst first) and
  ``extra["lower_is_better"]`` (metric names where smaller is better);
- ``extra["warnings"]``: a list of strings shown at the top of the run's section;
- any other ``extra`` entry is rendered generically (scalars, records, nested tables, JSON).

Sections common to every task are built here; task-specific ones plug into
:data:`TASK_SECTIONS` (task name -> renderer) so a new family only adds a function.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorekit import __version__
from scorekit.errors import ScorekitError
from scorekit.report import charts
from scorekit.report.charts import esc, fmt, num_attr
from scorekit.text.korean import has_hangul
from scorekit.text.normalize import nfc

MAX_ITEMS = 500          # drill-down rows per table (worst first); the JSON keeps them all
MAX_DIST_METRICS = 6     # per-item distributions drawn per run
DIGITS = 4

# Most useful metric per task, tried in order (case-insensitive), when the result names none.
PRIMARY_METRICS: dict[str, tuple[str, ...]] = {
    "retrieval": ("ndcg@10", "ndcg_cut_10", "ndcg", "map", "mrr", "recip_rank"),
    "caption": ("meteor", "cider_d", "cider", "bertscore_f1", "bleu_4", "rouge_l"),
    "summary": ("rouge1", "rouge_1", "rouge-1", "rouge2", "bertscore_f1"),
    "sweep": ("rouge1", "rouge_1", "rouge-1", "bertscore_f1"),
    "topics": ("overall", "semantic_coherence", "coherence", "npmi", "c_v"),
    "absa": ("tuple_f1", "f1", "micro_f1"),
}
# Metric names where smaller is better (used to decide what "worst" means).
_LOWER_BETTER = re.compile(r"(error|loss|perplexity|latency|seconds|time_|_time|break|conflict|"
                           r"distance|redundan|\bfp\b|\bfn\b|false_)", re.I)
TEXT_FIELDS_FIRST = ("query", "prediction", "candidate", "hypothesis", "summary", "references",
                     "reference", "document", "text", "words", "image", "video")
_ID_KEYS = ("id",)
_HINT_KEYS = {"primary_metric", "lower_is_better", "warnings", "sweep"}


# ------------------------------------------------------------------------------------ model
@dataclass
class Doc:
    """One input file, normalised: always a list of runs (a single result is one run)."""

    task: str
    runs: list[dict[str, Any]]
    comparison: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)   # top-level extra of a multi-run file
    source: str | None = None
    index: int = 0

    @property
    def multi(self) -> bool:
        return len(self.runs) > 1

    def run_name(self, i: int) -> str:
        return str(self.runs[i].get("name") or f"#{i + 1}")

    def hints(self) -> dict[str, Any]:
        """Hint keys from the top-level extra, else the first run's extra."""
        out = {}
        for src in (self.runs[0].get("extra") or {}, self.extra):
            out.update({k: v for k, v in src.items() if k in _HINT_KEYS})
        return out


def load_doc(data: Any, source: str | None = None, index: int = 0) -> Doc:
    """Validate a parsed result JSON and normalise it into a :class:`Doc`."""
    where = f"{source}: " if source else ""
    if not isinstance(data, dict):
        raise ScorekitError(f"{where}not a scorekit result (expected a JSON object, got {type(data).__name__})")
    runs = data.get("runs")
    multi = runs is not None
    if multi:
        if not isinstance(runs, list) or not runs or not all(isinstance(r, dict) for r in runs):
            raise ScorekitError(f"{where}'runs' must be a non-empty list of result objects")
        runs = [dict(r) for r in runs]
        for r in runs:
            r.setdefault("task", data.get("task"))
    else:
        if "metrics" not in data:
            raise ScorekitError(f"{where}not a scorekit result (no 'metrics' and no 'runs' key)")
        runs = [data]
    for i, r in enumerate(runs):
        if not isinstance(r.get("metrics", {}), dict):
            raise ScorekitError(f"{where}run {i + 1}: 'metrics' must be an object of name -> number")
        if not isinstance(r.get("per_item") or [], list):
            raise ScorekitError(f"{where}run {i + 1}: 'per_item' must be a list of objects")
    task = str(data.get("task") or runs[0].get("task") or "unknown")
    comparison = data.get("comparison") if isinstance(data.get("comparison"), dict) else None
    extra = data.get("extra") if multi and isinstance(data.get("extra"), dict) else {}
    return Doc(task=task, runs=runs, comparison=comparison, extra=extra, source=source, index=index)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def numeric_item_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per-item columns that hold numbers (in first-seen order), ``id`` excluded."""
    seen: dict[str, bool] = {}
    for row in rows:
        for k, v in row.items():
            if k in _ID_KEYS:
                continue
            if v is None:
                seen.setdefault(k, True)
            elif is_number(v):
                seen.setdefault(k, True)
            else:
                seen[k] = False
    return [k for k, ok in seen.items() if ok and any(is_number(r.get(k)) for r in rows)]


def text_item_fields(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    keys: list[str] = []
    for row in rows[:200]:
        for k, v in row.items():
            if k not in _ID_KEYS and k not in keys and (isinstance(v, str) or
                                                        (isinstance(v, list) and v and all(isinstance(x, str) for x in v))):
                keys.append(k)
    order = {k: i for i, k in enumerate(TEXT_FIELDS_FIRST)}
    return sorted(keys, key=lambda k: (order.get(k, len(order)), keys.index(k)))


def primary_metric(doc: Doc) -> str | None:
    """The metric the drill-down sorts by: ``extra["primary_metric"]``, else the task's usual
    headline metric, else the first corpus metric that is also per item."""
    rows = [row for r in doc.runs for row in (r.get("per_item") or [])]
    fields = numeric_item_fields(rows)
    metrics = [m for r in doc.runs for m in (r.get("metrics") or {})]
    hint = doc.hints().get("primary_metric")
    if isinstance(hint, str) and (hint in fields or (not fields and hint in metrics)):
        return hint
    pool = fields or metrics
    lower = {f.lower(): f for f in pool}
    for cand in PRIMARY_METRICS.get(doc.task, ()):
        if cand in lower:
            return lower[cand]
    for m in metrics:
        if m in fields:
            return m
    return pool[0] if pool else None


def lower_is_better(metric: str, doc: Doc | None = None) -> bool:
    if doc is not None:
        hint = doc.hints().get("lower_is_better")
        if isinstance(hint, (list, tuple)):
            return metric in hint
    return bool(_LOWER_BETTER.search(metric))


# ------------------------------------------------------------------------------ html helpers
def text_html(value: Any, limit: int | None = None) -> str:
    """Escaped, NFC text; Korean spans get ``lang="ko"`` so the browser picks Korean fonts and
    line breaking."""
    s = nfc(str(value))
    if limit and len(s) > limit:
        s = s[:limit] + "…"
    body = esc(s)
    return f'<span lang="ko">{body}</span>' if has_hangul(s) else body


def cell(value: Any, digits: int = DIGITS, cls: str = "", limit: int | None = 600) -> str:
    c = f' class="{cls}"' if cls else ""
    if value is None:
        return f'<td{c} data-value="nan">–</td>'
    if isinstance(value, bool):
        return f'<td{c} data-value="{int(value)}">{"yes" if value else "no"}</td>'
    if is_number(value):
        cls2 = f' class="num{(" " + cls) if cls else ""}"'
        shown = fmt(value, digits) if isinstance(value, float) else str(value)
        return f'<td{cls2} data-value="{num_attr(value)}">{shown}</td>'
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if len(value) == 1:
            return f"<td{c}>{text_html(value[0], limit)}</td>"
        items = "".join(f"<li>{text_html(v, limit)}</li>" for v in value)
        return f'<td{c}><ol class="refs">{items}</ol></td>'
    if isinstance(value, (dict, list)):
        return f"<td{c}><code>{esc(json.dumps(value, ensure_ascii=False)[:limit or 10**9])}</code></td>"
    return f"<td{c}>{text_html(value, limit)}</td>"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, cls: str = "", caption: str | None = None,
          attrs: str = "", sortable: bool = True, raw_cells: bool = False) -> str:
    """A table inside a horizontal scroll container (wide tables never widen the page)."""
    head = "".join(f'<th scope="col">{text_html(h)}</th>' for h in header)
    body = []
    for row in rows:
        cells = "".join(c if raw_cells and isinstance(c, str) and c.startswith("<td") else cell(c) for c in row)
        body.append(f"<tr>{cells}</tr>")
    cap = f"<caption>{text_html(caption)}</caption>" if caption else ""
    sort = " sortable" if sortable else ""
    return (f'<div class="scroll"><table class="sk-table {cls}{sort}"{attrs}>{cap}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>')


def kv_table(pairs: Mapping[str, Any], cls: str = "sk-kv") -> str:
    rows = []
    for k, v in pairs.items():
        if isinstance(v, (dict, list)) and not (isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v)):
            val = f"<td><code>{esc(json.dumps(v, ensure_ascii=False)[:2000])}</code></td>"
        elif isinstance(v, list):
            val = f"<td>{text_html(', '.join(str(x) for x in v), 2000)}</td>"
        else:
            val = cell(v)
        rows.append(f'<tr><th scope="row">{text_html(k)}</th>{val}</tr>')
    return f'<div class="scroll"><table class="sk-table {cls}"><tbody>{"".join(rows)}</tbody></table></div>'


def figure(svg: str, caption: str | None = None) -> str:
    cap = f"<figcaption>{text_html(caption)}</figcaption>" if caption else ""
    return f'<figure class="sk-figure">{svg}{cap}</figure>'


def section(title: str, body: str, cls: str = "", open_: bool = True, anchor: str | None = None) -> str:
    if not body:
        return ""
    a = f' id="{esc(anchor)}"' if anchor else ""
    return (f'<details class="sk-section {cls}"{a}{" open" if open_ else ""}><summary><h3>{text_html(title)}</h3>'
            f"</summary>{body}</details>")


# ----------------------------------------------------------------------------- the sections
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


def metrics_section(doc: Doc) -> str:
    names: list[str] = []
    for r in doc.runs:
        names += [m for m in (r.get("metrics") or {}) if m not in names]
    if not names:
        return ""
    best: dict[str, float] = {}
    for m in names:
        vals = [r["metrics"].get(m) for r in doc.runs if is_number((r.get("metrics") or {}).get(m))]
        if len(vals) > 1:
            best[m] = min(vals) if lower_is_better(m, doc) else max(vals)
    rows = []
    for i, r in enumerate(doc.runs):
        cells = [cell(doc.run_name(i))]
        for m in names:
            v = (r.get("metrics") or {}).get(m)
            cells.append(cell(v, cls="best" if m in best and v == best[m] else ""))
        rows.append(cells)
    out = table(["system"] + names, rows, cls="sk-metrics", raw_cells=True)
    # Chart the metrics on a shared 0..1-ish scale; counts and raw totals would squash them.
    scaled = [m for m in names if all(abs(v) <= 1.0 for r in doc.runs
                                      for v in [(r.get("metrics") or {}).get(m)] if is_number(v))
              and any(is_number((r.get("metrics") or {}).get(m)) for r in doc.runs)]
    if len(scaled) >= 1 and not doc.comparison:
        series = {doc.run_name(i) if doc.multi else "": [(r.get("metrics") or {}).get(m) for m in scaled]
                  for i, r in enumerate(doc.runs)}
        svg = charts.grouped_bars(scaled, series, title="metrics", kind="grouped-bars" if doc.multi else "bar")
        out += figure(svg)
    return out


def comparison_section(doc: Doc) -> str:
    comp = doc.comparison
    if not comp or not isinstance(comp.get("rows"), list):
        return ""
    rows = [r for r in comp["rows"] if isinstance(r, dict)]
    base = comp.get("baseline")
    alpha = comp.get("alpha")
    method = comp.get("method")
    header = ["system", "measure", "value", "baseline", "Δ %", "p", "p (Holm)", "sig."]
    body = []
    for r in rows:
        sig = bool(r.get("significant"))
        better = is_number(r.get("value")) and is_number(r.get("baseline_value")) and (
            (r["value"] < r["baseline_value"]) if lower_is_better(str(r.get("measure")), doc)
            else (r["value"] > r["baseline_value"]))
        mark = ("▲" if better else "▼") if sig else ""
        body.append([cell(r.get("system")), cell(r.get("measure")), cell(r.get("value")),
                     cell(r.get("baseline_value")), cell(r.get("improvement_pct"), 2), cell(r.get("p_value")),
                     cell(r.get("p_adjusted")),
                     f'<td class="sigmark" data-significant="{int(sig)}">{mark or "–"}</td>'])
    note = (f'<p class="note">baseline: <b>{text_html(base)}</b>'
            + (f"; test: {esc(method)}" if method else "") + (f"; α = {esc(alpha)}" if alpha is not None else "")
            + "; ▲/▼ = significantly better/worse than the baseline after Holm–Bonferroni.</p>")
    out = note + table(header, body, cls="sk-comparison", raw_cells=True)
    # grouped bars: measures x systems (baseline included), significance marker on each bar
    measures: list[str] = []
    for r in rows:
        if r.get("measure") not in measures:
            measures.append(r.get("measure"))
    names = [doc.run_name(i) for i in range(len(doc.runs))]
    if base is not None and base not in names:
        names.insert(0, str(base))
    series: dict[str, list[Any]] = {n: [None] * len(measures) for n in names}
    markers: dict[tuple[str, str], str] = {}
    for r in rows:
        j = measures.index(r.get("measure"))
        sysname = str(r.get("system"))
        series.setdefault(sysname, [None] * len(measures))[j] = r.get("value")
        if base is not None:
            series[str(base)][j] = r.get("baseline_value")
        if r.get("significant"):
            markers[(str(r.get("measure")), sysname)] = "*"
    for i, run in enumerate(doc.runs):  # fill from the runs' own metrics where rows are silent
        vals = series.setdefault(doc.run_name(i), [None] * len(measures))
        for j, m in enumerate(measures):
            if vals[j] is None:
                vals[j] = (run.get("metrics") or {}).get(m)
    out += figure(charts.grouped_bars([str(m) for m in measures], series, markers=markers,
                                      title="system comparison (* = significant vs baseline)"))
    return out


def distributions_section(doc: Doc) -> str:
    """Per-item (per-query) score distributions: a histogram per metric for one run, box plots
    across systems for several."""
    runs_items = [r.get("per_item") or [] for r in doc.runs]
    fields = numeric_item_fields([row for items in runs_items for row in items])
    if not fields:
        return ""
    prim = primary_metric(doc)
    fields = ([prim] if prim in fields else []) + [f for f in fields if f != prim]
    out = []
    for m in fields[:MAX_DIST_METRICS]:
        if doc.multi:
            series = {doc.run_name(i): [row.get(m) for row in items if is_number(row.get(m))]
                      for i, items in enumerate(runs_items)}
            series = {k: v for k, v in series.items() if v}
            if series:
                out.append(figure(charts.box_plot(series, title=f"{m} per item", xlabel=m)))
        else:
            vals = [row.get(m) for row in runs_items[0] if is_number(row.get(m))]
            vals = [float(v) for v in vals if math.isfinite(v)]
            if not vals:
                continue
            rng = (0.0, 1.0) if all(0.0 <= v <= 1.0 for v in vals) else None
            out.append(figure(charts.histogram(vals, bins=10, value_range=rng, title=f"{m} per item",
                                               xlabel=m)))
    return '<div class="sk-grid">' + "".join(out) + "</div>" if out else ""


def _sort_key(value: Any, lower_better: bool) -> tuple[int, float]:
    if not is_number(value) or not math.isfinite(value):
        return (1, 0.0)   # missing scores last
    return (0, -value if lower_better else value)


def drilldown_rows(doc: Doc, run: int = 0, limit: int = MAX_ITEMS) -> tuple[list[str], list[list[Any]], int]:
    """Per-item rows of one run, worst first by the primary metric."""
    items = doc.runs[run].get("per_item") or []
    prim = primary_metric(doc)
    lb = lower_is_better(prim, doc) if prim else False
    order = sorted(range(len(items)), key=lambda i: (_sort_key(items[i].get(prim), lb), i)) if prim else \
        list(range(len(items)))
    texts = text_item_fields(items)
    nums = numeric_item_fields(items)
    nums = ([prim] if prim in nums else []) + [n for n in nums if n != prim]
    other = [k for k in dict.fromkeys(k for row in items[:200] for k in row)
             if k not in _ID_KEYS and k not in texts and k not in nums]
    header = ["id"] + texts + nums + other
    rows = [[items[i].get("id")] + [items[i].get(k) for k in texts + nums + other] for i in order[:limit]]
    return header, rows, len(items)


def drilldown_section(doc: Doc) -> str:
    prim = primary_metric(doc)
    out = []
    if doc.multi:
        out.append(pivot_section(doc, prim))
    for i in range(len(doc.runs)):
        header, rows, n = drilldown_rows(doc, i)
        if not rows:
            continue
        note = (f'<p class="note">{n} items, worst first by <b>{esc(prim)}</b>'
                + (f"; showing the worst {len(rows)} (the JSON has all)" if len(rows) < n else "") + "</p>")
        filt = '<input class="sk-filter" type="search" placeholder="filter rows…" aria-label="filter rows">'
        body = note + filt + table(header, rows, cls="sk-items", attrs=f' data-run="{esc(doc.run_name(i))}"')
        out.append(section(f"per item — {doc.run_name(i)}" if doc.multi else "per item (worst first)", body,
                           open_=not doc.multi, cls="sk-drill"))
    return "".join(out)


def pivot_section(doc: Doc, prim: str | None) -> str:
    """Several systems: the primary metric per item side by side, worst baseline items first,
    with each system's difference to the baseline."""
    if not prim:
        return ""
    base_name = (doc.comparison or {}).get("baseline")
    names = [doc.run_name(i) for i in range(len(doc.runs))]
    b = names.index(base_name) if base_name in names else 0
    per = [{str(row.get("id")): row for row in (r.get("per_item") or [])} for r in doc.runs]
    ids = list(per[b]) + [i for p in per for i in p if i not in per[b]]
    if not ids:
        return ""
    lb = lower_is_better(prim, doc)
    ids.sort(key=lambda i: _sort_key(per[b].get(i, {}).get(prim), lb))
    texts = [t for t in text_item_fields(list(per[b].values())) if t in ("query", "text", "document")]
    header = ["id"] + texts + [f"{n} {prim}" for n in names] + [f"Δ {n}" for k, n in enumerate(names) if k != b]
    rows = []
    for i in ids[:MAX_ITEMS]:
        vals = [p.get(i, {}).get(prim) for p in per]
        first = next((p[i] for p in per if i in p), {})
        deltas = [(vals[k] - vals[b]) if is_number(vals[k]) and is_number(vals[b]) else None
                  for k in range(len(names)) if k != b]
        rows.append([i] + [first.get(t) for t in texts] + vals + deltas)
    note = (f'<p class="note">{len(ids)} items; <b>{esc(prim)}</b> per system, worst for the baseline '
            f'<b>{text_html(names[b])}</b> first; Δ = system − baseline.</p>')
    filt = '<input class="sk-filter" type="search" placeholder="filter rows…" aria-label="filter rows">'
    return section(f"per item — {prim} by system", note + filt + table(header, rows, cls="sk-items sk-pivot"),
                   cls="sk-drill")


def sweep_section(doc: Doc) -> str:
    sweep = doc.hints().get("sweep")
    if not isinstance(sweep, dict) or not isinstance(sweep.get("series"), dict):
        return ""
    n = list(sweep.get("n") or [])
    series: dict[str, dict] = sweep["series"]
    metrics: list[str] = []
    for per_metric in series.values():
        metrics += [m for m in per_metric if m not in metrics]
    out = []
    for m in metrics:
        s = {name: per_metric[m] for name, per_metric in series.items() if isinstance(per_metric.get(m), dict)}
        out.append(figure(charts.line_chart(n, s, title=f"{m} by n", xlabel="n (words)", ylabel=m)))
    header = ["system", "metric"] + [f"n={x}" for x in n]
    rows = []
    for name, per_metric in series.items():
        for m, vals in per_metric.items():
            if not isinstance(vals, dict):
                continue
            mean, low, high = vals.get("mean") or [], vals.get("low") or [], vals.get("high") or []
            row: list[Any] = [name, m]
            for j in range(len(n)):
                v = mean[j] if j < len(mean) else None
                ci = (f" [{fmt(low[j], 3)}, {fmt(high[j], 3)}]" if j < len(low) and j < len(high)
                      and low[j] is not None and high[j] is not None else "")
                row.append(f'<td class="num" data-value="{num_attr(v)}">{fmt(v)}<small>{ci}</small></td>')
            rows.append(row)
    tbl = table(header, rows, cls="sk-sweep", raw_cells=True)
    best = sweep.get("best")
    note = kv_table(best) if isinstance(best, dict) else ""
    return '<div class="sk-grid">' + "".join(out) + "</div>" + tbl + note


def render_extra_value(key: str, value: Any) -> str:
    """Generic rendering of one ``extra`` entry by shape."""
    if value is None or is_number(value) or isinstance(value, (str, bool)):
        return kv_table({key: value})
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            cols: list[str] = []
            for v in value:
                cols += [k for k in v if k not in cols]
            return table(cols, [[v.get(c) for c in cols] for v in value[:MAX_ITEMS]], caption=key,
                         cls="sk-extra", attrs=f' data-extra="{esc(key)}"')
        if all(isinstance(v, (str, int, float)) or v is None for v in value):
            return kv_table({key: value})
    if isinstance(value, dict):
        if all(is_number(v) or isinstance(v, (str, bool)) or v is None for v in value.values()):
            return f'<h4>{text_html(key)}</h4>' + kv_table(value)
        if all(isinstance(v, dict) and all(not isinstance(x, (dict, list)) for x in v.values())
               for v in value.values()):
            cols = []
            for v in value.values():
                cols += [k for k in v if k not in cols]
            rows = [[k] + [v.get(c) for c in cols] for k, v in value.items()]
            return table([""] + cols, rows, caption=key, cls="sk-extra", attrs=f' data-extra="{esc(key)}"')
        return f'<h4>{text_html(key)}</h4>' + "".join(render_extra_value(k, v) for k, v in value.items())
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return f'<h4>{text_html(key)}</h4><pre class="scroll">{esc(text[:20000])}</pre>'


def extra_section(doc: Doc, skip: set[str]) -> str:
    parts = []
    sources = [("", doc.extra)] + [(doc.run_name(i) if doc.multi else "", r.get("extra") or {})
                                  for i, r in enumerate(doc.runs)]
    for label, extra in sources:
        for k, v in extra.items():
            if k in _HINT_KEYS or k in skip:
                continue
            key = f"{label}: {k}" if label else k
            parts.append(f'<div class="sk-extra-entry" data-key="{esc(key)}">{render_extra_value(key, v)}</div>')
    return "".join(parts)


def warnings_html(doc: Doc) -> str:
    ws = doc.hints().get("warnings")
    if not ws:
        return ""
    ws = ws if isinstance(ws, list) else [ws]
    return '<div class="sk-warnings" role="note"><ul>' + "".join(f"<li>{text_html(w)}</li>" for w in ws) + "</ul></div>"


# ------------------------------------------------------------------- task-specific sections
# A task section returns (html, extra keys it consumed so the generic renderer skips them).
TaskSection = Callable[[Doc], "tuple[str, set[str]]"]
TASK_SECTIONS: dict[str, TaskSection] = {}


def task_section(*tasks: str) -> Callable[[TaskSection], TaskSection]:
    def register(func: TaskSection) -> TaskSection:
        for t in tasks:
            TASK_SECTIONS[t] = func
        return func
    return register


@task_section("retrieval")
def retrieval_section(doc: Doc) -> tuple[str, set[str]]:
    """Where systems win or lose per query, and how many queries a run misses entirely."""
    prim = primary_metric(doc)
    if not prim:
        return "", set()
    per = [{str(row.get("id")): row.get(prim) for row in (r.get("per_item") or [])} for r in doc.runs]
    out = []
    zero = [sum(1 for v in p.values() if is_number(v) and v == 0) for p in per]
    if any(per):
        rows = [[doc.run_name(i), len(p), zero[i], (zero[i] / len(p)) if p else None] for i, p in enumerate(per)]
        out.append(table(["system", "queries", f"{prim} = 0", "share"], rows, cls="sk-failures",
                         caption=f"queries with {prim} = 0"))
    if doc.multi:
        names = [doc.run_name(i) for i in range(len(doc.runs))]
        base = (doc.comparison or {}).get("baseline")
        b = names.index(base) if base in names else 0
        lb = lower_is_better(prim, doc)
        cats, wins, ties, losses = [], [], [], []
        for k, p in enumerate(per):
            if k == b:
                continue
            w = t = l_ = 0
            for qid, v in p.items():
                bv = per[b].get(qid)
                if not (is_number(v) and is_number(bv)):
                    continue
                d = (bv - v) if lb else (v - bv)
                if abs(d) < 1e-12:
                    t += 1
                elif d > 0:
                    w += 1
                else:
                    l_ += 1
            cats.append(names[k])
            wins.append(w)
            ties.append(t)
            losses.append(l_)
        if cats:
            rows = [[c, w, t, l_] for c, w, t, l_ in zip(cats, wins, ties, losses)]
            out.append(table(["system", "wins", "ties", "losses"], rows, cls="sk-wtl",
                             caption=f"per-query {prim} against {names[b]}"))
            out.append(figure(charts.grouped_bars(cats, {"wins": wins, "ties": ties, "losses": losses},
                                                  title=f"queries better / equal / worse than {names[b]} ({prim})",
                                                  digits=0, colors=("#009E73", "#999999", "#D55E00"))))
    return section("retrieval: per-query outcome", "".join(out), cls="sk-task-retrieval"), set()


@task_section("caption")
def caption_section(doc: Doc) -> tuple[str, set[str]]:
    """The worst and best captions as cards: prediction beside its references (reads well on a
    phone, where a wide table would not)."""
    prim = primary_metric(doc)
    items = doc.runs[0].get("per_item") or []
    if not prim or not items or not any("prediction" in row for row in items):
        return "", set()
    lb = lower_is_better(prim, doc)
    order = sorted(range(len(items)), key=lambda i: (_sort_key(items[i].get(prim), lb), i))
    scored = [i for i in order if is_number(items[i].get(prim))]
    worst, best = scored[:5], list(reversed(scored[-5:])) if len(scored) > 5 else []

    def card(i: int) -> str:
        row = items[i]
        refs = row.get("references") or row.get("reference") or []
        refs = [refs] if isinstance(refs, str) else refs
        scores = " · ".join(f"{esc(k)} {fmt(v)}" for k, v in row.items() if is_number(v))
        return (f'<div class="sk-card" data-id="{esc(row.get("id"))}" data-value="{num_attr(row.get(prim))}">'
                f'<div class="sk-card-head"><b>{text_html(row.get("id"))}</b> <span>{scores}</span></div>'
                f'<div class="sk-pair"><div><h5>prediction</h5><p>{text_html(row.get("prediction", ""))}</p></div>'
                f'<div><h5>references</h5><ol>{"".join(f"<li>{text_html(r)}</li>" for r in refs)}</ol></div>'
                "</div></div>")

    body = (f"<h4>worst by {esc(prim)}</h4>" + "".join(card(i) for i in worst)
            + (f"<h4>best by {esc(prim)}</h4>" + "".join(card(i) for i in best) if best else ""))
    return section("captions: prediction beside references", body, cls="sk-task-caption"), set()


@task_section("topics")
def topics_section(doc: Doc) -> tuple[str, set[str]]:
    """Topics as word lists with their scores, when per-item rows carry the words."""
    items = doc.runs[0].get("per_item") or []
    key = next((k for k in ("words", "top_words", "topic") if any(isinstance(r.get(k), list) for r in items)), None)
    if not key:
        return "", set()
    cards = []
    for row in items[:100]:
        words = row.get(key) or []
        scores = " · ".join(f"{esc(k)} {fmt(v)}" for k, v in row.items() if is_number(v))
        cards.append(f'<div class="sk-card sk-topic" data-id="{esc(row.get("id"))}"><b>{text_html(row.get("id"))}</b> '
                     f'<span>{scores}</span><p>{text_html(", ".join(map(str, words)))}</p></div>')
    return section("topics", "".join(cards), cls="sk-task-topics"), set()


@task_section("absa")
def absa_section(doc: Doc) -> tuple[str, set[str]]:
    """The ABSA metric report (the rates and F1 are charted with the metrics): the spread over
    seeds when the result has several (``extra["seeds"]``: a list of {"seed", <metric>: number})."""
    out = []
    consumed: set[str] = set()
    seeds = doc.hints().get("seeds") or (doc.runs[0].get("extra") or {}).get("seeds")
    if isinstance(seeds, list) and seeds and all(isinstance(s, dict) for s in seeds):
        consumed.add("seeds")
        cols = numeric_item_fields(seeds)
        cols = [c for c in cols if c != "seed"]
        import numpy as np

        rows = []
        for c in cols:
            v = np.array([s[c] for s in seeds if is_number(s.get(c))], dtype=float)
            rows.append([c, len(v), float(v.mean()) if v.size else None,
                         float(v.std(ddof=1)) if v.size > 1 else None,
                         float(v.min()) if v.size else None, float(v.max()) if v.size else None])
        out.append(table(["metric", "seeds", "mean", "std", "min", "max"], rows, cls="sk-seeds",
                         caption="across seeds"))
        out.append(figure(charts.box_plot({c: [s[c] for s in seeds if is_number(s.get(c))] for c in cols},
                                          title="spread across seeds")))
        out.append(table(list(seeds[0].keys()), [list(s.values()) for s in seeds], caption="per seed"))
    return section("ABSA metric report", "".join(out), cls="sk-task-absa"), consumed


# ----------------------------------------------------------------------------- the document
CSS = """
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d9dde3;--bg:#fff;--soft:#f5f7fa;--accent:#0072B2}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;padding:0 12px 40px;color:var(--fg);background:var(--bg);line-height:1.5;font-size:15px;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK KR","Noto Sans KR","Apple SD Gothic Neo",
"Malgun Gothic","맑은 고딕",NanumGothic,"Nanum Gothic","Helvetica Neue",Arial,sans-serif;
overflow-wrap:anywhere}
:lang(ko){word-break:keep-all;overflow-wrap:anywhere}
main{max-width:1100px;margin:0 auto}
header.sk-top{max-width:1100px;margin:0 auto;padding:16px 0 4px;border-bottom:1px solid var(--line)}
h1{font-size:1.45rem;margin:.2em 0}
h2{font-size:1.2rem;margin:1.4em 0 .4em;padding-top:.4em;border-top:2px solid var(--accent)}
h3{font-size:1.02rem;margin:0;display:inline}
h4{font-size:.95rem;margin:1em 0 .3em}
h5{font-size:.8rem;margin:0 0 .2em;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
p.meta,p.note{color:var(--muted);font-size:.88rem;margin:.3em 0}
nav.toc ul{padding-left:1.2em;margin:.3em 0}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono CJK KR",monospace;font-size:.82rem}
code.sk-signature{word-break:break-all;background:var(--soft);padding:1px 4px;border-radius:3px}
pre{background:var(--soft);padding:8px;margin:.4em 0}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}
table.sk-table{border-collapse:collapse;margin:.4em 0;font-size:.86rem;min-width:40%}
table.sk-table caption{text-align:left;color:var(--muted);font-size:.82rem;padding:2px 0}
.sk-table th,.sk-table td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.sk-table thead th{background:var(--soft);position:sticky;top:0;white-space:nowrap}
.sk-table.sortable thead th{cursor:pointer;user-select:none}
.sk-table thead th[aria-sort=ascending]::after{content:" ▲";font-size:.7em}
.sk-table thead th[aria-sort=descending]::after{content:" ▼";font-size:.7em}
.sk-table td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.sk-table td.best{font-weight:700}
.sk-table td.sigmark{text-align:center;color:#b00;font-weight:700}
.sk-table th,.sk-table td{overflow-wrap:normal;word-break:normal}
.sk-table td:first-child{white-space:nowrap}
.sk-items td:not(.num){max-width:28em;min-width:9em;overflow-wrap:anywhere}
.sk-items td:first-child{min-width:0}
ol.refs{margin:0;padding-left:1.3em}
.sk-kv th{font-weight:600;white-space:nowrap;color:var(--muted)}
details.sk-section{margin:.8em 0;border:1px solid var(--line);border-radius:6px;padding:4px 10px;min-width:0}
details.sk-section>summary{cursor:pointer;padding:4px 0}
.sk-figure{margin:.6em 0;min-width:0}
.sk-figure svg{display:block;width:100%;height:auto}
.sk-figure figcaption{font-size:.8rem;color:var(--muted)}
.sk-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr));gap:8px 20px}
.sk-grid>*{min-width:0}
svg.sk-chart text{fill:currentColor}
svg.sk-chart .sk-tick{fill:#555}
.sk-run{margin:.5em 0}
.sk-warnings{background:#fff6e0;border-left:4px solid #e69f00;padding:4px 10px;margin:.6em 0}
.sk-card{border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:.5em 0}
.sk-card-head span{color:var(--muted);font-size:.82rem}
.sk-pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,260px),1fr));gap:4px 16px}
.sk-pair p,.sk-pair ol{margin:.1em 0}
input.sk-filter{font:inherit;font-size:.86rem;padding:3px 6px;margin:.3em 0;width:min(100%,20em)}
@media (max-width:600px){body{font-size:14px;padding:0 8px 32px}.sk-table th,.sk-table td{padding:3px 6px}}
@media print{details.sk-section{border:none}input.sk-filter{display:none}}
"""

JS = """
(function(){
  'use strict';
  function val(td){
    var v = td.getAttribute('data-value');
    if (v !== null) { var f = parseFloat(v); return isNaN(f) ? null : f; }
    return td.textContent.trim().toLowerCase();
  }
  function sortBy(table, col, th){
    var body = table.tBodies[0]; if (!body) return;
    var asc = th.getAttribute('aria-sort') !== 'ascending';
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(c){ c.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function(a, b){
      var x = val(a.cells[col]), y = val(b.cells[col]);
      if (x === null && y === null) return 0; if (x === null) return 1; if (y === null) return -1;
      if (typeof x === 'number' && typeof y === 'number') return asc ? x - y : y - x;
      return asc ? String(x).localeCompare(String(y)) : String(y).localeCompare(String(x));
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  document.querySelectorAll('table.sortable').forEach(function(table){
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, i){
      th.addEventListener('click', function(){ sortBy(table, i, th); });
    });
  });
  document.querySelectorAll('input.sk-filter').forEach(function(input){
    var table = input.parentNode.querySelector('table');
    if (!table) return;
    input.addEventListener('input', function(){
      var q = input.value.normalize('NFC').toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function(r){
        r.hidden = q !== '' && r.textContent.normalize('NFC').toLowerCase().indexOf(q) < 0;
      });
    });
  });
})();
"""


def doc_html(doc: Doc) -> str:
    names = ", ".join(doc.run_name(i) for i in range(len(doc.runs)))
    title = f"{doc.task} — {names}"
    anchor = f"doc-{doc.index + 1}"
    task_html, consumed = "", set()
    renderer = TASK_SECTIONS.get(doc.task)
    if renderer is not None:
        task_html, consumed = renderer(doc)
    parts = [
        f'<section class="sk-doc" id="{anchor}" data-task="{esc(doc.task)}" data-runs="{len(doc.runs)}">',
        f"<h2>{text_html(title)}</h2>",
        f'<p class="meta">from {text_html(doc.source)}</p>' if doc.source else "",
        warnings_html(doc),
        section("metrics", metrics_section(doc), cls="sk-metrics-section"),
        section("system comparison", comparison_section(doc), cls="sk-comparison-section"),
        section("n-sweep", sweep_section(doc), cls="sk-sweep-section"),
        task_html,
        section("per-item distributions", distributions_section(doc), cls="sk-dist-section"),
        drilldown_section(doc),
        section("more details", extra_section(doc, consumed), cls="sk-extra-section", open_=False),
        section("signature and inputs", runs_info(doc), cls="sk-info-section"),
        "</section>",
    ]
    return "".join(p for p in parts if p)


def overview_html(docs: Sequence[Doc]) -> str:
    """Across files: one metrics table per task when several runs of it were given."""
    by_task: dict[str, list[tuple[str, str, dict]]] = {}
    for d in docs:
        for i, r in enumerate(d.runs):
            src = d.source.replace("\\", "/").rsplit("/", 1)[-1] if d.source else f"#{d.index + 1}"
            by_task.setdefault(d.task, []).append((d.run_name(i), src, r.get("metrics") or {}))
    out = []
    for task, runs in by_task.items():
        if len(runs) < 2 or sum(1 for d in docs if d.task == task) < 2:
            continue
        names: list[str] = []
        for _, _, m in runs:
            names += [k for k in m if k not in names]
        out.append(table(["system", "file"] + names, [[n, s] + [m.get(k) for k in names] for n, s, m in runs],
                         caption=task, cls="sk-overview", attrs=f' data-task="{esc(task)}"'))
    return section("all runs by task", "".join(out), cls="sk-overview-section") if out else ""


def render_report(documents: Sequence[Any], *, title: str | None = None,
                  sources: Sequence[str | None] | None = None) -> str:
    """Render parsed result JSON objects (or :class:`~scorekit.result.Result`) as one HTML page."""
    docs = []
    for i, d in enumerate(documents):
        if hasattr(d, "to_dict"):
            d = d.to_dict()
        docs.append(load_doc(d, sources[i] if sources else None, i))
    if not docs:
        raise ScorekitError("no results to report")
    title = nfc(title or "scorekit report")
    generated = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    body = "".join(doc_html(d) for d in docs)
    toc = "".join(f'<li><a href="#doc-{d.index + 1}">{text_html(d.task)} — '
                  f'{text_html(", ".join(d.run_name(i) for i in range(len(d.runs))))}</a></li>' for d in docs)
    lang = "ko" if has_hangul(body) or has_hangul(title) else "en"
    return nfc(
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="scorekit {esc(__version__)}">\n'
        # everything is inline: forbid the page from fetching anything at all
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<header class="sk-top"><h1>{text_html(title)}</h1>'
        f'<p class="meta">generated {esc(generated)} by scorekit {esc(__version__)} · '
        f"{len(docs)} result file{'s' if len(docs) != 1 else ''}</p>"
        + (f'<nav class="toc"><ul>{toc}</ul></nav>' if len(docs) > 1 else "")
        + "</header>\n<main>\n" + overview_html(docs) + body + "\n</main>\n"
        f"<script>{JS}</script>\n</body>\n</html>\n"
    )
