"""Anchor: pycocoevalcap's whole pipeline as a COCO user runs it — PTBTokenizer (Java CoreNLP),
then Bleu(4), Rouge, Cider on the tokenised captions.

    python coco_caption.py predictions.json references.json out.json
"""

import json
import sys

from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer


def main(pred_path, ref_path, out_path):
    preds = json.load(open(pred_path, encoding="utf-8"))
    refs = json.load(open(ref_path, encoding="utf-8"))
    gts = {k: [{"caption": r} for r in v] for k, v in refs.items()}
    res = {k: [{"caption": preds.get(k, "")}] for k in refs}
    tok = PTBTokenizer()
    gts, res = tok.tokenize(gts), tok.tokenize(res)
    out = {}
    b, _ = Bleu(4).compute_score(gts, res, verbose=0)
    out.update({f"bleu_{i + 1}": v for i, v in enumerate(b)})
    out["rouge_l_coco"], _ = Rouge().compute_score(gts, res)
    out["cider"], _ = Cider().compute_score(gts, res)
    json.dump({k: float(v) for k, v in out.items()}, open(out_path, "w"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
