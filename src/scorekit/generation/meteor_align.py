"""METEOR's alignment and formula, shared by English (:mod:`scorekit.generation.meteor`) and
Korean (:mod:`scorekit.generation.meteor_ko`) METEOR — kept apart so neither imports the other's
internals (see :mod:`scorekit.generation.meteor` for the definitions)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Sequence

from scorekit.errors import InputError

Text = str | Sequence[str]


# -- the alignment (nltk's three greedy stages) ----------------------------------------------
class Prepared:
    """One tokenised sentence: exact keys, stem keys, their sets, and (built on first need)
    key -> ascending positions."""

    __slots__ = ("exact", "stem", "eset", "sset", "_pos", "_spos", "_syn_union")

    def __init__(self, exact: list[str], stem: list[str]):
        self.exact, self.stem = exact, stem
        self.eset, self.sset = set(exact), set(stem)
        self._pos = self._spos = self._syn_union = None

    def positions(self) -> dict[str, list[int]]:
        if self._pos is None:
            self._pos = _positions(self.exact, range(len(self.exact)))
        return self._pos

    def stem_positions(self) -> dict[str, list[int]]:
        if self._spos is None:
            self._spos = _positions(self.stem, range(len(self.stem)))
        return self._spos

    def syn_union(self, synonyms: Callable[[str], frozenset[str]]) -> frozenset[str]:
        """Every synonym of every stem: a reference sharing none of these cannot match in stage 3."""
        if self._syn_union is None:
            self._syn_union = frozenset().union(*map(synonyms, self.sset))
        return self._syn_union


def _stage_pairs(hpos: dict[str, list[int]], rpos: dict[str, list[int]],
                 pairs: list[tuple[int, int]], keys=None) -> None:
    """nltk ``_match_enums``: walking the hypothesis from its last word, each word takes the
    highest free equal reference word. Keys never interact, so for a key with hypothesis
    positions a and reference positions b this pairs the last k = min(|a|, |b|) of each, in order."""
    for w in hpos.keys() & rpos.keys() if keys is None else keys:
        a, b = hpos[w], rpos[w]
        if len(a) == 1 and len(b) == 1:
            pairs.append((a[0], b[0]))
        else:
            k = min(len(a), len(b))
            if k:
                pairs.extend(zip(a[len(a) - k:], b[len(b) - k:]))


def _positions(keys: Sequence[str], idx: Iterable[int]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i in idx:
        p = out.get(keys[i])
        if p is None:
            out[keys[i]] = [i]
        else:
            p.append(i)
    return out


def _synonym_stage(hyp_left: list[int], hkeys: Sequence[str], rpos: dict[str, list[int]],
                   synonyms: Callable[[str], frozenset[str]], pairs: list[tuple[int, int]]) -> None:
    """nltk ``_enum_wordnetsyn_match``: walking the hypothesis from its last word, among the free
    reference words that are synonyms of the word, the highest-positioned one (unique, so set
    iteration order cannot matter)."""
    for i in reversed(hyp_left):
        syns = synonyms(hkeys[i])
        if syns.isdisjoint(rpos):
            continue
        best, best_word = -1, None
        for word, p in rpos.items():
            if p and p[-1] > best and word in syns:
                best, best_word = p[-1], word
        if best_word is not None:
            rpos[best_word].pop()
            pairs.append((i, best))


def align_pairs(h: Prepared, r: Prepared, synonyms: Callable[[str], frozenset[str]]) -> list[tuple[int, int]]:
    """The matched (hypothesis, reference) positions of nltk's staged alignment: exact keys, then
    stem keys, then synonyms of the hypothesis stem among the reference stems (nltk passes stemmed
    leftovers). Set intersections decide first whether a stage can match anything at all, so most
    stages cost one C-level set operation."""
    pairs: list[tuple[int, int]] = []
    nh, nr = len(h.exact), len(r.exact)
    common = h.eset & r.eset
    if common:
        if len(h.eset) == nh and len(r.eset) == nr:  # no repeated word: one position each
            hx, rx = h.exact.index, r.exact.index
            pairs = [(hx(w), rx(w)) for w in common]
        else:
            _stage_pairs(h.positions(), r.positions(), pairs, common)
    if len(pairs) < nh and len(pairs) < nr and (not h.sset.isdisjoint(r.sset)
                                                 or not h.syn_union(synonyms).isdisjoint(r.sset)):
        mh = {i for i, _ in pairs}
        mr = {j for _, j in pairs}
        hyp_left = [i for i in range(nh) if i not in mh]
        ref_left = [j for j in range(nr) if j not in mr]
        hs, rs = h.stem, r.stem
        shared = {hs[i] for i in hyp_left}.intersection([rs[j] for j in ref_left])
        if shared:
            n0 = len(pairs)
            hp, rp = h.stem_positions(), r.stem_positions()
            _stage_pairs({k: [i for i in hp[k] if i not in mh] for k in shared},
                         {k: [j for j in rp[k] if j not in mr] for k in shared}, pairs, shared)
            mh.update(i for i, _ in pairs[n0:])
            mr.update(j for _, j in pairs[n0:])
            hyp_left = [i for i in hyp_left if i not in mh]
            ref_left = [j for j in ref_left if j not in mr]
        if hyp_left and ref_left:
            if not h.syn_union(synonyms).isdisjoint([rs[j] for j in ref_left]):
                _synonym_stage(hyp_left, hs, _positions(rs, ref_left), synonyms, pairs)
    return pairs


def count_chunks(pairs: list[tuple[int, int]]) -> int:
    """Chunks of a non-empty alignment: runs of matches adjacent in both sentences (sorts
    ``pairs`` in place, as nltk does)."""
    pairs.sort()
    chunks = 1
    pi, pj = pairs[0]
    for i, j in pairs[1:]:
        if i != pi + 1 or j != pj + 1:
            chunks += 1
        pi, pj = i, j
    return chunks


def score_from_counts(matches: int, hyp_len: int, ref_len: int, chunks: int,
                      alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """The METEOR formula, with nltk's exact floating-point operations (0 on a zero division)."""
    try:
        precision = float(matches) / hyp_len
        recall = float(matches) / ref_len
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag_frac = float(chunks) / matches
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


def _check_refs(refs: object, where) -> Sequence[Text]:
    if type(refs) is list and refs:
        return refs
    where = where() if callable(where) else where
    if isinstance(refs, str) or not isinstance(refs, Sequence):
        raise InputError(f"{where}: references must be a list (of strings or token lists)")
    if len(refs) == 0:
        raise InputError(f"{where}: empty reference list")
    return refs


@contextlib.contextmanager
def _gc_paused():
    """The hot loop allocates many short-lived acyclic objects; cyclic-GC passes over a large
    heap (e.g. a loaded nltk WordNet) would otherwise dominate its run time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
