"""Metrics for n-word summaries (nword-summarization.md: Phase 1 Metrics, Phase 2 Metrics).

Per summary (one prediction, its reference(s), optionally its source document):

* ``rouge1``, ``rouge2``: ROUGE-N F-measure, rouge-score semantics (:mod:`scorekit.generation.rouge`;
  Korean via Kiwi). ``rouge1_r``, ``rouge2_r``: the recall, which is the spec's own formula
  ("n-gram overlap / reference n-grams"). The spec's experiments ran HF ``evaluate``'s ROUGE,
  whose headline number is the F-measure, hence F first.
* ``bertscore_f1``: BERTScore F1 (:class:`scorekit.neural.bertscore.BERTScorer`).
* ``efficiency = bertscore_f1 / max(1, len(pred.split()))`` — the spec's code (Phase 2 §4).
* ``density = |set(pred) ∩ set(source)| / |pred|`` — the spec's ``compute_density`` exactly:
  a count of *distinct* shared tokens divided by the *token* count of the prediction, so a
  summary that repeats a source word scores below 1 ("the the the" vs "the": 1/3).
* ``token_density = |{t in pred : t in source}| / |pred|`` — the fraction of prediction tokens
  (with repetition) found in the source, what the spec's prose describes ("11 of 12 words").
* ``words``: ``len(pred.split())``.

Both densities are 0 for an empty prediction (as the spec's code). The spec leaves its
``simple_tokenize`` undefined; here it is lower-cased ``\\w+`` runs (Unicode letters and digits),
and Kiwi morphemes without particles or punctuation for Korean, so ``학교에``/``학교는`` match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import MissingDependencyError, ScorekitError
from scorekit.generation import rouge as R
from scorekit.text.korean import has_hangul
from scorekit.text.normalize import nfc

ROUGE_KINDS = ("rouge1", "rouge2")
_WORD_RE = re.compile(r"\w+")


# --------------------------------------------------------------------------- single-item formulas

def simple_tokenize(text: str, *, korean: bool | None = None) -> list[str]:
    """Tokens for Density: lower-cased ``\\w+`` runs; Kiwi morphs (no particles) for Korean."""
    text = nfc(text)
    if korean is None:
        korean = has_hangul(text)
    if korean:
        return R.rouge_tokenize(text, lang="ko")
    return _WORD_RE.findall(text.lower())


def density_from_tokens(pred_tokens: Sequence[str], source_set: set | frozenset) -> float:
    if not pred_tokens:
        return 0.0
    return len(set(pred_tokens) & source_set) / len(pred_tokens)


def token_density_from_tokens(pred_tokens: Sequence[str], source_set: set | frozenset) -> float:
    if not pred_tokens:
        return 0.0
    return sum(1 for t in pred_tokens if t in source_set) / len(pred_tokens)


def density(pred: str, source: str) -> float:
    """Spec's ``compute_density``: distinct shared tokens / prediction token count."""
    korean = has_hangul(pred) or has_hangul(source)
    return density_from_tokens(simple_tokenize(pred, korean=korean),
                               set(simple_tokenize(source, korean=korean)))


def token_density(pred: str, source: str) -> float:
    """Fraction of prediction tokens (with repetition) that occur in the source."""
    korean = has_hangul(pred) or has_hangul(source)
    return token_density_from_tokens(simple_tokenize(pred, korean=korean),
                                      set(simple_tokenize(source, korean=korean)))


def efficiency(bertscore_f1: float, pred: str) -> float:
    """Spec: ``bertscore_f1 / max(1, len(pred.split()))`` — semantic quality per summary word."""
    return bertscore_f1 / max(1, len(pred.split()))


# --------------------------------------------------------------------------- batch scoring

@dataclass
class DocContext:
    """What every summary of one document is scored against, prepared once (the sweep scores
    each document at many n)."""

    references: list[str]
    korean: bool
    refs: list[R.PreparedReference]
    source_set: frozenset | None = None


