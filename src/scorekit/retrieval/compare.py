"""Compare several runs on the same qrels (spec: retrieval-metrics.md §7 문제 2, v1 vs v2).

Each later run is compared with the first (the baseline) on every measure: improvement % =
(system - baseline) / baseline * 100 (the spec's formula; infinite when the baseline is 0 and the
system is not), a two-sided paired test on the per-query scores (every qrels query, missing ones
0), and Holm–Bonferroni adjusted p-values within each measure; *significant*: adjusted p below
``alpha``. Rows, Holm family and JSON are those of :mod:`scorekit.stats.compare`.
"""

from __future__ import annotations

import csv
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.result import Result
from scorekit.retrieval.evaluate import (DEFAULT_MEASURES, _check_threshold, _index, evaluate_batch, relstrings,
                                         run_batch, signature)
from scorekit.retrieval.inputs import as_qrels
from scorekit.retrieval.measures import FAMILIES
from scorekit.retrieval.names import RUNID, Relstring, asks_runid, parse_measures, trec_items
from scorekit.stats import compare as engine
from scorekit.stats.significance import normalise_method, paired_test


@dataclass
class Comparison:
    results: list[Result]
    baseline: str
    rows: list[dict[str, Any]]
    per_query: dict[str, dict[str, np.ndarray]]
    query_ids: list[str]
    method: str
    alpha: float
    signature: str
    warnings: list[str] = field(default_factory=list)
    texts: dict[str, list[str]] = field(default_factory=dict)   # the first run's relstring per query

    def to_dict(self) -> dict[str, Any]:
        """The multi-system JSON shape (interfaces.md): baseline metrics on top, every run,
        and the comparison rows."""
        return engine.document("retrieval", [r.to_dict() for r in self.results], signature=self.signature,
                               comparison=engine.block(self.results[0].name, test=self.method, alpha=self.alpha,
                                                       rows=self.rows, n_shared=len(self.query_ids)))

    def trec_eval_lines(self, metrics: str | None = None) -> str:
        """The first run's per-query values and its ``all`` lines in ``trec_eval -q``'s layout:
        measure (left-aligned in 22 columns), query id, value (counts as integers, the rest with
        4 decimals); queries in trec_eval's order (byte order of the ids); ``runid`` (the run's
        name) first when ``metrics`` (the ``-m`` text as written) asks for it. A measure trec_eval
        prints as a summary only (gm_map, gm_bpref, num_q) has an ``all`` line only, as in
        trec_eval; ``relstring`` (when computed: :attr:`texts`) per-query lines only, quoted."""
        res = self.results[0]
        items = trec_items(metrics if metrics is not None else list(res.metrics))
        kinds = {key: FAMILIES[m.family].kind for key, m in items if not isinstance(m, (Relstring, type(None)))}
        per_query = [key for key, m in items
                     if key in self.texts or (key in kinds and not FAMILIES[m.family].summary_only)]

        def line(name: str, qid: str, value: float | str) -> str:
            shown = (f"'{value}'" if isinstance(value, str) else str(int(round(value)))
                     if kinds.get(name) == "count" else f"{value:6.4f}")
            return f"{name:<22}\t{qid}\t{shown}\n"

        qids, values = self.query_ids, {**self.per_query[res.name], **self.texts}
        out = []
        for i in sorted(range(len(qids)), key=lambda i: str(qids[i]).encode("utf-8")):
            out += [line(m, qids[i], values[m][i] if m in self.texts else float(values[m][i])) for m in per_query]
        if metrics is not None and asks_runid(metrics):
            out.append(f"{RUNID:<22}\tall\t{res.name}\n")
        out += [line(m, "all", float(v)) for m, v in res.metrics.items()]
        return "".join(out)

    def write_per_query(self, fh) -> None:
        """Every run's per-query values as CSV: ``system, query, <measure>...`` (exact reprs)."""
        measures = list(self.results[0].metrics)
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["system", "query"] + measures)
        for r in self.results:
            cols = [self.per_query[r.name][m].tolist() for m in measures]
            for i, qid in enumerate(self.query_ids):
                w.writerow([r.name, qid] + [repr(c[i]) for c in cols])


