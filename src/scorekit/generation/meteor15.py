"""METEOR 1.5 as the COCO caption toolkit reports it — the Meteor 1.5 jar's numbers, without Java.

pycocoevalcap runs ``java -jar meteor-1.5.jar - - -stdio -l en -norm``: English, the default
("rank") task, text normalisation on. This module reimplements that pipeline:

1. ``-norm``: Meteor's normaliser (punctuation split, quotes/dashes, contractions, non-breaking
   prefixes) then lowercasing; tokens split on whitespace (:mod:`.meteor15_text`).
2. The aligner (:mod:`.meteor15_align`): exact, Snowball-stem, WordNet-synonym and paraphrase
   matches, the beam search (beam 40) and the chunk count.
3. Per hypothesis/reference pair, the sufficient statistics (MeteorStats): lengths ``t``, ``r``;
   function words ``t_f``, ``r_f``; per stage i the matched content / function words in the
   hypothesis and reference ``tc_i, rc_i, tf_i, rf_i``; ``chunks``; matched words ``m_t, m_r``.
4. The score of a statistics row, with the English rank-task parameters alpha 0.85, beta 0.2,
   gamma 0.6, delta 0.75 and stage weights w = (1.0, 0.6, 0.8, 0.6)::

       P = sum_i w_i (delta tc_i + (1-delta) tf_i) / (delta (t - t_f) + (1-delta) t_f)
       R = sum_i w_i (delta rc_i + (1-delta) rf_i) / (delta (r - r_f) + (1-delta) r_f)
       Fmean = 1 / ((1-alpha)/P + alpha/R)
       frag = 0 if everything matched in one chunk, else chunks / ((m_t + m_r) / 2)
       score = max(0, Fmean (1 - gamma frag^beta))        (0 when undefined)

   A segment with several references keeps the statistics of its best-scoring reference (the
   first one on ties).
5. The system score is the score of the statistics summed over segments (``EVAL``), where a
   segment matched completely in one chunk adds no chunk — not the mean of segment scores.

With ``coco=True`` (the default) inputs are passed as pycocoevalcap's wrapper passes them: ``|||``
removed from hypotheses and references split at ``|||``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.forkmap import default_workers, fork_map, split
from scorekit.generation.batch import CaptionMetric
from scorekit.generation.meteor15_align import N_MODULES, Sentence, align_stats
from scorekit.generation.meteor_align import _gc_paused
from scorekit.generation.meteor15_resources import load
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.generation.meteor15_text import (java_hash, java_lower, java_tokens, java_trim,
                                               normalize_line, snowball_english)

ALPHA, BETA, GAMMA, DELTA = 0.85, 0.20, 0.60, 0.75
_PLAIN = re.compile(r"[A-Za-z0-9 ]*\Z").match
WEIGHTS = (1.0, 0.6, 0.8, 0.6)
N_STATS = 23
MIN_PAIRS_PER_PROCESS = 1000     # below this a forked process costs more than it saves


# ----------------------------------------------------------------------------- scoring
def _perfect(s: np.ndarray) -> np.ndarray:
    """Rows matched completely, in one chunk."""
    ttot = s[:, 4:20:4].sum(axis=1) + s[:, 6:20:4].sum(axis=1)
    rtot = s[:, 5:20:4].sum(axis=1) + s[:, 7:20:4].sum(axis=1)
    return (ttot == s[:, 0]) & (rtot == s[:, 1]) & (s[:, 20] == 1.0)


def _weighted_matches(s: np.ndarray, col: int) -> np.ndarray:
    """sum_i w_i (delta c_i + (1-delta) f_i) of the hypothesis (col 4) or reference (col 5), in
    MeteorScorer's order: every content term first, then every function term."""
    acc = np.zeros(len(s))
    for off, d in ((0, DELTA), (2, 1.0 - DELTA)):
        for i in range(N_MODULES):
            acc = acc + s[:, col + off + 4 * i] * WEIGHTS[i] * d
    return acc