def prepare_contexts(references: Sequence[str | Sequence[str]], sources: Sequence[str] | None = None,
                     *, lang: str = "en", stem: bool = False) -> list[DocContext]:
    refs = [[nfc(r)] if isinstance(r, str) else [nfc(x) for x in r] for r in references]
    if sources is not None and len(sources) != len(refs):
        raise ScorekitError(f"{len(sources)} sources but {len(refs)} references")
    srcs = [nfc(s) for s in sources] if sources is not None else None
    flags = [lang == "ko" or any(has_hangul(x) for x in rs) or bool(srcs and has_hangul(srcs[i]))
             for i, rs in enumerate(refs)]
    flat = [x for rs in refs for x in rs]
    flat_flags = [f for f, rs in zip(flags, refs) for _ in rs]
    toks = R.rouge_tokenize_batch(flat, stem=stem, korean=flat_flags)
    src_toks = None
    if srcs is not None:
        ko_src = R.rouge_tokenize_batch([s for s, f in zip(srcs, flags) if f], korean=[True] * sum(flags))
        it = iter(ko_src)
        src_toks = [next(it) if f else _WORD_RE.findall(s.lower()) for s, f in zip(srcs, flags)]
    out, start = [], 0
    for i, rs in enumerate(refs):
        prepared = [R.PreparedReference(t) for t in toks[start:start + len(rs)]]
        start += len(rs)
        out.append(DocContext(rs, flags[i], prepared,
                              frozenset(src_toks[i]) if src_toks is not None else None))
    return out


def load_bertscorer(required: bool, **kwargs):
    """The shared BERTScorer, or None when it cannot be loaded and ``required`` is False."""
    try:
        from scorekit.neural.bertscore import BERTScorer
    except ImportError as exc:
        if required:
            raise MissingDependencyError(
                f"BERTScore needs scorekit.neural.bertscore with torch and transformers ({exc}); "
                "install torch and transformers or run without BERTScore (--no-bertscore)") from exc
        return None
    try:
        return BERTScorer(**kwargs)
    except MissingDependencyError:
        if required:
            raise
        return None


def score_predictions(predictions: Sequence[str], contexts: Sequence[DocContext], *,
                      bertscorer=None, stem: bool = False) -> dict[str, np.ndarray]:
    """Per-item metrics of ``predictions[i]`` against ``contexts[i]`` (see module docstring)."""
    if len(predictions) != len(contexts):
        raise ScorekitError(f"{len(predictions)} predictions but {len(contexts)} references")
    preds = [nfc(p) for p in predictions]
    flags = [c.korean or has_hangul(p) for p, c in zip(preds, contexts)]
    toks = R.rouge_tokenize_batch(preds, stem=stem, korean=flags)
    n = len(preds)
    out: dict[str, np.ndarray] = {}
    for kind in ROUGE_KINDS:
        out[kind] = np.zeros(n)
        out[kind + "_r"] = np.zeros(n)
    for i, (t, c) in enumerate(zip(toks, contexts)):
        res = R.rouge_multi(t, c.refs, ROUGE_KINDS)
        for kind in ROUGE_KINDS:
            out[kind][i] = res[kind].fmeasure
            out[kind + "_r"][i] = res[kind].recall
    n_words = np.array([len(p.split()) for p in preds], dtype=np.float64)
    if bertscorer is not None:
        refs = [c.references if len(c.references) > 1 else c.references[0] for c in contexts]
        f1 = np.asarray(bertscorer.score(preds, refs).f1, dtype=np.float64)
        out["bertscore_f1"] = f1
        out["efficiency"] = f1 / np.maximum(1.0, n_words)
    if all(c.source_set is not None for c in contexts) and contexts:
        # Density tokens: Kiwi morphs for Korean (already computed when not stemming), \w+ else.
        dtoks = [t if (f and not stem) else simple_tokenize(p, korean=f)
                 for p, t, f in zip(preds, toks, flags)]
        out["density"] = np.array([density_from_tokens(t, c.source_set) for t, c in zip(dtoks, contexts)])
        out["token_density"] = np.array([token_density_from_tokens(t, c.source_set)
                                         for t, c in zip(dtoks, contexts)])
    out["words"] = n_words
    return out


