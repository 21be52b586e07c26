"""The caption metric suite (spec caption-metrics.md §1.2, §6): name -> metric over
(predictions, references, lang, options), returning corpus scores and per-item scores.

Metric keys in results: ``bleu_1``..``bleu_4``, ``meteor``, ``rouge_l``, ``rouge_l_coco``,
``cider`` (CIDEr-D as pycocoevalcap's ``Cider``), ``cider_d`` (the same number under its precise
name), ``cider_plain``, ``bertscore_p``/``bertscore_r``/``bertscore_f1``, ``clipscore``,
``refclipscore``. Asking for any key of a group (``bleu_4``) computes the group once.

Tokens: English captions use the COCO tokenizer (as pycocoevalcap does before BLEU/CIDEr), Korean
ones Kiwi morphs (punctuation dropped, particles kept, like the spec's ``okt.morphs``); tokens are
computed once and shared. METEOR, ROUGE, BERTScore and CLIPScore live in their own modules and are
imported lazily: a missing module, model or torch raises :class:`MissingDependencyError` for that
metric only (:func:`evaluate` records it as skipped when the metric was not asked for explicitly).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scorekit.errors import MissingDependencyError, ScorekitError, UnknownNameError

LANGS = ("ko", "en")
DEFAULT_METRICS = ("bleu", "meteor", "rouge_l", "cider", "bertscore")


@dataclass
class CaptionInputs:
    predictions: list[str]
    references: list[list[str]]
    lang: str
    options: dict[str, Any] = field(default_factory=dict)
    _tokens: tuple | None = None

    @property
    def empty(self) -> np.ndarray:
        return np.array([not p.strip() for p in self.predictions], dtype=bool)

    def tokens(self) -> tuple[list[list[str]], list[list[list[str]]]]:
        """(prediction tokens, reference tokens) with the language's tokenizer, computed once."""
        if self._tokens is None:
            from scorekit.text.tokenizers import tokenize_batch

            name = self.options.get("tokenizer") or tokenizer_for(self.lang)
            flat = list(self.predictions) + [r for refs in self.references for r in refs]
            toks = tokenize_batch(flat, name)
            n = len(self.predictions)
            hyps, refs, pos = toks[:n], [], n
            for rs in self.references:
                refs.append(toks[pos:pos + len(rs)])
                pos += len(rs)
            self._tokens = (hyps, refs)
        return self._tokens


@dataclass
class MetricOutput:
    corpus: dict[str, float]
    per_item: dict[str, np.ndarray]
    params: dict[str, Any] = field(default_factory=dict)   # what pins the numbers (signature)


@dataclass
class MetricGroup:
    name: str
    keys: tuple[str, ...]
    fn: Callable[[CaptionInputs], MetricOutput]
    doc: str


GROUPS: dict[str, MetricGroup] = {}


def register(name: str, keys: Sequence[str], doc: str):
    def deco(fn):
        GROUPS[name] = MetricGroup(name, tuple(keys), fn, doc)
        return fn
    return deco


def tokenizer_for(lang: str) -> str:
    from scorekit.text.tokenizers import default_tokenizer

    return default_tokenizer(lang)


def _zero_empty(values: np.ndarray, inputs: CaptionInputs) -> np.ndarray:
    """Empty predictions score 0 (and are counted in the mean)."""
    values = np.asarray(values, dtype=np.float64).copy()
    values[inputs.empty] = 0.0
    return values


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


# ----------------------------------------------------------------------------- BLEU
@register("bleu", [f"bleu_{n}" for n in range(1, 5)],
          "BLEU-1..4. mode 'coco' (default): pycocoevalcap Bleu(4) corpus BLEU, closest reference "
          "length; 'sentence': mean of nltk sentence_bleu with method1 smoothing (spec §5.1); "
          "'sacrebleu': sacrebleu corpus BLEU / 100 on the same tokens.")
def _bleu(inputs: CaptionInputs) -> MetricOutput:
    from scorekit.generation import bleu as B

    hyps, refs = _ko_content_tokens(inputs) if _ko_units(inputs) == "content" else inputs.tokens()
    stats = B.bleu_stats_batch(hyps, refs)
    mode = inputs.options.get("bleu_mode", "coco")
    keys = [f"bleu_{n}" for n in range(1, 5)]
    if mode == "coco":
        corpus, items = B.coco_bleu(stats)
        per = {k: np.array([it[n] for it in items]) for n, k in enumerate(keys)}
        out = dict(zip(keys, corpus))
    elif mode == "sentence":
        per = {k: np.array([B.nltk_sentence_bleu(s, B.nltk_weights(n + 1)) for s in stats])
               for n, k in enumerate(keys)}
        out = {k: _mean(v) for k, v in per.items()}
    elif mode == "sacrebleu":
        per, out = {}, {}
        for n, k in enumerate(keys):
            sub = [B.BleuStats(s.hyp_len, s.ref_len, s.correct[: n + 1], s.total[: n + 1]) for s in stats]
            per[k] = np.array([B.sacrebleu_score(s, effective_order=True) / 100.0 for s in sub])
            out[k] = B.sacrebleu_score(B.merge(sub)) / 100.0
    else:
        raise UnknownNameError("BLEU mode", mode, ["coco", "sentence", "sacrebleu"])
    return MetricOutput(out, per, {"bleu": mode, **_ko_units_param(inputs)})