def segment_scores(stats: np.ndarray) -> np.ndarray:
    """MeteorScorer.computeMetrics for each row of ``stats`` (n x 23), same operation order."""
    s = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tl, rl, tfw, rfw = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
        precision = _weighted_matches(s, 4) / ((DELTA * (tl - tfw)) + ((1.0 - DELTA) * tfw))
        recall = _weighted_matches(s, 5) / ((DELTA * (rl - rfw)) + ((1.0 - DELTA) * rfw))
        fmean = 1.0 / (((1.0 - ALPHA) / precision) + (ALPHA / recall))
        frag = np.where(_perfect(s), 0.0, s[:, 20] / ((s[:, 21] + s[:, 22]) / 2))
        score = fmean * (1.0 - GAMMA * np.power(frag, BETA))
    return np.where(np.isnan(score), 0.0, np.maximum(score, 0.0))


def aggregate(stats: np.ndarray) -> np.ndarray:
    """MeteorStats.addStats over all rows: sums, except that a segment matched completely in
    one chunk contributes no chunk."""
    s = np.atleast_2d(np.asarray(stats, dtype=np.float64))
    if not len(s):
        return np.zeros(N_STATS)
    out = s.sum(axis=0)
    out[20] = s[~_perfect(s), 20].sum()
    return out


def system_score(stats: np.ndarray) -> float:
    """The score pycocoevalcap reports: computeMetrics on the aggregated statistics."""
    return float(segment_scores(aggregate(stats)[None, :])[0])


# ----------------------------------------------------------------------------- the scorer
@dataclass
class Meteor15Output:
    score: float                 # system score (aggregated statistics)
    scores: np.ndarray           # per-segment scores
    stats: np.ndarray            # per-segment statistics of the chosen reference (n x 23)
    signature: str


def coco_inputs(hypothesis: str, references: Sequence[str]) -> tuple[str, list[str]]:
    """What the jar receives from pycocoevalcap's ``Meteor._stat``: the ``SCORE ||| r1 ||| ...
    ||| hyp`` line, split back at ``|||`` and trimmed (a newline would end the line; it is read
    as a space here)."""
    hyp = hypothesis.replace("|||", "").replace("  ", " ")
    line = " ||| ".join(("SCORE", " ||| ".join(references), hyp))
    line = line.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    parts = line.split("|||")
    while parts and parts[-1] == "":
        parts.pop()
    return java_trim(parts[-1]), [java_trim(p) for p in parts[1:-1]]


