"""``scorekit topics``: semantic topic metrics (topic-metrics.md) with optional gensim-exact
coherence over a reference corpus, meta-evaluation against ratings, and several models ranked."""

from __future__ import annotations

from pathlib import Path

import click

from scorekit.cli._common import (MetricsOption, change_pct, emit, engine_options, engine_scope, example,
                                  output_options, print_table, signature_line)
from scorekit.cli._types import SEED, count, resamples
from scorekit.errors import InputError, ScorekitError


def _nullable(x):
    return None if x is None or (isinstance(x, float) and x != x) else x


@click.command("topics",
               epilog=example("scorekit topics --topics topics.json --corpus corpus.txt --ratings ratings.csv \\",
                              "    --report topics.html",
                              "scorekit topics --topics lda=lda.json --topics ctm=ctm.json --corpus corpus.txt -o cmp.json",
                              "scorekit topics --topics topics.json --corpus corpus.txt \\",
                              "    -m \"sc(threshold_edge=0.2),sd,cd,semdiv,overall(sis=0.75),coherence,topic_diversity(topk=5)\"",
                              "scorekit topics --topics topics_ko.json -m \"sc(model=DIR,num_layers=4),sd(model=DIR),cd\"",
                              heading="Examples:"))
@click.option("--topics", "topics_paths", required=True, multiple=True, metavar="[NAME=]FILE",
              help="Topics JSON: a list of keyword lists, or {name: [keywords]}. Repeat it to rank several "
                   "topic models (NAME=FILE names one; default: the file name).")
@click.option("--ratings", "ratings_path", type=click.Path(path_type=Path),
              help="Ratings CSV (topic,rater1,rater2,... or topic,rater,score) for the meta-evaluation.")
@click.option("--corpus", "corpus_path", type=click.Path(path_type=Path),
              help="Reference corpus, one document per line: adds npmi, c_v, u_mass, topic_diversity.")
@click.option("--allow-english-model", is_flag=True,
              help="Embed Korean keywords with a model that cannot read Hangul (refused by default; "
                   "the model is each measure's: -m \"sc(model=DIR)\").")
@click.option("--tokenizer", type=click.Choice(["auto", "kiwi", "regex", "whitespace"]), default="auto",
              show_default=True, help="How the corpus is tokenised (auto: Kiwi for Hangul, else \\w+ lower-cased).")
@click.option("--metrics", "-m", default=None, cls=MetricsOption, family="topics",
              lead="Comma-separated measures, parameters in parentheses, keyed as written: "
                   "\"sc(threshold_edge=0.2),sd(gamma_overlap=0.5),cd,semdiv,overall(sis=0.75)\" (default: "
                   "sc,sd,cd,semdiv,overall; with --corpus also coherence,topic_diversity). SemDiv and Overall "
                   "are derived with their own parameters (overall(threshold_edge=0.2) too). The keyword "
                   "embedder is a parameter of sc, sd, semdiv and overall: sc(model=DIR,num_layers=4) "
                   "(default: the shipped all-MiniLM-L6-v2), embedded once per model and layer.")
@click.option("--grid", is_flag=True,
              help="Also run the spec's grid searches (gamma 0.5..0.9, threshold_edge 0.20..0.40).")
@click.option("--pairs", "max_pairs", type=count(0), default=10, show_default=True,
              help="Print at most this many topic pairs (the least distinct first).")
@click.option("--bootstrap", "n_resamples", type=resamples(1), default=1000, show_default=True,
              help="Bootstrap resamples for the correlation CIs.")
@click.option("--seed", type=SEED, default=42, show_default=True,
              help="Seed of the bootstrap resampling.")
@engine_options
@output_options
def command(topics_paths, ratings_path, corpus_path, allow_english_model, tokenizer, metrics,
            grid, max_pairs, n_resamples, seed, engine, address, output, fmt, quiet):
    """Semantic coherence, distinctiveness and diversity of a topic set (and NPMI/C_V/UMass).

    With several --topics, every model is scored alike, ranked on every measure (with bootstrap
    CIs over its topics) and compared with the first: per-topic measures get a difference with its
    CI and a p-value (paired over topics when the models share topic ids, else a two-sample
    permutation test), Holm-corrected per measure over the models compared with the first.
    """
    from scorekit.engine.driver import plan
    from scorekit.io.topics import read_corpus, read_ratings, read_topics
    from scorekit.metrics.registry import split_specs
    from scorekit.topics.coherence import KeywordsNotInCorpus
    from scorekit.topics.evaluate import compare_topic_models, evaluate_topics

    specs = split_specs(metrics) if metrics else None
    if specs is not None:
        plan("topics", specs)   # a misspelt measure or parameter: one line, before any file is read
    models: list[tuple[str, Path]] = []   # --topics [NAME=]FILE: names must be distinct
    for spec in topics_paths:
        name, eq, rest = spec.partition("=")
        if eq and name and not Path(spec).exists():
            if not rest:
                raise ScorekitError(f"--topics {spec}: expected NAME=FILE")
            path = Path(rest)
        else:
            name, path = Path(spec).stem, Path(spec)
        if any(name == n for n, _ in models):
            raise ScorekitError(f"--topics: two topic models are named {name!r}; name them with NAME=FILE")
        models.append((name, path))
    if len(models) > 1 and ratings_path:
        raise ScorekitError("--ratings rates the topics of one model: give it with a single --topics")
    topic_sets = [(name, path, read_topics(path)) for name, path in models]
    ratings = read_ratings(ratings_path, topic_sets[0][2]) if ratings_path else None
    corpus = read_corpus(corpus_path) if corpus_path else None
    results = []
    with engine_scope(engine, address, quiet) as eng:
        for name, path, topic_set in topic_sets:
            inputs = {k: str(v) for k, v in (("topics", path), ("ratings", ratings_path),
                                             ("corpus", corpus_path)) if v}
            try:
                results.append(evaluate_topics(topic_set.topics, names=topic_set.names, metrics=specs,
                                               corpus=corpus, tokenizer=tokenizer, ratings=ratings, grid=grid,
                                               n_resamples=n_resamples, seed=seed, name=name, inputs=inputs,
                                               allow_english_model=allow_english_model, engine=eng))
            except KeywordsNotInCorpus as exc:
                raise InputError(f"{exc}, from {path}", corpus_path) from None
    if len(results) == 1:
        if not quiet:
            _print(results[0], fmt, max_pairs)
        return emit(results[0], output=output, fmt=fmt, quiet=quiet)
    doc = compare_topic_models(results, n_resamples=n_resamples, seed=seed)
    if not quiet:
        _print_models(doc, fmt)
    emit(results, output=output, fmt=fmt, quiet=quiet, payload=doc)