def _ko_units(inputs: CaptionInputs) -> str | None:
    """Korean ROUGE/BLEU units (issue #15): option ``ko_units``, default content units."""
    if inputs.lang != "ko" or inputs.options.get("tokenizer"):
        return None
    from scorekit.generation.rouge import DEFAULT_KOREAN_UNITS, _check_units

    return _check_units(inputs.options.get("ko_units") or DEFAULT_KOREAN_UNITS)


def _ko_units_param(inputs: CaptionInputs) -> dict:
    units = _ko_units(inputs)
    if units is None:
        return {}
    from scorekit.generation.meteor_ko import UNITS_VERSION

    return {"ko_units": units if units == "surface" else f"content{UNITS_VERSION}"}


def _ko_content_tokens(inputs: CaptionInputs):
    from scorekit.text.tokenizers import tokenize_batch

    flat = list(inputs.predictions) + [r for refs in inputs.references for r in refs]
    toks = tokenize_batch(flat, "ko-content")
    n = len(inputs.predictions)
    hyps, refs, pos = toks[:n], [], n
    for rs in inputs.references:
        refs.append(toks[pos:pos + len(rs)])
        pos += len(rs)
    return hyps, refs


# ----------------------------------------------------------------------------- CIDEr
def _df(inputs: CaptionInputs):
    path = inputs.options.get("cider_df")
    if not path:
        return None, "corpus"
    from scorekit.generation.cider import load_document_frequency

    return load_document_frequency(path), f"file:{path}"


@register("cider", ["cider"], "CIDEr-D exactly as pycocoevalcap's Cider (sigma 6, clipped, x10).")
def _cider(inputs: CaptionInputs) -> MetricOutput:
    from scorekit.generation.cider import cider_d

    hyps, refs = inputs.tokens()
    df, df_name = _df(inputs)
    sigma = float(inputs.options.get("cider_sigma", 6.0))
    out = cider_d(hyps, refs, sigma=sigma, df=df)
    return MetricOutput({"cider": out.score}, {"cider": out.scores}, {"cider": f"D,sigma{sigma:g},df:{df_name}"})


@register("cider_d", ["cider_d"], "The same CIDEr-D number under its precise name.")
def _cider_d(inputs: CaptionInputs) -> MetricOutput:
    out = _cider(inputs)
    return MetricOutput({"cider_d": out.corpus["cider"]}, {"cider_d": out.per_item["cider"]}, out.params)


@register("cider_plain", ["cider_plain"], "Original CIDEr (vrama91/cider): no clipping, no length penalty.")
def _cider_plain(inputs: CaptionInputs) -> MetricOutput:
    from scorekit.generation.cider import cider_plain

    hyps, refs = inputs.tokens()
    df, df_name = _df(inputs)
    out = cider_plain(hyps, refs, df=df)
    return MetricOutput({"cider_plain": out.score}, {"cider_plain": out.scores},
                        {"cider_plain": f"df:{df_name}"})


# ----------------------------------------------------------------------------- METEOR
@register("meteor", ["meteor"], "METEOR (alpha 0.9, beta 3, gamma 0.5): nltk-exact English on COCO "
          "tokens; Korean: the spec's EnhancedKoreanMETEOR (Kiwi, particles dropped, synonym lexicon).")
