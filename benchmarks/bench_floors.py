"""floors: what the two unmet goals of issue #13 would need from this machine.

Two goals of the speed issue are not met on the project's 2-core CPU machine, and this benchmark
measures why, so anyone can check the claim on their own hardware:

* **Korean captions, 100,000 images x 5 references in under 60 s.** Every text (600,000 of them:
  one prediction and five references per image) must go through Kiwi's morphological analysis,
  which is what defines the Korean tokens. This measures Kiwi *alone* (no scorekit code, Kiwi's
  own worker threads on every core, warmed up) on generated Korean captions of the caption
  bench's shape and prints the seconds one Kiwi pass over 600,000 texts needs. scorekit's
  ``caption --lang ko --metrics bleu,rouge_l,cider`` makes two passes (the plain Kiwi for CIDEr,
  the lexicon Kiwi for BLEU and ROUGE-L), plus about 5 s of model loading.
* **BERTScore at least 2x bert_score at 20,000 pairs on CPU.** Both compute the same fp32
  transformer forward pass; changing its arithmetic (bf16, int8) would break the agreement with
  bert_score. This counts the tokens scorekit's length-sorted batches really feed the model
  (padding included) on the e2e bench's pairs, the floating-point operations of the model's
  linear layers alone (the rest of the model is ignored, so this is a lower bound), measures the
  sustained fp32 matrix-product rate of this CPU at those shapes, and prints the seconds the
  linear layers alone need. With ``BENCH_FLOORS_ANCHOR=1`` it also runs bert_score's whole
  pipeline on the same pairs (a process, as in the e2e bench) and prints half its time: the
  budget 2x would leave.

    python -m benchmarks floors
    BENCH_FLOORS_KO_TEXTS=30000 BENCH_FLOORS_PAIRS=20000 BENCH_FLOORS_ANCHOR=1 python -m benchmarks floors
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KO_TEXTS = int(os.environ.get("BENCH_FLOORS_KO_TEXTS", "30000"))
PAIRS = int(os.environ.get("BENCH_FLOORS_PAIRS", "20000"))
RUN_ANCHOR = os.environ.get("BENCH_FLOORS_ANCHOR", "") not in ("", "0")
KO_GOAL_TEXTS, KO_GOAL_S = 600_000, 60.0


def kiwi_floor() -> None:
    from kiwipiepy import Kiwi

    from benchmarks.gen import ko_caption

    rng = random.Random(0)
    texts = [ko_caption(rng) for _ in range(KO_TEXTS)]
    workers = os.cpu_count() or 1
    t0 = time.perf_counter()
    kiwi = Kiwi(num_workers=workers)
    kiwi.tokenize(texts[:200])            # model load and first analysis
    load = time.perf_counter() - t0
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        morphs = sum(len(toks) for toks in kiwi.tokenize(texts))
        best = min(best, time.perf_counter() - t0)
    rate = len(texts) / best
    one_pass = KO_GOAL_TEXTS / rate
    print(f"Kiwi alone ({kiwi.model_type} model, {workers} worker threads): {len(texts):,} captions "
          f"({morphs:,} morphs) in {best:.2f} s = {rate:,.0f} texts/s; load + warm-up {load:.2f} s")
    print(f"  one Kiwi pass over {KO_GOAL_TEXTS:,} texts (100,000 images x (1 + 5)): {one_pass:.1f} s "
          f"(goal for the whole run: {KO_GOAL_S:.0f} s; scorekit's bleu,rouge_l,cider run makes 2 passes "
          f"= {2 * one_pass:.1f} s)")
    print(f"  the goal needs Kiwi at {KO_GOAL_TEXTS / KO_GOAL_S:,.0f} texts/s or more for ONE pass: "
          f"{KO_GOAL_TEXTS / KO_GOAL_S / rate:.2f}x this machine")


def _gemm_rate(torch, hidden: int, ffn: int, rows: int) -> float:
    """Sustained fp32 GFLOP/s of ``torch.nn.functional.linear`` at one BERT layer's shapes."""
    x = torch.randn(rows, hidden)
    h = torch.randn(rows, ffn)
    shapes = [(x, torch.randn(hidden, hidden), torch.randn(hidden))] * 4 + [
        (x, torch.randn(ffn, hidden), torch.randn(ffn)), (h, torch.randn(hidden, ffn), torch.randn(hidden))]
    flops = sum(2 * a.shape[0] * w.shape[0] * w.shape[1] for a, w, _ in shapes)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(10):
            for a, w, b in shapes:
                torch.nn.functional.linear(a, w, b)
        best = min(best, (time.perf_counter() - t0) / 10)
    return flops / best / 1e9


def bertscore_floor() -> None:
    import torch
    from transformers import AutoConfig, AutoTokenizer

    from benchmarks import gen
    from scorekit.neural.encoder import default_model_path

    model = default_model_path()
    cfg = AutoConfig.from_pretrained(str(model))
    tok = AutoTokenizer.from_pretrained(str(model))
    with tempfile.TemporaryDirectory() as tmp:
        p, r = gen.captions(Path(tmp), PAIRS, refs=1)
        preds = json.loads(p.read_text(encoding="utf-8"))
        refs = json.loads(r.read_text(encoding="utf-8"))
        texts = list(dict.fromkeys(list(preds.values()) + [v[0] for v in refs.values()]))
        lens = sorted((len(x) for x in tok(texts)["input_ids"]), reverse=True)
        batch = 64  # scorekit's BERTScore batch size; batches are length-sorted as here
        padded = sum(max(lens[i:i + batch]) * len(lens[i:i + batch]) for i in range(0, len(lens), batch))
        layers, hidden, ffn = 6, cfg.hidden_size, cfg.intermediate_size   # layer 6 of 6, as in the bench
        flops = 2 * padded * layers * (4 * hidden * hidden + 2 * hidden * ffn)
        rows = batch * round(sum(lens) / len(lens))
        rate = _gemm_rate(torch, hidden, ffn, rows)
        floor = flops / rate / 1e9
        print(f"BERTScore ({model.parent.name}/{model.name}, layer {layers}, {torch.get_num_threads()} torch threads): "
              f"{PAIRS:,} pairs -> {len(texts):,} distinct sentences, {sum(lens):,} tokens, "
              f"{padded:,} with padding")
        print(f"  linear layers alone: {flops / 1e12:.2f} TFLOP at {rate:.0f} GFLOP/s sustained fp32 "
              f"(measured here at {rows} x {hidden} -> {ffn}) = {floor:.1f} s")
        if RUN_ANCHOR:
            out = Path(tmp) / "anchor.json"
            root = Path(__file__).resolve().parent.parent
            t0 = time.perf_counter()
            subprocess.run([sys.executable, str(root / "benchmarks" / "anchors" / "bert_score_pairs.py"),
                            str(p), str(r), str(model), str(out)], check=True, cwd=root,
                           env={**os.environ, "PYTHONPATH": str(root)})
            anchor = time.perf_counter() - t0
            print(f"  bert_score whole pipeline, same pairs: {anchor:.1f} s -> 2x leaves {anchor / 2:.1f} s "
                  f"for scorekit's whole run, against {floor:.1f} s for its linear layers alone")


def main() -> None:
    kiwi_floor()
    bertscore_floor()


if __name__ == "__main__":
    main()
