"""The magic-n sweep (nword-summarization.md, Phase 1 "실험 설정": N_LIST, every document at every n).

Every summariser (:func:`.summarizers.parse_summarizers`) summarises each document to every
``n`` words; each (summariser, n, metric) cell is the mean over documents with its 95% bootstrap
CI. An external system (:class:`SystemSummaries`, ``--system NAME=FILE``) joins as ``NAME``
(cut to its first n words, as lead-n counts them) and ``NAME (full)`` (uncut, one value).

Recommended n interval, the "gain band" (:func:`recommend_interval`; docs/summarization.md): with
q(n) the quality curve (mean BERTScore F1, else ROUGE-1 F) of the first TextRank summariser (else
the first that is neither ``random`` nor external) and c(n) its running maximum,
``g(n) = (c(n) - q(n_min)) / (c(n_max) - q(n_min))``; recommended is every n with
``0.5 <= g(n) <= 0.9``. A flat curve recommends the shortest n; a jump over the band the first n
past the lower bound.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from scorekit.engine.driver import plan
from scorekit.engine.executors import executor_for
from scorekit.errors import InputError, MissingDependencyError, ScorekitError
from scorekit.metrics.registry import MetricSpec, split_specs
from scorekit.neural.hangul import EnglishModelError, check_hangul
from scorekit.progress import track
from scorekit.signature import metric_fields
from scorekit.stats.bootstrap import bootstrap_mean_ci
from scorekit.summarization.data import load_corpus, read_pairs, read_texts
from scorekit.summarization.encoders import EncoderPool
from scorekit.summarization.metrics import (DEFAULT_METRICS, SummaryBERTScore,
                                            follow_bertscore, prepare_contexts, score_predictions)
from scorekit.summarization.summarizers import (LeadSummarizer, check_n, make_summarizer,
                                                parse_summarizers)
from scorekit.text.normalize import nfc

N_LIST = (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21)
TABLE_METRICS = ("rouge1", "rouge2", "bertscore_f1", "efficiency", "density")
PLOT_METRICS = ("rouge1", "rouge2", "rouge1_r", "rouge2_r", "bertscore_f1", "efficiency", "density")


FULL = " (full)"   # label suffix of an external system's uncut summaries


@dataclass
class SystemSummaries:
    """An external system's summaries, keyed by document id. ``digest`` (in the signature) is a
    hash of the (id, summary) pairs in id order."""

    name: str
    summaries: Mapping[str, str]
    source: str = ""
    digest: str = ""

    def __post_init__(self):
        self.summaries = {str(k): nfc(str(v)) for k, v in self.summaries.items()}
        joined = b"".join(k.encode() + b"\0" + self.summaries[k].encode() + b"\0"
                          for k in sorted(self.summaries))
        self.digest = self.digest or hashlib.sha256(joined).hexdigest()[:16]

    def texts(self, ids: Sequence[str]) -> list[str]:
        missing = [i for i in ids if i not in self.summaries]
        if missing:
            raise ScorekitError(f"system {self.name}: no summary for id {missing[0]!r} "
                                f"({len(missing)} missing){' in ' + self.source if self.source else ''}")
        return [self.summaries[i] for i in ids]


@dataclass
class SweepResult:
    ns: list[int]
    summarizers: list[str]
    ids: list[str]
    values: dict[str, dict[str, np.ndarray]]   # summariser -> metric -> (len(ns), n_docs) values
    series: dict[str, dict[str, dict[str, list[float]]]]   # ... -> {"mean", "low", "high"} over ns
    short_documents: dict[int, int]      # n -> documents with fewer than n words
    recommendation: dict[str, Any]
    params: dict[str, Any] = field(default_factory=dict)
    summaries: dict[str, list[list[str]]] | None = None  # summariser -> [n index][doc]

    def metrics(self) -> list[str]:
        return list(next(iter(self.series.values())))


def recommend_interval(ns: Sequence[int], quality: Sequence[float], *, low: float = 0.5,
                       high: float = 0.9) -> list[int]:
    """The gain-band rule (module docstring): the n whose share of the total quality gain over
    the sweep lies in ``[low, high]``."""
    if not 0.0 <= low <= high <= 1.0:
        raise ScorekitError(f"gain band must satisfy 0 <= low <= high <= 1, got {low}, {high}")
    order = np.argsort(ns)
    ns = [int(ns[i]) for i in order]
    q = np.asarray(quality, dtype=np.float64)[order]
    if len(ns) == 0:
        return []
    if np.any(~np.isfinite(q)):
        raise ScorekitError("cannot recommend n: the quality curve has missing values")
    envelope = np.maximum.accumulate(q)
    total = envelope[-1] - q[0]
    if total <= 0:
        return [ns[0]]
    gain = (envelope - q[0]) / total
    chosen = [n for n, g in zip(ns, gain) if low - 1e-12 <= g <= high + 1e-12]
    return chosen or [next(n for n, g in zip(ns, gain) if g >= low)]


def full_labels(params: Mapping[str, Any]) -> list[str]:
    return [n + FULL for n in (params.get("systems") or {})]


def sweep_metrics(metrics: str | Sequence | None = None, *, bertscorer=None,
                  allow_english_model: bool = False, device: str | None = None, texts: Sequence[str] = (),
                  warn=None) -> list:
    """The sweep's metrics, built: ``metrics`` of the summary family in the name grammar (or
    MetricSpecs), each scored once and keyed by its plain keys. None: :data:`DEFAULT_METRICS`,
    BERTScore and Efficiency only with a ``bertscorer`` (a loaded scorer; a bare ``efficiency``
    shares the ``bertscore(...)`` beside it). A spec marked optional is left out, saying so
    through ``warn``, when torch or the model is missing or cannot read the Hangul of ``texts``."""
    if metrics is None:
        metrics = [m for m in DEFAULT_METRICS
                   if bertscorer is not None or m not in ("bertscore", "efficiency")]
    specs = follow_bertscore(split_specs(metrics) if isinstance(metrics, str) else metrics)
    planned = plan("summary", specs, {"device": device}, allow_english_model=allow_english_model)
    keys = [k for p in planned for k, _ in p.keys]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice:
        raise ScorekitError(f"metric {twice!r} asked twice (the sweep scores each metric once)")
    berts = [p for p in planned if isinstance(p.metric, SummaryBERTScore)]
    if len({tuple(sorted((k, repr(v)) for k, v in p.metric.values.items())) for p in berts}) > 1:
        raise ScorekitError("bertscore and efficiency share one model in the sweep: "
                            "give them the same parameters")
    if berts and bertscorer is not None:
        for p in berts:
            p.metric.adopt(bertscorer)
    elif berts:
        say = warn or (lambda msg: None)
        try:
            bertscorer = berts[0].metric.scorer()
        except MissingDependencyError:
            if not all(p.optional for p in berts):
                raise
            say("BERTScore unavailable (torch/model missing); running ROUGE and Density only")
            bertscorer = None
        if bertscorer is not None and texts and all(p.optional for p in berts):
            try:
                check_hangul(bertscorer.tokenizer, texts, bertscorer.name, option="-m 'bertscore(model=DIR)'",
                             allow=berts[0].metric.allow_english_model)
            except EnglishModelError as exc:
                say(f"skipped BERTScore: {exc}")
                bertscorer = None
        if bertscorer is None:
            planned = [p for p in planned if not isinstance(p.metric, SummaryBERTScore)]
    for p in berts:
        p.metric.use(bertscorer)
    if not {"rouge1", "bertscore_f1"} & {k for p in planned for k, _ in p.keys}:
        raise ScorekitError("the sweep needs rouge or bertscore: the recommended n follows ROUGE-1 "
                            "or BERTScore F1")
    return [(p.metric, [k for k, _ in p.keys]) for p in planned]


DOCS_PER_SHARD = 50   # documents per shard on an engine


def run_sweep(documents: Sequence[str], references: Sequence[str | Sequence[str]], *,
              ns: Sequence[int] = N_LIST, summarizers: str | Sequence = ("lead", "textrank"),
              ids: Sequence[str] | None = None, bertscorer=None, embed=None, lang: str = "en",
              stem: bool = False, seed: int = 42, n_resamples: int = 1000, confidence: float = 0.95,
              band: tuple[float, float] = (0.5, 0.9), keep_summaries: bool = False,
              systems: Sequence[SystemSummaries] = (), allow_english_model: bool = False,
              pool=None, engine=None, docs_per_shard: int = DOCS_PER_SHARD, metrics: Any = None,
              device: str | None = None, warn=None) -> SweepResult:
    """Summarise every document at every n with every summariser and score it with ``metrics``
    (:func:`sweep_metrics`; ``bertscorer``: an already loaded scorer for BERTScore and Efficiency;
    ``device``: the torch device of the model metrics).

    ``summarizers``: names in the metric-name grammar (``textrank(encoder=DIR)``); ``embed``
    replaces the shipped MiniLM for TextRank/centroid without ``encoder=``. ``systems``: external
    summaries (looked up by ``ids``). ``pool``: the :class:`~.encoders.EncoderPool` (default: new).

    ``engine``: None (this process), ``"fork"`` or a started RayEngine. Documents are independent
    (every summariser is seeded per document), so shards of documents are swept where the
    executor runs them (BERTScore: one model per worker) and their per-document values
    concatenated; means, CIs and the recommendation are then computed once (:func:`finish_sweep`),
    the one-process numbers."""
    ns = [check_n(n) for n in ns]
    if not ns:
        raise ScorekitError("no values of n to sweep")
    if len(set(ns)) != len(ns):
        raise ScorekitError(f"duplicate values of n: {ns}")
    if len(documents) != len(references):
        raise ScorekitError(f"{len(documents)} documents but {len(references)} references")
    if not documents:
        raise ScorekitError("no documents to sweep")
    specs = parse_summarizers(summarizers)
    ids = [str(i) for i in ids] if ids is not None else [str(i + 1) for i in range(len(documents))]
    systems = list(systems)
    labels = [s.label for s in specs]
    clash = [x.name for x in systems if x.name in labels or x.name + FULL in labels]
    if clash or len({x.name for x in systems}) != len(systems):
        raise ScorekitError(f"system name {(clash or [x.name for x in systems])[0]!r} is used twice "
                            "(a summariser or another --system has it)")
    system_texts = [x.texts(ids) for x in systems]   # missing ids: one line, before any work
    refs = [r for rs in references[:64] for r in ([rs] if isinstance(rs, str) else rs)]
    scoring = sweep_metrics(metrics, bertscorer=bertscorer, allow_english_model=allow_english_model,
                            device=device, texts=[*documents[:64], *refs], warn=warn)
    for m, _ in scoring:   # whole-batch state (BERTScore's idf: every reference once, as in `scorekit summary`)
        m.whole(([""] * len(references), [[r] if isinstance(r, str) else list(r) for r in references]))
    bert = next((m for m, _ in scoring if isinstance(m, SummaryBERTScore)), None)
    rouge = next((m for m, _ in scoring if m.name == "rouge"), None)
    kw = dict(ns=ns, specs=specs, embed=embed, lang=lang, stem=stem, seed=seed, keep_summaries=keep_summaries,
              systems=[(x.name, x.source, x.digest) for x in systems],
              pool_args=dict(texts=[*documents[:64]], allow_english_model=allow_english_model))
    pooled = [spec for spec in specs if _pooled(spec, embed)]
    if pooled:
        # every encoder loaded (and Hangul-checked) before any summarising: a bad folder fails at
        # once. A new pool per sweep (files may have changed); forked workers inherit its models
        pool = _process_pool(kw["pool_args"], pool, fresh=True)
        for spec in pooled:
            pool.get(spec.encoder)
    ex = executor_for(engine)
    step = docs_per_shard if engine is not None else len(documents)   # in process: one shard
    bounds = list(range(0, len(documents), step)) + [len(documents)]
    shards = [(list(documents[a:b]), list(references[a:b]), [list(t[a:b]) for t in system_texts])
              for a, b in zip(bounds, bounds[1:])]
    if bert is not None:   # one model per worker
        outs = ex.map_model(_loaded, (scoring,), partial(_sweep_with_model, kw), shards,
                            desc="sweep shards")
    else:
        outs = ex.map(_sweep_shard, shards, args=(kw, scoring), desc="sweep shards")
    values = {s: {m: np.concatenate([o[0][s][m] for o in outs], axis=1) for m in outs[0][0][s]}
              for s in outs[0][0]}
    short = {n: sum(o[1][n] for o in outs) for n in outs[0][1]}
    sig_params = outs[0][2]
    summaries = ({s: [sum((o[3][s][i] for o in outs), []) for i in range(len(ns))] for s in outs[0][0]}
                 if keep_summaries else None)
    params = {"n": ns, "summarizers": sig_params, "seed": seed, "bootstrap": n_resamples,
              "confidence": confidence, "lang": lang,
              "stem": stem or bool(rouge is not None and rouge.values["use_stemmer"]),
              "metrics": metric_fields([m for m, _ in scoring]),   # the signature's metrics and pins
              "band": list(band),
              "systems": {x.name: {"source": x.source, "digest": x.digest} for x in systems}}
    order = labels + [lab for x in systems for lab in (x.name, x.name + FULL)]
    return finish_sweep(ns, order, ids, values, short, params, summaries)


def _pooled(spec, embed) -> bool:
    """Does it embed with a pooled encoder (its ``encoder=``, else MiniLM unless ``embed``)?"""
    return spec.name in ("textrank", "centroid") and (spec.encoder or embed is None)


_POOLS: dict[tuple, object] = {}   # this process's encoder pools (a worker sweeps many shards)


def _process_pool(args: dict[str, Any], pool=None, *, fresh: bool = False):
    """The encoder pool of this process's sweep: the driver's (``fresh``: ``pool`` or a new one;
    inherited by forked workers), or a Ray worker's own, built on its first shard and kept."""
    key = (tuple(args["texts"]), args["allow_english_model"])
    if fresh or key not in _POOLS:
        _POOLS.clear()
        _POOLS[key] = pool if pool is not None else EncoderPool(**args)
    return _POOLS[key]