def _meteor(inputs: CaptionInputs) -> MetricOutput:
    try:
        from scorekit.generation.meteor import meteor_batch
    except ImportError as exc:
        raise MissingDependencyError(f"METEOR is not available ({exc})") from None
    opts = inputs.options
    kw = dict(alpha=opts.get("alpha", 0.9), beta=opts.get("beta", 3.0), gamma=opts.get("gamma", 0.5))
    if inputs.lang == "ko":
        scores = meteor_batch(inputs.predictions, inputs.references, lang="ko",
                              lexicon=opts.get("lexicon"), delta=opts.get("delta"), **kw)
    else:
        hyps, refs = inputs.tokens()
        scores = meteor_batch(hyps, refs, lang="en", **kw)
    scores = _zero_empty(scores, inputs)
    # Pin what changes the number: the synonym source by content (a lexicon path would not).
    if inputs.lang == "ko":
        from scorekit.generation.meteor_ko import DEFAULT_DELTA, UNITS_VERSION, resolve_lexicon

        delta = DEFAULT_DELTA if opts.get("delta") is None else opts["delta"]
        source = (f"units{UNITS_VERSION},d{delta:g},"
                  f"lexicon:{resolve_lexicon(opts.get('lexicon')).fingerprint}")
    else:
        import nltk

        source = f"porter-nltk{nltk.__version__},wordnet-3.0"
    return MetricOutput({"meteor": _mean(scores)}, {"meteor": scores},
                        {"meteor": f"a{kw['alpha']:g},b{kw['beta']:g},g{kw['gamma']:g},{source}"})


# ----------------------------------------------------------------------------- ROUGE
@register("rouge_l", ["rouge_l"], "ROUGE-L F1 with rouge-score semantics (best reference), as the "
          "spec's §5.2; Korean through Kiwi morphs (rouge-score itself scores Korean as 0).")
def _rouge_l(inputs: CaptionInputs) -> MetricOutput:
    try:
        from scorekit.generation.rouge import rouge_scores
    except ImportError as exc:
        raise MissingDependencyError(f"ROUGE is not available ({exc})") from None
    res = rouge_scores(inputs.predictions, inputs.references, kinds=("rougeL",), lang=inputs.lang,
                       units=_ko_units(inputs))
    f = _zero_empty(res["rougeL"]["fmeasure"], inputs)
    return MetricOutput({"rouge_l": _mean(f)}, {"rouge_l": f}, {"rouge": "L,f", **_ko_units_param(inputs)})


@register("rouge_l_coco", ["rouge_l_coco"], "pycocoevalcap ROUGE-L (beta 1.2) on the caption tokens.")
def _rouge_l_coco(inputs: CaptionInputs) -> MetricOutput:
    try:
        from scorekit.generation.rouge import coco_rouge_l_corpus
    except ImportError as exc:
        raise MissingDependencyError(f"ROUGE is not available ({exc})") from None
    hyps, refs = inputs.tokens()
    mean, scores = coco_rouge_l_corpus(hyps, refs)
    return MetricOutput({"rouge_l_coco": mean}, {"rouge_l_coco": scores}, {"rouge_coco": "beta1.2"})


# ----------------------------------------------------------------------------- neural
@register("bertscore", ["bertscore_p", "bertscore_r", "bertscore_f1"],
          "BERTScore P/R/F1 (best reference per candidate), default model the shipped all-MiniLM-L6-v2.")
def _bertscore(inputs: CaptionInputs) -> MetricOutput:
    try:
        from scorekit.neural.bertscore import BERTScorer
    except ImportError as exc:
        raise MissingDependencyError(f"BERTScore needs torch and transformers ({exc})") from None
    opts = inputs.options
    scorer = BERTScorer(opts.get("bert_model"), num_layers=opts.get("num_layers"),
                        allow_english_model=bool(opts.get("allow_english_model")))
    res = scorer.score(inputs.predictions, inputs.references)
    per = {"bertscore_p": _zero_empty(res.precision, inputs), "bertscore_r": _zero_empty(res.recall, inputs),
           "bertscore_f1": _zero_empty(res.f1, inputs)}
    return MetricOutput({k: _mean(v) for k, v in per.items()}, per, {"bertscore": res.signature})


@register("clipscore", ["clipscore", "refclipscore"],
          "CLIPScore (w=2.5) of each caption against its image/video (--images/--videos DIR, "
          "file named after the id), and RefCLIPScore with the references.")
def _clipscore(inputs: CaptionInputs) -> MetricOutput:
    try:
        from scorekit.neural.clipscore import CLIPScorer
    except ImportError as exc:
        raise MissingDependencyError(f"CLIPScore is not available ({exc})") from None
    opts = inputs.options
    media = opts.get("media")
    model = opts.get("clip_model")
    if not media:
        raise ScorekitError("clipscore needs --images DIR or --videos DIR (one file per id)")
    if not model:
        raise MissingDependencyError("clipscore needs a local CLIP model: pass --clip-model PATH")
    scorer = CLIPScorer(model)
    if opts.get("media_kind") == "videos":
        res = scorer.score_videos(media, inputs.predictions, inputs.references)
    else:
        res = scorer.score(media, inputs.predictions, inputs.references)
    per = {"clipscore": _zero_empty(res.clip_score, inputs)}
    if res.ref_clip_score is not None:
        per["refclipscore"] = _zero_empty(res.ref_clip_score, inputs)
    return MetricOutput({k: _mean(v) for k, v in per.items()}, per, {"clip": res.signature})


