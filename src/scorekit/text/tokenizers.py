"""Named tokenizers shared by the text metrics (BLEU, CIDEr, ...), each NFC-normalising first
(docs/caption.md, "Tokenizers"): ``coco`` (pycocoevalcap's PTBTokenizer + punctuation removal,
:mod:`scorekit.text.english`), ``13a`` (sacrebleu's, exactly), ``kiwi`` (Korean surface morphs,
punctuation dropped, particles kept), ``ko-content`` (Korean content units,
:func:`scorekit.text.korean_units.content_tokens_batch`) and ``whitespace`` (``str.split()``).
A tokenizer maps ``str -> list[str]``; :func:`tokenize_batch` maps many texts at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from scorekit.forkmap import default_workers, fork_map, split
from scorekit.registry import Registry
from scorekit.text.normalize import nfc

BATCH_TOKENIZERS = ("kiwi", "ko-content")     # tokenised as one batch, not text by text
MIN_TEXTS_PER_PROCESS = 10_000     # below this a forked process costs more than it saves
TOKENIZERS: Registry[Callable[[str], list[str]]] = Registry("tokenizer")

# sacrebleu 2.x tokenizer_13a + tokenizer_re, rule for rule.
_13A_RULES = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


@lru_cache(maxsize=2**16)
def tokenize_13a_str(line: str) -> str:
    """sacrebleu's 13a tokenisation of one line, as a space-joined string (sacrebleu strips the
    right end of the line before tokenising)."""
    line = line.rstrip()
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = (line.replace("&quot;", '"').replace("&amp;", "&")
                .replace("&lt;", "<").replace("&gt;", ">"))
    line = f" {line} "
    for rule, repl in _13A_RULES:
        line = rule.sub(repl, line)
    return " ".join(line.split())


@TOKENIZERS.register("13a")
def tokenize_13a(text: str) -> list[str]:
    return tokenize_13a_str(nfc(text)).split()


@TOKENIZERS.register("coco")
def tokenize_coco(text: str) -> list[str]:
    from scorekit.text.english import coco_tokenize

    return coco_tokenize(text)


@TOKENIZERS.register("kiwi")
def tokenize_kiwi(text: str) -> list[str]:
    from scorekit.text import korean

    return korean.tokenize(text)


@TOKENIZERS.register("ko-content")
def tokenize_ko_content(text: str) -> list[str]:
    from scorekit.text.korean_units import content_tokens_batch

    return content_tokens_batch([text])[0]


@TOKENIZERS.register("whitespace")
def tokenize_whitespace(text: str) -> list[str]:
    return nfc(text).split()


def get_tokenizer(name: str) -> Callable[[str], list[str]]:
    return TOKENIZERS.get(name)


def tokenize_batch(texts: Sequence[str], name: str) -> list[list[str]]:
    """Tokenise many texts; Kiwi gets the whole batch (multithreaded), the pure-Python tokenizers
    split a large one over this machine's cores (:mod:`scorekit.forkmap`)."""
    if name not in BATCH_TOKENIZERS:
        return _per_text_batch(texts, get_tokenizer(name))
    if name == "kiwi":
        from scorekit.text import korean

        return korean.tokenize_batch(list(texts))
    if name == "ko-content":
        from scorekit.text.korean_units import content_tokens_batch

        return content_tokens_batch(list(texts))
    raise AssertionError(name)


def _per_text_batch(texts: Sequence[str], fn: Callable[[str], list[str]]) -> list[list[str]]:
    parts = split(len(texts), min(default_workers(), len(texts) // MIN_TEXTS_PER_PROCESS))
    # pure Python: the cores share a large batch (forked, same results; one part: no fork)
    return [toks for part in fork_map(lambda rg: [fn(texts[i]) for i in rg], parts)
            for toks in part]


def default_tokenizer(lang: str) -> str:
    """``coco`` for English captions, ``kiwi`` for Korean."""
    return "kiwi" if lang == "ko" else "coco"
