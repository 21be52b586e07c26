"""Meteor 1.5's aligner, reimplemented step for step (``edu.cmu.meteor.aligner.Aligner``).

Line 1 is the hypothesis, line 2 the reference. Matching runs the four English stages in order
(0 exact, 1 stem, 2 synonym, 3 paraphrase), collecting candidate matches per line-2 start
position in the order Meteor adds them (that order breaks ties in the search):

* exact — equal word keys (Java ``String.hashCode``, as Meteor compares them);
* stem — equal Snowball stems' keys, different word keys;
* synonym — a shared WordNet synset (the word's own or its morphological base's, via the
  irregular-form list or WordNet's suffix rules), different word keys;
* paraphrase — a table phrase of line 2 whose paraphrase occurs in line 1, then a table phrase of
  line 1 whose paraphrase occurs in line 2 (phrases by length, paraphrases in file order,
  occurrences left to right).

Identical lines use the exact stage only. One-to-one matches that overlap no other are fixed;
the rest is a left-to-right beam search (beam 40) over line-2 positions, ranking partial
alignments by (more weighted matched words, fewer chunks, smaller distance) with Meteor's
quirks kept: the search weights 1.0/0.5/0.5/0.5 are added to *int* counters (so a one-word
non-exact match adds 0), the distance of a new match is added to the path it branched from,
and sorting is stable. Chunks are finally recounted over the chosen matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter


SEARCH_WEIGHTS = (1.0, 0.5, 0.5, 0.5)   # MeteorScorer sets these for the search
BEAM_SIZE = 40
N_MODULES = 4


@dataclass
class Sentence:
    """One normalised, lowercased line prepared for every stage."""

    words: list[str]
    keys: tuple[int, ...]                     # java hashCode of each word
    stems: tuple[int, ...]                    # java hashCode of each word's stem
    syns: list[frozenset[str]]                # per word: the batch's other words sharing a synset
    func: list[bool]
    ref_occ: dict[int, list[tuple[int, tuple[int, ...]]]]   # start -> [(length, paraphrase nodes)]
    node_pos: dict[int, list[int]]           # table phrase node -> start positions
    key_pos: dict[int, list[int]] = None     # word key -> positions (built on first use)
    stem_pos: dict[int, list[int]] = None
    word_pos: dict[str, list[int]] = None
    wordset: frozenset[str] = None
    stem_key: dict[int, int | None] = None  # stem -> the one word key with it, None for several

    def index(self) -> None:
        self.key_pos, self.stem_pos, self.word_pos, self.stem_key = {}, {}, {}, {}
        for i, (k, st, w) in enumerate(zip(self.keys, self.stems, self.words)):
            self.key_pos.setdefault(k, []).append(i)
            self.stem_pos.setdefault(st, []).append(i)
            self.word_pos.setdefault(w, []).append(i)
            if self.stem_key.setdefault(st, k) != k:
                self.stem_key[st] = None
        self.wordset = frozenset(self.word_pos)


# A match: (start, length, match_start, match_length, module, mask2, mask1, key_delta, distance)
#   start/length in line 2 (reference), match_* in line 1 (hypothesis); key_delta is what the
#   match adds to a path's ranking key (see _resolve), distance |start - match_start|.

_EXACT = -(2 << 64)          # an exact one-word match: int(1 * 1.0) + int(1 * 1.0) = 2 weighted words
_CHUNK = 1 << 32


def _para_delta(ln: int, ml: int) -> int:
    w = SEARCH_WEIGHTS[3]
    return -((int(ml * w) + int(ln * w)) << 64)


def _candidates(s1: Sentence, s2: Sentence, depth) -> tuple[list[list[tuple]], list[int], list[int]]:
    """Candidate matches per line-2 position, in the order Meteor's stages add them (stage by
    stage, line-1 positions ascending), with the coverage counts of both lines."""
    n1, n2 = len(s1.keys), len(s2.keys)
    cand: list[list[tuple]] = [[] for _ in range(n2)]
    cov1 = [0] * n1
    cov2 = [0] * n2
    k1, k2 = s1.keys, s2.keys
    if s1.key_pos is None:
        s1.index()
    identical = n1 == n2 and k1 == k2
    key_pos, stem_pos, word_pos, wordset = s1.key_pos, s1.stem_pos, s1.word_pos, s1.wordset
    stem_key = s1.stem_key
    st2, sy2 = s2.stems, s2.syns
    for j in range(n2):
        kj = k2[j]
        cj = cand[j]
        bit = 1 << j
        for i in key_pos.get(kj, ()):
            cj.append((j, 1, i, 1, 0, bit, 1 << i, _EXACT, abs(j - i)))
            cov1[i] += 1
        if identical:
            continue
        stj = st2[j]
        if stem_key.get(stj, kj) != kj:       # a line-1 word with this stem and another key
            for i in stem_pos[stj]:
                if k1[i] != kj:
                    cj.append((j, 1, i, 1, 1, bit, 1 << i, 0, abs(j - i)))
                    cov1[i] += 1
        yj = sy2[j]
        if yj and not yj.isdisjoint(wordset):
            words = yj & wordset
            hits = word_pos[next(iter(words))] if len(words) == 1 else sorted(
                i for w in words for i in word_pos[w])
            for i in hits:
                if k1[i] != kj:
                    cj.append((j, 1, i, 1, 2, bit, 1 << i, 0, abs(j - i)))
                    cov1[i] += 1
        cov2[j] = len(cj)
    if identical:
        return cand, cov1, cov2

    def add(j, ln, i, ml):
        cand[j].append((j, ln, i, ml, 3, ((1 << ln) - 1) << j, ((1 << ml) - 1) << i,
                        _para_delta(ln, ml), abs(j - i)))
        for k in range(ml):
            cov1[i + k] += 1
        for k in range(ln):
            cov2[j + k] += 1

    # paraphrases of line-2 phrases found in line 1, then of line-1 phrases found in line 2
    pos1 = s1.node_pos
    for j, occ in s2.ref_occ.items():          # starts ascending (insertion order)
        for ln, paras in occ:
            for p in paras:
                for i in pos1.get(p, ()):
                    add(j, ln, i, depth[p])
    pos2 = s2.node_pos
    for i, occ in s1.ref_occ.items():
        for ml, paras in occ:
            for p in paras:
                got = pos2.get(p)
                if got:
                    ln = depth[p]
                    for j in got:
                        add(j, ln, i, ml)
    return cand, cov1, cov2


_KEY = itemgetter(1)


def _resolve(cand, fixed, n2, used2, used1, beam=BEAM_SIZE):
    """Aligner.resolve. A path is a list ``[chain, key, idx, last_end, used2, used1]``: ``chain``
    the matches chosen by the search as a linked list ``(match, parent_chain)``; ``key`` the
    ranking of Constants.PARTIAL_COMPARE_TOTAL as one integer, smaller is better::

        key = chunks * 2**32 + distance - (m1 + m2) * 2**64

    (more weighted matches first, then fewer chunks, then smaller distance; chunks and distance
    stay far below 2**32). Meteor's search adds ``int(m1 + length * weight)`` with weights
    1/0.5/0.5/0.5 to integer counters, which is the integer part of ``length * weight`` added: each
    match carries that as ``key_delta``. A match starting at a position a path has not reached yet
    can only be one of the ``fixed`` ones (the search places matches behind the path's index)."""
    next_paths = [[None, 0, 0, -1, used2, used1]]
    for current in range(n2):
        paths = next_paths
        next_paths = []
        if len(paths) > 1:
            paths.sort(key=_KEY)
            if len(paths) > beam:
                del paths[beam:]
        bit = 1 << current
        cj = cand[current]
        for path in paths:
            if path[4] & bit:
                if current < path[2]:
                    next_paths.append(path)
                else:
                    m = fixed[path[2]]
                    if m is not None:
                        key = path[1] + m[7] + m[8]
                        if path[3] != -1 and m[2] != path[3]:
                            key += _CHUNK
                        path[1] = key
                        path[2] = m[0] + m[1]
                        path[3] = m[2] + m[3]
                        next_paths.append(path)
                continue
            last = path[3]
            if cj:
                u2, u1, chain = path[4], path[5], path[0]
                for m in cj:
                    if u2 & m[5] or u1 & m[6]:
                        continue
                    key = path[1] + m[7]
                    if last != -1 and m[2] != last:
                        key += _CHUNK
                    next_paths.append([(m, chain), key, m[0] + m[1], m[2] + m[3], u2 | m[5], u1 | m[6]])
                    path[1] += m[8]                   # sic: Meteor adds the distance to the parent
            if last != -1:
                path[1] += _CHUNK
                path[3] = -1
            path[2] += 1
            next_paths.append(path)
        if not next_paths:
            next_paths.append(paths[0])
    paths = next_paths
    if len(paths) > 1:
        paths.sort(key=_KEY)
        if len(paths) > beam:
            del paths[beam:]
    for path in paths:
        if path[3] != -1:
            path[1] += _CHUNK
    paths.sort(key=_KEY)
    best = list(fixed)
    chain = paths[0][0]
    while chain is not None:
        m, chain = chain
        best[m[0]] = m
    return best


def align_stats(s1: Sentence, s2: Sentence, depth) -> tuple:
    """Meteor's sufficient statistics of (hypothesis s1, reference s2): a tuple
    ``(test_len, ref_len, test_func, ref_func, tc0, rc0, tf0, rf0, ..., tc3, rc3, tf3, rf3,
    chunks, test_word_matches, ref_word_matches)`` (MeteorStats' 23-field order)."""
    n1, n2 = len(s1.keys), len(s2.keys)
    cand, cov1, cov2 = _candidates(s1, s2, depth)
    fixed: list = [None] * n2
    used1 = used2 = 0
    ambiguous = False
    for j in range(n2):
        cj = cand[j]
        if not cj:
            continue
        if len(cj) == 1:
            m = cj[0]
            if m[1] == 1 and m[3] == 1:
                ok = cov2[j] == 1 and cov1[m[2]] == 1
            else:
                ok = (all(cov2[j + k] == 1 for k in range(m[1]))
                      and all(cov1[m[2] + k] == 1 for k in range(m[3])))
            if ok:
                fixed[j] = m
                used2 |= m[5]
                used1 |= m[6]
                continue
        ambiguous = True
    best = _resolve(cand, fixed, n2, used2, used1) if ambiguous else fixed
    f1, f2 = s1.func, s2.func
    counts = [0] * 16
    # the stage counts and getCountAndChunks in one pass over the chosen (non-overlapping) matches
    chunks = words1 = words2 = 0
    idx, last = 0, -1
    while idx < n2:
        m = best[idx]
        if m is None:
            if last != -1:
                chunks += 1
                last = -1
            idx += 1
            continue
        i, ml, ln = m[2], m[3], m[1]
        base = 4 * m[4]
        if ml == 1 and ln == 1:
            counts[base + (2 if f1[i] else 0)] += 1
            counts[base + (3 if f2[idx] else 1)] += 1
        else:
            for k in range(i, i + ml):
                counts[base + (2 if f1[k] else 0)] += 1
            for k in range(idx, idx + ln):
                counts[base + (3 if f2[k] else 1)] += 1
        words1 += ml
        words2 += ln
        if last != -1 and i != last:
            chunks += 1
        idx += ln
        last = i + ml
    if last != -1:
        chunks += 1
    return (n1, n2, sum(f1), sum(f2), *counts, chunks, words1, words2)