# ----------------------------------------------------------------------------- driver
def metric_keys() -> list[str]:
    return [k for g in GROUPS.values() for k in g.keys]


def resolve(names: Sequence[str]) -> list[tuple[MetricGroup, list[str]]]:
    """Group names or keys -> [(group, wanted keys)] in the order first asked."""
    key_to_group = {k: g for g in GROUPS.values() for k in g.keys}
    plan: dict[str, list[str]] = {}
    for name in names:
        if name in GROUPS:
            plan.setdefault(name, [])
            plan[name] = list(dict.fromkeys(plan[name] + list(GROUPS[name].keys)))
        elif name in key_to_group:
            g = key_to_group[name].name
            plan.setdefault(g, [])
            if name not in plan[g]:
                plan[g].append(name)
        else:
            raise UnknownNameError("caption metric", name, list(GROUPS) + list(key_to_group))
    return [(GROUPS[g], keys) for g, keys in plan.items()]


@dataclass
class SuiteOutput:
    metrics: dict[str, float]
    per_item: dict[str, np.ndarray]
    params: dict[str, Any]
    skipped: dict[str, str]


def evaluate(predictions: Sequence[str], references: Sequence[Sequence[str]], *, lang: str,
             metrics: Sequence[str] | None = None, options: dict[str, Any] | None = None) -> SuiteOutput:
    """Run the requested metrics (default :data:`DEFAULT_METRICS`). A metric whose dependency is
    missing is skipped with its reason when it came from the defaults, and raises when asked."""
    if lang not in LANGS:
        raise UnknownNameError("language", lang, LANGS)
    if len(predictions) != len(references):
        raise ScorekitError(f"{len(predictions)} predictions but {len(references)} reference lists")
    for i, refs in enumerate(references):
        if not refs:
            raise ScorekitError(f"item {i}: empty reference list")
    explicit = metrics is not None
    inputs = CaptionInputs(list(predictions), [list(r) for r in references], lang, dict(options or {}))
    out_m: dict[str, float] = {}
    out_p: dict[str, np.ndarray] = {}
    params: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for group, keys in resolve(list(metrics) if explicit else list(DEFAULT_METRICS)):
        try:
            res = group.fn(inputs)
        except MissingDependencyError as exc:
            if explicit:
                raise
            skipped[group.name] = str(exc)
            continue
        for k in keys:
            if k in res.corpus:
                out_m[k] = res.corpus[k]
                out_p[k] = res.per_item[k]
        params.update(res.params)
    return SuiteOutput(out_m, out_p, params, skipped)


# The spec's §7 target table (METEOR baseline: AI-Hub Korean 0.3052; English 0.33 in §2.1).
TARGETS: dict[str, dict[str, float | None]] = {
    "meteor": {"baseline": 0.3052, "target_1": 0.336, "target_2": 0.366, "final": 0.40},
    "cider": {"baseline": None, "target_1": 0.80, "target_2": 1.00, "final": 1.20},
    "bertscore_f1": {"baseline": None, "target_1": 0.75, "target_2": 0.80, "final": 0.85},
}


def report(metrics: dict[str, float], *, baseline_meteor: float = 0.3052) -> dict[str, Any]:
    """The spec's §6.1 report: primary METEOR against its baseline, the §7 targets reached."""
    rep: dict[str, Any] = {"primary": "meteor", "secondary": ["cider", "bertscore_f1"],
                           "reference": ["bleu_4", "rouge_l"], "baseline_meteor": baseline_meteor}
    m = metrics.get("meteor")
    if m is not None and baseline_meteor:
        rep["meteor_improvement_pct"] = (m - baseline_meteor) / baseline_meteor * 100.0
    rows = []
    for key, t in TARGETS.items():
        value = metrics.get(key)
        base = baseline_meteor if key == "meteor" else t["baseline"]
        if key == "meteor":  # §7: targets 1 and 2 are +10% and +20% over the baseline
            t = {**t, "target_1": baseline_meteor * 1.1, "target_2": baseline_meteor * 1.2}
        reached = [name for name in ("target_1", "target_2", "final")
                   if value is not None and value >= t[name]]
        rows.append({"metric": key, "value": value, "baseline": base, "target_1": t["target_1"],
                     "target_2": t["target_2"], "final": t["final"],
                     "reached": reached[-1] if reached else None})
    rep["targets"] = rows
    return rep
