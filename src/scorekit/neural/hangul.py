"""Can this model read Hangul? (issue #15; docs/neural.md, "Korean")

A model whose vocabulary cannot represent Hangul scores any two Korean texts alike (MiniLM's
uncased vocabulary turns 여자가 into jamo pieces). The check tokenises a Korean probe plus the
Korean inputs: when fewer than half of the pieces of Hangul words carry a Hangul *syllable*
([UNK], byte-fallback and bare jamo do not), the model is refused for Korean input with one line,
unless the user allows it (``--allow-english-model``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scorekit.errors import MissingDependencyError
from scorekit.text.korean import has_hangul

PROBE = "파란 바다에 하얀 파도가 치고 있다. 아이들이 공원에서 뛰어놀고 있다."
_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
KOREAN_MODELS = ("bert-base-multilingual-cased (layer 9)", "klue/roberta-large (layer 17)",
                 "beomi/kcbert-base (KoBERTScore, layer 4)")


class EnglishModelError(MissingDependencyError):
    """A model that cannot represent Hangul was asked to score Korean text: what is missing is a
    Korean-capable model (so a default caption run skips BERTScore with this warning, and an
    explicit ``--metrics bertscore`` fails with it)."""


def syllable_share(tokenizer, texts: Iterable[str]) -> float:
    """Share of the pieces of the Hangul words of ``texts`` that carry a Hangul syllable."""
    good = total = 0
    unk = getattr(tokenizer, "unk_token_id", None)
    for word in [w for text in texts for w in text.split() if has_hangul(w)]:
        pieces = tokenizer.tokenize(word)
        # a SentencePiece tokenizer (XLNet's) shows an unknown piece as its text, not as <unk>
        ids = tokenizer.convert_tokens_to_ids(pieces) if unk is not None else [None] * len(pieces)
        for piece, pid in zip(pieces, ids):
            total += 1
            good += bool(_SYLLABLE.search(piece)) and (unk is None or pid != unk)
    return good / total if total else 1.0


def check_hangul(tokenizer, texts: Iterable[str], model_name: str, *, allow: bool = False,
                 sample: int = 64, what: str = "BERTScore model",
                 option: str = '-m "bertscore(model=PATH)"') -> float | None:
    """Refuse (:class:`EnglishModelError`) a model that cannot read the Korean among ``texts``.
    Returns the syllable share measured, None when no text contains Hangul."""
    korean = [t for t in texts if has_hangul(t)][:sample]
    if not korean:
        return None
    share = syllable_share(tokenizer, [PROBE, *korean])
    if share < 0.5 and not allow:
        raise EnglishModelError(
            f"{what} {model_name} cannot read Hangul ({share:.0%} of the Korean word pieces "
            f"are Hangul syllables; the rest are [UNK], bytes or jamo): give a local Korean-capable "
            f"model ({option}), e.g. {KOREAN_MODELS[0]} or {KOREAN_MODELS[1]} (docs/neural.md), "
            f"or --allow-english-model to score anyway")
    return share