def _loaded(scoring: list) -> list:
    """The sweep's metrics with their model loaded from their parameters (once per worker)."""
    for m, _ in scoring:
        if m.needs_model:
            m.use(m.scorer())
    return scoring


def _sweep_with_model(kw: dict[str, Any], scoring, shard):
    """``partial(_sweep_with_model, kw)`` is ``fn(scoring, shard)`` for :meth:`map_model`."""
    return _sweep_shard(shard, kw, scoring)


def _sweep_shard(shard, kw: dict[str, Any], scoring: list):
    """(values, short-document counts, summariser signature params, summaries) of one shard of
    documents and the external systems' summaries of them, scored with ``[(metric, keys)]``."""
    documents, references, system_texts = shard
    ns, specs, embed, lang, stem, seed = kw["ns"], kw["specs"], kw["embed"], kw["lang"], kw["stem"], kw["seed"]
    keep = kw["keep_summaries"]
    contexts = prepare_contexts(references, documents, lang=lang, stem=stem)
    metrics, keys = [m for m, _ in scoring], [k for _, ks in scoring for k in ks]

    def score(preds: Sequence[str], ctx: list) -> dict[str, np.ndarray]:
        per = score_predictions(preds, ctx, stem=stem, metrics=metrics)
        return {k: per[k] for k in keys}

    pool = _process_pool(kw["pool_args"]) if any(_pooled(s, embed) for s in specs) else None

    values: dict[str, dict[str, np.ndarray]] = {}
    summaries: dict[str, list[list[str]]] = {}
    sig_params: dict[str, Any] = {}
    short: dict[int, int] = {}

    def sweep_one(label: str, summ, texts: Sequence[str]) -> None:
        prepared = summ.prepare(texts)
        sig_params[label] = summ.signature_params()
        if not short:
            short.update({n: int(sum(p.n_words < n for p in prepared)) for n in ns})
        # one scoring call over every (n, document): BERTScore batches across all of them
        preds = [summ.summarize(p, n) for n in track(ns, f"{label}: summarising", len(ns)) for p in prepared]
        per = score(preds, list(contexts) * len(ns))
        values[label] = {k: v.reshape(len(ns), len(documents)) for k, v in per.items()}
        if keep:
            summaries[label] = [preds[i * len(documents):(i + 1) * len(documents)] for i in range(len(ns))]

    for spec in specs:
        shared = pool.get(spec.encoder) if _pooled(spec, embed) else None
        args = {"embed": shared, "model_name": shared.signature} if shared else {"embed": embed}
        sweep_one(spec.label, make_summarizer(spec, seed=seed, lang=lang, **args), documents)
    for (name, source, digest), texts in zip(kw["systems"], system_texts):
        sweep_one(name, LeadSummarizer(), texts)
        sig_params[name] = {"summarizer": "system", "source": source, "digest": digest}
        per = score(texts, list(contexts))
        label = name + FULL
        values[label] = {k: np.tile(v, (len(ns), 1)) for k, v in per.items()}
        sig_params[label] = {"summarizer": "system-full", "digest": digest}
        if keep:
            summaries[label] = [list(texts) for _ in ns]
    return values, short, sig_params, summaries


