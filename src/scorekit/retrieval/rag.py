"""RAG retrieval evaluation without document ids (issue #30; what ranx-k 0.0.17 does, done right).

A retriever returns *passages*, not the ids of a judged collection. Each question comes with its
reference passages; a retrieved passage is relevant when it matches a reference
(:mod:`scorekit.retrieval.rag_match`) at or above a threshold. By default every reference is a
relevant document (grade 1), each retrieved passage is assigned one-to-one, down the ranking, to
the best-matching free reference, and an unmatched or repeated passage is a judged non-relevant
document: qrels and a run that the trec_eval-exact measures of
:mod:`scorekit.retrieval.evaluate` score (``graded``: a match's gain is its similarity).
``compat="ranx-k"`` reproduces ``ranx_k.evaluation.evaluate_with_ranx_similarity`` (0.0.17),
both its modes. The rules, and how ranx-k differs (:data:`COMPAT_NOTE`), are in docs/rag.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from scorekit.errors import InputError, ScorekitError, UnknownNameError
from scorekit.io.rag_jsonl import RagData, RagQuestion, check_unique, passage_text, question_from, read_rag_jsonl
from scorekit.result import Result
from scorekit.retrieval.data import Qrels, Run
from scorekit.retrieval.evaluate import RetrievalBatch, build_result, evaluate_batch, judge, signature
from scorekit.retrieval.names import parse_measures
from scorekit.retrieval.rag_match import Matching, normalize_text, similarity_matrices

DEFAULT_RAG_MEASURES = ("hit_rate@5", "ndcg@5", "map@5", "mrr", "recall@5")
COMPAT_MEASURES = ("hit_rate@5", "ndcg@5", "map@5", "mrr")     # ranx-k's, at its default k=5
COMPAT = ("ranx-k",)
COMPAT_MODES = ("reference_based", "retrieval_based")
COMPAT_FAMILIES = ("hit_rate", "ndcg", "map", "mrr")
RANXK_VERSION = "0.0.17"

COMPAT_NOTE = (
    "--compat ranx-k reproduces ranx-k 0.0.17: a reference passage that no retrieved passage "
    "matches is dropped from the relevant set (qrels grade 0), so nDCG and MAP ignore what was "
    "missed and recall cannot be computed; a retrieved passage matching an already matched "
    "reference vanishes from the ranking instead of counting as non-relevant; graded similarities "
    "are truncated to integer grades. The default (no --compat) keeps every reference relevant "
    "and counts duplicates as non-relevant (docs/rag.md).")


# ------------------------------------------------------------------------------ inputs

def as_rag_data(data: Any, *, name: str | None = None) -> RagData:
    """A :class:`RagData` from a JSONL path, a RagData, or an iterable of record dicts."""
    if isinstance(data, RagData):
        if name is not None:
            data.name = name
        return data
    if isinstance(data, (str, os.PathLike)):
        return read_rag_jsonl(data, name=name)
    if isinstance(data, Iterable) and not isinstance(data, (bytes, dict)):
        qs = [question_from(obj, None, None, i) for i, obj in enumerate(data)]
        if not qs:
            raise ScorekitError("no RAG records given")
        check_unique(qs, "<records>")
        return RagData(qs, "<records>", name)
    raise ScorekitError(f"RAG data must be a JSONL path, RagData or a list of records, not {type(data).__name__}")


def collect(retriever: Any, questions: Sequence[str], references: Sequence[Sequence[Any]], *,
            ids: Sequence[str] | None = None, name: str | None = None) -> RagData:
    """Ask a retriever (``invoke(question) -> list of Document``, LangChain's interface; its
    ``batch(questions)`` when it has one) and pair the answers with the reference passages
    (strings or Documents)."""
    if len(questions) != len(references):
        raise ScorekitError(f"{len(questions)} questions but {len(references)} reference lists")
    if ids is not None and len(ids) != len(questions):
        raise ScorekitError(f"{len(ids)} ids for {len(questions)} questions")
    if not hasattr(retriever, "invoke"):
        raise ScorekitError("the retriever needs an invoke(question) method returning documents")
    batch = getattr(retriever, "batch", None)
    answers = list(batch(list(questions))) if callable(batch) else [retriever.invoke(q) for q in questions]
    qs = []
    for i, (q, docs, refs) in enumerate(zip(questions, answers, references)):
        qid = str(ids[i]) if ids is not None else str(i + 1)
        ret = [passage_text(d, f"question {qid!r}: retrieved[{j}]") for j, d in enumerate(docs)]
        ref = [passage_text(d, f"question {qid!r}: references[{j}]") for j, d in enumerate(refs)]
        if not ref:
            raise ScorekitError(f"question {qid!r}: no reference passages")
        qs.append(RagQuestion(qid, str(q), ret, ref))
    check_unique(qs, "<retriever>")
    return RagData(qs, f"<retriever {type(retriever).__name__}>", name or type(retriever).__name__)


def _measures(metrics, compat: str | None):
    if metrics is None:
        metrics = COMPAT_MEASURES if compat else DEFAULT_RAG_MEASURES
    pairs = parse_measures(metrics)
    for key, m in pairs:
        if m.rel is not None:
            raise ScorekitError(f"measure {key!r} sets its own relevance level: RAG relevance comes from "
                                f"--match and --threshold")
        if compat and m.family not in COMPAT_FAMILIES:
            raise ScorekitError(f"--compat ranx-k computes only ranx-k's measures (hit_rate@k, ndcg@k, "
                                f"map@k, mrr), not {key!r}")
    return pairs


def _matching(match, threshold, graded, compat: str | None, options: dict) -> Matching:
    if isinstance(match, Matching):
        return match
    # ranx-k does not NFC-normalise before tokenising
    options = {"normalize": False, **options} if compat else options
    return Matching(method=match, threshold=threshold, graded=graded, **options)


# ------------------------------------------------------------------------------ default judging

def assign(sim: np.ndarray, duplicate: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """One question: for each retrieved passage (columns, rank order) the reference (row) it is
    assigned to, -1 for none, and the similarity of that match (0 for none)."""
    n_ref, n_ret = sim.shape
    ref_of = [-1] * n_ret
    sim_of = [0.0] * n_ret
    cols = sim.T.tolist()       # a few references x ten passages: plain Python beats numpy calls
    free = [True] * n_ref
    dup = duplicate.tolist()
    for j in range(n_ret):
        if dup[j]:
            continue
        best, bi = -1.0, -1
        for i, v in enumerate(cols[j]):
            if free[i] and v >= threshold and (bi < 0 or v > best):
                best, bi = v, i
        if bi >= 0:
            free[bi] = False
            ref_of[j] = bi
            sim_of[j] = best
    return np.array(ref_of, np.int64), np.array(sim_of, np.float64)


def _duplicates(passages: Sequence[str], cache: dict[str, str]) -> np.ndarray:
    """Per passage: does it repeat an earlier one once normalised (``cache``: passage -> key)?"""
    keys = [cache[p] if p in cache else cache.setdefault(p, normalize_text(p)) for p in passages]
    first: dict[str, int] = {}
    return np.array([first.setdefault(k, j) != j for j, k in enumerate(keys)], bool)


def _default_batch(data: RagData, sims: list[np.ndarray], matching: Matching):
    """The batch the measures run on: passages matched to references, graded by similarity when
    ``matching.graded``. Qrels: every reference grade 1, every unmatched retrieved passage grade
    0; the run: rank order as scores; synthetic document ids ``r<i>`` / ``x<j>``."""
    norm: dict[str, str] = {}
    assigned = [assign(s, _duplicates(q.retrieved, norm), matching.threshold) for q, s in zip(data.questions, sims)]
    q_q, q_d, q_r, r_q, r_d, r_s = [], [], [], [], [], []
    for qu, (ref_of, _) in zip(data.questions, assigned):
        n_ref, n_ret = len(qu.references), len(ref_of)
        docs = [f"r{i}" if i >= 0 else f"x{j}" for j, i in enumerate(ref_of.tolist())]
        unmatched = [d for d in docs if d[0] == "x"]
        q_q += [qu.id] * (n_ref + len(unmatched))
        q_d += [f"r{i}" for i in range(n_ref)] + unmatched
        q_r += [1] * n_ref + [0] * len(unmatched)
        r_q += [qu.id] * n_ret
        r_d += docs
        r_s += list(range(n_ret, 0, -1))
    if not r_q:
        raise InputError("no question has a retrieved passage", data.source)
    qrels = Qrels.from_arrays(pa.array(q_q, pa.string()), pa.array(q_d, pa.string()), np.array(q_r, np.int64),
                              source=data.source)
    run = Run.from_arrays(pa.array(r_q, pa.string()), pa.array(r_d, pa.string()), np.array(r_s, np.float64),
                          name=data.name, source=data.source)
    j = judge(qrels, run, 1)
    if matching.graded:
        # gain = the similarity of the match; ideal = every reference verbatim (gain 1); a row is
        # relevant for the binary measures at or above the matching threshold
        index = {qid: i for i, qid in enumerate(qrels.qids.to_pylist())}
        flat = np.concatenate([a[1] for a in assigned] + [np.zeros(1)])
        sizes = np.array([len(a[1]) for a in assigned], np.int64)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        offsets = np.zeros(len(index), np.int64)
        offsets[[index[qu.id] for qu in data.questions]] = starts
        j.rel = np.where(j.rel > 0, flat[offsets[j.qi] + j.pos], 0.0)
        j.qrels_rel = j.qrels_rel.astype(np.float64)
        j.ideal_rel = j.ideal_rel.astype(np.float64)
        j.threshold = float(matching.threshold)
    return RetrievalBatch(qrels, run, _judged=j), assigned


# ------------------------------------------------------------------------------ ranx-k

def _ranxk_scores(data: RagData, sims: list[np.ndarray], matching: Matching, measures, mode: str):
    """ranx-k's qrels and run, scored by the measures here: on its grades (0 or 1, as ranx keeps
    int() of a similarity) they equal ranx's hit_rate, ndcg (Järvelin gains), map and mrr."""
    t = matching.threshold
    qrels, run = ([], [], []), ([], [], [])        # (question, document, grade / score) columns
    any_qrels = False
    for qu, sim in zip(data.questions, sims):
        sim = np.nan_to_num(sim, nan=0.0)
        n_ret = sim.shape[1]
        ranked: list[str] = []
        grades: dict[str, int] = {"-": 0}   # a judged document never retrieved: keeps the question
        if mode == "reference_based":
            best = np.zeros(sim.shape[0])
            for j in range(n_ret):
                i = int(np.argmax(sim[:, j]))
                s = sim[i, j]
                if s >= t:
                    best[i] = max(best[i], s)
                    if f"ref_{i}" not in ranked:
                        ranked.append(f"ref_{i}")
                else:
                    ranked.append(f"ret_{j}")
            for i, s in enumerate(best.tolist()):
                # ranx's Qrels keeps integer grades: int() of the stored similarity
                grades[f"ref_{i}"] = (int(float(s)) if matching.graded else 1) if s >= t else 0
        else:
            for j in range(n_ret):
                ranked.append(f"doc_{j}")
                s = float(np.max(sim[:, j])) if sim.shape[0] else 0.0
                if s >= t:
                    grades[f"doc_{j}"] = int(s) if matching.graded else 1
        any_qrels |= len(grades) > 1
        for cols, docs, values in ((qrels, grades, grades.values()),
                                   (run, ranked, range(len(ranked), 0, -1))):
            cols[0].extend([qu.id] * len(docs))
            cols[1].extend(docs)
            cols[2].extend(values)
    if not any_qrels or not run[0]:
        why = ("no question has a retrieved passage at or above the threshold" if not any_qrels
               else "no question has a retrieved passage")
        raise ScorekitError(f"--compat ranx-k: ranx-k {RANXK_VERSION} returns no scores here ({why}: its "
                            f"ranx Qrels/Run cannot be built); run without --compat")
    q, r = ((pa.array(a, pa.string()), pa.array(b, pa.string()), np.array(c))
            for a, b, c in (qrels, run))
    batch = RetrievalBatch(Qrels.from_arrays(*q, source=data.source),
                           Run.from_arrays(*r, source=data.source))
    return evaluate_batch(batch, measures, 1, per_item=False)[1]


