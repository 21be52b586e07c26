"""The n-sweep: the recommended n stated up front and marked on every curve, the curves with their
confidence bands and the table of means. What it reads (``extra["sweep"]``,
``extra["recommendation"]``, older ``extra["best"]``): docs/report.md."""

from __future__ import annotations

from scorekit.report import charts
from scorekit.report.charts import esc, fmt, nth, num_attr
from scorekit.report.model import Doc, is_number, metric_kind
from scorekit.report.parts import figure, grid, table, text_html

CONSUMED = {"recommendation", "best"}


def recommendation(doc: Doc) -> tuple[list[float], str]:
    """The recommended n values and a sentence saying what they are."""
    rec = doc.extra_value("recommendation")
    if isinstance(rec, dict):
        ns = [float(v) for v in (rec.get("interval") or []) if is_number(v)]
        if ns:
            span = f"{ns[0]:g}" if len(ns) == 1 else f"{ns[0]:g}–{ns[-1]:g}"
            what = ", ".join(f"{k} {rec[k]}" for k in ("summarizer", "metric") if rec.get(k))
            text = f"Recommended n = {span}" + (f" ({what})" if what else "")
            return ns, text + (f". Rule: {rec['rule']}" if rec.get("rule") else "")
    best = doc.extra_value("best")
    if isinstance(best, dict):
        ns = sorted({float(v) for v in best.values() if is_number(v)})
        if ns:
            return ns, "Best n per system: " + ", ".join(f"{k} {v}" for k, v in best.items())
    return [], ""


def sweep_section(doc: Doc) -> tuple[str, set[str]]:
    sweep = doc.hints().get("sweep")
    if not isinstance(sweep, dict) or not isinstance(sweep.get("series"), dict):
        return "", set()
    n = list(sweep.get("n") or [])
    series: dict[str, dict] = sweep["series"]
    marks, rec_text = recommendation(doc)
    metrics = list(dict.fromkeys(m for per_metric in series.values() for m in per_metric))
    figs = [figure(charts.line_chart(
        n, {name: pm[m] for name, pm in series.items() if isinstance(pm.get(m), dict)},
        title=f"{m} by n", xlabel="n (words)", ylabel=m, marks=marks, mark_label="recommended n",
        bounds=(0.0, 1.0) if metric_kind(m, doc.task) == "rate" else None)) for m in metrics]
    header = ["system", "metric"] + [f"n={x}" + (" ★" if float(x) in marks else "") for x in n]
    def value(vals: dict, j: int) -> str:
        v, low, high = (nth(vals.get(k), j) for k in ("mean", "low", "high"))
        ci = f" [{fmt(low, 3)}, {fmt(high, 3)}]" if low is not None and high is not None else ""
        cls = "num rec" if float(n[j]) in marks else "num"
        return f'<td class="{cls}" data-value="{num_attr(v)}">{fmt(v)}<small>{ci}</small></td>'

    rows = [[name, m] + [value(vals, j) for j in range(len(n))]
            for name, per_metric in series.items() for m, vals in per_metric.items()
            if isinstance(vals, dict)]
    rec = (f'<p class="sk-recommendation" data-n="{esc(",".join(f"{v:g}" for v in marks))}">'
           f"{text_html(rec_text)}</p>") if rec_text else ""
    body = rec + grid(figs) + table(header, rows, cls="sk-sweep", raw_cells=True,
                                    caption="mean [confidence band] per n" + (" (★ = recommended)" if marks else ""))
    return body, CONSUMED