def finish_sweep(ns: Sequence[int], summarizers: Sequence[str], ids: Sequence[str],
                 values: dict[str, dict[str, np.ndarray]], short: dict[int, int], params: dict[str, Any],
                 summaries: dict[str, list[list[str]]] | None = None) -> SweepResult:
    """From per-document values ``(len(ns), n_docs)`` per summariser and metric: the mean and
    bootstrap CI per n, and the recommended n interval. Shards of documents merge by
    concatenating their values along the document axis before this step (``--engine ray``)."""
    band = tuple(params["band"])

    def ci(arr: np.ndarray) -> dict[str, list[float]]:
        cells = [bootstrap_mean_ci(row, n_resamples=params["bootstrap"],
                                   confidence=params["confidence"], seed=params["seed"])
                 for row in arr]
        return {k: [c[i] for c in cells] for i, k in enumerate(("mean", "low", "high"))}

    series = {name: {metric: ci(arr) for metric, arr in values[name].items()}
              for name in summarizers}
    # the quality curve (module docstring): the first TextRank, else non-random, own summariser
    base = {label: p.get("summarizer", label) for label, p in params["summarizers"].items()}
    own = [s for s in summarizers if s not in {*params["systems"], *full_labels(params)}]
    candidates = ([s for s in own if base.get(s, s) == "textrank"]
                  + [s for s in own if base.get(s, s) != "random"])
    summ = candidates[0] if candidates else (own or list(summarizers))[0]
    metric = "bertscore_f1" if "bertscore_f1" in series[summ] else "rouge1"
    interval = recommend_interval(ns, series[summ][metric]["mean"], low=band[0], high=band[1])
    rule = (f"gain band: n whose share of the total gain of running-max mean {metric} ({summ}) "
            f"over the sweep is in [{band[0]}, {band[1]}]")
    recommendation = {"interval": interval, "summarizer": summ, "metric": metric, "rule": rule}
    return SweepResult(list(ns), list(summarizers), list(ids), values, series, short, recommendation, params,
                       summaries)


