"""Inline SVG charts for the HTML report: no JavaScript library, no network, scale to any width
(a ``viewBox``). Every mark that encodes a number carries it in ``data-*`` attributes at full
precision (what tests read) and in a ``<title>`` tooltip; text is escaped and NFC. What the charts
follow (colour-blind palette, shapes, labels never cut): docs/report.md."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scorekit.text.normalize import nfc

# Okabe–Ito: distinguishable for colour-blind readers and in greyscale print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
FONT = 12
CHAR_W = 7.3   # rough average glyph width at FONT px, for layout only (Hangul is wider: 2x)
# significance markers: a shape AND a colour each (▲ better, ▼ worse, ○ not significant)
MARKER_COLORS = {"▲": "#007a55", "▼": "#c0392b", "○": "#666666"}
LOWER_BETTER_COLOR = "#D55E00"   # single-series bars of a lower-is-better metric (with "↓" in its label)
DASHES = ("", "6,3", "2,3", "8,3,2,3", "4,4", "1,2")   # line styles: equal lines stay visible
BAR_H = 14.0    # one bar's height


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def esc(value: Any) -> str:
    return html.escape(nfc(str(value)), quote=True)


def num_attr(value: float | None) -> str:
    """Full-precision number for a data attribute (``nan`` for a missing value)."""
    missing = value is None or (isinstance(value, float) and not math.isfinite(value))
    return "nan" if missing else repr(float(value))


def fmt(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))   # a count stays a whole number
    if float(value).is_integer() and abs(value) >= 1000:
        return f"{int(value)}"
    if value != 0 and abs(value) < 0.5 * 10 ** -digits:
        return f"{float(value):.3g}"   # 1e-06 is not 0.0000
    return f"{float(value):.{digits}f}"


def text_width(s: str) -> float:
    return sum(2 * CHAR_W if ord(ch) > 0x2E80 else CHAR_W for ch in s)


def wrap_label(s: str, width: float) -> list[str]:
    """Lines no wider than ``width``, never cut (breaks after ``_@-/.`` or a space if it can)."""
    s = nfc(str(s))
    if text_width(s) <= width:
        return [s]
    lines: list[str] = []
    cur, last_break = "", -1
    for ch in s:
        if text_width(cur + ch) > width and cur:
            if 0 < last_break < len(cur):
                lines.append(cur[:last_break])
                cur = cur[last_break:]
            else:
                lines.append(cur)
                cur = ""
            last_break = -1
        cur += ch
        if ch in "_@-/. ":
            last_break = len(cur)
    if cur:
        lines.append(cur)
    return lines


def marker_color(mark: str) -> str:
    return MARKER_COLORS.get(mark.strip()[:1], "#b00")


def _label_lines(lines: Sequence[str], x: float, y_mid: float, full: str, note: str | None = None) -> str:
    lh = FONT + 1
    y0 = y_mid - (len(lines) + (1 if note else 0) - 1) * lh / 2 + 4
    spans = "".join(f'<tspan x="{x:g}" y="{y0 + i * lh:.2f}">{esc(line)}</tspan>' for i, line in enumerate(lines))
    if note:
        spans += (f'<tspan class="sk-dir" x="{x:g}" y="{y0 + len(lines) * lh:.2f}" fill="{LOWER_BETTER_COLOR}" '
                  f'font-size="{FONT - 1}">{esc(note)}</tspan>')
    return (f'<text class="sk-label" font-size="{FONT}" text-anchor="end"><title>{esc(full)}</title>'
            f"{spans}</text>")


def nice_ticks(lo: float, hi: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round (1-2-5) tick positions covering [lo, hi]; whole numbers when ``integer``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo <= 1e-12 * max(1.0, abs(lo), abs(hi)):
        hi = lo + (abs(lo) or 1.0)   # a degenerate range: one unit (or |lo|) wide
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    if integer:
        step = max(1.0, math.ceil(step))
    k0, k1 = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [k * step for k in range(k0, max(k1, k0 + 1) + 1)]


def _domain(values: Sequence[float], include_zero: bool = True) -> tuple[float, float]:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if include_zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi == lo:
        hi = lo + (abs(lo) or 1.0)
    ticks = nice_ticks(lo, hi)
    return ticks[0], ticks[-1]


def _open(kind: str, width: float, height: float, title: str | None, attrs: str = "") -> list[str]:
    label = esc(title or kind)
    spans = "".join(f'<tspan x="0" y="{FONT + 2 + i * (FONT + 4)}">{esc(line)}</tspan>'
                    for i, line in enumerate(wrap_label(title, width - 4) if title else ()))
    return [
        f'<svg class="sk-chart" data-chart="{kind}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-label="{label}" viewBox="0 0 {width:g} {height:g}" preserveAspectRatio="xMinYMin meet" '
        f'style="max-width:{width:g}px"{attrs}>',
        f"<title>{label}</title>",
        (f'<text class="sk-chart-title" font-size="{FONT + 1}" font-weight="600">{spans}</text>'
         if title else ""),
    ]


def _heading_h(title: str | None, width: float, extra: float, none: float) -> float:
    return (len(wrap_label(title, width - 4)) - 1) * (FONT + 4) + FONT + extra if title else none


def _legend(names: Sequence[str], y: float, width: float, pick=color) -> tuple[list[str], float]:
    """Legend swatches (line style, point shape) flowing left to right: (elements, height)."""
    out, x, row_h, yy, line_h = [], 0.0, FONT + 8, y, 0.0
    for i, name in enumerate(names):
        lines = wrap_label(name, width - 20)
        w = 16 + max(text_width(line) for line in lines) + 14
        if x > 0 and x + w > width:
            x, yy, line_h = 0.0, yy + line_h, 0.0
        spans = "".join(f'<tspan x="{x + 15:g}" y="{yy + 10 + k * (FONT + 2):g}">{esc(line)}</tspan>'
                        for k, line in enumerate(lines))
        dash = DASHES[i % len(DASHES)]
        swatch = (f'<line x1="{x - 4:g}" y1="{yy + 6:g}" x2="{x + 13:g}" y2="{yy + 6:g}" stroke="{pick(i)}" '
                  f'stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>"
                  + _point(i, x + 4.5, yy + 6, pick(i), 'class="sk-legend-point"', esc(name)))
        out.append(f'<g class="sk-legend-item" data-series="{esc(name)}">{swatch}'
                   f'<text font-size="{FONT}">{spans}</text></g>')
        line_h = max(line_h, row_h + (len(lines) - 1) * (FONT + 2))
        x += w
    return out, (yy - y + line_h) if names else 0.0


def _axis(x0: float, x1: float, y0: float, y1: float, lo: float, hi: float, label: str | None = None,
          integer: bool = False, *, vertical: bool = False) -> list[str]:
    out = []
    for t in nice_ticks(lo, hi, integer=integer):
        if t < lo - 1e-12 or t > hi + 1e-12:
            continue
        if vertical:
            y = y1 - (t - lo) / (hi - lo) * (y1 - y0)
            xa, ya, xb, yb, tx, ty, anchor = x0, y, x1, y, x0 - 4, y + 4, "end"
        else:
            x = x0 + (t - lo) / (hi - lo) * (x1 - x0)
            xa, ya, xb, yb, tx, ty, anchor = x, y0, x, y1, x, y1 + FONT + 2, "middle"
        out += [f'<line class="sk-grid" x1="{xa:.2f}" y1="{ya:.2f}" x2="{xb:.2f}" y2="{yb:.2f}" '
                f'stroke="#ddd" stroke-width="1"/>',
                f'<text class="sk-tick" x="{tx:.2f}" y="{ty:.2f}" font-size="{FONT - 1}" '
                f'text-anchor="{anchor}" fill="#555">{t:g}</text>']
    if label:
        where = (f'x="{x0 + 4:.2f}" y="{y0 - 8:.2f}" font-size="{FONT - 1}"' if vertical else
                 f'x="{(x0 + x1) / 2:.2f}" y="{y1 + 2 * FONT + 6:.2f}" font-size="{FONT - 1}" '
                 'text-anchor="middle"')
        out.append(f'<text class="sk-axis-label" {where} fill="#333">{esc(label)}</text>')
    return out


def grouped_bars(categories: Sequence[str], series: Mapping[str, Sequence[float | None]], *,
                 markers: Mapping[tuple[str, str], str] | None = None, title: str | None = None,
                 xlabel: str | None = None, digits: int = 4, width: float = 420,
                 kind: str = "grouped-bars", colors: Sequence[str] | None = None,
                 domain: tuple[float, float] | None = None, integer: bool = False,
                 errors: Mapping[str, Sequence[float | None]] | None = None,
                 scale: str | None = None, lower: Sequence[str] = ()) -> str:
    """Horizontal bar clusters: one per category (a measure), one bar per series (a system), with
    ``markers[(category, series)]`` after the value. ``domain`` fixes the value axis (widened only
    if a value falls outside; else fitted to the values and zero); ``integer``: whole-number ticks;
    ``errors[series][i]``: a ±whisker; ``scale``: the axis's ``data-scale``. A category in
    ``lower`` says "↓ better" (one series: its bar in :data:`LOWER_BETTER_COLOR`)."""
    markers, lower, names = markers or {}, set(lower), list(series)
    values = [v for s in series.values() for v in s if v is not None and math.isfinite(v)]
    values += [v + s * e for n, es in (errors or {}).items() for v, e in zip(series.get(n, ()), es)
               if v is not None and e is not None and math.isfinite(v) and math.isfinite(e)
               for s in (-1, 1)]   # the whiskers' ends
    if domain is not None and all(domain[0] <= v <= domain[1] for v in values):
        lo, hi = domain
    else:
        lo, hi = _domain(values + list(domain or ()))
    pick = (lambda i: colors[i % len(colors)]) if colors else color
    label_w, x1, legend, y = _bars_frame(categories, series, digits, errors, markers, title, width, pick)
    plot_top = y
    body: list[str] = []
    sx = lambda v: label_w + (v - lo) / (hi - lo) * (x1 - label_w)  # noqa: E731
    for ci, cat in enumerate(categories):
        lines = wrap_label(cat, label_w - 10)
        group_h = max(BAR_H * len(names), (FONT + 1) * (len(lines) + (cat in lower)) + 2)
        body.append(_label_lines(lines, label_w - 6, y + group_h / 2, full=cat,
                                 note="↓ better" if cat in lower else None))
        y_bars = y + (group_h - BAR_H * len(names)) / 2
        for si, name in enumerate(names):
            mark = markers.get((cat, name), "")
            body += _hbar(cat, name, nth(series[name], ci), nth((errors or {}).get(name), ci), mark,
                          digits, sx, lo, hi, label_w, y_bars + si * BAR_H,
                          LOWER_BETTER_COLOR if names == [""] and cat in lower else pick(si),
                          tip_tail=" " + mark if mark else "",
                          flag=' data-lower-is-better="1"' if cat in lower else "")
        y += group_h + 10
    plot_bottom = y - 10 + 2
    axis = _axis(label_w, x1, plot_top, plot_bottom, lo, hi, xlabel, integer=integer)
    out = _open(kind, width, plot_bottom + FONT + 8 + (FONT + 8 if xlabel else 0), title,
                f' data-lo="{num_attr(lo)}" data-hi="{num_attr(hi)}"' + (f' data-scale="{esc(scale)}"' if scale else ""))
    return "\n".join(out + legend + axis + body + ["</svg>"])


def panels(categories: Sequence[str], series: Mapping[str, Sequence[float | None]], *,
           title: str | None = None, digits: int = 4, width: float = 420,
           errors: Mapping[str, Sequence[float | None]] | None = None, scale: str = "own",
           markers: Mapping[tuple[str, str], str] | None = None) -> str:
    """One row per category, each on an axis of its own (0, or its most negative value, to a round
    number above its largest): a count of 1 is never drawn as long as an F1 of 1."""
    names = list(series)
    label_w, x1, legend, y = _bars_frame(categories, series, digits, errors, markers, title, width)
    x0 = label_w
    body: list[str] = []
    for ci, cat in enumerate(categories):
        vals = [nth(series[n], ci) for n in names]
        errs = [nth((errors or {}).get(n), ci) for n in names]
        whiskers = [(v, e) for v, e in zip(vals, errs) if v is not None and e is not None]
        lo, hi = _domain(vals + [v + e for v, e in whiskers] + [v - e for v, e in whiskers])
        sx = lambda v, lo=lo, hi=hi: x0 + (v - lo) / (hi - lo) * (x1 - x0)  # noqa: E731
        lines = wrap_label(cat, label_w - 10)
        group_h = max(BAR_H * len(names), (FONT + 1) * len(lines) + 2)
        body.append(_label_lines(lines, label_w - 6, y + group_h / 2, full=cat))
        body.append(f'<g class="sk-panel" data-category="{esc(cat)}" data-lo="{num_attr(lo)}" data-hi="{num_attr(hi)}">'
                    f'<line x1="{x0:.2f}" y1="{y + group_h + 1:.2f}" x2="{x1:.2f}" y2="{y + group_h + 1:.2f}" stroke="#bbb"/>'
                    f'<text class="sk-tick" x="{x0:.2f}" y="{y + group_h + FONT:.2f}" font-size="{FONT - 2}" '
                    f'fill="#555">{lo:g}</text>'
                    f'<text class="sk-tick" x="{x1:.2f}" y="{y + group_h + FONT:.2f}" font-size="{FONT - 2}" '
                    f'text-anchor="end" fill="#555">{hi:g}</text></g>')
        y_bars = y + (group_h - BAR_H * len(names)) / 2
        for si, name in enumerate(names):
            mark = (markers or {}).get((cat, name), "")
            body += _hbar(cat, name, vals[si], errs[si], mark, digits, sx, lo, hi, x0, y_bars + si * BAR_H,
                          color(si), tip_tail=f" (axis {lo:g} to {hi:g})",
                          extra=f' data-lo="{num_attr(lo)}" data-hi="{num_attr(hi)}"')
        y += group_h + FONT + 10
    out = _open("panels", width, y + 2, title, f' data-scale="{esc(scale)}"')
    return "\n".join(out + legend + body + ["</svg>"])


def nth(values: Sequence[Any] | None, i: int) -> Any:   # None past the end (or without values)
    return values[i] if values is not None and i < len(values) else None


def _bars_frame(categories: Sequence[str], series: Mapping[str, Sequence[float | None]], digits: int,
                errors: Mapping[str, Sequence[float | None]] | None,
                markers: Mapping[tuple[str, str], str] | None, title: str | None, width: float,
                pick=color) -> tuple[float, float, list[str], float]:
    """(label column width, value axis end, legend, top of the first bar) of a bar chart."""
    label_w = min(170.0, max([text_width(c) for c in categories] + [40.0]) + 12)
    room = 30.0   # the longest value label (``0.9286 ± 0.0412 ▲``) right of its bar: never clipped
    for name, vals in series.items():
        for ci, v in enumerate(vals):
            e = nth((errors or {}).get(name), ci)
            shown = fmt(v, digits) + (f" ± {fmt(e, digits)}" if e is not None and v is not None else "")
            mark = (markers or {}).get((categories[ci] if ci < len(categories) else "", name), "")
            room = max(room, text_width(shown + (" " + mark if mark else "")) * (FONT - 1) / FONT)
    x1 = width - min(room + 10, width / 3)
    top = _heading_h(title, width, 10, 0.0)
    legend, legend_h = _legend(list(series), top, width, pick) if list(series) != [""] else ([], 0.0)
    return label_w, x1, legend, top + legend_h + 4


def _hbar(cat: str, name: str, v, e, mark: str, digits: int, sx, lo: float, hi: float, x0: float, yy: float,
          fill: str, *, tip_tail: str = "", extra: str = "", flag: str = "") -> list[str]:
    """One bar from zero (clamped into the axis) to ``v``, its error bar, value and marker."""
    shown = fmt(v, digits) + (f" ± {fmt(e, digits)}" if e is not None and v is not None else "")
    tip = f"{cat}{' · ' + name if name else ''}: {shown}{tip_tail}"
    attrs = (f'data-category="{esc(cat)}" data-series="{esc(name)}" data-value="{num_attr(v)}"{extra}'
             + (f' data-error="{num_attr(e)}"' if e is not None else "")
             + (f' data-marker="{esc(mark)}"' if mark else ""))
    if v is None or not math.isfinite(v):
        return [f'<g class="sk-bar sk-missing" {attrs}><title>{esc(tip)}</title>'
                f'<text x="{x0 + 2:g}" y="{yy + BAR_H - 3:g}" font-size="{FONT - 1}" fill="#888">–</text></g>']
    zero, xv = sx(min(max(0.0, lo), hi)), sx(v)
    out = [f'<rect class="sk-bar" {attrs} x="{min(zero, xv):.2f}" y="{yy + 1:.2f}" width="{max(abs(xv - zero), 0.5):.2f}" '
           f'height="{BAR_H - 2:g}" fill="{fill}"{flag}><title>{esc(tip)}</title></rect>']
    end = max(zero, xv)
    if e is not None and math.isfinite(e) and e > 0:
        a, b, cy = sx(v - e), sx(v + e), yy + BAR_H / 2
        out.append(f'<path class="sk-error" d="M{a:.2f},{cy:.2f}H{b:.2f}M{a:.2f},{cy - 4:.2f}v8'
                   f'M{b:.2f},{cy - 4:.2f}v8" stroke="#222" stroke-width="1.2" fill="none"/>')
        end = max(end, b)
    out.append(f'<text class="sk-value" x="{end + 4:.2f}" y="{yy + BAR_H - 3:.2f}" font-size="{FONT - 1}">{esc(shown)}'
               + (f'<tspan class="sk-marker" font-weight="700" fill="{marker_color(mark)}"> {esc(mark)}</tspan>'
                  if mark else "") + "</text>")
    return out


def histogram(values: Sequence[float], *, bins: int = 10, value_range: tuple[float, float] | None = None,
              title: str | None = None, xlabel: str | None = None, width: float = 420,
              height: float = 200) -> str:
    """Vertical histogram (counts per equal-width bin, as ``numpy.histogram``)."""
    x = np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float)
    if value_range is None:
        lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 1.0)
        value_range = (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)
    counts, edges = np.histogram(x, bins=bins, range=value_range)
    top, x0, x1 = _heading_h(title, width, 14, 8.0), 40.0, width - 28   # room for the last label
    y0, y1 = top + FONT + 10, top + FONT + 10 + height
    cmax_axis = nice_ticks(0, max(int(counts.max()) if counts.size else 0, 1), 4, integer=True)[-1]
    out = _open("histogram", width, y1 + 2 * FONT + 12 + (FONT if xlabel else 0), title,
                f' data-n="{x.size}"')
    out += _axis(x0, x1, y0, y1, 0, cmax_axis, "count", integer=True, vertical=True)
    bw = (x1 - x0) / bins
    for i, c in enumerate(counts):
        h = c / cmax_axis * (y1 - y0)
        tip = f"[{edges[i]:.4g}, {edges[i + 1]:.4g}{']' if i == bins - 1 else ')'}: {int(c)}"
        out.append(f'<rect class="sk-bin" data-count="{int(c)}" data-lo="{num_attr(edges[i])}" '
                   f'data-hi="{num_attr(edges[i + 1])}" x="{x0 + i * bw + 1:.2f}" y="{y1 - h:.2f}" '
                   f'width="{bw - 2:.2f}" height="{h:.2f}" fill="{color(0)}"><title>{esc(tip)}</title></rect>')
    out += _x_labels([(x0 + i * bw, f"{edges[i]:.3g}") for i in range(0, bins + 1, max(1, bins // 5))],
                     x0, x1, y1, xlabel)
    return "\n".join(out + ["</svg>"])


def _x_labels(ticks: Sequence[tuple[float, str]], x0: float, x1: float, y1: float,
              xlabel: str | None) -> list[str]:
    out = [f'<text class="sk-tick" x="{x:.2f}" y="{y1 + FONT + 2:.2f}" font-size="{FONT - 1}" '
           f'text-anchor="middle" fill="#555">{text}</text>' for x, text in ticks]
    if xlabel:
        out.append(f'<text class="sk-axis-label" x="{(x0 + x1) / 2:.2f}" y="{y1 + 2 * FONT + 8:.2f}" '
                   f'font-size="{FONT - 1}" text-anchor="middle">{esc(xlabel)}</text>')
    return out


def box_stats(values: Sequence[float]) -> dict[str, float]:
    """Tukey box: quartiles (linear interpolation, as numpy), whiskers at the furthest data within
    1.5 IQR of the box, and the mean."""
    x = np.sort(np.asarray([v for v in values if v is not None and math.isfinite(v)], dtype=float))
    if x.size == 0:
        return {"n": 0}
    q1, med, q3 = (float(v) for v in np.percentile(x, [25, 50, 75]))
    iqr = q3 - q1
    # as matplotlib.cbook.boxplot_stats: a whisker never reaches inside the box
    lo_w = min(float(x[x >= q1 - 1.5 * iqr].min()), q1)
    hi_w = max(float(x[x <= q3 + 1.5 * iqr].max()), q3)
    return {"n": int(x.size), "min": float(x[0]), "q1": q1, "median": med, "q3": q3, "max": float(x[-1]),
            "mean": float(x.mean()), "whisker_low": lo_w, "whisker_high": hi_w,
            "outliers": int(((x < lo_w) | (x > hi_w)).sum())}


def box_plot(series: Mapping[str, Sequence[float]], *, title: str | None = None,
             xlabel: str | None = None, width: float = 420) -> str:
    """Horizontal box plots, one per series; the diamond is the mean."""
    stats = {name: box_stats(vals) for name, vals in series.items()}
    all_vals = [s[k] for s in stats.values() if s["n"] for k in ("min", "max")]
    lo, hi = _domain(all_vals or [0.0, 1.0], include_zero=False)
    label_w = min(150.0, max([text_width(n) for n in series] + [40.0]) + 12)
    x0, x1, top = label_w, width - 14, _heading_h(title, width, 14, 6.0)
    sx = lambda v: x0 + (v - lo) / (hi - lo) * (x1 - x0)  # noqa: E731
    body, y = [], top
    for i, (name, s) in enumerate(stats.items()):
        lines = wrap_label(name, label_w - 10)
        row_h = max(26.0, (FONT + 1) * len(lines) + 6)
        body.append(_label_lines(lines, label_w - 6, y + row_h / 2, full=name))
        if s["n"]:
            attrs = " ".join(f'data-{k.replace("_", "-")}="{v if k in ("n", "outliers") else num_attr(v)}"'
                             for k, v in s.items())
            tip = (f"{name}: n={s['n']} median={s['median']:.4f} mean={s['mean']:.4f} "
                   f"IQR=[{s['q1']:.4f}, {s['q3']:.4f}] range=[{s['min']:.4f}, {s['max']:.4f}]"
                   + (f" outliers={s['outliers']}" if s["outliers"] else ""))
            c, cy = color(i), y + row_h / 2
            body.append(
                f'<g class="sk-box" data-series="{esc(name)}" {attrs}><title>{esc(tip)}</title>'
                f'<line x1="{sx(s["whisker_low"]):.2f}" y1="{cy:.2f}" x2="{sx(s["whisker_high"]):.2f}" '
                f'y2="{cy:.2f}" stroke="{c}" stroke-width="1.5"/>'
                f'<rect x="{sx(s["q1"]):.2f}" y="{y + 5:.2f}" width="{max(sx(s["q3"]) - sx(s["q1"]), 1):.2f}" '
                f'height="{row_h - 10:g}" fill="{c}" fill-opacity="0.25" stroke="{c}" stroke-width="1.5"/>'
                f'<line x1="{sx(s["median"]):.2f}" y1="{y + 5:.2f}" x2="{sx(s["median"]):.2f}" '
                f'y2="{y + row_h - 5:.2f}" stroke="{c}" stroke-width="2.5"/>'
                f'<path d="M{sx(s["mean"]):.2f},{cy - 5:.2f} l5,5 l-5,5 l-5,-5 z" fill="#fff" stroke="{c}"/>'
                "</g>")
            # outliers: every value beyond a whisker is a dot (a failed query at 0 stays visible)
            for v in sorted(float(v) for v in series[name] if v is not None and math.isfinite(v)
                            and (v < s["whisker_low"] or v > s["whisker_high"])):
                body.append(f'<circle class="sk-outlier" data-series="{esc(name)}" data-value="{num_attr(v)}" '
                            f'cx="{sx(v):.2f}" cy="{cy:.2f}" r="3.5" fill="none" stroke="{c}" stroke-width="1.5">'
                            f'<title>{esc(name)}: {fmt(v)} (outlier)</title></circle>')
        y += row_h
    out = _open("box", width, y + FONT + 10 + (FONT + 8 if xlabel else 0), title)
    return "\n".join(out + _axis(x0, x1, top, y, lo, hi, xlabel) + body + ["</svg>"])


def _point(i: int, cx: float, cy: float, c: str, attrs: str, tip: str) -> str:
    """A data point shaped by its series (circle, square, triangle, diamond): equal lines differ."""
    shape = i % 4
    if shape == 0:
        return f'<circle {attrs} cx="{cx:.2f}" cy="{cy:.2f}" r="3.5" fill="{c}"><title>{tip}</title></circle>'
    d = {1: f"M{cx - 3.5:.2f},{cy - 3.5:.2f}h7v7h-7z",
         2: f"M{cx:.2f},{cy - 4.5:.2f}l4.5,8h-9z",
         3: f"M{cx:.2f},{cy - 4.5:.2f}l4.5,4.5l-4.5,4.5l-4.5,-4.5z"}[shape]
    return (f'<path {attrs} data-cx="{cx:.2f}" data-cy="{cy:.2f}" d="{d}" fill="#fff" stroke="{c}" '
            f'stroke-width="1.6"><title>{tip}</title></path>')


def line_chart(x: Sequence[float], series: Mapping[str, Mapping[str, Sequence[float | None]]], *,
               title: str | None = None, xlabel: str | None = None, ylabel: str | None = None,
               width: float = 420, height: float = 220, digits: int = 4,
               marks: Sequence[float] = (), mark_label: str = "recommended",
               bounds: tuple[float, float] | None = None) -> str:
    """Lines over ``x`` of series ``{"mean", "low", "high"}`` (low-high: a shaded band); ``marks``:
    x values as dashed lines labelled ``mark_label``; ``bounds``: the value axis stays inside."""
    names = list(series)
    ys = [v for s in series.values() for key in ("mean", "low", "high") for v in (s.get(key) or [])
          if v is not None and math.isfinite(v)]
    lo, hi = _domain(ys or [0.0, 1.0], include_zero=False)
    if bounds is not None:   # e.g. a rate: the axis never leaves [0, 1]; a flat line gets all of it
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
        if hi - lo <= 1e-12:
            lo, hi = bounds
    xs = [float(v) for v in x]
    xlo, xhi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if xhi == xlo:
        xlo, xhi = xlo - 1, xhi + 1
    top, x0, x1 = _heading_h(title, width, 14, 6.0), 44.0, width - 12
    legend, legend_h = _legend(names, top, width)
    y0, y1 = top + legend_h + FONT + 8, top + legend_h + FONT + 8 + height
    sx = lambda v: x0 + (v - xlo) / (xhi - xlo) * (x1 - x0)  # noqa: E731
    sy = lambda v: y1 - (v - lo) / (hi - lo) * (y1 - y0)  # noqa: E731
    out = _open("line", width, y1 + 2 * FONT + 12 + (FONT if xlabel else 0), title)
    out += legend + _axis(x0, x1, y0, y1, lo, hi, ylabel, vertical=True)
    out += _x_labels([(sx(xv), f"{xv:g}") for xv in xs], x0, x1, y1, xlabel)
    shown = [float(m) for m in marks if m is not None and math.isfinite(float(m)) and xlo <= float(m) <= xhi]
    out += [f'<g class="sk-mark" data-x="{num_attr(m)}"><title>{esc(mark_label)} n = {m:g}</title>'
            f'<line x1="{sx(m):.2f}" y1="{y0 - 4:.2f}" x2="{sx(m):.2f}" y2="{y1:.2f}" '
            f'stroke="#b00" stroke-width="1.5" stroke-dasharray="5,3"/></g>' for m in shown]
    if shown:   # one label per chart, however many n are recommended
        span = f"{shown[0]:g}" if len(shown) == 1 else f"{shown[0]:g}–{shown[-1]:g}"
        mx = sx(shown[0])
        left = mx < (x0 + x1) / 2
        out.append(f'<text class="sk-mark-label" x="{mx + (4 if left else -4):.2f}" y="{y0 + 8:.2f}" '
                   f'font-size="{FONT - 1}" fill="#b00" font-weight="600" text-anchor="{"start" if left else "end"}">'
                   f'{esc(mark_label)} = {span}</text>')
    for i, name in enumerate(names):
        s, c = series[name], color(i)
        mean = list(s.get("mean") or [])
        pts = [(xs[j], mean[j], nth(s.get("low") or [], j), nth(s.get("high") or [], j))
               for j in range(min(len(xs), len(mean)))]
        band = [(px, pl, ph) for px, _, pl, ph in pts if pl is not None and ph is not None
                and math.isfinite(pl) and math.isfinite(ph)]
        g = [f'<g class="sk-series" data-series="{esc(name)}">']
        if len(band) >= 2:
            poly = [f"{sx(px):.2f},{sy(ph):.2f}" for px, _, ph in band]
            poly += [f"{sx(px):.2f},{sy(pl):.2f}" for px, pl, _ in reversed(band)]
            g.append(f'<polygon class="sk-band" points="{" ".join(poly)}" fill="{c}" fill-opacity="0.15" '
                     f'stroke="none"/>')
        drawn = [p for p in pts if p[1] is not None and math.isfinite(p[1])]
        line = [f"{sx(px):.2f},{sy(pm):.2f}" for px, pm, _, _ in drawn]
        dash = DASHES[i % len(DASHES)]
        if line:
            g.append(f'<polyline class="sk-line" points="{" ".join(line)}" fill="none" stroke="{c}" '
                     f'stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        for px, pm, pl, ph in drawn:
            ci = f" [{fmt(pl, digits)}, {fmt(ph, digits)}]" if pl is not None and ph is not None else ""
            tip = f"{name} @ {px:g}: {fmt(pm, digits)}{ci}"
            g.append(_point(i, sx(px), sy(pm), c,
                            f'class="sk-point" data-series="{esc(name)}" data-x="{num_attr(px)}" '
                            f'data-y="{num_attr(pm)}" data-low="{num_attr(pl)}" data-high="{num_attr(ph)}"', esc(tip)))
        out += g + ["</g>"]
    return "\n".join(out + ["</svg>"])