def _unique_names(given: Sequence[str | None]) -> list[str]:
    names, seen = [], {}
    for i, name in enumerate(given):
        base = name or f"run{i + 1}"
        n = seen.get(base, 0)
        seen[base] = n + 1
        names.append(base if n == 0 else f"{base}#{n + 1}")
    return names


def compare(qrels: Any, runs: Sequence[Any], metrics: str | Sequence[str] | None = None,
            rel_threshold: int = 1, *, test: str = "t", alpha: float = 0.05,
            n_resamples: int = 10000, seed: int = 42, names: Sequence[str] | None = None,
            engine: Any = None, texts: bool = False) -> Comparison:
    """Score every run, compare each with the first. ``test``: ``t`` | ``randomization`` |
    ``wilcoxon`` | ``bootstrap``. ``engine``: as :func:`~scorekit.retrieval.evaluate.evaluate`'s
    (on Ray each run may be a file, a folder of shards or a glob, read on the workers); the
    numbers are the same. ``texts``: also take trec_eval's ``relstring`` for the first run
    (:attr:`Comparison.texts`, for :meth:`Comparison.trec_eval_lines`; not on Ray, where
    all_trec's is left out)."""
    threshold = _check_threshold(rel_threshold)
    method = normalise_method(test)
    if not 0 < alpha < 1:
        raise ScorekitError(f"alpha must be between 0 and 1, got {alpha}")
    if not runs:
        raise ScorekitError("no runs to evaluate")
    wanted = DEFAULT_MEASURES if metrics is None else metrics
    texts = texts and (engine is None or isinstance(engine, str))     # not on Ray
    measures = parse_measures(wanted, texts=texts)
    text = next(((k, m) for k, m in trec_items(wanted) if isinstance(m, Relstring)), None) if texts else None
    q = as_qrels(qrels)
    index = _index(q)
    results, scores, warns, strings = [], [], [], {}
    for i, spec in enumerate(runs):
        batch = run_batch(q, spec, threshold, engine, None if names is None else names[i], index)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res, values = evaluate_batch(batch, measures, threshold, engine)
        warns += [str(w.message) for w in caught]
        if text is not None and not strings:
            strings = {text[0]: relstrings(batch.judged(), text[1].n)}
        results.append(res)
        scores.append(values)
    for res, name in zip(results, _unique_names([r.name for r in results])):
        res.name = name
    for w in warns:
        warnings.warn(w, stacklevel=2)
    comp = compare_scored(results, {r.name: v for r, v in zip(results, scores)}, q.qids.to_pylist(), measures,
                          threshold, method=method, alpha=alpha, n_resamples=n_resamples, seed=seed, warns=warns)
    comp.texts = strings
    return comp


def compare_scored(results, per_query: dict[str, dict[str, np.ndarray]], query_ids: list[str], measures,
                   threshold: int, *, method: str, alpha: float, n_resamples: int, seed: int,
                   warns: list[str] | None = None) -> Comparison:
    """Paired tests of every run against the first, from per-query values already computed (in
    the one driver, or by RAG's matching)."""
    base = results[0].name
    rows: list[dict[str, Any]] = []
    for key, _ in measures:
        for r in results[1:]:
            a, b = per_query[r.name][key], per_query[base][key]
            t = paired_test(a, b, method, n_resamples=n_resamples, seed=seed) if len(a) >= 2 else None
            rows.append(engine.row(r.name, key, r.metrics[key], results[0].metrics[key], t,
                                   f"{method} on per-query values", len(a)))
    engine.correct(rows, alpha)
    sig = signature(measures, threshold, test=method, correction="holm", alpha=alpha,
                    **({"resamples": n_resamples, "seed": seed} if method in ("randomization", "bootstrap") else {}))
    for r in results[1:]:
        r.extra["comparison"] = [row for row in rows if row["system"] == r.name]
    return Comparison(results, base, rows, per_query, query_ids, method, alpha, sig, list(warns or []))
