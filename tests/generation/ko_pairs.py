"""The team's Korean pair set (tests/generation/data/ko_pairs.tsv): loader and category means.

Run ``python tests/generation/ko_pairs.py`` to print the per-category means of Korean METEOR,
ROUGE-L F1 and sentence BLEU-2 (nltk method1 smoothing) — the before/after table of issue #15.
``--units surface|content`` picks the ROUGE/BLEU Korean units where the code supports it.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "ko_pairs.tsv"
CATEGORIES = ("particles", "endings", "honorifics", "light_verbs", "spacing", "synonyms",
              "sense_traps", "numerals", "copula_aux", "unrelated")


def load_pairs(path: Path = DATA) -> list[tuple[str, str, str, str]]:
    """(category, hyp, ref, baseline ref or '') rows, header and comments skipped."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("category\t"):
            continue
        fields = line.split("\t")
        cat, hyp, ref = fields[:3]
        base = fields[3] if len(fields) > 3 else ""
        assert cat in CATEGORIES, cat
        rows.append((cat, hyp, ref, base))
    return rows


def scores(rows, units: str | None = None, **meteor_kw) -> dict[str, list[float]]:
    """{"meteor"|"rouge_l"|"bleu_2"|"meteor_base": per-row scores}."""
    from scorekit.generation.bleu import bleu_stats_batch, nltk_sentence_bleu, nltk_weights
    from scorekit.generation.meteor import meteor_batch
    from scorekit.generation.rouge import rouge_scores
    from scorekit.text.tokenizers import tokenize_batch

    hyps = [r[1] for r in rows]
    refs = [[r[2]] for r in rows]
    out = {"meteor": list(meteor_batch(hyps, refs, lang="ko", **meteor_kw))}
    base = [r[3] or r[2] for r in rows]
    out["meteor_base"] = list(meteor_batch(hyps, [[b] for b in base], lang="ko", **meteor_kw))
    rkw = {} if units is None else {"units": units}
    out["rouge_l"] = list(rouge_scores(hyps, [r[0] for r in refs], kinds=("rougeL",), lang="ko",
                                       **rkw)["rougeL"]["fmeasure"])
    tok = "kiwi" if units in (None, "surface") else "ko-content"
    th = tokenize_batch(hyps, tok)
    tr = tokenize_batch([r[2] for r in rows], tok)
    stats = bleu_stats_batch(th, [[t] for t in tr])
    out["bleu_2"] = [nltk_sentence_bleu(s, nltk_weights(2)) for s in stats]
    return out


def category_means(rows, sc) -> dict[str, dict[str, float]]:
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for i, row in enumerate(rows):
        for k, v in sc.items():
            acc[row[0]][k].append(float(v[i]))
    return {c: {k: sum(v) / len(v) for k, v in acc[c].items()} for c in CATEGORIES if c in acc}


def main(argv: list[str]) -> None:
    units = argv[argv.index("--units") + 1] if "--units" in argv else None
    rows = load_pairs()
    means = category_means(rows, scores(rows, units))
    print(f"{len(rows)} pairs; units={units or 'default'}")
    print(f"{'category':<12} {'n':>3} {'meteor':>7} {'rouge_l':>7} {'bleu_2':>7}  trap-baseline")
    counts = defaultdict(int)
    for r in rows:
        counts[r[0]] += 1
    for c, m in means.items():
        extra = f"  {m['meteor_base']:.3f}" if c == "sense_traps" else ""
        print(f"{c:<12} {counts[c]:>3} {m['meteor']:7.3f} {m['rouge_l']:7.3f} {m['bleu_2']:7.3f}{extra}")


if __name__ == "__main__":
    main(sys.argv[1:])
