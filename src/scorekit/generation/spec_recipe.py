"""``--recipe spec``: the caption spec's own evaluation code, reproduced exactly.

The spec (caption-metrics.md) scores each item alone and averages (§6.1 ``evaluate_batch``)::

    tokens     = okt.morphs(text)                       # konlpy's Okt, §2.4 (a JVM)
    meteor     = nltk meteor_score([ref_tokens], hyp_tokens, alpha=0.9, beta=3.0, gamma=0.5)   # §2.4
    bleu_n     = nltk sentence_bleu([ref_tokens], hyp_tokens, weights=(1/n,)*n + (0,)*(4-n),
                                    smoothing_function=SmoothingFunction().method1)          # §5.1
    rouge_l    = rouge_score RougeScorer(["rougeL"]).score(" ".join(ref_tokens),
                                                           " ".join(hyp_tokens)).fmeasure   # §5.2
    cider      = pycocoevalcap Cider().compute_score({"0": [ref]}, {"0": [hyp]})             # §3.3
    corpus     = sum(item values) / n                                                          # §6.1

with ONE reference per item (§8.1's ``evaluate.py`` passes one string per id: the first). The
spec's ROUGE-L and CIDEr are 0 on Korean whatever the captions (:data:`ZERO_ON_KOREAN`): they are
kept as ``spec_rouge_l`` and ``spec_cider``, scorekit's ``rouge_l`` and ``cider`` beside them.

How each number is computed here (equal to the spec's code run as written, to 1e-9 —
``tests/generation/test_spec_recipe.py`` runs that code as the oracle):

* METEOR: :func:`scorekit.generation.meteor.meteor_batch` on the Okt tokens — nltk's alignment,
  Porter stems and WordNet 3.0 synonyms (read from Debian's WordNet, the same database nltk's
  ``wordnet`` corpus is), which is what ``meteor_score`` does with nltk's defaults.
* BLEU-n: :func:`scorekit.generation.bleu.nltk_sentence_bleu` on per-item statistics.
* ROUGE-L: :func:`scorekit.generation.rouge.rouge_l` on rouge-score's own tokens of the joined
  Okt tokens.
* CIDEr: :func:`scorekit.generation.cider.cider_d` on one item at a time, whitespace tokens.

The signature pins the recipe; the spec's BERTScore is not part of it (docs/caption.md).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from scorekit.errors import MissingDependencyError
from scorekit.metrics.base import Param
from scorekit.metrics.registry import declare

RECIPE = Param("recipe", str, "scorekit",
               "scorekit: scorekit's metrics (Korean METEOR on Kiwi units, corpus CIDEr-D, ...); spec: the "
               "caption spec's own code (Okt, nltk METEOR and sentence BLEU-4, one reference, averaged)")
INSTALL = ("--recipe spec tokenises with konlpy's Okt, which needs the konlpy package and Java: "
           "pip install 'scorekit[spec]' and apt-get install default-jre-headless")
ALPHA, BETA, GAMMA = 0.9, 3.0, 0.5          # §2.4
SPEC_KEYS = ("meteor", "bleu_1", "bleu_2", "bleu_3", "bleu_4", "spec_rouge_l", "spec_cider")
BESIDE = ("rouge_l", "cider")               # scorekit's values shown beside the spec's zeros
ZERO_ON_KOREAN = {
    "spec_rouge_l": "the spec's ROUGE-L (§5.2) is rouge-score on the joined Okt tokens; rouge-score's "
                    "tokenizer keeps only [a-z0-9], so Hangul is deleted and Korean scores 0; scorekit's "
                    "rouge_l (Kiwi content units) is beside it",
    "spec_cider": "the spec's CIDEr (§6.1) is computed one item at a time, where every idf is "
                  "log(1) - log(1) = 0, so it is 0 for every input; scorekit's cider (CIDEr-D over the "
                  "corpus) is beside it",
}

declare("caption", "spec_rouge_l", metric="spec_rouge_l",
        doc="The caption spec's ROUGE-L (§5.2): rouge-score rougeL F1 on Okt tokens joined by spaces; 0 on "
            "Korean (rouge-score deletes Hangul). Written by --recipe spec.")
declare("caption", "spec_cider", metric="spec_cider", kind="score",
        doc="The caption spec's per-item CIDEr (§6.1): pycocoevalcap Cider on one image at a time; always 0 "
            "(every idf is 0). Written by --recipe spec.")


@functools.lru_cache(maxsize=1)
def _okt():
    try:
        from konlpy.tag import Okt
    except ImportError:
        raise MissingDependencyError(INSTALL) from None
    try:
        return Okt()
    except Exception as exc:  # konlpy/JPype: no JVM found, or it would not start
        why = " ".join(str(exc).split())[:160]
        raise MissingDependencyError(f"{INSTALL} ({type(exc).__name__}: {why})") from None


def okt_version() -> str:
    import konlpy

    return f"okt-konlpy{konlpy.__version__}"


def okt_morphs(texts: Sequence[str]) -> list[list[str]]:
    """``okt.morphs(text)`` for each text, each distinct text analysed once. Okt's analysis runs
    in Java, which JPype calls without holding Python's GIL, so larger batches are spread over
    threads (the same tokens: the analyser keeps no state between texts)."""
    okt = _okt()
    distinct = list(dict.fromkeys(texts))
    if len(distinct) >= 256:
        import os
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
            analysed = list(pool.map(okt.morphs, distinct, chunksize=64))
    else:
        analysed = [okt.morphs(t) for t in distinct]
    seen = {t: list(toks) for t, toks in zip(distinct, analysed)}
    return [seen[t] for t in texts]


def spec_scores(hyp_tokens: Sequence[Sequence[str]], ref_tokens: Sequence[Sequence[str]],
                hyps: Sequence[str], refs: Sequence[str]) -> dict[str, np.ndarray]:
    """The spec's per-item numbers from Okt tokens (``hyp_tokens``, ``ref_tokens``: one
    reference per item) and the raw texts (``hyps``, ``refs``: the CIDEr of §6.1 reads them)."""
    from scorekit.generation.bleu import bleu_stats_batch, nltk_sentence_bleu, nltk_weights
    from scorekit.generation.cider import cider_d
    from scorekit.generation.meteor import meteor_batch
    from scorekit.generation.rouge import _english_tokens, rouge_l

    hyps1, refs1 = [list(h) for h in hyp_tokens], [[list(r)] for r in ref_tokens]
    out = {"meteor": meteor_batch(hyps1, refs1, lang="en", alpha=ALPHA, beta=BETA, gamma=GAMMA)
           if hyps1 else np.zeros(0)}
    stats = bleu_stats_batch(hyps1, refs1)
    for k in range(1, 5):
        w = nltk_weights(k)
        out[f"bleu_{k}"] = np.array([nltk_sentence_bleu(s, w) for s in stats], dtype=np.float64)
    out["spec_rouge_l"] = np.array(
        [rouge_l(_english_tokens(" ".join(h), False), _english_tokens(" ".join(r), False)).fmeasure
         for h, r in zip(hyp_tokens, ref_tokens)], dtype=np.float64)
    out["spec_cider"] = np.array([cider_d([h.split()], [[r.split()]]).score for h, r in zip(hyps, refs)],
                                 dtype=np.float64)
    return out


def spec_signature() -> str:
    """The one layout (:func:`scorekit.signature.make_signature`) for the spec's code: its metrics
    are not the registry's, so their pins are written here."""
    import nltk

    from scorekit.signature import make_signature
    from scorekit.text.normalize import SIGNATURE as NORM

    return make_signature(
        "caption", {"lang": "ko", RECIPE.name: "spec", "norm": NORM, "tok": okt_version(), "refs": "first"},
        metrics={"metrics": ["meteor", "bleu", "spec_rouge_l", "spec_cider", *BESIDE],
                 "meteor": f"nltk={nltk.__version__};alpha={ALPHA:g};beta={BETA:g};gamma={GAMMA:g};stem=porter;"
                           "synonyms=wordnet-3.0",
                 "bleu": "nltk=sentence;smoothing=method1", "spec_rouge_l": "tok=rouge-score;kind=L;score=f",
                 "spec_cider": "df=per-item"},
        semantics={"mean": "items"})


