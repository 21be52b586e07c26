"""``metric_report.html``: one self-contained file (inline CSS, inline SVG; no script, no CDN,
no network) from a run's metrics and scorecards (spec §1 step 5). Korean-first labels, readable
at phone width (fluid SVG via viewBox, tables scroll horizontally).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scorekit.absa import sources
from scorekit.absa.stats import INDEX

DESCRIPTIONS: dict[str, str] = {
    "tuple_f1_s1": "S1(리뷰 전) 튜플 F1 — 샘플 평균",
    "tuple_f1_s2": "S2(리뷰 후) 튜플 F1 — 샘플 평균",
    "delta_f1": "S2 − S1 개선량",
    "triplet_f1_s1": "tuple_f1_s1 별칭", "triplet_f1_s2": "tuple_f1_s2 별칭",
    "tuple_f1_s2_explicit_only": "명시적 gold만 사용한 F1 (주 품질 지표)",
    "tuple_f1_s2_implicit_only": "암시적 gold만 사용한 F1 (극성 기준)",
    "tuple_f1_s2_overall": "전체 gold 기준 F1", "tuple_f1_s2_raw": "대표 선택 전 F1",
    "tuple_f1_s2_after_rep": "대표 선택 후 F1",
    "fix_rate": "S1 불일치 → S2 일치 비율", "break_rate": "S1 일치 → S2 불일치 비율",
    "net_gain": "(n_fix − n_break) / N",
    "polarity_conflict_rate_raw": "동일 aspect_term에 ≥2 극성 (대표 선택 없음)",
    "polarity_conflict_rate": "대표 선택 후에도 상충 극성", "polarity_conflict_rate_after_rep": "별칭",
    "implicit_gold_sample_n": "암시적 gold 샘플 수",
    "implicit_invalid_sample_n": "암시적 gold 중 유효 예측 없음/파싱 실패/중립 대체",
    "implicit_invalid_pred_rate": "implicit_invalid_sample_n / implicit_gold_sample_n",
    "pre_to_post_change_rate": "리뷰 전후 변경 비율", "changed_samples_rate": "동일",
    "changed_and_improved_rate": "변경 ∧ ΔF1>0", "changed_and_degraded_rate": "변경 ∧ ΔF1<0",
    "review_action_rate": "review_actions ≥ 1", "arb_intervention_rate": "arb_actions ≥ 1",
    "guided_by_review_rate": "리뷰 주도 변경 / 전체 변경",
    "validator_clear_rate": "S1 리스크 해소 (CR: validator 없음 → 0)", "risk_resolution_rate": "별칭",
    "validator_residual_risk_rate": "S2 리스크 잔존", "outcome_residual_risk_rate": "최종 출력 구조적 리스크",
    "negation_contrast_failure_rate": "부정/대조 리스크",
}

SECTIONS: list[tuple[str, list[str]]] = [
    ("결과 지표 (Outcome, §3)", ["tuple_f1_s1", "tuple_f1_s2", "delta_f1", "triplet_f1_s1", "triplet_f1_s2",
                              "tuple_f1_s2_explicit_only", "tuple_f1_s2_implicit_only", "tuple_f1_s2_overall",
                              "tuple_f1_s2_raw", "tuple_f1_s2_after_rep", "fix_rate", "break_rate", "net_gain",
                              "polarity_conflict_rate_raw", "polarity_conflict_rate",
                              "polarity_conflict_rate_after_rep", "implicit_gold_sample_n",
                              "implicit_invalid_sample_n", "implicit_invalid_pred_rate"]),
    ("과정 지표 (Process, §4)", ["pre_to_post_change_rate", "changed_samples_rate", "changed_and_improved_rate",
                              "changed_and_degraded_rate", "review_action_rate", "arb_intervention_rate",
                              "guided_by_review_rate", "validator_clear_rate", "risk_resolution_rate",
                              "validator_residual_risk_rate", "outcome_residual_risk_rate",
                              "negation_contrast_failure_rate"]),
]

CSS = """
:root{--fg:#1b1f24;--muted:#5b6470;--bg:#fff;--line:#d8dde3;--a:#3b6fd8;--b:#e07b39;--good:#2e9d5b;--bad:#d0463b}
*{box-sizing:border-box}body{margin:0;font:15px/1.55 -apple-system,"Apple SD Gothic Neo","Malgun Gothic","Noto Sans KR",
"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);word-break:keep-all;overflow-wrap:anywhere}
main{max-width:980px;margin:0 auto;padding:16px}h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.6em 0 .5em;
border-bottom:1px solid var(--line);padding-bottom:.2em}.muted{color:var(--muted);font-size:.88em}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:8px}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 10px}.card b{display:block;font-size:1.35em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}table{border-collapse:collapse;width:100%;font-size:.9em}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}code{font-size:.85em;word-break:break-all}
svg{width:100%;height:auto;display:block}.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}
figure{margin:0}figcaption{font-weight:600;margin-bottom:4px}
@media (max-width:480px){body{font-size:14px}main{padding:10px}}
"""


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "N/A"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def _e(s: Any) -> str:
    return html.escape(str(s), quote=True)


def hbar_chart(items: Sequence[tuple[str, float | None]], *, lo: float = 0.0, hi: float = 1.0,
               color: str = "var(--a)") -> str:
    """Horizontal bars, one per (label, value); N/A drawn as an empty row labelled N/A."""
    row_h, label_w, width = 26, 190, 560
    plot_w = width - label_w - 60
    height = row_h * len(items) + 10
    zero = label_w + (0 - lo) / (hi - lo) * plot_w
    out = [f'<svg viewBox="0 0 {width} {height}" role="img" '
           f'font-size="12" font-family="inherit">']
    out.append(f'<line x1="{zero:.1f}" y1="0" x2="{zero:.1f}" y2="{height}" stroke="#999" stroke-width="1"/>')
    for i, (label, value) in enumerate(items):
        y = 5 + i * row_h
        out.append(f'<text x="{label_w - 6}" y="{y + 16}" text-anchor="end">{_e(label)}</text>')
        if value is None or not math.isfinite(value):
            out.append(f'<text x="{zero + 4:.1f}" y="{y + 16}" fill="#888">N/A</text>')
            continue
        v = min(max(value, lo), hi)
        x = label_w + (v - lo) / (hi - lo) * plot_w
        x0, x1 = sorted((zero, x))
        fill = color if value >= 0 else "var(--bad)"
        out.append(f'<rect x="{x0:.1f}" y="{y + 3}" width="{max(x1 - x0, 0.5):.1f}" height="{row_h - 8}" '
                   f'fill="{fill}" rx="2"><title>{_e(label)}: {_fmt(value)}</title></rect>')
        out.append(f'<text x="{max(x1, zero) + 4:.1f}" y="{y + 16}">{_fmt(value)}</text>')
    out.append("</svg>")
    return "".join(out)


def histogram_chart(values: np.ndarray, *, lo: float = -1.1, hi: float = 1.1, bins: int = 11) -> str:
    """Vertical histogram of per-sample ΔF1 (S2 − S1); the middle bin is centred on 0 (unchanged F1)."""
    counts, edges = np.histogram(values, bins=bins, range=(lo, hi)) if len(values) else (np.zeros(bins, int),
                                                                                        np.linspace(lo, hi, bins + 1))
    width, height, pad = 560, 220, 30
    top = max(int(counts.max()) if len(counts) else 0, 1)
    bw = (width - 2 * pad) / bins
    out = [f'<svg viewBox="0 0 {width} {height}" role="img" font-size="11">']
    for i, c in enumerate(counts):
        h = (height - 2 * pad) * c / top
        x = pad + i * bw
        mid = (edges[i] + edges[i + 1]) / 2
        fill = "var(--good)" if mid > 1e-9 else ("var(--bad)" if mid < -1e-9 else "#888")
        out.append(f'<rect x="{x + 1:.1f}" y="{height - pad - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" '
                   f'fill="{fill}"><title>[{edges[i]:.1f}, {edges[i + 1]:.1f}): {int(c)}</title></rect>')
        if c:
            out.append(f'<text x="{x + bw / 2:.1f}" y="{height - pad - h - 3:.1f}" text-anchor="middle">{int(c)}</text>')
    for i in range(0, bins, 2):
        mid = (edges[i] + edges[i + 1]) / 2
        out.append(f'<text x="{pad + (i + 0.5) * bw:.1f}" y="{height - 10}" text-anchor="middle">{mid:+.1f}</text>')
    out.append(f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#999"/></svg>')
    return "".join(out)


def _pairs_text(pairs: frozenset) -> str:
    return ", ".join(f"{t or '∅(암시)'}:{p}" for t, p in sorted(pairs)) or "—"


def _sample_rows(scorecards: Sequence[dict], matrix: np.ndarray, limit: int) -> list[str]:
    rows = []
    changed = np.flatnonzero(matrix[:, INDEX["changed"]] > 0) if len(matrix) else []
    for i in changed[:limit]:
        sc = scorecards[i]
        final = sources.extract_final(sc)
        s1 = sources.extract_stage1(sc, final)
        gold = sources.gold_items(sc)
        gold_txt = "—" if gold is None else _pairs_text(frozenset((g.term, g.polarity) for g in gold))
        po = sources.parsed_output(sc)
        meta = po.get("meta") if isinstance(po.get("meta"), dict) else {}
        text = meta.get("input_text") or ""
        delta = sc.get("stage_delta") or sources.stage_delta(sc)
        df1 = (matrix[i, INDEX["f1_s2"]] - matrix[i, INDEX["f1_s1"]]) if matrix[i, INDEX["gold_f1"]] else None
        rows.append(f"<tr><td>{_e(sc.get('text_id') or meta.get('text_id') or i)}</td><td>{_e(text)}</td>"
                    f"<td>{_e(_pairs_text(s1.pairs))}</td><td>{_e(_pairs_text(final.pairs))}</td>"
                    f"<td>{_e(gold_txt)}</td><td>{_e(delta.get('change_type'))}</td>"
                    f"<td class=num>{_fmt(None if df1 is None else float(df1))}</td></tr>")
    return rows


def render_report(run_name: str, metrics: Mapping[str, Any], scorecards: Sequence[dict], matrix: np.ndarray,
                  signature: str, *, n_skipped: int = 0, sample_limit: int = 30) -> str:
    m = metrics
    cards = [("N", m.get("N")), ("N_gold", m.get("N_gold")), ("tuple_f1_s1", m.get("tuple_f1_s1")),
             ("tuple_f1_s2", m.get("tuple_f1_s2")), ("delta_f1", m.get("delta_f1")), ("net_gain", m.get("net_gain"))]
    parts = [
        "<!DOCTYPE html><html lang=\"ko\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>metric_report — {_e(run_name)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>CR 메트릭 리포트 — {_e(run_name)}</h1>",
        f"<p class=muted>signature: <code>{_e(signature)}</code>"
        + (f" · 건너뛴 행(malformed): {n_skipped}" if n_skipped else "") + "</p>",
        "<div class=cards>" + "".join(f"<div class=card><span class=muted>{_e(k)}</span><b>{_fmt(v)}</b></div>"
                                      for k, v in cards) + "</div>",
        "<h2>차트</h2><div class=charts>",
        "<figure><figcaption>튜플 F1 (S1 → S2)</figcaption>" + hbar_chart([
            ("tuple_f1_s1", m.get("tuple_f1_s1")), ("tuple_f1_s2", m.get("tuple_f1_s2")),
            ("explicit_only", m.get("tuple_f1_s2_explicit_only")), ("implicit_only", m.get("tuple_f1_s2_implicit_only")),
            ("after_rep", m.get("tuple_f1_s2_after_rep"))]) + "</figure>",
        "<figure><figcaption>교정 (fix / break / net_gain)</figcaption>" + hbar_chart([
            ("fix_rate", m.get("fix_rate")), ("break_rate", m.get("break_rate")), ("net_gain", m.get("net_gain")),
            ("delta_f1", m.get("delta_f1"))], lo=-1.0, hi=1.0, color="var(--good)") + "</figure>",
        "<figure><figcaption>과정 (변경 · 리뷰 · 중재 · 충돌)</figcaption>" + hbar_chart([
            (k, m.get(k)) for k in ("pre_to_post_change_rate", "changed_and_improved_rate", "changed_and_degraded_rate",
                                    "review_action_rate", "arb_intervention_rate", "guided_by_review_rate",
                                    "polarity_conflict_rate_raw", "polarity_conflict_rate",
                                    "implicit_invalid_pred_rate")], color="var(--b)") + "</figure>",
    ]
    gold_rows = matrix[:, INDEX["gold_f1"]] > 0 if len(matrix) else np.zeros(0, bool)
    deltas = (matrix[gold_rows, INDEX["f1_s2"]] - matrix[gold_rows, INDEX["f1_s1"]]) if len(matrix) else np.zeros(0)
    parts.append(f"<figure><figcaption>샘플별 ΔF1 분포 (gold 있는 {int(gold_rows.sum())}건)</figcaption>"
                 + histogram_chart(deltas) + "</figure></div>")
    for title, names in SECTIONS:
        parts.append(f"<h2>{_e(title)}</h2><div class=scroll><table><tr><th>metric</th><th>값</th><th>정의</th></tr>")
        parts += [f"<tr><td><code>{_e(n)}</code></td><td class=num>{_fmt(m.get(n))}</td>"
                  f"<td>{_e(DESCRIPTIONS.get(n, ''))}</td></tr>" for n in names]
        parts.append("</table></div>")
    counts = [k for k in m if k.startswith(("N_", "n_")) or k == "N"]
    parts.append("<h2>소스 카운트 (§5) · Override (§6)</h2><div class=scroll><table><tr><th>metric</th><th>값</th></tr>")
    parts += [f"<tr><td><code>{_e(k)}</code></td><td class=num>{_fmt(m.get(k))}</td></tr>" for k in counts]
    parts += [f"<tr><td><code>{_e(k)}</code></td><td class=num>{_fmt(v)}</td></tr>"
              for k, v in m.items() if k.startswith("override_")]
    parts.append("</table></div>")
    rows = _sample_rows(scorecards, matrix, sample_limit)
    n_changed = int(m.get("n_changed") or 0)
    parts.append(f"<h2>변경된 샘플 ({min(n_changed, sample_limit)}/{n_changed})</h2>")
    if rows:
        parts.append("<div class=scroll><table><tr><th>text_id</th><th>입력 텍스트</th><th>S1 pairs</th>"
                     "<th>final pairs</th><th>gold</th><th>change_type</th><th>ΔF1</th></tr>"
                     + "".join(rows) + "</table></div>")
    else:
        parts.append("<p class=muted>변경된 샘플 없음.</p>")
    parts.append("<p class=muted>scorekit absa · 지표 정의: docs/absa.md</p></main></body></html>")
    return "\n".join(parts)
