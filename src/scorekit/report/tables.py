"""Render one table (a header row plus rows of str/float/int/None) as a rich terminal table, CSV,
Markdown or LaTeX; floats with ``digits`` decimals except in CSV (full precision)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from typing import Any

def fmt_cell(value: Any, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def to_csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([header] + [
        ["" if v is None else repr(v) if isinstance(v, float) else v for v in row] for row in rows])
    return buf.getvalue()


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(s: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in s)


def to_latex(header: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 4,
             caption: str | None = None, label: str | None = None) -> str:
    cols = "l" + "r" * (len(header) - 1)
    out = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
           " & ".join(latex_escape(str(h)) for h in header) + r" \\", r"\midrule"]
    for row in rows:
        # cells may carry markup already (e.g. significance superscripts) when pre-formatted
        out.append(" & ".join(c if isinstance(c, LatexRaw) else latex_escape(fmt_cell(c, digits))
                              for c in row) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        out.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        out.append(rf"\label{{{label}}}")
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


class LatexRaw(str):
    """A cell already in LaTeX markup; not escaped."""


def render(header: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str = "table",
           digits: int = 4, title: str | None = None):
    """Return a string (csv/markdown/latex) or a rich renderable (table); numbers align right."""
    if fmt == "csv":
        return to_csv(header, rows)
    if fmt == "latex":
        return to_latex(header, rows, digits, caption=title)
    right = [bool(rows) and all(isinstance(r[j], (int, float)) or r[j] is None for r in rows)
             for j in range(len(header))]   # a column of numbers only (or nothing)
    if fmt == "markdown":
        lines = [[str(h) for h in header], ["---:" if r else ":---" for r in right]]
        lines += [[fmt_cell(v, digits) for v in row] for row in rows]
        return (f"**{title}**\n\n" if title else "") + "".join(
            "| " + " | ".join(c.replace("|", "\\|") for c in line) + " |\n" for line in lines)
    from rich.table import Table

    # a title wider than a narrow table would otherwise be wrapped onto two lines
    table = Table(title=title, header_style="bold", title_justify="left",
                  min_width=len(title) + 2 if title else None)
    for h, r in zip(header, right):
        table.add_column(str(h), justify="right" if r else "left")
    for row in rows:
        table.add_row(*(fmt_cell(v, digits) for v in row))
    return table