class Meteor15:
    """Meteor 1.5 (English, ``-norm``) with resources from :func:`meteor15_resources.load`."""

    def __init__(self, resources: str | os.PathLike | None = None):
        self.res = load(resources)
        self._word: dict[str, tuple] = {}   # word -> (key, stem key, synsets, function word, paraphrase id)

    def signature(self) -> str:
        return (f"meteor-1.5,en,norm,rank,a{ALPHA:g},b{BETA:g},g{GAMMA:g},d{DELTA:g},"
                f"w{'/'.join(f'{w:g}' for w in WEIGHTS)},beam40,{self.res.fingerprint()}")

    def tokenize(self, text: str) -> list[str]:
        """``-norm`` then lowercase then whitespace tokens, as Meteor aligns them."""
        if _PLAIN(text):   # letters, digits and spaces only: -norm changes nothing but case
            return text.lower().split()
        return java_tokens(java_lower(normalize_line(text, self.res.nonbreaking)))

    def prepare(self, texts: Sequence[str]) -> list[Sentence]:
        res, table, words = self.res, self.res.paraphrase, self._word
        toks = [self.tokenize(t) for t in texts]
        new = [w for w in {w for ws in toks for w in ws} if w not in words]
        res.synonyms.preload(new)          # the batch's words looked up together
        for w in new:
            words[w] = (java_hash(w), java_hash(snowball_english(w)), res.synonyms.all_synsets(w),
                        java_lower(w) in res.function_words, table.vocab.get(w, -1))
        # every table phrase of every sentence, vectorised over the whole batch
        lens = np.fromiter((len(ws) + 1 for ws in toks), np.int64, len(toks))
        flat = np.fromiter((x for ws in toks for x in [*(words[w][4] for w in ws), -1]), np.int64,
                           int(lens.sum()))
        nodes = table.walk(flat) if len(flat) else np.zeros((0, table.max_len), np.int64)
        present = np.unique(nodes[nodes > 0])
        paras = table.paraphrases_of(present)
        kept = {ref: tuple(ps[np.isin(ps, present)].tolist()) for ref, ps in paras.items()}
        kept = {ref: ps for ref, ps in kept.items() if ps}
        targets = {p for ps in kept.values() for p in ps}
        starts = np.concatenate([[0], np.cumsum(lens)])
        ref_occ: list[dict[int, list]] = [{} for _ in toks]
        node_pos: list[dict[int, list[int]]] = [{} for _ in toks]
        interesting = np.fromiter(set(kept) | targets, np.int64) if kept else np.zeros(0, np.int64)
        if len(interesting):
            cells = np.nonzero(np.isin(nodes, interesting))
            flat_pos, lengths = cells[0], cells[1] + 1
            sent = np.searchsorted(starts, flat_pos, side="right") - 1
            local = flat_pos - starts[sent]
            for k, p, ln, node in zip(sent.tolist(), local.tolist(), lengths.tolist(),
                                      nodes[cells].tolist()):
                paras_k = kept.get(node)
                if paras_k is not None:
                    ref_occ[k].setdefault(p, []).append((ln, paras_k))
                if node in targets:
                    node_pos[k].setdefault(node, []).append(p)
        # synonyms as word relations within the batch: words sharing a WordNet synset
        by_synset: dict[int, list[str]] = {}
        vocab = {w: words[w][2] for ws in toks for w in ws}
        for w, syns in vocab.items():
            for x in syns:
                by_synset.setdefault(x, []).append(w)
        # (the word itself left out: an equal word is no synonym match)
        related = {w: frozenset(v for x in syns for v in by_synset[x] if v != w)
                   for w, syns in vocab.items()}
        return [Sentence(ws, tuple(words[w][0] for w in ws), tuple(words[w][1] for w in ws),
                         [related[w] for w in ws], [words[w][3] for w in ws], ref_occ[k],
                         node_pos[k]) for k, ws in enumerate(toks)]

    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]], *,
              coco: bool = True, tokenize: Callable[[str], list[str]] | None = None) -> Meteor15Output:
        """Segment statistics, segment scores and the system score of hypotheses against their
        references (each a non-empty list). ``tokenize``, when given, first maps every text to
        its tokens joined by spaces (what COCOEvalCap sends after its PTB tokenizer); it runs in
        the parallel parts with the alignment."""
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")

        def rows_of(rg: range) -> np.ndarray:
            hs, rss = hypotheses[rg.start:rg.stop], references[rg.start:rg.stop]
            if tokenize is not None:
                hs = [" ".join(tokenize(h)) for h in hs]
                rss = [[" ".join(tokenize(r)) for r in rs] for rs in rss]
            return self._rows([coco_inputs(h, rs) if coco else (h, list(rs))
                               for h, rs in zip(hs, rss)])

        with _gc_paused():   # millions of short-lived tuples and no cycles: the cyclic GC only costs
            # contiguous parts on this machine's cores: a pair's statistics depend only on its
            # own sentences, so the parts' rows are the whole's
            n = len(hypotheses)
            parts = split(n, min(default_workers(), n // MIN_PAIRS_PER_PROCESS)) or [range(0)]
            rows = np.concatenate(fork_map(rows_of, parts)) if len(parts) > 1 else rows_of(parts[0])
        scores = segment_scores(rows) if len(rows) else np.zeros(0)
        system = system_score(rows) if len(rows) else float("nan")
        return Meteor15Output(system, scores, rows, self.signature())

    def _rows(self, pairs: list[tuple[str, list[str]]]) -> np.ndarray:
        """The statistics of the best reference of each (hypothesis, references) pair."""
        texts = dict.fromkeys(t for h, rs in pairs for t in (h, *rs))   # first-appearance order
        distinct = {t: i for i, t in enumerate(texts)}
        sents = self.prepare(list(distinct))
        depth_map = _DepthMap(self.res.paraphrase.depth)
        memo: dict[tuple[int, int], tuple] = {}
        all_st, group = [], []   # the statistics of every (hypothesis, reference) pair, its item
        for n, (h, rs) in enumerate(pairs):
            hi = distinct[h]
            for r in rs:
                key = (hi, distinct[r])
                st = memo.get(key)
                if st is None:
                    st = memo[key] = align_stats(sents[hi], sents[key[1]], depth_map)
                all_st.append(st)
                group.append(n)
        rows = np.zeros((len(pairs), N_STATS))
        if all_st:
            cand = np.asarray(all_st, dtype=np.float64)
            cand_scores = segment_scores(cand)
            grp = np.asarray(group, dtype=np.int64)
            # the best reference: highest score, the first one on ties (Meteor keeps a reference
            # only when its score is strictly greater than the best so far)
            order = np.lexsort((np.arange(len(grp)), -cand_scores, grp))
            first = order[np.r_[True, grp[order][1:] != grp[order][:-1]]]
            rows[grp[first]] = cand[first]
        return rows


class _DepthMap(dict):
    """node -> phrase length, cached (the depth array is memory-mapped)."""

    def __init__(self, depth):
        super().__init__()
        self.depth = depth

    def __missing__(self, node: int) -> int:
        d = self[node] = int(self.depth[node])
        return d


def meteor15(hypotheses: Sequence[str], references: Sequence[Sequence[str]], *,
             resources: str | os.PathLike | None = None, coco: bool = True) -> Meteor15Output:
    """One call: ``meteor15(["a dog runs"], [["a dog is running", "the dog runs"]]).score``."""
    return Meteor15(resources).score(hypotheses, references, coco=coco)


# ----------------------------------------------------------------------------- integrations
@register
class Meteor15Metric(CaptionMetric):
    """Meteor 1.5 as pycocoevalcap's jar reports it (English, -norm), without Java.

    Per item the 23 Meteor statistics of the best reference (on the caption tokens joined by
    spaces, what COCOEvalCap sends after its PTB tokenizer); the corpus value is computed from
    their aggregate (not a mean), the per-item value is the segment score."""

    name = "meteor15"
    keys = ("meteor15",)
    kind = "rate"
    corpus = True
    params = CaptionMetric.params + (
        Param("resources", str, None, "Meteor 1.5 distribution folder (default: $SCOREKIT_METEOR15 or "
                                      "pycocoevalcap's)", signature=False),)

    def _scorer(self) -> Meteor15:
        if getattr(self, "_m15", None) is None:
            self._m15 = Meteor15(self.values.get("resources"))
        return self._m15

    def pins(self):
        return {"meteor": self._scorer().signature()}

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        if b.lang != "en":
            raise ScorekitError("meteor15 is Meteor 1.5 for English (-l en); for Korean use --metrics meteor")
        scorer, tokenize = self._scorer(), b.per_text_tokenizer()
        if tokenize is not None:
            # nothing has tokenised the batch yet: tokenise inside meteor's parallel parts
            out = scorer.score(b.predictions, b.references, tokenize=tokenize)
        else:
            hyps, refs = b.tokens()
            out = scorer.score([" ".join(h) for h in hyps], [[" ".join(r) for r in rs] for rs in refs])
        return Stats({"stats": np.asarray(out.stats, dtype=np.float64).reshape(-1, N_STATS)})

    def score(self, stats: Stats) -> dict[str, float]:
        rows = stats.columns.get("stats", np.zeros((0, N_STATS)))
        return {"meteor15": system_score(rows) if len(rows) else float("nan")}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        return {"meteor15": segment_scores(stats.columns.get("stats", np.zeros((0, N_STATS))))}
