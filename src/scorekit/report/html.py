"""One self-contained HTML report from result JSON documents: the document assembly. CSS and
script are package data inlined at render time, charts are inline SVG, and the page's
Content-Security-Policy forbids fetching anything; the parts and conventions: docs/report.md."""

from __future__ import annotations

import datetime as _dt
import html as html_lib
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

from scorekit import __version__
from scorekit.errors import ScorekitError
from scorekit.report.charts import esc
from scorekit.report.model import PRIMARY_METRICS, Doc, best_values, is_number, load_doc, lower_is_better
from scorekit.report.parts import cell, section, table, text_html
from scorekit.report.sections import TASK_SECTIONS
from scorekit.report.sections.answer import answer_html
from scorekit.report.sections.common import (comparison_section, distributions_section, drilldown_section,
                                             extra_section, metrics_section, runs_info, warnings_html)
from scorekit.report.sections.sweep import sweep_section
from scorekit.text.korean import has_hangul
from scorekit.text.normalize import nfc

CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


@lru_cache(maxsize=None)
def asset(name: str) -> str:
    """A file of ``scorekit/report/assets`` (package data), as text."""
    return resources.files("scorekit.report").joinpath("assets", name).read_text(encoding="utf-8")


def doc_html(doc: Doc) -> str:
    title = f"{doc.task} — {', '.join(doc.names())}"
    anchor = f"doc-{doc.index + 1}"
    task_html, consumed = TASK_SECTIONS.get(doc.task, lambda _: ("", set()))(doc)
    sweep_html, sweep_keys = sweep_section(doc)
    consumed = set(consumed) | sweep_keys
    parts = [
        f'<section class="sk-doc" id="{anchor}" data-task="{esc(doc.task)}" data-runs="{len(doc.runs)}">',
        f"<h2>{text_html(title)}</h2>",
        f'<p class="meta">from {text_html(doc.source)}</p>' if doc.source else "",
        answer_html(doc),
        warnings_html(doc),
        section("metrics", metrics_section(doc), cls="sk-metrics-section"),
        section("system comparison", comparison_section(doc), cls="sk-comparison-section"),
        section("n-sweep", sweep_html, cls="sk-sweep-section"),
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
        names = list(dict.fromkeys(k for _, _, m in runs for k in m))
        # ranked by the task's headline metric (else the first), the best value of each column in bold
        lowered = {k.lower(): k for k in names}
        prim = next((lowered[c] for c in PRIMARY_METRICS.get(task, ()) if c in lowered), names[0] if names else None)
        lb = {k: lower_is_better(k, task=task) for k in names}
        if prim:
            runs.sort(key=lambda r: (not is_number(r[2].get(prim)),
                                     (r[2].get(prim) if lb[prim] else -r[2].get(prim)) if is_number(r[2].get(prim)) else 0))
        best = best_values([m for _, _, m in runs], names, lb.get)
        rows = [[cell(j + 1), cell(n), cell(s)] + [cell(m.get(k), cls="best" if k in best and m.get(k) == best[k] else "")
                                                   for k in names] for j, (n, s, m) in enumerate(runs)]
        out.append(table(["#", "system", "file"] + names, rows, raw_cells=True,
                         caption=f"{task}: ranked by {prim} ({'lower' if prim and lb[prim] else 'higher'} is better; "
                                 "best of each column in bold)" if prim else task,
                         cls="sk-overview", attrs=f' data-task="{esc(task)}"'))
    return section("all runs by task", "".join(out), cls="sk-overview-section") if out else ""


def render_report(documents: Sequence[Any], *, title: str | None = None,
                  sources: Sequence[str | None] | None = None) -> str:
    """Render parsed result JSON objects (or :class:`~scorekit.result.Result`) as one HTML page."""
    docs = [load_doc(d.to_dict() if hasattr(d, "to_dict") else d, sources[i] if sources else None, i)
            for i, d in enumerate(documents)]
    if not docs:
        raise ScorekitError("no results to report")
    title = nfc(title or "scorekit report")
    generated = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    body = "".join(doc_html(d) for d in docs)
    # several files: each entry of the contents carries its answer's headline, so the first view
    # answers every file's question, not only the first one's
    def entry(d: Doc) -> str:
        m = re.search(r'<p class="sk-headline">(.*?)</p>', answer_html(d), re.S)
        head = text_html(html_lib.unescape(re.sub(r"<[^>]+>", "", m[1]))) if m else ""
        return (f'<li><a href="#doc-{d.index + 1}">{text_html(d.task)} — '
                f'{text_html(", ".join(d.names()))}</a>'
                + (f'<span class="sk-toc-answer">: {head}</span>' if m else "") + "</li>")

    toc = "".join(entry(d) for d in docs)
    lang = "ko" if has_hangul(body) or has_hangul(title) else "en"
    return nfc(
        "<!DOCTYPE html>\n"
        f'<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="scorekit {esc(__version__)}">\n'
        # everything is inline: forbid the page from fetching anything at all
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"<title>{esc(title)}</title>\n<style>\n{asset('report.css')}</style>\n</head>\n<body>\n"
        f'<header class="sk-top"><h1>{text_html(title)}</h1>'
        f'<p class="meta">generated {esc(generated)} by scorekit {esc(__version__)} · '
        f"{len(docs)} result file{'s' if len(docs) != 1 else ''}</p>"
        + (f'<nav class="toc"><ul>{toc}</ul></nav>' if len(docs) > 1 else "")
        + "</header>\n<main>\n" + overview_html(docs) + body + "\n</main>\n"
        f"<script>\n{asset('report.js')}</script>\n</body>\n</html>\n"
    )
