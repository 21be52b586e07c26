"""Metrics for n-word summaries (nword-summarization.md: Phase 1 Metrics, Phase 2 Metrics).

Per summary (one prediction, its reference(s), optionally its source document):

* ``rouge1``, ``rouge2``: ROUGE-N F-measure, rouge-score semantics (:mod:`scorekit.generation.rouge`;
  Korean via Kiwi). ``rouge1_r``, ``rouge2_r``: the recall, which is the spec's own formula
  ("n-gram overlap / reference n-grams"). The spec's experiments ran HF ``evaluate``'s ROUGE,
  whose headline number is the F-measure, hence F first.
* ``bertscore_f1``: BERTScore F1 (the one BERTScore declaration,
  :class:`scorekit.generation.model_metrics.BERTScore`).
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
from dataclasses import dataclass, field

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.generation import rouge as R
from scorekit.generation.batch import CaptionBatch, CaptionMetric
from scorekit.generation.model_metrics import BERTScore
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import REGISTRY, MetricSpec, register
from scorekit.text.korean import has_hangul
from scorekit.text.normalize import nfc

ROUGE_KINDS = ("rouge1", "rouge2")


def tokens_pin() -> dict:
    """The summary metrics' tokens: rouge-score's tokenizer, Kiwi's (by version) for Korean text."""
    from scorekit.text.korean import analyser_version

    return {"tok": "rouge-score", "ko": f"kiwi-{analyser_version()}"}


_WORD_RE = re.compile(r"\w+")


def simple_tokenize(text: str, *, korean: bool) -> list[str]:
    """Tokens for Density: lower-cased ``\\w+`` runs; Kiwi morphs (no particles) for Korean."""
    text = nfc(text)
    return R.rouge_tokenize(text, lang="ko") if korean else _WORD_RE.findall(text.lower())


def _densities(pred_tokens: Sequence[str], source_set: set | frozenset) -> tuple[float, float]:
    """(density, token_density) of a prediction's tokens against the source's token set."""
    if not pred_tokens:
        return 0.0, 0.0
    return (len(set(pred_tokens) & source_set) / len(pred_tokens),
            sum(t in source_set for t in pred_tokens) / len(pred_tokens))


def _density_tokens(pred: str, source: str) -> tuple[list[str], set]:
    korean = has_hangul(pred) or has_hangul(source)
    return simple_tokenize(pred, korean=korean), set(simple_tokenize(source, korean=korean))


def density(pred: str, source: str) -> float:
    """Spec's ``compute_density``: distinct shared tokens / prediction token count."""
    return _densities(*_density_tokens(pred, source))[0]


def token_density(pred: str, source: str) -> float:
    """Fraction of prediction tokens (with repetition) that occur in the source."""
    return _densities(*_density_tokens(pred, source))[1]


def efficiency(bertscore_f1: float, pred: str) -> float:
    """Spec: ``bertscore_f1 / max(1, len(pred.split()))`` — semantic quality per summary word."""
    return bertscore_f1 / max(1, len(pred.split()))


@dataclass
class DocContext:
    """What every summary of one document is scored against, prepared once (for every n)."""

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
    it = iter(toks)
    return [DocContext(rs, flags[i], [R.PreparedReference(next(it)) for _ in rs],
                       frozenset(src_toks[i]) if src_toks is not None else None)
            for i, rs in enumerate(refs)]


def score_predictions(predictions: Sequence[str], contexts: Sequence[DocContext], *,
                      bertscorer=None, stem: bool = False, metrics: Sequence | None = None
                      ) -> dict[str, np.ndarray]:
    """Per-item metrics of ``predictions[i]`` against ``contexts[i]`` (prepared once, e.g. for
    every n of the sweep): the item statistics of ``metrics`` (built summary metrics; default
    :func:`default_scoring` with ``bertscorer``) on one :class:`SummaryBatch`."""
    if len(predictions) != len(contexts):
        raise ScorekitError(f"{len(predictions)} predictions but {len(contexts)} references")
    batch = SummaryBatch(list(predictions), [c.references for c in contexts], "en", None, stem=stem,
                         contexts=list(contexts))
    if metrics is None:
        metrics = default_scoring(bertscorer, bool(contexts) and all(c.source_set is not None for c in contexts))
    return {k: v for m in metrics for k, v in m.item_stats(batch).columns.items()}


