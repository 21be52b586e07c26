"""GPU figures for scorekit's neural metrics against their reference libraries, in one process.

Not part of `make bench` (no GPU in CI). Run on a CUDA machine with bert_score and
sentence-transformers installed: `N=20000 python benchmarks/gpu_neural.py` (`DEV=cpu` works, slowly).
Models: random-weight BERTs of two shapes built here (all-MiniLM-L6-v2's 6 layers x 384, and
bert-base's 12 x 768) with the shipped MiniLM's WordPiece vocabulary
(`VOCAB=path/to/vocab.txt` to use another) (compute and agreement do not depend
on trained weights). Texts: random English sentences of 6-24 words.
"""

import os
import random
import sys
import time

import numpy as np
import torch

N = int(os.environ.get("N", "20000"))
DEV = os.environ.get("DEV", "cuda")


def vocab_file():
    if os.environ.get("VOCAB"):
        return os.environ["VOCAB"]
    from scorekit.neural.encoder import default_model_path

    return os.path.join(default_model_path(), "vocab.txt")


def build(shape, out):
    from transformers import BertConfig, BertModel, BertTokenizerFast

    hidden, layers, inter = shape
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=layers,
                     num_attention_heads=12, intermediate_size=inter, max_position_embeddings=512)
    BertModel(cfg).eval().save_pretrained(out, safe_serialization=True)
    BertTokenizerFast(vocab_file=vocab_file(), do_lower_case=True,
                      model_max_length=512).save_pretrained(out)
    return out


def sentences(n, seed):
    vocab = [w.strip() for w in open(vocab_file(), encoding="utf-8")]
    words = [w for w in vocab[2000:12000] if w.isalpha()]
    rng = random.Random(seed)
    return [" ".join(rng.choice(words) for _ in range(rng.randint(6, 24))) for _ in range(n)]


def sync():
    if DEV.startswith("cuda"):
        torch.cuda.synchronize()


def timed(fn):
    sync()
    t = time.perf_counter()
    out = fn()
    sync()
    return out, time.perf_counter() - t


def main():
    import bert_score
    from scorekit.neural.bertscore import BERTScorer
    from scorekit.neural.encoder import Encoder

    print("python", sys.version.split()[0], "torch", torch.__version__, "device",
          torch.cuda.get_device_name(0) if DEV.startswith("cuda") else "cpu", flush=True)
    cands, refs = sentences(N, 1), sentences(N, 2)
    for label, shape, layers in [("MiniLM-L6 shape (6x384)", (384, 6, 1536), 6),
                                 ("bert-base shape (12x768)", (768, 12, 3072), 9)]:
        path = build(shape, f"/tmp/model-{shape[0]}")
        print(f"\n== {label}, layer {layers}, {N} pairs ==", flush=True)
        ref = bert_score.BERTScorer(model_type=path, num_layers=layers, device=DEV, batch_size=64)
        ref.score(cands[:256], refs[:256])
        (P, R, F), t_ref = timed(lambda: ref.score(cands, refs))
        P, R, F = P.numpy(), R.numpy(), F.numpy()
        print(f"bert_score 0.3.13 fp32 bs64: {t_ref:.2f} s = {N / t_ref:,.0f} pairs/s", flush=True)
        del ref
        for prec, bs in [("fp32", 64), ("bf16", 64), ("bf16", 256)]:
            sk = BERTScorer(model=path, num_layers=layers, device=DEV, precision=prec, batch_size=bs,
                            cache_size=0)
            sk.score(cands[:256], refs[:256])
            out, t = timed(lambda: sk.score(cands, refs))
            d = max(np.abs(out.precision - P).max(), np.abs(out.recall - R).max(), np.abs(out.f1 - F).max())
            print(f"scorekit {prec} bs{bs}: {t:.2f} s = {N / t:,.0f} pairs/s ({t_ref / t:.2f}x bert_score); "
                  f"max |P,R,F - bert_score| = {d:.2e}; mean |F1 diff| = {np.abs(out.f1 - F).mean():.2e}; "
                  f"corpus F1 {out.f1.mean():.6f} vs {F.mean():.6f}", flush=True)
            del sk
        torch.cuda.empty_cache() if DEV.startswith("cuda") else None

        from sentence_transformers import SentenceTransformer

        texts = cands + refs
        st = SentenceTransformer(path, device=DEV)
        st.encode(texts[:256], batch_size=64, normalize_embeddings=True)
        ev, t_st = timed(lambda: st.encode(texts, batch_size=64, normalize_embeddings=True,
                                           convert_to_numpy=True))
        print(f"sentence-transformers fp32 embed {len(texts)} texts: {t_st:.2f} s = {len(texts) / t_st:,.0f}/s",
              flush=True)
        del st
        for prec in ["fp32", "bf16"]:
            enc = Encoder.load(path, device=DEV, precision=prec, batch_size=64)
            enc.embed(texts[:256])
            vecs, t = timed(lambda: enc.embed(texts))
            print(f"scorekit Encoder {prec}: {t:.2f} s = {len(texts) / t:,.0f}/s ({t_st / t:.2f}x); "
                  f"max |v - sentence-transformers| = {np.abs(vecs - ev).max():.2e}", flush=True)
            del enc


if __name__ == "__main__":
    main()