def _short(x: float) -> str:
    return f"{x:.3f}".replace("0.", ".", 1) if 0 <= x < 1 else f"{x:.3f}"


def sweep_table(sweep: SweepResult, metrics: Sequence[str] = TABLE_METRICS, *, compact: bool = False
                ) -> tuple[list[str], list[list[Any]]]:
    """Rows ``summarizer, n, <metric>, <metric> low, <metric> high, ..., short docs``; with
    ``compact`` one cell per metric, ``mean [low, high]`` (for the terminal). An external system's
    uncut summaries (``NAME (full)``) take one row with n ``full``."""
    present = [m for m in metrics if m in sweep.metrics()]
    header = ["summarizer", "n"]
    for m in present:
        header += [f"{m} [95% CI]"] if compact else [m, f"{m} low", f"{m} high"]
    header.append("short docs")
    rows = []
    full = set(full_labels(sweep.params))
    for name in sweep.summarizers:
        for j, n in enumerate(sweep.ns):
            if name in full and j:
                break   # an uncut external summary: the same at every n, one row
            row: list[Any] = [name, "full" if name in full else n]
            for m in present:
                s = sweep.series[name][m]
                if compact:
                    row.append(f"{s['mean'][j]:.3f} [{_short(s['low'][j])},{_short(s['high'][j])}]")
                else:
                    row += [s["mean"][j], s["low"][j], s["high"][j]]
            row.append("" if name in full else sweep.short_documents[n])
            rows.append(row)
    return header, rows


