"""The report's charts as PNG files (matplotlib, Agg backend) and its tables as LaTeX, for papers:
:func:`write_figures` mirrors the HTML report (which files it writes: docs/report.md, "PNG figures
and LaTeX tables"); each primitive (:func:`bar_png`, :func:`grouped_bars_png`, ...) writes one PNG
atomically. Korean labels use a Korean system font when one is installed."""

from __future__ import annotations

import contextlib
import functools
import math
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.io.atomic import atomic_write
from scorekit.report import tables
from scorekit.report.charts import PALETTE, marker_color
from scorekit.text.normalize import nfc

DPI = 200
_KOREAN_FONT_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/nanum/NanumGothic.ttf",
    "/System/Library/Fonts/AppleSDGothicNeo.ttc",
    "C:/Windows/Fonts/malgun.ttf",
)
_KOREAN_FAMILIES = ("Noto Sans CJK KR", "NanumGothic", "Apple SD Gothic Neo", "Malgun Gothic")


@functools.lru_cache(maxsize=1)
def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    for path in _KOREAN_FONT_FILES:   # fonts installed after matplotlib built its cache
        if Path(path).exists():
            with contextlib.suppress(OSError, RuntimeError):
                font_manager.fontManager.addfont(path)
    known = {f.name for f in font_manager.fontManager.ttflist}
    families = [f for f in _KOREAN_FAMILIES if f in known]
    # font.family: a fallback per glyph (matplotlib ≥ 3.6)
    plt.rcParams.update({"font.family": ["DejaVu Sans", *families],
                         "axes.prop_cycle": matplotlib.cycler(color=list(PALETTE)),
                         "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _save(fig, path: Path, ax=None, *, title: str | None = None, xlabel: str | None = None,
          ylabel: str | None = None) -> Path:
    """Label ``ax`` (title, axis labels: NFC) and write the figure as PNG, all or nothing."""
    plt = _pyplot()
    for text, set_label in ((xlabel, ax.set_xlabel), (ylabel, ax.set_ylabel)):
        if text:
            set_label(nfc(text))
    if title:
        ax.set_title(nfc(title), fontsize=10, loc="left")
    fig.tight_layout()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a missing glyph warns; the file is still written
        with atomic_write(path, "wb") as fh:
            fig.savefig(fh, format="png", dpi=DPI)
    plt.close(fig)
    return path


def _finite(values: Sequence[Any]) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]


def bar_png(labels: Sequence[str], values: Sequence[float | None], path: Path, *, title: str | None = None) -> Path:
    return grouped_bars_png(labels, {"": values}, path, title=title)


def grouped_bars_png(categories: Sequence[str], series: Mapping[str, Sequence[float | None]], path: Path, *,
                     markers: Mapping[tuple[str, str], str] | None = None, title: str | None = None,
                     xlim: tuple[float, float] | None = None) -> Path:
    """Horizontal grouped bars, values and markers at their ends; ``xlim`` fixes the value axis."""
    plt = _pyplot()
    markers, names = markers or {}, list(series)
    n, k = len(categories), max(len(names), 1)
    fig, ax = plt.subplots(figsize=(6.4, max(1.6, 0.32 * n * k + 0.9)))
    h = 0.8 / k
    for si, name in enumerate(names):
        ys = [ci + (si - (k - 1) / 2) * h for ci in range(n)]
        vals = [v if isinstance(v, (int, float)) and v is not None and math.isfinite(v) else 0.0
                for v in series[name]]
        ax.barh(ys, vals, height=h * 0.9, label=nfc(name) or None, color=PALETTE[si % len(PALETTE)])
        for y, v, cat in zip(ys, series[name], categories):
            if v is None:
                continue
            mark = markers.get((cat, name), "")
            ax.text(v, y, f" {v:.4g}", va="center", fontsize=8)
            if mark:   # ▲ / ▼ / ○: a shape and a colour each
                ax.annotate(f" {mark}", (v, y), xytext=(34, 0), textcoords="offset points", va="center",
                            fontsize=8, color=marker_color(mark), fontweight="bold")
    ax.set_yticks(range(n), [nfc(c) for c in categories])
    ax.invert_yaxis()
    ax.grid(axis="x", color="#ddd")
    ax.set_axisbelow(True)
    if any(names):
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.margins(x=0.15)
    if xlim is not None:
        vals = [v for vs in series.values() for v in vs if isinstance(v, (int, float)) and math.isfinite(v)]
        ax.set_xlim(min([xlim[0]] + vals), max([xlim[1] * 1.15] + vals))
    return _save(fig, path, ax, title=title)