def _cut(data: RagData, measures) -> RagData:
    """The retrieved lists cut at the measures' one cutoff k, as ranx-k cuts them at its k."""
    ks = {m.k for _, m in measures if m.k is not None}
    if len(ks) > 1:
        raise ScorekitError(f"--compat ranx-k evaluates one cutoff k (ranx-k's k), got {sorted(ks)}")
    if not ks:
        return data
    k = ks.pop()
    qs = [RagQuestion(q.id, q.question, q.retrieved[:k], q.references, q.line) for q in data.questions]
    return RagData(qs, data.source, data.name, data.extra)


# ------------------------------------------------------------------------------ results

def _rag_signature(measures, matching: Matching, compat: str | None, mode: str | None, **extra: Any) -> str:
    judged = {"compat": f"ranx-k-{RANXK_VERSION}", "mode": mode} if compat else {"judge": "one-to-one",
                                                                                   "dups": "nonrel"}
    return signature(measures, 1, {"rag": "passages", **matching.signature_params()}, **judged, **extra)


def _score(data: RagData, measures, matching: Matching, compat: str | None, mode: str,
           per_item: bool) -> tuple[Result, dict[str, np.ndarray]]:
    data = _cut(data, measures) if compat else data
    sims = similarity_matrices([q.references for q in data.questions], [q.retrieved for q in data.questions],
                               matching)
    compat_scores = _ranxk_scores(data, sims, matching, measures, mode) if compat else None
    batch, assigned = _default_batch(data, sims, matching)
    res, scores = evaluate_batch(batch, measures, 1, per_item=per_item)
    default_metrics = res.metrics
    if compat_scores is not None:
        scores, metrics = compat_scores, {k: m.aggregate(compat_scores[k]) for k, m in measures}
        res = build_result(batch.qrels, measures, 1, metrics, scores, batch.about(), per_item=per_item)
    res.name = data.name or _stem(data.source)
    res.signature = _rag_signature(measures, matching, compat, mode if compat else None)
    res.inputs = {"data": data.source, "n_questions": len(data),
                  "n_retrieved": sum(len(q.retrieved) for q in data.questions),
                  "n_references": sum(len(q.references) for q in data.questions)}
    if per_item:
        for row, qu, (ref_of, sim_of) in zip(res.per_item, data.questions, assigned):
            hit = ref_of >= 0
            row["n_references"] = len(qu.references)
            row["matched_ranks"] = (np.flatnonzero(hit) + 1).tolist()
            row["similarities"] = [round(float(s), 6) for s in sim_of[hit]]
    res.extra = {"warnings": [], "rag": {
        "match": matching.method, "threshold": matching.threshold, "graded": matching.graded,
        "compat": compat, **({"mode": mode, "note": COMPAT_NOTE, "default_metrics": default_metrics}
                             if compat else {}),
        "references_matched": sum(int(np.count_nonzero(a[0] >= 0)) for a in assigned)}}
    return res, scores


