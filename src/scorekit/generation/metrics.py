"""The caption family's metrics: importing this module registers every one of them (one line
per metric)."""

from __future__ import annotations

from scorekit.generation.bleu import BLEU
from scorekit.generation.cider import CIDEr, CIDErD, CIDErPlain
from scorekit.generation.meteor import METEOR
from scorekit.generation.rouge import RougeL, RougeLCoco
from scorekit.metrics.registry import register
from scorekit.neural.caption_metrics import BERTScore, CLIPScore

for _cls in (BLEU, METEOR, RougeL, RougeLCoco, CIDEr, CIDErD, CIDErPlain, BERTScore, CLIPScore):
    register(_cls)
