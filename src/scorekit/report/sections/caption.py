"""Captions: the worst and best captions as cards, prediction beside its references (reads well
on a phone, where a wide table would not)."""

from __future__ import annotations

from scorekit.report.charts import esc, fmt, num_attr
from scorekit.report.model import Doc, is_number, lower_is_better, primary_metric, sort_key
from scorekit.report.parts import section, text_html
from scorekit.report.sections.base import task_section


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
