"""sacrebleu's 0-100 scale for the metrics sacrebleu reports (``--scale 100``).

scorekit reports every score in [0, 1]; sacrebleu prints BLEU (and its n-gram precisions) and
chrF/chrF++ in [0, 100]. :func:`rescale` puts those keys of a caption result on the scale asked
for — corpus values and per-item rows — and pins it in the signature (``scale:100``). Other keys
(METEOR, CIDEr, ...; BLEU's BP, ratio and lengths; BLEU in coco or sentence mode, whose
references print in [0, 1]) are left as they are.
"""

from __future__ import annotations

from scorekit.generation.bleu import BREAKDOWN_KEYS
from scorekit.metrics.registry import MetricSpec
from scorekit.result import Result
from scorekit.signature import Signature

SCALES = (1, 100)
_BLEU = ("bleu_1", "bleu_2", "bleu_3", "bleu_4") + BREAKDOWN_KEYS[:4]
_CHRF = ("chrf", "chrf_pp")


def sacrebleu_keys(keys) -> list[str]:
    """The keys among ``keys`` (result keys as written: ``chrf(beta=3)``, ``bleu_4(mode=sacrebleu)``)
    that sacrebleu reports on its 0-100 scale: chrF/chrF++, and BLEU in sacrebleu mode."""
    return [k for k in keys if (spec := MetricSpec(k)).name in _CHRF
            or (spec.name in _BLEU and spec.args.get("mode") == "sacrebleu")]


def rescale(result: Result, scale: int) -> Result:
    """Multiply the sacrebleu-family keys of ``result`` by ``scale`` (in place; 1 changes nothing)."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale}")
    keys = sacrebleu_keys(result.metrics)
    if scale == 1 or not keys:
        return result
    for row in [result.metrics, *(result.per_item or [])]:
        for k in keys:
            if row.get(k) is not None:
                row[k] = row[k] * scale
    sig = Signature.parse(result.signature)
    sig.update(scale=scale)
    result.signature = str(sig)
    return result