def default_scoring(bertscorer=None, sources: bool = True) -> list:
    """:class:`SummaryRouge`, :class:`SummaryBERTScore` and :class:`SummaryEfficiency` with
    ``bertscorer`` (a loaded scorer), :class:`SummaryDensity` with ``sources``, :class:`SummaryWords`."""
    metrics = [SummaryRouge()]
    if bertscorer is not None:
        metrics += [SummaryBERTScore().use(bertscorer), SummaryEfficiency().use(bertscorer)]
    return metrics + [SummaryDensity()] * sources + [SummaryWords()]


@dataclass
class SummaryBatch(CaptionBatch):
    """Summaries to score: a :class:`CaptionBatch` (so every caption metric — chrF, BLEU,
    METEOR — scores it as it is) plus the source documents (Density) and ROUGE's stemming; the
    reference tokens and source token sets are prepared once, shared by the summary metrics."""

    sources: list[str] | None = None
    stem: bool = False
    contexts: list | None = field(default=None, repr=False)   # prepared already (the sweep's)
    _prepared: dict | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sources is not None:
            self.sources = list(self.sources)
            if len(self.sources) != len(self.predictions):
                raise ScorekitError(f"{len(self.sources)} sources but {len(self.predictions)} predictions")

    def _sliced(self, a: int, b: int) -> dict:
        return {**super()._sliced(a, b), "sources": None if self.sources is None else self.sources[a:b],
                "contexts": None if self.contexts is None else self.contexts[a:b], "_prepared": None}

    def prepared(self) -> dict:
        """``contexts``, NFC ``preds``, Korean ``flags`` and ROUGE ``tokens``, computed once."""
        if self._prepared is None:
            contexts = self.contexts or prepare_contexts(self.references, self.sources, lang=self.lang,
                                                         stem=self.stem)
            preds = [nfc(p) for p in self.predictions]
            flags = [c.korean or has_hangul(p) for p, c in zip(preds, contexts)]
            toks = R.rouge_tokenize_batch(preds, stem=self.stem, korean=flags)
            self._prepared = {"contexts": contexts, "preds": preds, "flags": flags, "tokens": toks}
        return self._prepared


class SummaryMetric(CaptionMetric):
    """Base of the summary family's own metrics: per-summary values, the corpus value their mean."""

    family = "summary"

    def batch(self, batch) -> SummaryBatch:
        if isinstance(batch, SummaryBatch):
            return batch
        if isinstance(batch, CaptionBatch):
            return SummaryBatch(batch.predictions, batch.references, batch.lang)
        try:
            predictions, references = batch
        except (TypeError, ValueError):
            raise ScorekitError(f"{self.name}: a batch is a SummaryBatch or a (predictions, references) pair") from None
        return SummaryBatch(predictions, references, self.values["lang"])


@register
class SummaryRouge(SummaryMetric):
    """ROUGE-1 and ROUGE-2 F-measure and recall (rouge-score semantics; Korean via Kiwi), the best
    reference per summary."""

    name = "rouge"
    keys = ("rouge1", "rouge1_r", "rouge2", "rouge2_r")
    params = CaptionMetric.params + (
        Param("use_stemmer", bool, False, "Porter-stem English tokens as rouge-score (Korean: Kiwi lemmas); "
                                          "the batch's --stem stems too"),)
    key_info = {"rouge1": {"doc": "ROUGE-1 F-measure (rouge-score semantics; Korean via Kiwi)."},
                "rouge2": {"doc": "ROUGE-2 F-measure (rouge-score semantics; Korean via Kiwi)."},
                "rouge1_r": {"doc": "ROUGE-1 recall: overlapping unigrams / reference unigrams (the spec's formula)."},
                "rouge2_r": {"doc": "ROUGE-2 recall: overlapping bigrams / reference bigrams (the spec's formula)."}}

    def _tokens(self, b: "SummaryBatch") -> tuple[list, list]:
        """Prediction tokens and prepared references: the batch's own, or stemmed ones kept beside
        them when ``use_stemmer`` stems a batch that does not (same Korean choice per document)."""
        prep = b.prepared()
        if not self.values["use_stemmer"] or b.stem:
            return prep["tokens"], [c.refs for c in prep["contexts"]]
        if "rouge_stemmed" not in prep:
            ctx = prep["contexts"]
            toks = iter(R.rouge_tokenize_batch([r for c in ctx for r in c.references], stem=True,
                                               korean=[c.korean for c in ctx for _ in c.references]))
            refs = [[R.PreparedReference(next(toks)) for _ in c.references] for c in ctx]
            prep["rouge_stemmed"] = (R.rouge_tokenize_batch(prep["preds"], stem=True, korean=prep["flags"]), refs)
        return prep["rouge_stemmed"]

    def item_stats(self, batch) -> Stats:
        res = [R.rouge_multi(t, r, ROUGE_KINDS) for t, r in zip(*self._tokens(self.batch(batch)))]
        # rouge1: F-measure, rouge1_r: recall, ...
        return Stats({k: np.array([x[k[:-2]].recall if k.endswith("_r") else x[k].fmeasure
                                   for x in res], dtype=np.float64) for k in self.keys})

    def pins(self) -> dict:
        """rouge-score's tokenizer, Kiwi's for Korean text (by version), the stemmer."""
        return {**tokens_pin(), **R.stemmer_pin(self.values["use_stemmer"])}