def sweep_to_result(sweep: SweepResult, *, name: str | None = None, inputs: dict | None = None):
    """A :class:`Result`: metrics are the recommended-interval means of the quality summariser;
    ``extra["sweep"]`` holds every curve (interfaces.md n-sweep convention)."""
    from scorekit.result import Result
    from scorekit.signature import make_signature

    rec = sweep.recommendation
    summ = rec["summarizer"]
    idx = [sweep.ns.index(n) for n in rec["interval"]]
    span = f"n{min(rec['interval'])}-{max(rec['interval'])}" if rec["interval"] else "n"
    metrics = {f"{m}@{span}": float(np.mean([sweep.series[summ][m]["mean"][i] for i in idx]))
               for m in TABLE_METRICS if m in sweep.series[summ]}
    per_item = []
    full = set(full_labels(sweep.params))
    for d, doc_id in enumerate(sweep.ids):
        row: dict[str, Any] = {"id": doc_id}
        for s in sweep.summarizers:
            for metric in [m for m in ("rouge1", "rouge2", "bertscore_f1") if m in sweep.values[s]]:
                v = sweep.values[s][metric]
                row.update({f"{s}/{metric}": float(v[0, d])} if s in full else
                           {f"{s}/{metric}@{n}": float(v[j, d]) for j, n in enumerate(sweep.ns)})
        per_item.append(row)
    # every encoder as name@content-hash, every external system as name@digest of its summaries
    encoders = list(dict.fromkeys(p["encoder"] for p in sweep.params["summarizers"].values() if "encoder" in p))
    systems = [f"{k}@{v['digest']}" for k, v in (sweep.params.get("systems") or {}).items()]
    from scorekit.text.normalize import SIGNATURE as NORM

    sig = make_signature("sweep", {
        "lang": sweep.params["lang"], "norm": NORM, "stem": sweep.params["stem"], "n": sweep.ns,
        "summ": [s for s in sweep.summarizers if s not in full], "encoder": encoders or "none",
        **({"systems": systems} if systems else {})}, metrics=sweep.params["metrics"],
        semantics={k: sweep.params[k] for k in ("seed", "bootstrap", "band")})
    lengths = {s: sweep.series[s]["words"]["mean"][0] for s in full if "words" in sweep.series[s]}
    curves = {"n": sweep.ns, "series": sweep.series, **({"full_length": lengths} if full else {})}
    extra = {"sweep": curves, "recommendation": rec,
             "short_documents": {str(n): c for n, c in sweep.short_documents.items()}}
    return Result(task="sweep", metrics=metrics, signature=sig, per_item=per_item,
                  inputs={"n_documents": len(sweep.ids), **(inputs or {})}, extra=extra, name=name)


