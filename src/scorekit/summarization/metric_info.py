"""Metadata of the result keys ``scorekit sweep`` writes (``scorekit summary``'s metrics are
declared as classes in :mod:`scorekit.summarization.metrics`).

Sweep keys carry a suffix (``rouge1@n7-7``: the recommended n interval; per item
``lead/rouge1@3``: summariser and n) that :func:`scorekit.metrics.describe` strips back to these.
"""

from __future__ import annotations

from scorekit.metrics.registry import declare

_DOCS = {
    "rouge1": ("rate", True, "ROUGE-1 F-measure (rouge-score semantics; Korean via Kiwi)."),
    "rouge2": ("rate", True, "ROUGE-2 F-measure (rouge-score semantics; Korean via Kiwi)."),
    "rouge1_r": ("rate", True, "ROUGE-1 recall: overlapping unigrams / reference unigrams (the spec's formula)."),
    "rouge2_r": ("rate", True, "ROUGE-2 recall: overlapping bigrams / reference bigrams (the spec's formula)."),
    "rouge_l": ("rate", True, "ROUGE-L F-measure (LCS; rouge-score semantics)."),
    "bertscore_f1": ("score", True, "BERTScore F1 against the reference (greedy cosine matching)."),
    "efficiency": ("score", True, "Efficiency = BERTScore F1 / max(1, words) (spec Phase 2 §4)."),
    "density": ("rate", True, "Density = |set(pred) ∩ set(source)| / |pred| (the spec's compute_density)."),
    "token_density": ("rate", True, "Token density: share of prediction tokens found in the source."),
    "words": ("count", False, "Words in the summary (len(pred.split())); shorter is the goal at equal quality."),
}

for _key, (_kind, _hib, _doc) in _DOCS.items():
    declare("sweep", _key, kind=_kind, higher_is_better=_hib, doc=_doc)
