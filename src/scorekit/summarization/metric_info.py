"""Metadata of the result keys ``scorekit sweep`` writes: the summary metrics' own declarations
(:mod:`scorekit.summarization.metrics`, the classes ``scorekit summary`` computes with and the
sweep scores through), declared again under the ``sweep`` family — no second table of words.

Sweep keys carry a suffix (``rouge1@n7-7``: the recommended n interval; per item
``lead/rouge1@3``: summariser and n) that :func:`scorekit.metrics.describe` strips back to these.
"""

from __future__ import annotations

from scorekit.metrics.registry import REGISTRY, declare

for _cls in REGISTRY.classes("summary"):
    for _key in _cls.result_keys():
        _info = _cls.info(_key)
        declare("sweep", _key, kind=_info.kind, higher_is_better=_info.higher_is_better, doc=_info.doc,
                metric=_info.metric, corpus=_info.corpus)
