"""ABSA: stage 1 -> stage 2 changes of the tuple F1, and the spread over seeds (the mean ± std of
``scorekit absa aggregate-seeds``, or per-seed records ``extra["seeds"]``; docs/report.md)."""

from __future__ import annotations

import numpy as np

from scorekit.report import charts
from scorekit.report.model import Doc, is_number, numeric_item_fields
from scorekit.report.parts import cell, change_cell, figure, grid, section, table
from scorekit.report.sections.base import task_section
from scorekit.report.sections.common import kind_charts

STAGES = (("tuple_f1_s1", "tuple_f1_s2"), ("triplet_f1_s1", "triplet_f1_s2"))


def _spread_from_std(doc: Doc) -> str:
    std = doc.extra_value("std")
    if not isinstance(std, dict) or not std:
        return ""
    n_seeds = doc.extra_value("n_seeds") if isinstance(doc.extra_value("n_seeds"), dict) else {}
    mean = doc.runs[0].get("metrics") or {}
    names = [m for m in mean if m in std]
    rows = [[cell(m), cell(mu), cell(sd), cell(n_seeds.get(m)),
             f'<td class="num">{f"{mu:.4f} ± {sd:.4f}" if both else "–"}</td>']
            for m in names for mu, sd in [(mean.get(m), std.get(m))]
            for both in [is_number(mu) and is_number(sd)]]
    seeds = max((v for v in n_seeds.values() if is_number(v)), default=None)
    out = table(["metric", "mean", "std", "seeds", "mean ± std"], rows, cls="sk-seeds", raw_cells=True,
                caption=f"across {seeds} seeds (std: population, ddof=0)" if seeds else "across seeds")
    charted = [m for m in names if is_number(mean.get(m))]
    figs = kind_charts(charted, {"": [mean.get(m) for m in charted]}, doc.task,
                       errors={"": [std.get(m) if is_number(std.get(m)) else None for m in charted]},
                       title="mean ± std over seeds")
    return out + grid(figs)


def _spread_from_records(doc: Doc) -> str:
    seeds = doc.extra_value("seeds")
    if not (isinstance(seeds, list) and seeds and all(isinstance(s, dict) for s in seeds)):
        return ""
    cols = [c for c in numeric_item_fields(seeds) if c != "seed"]
    rows = [[c, len(v), float(v.mean()) if v.size else None,
             float(v.std(ddof=1)) if v.size > 1 else None,
             float(v.min()) if v.size else None, float(v.max()) if v.size else None]
            for c in cols for v in [np.array([s[c] for s in seeds if is_number(s.get(c))], float)]]
    out = table(["metric", "seeds", "mean", "std (ddof=1)", "min", "max"], rows, cls="sk-seeds",
                caption="across seeds")
    out += figure(charts.box_plot({c: [s[c] for s in seeds if is_number(s.get(c))] for c in cols},
                                  title="spread across seeds"))
    out += table(list(seeds[0].keys()), [list(s.values()) for s in seeds], caption="per seed")
    return out


def _stages(doc: Doc) -> str:
    rows = [[cell(doc.run_name(i)), cell(s1.rsplit("_", 1)[0].replace("_f1", " F1")),   # "tuple F1"
             cell(m[s1]), cell(m[s2]), change_cell(m[s2], m[s1])]
            for i, r in enumerate(doc.runs) for m in [r.get("metrics") or {}] for s1, s2 in STAGES
            if is_number(m.get(s1)) and is_number(m.get(s2))]
    if not rows:
        return ""
    return table(["run", "metric", "stage 1", "stage 2", "change"], rows, cls="sk-stages", raw_cells=True,
                 caption="stage 1 → stage 2 (change = stage 2 − stage 1, relative change)")


@task_section("absa")
def absa_section(doc: Doc) -> tuple[str, set[str]]:
    spread, rec = _spread_from_std(doc), _spread_from_records(doc)
    consumed = ({"std", "n_seeds"} if spread else set()) | ({"seeds"} if rec else set())
    return (section("ABSA: stage 1 → stage 2", _stages(doc), cls="sk-task-absa")
            + section("ABSA: spread over seeds", spread + rec, cls="sk-absa-seeds"), consumed)
