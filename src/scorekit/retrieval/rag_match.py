"""How a retrieved passage is matched to a reference passage: one similarity per (reference,
retrieved) pair of a question (issue #30; ranx-k's ``evaluate_with_ranx_similarity`` methods).

Methods (F-measures are ``2PR / (P + R)``, 0 when nothing overlaps; each is described in
docs/rag.md, "Matching"): ``exact`` (equal after NFC and whitespace normalisation),
``rouge_l`` / ``rouge_1`` / ``rouge_2`` (ROUGE F on scorekit's ROUGE tokens,
:func:`scorekit.generation.rouge.rouge_tokenize_batch`), ``kiwi_rouge`` (ranx-k's
``KiwiRougeSimilarityCalculator``: its Kiwi tokens, and its ROUGE-2 divides the bigram overlap by
the number of *distinct* bigrams on each side), ``rouge`` (ranx-k's ``RougeSimilarityCalculator``:
rouge-score's ROUGE-L F with its default tokenizer) and ``embedding`` (cosine of L2-normalised
vectors of a local model, :class:`scorekit.neural.encoder.Encoder`).

Speed: every distinct passage of the whole input is tokenised (or embedded) once, in one Kiwi
batch, and the pair scores use precomputed n-gram counters and bit-parallel LCS match masks
(:mod:`scorekit.generation.rouge`); ranx-k analyses each retrieved passage once per reference.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scorekit.errors import ScorekitError, UnknownNameError
from scorekit.generation.rouge import (_english_tokens, _lcs_with_masks, _match_masks, fmeasure,
                                       rouge_tokenize_batch)

METHODS = ("exact", "rouge_l", "rouge_1", "rouge_2", "kiwi_rouge", "rouge", "embedding")
KIWI_TOKENS = ("morphs", "nouns")
KIWI_ROUGE_TYPES = ("rougeL", "rouge1", "rouge2")

# ranx_k.tokenizers.KiwiTokenizer (0.0.17): stopwords and the POS prefixes of ``morphs``
RANXK_STOPWORDS = frozenset({
    '은', '는', '이', '가', '을', '를', '에', '의', '로', '으로', '와', '과',
    '도', '만', '라', '이다', '있다', '없다', '하다', '되다', '수', '것',
    '들', '등', '및', '또는', '그리고', '하지만', '그러나', '따라서',
    '그', '이', '저', '그것', '이것', '저것', '여기', '거기', '저기',
    '때문', '위해', '통해', '대해', '에서', '부터', '까지', '동안'})
RANXK_MORPH_TAGS = ("N", "V", "M", "SL", "SN")
_PUNCT = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Matching:
    """What decides relevance: the similarity ``method`` and its options, the ``threshold`` a
    pair must reach, and whether the grade is the similarity (``graded``) or 1."""

    method: str = "rouge_l"
    threshold: float = 0.5
    graded: bool = False
    kiwi_tokens: str = "morphs"
    kiwi_stopwords: bool = True
    kiwi_rouge: str = "rougeL"
    model: str | None = None
    allow_english_model: bool = False
    normalize: bool = True      # NFC before tokenising (off in --compat ranx-k: ranx-k does not)

    def __post_init__(self):
        for what, value, known in (("matching method", self.method, METHODS),
                                   ("kiwi_rouge tokens", self.kiwi_tokens, KIWI_TOKENS),
                                   ("kiwi_rouge ROUGE type", self.kiwi_rouge, KIWI_ROUGE_TYPES)):
            if value not in known:
                raise UnknownNameError(what, value, known)
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not np.isfinite(t) or not 0 < t <= 1:
            raise ScorekitError(f"--threshold must be a number in (0, 1], got {t!r}")
        if self.method == "embedding" and not self.model:
            raise ScorekitError("--match embedding needs a local model folder (--model PATH)")

    def signature_params(self) -> dict[str, object]:
        out: dict[str, object] = {"match": self.method, "thr": float(self.threshold),
                                  "grade": "similarity" if self.graded else "binary"}
        if self.method == "kiwi_rouge":
            from scorekit.text.korean import kiwi_version

            out.update(ktok=self.kiwi_tokens, kstop="yes" if self.kiwi_stopwords else "no",
                       krouge=self.kiwi_rouge, kiwi=kiwi_version())
        elif self.method in ("rouge_l", "rouge_1", "rouge_2"):
            from scorekit.text.korean import kiwi_version

            out.update(tok="rouge-score+kiwi", kiwi=kiwi_version())
        elif self.method == "embedding":
            out.update(model=str(self.model))
        return out


# ------------------------------------------------------------------------------ normalisation

def normalize_text(text: str) -> str:
    """NFC, every run of whitespace one space, no leading/trailing space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