def evaluate_spec(predictions: Sequence[str], references: Sequence[Sequence[str] | str], *,
                  ids: Sequence[str] | None = None, name: str | None = None) -> "Any":
    """The caption spec's own evaluation (module docstring) on Korean captions: a
    :class:`~scorekit.result.Result` whose ``meteor`` and ``bleu_4`` are the spec's numbers, with
    per-item rows and scorekit's ``rouge_l`` and ``cider`` on the same references beside the spec's
    ``spec_rouge_l`` and ``spec_cider``."""
    from scorekit.generation.batch import CaptionBatch
    from scorekit.generation.driver import evaluate
    from scorekit.result import Result
    from scorekit.text.normalize import nfc

    # as every scorekit metric: NFC, invisible characters out; the batch checks the pairing
    b = CaptionBatch([nfc(p) for p in predictions],
                     [[nfc(x) for x in ([r] if isinstance(r, str) else r)] for r in references], "ko")
    preds, refs = b.predictions, b.references
    first = [rs[0] for rs in refs]
    toks = okt_morphs(preds + first)
    per = spec_scores(toks[:len(preds)], toks[len(preds):], preds, first)
    beside = evaluate(preds, [[r] for r in first], lang="ko", metrics=list(BESIDE))
    # §6.1's sum(r[key] for r in all_results) / len(all_results), in the same order
    metrics = {k: sum(map(float, per[k])) / len(per[k]) if len(per[k]) else float("nan")
               for k in SPEC_KEYS}
    metrics.update(beside.metrics)
    ids = [str(i) for i in ids] if ids is not None else [str(i + 1) for i in range(len(preds))]
    rows = [{"id": id_, "prediction": preds[i], "references": [first[i]],
             **{k: float(per[k][i]) for k in SPEC_KEYS}, **{k: float(beside.per_item[i][k]) for k in BESIDE}}
            for i, id_ in enumerate(ids)]
    extra = {"recipe": {"name": "spec", "doc": RECIPE.doc, "references": "the first reference of each id "
                        "(the spec's evaluate.py passes one string per id)",
                        "zero_on_korean": dict(ZERO_ON_KOREAN),
                        "scorekit_beside": {"spec_rouge_l": "rouge_l", "spec_cider": "cider"},
                        "beside_signature": beside.signature}}
    return Result(task="caption", metrics=metrics, signature=spec_signature(), per_item=rows, name=name,
                  inputs={"lang": "ko", "n_items": len(preds)}, extra=extra)