def _print_models(doc: dict, fmt: str) -> None:
    """Several topic models: every measure ranked, then the comparison with the first."""
    models = [r["name"] for r in doc["runs"]]

    def cell(e: dict):
        if e["value"] is None or fmt == "csv":
            return "–" if e["value"] is None else e["value"]
        ci = f" [{e['ci_low']:.4f}, {e['ci_high']:.4f}]" if e.get("ci_low") is not None else ""
        return f"{e['value']:.4f}{ci} #{e['rank']}"

    rows = []
    for key, entries in doc["ranking"].items():
        by = {e["model"]: e for e in entries}
        rows.append([key, entries[0]["model"] if entries and entries[0].get("rank") else "–",
                     *(cell(by[m]) for m in models)])
    print_table(["measure", "best"] + models, rows, fmt,
                title=f"{len(models)} topic models ranked on every measure (#rank; 95% bootstrap CI over topics)")
    comp = doc["comparison"]
    if comp["rows"]:
        crows = [[r["system"], r["measure"], r["baseline_value"], r["value"],
                  r["improvement_pct"] if fmt == "csv" else change_pct(r["improvement_pct"]),
                  f"[{r['ci_low']:+.4f}, {r['ci_high']:+.4f}]" if fmt != "csv" else r["ci_low"],
                  r["p_value"], r["p_adjusted"], "*" if r["significant"] else "", r["test"]]
                 for r in comp["rows"]]
        print_table(["model", "measure", f"baseline ({comp['baseline']})", "value", "change", "95% CI of difference",
                     "p", "p (Holm)", "sig.", "test"], crows, fmt,
                    title=f"Compared with {comp['baseline']} (per-topic measures; α={comp['alpha']})")
    if comp.get("signatures_differ") and fmt in ("table", "markdown"):
        click.echo("note: the models' signatures differ")
    signature_line(doc["signature"], fmt)


def _print(result, fmt: str, max_pairs: int) -> None:
    m = result.metrics
    print_table(["metric", "value"], [[k, _nullable(v)] for k, v in m.items()], fmt, title="Topic metrics")
    lists = ("id", "keywords", "pagerank", "cos_to_topic")   # the per-topic columns, keyed as written
    cols = list(dict.fromkeys(k for r in result.per_item for k in r if k not in lists))
    rows = [[r["id"], ", ".join(r["keywords"][:3]) + (", …" if len(r["keywords"]) > 3 else "")]
            + [_nullable(r.get(c)) for c in cols] for r in result.per_item]
    print_table(["topic", "keywords"] + cols, rows, fmt, title="Per topic (sd = mean SD to the other topics)")
    pairs = result.extra["pairs"][:max_pairs] if max_pairs > 0 else []
    if pairs:
        title = f"Topic pairs, least distinct first ({len(pairs)} of {result.extra['n_pairs']})"
        print_table(["topic a", "topic b", "SD", "cos(e_Ta, e_Tb)", "OH"],
                    [[p["a"], p["b"], p["sd"], p["cos"], p["oh"]] for p in pairs], fmt, title=title)
    meta = result.extra.get("meta", {})
    if meta.get("correlations"):
        print_table(["metric", "method", "statistic", "ci low", "ci high", "p", "n"],
                    [[c["metric"], c["method"], _nullable(c["statistic"]), _nullable(c["low"]),
                      _nullable(c["high"]), _nullable(c["p_value"]), c["n"]] for c in meta["correlations"]],
                    fmt, title="Correlation with the mean rating (95% bootstrap CI)")
    if meta.get("icc"):
        print_table(["form", "ICC"], [[k, _nullable(v)] for k, v in meta["icc"].items()], fmt,
                    title=f"Rater reliability ({len(meta['raters'])} raters; Shrout-Fleiss)")
    if "gamma_grid" in meta:
        has_r = any(r["r"] is not None for r in meta["gamma_grid"])
        print_table(["gamma", "r (LLM/human)" if has_r else "r", "VD", "discrimination %", "selected"],
                    [[r["value"], _nullable(r["r"]), r["mean"], _nullable(r["discrimination_pct"]),
                      "✓" if r["selected"] else ""] for r in meta["gamma_grid"]],
                    fmt, title="gamma_direct grid search (spec §5)")
        print_table(["threshold_edge", "discrimination %", "mean SC", "r", "selected"],
                    [[r["value"], _nullable(r["discrimination_pct"]), r["mean"], _nullable(r["r"]),
                      "✓ optimal" if r["selected"] else ""] for r in meta["threshold_grid"]],
                    fmt, title="threshold_edge grid search (spec §5; discrimination = 100*(max-min) of per-topic SC)")
    if fmt in ("table", "markdown"):
        for note in result.extra.get("notes", []):
            click.echo(f"note: {note}")
    signature_line(result.signature, fmt)
