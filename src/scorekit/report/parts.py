"""Reusable HTML parts of the report: escaped NFC text (Korean spans marked ``lang="ko"``), table
cells, sortable tables in their own scroll box, key/value tables, figures, collapsible sections,
and the one format of a change against a baseline (:func:`delta_text`, :func:`pct_text`)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.report.charts import esc, fmt, num_attr
from scorekit.report.model import is_number
from scorekit.text.korean import has_hangul
from scorekit.text.normalize import nfc

DIGITS = 4
MINUS = "\u2212"   # a real minus sign: "−0.1000" lines up with "+0.1000"


def text_html(value: Any, limit: int | None = None) -> str:
    """Escaped, NFC text; Korean spans get ``lang="ko"`` (Korean fonts and line breaking)."""
    s = nfc(str(value))
    s = s[:limit] + "…" if limit and len(s) > limit else s
    return f'<span lang="ko">{esc(s)}</span>' if has_hangul(s) else esc(s)


# ------------------------------------------------------------------------- change vs baseline
def delta_text(d: float | None, digits: int = DIGITS, unit: str = "") -> str:
    """An absolute change, always signed: ``+0.6000``, ``−0.1000``, ``±0.0000``."""
    if d is None or not math.isfinite(d):
        return "–"
    if round(d, digits) == 0:
        return f"±{0:.{digits}f}{unit}"
    return f"{'+' if d > 0 else MINUS}{abs(d):.{digits}f}{unit}"


def pct_text(p: float | None) -> str:
    """A relative change in percent, always signed with one decimal: ``+12.3%``."""
    return delta_text(p, 1, "%")


def change(value: Any, baseline: Any, pct: Any = None) -> tuple[float, Any] | None:
    """(``value − baseline``, the change in %: ``pct`` as given (the JSON's ``improvement_pct``),
    else computed, None for a zero baseline); None when either number is missing."""
    if not (is_number(value) and is_number(baseline)):
        return None
    d = float(value) - float(baseline)
    return d, pct if is_number(pct) else (d / abs(baseline) * 100.0) if baseline else None


def change_cell(value: Any, baseline: Any, pct: Any = None, cls: str = "") -> str:
    """The one cell format of a change against a baseline: ``+0.6000 (+150.0%)``."""
    td = f'<td class="num change{(" " + cls) if cls else ""}"'
    if (ch := change(value, baseline, pct)) is None:
        return f'{td} data-value="nan">–</td>'
    d, pct = ch
    rel = f" ({pct_text(pct)})" if is_number(pct) and math.isfinite(pct) else ""
    return (f'{td} data-value="{num_attr(d)}" '
            f'data-pct="{num_attr(pct if is_number(pct) else None)}">{delta_text(d)}{rel}</td>')


def pct_cell(p: Any) -> str:
    """A relative change already in percent (an ``..._pct`` field), in the one signed format."""
    return (f'<td class="num change" data-value="{num_attr(p)}">{pct_text(p)}</td>' if is_number(p)
            else cell(p))


# ---------------------------------------------------------------------------------- tables
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
    if isinstance(value, list) and value and all(is_number(v) for v in value):
        shown = ", ".join(fmt(v, 3) if isinstance(v, float) else str(v) for v in value[:50])
        return f'<td{c}><span class="numlist">{shown}{" …" if len(value) > 50 else ""}</span></td>'
    if isinstance(value, (dict, list)):
        return f"<td{c}><code>{esc(json.dumps(value, ensure_ascii=False)[:limit or 10**9])}</code></td>"
    return f"<td{c}>{text_html(value, limit)}</td>"


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, cls: str = "", caption: str | None = None,
          attrs: str = "", raw_cells: bool = False,
          header_titles: Sequence[str] | None = None) -> str:
    """A table in its own scroll box; with ``raw_cells`` a string starting ``<td`` is a cell."""
    titles = [f' title="{esc(t)}"' if t else "" for t in list(header_titles or []) + [""] * len(header)]
    head = "".join(f'<th scope="col"{t}>{text_html(h)}</th>' for h, t in zip(header, titles))
    ready = lambda c: raw_cells and isinstance(c, str) and c.startswith("<td")  # noqa: E731
    body = ["<tr>" + "".join(c if ready(c) else cell(c) for c in row) + "</tr>" for row in rows]
    # the caption sits above the scroll box (a <caption> would scroll away with a wide table)
    cap = f'<p class="sk-caption">{text_html(caption)}</p>' if caption else ""
    label = f' aria-label="{esc(caption)}"' if caption else ""
    return (f'{cap}<div class="scroll"><table class="sk-table {cls} sortable"{attrs}{label}>'
            f'<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def kv_table(pairs: Mapping[str, Any], cls: str = "sk-kv") -> str:
    def value(k: str, v: Any) -> str:
        if isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
            return f"<td>{text_html(', '.join(str(x) for x in v), 2000)}</td>"
        if isinstance(v, (dict, list)):
            return f"<td><code>{esc(json.dumps(v, ensure_ascii=False)[:2000])}</code></td>"
        return pct_cell(v) if str(k).endswith("_pct") else cell(v)

    rows = "".join(f'<tr><th scope="row">{text_html(k)}</th>{value(k, v)}</tr>'
                   for k, v in pairs.items())
    return f'<div class="scroll"><table class="sk-table {cls}"><tbody>{rows}</tbody></table></div>'


def figure(svg: str, cls: str = "") -> str:
    return f'<figure class="sk-figure{(" " + cls) if cls else ""}">{svg}</figure>'


def grid(parts: Sequence[str]) -> str:
    return '<div class="sk-grid">' + "".join(parts) + "</div>" if any(parts) else ""


def section(title: str, body: str, cls: str = "", open_: bool = True) -> str:
    return "" if not body else (f'<details class="sk-section {cls}"{" open" if open_ else ""}>'
                                f"<summary><h3>{text_html(title)}</h3></summary>{body}</details>")


FILTER = '<input class="sk-filter" type="search" placeholder="filter rows…" aria-label="filter rows">'