def evaluate(data: Any, metrics: str | Sequence[str] | None = None, *, match: str | Matching = "rouge_l",
             threshold: float = 0.5, graded: bool = False, compat: str | None = None,
             mode: str = "reference_based", name: str | None = None, per_item: bool = True,
             **match_options: Any) -> Result:
    """Evaluate one retriever's passages. ``data``: a JSONL path, records
    (``{"id", "question", "retrieved", "references"}``), or :func:`collect`'s RagData.
    ``match``: ``exact``, ``rouge_l``, ``rouge_1``, ``rouge_2``, ``kiwi_rouge``, ``rouge`` or
    ``embedding`` (``model=PATH``); ``match_options``: ``kiwi_tokens`` (morphs/nouns),
    ``kiwi_stopwords``, ``kiwi_rouge`` (rougeL/rouge1/rouge2), ``model``,
    ``allow_english_model``. ``compat="ranx-k"`` reproduces ranx-k 0.0.17 (``mode``:
    ``reference_based`` or ``retrieval_based``). Results are keyed by the measure names as given."""
    compat = _check_compat(compat, mode)
    measures = _measures(metrics, compat)
    matching = _matching(match, threshold, graded, compat, match_options)
    res, _ = _score(as_rag_data(data, name=name), measures, matching, compat, mode, per_item)
    return res