def bertscore_signature(bertscorer) -> str:
    """What pins a BERTScorer's numbers, as one signature value: model, layer, idf, rescaling,
    padding/matching mode, truncation and dtype (:func:`scorekit.neural.bertscore.compact_signature`
    over the scorer's one builder, ``signature_fields``)."""
    fields = getattr(bertscorer, "signature_fields", None)
    if callable(fields):
        from scorekit.neural.bertscore import compact_signature

        return compact_signature(fields())
    name = getattr(bertscorer, "name", None) or type(bertscorer).__name__
    parts = [str(name)]
    if getattr(bertscorer, "num_layers", None) is not None:
        parts.append(f"L{bertscorer.num_layers}")
    if getattr(bertscorer, "idf", False):
        parts.append("idf")
    if getattr(bertscorer, "rescale", False):
        parts.append("rescaled")
    return "/".join(parts)


def text_metrics(names: Sequence[str], predictions: Sequence[str], references: Sequence[Sequence[str]],
                 lang: str) -> tuple[dict[str, float], dict[str, np.ndarray], dict[str, object]]:
    """Any registered caption metric (chrF, BLEU, METEOR, CIDEr, ...) on summaries: (corpus
    scores, per-item values, signature fields), through the caption driver's resolution."""
    from scorekit.generation.batch import CaptionBatch
    from scorekit.generation.driver import resolve

    batch = CaptionBatch(predictions, references, lang)
    corpus: dict[str, float] = {}
    per: dict[str, np.ndarray] = {}
    sig: dict[str, object] = {}
    for cls, keys in resolve(names):
        metric = cls(lang=lang)
        stats = metric.item_stats(batch)
        c, p = metric.score(stats), metric.item_scores(stats)
        for k in keys:
            corpus[k], per[k] = c[k], p[k]
        sig.update(metric.signature_params())
    return corpus, per, sig


def summary_metrics(predictions: Sequence[str], references: Sequence[str | Sequence[str]],
                    sources: Sequence[str] | None = None, *, ids: Sequence[str] | None = None,
                    bertscorer="auto", lang: str = "en", stem: bool = False, name: str | None = None,
                    metrics: Sequence[str] | None = None):
    """Score given summaries: a :class:`scorekit.result.Result` whose metrics are the means.

    ``bertscorer``: ``"auto"`` (default, as the CLI) loads the default BERTScorer when torch and
    the model are available and adds BERTScore F1 and Efficiency; a scorer uses it; None skips
    them. ``metrics``: extra registered text metrics (``["chrf", "chrf_pp"]``), corpus metrics
    scored on their merged statistics."""
    from scorekit.result import Result
    from scorekit.signature import make_signature

    if len(predictions) != len(references):
        raise ScorekitError(f"{len(predictions)} predictions but {len(references)} references")
    if isinstance(bertscorer, str):
        if bertscorer != "auto":
            raise ScorekitError(f"bertscorer must be a BERTScorer, None or 'auto', got {bertscorer!r}")
        bertscorer = load_bertscorer(required=False)
    contexts = prepare_contexts(references, sources, lang=lang, stem=stem)
    per = score_predictions(predictions, contexts, bertscorer=bertscorer, stem=stem)
    ids = list(ids) if ids is not None else [str(i + 1) for i in range(len(predictions))]
    metrics_out = {k: float(np.mean(v)) if len(v) else float("nan") for k, v in per.items()}
    extra_sig: dict[str, object] = {}
    if metrics:
        refs = [[r] if isinstance(r, str) else list(r) for r in references]
        corpus, extra_per, extra_sig = text_metrics(metrics, predictions, refs, lang)
        metrics_out.update(corpus)
        per.update(extra_per)
    per_item = [{"id": ids[i], **{k: float(v[i]) for k, v in per.items()}} for i in range(len(ids))]
    from scorekit.text.normalize import SIGNATURE as NORM

    params = {"norm": NORM, **R.rouge_signature_params(ROUGE_KINDS, lang, stem),
              "bertscore": bertscore_signature(bertscorer) if bertscorer is not None else "no",
              "density_tok": "w+lower/kiwi" if sources is not None else "none", **extra_sig}
    return Result(task="summary", metrics=metrics_out, signature=make_signature("summary", params),
                  per_item=per_item, inputs={"n_items": len(ids)}, name=name)
