"""Anchor: the spec's own Korean caption evaluation (caption-metrics.md §2.4, §3.3, §5.1, §5.2,
§6.1) as written — konlpy's Okt morphs, then per item with one reference (the first): nltk
METEOR (alpha 0.9, beta 3, gamma 0.5), pycocoevalcap CIDEr over that one image, nltk sentence
BLEU-4 (method1 smoothing) and rouge-score ROUGE-L F1 on space-joined Okt tokens; averaged.
(BERTScore is left out, as it is on the scorekit side.) nltk's WordNet is laid out from Debian's
files by scorekit.text.wordnet.export_for_nltk into a temporary folder, as the tests do.

    python spec_ko_caption.py predictions.json references.json out.json
"""

import json
import sys
import tempfile


def main(pred_path, ref_path, out_path):
    import nltk
    from konlpy.tag import Okt
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
    from nltk.translate.meteor_score import meteor_score
    from pycocoevalcap.cider.cider import Cider
    from rouge_score import rouge_scorer

    from scorekit.text.wordnet import export_for_nltk

    nltk.data.path.insert(0, str(export_for_nltk(tempfile.mkdtemp())))
    preds = json.load(open(pred_path, encoding="utf-8"))
    refs = json.load(open(ref_path, encoding="utf-8"))
    okt = Okt()
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    smoothing = SmoothingFunction().method1
    acc = {"meteor": 0.0, "cider": 0.0, "bleu_4": 0.0, "rouge_l": 0.0}
    for key, rs in refs.items():
        reference, hypothesis = rs[0], preds.get(key, "")
        ref_tokens, hyp_tokens = okt.morphs(reference), okt.morphs(hypothesis)
        acc["meteor"] += meteor_score([ref_tokens], hyp_tokens, alpha=0.9, beta=3.0, gamma=0.5)
        acc["cider"] += Cider().compute_score({"0": [reference]}, {"0": [hypothesis]})[0]
        acc["bleu_4"] += sentence_bleu([ref_tokens], hyp_tokens, weights=(0.25, 0.25, 0.25, 0.25),
                                       smoothing_function=smoothing)
        acc["rouge_l"] += scorer.score(" ".join(ref_tokens), " ".join(hyp_tokens))["rougeL"].fmeasure
    n = max(len(refs), 1)
    json.dump({k: v / n for k, v in acc.items()}, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
