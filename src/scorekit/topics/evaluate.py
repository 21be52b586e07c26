"""One call that scores a topic set: the semantic metrics, optionally the corpus-based anchors,
the meta-evaluation against ratings and the spec's grid searches — as a :class:`Result`.

Metric keys: ``sc``, ``sd_avg``, ``vd``, ``cd``, ``semdiv``, ``overall``; with a reference corpus
also ``npmi`` (gensim's c_npmi), ``c_v``, ``u_mass`` and ``topic_diversity``.
``per_item``: one row per topic (``id``, ``keywords``, ``sc``, ``sd`` = mean SD to the other
topics, the coherence anchors, ``rating``, ``pagerank``). ``extra``: ``pairs`` (SD, cosine, OH
per topic pair, least distinct first), ``notes``, ``meta`` (correlations, ICC, discrimination,
grids) and the parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.metrics import describe
from scorekit.metrics.registry import MetricSpec, split_name
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.stats.bootstrap import bootstrap_mean_ci
from scorekit.stats.compare import _finite, block, correct, document, row as comparison_row
from scorekit.stats.significance import paired_test, unpaired_test
from scorekit.text.normalize import SIGNATURE as NORM
from scorekit.topics.batch import DEFAULT_EMBEDDER, TopicBatch
from scorekit.topics.coherence import CORPUS_MEASURES, CorpusCoherence, tokenize_corpus
from scorekit.topics.meta import (correlate_metrics, discrimination_range, gamma_grid, rater_reliability,
                                  threshold_grid)
from scorekit.topics.semantic import (Overall, SemanticCoherence, SemanticDistinctiveness, SemanticDiversity,
                                      SemanticParams, semantic_notes)
from scorekit.topics.validate import validate_topics


def _undefined_coherence_notes(names, per_topic, metrics) -> list[str]:
    """Say exactly which corpus measures a topic lacks (a topic with one keyword in the corpus has
    no word pair: npmi and u_mass are null, while c_v compares the word with its own set and is
    1.0, as gensim computes it) and what that does to the model-level means."""
    notes = []
    asked = [k for k in per_topic if split_name(k)[0] in CORPUS_MEASURES]   # keyed as written
    for i, name in enumerate(names):
        missing = [k for k in asked if not np.isfinite(per_topic[k][i])]
        if not missing:
            continue
        kept = [f"{k} = {per_topic[k][i]:.4g}" for k in asked if k not in missing]
        also = f"; {', '.join(kept)} (kept, and in the model's mean)" if kept else ""
        notes.append(f"topic {name!r}: fewer than two keywords in the corpus, so {'/'.join(missing)} "
                     f"{'is' if len(missing) == 1 else 'are'} null{also}")
    nulls = [k for k in asked if k in metrics and (metrics[k] is None or not np.isfinite(metrics[k]))]
    if nulls:
        notes.append(f"model {'/'.join(nulls)} null: the mean over topics is undefined when a topic has "
                     "none (gensim's mean is NaN)")
    return notes

DEFAULT_METRICS = ("sc", "sd", "cd", "semdiv", "overall")
CORPUS_METRICS = ("coherence", "topic_diversity")   # added by default with a reference corpus
_TOPIC_ONLY = ("sd",)   # a per-topic column, not a model-level measure (the model's is sd_avg)


def _embed(topics, planned, computed, grid_embedders, word_vectors, allow_english_model):
    """The keyword embeddings of every ``(model, num_layers)`` the measures (and the grids) name,
    each computed once, and each measure's ``embedded_with`` set (its signature's pin); or the
    ``word_vectors`` given, which no model parameter may then contradict."""
    users: dict[tuple, list[str]] = {}       # embedder -> the measures (as listed) that use it
    for p in planned:
        if p.metric.embedder() is not None:
            users.setdefault(p.metric.embedder(), []).append(p.metric.name)
    for e in grid_embedders:
        users.setdefault(e, ["--grid"])
    if word_vectors is not None:
        if len(word_vectors) != len(topics):
            raise ScorekitError("one embedding matrix per topic expected")
        named = [n for e, ns in users.items() if e != DEFAULT_EMBEDDER for n in ns]
        if named:
            raise ScorekitError(f"{named[0]}: word_vectors are given, so no model embeds the keywords "
                                "(leave out model= and num_layers=)")
        pins = dict.fromkeys(users, {"model": "given-vectors"})
        vectors = list(word_vectors)
    else:
        from scorekit.topics.embed import KeywordEmbedder

        pins, vectors = {}, {}
        for e, measures in users.items():
            ms = [m for m in dict.fromkeys(measures) if m != "--grid"] or ["sc"]
            option = (f"model=PATH on {', '.join(ms)}: -m \"{','.join(f'{m}(model=PATH)' for m in ms)}\"")
            embedder = KeywordEmbedder(e[0], num_layers=e[1], allow_english_model=bool(allow_english_model),
                                       option=option)
            vectors[e] = embedder.topic_vectors(topics)
            fields = embedder.signature_params()   # one pin, as BERTScore's: name/pool=.../layer=...
            pins[e] = {"model": "/".join([str(fields.pop("model"))] + [f"{k}={v}" for k, v in fields.items()])}
    for m in [p.metric for p in planned] + [p.metric for p in computed]:
        if m.embedder() is not None:
            m.embedded_with = pins[m.embedder()]
    return vectors


def evaluate_topics(topics: Sequence[Sequence[str]], *, names: Sequence[str] | None = None,
                    word_vectors: Sequence[np.ndarray] | None = None, metrics: Sequence[object] | None = None,
                    corpus: Sequence[str] | None = None, tokenizer: str = "auto",
                    ratings=None, grid: bool = False, n_resamples: int = 1000,
                    seed: int = 42, name: str | None = None, inputs: dict | None = None,
                    allow_english_model: bool = False, engine=None) -> Result:
    """Score ``topics`` (keyword lists).

    ``metrics``: specs of the name grammar, parameters from each measure's declaration and results
    keyed as written (``["sc(threshold_edge=0.2)", "overall(sis=0.75)", "topic_diversity(topk=5)"]``);
    default :data:`DEFAULT_METRICS`, plus :data:`CORPUS_METRICS` with a ``corpus``. SemDiv and
    Overall are derived from SC/SD/CD with their own parameters (computed once when they equal a
    listed measure's); ``coherence(topn=10)`` sets gensim's cut. The keyword embeddings are a
    parameter of each measure over them (``sc(model=DIR,num_layers=4)``; default the shipped
    all-MiniLM-L6-v2), computed once per distinct ``(model, num_layers)``, or given as
    ``word_vectors`` (one ``(|W|, d)`` matrix per topic, for every measure). ``allow_english_model``
    (the run's ``--allow-english-model``) embeds Korean keywords with a model that cannot read
    Hangul, which is refused otherwise. ``ratings`` is a :class:`scorekit.io.topics.Ratings` for the
    meta-evaluation. The measures run through the one driver: ``engine`` None (this process),
    ``"fork"`` or a started RayEngine shard the topics, with the same numbers."""
    names = list(names) if names is not None else [f"t{i + 1}" for i in range(len(topics))]
    topics = validate_topics(topics, names)
    from scorekit.engine.driver import Planned, ident as _ident, plan, run

    specs = list(metrics) if metrics is not None else \
        list(DEFAULT_METRICS) + (list(CORPUS_METRICS) if corpus is not None else [])
    # validates every spec before any model is loaded
    planned = plan("topics", specs, allow_english_model=allow_english_model)
    if corpus is None and any(isinstance(p.metric, CorpusCoherence) for p in planned):
        raise ScorekitError("the corpus coherences (npmi, c_v, u_mass) need a reference corpus (--corpus)")
    # SemDiv and Overall are derived (combine) from SC, SD and CD built with their parameters:
    # those parts run with the plan, shared with a listed measure of the same parameters
    computed = {_ident(p.metric): p for p in planned if not hasattr(p.metric, "combine")}

    def part(m):
        return computed.setdefault(_ident(m), Planned(m, [])).metric

    derived = [(p, [part(p.metric._part(cls)) for cls in p.metric.derived_from])
               for p in planned if hasattr(p.metric, "combine")]

    def first(cls):
        return next((p.metric for p in computed.values() if type(p.metric) is cls), None)

    sd_m, sc_m = first(SemanticDistinctiveness), first(SemanticCoherence)
    grid_embedders = [m.embedder() if m is not None else DEFAULT_EMBEDDER for m in (sd_m, sc_m)] if grid else []
    vectors = _embed(topics, planned, computed.values(), grid_embedders, word_vectors, allow_english_model)

    texts = lowered = None
    if corpus is not None:
        texts = tokenize_corpus(corpus, tokenizer)
        lowered = [[w.lower() for w in t] for t in topics] if tokenizer in ("auto", "regex", "kiwi") else topics
    batch = TopicBatch(topics, vectors, names, texts, lowered)
    batch_fields: dict[str, object] = {"norm": NORM}
    semantics: dict[str, object] = {}
    scored = run(list(computed.values()), batch, engine)
    derived_values = {label: p.metric.combine({k: v for m in parts
                                               for k, v in m.score(scored.stats[id(m)]).items()})
                      for p, parts in derived for _, label in p.keys}
    metrics_out: dict[str, float] = {}
    per_topic: dict[str, np.ndarray] = {}
    for p in planned:
        for key, label in p.keys:
            if label in derived_values:
                metrics_out[label] = derived_values[label]
                continue
            if label in scored.per_item:
                per_topic[label] = scored.per_item[label]
            if key not in _TOPIC_ONLY:
                metrics_out[label] = scored.metrics[label]

    # the parameters a reader is told (notes, extra): the listed measures' (Overall's last)
    listed = {type(p.metric): p.metric for p in reversed(planned)}   # the first of each measure
    semantic = (SemanticCoherence, SemanticDistinctiveness, SemanticDiversity, Overall)
    params = SemanticParams.of({k: v for c in semantic if c in listed for k, v in listed[c].values.items()})
    ov = listed.get(Overall)
    sis = ov.values["sis"] if ov is not None else None
    dist = sd_m.detail(scored.stats[id(sd_m)]) if sd_m is not None else None
    notes = semantic_notes(sis, params, len(topics)) if ov is not None else []
    cc = first(CorpusCoherence)
    if corpus is not None:
        batch_fields.update({"corpus_tok": tokenizer, "windows": "c_v=110,npmi=10"})
    if cc is not None:
        notes += [f"topic {names[i]!r}: {'keyword' if len(w) == 1 else 'keywords'} {', '.join(w)} "
                  "not in the reference corpus, left out of npmi/c_v/u_mass (as gensim does)"
                  for i, w in enumerate(scored.stats[id(cc)].columns["dropped"]) if w]
        notes += _undefined_coherence_notes(names, per_topic, metrics_out)

    sc_cols = scored.stats[id(sc_m)].columns if sc_m is not None else {}   # lambda, cos per keyword
    kw_cols = ("pagerank", "cos_to_topic") if sc_cols else ()
    rows = [{"id": names[i], "keywords": words, **{k: float(v[i]) for k, v in per_topic.items()},
             **{k: [float(x) for x in sc_cols[k][i]] for k in kw_cols}}
            for i, words in enumerate(topics)]

    pairs = [{"a": names[i], "b": names[j], "sd": s, "cos": c, "oh": o}
             for i, j, s, c, o in dist.lowest] if dist is not None else []
    extra: dict[str, object] = {"pairs": pairs, "n_pairs": dist.n_pairs if dist is not None else 0,
                                "params": asdict(params), "sis": sis, "notes": notes}
    if dist is not None and dist.n_pairs > len(pairs):
        notes.append(f"pairs: the {len(pairs)} least distinct of {dist.n_pairs} kept")

    meta: dict[str, object] = {}
    rating = rated = None
    if ratings is not None:
        rated, rating = ratings.topic_index, ratings.mean
        for k, t in enumerate(rated):
            rows[t]["rating"] = float(rating[k])
        if len(rated) >= 3:
            meta["correlations"] = correlate_metrics(per_topic, rating, rated, n_resamples=n_resamples, seed=seed)
        else:
            notes.append("fewer than 3 rated topics: no correlations")
        meta["raters"] = ratings.raters
        if (rel := rater_reliability(ratings.matrix)) is not None:
            meta["icc"] = rel
        semantics.update({"boot": n_resamples, "seed": seed})
    meta["discrimination_pct"] = {k: discrimination_range(v) for k, v in per_topic.items()}
    if grid:
        # the grids move SD's gamma and SC's threshold: over the listed SD's and SC's embeddings
        meta["gamma_grid"] = [r.as_dict() for r in gamma_grid(batch.centres(grid_embedders[0]), topics,
                                                               rating=rating, rated=rated)]
        meta["threshold_grid"] = [r.as_dict() for r in threshold_grid(batch.vectors(grid_embedders[1]),
                                                                       params=params, rating=rating, rated=rated)]
    extra["meta"] = meta
    all_inputs = {"n_topics": len(topics), "n_keywords": sum(map(len, topics)),
                  **({"n_documents": len(corpus)} if corpus is not None else {}), **(inputs or {})}
    sig = make_signature("topics", batch_fields, metrics=[p.metric for p in planned], semantics=semantics)
    return Result(task="topics", metrics=metrics_out, signature=sig,
                  per_item=rows, inputs=all_inputs, extra=extra, name=name)


# model-level measure -> the per-topic column whose mean it is (the rest are set-level: ranked only)
PER_TOPIC_OF = {"sc": "sc", "sd_avg": "sd", "npmi": "npmi", "c_v": "c_v", "u_mass": "u_mass"}


def _per_topic_column(key: str) -> str | None:
    """The per-topic column of a model-level key as written: ``sd_avg(gamma_overlap=0.5)`` ->
    ``sd(gamma_overlap=0.5)``; None for a set-level measure."""
    spec = MetricSpec(key)
    col = PER_TOPIC_OF.get(spec.name)
    return None if col is None else spec.label(col)


def compare_topic_models(results: Sequence[Result], *, n_resamples: int = 1000, seed: int = 42,
                         alpha: float = 0.05, confidence: float = 0.95) -> dict[str, object]:
    """Several topic models scored alike (:func:`evaluate_topics`, one :class:`Result` each),
    ranked on every measure and compared with the first (the baseline).

    * ``ranking``: per model-level measure, the models best first (direction from the registry),
      each with its value and, for a measure that is a mean over topics (:data:`PER_TOPIC_OF`),
      a percentile bootstrap CI over its topics.
    * ``comparison.rows``: per other model and per-topic measure, the difference of the means
      against the baseline with a bootstrap CI (topics resampled within each model) and a
      two-sided p-value — a paired randomization test over topics when both models have the same
      topic ids, else a two-sample permutation test — corrected with the project's one Holm
      family (:data:`scorekit.stats.compare.HOLM_FAMILY`: per measure, over the models compared
      with the baseline), so a measure's corrected p does not depend on the other measures.

    Returns the one multi-run JSON document (:mod:`scorekit.stats.compare`) with ``ranking`` added."""
    if len(results) < 2:
        raise ScorekitError("comparing topic models needs at least two")
    names = [str(r.name) for r in results]
    if len(set(names)) != len(names):
        raise ScorekitError(f"topic models need distinct names, got {names}")

    def column(r: Result, key: str) -> np.ndarray:
        vals = r.column(key)
        return vals[np.isfinite(vals)]

    ranking: dict[str, list[dict[str, object]]] = {}
    keys = [k for k in results[0].metrics if all(k in r.metrics for r in results)]
    for key in keys:
        info = describe(key, "topics")
        sign = 1 if info is not None and not info.higher_is_better else -1    # best first
        col = _per_topic_column(key)
        entries = []
        for r in results:
            v = r.metrics.get(key)
            e: dict[str, object] = {"model": r.name, "value": v if v is not None and np.isfinite(v) else None}
            if col is not None:
                _, lo, hi = bootstrap_mean_ci(column(r, col), n_resamples=n_resamples,
                                              confidence=confidence, seed=seed)
                e.update(ci_low=_finite(lo), ci_high=_finite(hi))
            entries.append(e)
        ranked = sorted((e for e in entries if e["value"] is not None),
                        key=lambda e: sign * e["value"])
        for e in ranked:   # competition ranking: equal values share a rank
            e["rank"] = 1 + sum(sign * o["value"] < sign * e["value"] for o in ranked)
        ranking[key] = ranked + [e for e in entries if e["value"] is None]

    base = results[0]
    rows: list[dict[str, object]] = []
    rng = np.random.default_rng(seed)
    for r in results[1:]:
        same_topics = [row["id"] for row in r.per_item] == [row["id"] for row in base.per_item]
        for key in keys:
            col = _per_topic_column(key)
            if col is None:
                continue
            if same_topics:   # the same topics under two settings: paired over topics
                a, b = r.column(col), base.column(col)
                ok = np.isfinite(a) & np.isfinite(b)
                a, b = a[ok], b[ok]
                if a.size < 2:
                    continue
                t = paired_test(a, b, "randomization", n_resamples=n_resamples, seed=seed)
                diff, lo, hi = bootstrap_mean_ci(a - b, n_resamples=n_resamples, confidence=confidence, seed=seed)
                test = "paired randomization over topics"
            else:
                a, b = column(r, col), column(base, col)
                if not a.size or not b.size:
                    continue
                t = unpaired_test(a, b, n_resamples=n_resamples, seed=seed)
                diffs = (a[rng.integers(0, a.size, (n_resamples, a.size))].mean(axis=1)
                         - b[rng.integers(0, b.size, (n_resamples, b.size))].mean(axis=1))
                q = (1 - confidence) / 2
                lo, hi = (float(x) for x in np.quantile(diffs, [q, 1 - q]))
                diff = float(a.mean() - b.mean())
                test = "two-sample permutation over topics"
            rows.append(comparison_row(str(r.name), key, float(a.mean()), float(b.mean()), t, test, int(a.size))
                        | {"difference": diff, "ci_low": lo, "ci_high": hi, "n_baseline": int(b.size)})
    correct(rows, alpha)   # the one Holm family: per measure, over the models compared with the baseline
    for r in rows:
        r["improvement_pct"] = _finite(r["improvement_pct"])
    doc = document("topics", [r.to_dict() for r in results], signature=base.signature,
                   comparison=block(base.name, test="randomization", alpha=alpha, rows=rows,
                                    n_shared=min((int(r["n"]) for r in rows), default=0)))
    doc["ranking"] = ranking
    doc["comparison"].update(confidence=confidence, n_resamples=n_resamples, seed=seed,
                             signatures_differ=len({r.signature for r in results}) > 1)
    return doc


__all__ = ["compare_topic_models", "evaluate_topics"]
