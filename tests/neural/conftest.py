"""Fixtures for the neural tests: a tiny, randomly initialised CLIP built offline.

Real CLIP weights cannot be downloaded here, so the CLIPScore tests run on a 2-layer CLIP with a
byte-level BPE tokenizer (every byte is a token, plus a few merges) written to a temp folder —
the same files (config.json, model.safetensors, vocab.json, merges.txt, processor config) a real
CLIP checkpoint has, loaded through the same code path.
"""

from __future__ import annotations

import json

import pytest


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2/CLIP's reversible byte -> printable character table."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


@pytest.fixture(scope="session")
def tiny_clip_dir(tmp_path_factory):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    # torchmetrics only accepts names containing "openai" for CLIP checkpoints
    out = tmp_path_factory.mktemp("clip") / "openai-tiny-clip"
    out.mkdir()
    chars = list(_bytes_to_unicode().values())
    vocab = {c: i for i, c in enumerate(chars)}
    vocab.update({c + "</w>": len(chars) + i for i, c in enumerate(chars)})
    merges = ["t h", "th e</w>", "a n", "an d</w>", "o n</w>", "i n", "in g</w>", "d o", "do g</w>"]
    for m in merges:
        vocab["".join(m.split())] = len(vocab)
    vocab["<|startoftext|>"] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    (out / "vocab.json").write_text(json.dumps(vocab))
    (out / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")
    tok = transformers.CLIPTokenizer(str(out / "vocab.json"), str(out / "merges.txt"))
    torch.manual_seed(0)
    cfg = transformers.CLIPConfig(
        text_config=dict(vocab_size=len(vocab), hidden_size=32, intermediate_size=37, num_hidden_layers=2,
                         num_attention_heads=4, max_position_embeddings=40,
                         eos_token_id=vocab["<|endoftext|>"], bos_token_id=vocab["<|startoftext|>"],
                         pad_token_id=vocab["<|endoftext|>"]),
        vision_config=dict(hidden_size=32, intermediate_size=37, num_hidden_layers=2, num_attention_heads=4,
                           image_size=32, patch_size=8),
        projection_dim=16,
    )
    transformers.CLIPModel(cfg).save_pretrained(out)
    image_processor = transformers.CLIPImageProcessor(size={"shortest_edge": 32},
                                                      crop_size={"height": 32, "width": 32})
    transformers.CLIPProcessor(image_processor=image_processor, tokenizer=tok).save_pretrained(out)
    return out


def _make_video(path, n_frames=20, size=(48, 32), codec="ffv1", container="mkv"):
    """Write a small video with PyAV; frame i is a solid grey of level 10 * i (ffv1 is lossless)."""
    import av
    import numpy as np

    path = path.with_suffix("." + container)
    with av.open(str(path), mode="w") as out:
        stream = out.add_stream(codec, rate=10)
        stream.width, stream.height = size
        stream.pix_fmt = "bgr0" if codec == "ffv1" else "yuv420p"
        for i in range(n_frames):
            arr = np.full((size[1], size[0], 3), 10 * i, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(arr, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


@pytest.fixture
def make_video():
    pytest.importorskip("av")
    return _make_video
