"""Retrieval: how many queries a run misses entirely, and per-query wins/ties/losses against the
baseline."""

from __future__ import annotations

from scorekit.report import charts
from scorekit.report.model import Doc, is_number, lower_is_better, primary_metric
from scorekit.report.parts import figure, section, table
from scorekit.report.sections.base import task_section


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
