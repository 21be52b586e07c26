"""Korean ROUGE/BLEU units (issue #15): ``content`` units (Kiwi content morphemes with the unit
rules of Korean METEOR) or ``surface`` morphs, as in scorekit 0.1.

The default, content units, was chosen on the team's 162-pair set
(tests/generation/data/ko_pairs.tsv; docs/caption.md "Korean ROUGE and BLEU units"): content
units separate paraphrases from unrelated pairs perfectly (ROUGE-L AUC 1.000 against 0.928).
"""

from __future__ import annotations

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.metrics.base import Param

KOREAN_UNITS = ("surface", "content")
DEFAULT_KOREAN_UNITS = "content"


def check_units(units: str) -> str:
    if units not in KOREAN_UNITS:
        raise UnknownNameError("Korean ROUGE units", units, KOREAN_UNITS)
    return units


def korean_units(lang: str, tokenizer: str | None, units: str | None) -> str | None:
    """Units of Korean ROUGE/BLEU (issue #15): ``content`` (the default, chosen on the Korean
    pair set, docs/caption.md) or ``surface`` morphs; None when not Korean or a tokenizer was
    named explicitly."""
    if lang != "ko" or tokenizer:
        return None
    return check_units(units or DEFAULT_KOREAN_UNITS)


def korean_units_field(lang: str, tokenizer: str | None, units: str | None) -> dict[str, str]:
    """The signature field for :func:`korean_units` (empty when it does not apply)."""
    chosen = korean_units(lang, tokenizer, units)
    if chosen is None:
        return {}
    from scorekit.text.korean_units import UNITS_VERSION

    return {"ko_units": chosen if chosen == "surface" else f"content{UNITS_VERSION}"}


class KoreanUnitsMetric:
    """Mixin of the caption metrics whose Korean tokens are units (BLEU, ROUGE-L): the ``ko_units``
    parameter, refused where it does not apply (English, or a tokenizer named for the batch, which
    names the tokens itself), the units chosen and their signature pin."""

    KO_UNITS = Param("ko_units", str, None, "Korean units: content (default) or surface",
                     choices=KOREAN_UNITS)

    def __init__(self, **params):
        super().__init__(**params)
        v = self.values
        if v["ko_units"] is not None and v["lang"] != "ko":
            raise ScorekitError(f"{self.name}(ko_units=...) applies to Korean captions only (--lang ko)")
        if v["ko_units"] is not None and v["tokenizer"]:
            raise ScorekitError(f"{self.name}(ko_units=...) applies to Kiwi's units; --tokenizer "
                                f"{v['tokenizer']} names the tokens itself: give one or the other")

    def units(self, lang: str) -> str | None:
        """:func:`korean_units` of a batch in ``lang``."""
        return korean_units(lang, self.values["tokenizer"], self.values["ko_units"])

    def pins(self) -> dict:
        return korean_units_field(self.values["lang"], self.values["tokenizer"], self.values["ko_units"])