# ------------------------------------------------------------------------------ tokenisation

def ranxk_select(tokens, method: str, stopwords: bool) -> list[str]:
    """ranx-k's ``KiwiTokenizer._tokenize_morphs`` / ``_tokenize_nouns`` filter over Kiwi tokens."""
    stop = RANXK_STOPWORDS if stopwords else frozenset()
    tags = ("N",) if method == "nouns" else RANXK_MORPH_TAGS
    kept = (t.form.lower() for t in tokens if len(t.form) > 1 and t.tag.startswith(tags))
    return [form for form in kept if form not in stop]


def ranxk_tokenize_batch(texts: Sequence[str], method: str = "morphs", stopwords: bool = True,
                         normalize: bool = True) -> list[list[str]]:
    """ranx-k's Kiwi tokens of many texts, in one Kiwi batch (one analysis per text). ranx-k's
    Kiwi is a plain ``Kiwi()``: no user words (scorekit's starter lexicon would keep ``해질녘``
    one morph where ranx-k reads 해 + 지 + ㄹ + 녘)."""
    from scorekit.text.korean import get_kiwi_with

    nfc = [unicodedata.normalize("NFC", t) if normalize else t for t in texts]
    prepared = [_SPACES.sub(" ", _PUNCT.sub(" ", t)).strip() if t.strip() else "" for t in nfc]
    out: list[list[str]] = [[] for _ in texts]
    idx = [i for i, t in enumerate(prepared) if t]
    if idx:
        batch = [prepared[i] for i in idx]
        for i, toks in zip(idx, get_kiwi_with((), "plain", batch).tokenize(batch)):
            out[i] = ranxk_select(toks, method, stopwords)
    return out


# ------------------------------------------------------------------------------ pair scores

def _ratio_f1(overlap: int, n_ret: int, n_ref: int) -> float:
    # ranx-k's float operations, in its order: P = o/|ret|, R = o/|ref|, F = 2 (P R) / (P + R)
    if overlap == 0:
        return 0.0
    p = overlap / n_ret
    r = overlap / n_ref
    return 2 * (p * r) / (p + r)


class _Side:
    """One passage's tokens with what the pair scores need, computed once."""

    __slots__ = ("tokens", "n", "c1", "c2", "masks")

    def __init__(self, tokens: list[str], need: str):
        self.tokens = tokens
        self.n = len(tokens)
        self.c1 = self.c2 = self.masks = None
        if need == "rouge1":
            self.c1 = Counter(tokens)
        elif need == "rouge2":
            self.c2 = Counter(zip(tokens, tokens[1:]))
        elif need == "rougeL":
            self.masks = _match_masks(tokens)


def _overlap(a: Counter, b: Counter) -> int:
    if len(a) > len(b):
        a, b = b, a
    return sum(min(c, b[g]) for g, c in a.items() if g in b)