def _check_compat(compat: str | None, mode: str) -> str | None:
    if compat is not None and compat not in COMPAT:
        raise UnknownNameError("compat target", compat, COMPAT)
    if mode not in COMPAT_MODES:
        raise UnknownNameError("ranx-k evaluation mode", mode, COMPAT_MODES)
    return compat


def compare(datas: Sequence[Any], metrics: str | Sequence[str] | None = None, *, names: Sequence[str] | None = None,
            match: str | Matching = "rouge_l", threshold: float = 0.5, graded: bool = False,
            compat: str | None = None, mode: str = "reference_based", test: str = "t", alpha: float = 0.05,
            n_resamples: int = 10000, seed: int = 42, **match_options: Any):
    """Several retrievers on the same questions and references: each scored as :func:`evaluate`,
    each later one compared with the first (paired test per measure, Holm-adjusted, as
    :func:`scorekit.retrieval.compare`). Returns a :class:`scorekit.retrieval.compare.Comparison`."""
    from scorekit.retrieval.compare import _unique_names, compare_scored
    from scorekit.stats.significance import normalise_method

    compat = _check_compat(compat, mode)
    method = normalise_method(test)
    if not 0 < alpha < 1:
        raise ScorekitError(f"alpha must be between 0 and 1, got {alpha}")
    if not datas:
        raise ScorekitError("no RAG data to evaluate")
    if names is not None and len(names) != len(datas):
        raise ScorekitError(f"{len(names)} names for {len(datas)} data files")
    measures = _measures(metrics, compat)
    matching = _matching(match, threshold, graded, compat, match_options)
    systems = [as_rag_data(d, name=None if names is None else names[i]) for i, d in enumerate(datas)]
    for s, n in zip(systems, _unique_names([s.name or _stem(s.source) for s in systems])):
        s.name = n
    first = systems[0]
    order = [q.id for q in first.questions]
    refs = {q.id: [normalize_text(p) for p in q.references] for q in first.questions}
    for s in systems[1:]:
        by_id = {q.id: q for q in s.questions}
        missing = [i for i in order if i not in by_id]
        extra = [q.id for q in s.questions if q.id not in refs]
        if missing or extra:
            what = f"lacks question {missing[0]!r}" if missing else f"has question {extra[0]!r} not in {first.source}"
            raise InputError(f"{what}: every --data file must answer the same questions", s.source)
        for qid in order:
            if [normalize_text(p) for p in by_id[qid].references] != refs[qid]:
                raise InputError(f"question {qid!r}: references differ from {first.source} (systems must be "
                                 f"judged against the same references)", s.source, by_id[qid].line)
        s.questions = [by_id[qid] for qid in order]
    results, per_query = [], {}
    for s in systems:
        res, scores = _score(s, measures, matching, compat, mode, True)
        res.name = s.name
        results.append(res)
        per_query[s.name] = scores
    comp = compare_scored(results, per_query, order, measures, 1, method=method, alpha=alpha,
                          n_resamples=n_resamples, seed=seed)
    tests = {"test": method, "correction": "holm", "alpha": alpha}
    if method in ("randomization", "bootstrap"):
        tests.update(resamples=n_resamples, seed=seed)
    comp.signature = _rag_signature(measures, matching, compat, mode if compat else None,
                                    **(tests if len(systems) > 1 else {}))
    return comp


def _stem(source: str) -> str:
    return Path(source).stem if not source.startswith("<") else "run"
