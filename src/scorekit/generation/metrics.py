"""The caption family's metrics: importing this module registers every one of them."""

from __future__ import annotations

from scorekit.metrics.registry import declare

_F = "caption"
for _n in range(1, 5):
    declare(_F, f"bleu_{_n}", metric="bleu", corpus=True,
            doc=f"BLEU-{_n}: brevity penalty x geometric mean of clipped 1..{_n}-gram precisions "
                "over corpus sums (pycocoevalcap Bleu; sacrebleu / nltk sentence modes).")
declare(_F, "meteor", doc="METEOR: F-mean (alpha 0.9) of unigram matches after exact/stem/synonym "
        "alignment x (1 - 0.5 (chunks/matches)^3), best reference (nltk; Korean: Kiwi units).")
declare(_F, "rouge_l", doc="ROUGE-L F1: LCS-based precision/recall, best reference (rouge-score).")
declare(_F, "rouge_l_coco", metric="rouge_l_coco",
        doc="pycocoevalcap ROUGE-L: F_beta (beta 1.2) of max LCS precision and recall over references.")
declare(_F, "cider", kind="score", corpus=True, metric="cider",
        doc="CIDEr-D (pycocoevalcap Cider): 10 x mean_n clipped tf-idf cosine x Gaussian length "
            "penalty (sigma 6), idf from the evaluated references; 0..10.")
declare(_F, "cider_d", kind="score", corpus=True, metric="cider_d", doc="CIDEr-D under its precise name.")
declare(_F, "cider_plain", kind="score", corpus=True, metric="cider_plain",
        doc="Original CIDEr (vrama91): 10 x mean_n tf-idf cosine, no clipping, no length penalty.")
for _k, _w in (("p", "precision"), ("r", "recall"), ("f1", "F1")):
    declare(_F, f"bertscore_{_k}", metric="bertscore", kind="score",
            doc=f"BERTScore {_w}: greedy cosine matching of contextual token embeddings, best reference.")
declare(_F, "clipscore", metric="clipscore", kind="score",
        doc="CLIPScore: 2.5 x max(cos(image, caption), 0) with a CLIP model (0..2.5).")
declare(_F, "refclipscore", metric="clipscore", kind="score",
        doc="RefCLIPScore: harmonic mean of CLIPScore and the max caption-reference CLIP cosine.")
