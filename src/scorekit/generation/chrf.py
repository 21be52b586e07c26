"""chrF and chrF++ (Popović 2015, 2017), exactly as sacrebleu's ``CHRF()`` and
``CHRF(word_order=2)``, on the metric contract.

For a hypothesis h and a reference r, per order n (character n-grams n = 1..6 on the text with
all whitespace removed, then for chrF++ word n-grams n = 1..2 on whitespace tokens with a
leading/trailing punctuation mark split off)::

    hyp_n   = |n-grams of h|   (0 when r has none of that order)
    ref_n   = |n-grams of r|
    match_n = sum_g min(count_h(g), count_r(g))

With several references the one with the best sentence chrF is kept. The corpus statistics are
the sums; from them, over the orders with hyp_n > 0 and ref_n > 0 (sacrebleu's effective order)::

    P = mean_n match_n / hyp_n,   R = mean_n match_n / ref_n
    chrF_beta = (1 + beta^2) P R / (beta^2 P + R),   beta = 2

scorekit reports it in [0, 1] (sacrebleu's number / 100), like BLEU's sacrebleu mode. Text is
NFC-normalised first (decomposed Hangul would otherwise split into jamo n-grams).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from scorekit.generation.batch import CaptionMetric
from scorekit.metrics.base import Param, Stats
from scorekit.metrics.registry import register
from scorekit.text.normalize import nfc

_PUNCTS = set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')


def _words(sent: str) -> list[str]:
    """sacrebleu's ``_remove_punctuation``: one punctuation mark split off a word's end (else
    its start)."""
    out: list[str] = []
    for w in sent.split():
        if len(w) > 1 and w[-1] in _PUNCTS:
            out += [w[:-1], w[-1]]
        elif len(w) > 1 and w[0] in _PUNCTS:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def _ngrams(sent: str, char_order: int, word_order: int, whitespace: bool) -> list[Counter]:
    line = sent if whitespace else "".join(sent.split())
    grams = [Counter(line[i:i + n] for i in range(len(line) - n + 1)) for n in range(1, char_order + 1)]
    if word_order:
        words = _words(sent)
        grams += [Counter(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))
                  for n in range(1, word_order + 1)]
    return grams


def f_score(stats, beta: float, eps_smoothing: bool = False) -> float:
    """chrF in [0, 1] from one row of [hyp, ref, match] x orders (sacrebleu ``_compute_f_score``
    without its x100)."""
    eps = 1e-16
    factor = beta ** 2
    score = avg_prec = avg_rec = 0.0
    effective = 0
    order = len(stats) // 3
    for i in range(order):
        n_hyp, n_ref, n_match = (int(x) for x in stats[3 * i: 3 * i + 3])
        prec = n_match / n_hyp if n_hyp > 0 else eps
        rec = n_match / n_ref if n_ref > 0 else eps
        denom = factor * prec + rec
        score += ((1 + factor) * prec * rec / denom) if denom > 0 else eps
        if n_hyp > 0 and n_ref > 0:
            avg_prec += prec
            avg_rec += rec
            effective += 1
    # x100 then /100: bit-identical to sacrebleu's number / 100
    if eps_smoothing:
        return 100 * score / order / 100
    if effective == 0:
        return 0.0
    avg_prec /= effective
    avg_rec /= effective
    if avg_prec + avg_rec:
        return 100 * ((1 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec)) / 100
    return 0.0


@register
class ChrF(CaptionMetric):
    """chrF: F-beta (beta 2) of character 1..6-gram precision and recall over corpus sums
    (sacrebleu CHRF() / 100).

    Per-item statistics: [hyp, ref, match] n-gram counts per order against the best reference."""

    name = "chrf"
    corpus = True
    params = CaptionMetric.own_tokens + (
        Param("char_order", int, 6, "character n-gram order", low=0),
        Param("word_order", int, 0, "word n-gram order (chrF++: 2)", low=0),
        Param("beta", int, 2, "weight of recall against precision", low=0),
        Param("lowercase", bool, False, "lower-case first"),
        Param("whitespace", bool, False, "keep whitespace in character n-grams"),
        Param("eps_smoothing", bool, False, "sacrebleu's eps smoothing (chrF++.py's) instead of the effective order"))

    def item_stats(self, batch) -> Stats:
        b = self.batch(batch)
        v = self.values
        order = v["char_order"] + v["word_order"]
        out = np.zeros((len(b), 3 * order), dtype=np.int64)

        def grams(text: str) -> list[Counter]:
            text = nfc(text)
            return _ngrams(text.lower() if v["lowercase"] else text, v["char_order"], v["word_order"],
                           v["whitespace"])

        for i, (pred, refs) in enumerate(zip(b.predictions, b.references)):
            hyp = grams(pred)
            best, best_f = None, -1.0
            for ref in refs:
                row = []
                for h, r in zip(hyp, grams(ref)):
                    match = sum(min(c, r[g]) for g, c in h.items() if g in r)
                    row += [sum(h.values()) if r else 0, sum(r.values()), match]
                f = f_score(row, v["beta"], v["eps_smoothing"])
                if f > best_f:
                    best, best_f = row, f
            out[i] = best
        return Stats({"stats": out})

    def score(self, stats: Stats) -> dict[str, float]:
        s = np.asarray(stats.columns.get("stats", np.zeros((0, 1))))
        if not len(s):
            return {self.name: float("nan")}
        return {self.name: f_score(s.sum(axis=0), self.values["beta"], self.values["eps_smoothing"])}

    def item_scores(self, stats: Stats) -> dict[str, np.ndarray]:
        s = np.asarray(stats.columns.get("stats", np.zeros((0, 1))))
        return {self.name: np.array([f_score(r, self.values["beta"], self.values["eps_smoothing"]) for r in s])}

@register
class ChrFPP(ChrF):
    """chrF++: chrF with word 1..2-grams added to the character 1..6-grams (sacrebleu
    CHRF(word_order=2) / 100)."""

    name = "chrf_pp"
    params = tuple(Param("word_order", int, 2, "word n-gram order", low=0) if p.name == "word_order" else p
                   for p in ChrF.params)