@register
class SummaryBERTScore(SummaryMetric, BERTScore):
    """BERTScore F1 against the reference(s): the one BERTScore declaration
    (:class:`scorekit.generation.model_metrics.BERTScore`: parameters, scorer, scoring, pins) in
    the summary family, reporting F1 only.

    Its parameters in the name grammar: ``bertscore(model=DIR,num_layers=9,idf=true)``."""

    keys = ("bertscore_f1",)
    key_info = {"bertscore_f1": {"doc": "BERTScore F1 against the reference (greedy cosine matching)."}}


@register
class SummaryEfficiency(SummaryBERTScore):
    """Efficiency = BERTScore F1 / max(1, words) (spec Phase 2 §4): semantic quality per summary
    word, derived from ``bertscore_f1`` (the same scorer and parameters; F1 computed once).

    ``-m efficiency`` beside ``bertscore(...)`` takes that BERTScore's parameters."""

    name = "efficiency"
    keys = ("efficiency",)
    derived_from = "bertscore_f1"
    key_info = {"efficiency": {"doc": "Efficiency = BERTScore F1 / max(1, words) (spec Phase 2 §4), derived "
                                      "from bertscore_f1."}}

    def item_stats(self, batch) -> Stats:
        f1 = np.asarray(self.output(batch).f1, dtype=np.float64)
        words = np.array([len(p.split()) for p in self.batch(batch).prepared()["preds"]], dtype=np.float64)
        return self.with_long(batch, {"efficiency": f1 / np.maximum(1.0, words)})


@register
class SummaryDensity(SummaryMetric):
    """Density = |set(pred) ∩ set(source)| / |pred| (the spec's compute_density) and token
    density, the share of prediction tokens found in the source; needs the source documents."""

    name = "density"
    keys = ("density", "token_density")
    key_info = {"density": {"doc": "Density = |set(pred) ∩ set(source)| / |pred| (the spec's compute_density)."},
                "token_density": {"doc": "Token density: share of prediction tokens found in the source."}}

    def pins(self) -> dict:
        """``\\w+`` lower-cased tokens, Kiwi's for Korean text (by version)."""
        return {**tokens_pin(), "tok": "w+lower"}

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        prep = b.prepared()
        if not all(c.source_set is not None for c in prep["contexts"]):
            raise ScorekitError("density needs the source documents (--sources)")
        # Density tokens: Kiwi morphs for Korean (already computed when not stemming), \w+ else.
        dtoks = [t if (f and not b.stem) else simple_tokenize(p, korean=f)
                 for p, t, f in zip(prep["preds"], prep["tokens"], prep["flags"])]
        both = [_densities(t, c.source_set) for t, c in zip(dtoks, prep["contexts"])]
        return Stats({"density": np.array([d for d, _ in both]),
                      "token_density": np.array([t for _, t in both])})


@register
class SummaryWords(SummaryMetric):
    """Words in the summary (len(pred.split())); shorter is the goal at equal quality."""

    name = "words"
    kind = "count"
    higher_is_better = False

    def item_stats(self, batch) -> Stats:
        preds = self.batch(batch).predictions
        return Stats({"words": np.array([len(nfc(p).split()) for p in preds], dtype=np.float64)})


DEFAULT_METRICS = ("rouge", "bertscore", "efficiency", "density", "words")