def plot_sweep(sweep: SweepResult, directory: str | Path,
               metrics: Sequence[str] = PLOT_METRICS) -> list[Path]:
    """One PNG per metric, ``sweep_<metric>.png``, drawn by :func:`scorekit.report.plots.line_ci_png`
    (mean against n, a 95% CI band per summariser, an external system's uncut summaries as a
    dashed flat line, the recommended interval shaded). Written atomically; returns the paths."""
    from scorekit.report.plots import line_ci_png

    directory = Path(directory)
    if not directory.is_dir():
        raise ScorekitError(f"{directory}: plot directory does not exist")
    rec = sweep.recommendation["interval"]
    full = set(full_labels(sweep.params))
    paths = []
    for metric in [m for m in metrics if m in sweep.metrics()]:
        curves = {name: sweep.series[name][metric] for name in sweep.summarizers if name not in full}
        flat = {}
        for name in [s for s in sweep.summarizers if s in full]:
            words = sweep.series[name].get("words", {}).get("mean", [None])[0]
            flat[name if words is None else f"{name}, {words:.1f} words"] = sweep.series[name][metric]["mean"][0]
        paths.append(line_ci_png(
            sweep.ns, curves, directory / f"sweep_{metric}.png", hlines=flat, xticks=sweep.ns,
            span=(min(rec) - 0.5, max(rec) + 0.5) if rec else None,
            span_label=f"recommended n {min(rec)}–{max(rec)}" if rec else None,
            title=f"{metric} against n ({len(sweep.ids)} documents, mean and 95% CI)",
            xlabel="summary length n (words)", ylabel=metric))
    return paths


