"""Korean units (issue #15): Kiwi's morphs regrouped into Okt-sized units, the tokens of Korean
METEOR and of the content-unit BLEU/ROUGE-L (tokenizer ``ko-content``). The rules, each with the
pair that motivated it, are in docs/caption.md ("Korean units, lexicon and numbers"): particles
and punctuation dropped; endings and ``XSN``/``XSA`` suffixes joined to the unit before; the light
verb (``요리/NNG + 하/XSV``) split off as its own unit; native numerals with a counter as digits;
function units flagged (auxiliaries, copula, light verb, dependent nouns and counters, prefixes);
compound spacing neutral (:func:`respace`). Lexicon words stay one unit in context (Kiwi is the
lexicon's, :func:`scorekit.text.korean.get_kiwi_with`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from scorekit.text.lexicon import Lexicon, pos_class
from scorekit.text.normalize import nfc

UNITS_VERSION = "2"  # the unit rules of issue #15 (light verb, function units, numerals, spacing)

_NATIVE_UNITS = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "서": 3, "네": 4,
                 "넷": 4, "넉": 4, "너": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9}
_NATIVE_TENS = {"열": 10, "스물": 20, "스무": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60,
                "일흔": 70, "여든": 80, "아흔": 90}
# counter nouns Kiwi may tag NNG (most counters are NNB, which are function units anyway)
COUNTERS = frozenset("명 개 마리 대 권 송이 그루 잔 척 채 장 벌 켤레 병 살 분 번 가지 사람 곳 군데 줄 쌍 톨 알 포기 자루".split())
_FUNCTION_PREFIXES = frozenset({"맨"})
_YEAR_NOUNS = frozenset({"해"})  # 해 after a determiner (새 해, 한 해, 지난 해) is a year, not the sun


class Unit(NamedTuple):
    surface: str     # morphs joined (NFC, lower-cased)
    lemma: str       # dictionary form
    cls: str         # N nominal, V verbal, M adverb, D determiner, O other
    function: bool   # grammatical unit (weight 1 - delta)
    hon: str = ""    # honorific lemma (돌아가 + 시 -> 돌아가시다) when the unit carries -시-

    @property
    def key(self) -> str:
        return f"{self.lemma}/{self.cls}"


def native_number(word: str) -> int | None:
    """Value of a native Korean numeral word (``두`` 2, ``열두`` 12, ``스무`` 20), else None."""
    if word in _NATIVE_UNITS:
        return _NATIVE_UNITS[word]
    for tens, v in _NATIVE_TENS.items():
        if word.startswith(tens) and (rest := word[len(tens):]) in ("", *_NATIVE_UNITS):
            return v + _NATIVE_UNITS.get(rest, 0)
    return None


def _numerals(ms: list) -> list:
    """Native numeral morphs followed by a counter -> one digit morph (``열 두 그루`` -> ``12 그루``)."""
    from scorekit.text.korean import Morph

    out, i = [], 0
    while i < len(ms):
        j, value = i, 0
        while j < len(ms) and ms[j].tag in ("NR", "MM") and native_number(ms[j].form) is not None:
            value += native_number(ms[j].form)
            j += 1
        if j > i and j < len(ms) and (ms[j].tag == "NNB" or ms[j].form in COUNTERS):
            out.append(Morph(str(value), "SN", str(value)))  # no span: the surface is the digits
            i = j
        else:
            out.append(ms[i])
            i += 1
    return out


def _surface(group, text: str | None) -> str:
    """The unit as written (``날아``), from the morph spans when known; else its forms joined."""
    if text is not None and all(m.start >= 0 for m in group):
        return "".join(text[group[0].start:max(m.end for m in group)].split())
    return nfc("".join(m.form for m in group))


def units(morphs, text: str | None = None) -> list[Unit]:
    """The METEOR units of one analysed text (``scorekit.text.korean.Morph`` list; ``text``, the
    NFC text analysed, gives surfaces as written)."""
    from scorekit.text.korean import is_particle, is_punct

    ms = _numerals([m for m in morphs if not (is_particle(m.tag) or is_punct(m.tag))])
    groups: list[list] = []
    for m in ms:
        # an ending or a noun/adjective suffix joins the unit before; a light verb after a noun not
        if groups and (m.tag.startswith(("E", "XSN", "XSA"))
                       or (m.tag.startswith("XSV") and pos_class(groups[-1][0].tag) != "N")):
            groups[-1].append(m)
        else:
            groups.append([m])
    out: list[Unit] = []
    prev_tag = ""
    for g in groups:
        head = g[0]
        tag = head.tag.split("-")[0]
        lemma = _lemma(g)
        cls = "V" if tag.startswith("XSV") or lemma.endswith("다") and tag == "XR" else pos_class(tag)
        function = (tag in ("VX", "VCP", "VCN", "NNB", "XPN") or tag.startswith("XSV")
                    or (cls == "V" and lemma == "하다")
                    or (tag == "MM" and head.form in _FUNCTION_PREFIXES)
                    or (prev_tag == "NNB" and lemma in ("있다", "없다"))
                    or (prev_tag == "SN" and head.form in COUNTERS))
        if cls == "N" and lemma in _YEAR_NOUNS and out and out[-1].cls == "D":
            lemma += "#year"
        hon = ""
        if cls == "V" and any(m.tag == "EP" and m.form in ("시", "으시") for m in g[1:]):
            hon = lemma[:-1] + "시다"
        out.append(Unit(_surface(g, text).lower(), lemma.lower(), cls, function, hon))
        prev_tag = tag
    return out


def _lemma(group) -> str:
    head = group[0]
    tag = head.tag.split("-")[0]
    if tag in ("VV", "VA", "VX", "VCP", "VCN"):
        return nfc(head.lemma)
    if tag.startswith("XSV"):  # split light verb: 하 -> 하다, 되 -> 되다
        return nfc(head.form + "다")
    # root + adjective-deriving suffix (수려+하 -> 수려하다); XSN (들, 님) is dropped.
    derived = "".join(m.form for m in group[1:] if m.tag.startswith("XSA"))
    return nfc(head.form + derived + "다" if derived else head.form)


def units_batch(texts: Sequence[str], lexicon: Lexicon | None = None) -> list[list[Unit]]:
    """Units of many texts, analysed by a Kiwi that knows the lexicon's words (starter lexicon
    when None)."""
    return [list(us) for us in _units_of(texts, lexicon)]


MIN_TEXTS_PER_PROCESS = 5_000     # below this a forked process costs more than it saves
# the last batch's units per text, with its lexicon's fingerprint (one batch kept; replaced whole)
_last: tuple[str | None, dict] = (None, {})


def _units_of(texts: Sequence[str], lexicon: Lexicon | None) -> list[tuple[Unit, ...]]:
    """The units of each text. Kiwi analyses each distinct text once, in one batch (its own
    threads); the unit rules, plain Python, run on this machine's cores for large batches
    (:mod:`scorekit.forkmap`). The last batch's units are kept, so the metrics of one caption
    batch (BLEU/ROUGE-L content tokens, METEOR) share one analysis."""
    global _last
    from scorekit.forkmap import default_workers, fork_map, split
    from scorekit.text.korean import analyze_batch

    lex = lexicon or Lexicon.default()
    texts = [nfc(t) for t in texts]
    known = _last[1] if _last[0] == lex.fingerprint else {}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    got: dict[str, tuple[Unit, ...]] = {}
    if missing:
        analysed = analyze_batch(missing, lex)
        parts = split(len(missing), min(default_workers(), len(missing) // MIN_TEXTS_PER_PROCESS))

        def part_units(rg: range) -> list[tuple[Unit, ...]]:
            return [tuple(units(analysed[i], missing[i])) for i in rg]

        got = dict(zip(missing, [x for part in fork_map(part_units, parts) for x in part]))
    out = [known[t] if t in known else got[t] for t in texts]
    _last = (lex.fingerprint, dict(zip(texts, out)))
    return out


def content_tokens_batch(texts: Sequence[str], lexicon: Lexicon | None = None) -> list[list[str]]:
    """Korean *content units* as tokens, for ROUGE/BLEU (``units="content"``, tokenizer
    ``ko-content``): the lemma of every unit that is not a function unit, so endings, particles,
    auxiliaries, the copula, the light verb and counters are gone (``요리를 하고 있다`` ->
    ``["요리"]``, ``두 명이 걷는다`` -> ``["2", "걷다"]``)."""
    return [[u.lemma for u in us if not u.function] for us in _units_of(texts, lexicon)]


def respace(a: list[Unit], b: list[Unit]) -> list[Unit]:
    """``b`` with each run of 2-4 adjacent units that spells, without spaces, a unit of ``a``
    missing from ``b`` merged into that one unit (compound spacing is neutral)."""
    bs = {u.surface for u in b}
    by_surface = {u.surface: u for u in a if u.surface not in bs and len(u.surface) > 1}
    if not by_surface:
        return b
    by_lemma = {u.lemma: u for u in by_surface.values()}
    # a run can spell a target only if its first unit's surface begins the target
    heads = {t[:n] for t in (*by_surface, *by_lemma) for n in range(len(t) + 1)}
    out: list[Unit] = []
    j = 0
    while j < len(b):
        if b[j].surface not in heads:
            out.append(b[j])
            j += 1
            continue
        for k in (4, 3, 2):
            run = b[j:j + k]
            if len(run) < k:
                continue
            s = "".join(u.surface for u in run)
            t = by_surface.get(s) or by_lemma.get("".join(u.surface for u in run[:-1])
                                                  + run[-1].lemma)
            if t is not None:
                out.append(Unit(s, t.lemma, t.cls, all(u.function for u in run), t.hon))
                j += k
                break
        else:
            out.append(b[j])
            j += 1
    return out