def summary_metrics(predictions: Sequence[str], references: Sequence[str | Sequence[str]],
                    sources: Sequence[str] | None = None, *, ids: Sequence[str] | None = None,
                    bertscorer="auto", lang: str = "en", stem: bool = False, name: str | None = None,
                    metrics: Sequence | None = None, engine=None, device: str | None = None,
                    allow_english_model: bool = False):
    """Score given summaries: a :class:`scorekit.result.Result` with the corpus values.

    ``metrics``: the summary family's own (``rouge``, ``bertscore(model=DIR,num_layers=9)``,
    ``efficiency``, ``density``, ``words``) and any caption metric (``"chrf(beta=3)"``: scored on
    merged statistics) in the name grammar, keyed as written; default :data:`DEFAULT_METRICS`
    (``density`` only with ``sources``); a bare ``efficiency`` takes the ``bertscore(...)``'s
    parameters. ``bertscorer``: ``"auto"`` lets a default BERTScore be skipped when torch or the
    model is missing, a loaded scorer is used, None leaves it out. ``lang``, ``stem``, ``device``
    and ``allow_english_model`` hold for the whole batch. ``engine``: None (this process),
    ``"fork"`` or a started RayEngine — one driver (:mod:`scorekit.engine.driver`), same numbers."""
    from scorekit.engine.driver import plan, run
    from scorekit.generation.driver import tokenizer_pin
    from scorekit.result import Result
    from scorekit.signature import make_signature
    from scorekit.text.normalize import SIGNATURE as NORM

    if len(predictions) != len(references):
        raise ScorekitError(f"{len(predictions)} predictions but {len(references)} references")
    if isinstance(bertscorer, str) and bertscorer != "auto":
        raise ScorekitError(f"bertscorer must be a BERTScorer, None or 'auto', got {bertscorer!r}")
    if metrics is None:
        specs = [MetricSpec(m, optional=m in ("bertscore", "efficiency") and bertscorer == "auto")
                 for m in DEFAULT_METRICS if (m != "density" or sources is not None)
                 and (bertscorer is not None or m not in ("bertscore", "efficiency"))]
    else:
        specs = [MetricSpec.of(m) for m in metrics]
    specs = follow_bertscore(specs)
    batch = SummaryBatch(predictions, references, lang, None, sources=sources, stem=stem)
    own = {n for c in REGISTRY.classes("summary") for n in (c.name, *c.result_keys())}
    for sp in specs:
        if sp.name not in own and REGISTRY.info(sp.name, "caption") is None:
            raise UnknownNameError("summary metric", sp.name, sorted(own) + REGISTRY.names("caption")
                                   + REGISTRY.keys("caption"))
    common = {"lang": lang, "device": device}
    planned = plan("summary", [sp for sp in specs if sp.name in own], common,
                   allow_english_model=allow_english_model) + \
        plan("caption", [sp for sp in specs if sp.name not in own], common,
             allow_english_model=allow_english_model)   # any caption metric too
    for p in planned:   # a given scorer: used here, rebuilt from its parameters by a worker elsewhere
        if isinstance(p.metric, SummaryBERTScore) and not isinstance(bertscorer, (str, type(None))):
            p.metric.adopt(bertscorer)
    scored = run(planned, batch, engine, items_per_shard=500)
    ids = list(ids) if ids is not None else [str(i + 1) for i in range(len(predictions))]
    # each row keeps its text, as a caption run's: a stored run's corpus metrics are recomputed
    # from it (scorekit.stats.compare, with the metrics rebuilt from the signature)
    per_item = [{"id": ids[i], "prediction": batch.predictions[i], "references": batch.references[i],
                 **{k: float(v[i]) for k, v in scored.per_item.items()}} for i in range(len(ids))]
    # the caption metrics' tokenizer (the language's), as a caption run pins it
    tok = tokenizer_pin(lang, None, [m for m in scored.used if m.family != "summary"])
    asked = [sp.name for sp in specs]   # the metrics in the order written (the plan has the family's first)
    used = sorted(scored.used, key=lambda m: next((i for i, n in enumerate(asked) if n == m.name
                                                    or n in type(m).result_keys()), len(asked)))
    sig = make_signature("summary", {"lang": lang, "norm": NORM, **tok, "stem": stem}, metrics=used)
    inputs = {"n_items": len(ids)}
    if scored.skipped:
        inputs["skipped"] = dict(scored.skipped)
    if engine is not None and getattr(engine, "name", engine) != "local":
        inputs["engine"] = getattr(engine, "name", str(engine))
    return Result(task="summary", metrics=scored.metrics, signature=sig, per_item=per_item, inputs=inputs,
                  name=name)


def follow_bertscore(specs: Sequence) -> list[MetricSpec]:
    """``efficiency`` written bare takes the parameters of the ``bertscore(...)`` beside it."""
    specs = [MetricSpec.of(sp) for sp in specs]
    bert = next((sp for sp in specs if sp.name == "bertscore"), None)
    if bert is None:
        return specs
    return [sp.with_defaults(**bert.params()) if sp.name == "efficiency" and not sp.args else sp
            for sp in specs]

