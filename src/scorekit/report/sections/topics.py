"""Topics: one row per topic with its keywords (as ``scorekit topics`` writes them, ``keywords``;
older files' ``words``/``top_words`` too) and every per-topic score; each keyword's per-keyword
numbers (PageRank, cosine to the topic) are its tooltip. A chart of the headline per-topic score."""

from __future__ import annotations

from scorekit.report import charts
from scorekit.report.charts import esc, fmt
from scorekit.report.model import Doc, is_number, lower_is_better, numeric_item_fields
from scorekit.report.parts import cell, figure, section, table, text_html
from scorekit.report.sections.base import task_section

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