def histogram_png(values: Sequence[float], path: Path, *, bins: int = 10,
                  value_range: tuple[float, float] | None = None, title: str | None = None,
                  xlabel: str | None = None) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.0, 3.0))
    ax.hist(_finite(values), bins=bins, range=value_range, color=PALETTE[0], edgecolor="white")
    ax.yaxis.get_major_locator().set_params(integer=True)
    return _save(fig, path, ax, title=title, xlabel=xlabel, ylabel="count")


def box_png(series: Mapping[str, Sequence[float]], path: Path, *, title: str | None = None,
            xlabel: str | None = None) -> Path:
    """Horizontal Tukey box plots (whiskers at 1.5 IQR, means as diamonds), one per series."""
    plt = _pyplot()
    names = list(series)
    fig, ax = plt.subplots(figsize=(6.0, max(1.6, 0.45 * len(names) + 0.9)))
    import matplotlib

    horizontal = ({"orientation": "horizontal"} if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) >= (3, 10)
                  else {"vert": False})
    ax.boxplot([_finite(series[n]) for n in names], showmeans=True, whis=1.5, **horizontal,
               meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
    ax.set_yticks(range(1, len(names) + 1), [nfc(n) for n in names])
    ax.invert_yaxis()
    return _save(fig, path, ax, title=title, xlabel=xlabel)


def line_ci_png(x: Sequence[float], series: Mapping[str, Mapping[str, Sequence[float | None]]], path: Path, *,
                title: str | None = None, xlabel: str | None = None, ylabel: str | None = None,
                hlines: Mapping[str, float] | None = None, span: tuple[float, float] | None = None,
                span_label: str | None = None, xticks: Sequence[float] | None = None) -> Path:
    """Mean against ``x`` per series (``{"mean", "low", "high"}``, the band shaded); ``hlines``:
    dashed lines by label; ``span``: a grey x-interval (``span_label``); ``xticks``: exact ticks."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 3.4))
    xs = np.asarray(x, dtype=float)
    for i, (name, s) in enumerate(series.items()):
        c = PALETTE[i % len(PALETTE)]
        mean = np.asarray([np.nan if v is None else v for v in s.get("mean", [])], dtype=float)
        # a line style and a marker per series: two equal curves stay visible
        ax.plot(xs[: mean.size], mean, marker="osD^"[i % 4], ms=4, color=c, label=nfc(name),
                linestyle=("-", "--", ":", "-.")[i % 4], markerfacecolor="white" if i % 4 else c)
        low, high = s.get("low"), s.get("high")
        if low and high:
            lo, hi = (np.asarray(v, dtype=float) for v in (low, high))   # None -> nan
            m = min(lo.size, hi.size, xs.size)
            ax.fill_between(xs[:m], lo[:m], hi[:m], color=c, alpha=0.15, linewidth=0)
    for label, y in (hlines or {}).items():
        ax.axhline(y, linestyle="--", color="black", alpha=0.6, label=nfc(label))
    if span is not None:
        ax.axvspan(*span, color="grey", alpha=0.15, linewidth=0, label=nfc(span_label) if span_label else None)
    if xticks is not None:
        ax.set_xticks(list(xticks))
    ax.grid(color="#eee")
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, path, ax, title=title, xlabel=xlabel, ylabel=ylabel)


def _slug(s: str) -> str:
    return re.sub(r"[^0-9A-Za-z_.@-]+", "_", nfc(str(s))).strip("_") or "x"


def write_figures(documents: Sequence[Any], out_dir: Path, *, sources: Sequence[str | None] | None = None) -> list[Path]:
    """Write the report's figures (PNG) and tables (LaTeX) for each result document."""
    from scorekit.report.model import (UNKNOWN, is_number, load_doc, lower_is_better, metric_kind,
                                       numeric_item_fields, primary_metric)
    from scorekit.report.sections.answer import significance

    out_dir = Path(out_dir)
    written: list[Path] = []
    used: set[str] = set()
    for i, data in enumerate(documents):
        data = data.to_dict() if hasattr(data, "to_dict") else data
        doc = load_doc(data, sources[i] if sources else None, i)
        stem = _slug(Path(doc.source).stem) if doc.source else f"result{i + 1}"
        while stem in used:
            stem += f"_{i + 1}"
        used.add(stem)
        names, metric_names = doc.names(), doc.metric_names()

        # metrics: LaTeX table and a bar chart (significance markers from the comparison)
        rows = [[n] + [(r.get("metrics") or {}).get(m) for m in metric_names] for n, r in zip(names, doc.runs)]

        def tex(name: str, text: str) -> None:
            with atomic_write(out_dir / name) as fh:
                fh.write(text)
            written.append(out_dir / name)

        if metric_names:
            tex(f"{stem}_metrics.tex",
                tables.to_latex(["system"] + metric_names, rows, label=f"tab:{stem}",
                                caption=f"{doc.task}: {', '.join(names)}"))
        markers: dict[tuple[str, str], str] = {}
        comp = doc.comparison or {}
        if isinstance(comp.get("rows"), list):
            markers = {(str(r.get("measure")), str(r.get("system"))): significance(r, doc)
                       for r in comp["rows"]}
            crow = [[r.get("system"), r.get("measure"), tables.LatexRaw(
                tables.fmt_cell(r.get("value")) + (r"$^{*}$" if r.get("significant") else "")),
                     r.get("baseline_value"), r.get("improvement_pct"), r.get("p_value"),
                     r.get("p_adjusted")] for r in comp["rows"]]
            tex(f"{stem}_comparison.tex", tables.to_latex(
                ["system", "measure", "value", "baseline", "improvement %", "p", "p (Holm)"], crow,
                caption=f"{doc.task}: against {comp.get('baseline')} "
                        "(* significant after Holm-Bonferroni)"))
        # metrics charted by kind of value: the rates on one 0-1 axis, the counts, each score apart
        by_kind: dict[str, list[str]] = {}
        for m in metric_names:
            if any(is_number((r.get("metrics") or {}).get(m)) for r in doc.runs):
                by_kind.setdefault(metric_kind(m, doc.task), []).append(m)

        def bars(ms: list[str], name: str, what: str, xlim=None) -> None:
            series = {(n if doc.multi else ""): [(r.get("metrics") or {}).get(m) for m in ms]
                      for n, r in zip(names, doc.runs)}
            sig = " (▲ better, ▼ worse, ○ n.s. vs baseline)" if markers else ""
            png = grouped_bars_png(ms, series, out_dir / f"{stem}_metrics{name}.png",
                                   markers=markers, xlim=xlim, title=f"{doc.task}: {what}{sig}")
            written.append(png)

        if by_kind.get("rate"):
            bars(by_kind["rate"], "", "rates", (0.0, 1.0))
        if by_kind.get("count"):
            bars(by_kind["count"], "_counts", "counts")
        for m in by_kind.get("score", []) + by_kind.get(UNKNOWN, []):
            bars([m], f"_{_slug(m)}", m)

        # per-item distribution of the primary metric
        prim = primary_metric(doc)
        items = [r.get("per_item") or [] for r in doc.runs]
        if prim and prim in numeric_item_fields([row for it in items for row in it]):
            p = out_dir / f"{stem}_{_slug(prim)}_per_item.png"
            if doc.multi:
                written.append(box_png({n: [row.get(prim) for row in it] for n, it in zip(names, items)}, p,
                                       title=f"{prim} per item", xlabel=prim))
            else:
                vals = _finite([row.get(prim) for row in items[0]])
                rate = metric_kind(prim, doc.task) == "rate"
                rng = (0.0, 1.0) if rate and vals and all(0 <= v <= 1 for v in vals) else None
                written.append(histogram_png(vals, p, value_range=rng, title=f"{prim} per item "
                                             f"({'lower' if lower_is_better(prim, doc) else 'higher'} is better)",
                                             xlabel=prim))

        # n-sweep curves
        sweep = doc.hints().get("sweep")
        if isinstance(sweep, dict) and isinstance(sweep.get("series"), dict):
            series = sweep["series"]
            for m in dict.fromkeys(k for ms in series.values() for k, v in ms.items()
                                   if isinstance(v, dict)):
                s = {name: ms[m] for name, ms in series.items() if isinstance(ms.get(m), dict)}
                written.append(line_ci_png(sweep.get("n") or [], s, out_dir / f"{stem}_sweep_{_slug(m)}.png",
                                           title=f"{m} by n", xlabel="n (words)", ylabel=m))
    return written
