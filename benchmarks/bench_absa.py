"""ABSA (Conflict-Review) aggregation speed: 100,000 scorecards -> every §3–§6 metric.

scorekit: per-scorecard sufficient statistics (one pass) -> one numpy column sum -> formulas.
naive:    the straightforward per-row Python aggregation, written the way the spec's
          structural_error_aggregator reads: separate passes per metric family, each re-extracting
          the tuples of a row, accumulating Python lists/counters, then means.
Both produce the same numbers (checked here). Goal: < 10 s for 100,000 scorecards.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

N_ROWS = 100_000
TERMS = ["배송", "포장", "가격", "맛", "화면", "배터리", "사이즈", "디자인", "직원", "소리", "battery", "screen"]
POLS = ["positive", "negative", "neutral", "pos", "neg"]


def synthetic_entries(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)

    def tuples(k):
        out = []
        for _ in range(k):
            if rng.random() < 0.1:
                out.append({"aspect_term": "", "is_implicit": True, "polarity": rng.choice(POLS)})
            else:
                out.append({"aspect_term": rng.choice(TERMS), "polarity": rng.choice(POLS),
                            "grounding": rng.choice(["explicit", "implicit"]),
                            "confidence": rng.choice([0.3, 0.6, 0.9])})
        return out

    rows = []
    for i in range(n):
        s1 = tuples(rng.randint(0, 3))
        final = [dict(x) for x in s1] if rng.random() < 0.5 else tuples(rng.randint(0, 3))
        fr = {"stage1_tuples": s1, "final_tuples": final if rng.random() > 0.05 else []}
        if not fr["final_tuples"]:
            fr["final_aspects"] = tuples(1)
        gold = None if rng.random() < 0.1 else tuples(rng.randint(0, 3))
        e = {"meta": {"text_id": f"t{i}", "input_text": "배송은 빠른데 포장이 별로예요"}, "final_result": fr,
             "analysis_flags": {"review_actions": [{"a": 1}] if rng.random() < 0.4 else [],
                                "arb_actions": [{"b": 1}] if rng.random() < 0.3 else []}}
        if gold is not None:
            e["inputs"] = {"gold_tuples": gold}
        rows.append(e)
    return rows


def naive_aggregate(cards: list[dict]) -> dict:
    """Per-row Python loops, one per metric family, re-extracting per family."""
    from scorekit.absa import sources
    from scorekit.absa.stats import conflicts, f1_pairs, sets_match_with_empty_rule

    f1_1, f1_2, f1_ex = [], [], []
    fix = brk = still = keep = ann = 0
    for r in cards:                                   # pass 1: outcome
        gold = sources.gold_items(r)
        if gold is None:
            continue
        g = frozenset((it.term, it.polarity) for it in gold)
        s1 = sources.extract_stage1(r).pairs
        s2 = sources.extract_final(r).pairs
        ann += 1
        m1, m2 = sets_match_with_empty_rule(g, s1), sets_match_with_empty_rule(g, s2)
        fix += (not m1) and m2
        brk += m1 and not m2
        still += not (m1 or m2)
        keep += m1 and m2
        if g:
            f1_1.append(f1_pairs(g, s1))
            f1_2.append(f1_pairs(g, s2))
            ex = frozenset(p for p in g if p[0])
            if ex:
                f1_ex.append(f1_pairs(ex, s2))
    raw = after = 0
    for r in cards:                                   # pass 2: conflicts
        a, b, _ = conflicts(sources.extract_final(r).items)
        raw += a
        after += b
    changed = guided = rev = arb = 0
    for r in cards:                                   # pass 3: process
        d = r.get("stage_delta") or sources.stage_delta(r)
        changed += bool(d["changed"])
        guided += d["change_type"] == "guided_by_review"
        rev += sources.has_actions(r, "review_actions")
        arb += sources.has_actions(r, "arb_actions")
    n = len(cards)
    return {"tuple_f1_s1": sum(f1_1) / len(f1_1), "tuple_f1_s2": sum(f1_2) / len(f1_2),
            "tuple_f1_s2_explicit_only": sum(f1_ex) / len(f1_ex),
            "fix_rate": fix / (fix + still), "break_rate": brk / (brk + keep), "net_gain": (fix - brk) / ann,
            "polarity_conflict_rate_raw": raw / n, "polarity_conflict_rate": after / n,
            "pre_to_post_change_rate": changed / n, "guided_by_review_rate": guided / changed,
            "review_action_rate": rev / n, "arb_intervention_rate": arb / n}


def naive_merge(matrix_rows: list[tuple]) -> list[float]:
    """The merge step alone, as a per-row Python loop (the numpy column sum's counterpart)."""
    totals = [0.0] * len(matrix_rows[0])
    for row in matrix_rows:
        for j, v in enumerate(row):
            totals[j] += v
    return totals


def stats_matrix_from_rows(rows):
    import numpy as np
    from itertools import chain

    return np.fromiter(chain.from_iterable(rows), dtype=np.float64, count=len(rows) * len(rows[0])).reshape(len(rows), -1)


def main() -> None:
    import numpy as np

    from scorekit.absa.aggregate import aggregate_run
    from scorekit.absa.scorecard import make_scorecard
    from scorekit.absa.stats import row_stats
    from scorekit.io.absa_jsonl import read_scorecards, write_jsonl

    entries = synthetic_entries(N_ROWS)
    t0 = time.perf_counter()
    cards = [make_scorecard(e) for e in entries]
    t_cards = time.perf_counter() - t0

    t0, c0 = time.perf_counter(), time.process_time()
    agg = aggregate_run(cards)
    t_fast, c_fast = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    naive = naive_aggregate(cards)
    t_naive, c_naive = time.perf_counter() - t0, time.process_time() - c0
    for k, v in naive.items():
        assert abs(agg.metrics[k] - v) < 1e-9, (k, agg.metrics[k], v)

    rows = [row_stats(c) for c in cards[:N_ROWS]]
    mat = stats_matrix_from_rows(rows)
    t0 = time.perf_counter()
    totals = mat.sum(axis=0)
    t_merge_np = time.perf_counter() - t0
    t0 = time.perf_counter()
    totals_py = naive_merge(rows)
    t_merge_py = time.perf_counter() - t0
    assert np.allclose(totals, totals_py)

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "scorecards.jsonl"
        write_jsonl(path, cards)
        size = path.stat().st_size / 1e6
        t0 = time.perf_counter()
        read = read_scorecards(path)
        t_read = time.perf_counter() - t0
        t0 = time.perf_counter()
        read_scorecards(path, validate=False)
        t_read_nv = time.perf_counter() - t0
    assert len(read.rows) == N_ROWS

    print(f"rows: {N_ROWS:,} scorecards (make_scorecard: {t_cards:.2f}s)")
    print(f"aggregate (all §3–§6 metrics)  scorekit {t_fast:.2f}s wall / {c_fast:.2f}s cpu | naive per-row loops "
          f"(12 of the metrics) {t_naive:.2f}s wall / {c_naive:.2f}s cpu | ratio {t_naive / t_fast:.1f}x wall, "
          f"{c_naive / c_fast:.1f}x cpu | goal < 10 s: {'OK' if t_fast < 10 else 'MISSED'}")
    print(f"merge step only ({len(rows):,} x {mat.shape[1]} stats)  numpy sum {t_merge_np * 1e3:.2f} ms | "
          f"python loop {t_merge_py * 1e3:.1f} ms | ratio {t_merge_py / t_merge_np:.0f}x")
    print(f"read {size:.0f} MB scorecards.jsonl: {t_read:.2f}s with pydantic validation, {t_read_nv:.2f}s without; "
          f"read+aggregate {t_read + t_fast:.2f}s")


if __name__ == "__main__":
    main()