def read_systems(files: Sequence[tuple[str, str | Path]], ids: Sequence[str], known_ids: Sequence[str] | None
                 ) -> list[SystemSummaries]:
    """Each external system's summaries (``[(NAME, FILE)]``, the summary readers of ``scorekit
    summary``: id + prediction/summary field) for exactly the swept ids. A missing id is an
    error; so is an id that is no document of the data (``known_ids``: the whole file's ids, so
    a ``limit`` may leave some out)."""
    out, known = [], None if known_ids is None else set(known_ids)
    for name, path in files:
        sys_ids, texts, lines = read_texts(path, "prediction")
        if any(i is None for i in sys_ids):
            raise InputError(f"--system {name}: a summary without an id (the sweep aligns by document id)",
                             path, lines[sys_ids.index(None)])
        index = dict(zip(sys_ids, range(len(sys_ids))))
        if len(index) != len(sys_ids):
            dup = next(i for i in sys_ids if sys_ids.count(i) > 1)
            raise InputError(f"--system {name}: duplicate id {dup!r}", path, lines[sys_ids.index(dup)])
        missing = [i for i in ids if i not in index]
        if missing:
            raise InputError(f"--system {name}: no summary for document id {missing[0]!r} "
                             f"({len(missing)} of {len(ids)} missing)", path)
        extra = [i for i in sys_ids if known is not None and i not in known]
        if extra:
            raise InputError(f"--system {name}: id {extra[0]!r} is no document of the data "
                             f"({len(extra)} such ids)", path, lines[sys_ids.index(extra[0])])
        out.append(SystemSummaries(name, {i: texts[index[i]] for i in ids}, source=str(path)))
    return out


def sweep_files(*, data: str | Path | None = None, dataset: str | None = None, dataset_files: Any = None,
                split: str = "test", limit: int | None = None, ns: Sequence[int] = N_LIST,
                summarizers: Any = "lead,textrank", systems: Sequence[tuple[str, str | Path]] = (),
                metrics: Any = None, engine: Any = None, **kw: Any):
    """``scorekit sweep`` as one call: read ``data`` (a file, folder or glob of shards) or a
    local copy of ``dataset`` (cnn_dailymail, xsum), the external ``systems`` (``[(NAME,
    FILE)]``), run :func:`run_sweep` with ``metrics`` (the name grammar; default
    :data:`DEFAULT_METRICS`, BERTScore and Efficiency left out with a warning when torch or the
    model is missing) and ``kw`` (lang, stem, seed, n_resamples, band, allow_english_model, device, warn)
    and return ``(sweep, result)``. ``engine``: an unstarted RayEngine is started for the sweep
    and stopped after."""
    if (data is None) == (dataset is None):
        raise ScorekitError("give exactly one of --data FILE or --dataset NAME")
    if data is not None:
        if dataset_files is not None:
            raise ScorekitError("--dataset-files goes with --dataset, not --data")
        all_pairs = read_pairs(data)
        pairs, known_ids = all_pairs.head(limit), all_pairs.ids
    else:
        pairs = load_corpus(dataset, split=split, limit=limit, files=dataset_files)
        known_ids = None if limit else pairs.ids
    external = read_systems(systems, pairs.ids, known_ids)
    if metrics is None:
        metrics = [MetricSpec(m, optional=m in ("bertscore", "efficiency")) for m in DEFAULT_METRICS]
    specs = parse_summarizers(summarizers) if isinstance(summarizers, str) else summarizers
    with engine if hasattr(engine, "__enter__") else contextlib.nullcontext():
        sweep = run_sweep(pairs.documents, pairs.references, ids=pairs.ids, metrics=metrics, ns=ns,
                          summarizers=specs, systems=external, engine=engine, **kw)
    return sweep, sweep_to_result(sweep, name=Path(pairs.source).stem if data else pairs.source,
                                  inputs={"data": pairs.source})
