"""Build tiny, randomly initialised BERT-, ELECTRA- and XLNet-shaped model folders, offline.

The spec's Phase 1 scores sentence importance with bert-base-uncased, xlnet-base-cased and
electra-base-discriminator. Their weights cannot be downloaded here, so the docs and tests run the
same comparison on stand-ins with the same architecture, tokenizer type and folder layout
(config.json, model.safetensors, tokenizer files) and tiny sizes: a WordPiece vocabulary (BERT,
ELECTRA) or a SentencePiece-style Unigram vocabulary (XLNet) made of the words of the given texts.
They load through exactly the code that loads the real models. Their numbers mean nothing — point
``encoder=`` at real local folders for real results (docs/summarization.md).

    python examples/summarization/make_tiny_encoders.py OUT_DIR [TEXT_FILE.jsonl ...]

writes OUT_DIR/bert-base-uncased-tiny, OUT_DIR/electra-base-discriminator-tiny and
OUT_DIR/xlnet-base-cased-tiny (the vocabulary: the words of the JSONL files' text fields, by
default examples/summarization/news_en.jsonl).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

NAMES = {"bert": "bert-base-uncased-tiny", "electra": "electra-base-discriminator-tiny",
         "xlnet": "xlnet-base-cased-tiny"}
_WORD = re.compile(r"\w+|[^\w\s]")


def _words(texts: Iterable[str], lower: bool) -> list[str]:
    seen: dict[str, None] = {}
    for t in texts:
        for w in _WORD.findall(t.lower() if lower else t):
            seen.setdefault(w, None)
    return list(seen)


def _wordpiece_vocab(texts: Iterable[str], lower: bool = True) -> list[str]:
    words = _words(texts, lower=lower)
    chars = sorted({c for w in words for c in w})
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words,
            *(c for c in chars if c not in words), *("##" + c for c in chars)]


def build_bert(out: Path, texts: Iterable[str], *, seed: int = 0, lower: bool = True) -> Path:
    """A 2-layer BERT (hidden size 32) with a WordPiece vocabulary of ``texts``; uncased unless
    ``lower=False`` (an uncased BERT strips accents, which takes Hangul syllables apart into jamo,
    so a Korean vocabulary needs a cased model)."""
    import torch
    import transformers

    out.mkdir(parents=True, exist_ok=True)
    vocab = _wordpiece_vocab(texts, lower)
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = transformers.BertTokenizer(str(out / "vocab.txt"), do_lower_case=lower)
    torch.manual_seed(seed)
    cfg = transformers.BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                                  num_attention_heads=2, intermediate_size=37, max_position_embeddings=128)
    transformers.BertModel(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


def build_electra(out: Path, texts: Iterable[str], *, seed: int = 1) -> Path:
    """A 2-layer ELECTRA discriminator encoder (embedding 16, hidden 32), WordPiece vocabulary."""
    import torch
    import transformers

    out.mkdir(parents=True, exist_ok=True)
    vocab = _wordpiece_vocab(texts)
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = transformers.ElectraTokenizer(str(out / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(seed)
    cfg = transformers.ElectraConfig(vocab_size=len(vocab), embedding_size=16, hidden_size=32,
                                     num_hidden_layers=2, num_attention_heads=2, intermediate_size=37,
                                     max_position_embeddings=128)
    transformers.ElectraModel(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


def build_xlnet(out: Path, texts: Iterable[str], *, seed: int = 2) -> Path:
    """A 2-layer cased XLNet (d_model 32) with a SentencePiece-style Unigram vocabulary: the
    ``▁word`` pieces of ``texts`` (log-probability -1) and their characters (-10) as fallback."""
    import torch
    import transformers

    out.mkdir(parents=True, exist_ok=True)
    words = _words(texts, lower=False)
    chars = sorted({c for w in words for c in w})
    specials = ["<unk>", "<s>", "</s>", "<cls>", "<sep>", "<pad>", "<mask>", "<eod>", "<eop>"]
    pieces = [(s, 0.0) for s in specials] + [("▁", -5.0)]
    pieces += [("▁" + w, -1.0) for w in words] + [(c, -10.0) for c in chars]
    tok = transformers.XLNetTokenizer(vocab=pieces, unk_id=0)
    torch.manual_seed(seed)
    cfg = transformers.XLNetConfig(vocab_size=len(pieces), d_model=32, n_layer=2, n_head=2, d_inner=37,
                                   pad_token_id=specials.index("<pad>"))
    transformers.XLNetModel(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


BUILDERS = {"bert": build_bert, "electra": build_electra, "xlnet": build_xlnet}


def build_all(out_dir: str | Path, texts: Iterable[str]) -> dict[str, Path]:
    texts = list(texts)
    out_dir = Path(out_dir)
    return {kind: BUILDERS[kind](out_dir / NAMES[kind], texts) for kind in BUILDERS}


def _texts_of(path: Path) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            out += [v for v in rec.values() if isinstance(v, str)]
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    files = [Path(p) for p in argv[1:]] or [Path(__file__).with_name("news_en.jsonl")]
    texts = [t for f in files for t in _texts_of(f)]
    for kind, path in build_all(argv[0], texts).items():
        print(f"{kind}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