def kiwi_rouge_pair(ref: _Side, ret: _Side, kind: str) -> float:
    """ranx-k's ``KiwiRougeSimilarityCalculator.calculate_rouge_scores`` for one ROUGE type."""
    if not ref.n or not ret.n:
        return 0.0
    if kind == "rougeL":
        return _ratio_f1(_lcs_with_masks(ref.masks, ref.n, ret.tokens), ret.n, ref.n)
    if kind == "rouge1":
        return _ratio_f1(_overlap(ref.c1, ret.c1), ret.n, ref.n)
    if ref.n < 2 or ret.n < 2:
        return 0.0
    # ranx-k divides by the number of distinct bigrams (len of its Counter), not of bigrams
    return _ratio_f1(_overlap(ref.c2, ret.c2), len(ret.c2), len(ref.c2))


def rouge_score_pair(ref: _Side, ret: _Side, kind: str) -> float:
    """rouge-score's F (``RougeScorer.score(target=ref, prediction=ret)``)."""
    if kind == "rougeL":
        if not ref.n or not ret.n:
            return 0.0
        lcs = _lcs_with_masks(ref.masks, ref.n, ret.tokens)
        return fmeasure(lcs / ret.n, lcs / ref.n)
    a, b = (ref.c1, ret.c1) if kind == "rouge1" else (ref.c2, ret.c2)
    hits = _overlap(a, b)
    return fmeasure(hits / max(sum(b.values()), 1), hits / max(sum(a.values()), 1))


# ------------------------------------------------------------------------------ matrices

def similarity_matrices(references: Sequence[Sequence[str]], retrieved: Sequence[Sequence[str]],
                        matching: Matching) -> list[np.ndarray]:
    """Per question, the ``(n_references, n_retrieved)`` similarity matrix."""
    # distinct passages of the whole input, each analysed once
    texts = list(dict.fromkeys(p for group in (references, retrieved) for ps in group for p in ps))
    uid = {p: i for i, p in enumerate(texts)}
    ref_ids = [np.fromiter((uid[p] for p in ps), np.int64, len(ps)) for ps in references]
    ret_ids = [np.fromiter((uid[p] for p in ps), np.int64, len(ps)) for ps in retrieved]
    method = matching.method
    if method == "exact":
        keys: dict[str, int] = {}
        norm = np.fromiter((keys.setdefault(normalize_text(t), len(keys)) for t in texts), np.int64, len(texts))
        return [(norm[a][:, None] == norm[b][None, :]).astype(np.float64) for a, b in zip(ref_ids, ret_ids)]
    if method == "embedding":
        return _embedding_matrices(texts, ref_ids, ret_ids, matching)
    if method == "kiwi_rouge":
        tokens = ranxk_tokenize_batch(texts, matching.kiwi_tokens, matching.kiwi_stopwords, matching.normalize)
        kind, pair = matching.kiwi_rouge, kiwi_rouge_pair
    elif method == "rouge":
        tokens = [_english_tokens(t, False) for t in texts]
        kind, pair = "rougeL", rouge_score_pair
    else:
        tokens = rouge_tokenize_batch(texts, lang="en")
        kind = {"rouge_l": "rougeL", "rouge_1": "rouge1", "rouge_2": "rouge2"}[method]
        pair = rouge_score_pair
    sides = [_Side(t, kind) for t in tokens]
    cache: dict[tuple[int, int], float] = {}
    out = []
    for a, b in zip(ref_ids, ret_ids):
        m = np.zeros((len(a), len(b)), np.float64)
        for i, ra in enumerate(a.tolist()):
            for j, rb in enumerate(b.tolist()):
                v = cache.get((ra, rb))
                if v is None:
                    v = cache[ra, rb] = pair(sides[ra], sides[rb], kind)
                m[i, j] = v
        out.append(m)
    return out


def _embedding_matrices(texts, ref_ids, ret_ids, matching: Matching) -> list[np.ndarray]:
    from scorekit.neural.encoder import Encoder
    from scorekit.neural.hangul import check_hangul

    enc = Encoder.load(matching.model)
    check_hangul(enc._loaded.tokenizer, texts, enc.name, allow=matching.allow_english_model,
                 what="embedding model", option="--model PATH")
    vecs = enc.embed(texts).astype(np.float64)
    return [vecs[a] @ vecs[b].T for a, b in zip(ref_ids, ret_ids)]
