"""The one comparison engine: systems against a baseline, a paired test per measure, one Holm
family, one multi-run JSON shape — used by ``scorekit retrieval`` (several runs on one qrels,
:mod:`scorekit.retrieval.compare`), ``scorekit runs compare`` (two stored runs), ``scorekit
absa aggregate`` (seeds or systems over one set of scorecards) and ``scorekit topics`` (models).

**The Holm family** (documented once, used everywhere): per measure, over the systems compared
with the baseline. With one system against the baseline the family has one member, so the
adjusted p equals the raw p; the same pair gets the same corrected p from every command that
shows it.

**The multi-run JSON** (:func:`document`) is docs/report.md's "Several systems in one file"; its
``comparison`` block (:func:`block`) also names the ``correction`` ("holm"), the ``family`` and
``n_shared``, and each row its ``statistic`` and ``n``.

A corpus metric (BLEU, CIDEr, chrF) of a caption or summary run is tested on its own corpus
score: per-item statistics re-derived from the stored text, resampled, merged and re-scored
(:mod:`scorekit.stats.corpus_tests`) with the metric rebuilt from the run's signature, with the
parameters it ran with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics import describe
from scorekit.metrics.registry import MetricSpec
from scorekit.result import is_finite_number, runs_document
from scorekit.stats.corpus_tests import approximate_randomization, paired_bootstrap
from scorekit.stats.significance import holm_bonferroni, paired_test

HOLM_FAMILY = "per measure, over the systems compared with the baseline"


def improvement_pct(value: float, baseline: float) -> float:
    """(value - baseline) / |baseline| * 100 (so a rise is positive for a negative baseline too,
    as UMass's); +inf/-inf when the baseline is 0, 0 when both are."""
    if baseline == 0:
        return 0.0 if value == 0 else math.copysign(math.inf, value)
    return (value - baseline) / abs(baseline) * 100.0


def _finite(x: Any) -> float | None:
    return float(x) if x is not None and math.isfinite(float(x)) else None


def row(system: str, measure: str, value: float, baseline_value: float, test, label: str, n: int) -> dict[str, Any]:
    """One comparison row (before correction); ``test`` a :class:`TestResult` or None (too few
    items to test)."""
    return {"system": system, "measure": measure, "test": label, "value": value, "baseline_value": baseline_value,
            "improvement_pct": improvement_pct(value, baseline_value),
            "p_value": float(test.p_value) if test is not None else float("nan"),
            "statistic": _finite(getattr(test, "statistic", None)), "n": n}


def correct(rows: list[dict[str, Any]], alpha: float) -> list[dict[str, Any]]:
    """Holm–Bonferroni within each measure over the systems compared with the baseline
    (:data:`HOLM_FAMILY`); adds ``p_adjusted`` and ``significant`` (adjusted p below alpha)."""
    by_measure: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_measure.setdefault(r["measure"], []).append(r)
    for family in by_measure.values():
        for r, pa in zip(family, holm_bonferroni([r["p_value"] for r in family]).tolist()):
            r.update(p_adjusted=pa, significant=bool(math.isfinite(pa) and pa < alpha))
    return rows


def block(baseline: str | None, *, test: str, alpha: float, rows: list[dict[str, Any]],
          n_shared: int) -> dict[str, Any]:
    """The ``comparison`` block of the multi-run JSON (module docstring)."""
    return {"baseline": baseline, "test": test, "alpha": alpha, "correction": "holm", "family": HOLM_FAMILY,
            "n_shared": n_shared, "rows": rows}


def document(task: str, runs: Sequence[dict[str, Any]], *, signature: str,
             comparison: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one multi-run JSON shape (:func:`scorekit.result.runs_document`: the baseline,
    ``runs[0]``, on top), with the ``comparison`` block (:func:`block`) when they were compared."""
    extra = {} if comparison is None else {"comparison": comparison}
    return runs_document(task, runs, signature) | extra


def compare_runs(a: dict[str, Any], b: dict[str, Any], *, method: str = "t", metrics: list[str] | None = None,
                 alpha: float = 0.05, n_resamples: int = 10000, seed: int = 42) -> dict[str, Any]:
    """The multi-run JSON document of run ``b`` paired against the baseline ``a`` (result dicts)
    over their shared per-item ids: one paired test per metric, Holm per measure."""
    if a.get("task") != b.get("task"):
        raise ScorekitError(f"cannot compare a {a.get('task')} run with a {b.get('task')} run")
    ia, ib = ({str(r.get("id")): r for r in run.get("per_item") or []} for run in (a, b))
    shared = [i for i in ia if i in ib]
    if not shared:
        raise ScorekitError(f"runs {a.get('name')!r} and {b.get('name')!r} share no per-item ids; nothing to "
                            "pair (were they evaluated on the same queries/items?)")
    candidates = [k for k in dict.fromkeys(k for i in shared for k in ia[i]) if k != "id"
                  and any(is_finite_number(ia[i].get(k)) and is_finite_number(ib[i].get(k)) for i in shared)]
    if metrics:
        for m in metrics:
            if m not in candidates:
                raise UnknownNameError("per-item metric", m, candidates)
        candidates = list(metrics)
    if not candidates:
        raise ScorekitError("the two runs share no numeric per-item metric to test")
    name_a, name_b = str(a.get("name") or "A"), str(b.get("name") or "B")
    if name_a == name_b:
        name_a, name_b = f"{name_a}#{a.get('_run_id', 'A')}", f"{name_b}#{b.get('_run_id', 'B')}"
    rows = []
    for m in candidates:
        corpus = _corpus_test(m, a, b, ia, ib, shared, method, n_resamples, seed)
        if corpus is not None:
            t, (va, vb, n), label = corpus
        else:
            pairs = [(ia[i][m], ib[i][m]) for i in shared
                     if is_finite_number(ia[i].get(m)) and is_finite_number(ib[i].get(m))]
            xa, xb = np.array(pairs, dtype=float).reshape(-1, 2).T.copy()   # two contiguous rows
            t = paired_test(xb, xa, method, n_resamples=n_resamples, seed=seed)
            va, vb, n, label = float(xa.mean()), float(xb.mean()), len(pairs), f"{method} on per-item values"
            info = describe(m, a.get("task"))
            if info is not None and info.corpus and all(is_finite_number((r.get("metrics") or {}).get(m)) for r in (a, b)):
                va, vb = float(a["metrics"][m]), float(b["metrics"][m])   # a corpus score is no mean of items
        rows.append(row(name_b, m, vb, va, t, label, n))
    for r in correct(rows, alpha):   # JSON has no NaN: an untestable p is null
        r.update({k: _finite(r[k]) for k in ("p_value", "p_adjusted", "improvement_pct")})
    ra, rb = (dict({k: v for k, v in r.items() if k != "_run_id"}, name=n)
              for r, n in ((a, name_a), (b, name_b)))
    return document(a.get("task"), [ra, rb], signature=a.get("signature") or "",
                    comparison=block(name_a, test=method, alpha=alpha, rows=rows, n_shared=len(shared)))


def _corpus_test(key, a, b, ia, ib, shared, method, n_resamples, seed):
    """A corpus metric tested on its own score (module docstring); None when the key is per-item
    or the runs keep no text."""
    # the families with corpus metrics (the run's family's metrics, then the caption metrics)
    info = describe(key, a.get("task")) if a.get("task") in ("caption", "summary") else None
    if info is None or not info.corpus:
        return None
    from scorekit.generation.driver import metric_from_signature, stats_from_rows
    from scorekit.generation.scale import sacrebleu_keys
    from scorekit.signature import parse_signature
    ma, mb = metric_from_signature(key, a.get("signature")), metric_from_signature(key, b.get("signature"))
    if ma is None or mb is None:
        return None
    sa = stats_from_rows(ma, [ia[i] for i in shared])
    sb = stats_from_rows(mb, [ib[i] for i in shared])
    if sa is None or sb is None:
        return None
    declared = MetricSpec(key).name   # "chrf(beta=3)" is the key chrf of the metric built with beta 3
    if method == "randomization":
        res = approximate_randomization(ma, declared, sa, sb, n_resamples=n_resamples or 10000,
                                        seed=seed)
    else:
        res = paired_bootstrap(ma, declared, sa, sb, n_resamples=min(n_resamples, 1000) or 1000,
                               seed=seed)
    # the factor each run stored the key with: scale:100 for sacrebleu's keys (--scale 100), or 1
    scales = [parse_signature(run.get("signature") or "").get("scale") for run in (a, b)]
    fa, fb = (float(s) if s and sacrebleu_keys([key]) else 1.0 for s in scales)
    label = f"{res.method} on the corpus score"
    return res, (res.baseline * fa, res.system * fb, len(shared)), label


def compare(runs: Sequence[dict[str, Any]], *, method: str = "t", metrics: list[str] | None = None,
            alpha: float = 0.05, n_resamples: int = 10000, seed: int = 42) -> dict[str, Any]:
    """The ``comparison`` block of several runs (result dicts with per-item rows): every later run
    paired against the first (:func:`compare_runs`), then Holm per measure over all of them."""
    if len(runs) < 2:
        raise ScorekitError("a comparison needs at least two runs")
    pairs = [compare_runs(runs[0], other, method=method, metrics=metrics, alpha=alpha,
                          n_resamples=n_resamples, seed=seed)["comparison"] for other in runs[1:]]
    rows = [r for pair in pairs for r in pair["rows"]]
    for r in rows:   # one family per measure across every system (each pair alone had a family of one)
        r["p_value"] = float("nan") if r["p_value"] is None else r["p_value"]
    for r in correct(rows, alpha):
        r["p_value"], r["p_adjusted"] = _finite(r["p_value"]), _finite(r["p_adjusted"])
    return block(runs[0].get("name"), test=method, alpha=alpha, rows=rows,
                 n_shared=min(pair["n_shared"] for pair in pairs))
