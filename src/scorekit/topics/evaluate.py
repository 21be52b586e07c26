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
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.topics.semantic import SemanticParams, score_embeddings
from scorekit.topics.validate import validate_topics

CORPUS_MEASURES = {"npmi": "c_npmi", "c_v": "c_v", "u_mass": "u_mass"}
MAX_PAIRS_KEPT = 5000



def _undefined_coherence_notes(names, per_topic, metrics) -> list[str]:
    """Say exactly which corpus measures a topic lacks (a topic with one keyword in the corpus has
    no word pair: npmi and u_mass are null, while c_v compares the word with its own set and is
    1.0, as gensim computes it) and what that does to the model-level means."""
    notes = []
    for i, name in enumerate(names):
        missing = [k for k in CORPUS_MEASURES if not np.isfinite(per_topic[k][i])]
        if not missing:
            continue
        kept = [f"{k} = {per_topic[k][i]:.4g}" for k in CORPUS_MEASURES if k not in missing]
        also = f"; {', '.join(kept)} (kept, and in the model's mean)" if kept else ""
        notes.append(f"topic {name!r}: fewer than two keywords in the corpus, so {'/'.join(missing)} "
                     f"{'is' if len(missing) == 1 else 'are'} null{also}")
    nulls = [k for k in CORPUS_MEASURES if metrics.get(k) is None or not np.isfinite(metrics[k])]
    if nulls:
        notes.append(f"model {'/'.join(nulls)} null: the mean over topics is undefined when a topic has "
                     "none (gensim's mean is NaN)")
    return notes

def evaluate_topics(topics: Sequence[Sequence[str]], *, names: Sequence[str] | None = None,
                    word_vectors: Sequence[np.ndarray] | None = None, model: str | None = None,
                    embedder=None, params: SemanticParams = SemanticParams(), sis: float | None = None,
                    corpus: Sequence[str] | None = None, tokenizer: str = "auto", topn: int | None = 20,
                    topk: int | None = 10, ratings=None, grid: bool = False, n_resamples: int = 1000,
                    seed: int = 42, name: str | None = None, inputs: dict | None = None,
                    num_layers: int | None = None, allow_english_model: bool = False) -> Result:
    """Score ``topics`` (keyword lists). Embeddings come from ``word_vectors`` (one ``(|W|, d)``
    matrix per topic) or are computed with all-MiniLM-L6-v2 (``model`` overrides the folder).
    ``ratings`` is a :class:`scorekit.io.topics.Ratings` for the meta-evaluation."""
    names = list(names) if names is not None else [f"t{i + 1}" for i in range(len(topics))]
    topics = validate_topics(topics, names)
    if sis is not None and not np.isfinite(sis):
        raise ScorekitError(f"SIS must be a finite number, got {sis}")
    from scorekit.text.normalize import SIGNATURE as NORM

    sig: dict[str, object] = {"norm": NORM}
    if word_vectors is None:
        from scorekit.topics.embed import KeywordEmbedder

        embedder = embedder or KeywordEmbedder(model, num_layers=num_layers,
                                               allow_english_model=allow_english_model)
        word_vectors = embedder.topic_vectors(topics)
        sig.update(embedder.signature_params())
    else:
        if len(word_vectors) != len(topics):
            raise ScorekitError("one embedding matrix per topic expected")
        sig["model"] = "given-vectors"
    sig.update(params.signature_params())
    sig["sis"] = "none" if sis is None else sis

    lowest = min(MAX_PAIRS_KEPT, len(topics) * (len(topics) - 1) // 2)
    sem = score_embeddings(topics, word_vectors, params=params, sis=sis, lowest_pairs=lowest)
    metrics: dict[str, float] = dict(sem.metrics)
    notes = list(sem.notes)
    coh = sem.coherence
    per_topic: dict[str, np.ndarray] = {"sc": coh.sc, "sd": sem.distinctiveness.per_topic}

    if corpus is not None:
        from scorekit.topics.coherence import coherence, tokenize_corpus, topic_diversity

        texts = tokenize_corpus(corpus, tokenizer)
        lowered = [[w.lower() for w in t] for t in topics] if tokenizer in ("auto", "regex", "kiwi") else topics
        dropped_all: dict[int, list[str]] = {}
        for key, measure in CORPUS_MEASURES.items():
            res = coherence(lowered, texts, measure, topn=topn, names=names)
            metrics[key] = res.score
            per_topic[key] = res.per_topic
            dropped_all.update(res.dropped)
        metrics["topic_diversity"] = topic_diversity(topics, topk)
        sig.update({"corpus_tok": tokenizer, "windows": "c_v=110,npmi=10", "topn": topn, "td_topk": topk})
        for i, words in sorted(dropped_all.items()):
            kw = "keyword" if len(words) == 1 else "keywords"
            notes.append(f"topic {names[i]!r}: {kw} {', '.join(words)} not in the reference corpus, "
                         "left out of npmi/c_v/u_mass (as gensim does)")
        notes += _undefined_coherence_notes(names, per_topic, metrics)

    rows = []
    for i, words in enumerate(topics):
        row: dict[str, object] = {"id": names[i], "keywords": words}
        for key, vals in per_topic.items():
            row[key] = float(vals[i])
        row["pagerank"] = [float(x) for x in coh.weights[i]]
        row["cos_to_topic"] = [float(x) for x in coh.cosines[i]]
        rows.append(row)

    extra: dict[str, object] = {
        "pairs": [{"a": names[i], "b": names[j], "sd": s, "cos": c, "oh": o}
                  for i, j, s, c, o in sem.distinctiveness.lowest],
        "n_pairs": sem.distinctiveness.n_pairs,
        "params": asdict(params),
        "sis": sis,
        "notes": notes,
    }
    if sem.distinctiveness.n_pairs > len(extra["pairs"]):
        notes.append(f"pairs: the {len(extra['pairs'])} least distinct of {sem.distinctiveness.n_pairs} kept")

    meta: dict[str, object] = {}
    rating = rated = None
    if ratings is not None:
        from scorekit.topics.meta import correlate_metrics, rater_reliability

        rated, rating = ratings.topic_index, ratings.mean
        for k, t in enumerate(rated):
            rows[t]["rating"] = float(rating[k])
        if len(rated) >= 3:
            meta["correlations"] = correlate_metrics(per_topic, rating, rated, n_resamples=n_resamples, seed=seed)
        else:
            notes.append("fewer than 3 rated topics: no correlations")
        meta["raters"] = ratings.raters
        rel = rater_reliability(ratings.matrix)
        if rel is not None:
            meta["icc"] = rel
        sig.update({"boot": n_resamples, "seed": seed})
    from scorekit.topics.meta import discrimination_range, gamma_grid, threshold_grid

    meta["discrimination_pct"] = {k: discrimination_range(v) for k, v in per_topic.items()}
    if grid:
        meta["gamma_grid"] = [r.as_dict() for r in gamma_grid(coh.topic_vectors, topics, rating=rating, rated=rated)]
        meta["threshold_grid"] = [r.as_dict() for r in threshold_grid(word_vectors, params=params,
                                                                       rating=rating, rated=rated)]
    extra["meta"] = meta
    all_inputs = {"n_topics": len(topics), "n_keywords": sum(map(len, topics))}
    if corpus is not None:
        all_inputs["n_documents"] = len(corpus)
    all_inputs.update(inputs or {})
    return Result(task="topics", metrics=metrics, signature=make_signature("topics", sig),
                  per_item=rows, inputs=all_inputs, extra=extra, name=name)


__all__ = ["evaluate_topics"]
