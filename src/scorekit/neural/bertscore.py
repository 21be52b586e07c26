"""BERTScore (Zhang et al., 2020) — caption-metrics.md §4, nword-summarization.md §2.

For a candidate x = (x_1..x_m) and a reference y = (y_1..y_n), with x_i, y_j the L2-normalised
token states of layer ``num_layers`` (special tokens included) and idf weights w(.)::

    P = sum_i w(x_i) * max_j cos(x_i, y_j) / sum_i w(x_i)
    R = sum_j w(y_j) * max_i cos(x_i, y_j) / sum_j w(y_j)
    F = 2 P R / (P + R)

Without idf, w = 1 except [CLS]/[SEP] (and their RoBERTa twins) which weigh 0; with idf,
w(t) = log((N + 1) / (df(t) + 1)) over the N reference sentences (every occurrence counted, as
bert_score does), unseen tokens log(N + 1). Optional baseline rescaling: s' = (s - b) / (1 - b).
Several references: bert_score takes the maximum of P, of R and of F separately over the
references (so F is the best F; P and R are each their own maximum) — we do the same.

Per-item statistics are the token states of each distinct sentence (computed once, in batches
sorted by token length); the merge is a batched greedy matching on padded tensors (``bmm``);
the corpus score is the mean over candidates. Equal to ``bert_score.score(cands, refs,
model_type=<dir>, num_layers=L, idf=...)`` to 1e-5 (tests/neural/test_bertscore.py).
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import math
import os
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scorekit.errors import InputError, ScorekitError
from scorekit.io.atomic import read_text
from scorekit.io.records import allow_long_fields
from scorekit.neural import _hf
from scorekit.neural.hangul import check_hangul
from scorekit.progress import track
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.text.normalize import nfc

# bert_score's default layers for the models the spec names (utils.model2layers)
DEFAULT_LAYERS = {
    "bert-base-uncased": 9, "bert-base-cased": 9, "bert-base-multilingual-cased": 9,
    "bert-base-multilingual-uncased": 9, "roberta-base": 10, "roberta-large": 17,
    "xlm-roberta-base": 9, "xlm-roberta-large": 17, "distilbert-base-uncased": 5,
    "distilbert-base-multilingual-cased": 5, "microsoft/deberta-xlarge-mnli": 40,
    # Korean models people use (issue #15): klue/roberta-large follows bert_score's
    # roberta-large rule; KoBERTScore (lovit) uses beomi/kcbert-base at layer 4.
    "klue/roberta-large": 17, "klue/roberta-base": 10, "klue/bert-base": 9, "beomi/kcbert-base": 4,
}


def default_layer(model: str | os.PathLike | None) -> int | None:
    """bert_score's default layer for a known model name, also for a local directory named after
    it (``.../bert-base-multilingual-cased``) or an HF cache dir (``models--org--name``)."""
    if model is None:
        return None
    name = str(model).rstrip("/\\")
    base = Path(name).name
    if base.startswith("models--"):
        base = base[len("models--"):].replace("--", "/")
    return DEFAULT_LAYERS.get(name) or next(
        (layer for key, layer in DEFAULT_LAYERS.items() if base in (key, key.split("/")[-1])), None)


def read_baseline(path: str | os.PathLike, num_layers: int) -> np.ndarray:
    """The (P, R, F) baseline of layer ``num_layers`` as float32 (bert_score rescales in float32)
    from bert_score's ``rescale_baseline/<lang>/<model>.tsv``: despite the name comma-separated,
    a header ``LAYER,P,R,F`` and one row per layer (0 = the embedding layer); the row at
    *position* ``num_layers`` is taken, as ``pd.read_csv(path).iloc[num_layers]`` does."""
    allow_long_fields()
    rows = list(csv.reader(io.StringIO(read_text(path))))
    if not rows:
        raise InputError("empty baseline file (expected a header LAYER,P,R,F and one row per layer)", path)
    header = [h.strip() for h in rows[0]]
    if len(header) < 4 or [h.upper() for h in header[1:4]] != ["P", "R", "F"]:
        raise InputError(f"baseline header must be LAYER,P,R,F, got {','.join(header)!r}", path, 1)
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    if num_layers >= len(body):
        raise InputError(f"baseline has rows for layers 0..{len(body) - 1}, but layer {num_layers}"
                         " was asked for", path)
    row = body[num_layers]
    try:
        values = [float(v) for v in row[1:4]]
        if len(values) != 3:
            raise ValueError
    except ValueError:
        raise InputError(f"expected three numbers P,R,F, got {','.join(row)!r}", path,
                         rows.index(row) + 1) from None
    return np.asarray(values, dtype=np.float32)


@dataclass
class BERTScoreOutput:
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    signature: str
    truncated: int = 0  # sentences longer than the model window (cut to it)
    long_texts: tuple[str, ...] = ()   # those sentences (NFC), so shards can count them once

    def mean(self) -> dict[str, float]:
        return {f"bertscore_{k}": float(np.mean(v)) if len(self.f1) else math.nan
                for k, v in (("p", self.precision), ("r", self.recall), ("f1", self.f1))}


class BERTScorer:
    """BERTScore over any local Hugging Face encoder (default: the shipped all-MiniLM-L6-v2)."""

    def __init__(self, model: str | os.PathLike | None = None, *, num_layers: int | None = None,
                 idf: bool = False, rescale_with_baseline: bool = False,
                 baseline_path: str | os.PathLike | None = None, batch_size: int = 64,
                 device: str | None = None, max_length: int | None = None,
                 precision: str | None = None, bert_score_padding: bool = True,
                 cache_size: int = 2048, allow_english_model: bool = False, model_option: str | None = None):
        torch = _hf.require_torch()
        if batch_size < 1:
            raise ScorekitError(f"batch size must be at least 1, got {batch_size}")
        path = _hf.default_model_path() if model is None else model
        if num_layers is None:
            # the model's depth from its config.json when it says so plainly; only otherwise is
            # the whole model loaded to count its layers (a second load of the weights)
            num_layers = (default_layer(model) or _hf.config_layers(path)
                          or _hf.total_layers(_hf.load(path, device=device, precision=precision,
                                                       requested=model).model))
        self.num_layers = int(num_layers)
        self.model_path = None if model is None else str(model)   # what rebuilds it elsewhere
        self._loaded = _hf.load(path, device=device, precision=precision, requested=model,
                                num_layers=self.num_layers)
        self.tokenizer = self._loaded.tokenizer
        self.model = self._loaded.model
        self._dim = int(self.model.config.hidden_size)
        self.name = self._loaded.name
        self.device = self._loaded.device
        self.idf = bool(idf)
        self.allow_english_model = bool(allow_english_model)
        self.model_option = model_option   # how the command names the model (the Hangul refusal says it)
        self.batch_size = int(batch_size)
        self.bert_score_padding = bool(bert_score_padding)
        # token states of recently scored sentences (LRU; 0 switches it off)
        self.cache_size = int(cache_size)
        self._states: OrderedDict = OrderedDict()
        window = self._loaded.model_max_length
        self.max_length = window if max_length is None else min(int(max_length), window)
        self.rescale = bool(rescale_with_baseline)
        self.baseline_path = None if baseline_path is None else Path(baseline_path)
        self.baseline = None
        if self.rescale:
            if self.baseline_path is None:
                raise ScorekitError("rescale_with_baseline needs baseline_path: a CSV with header "
                                    "LAYER,P,R,F (bert_score ships them as "
                                    "bert_score/rescale_baseline/<lang>/<model>.tsv)")
            self.baseline = torch.from_numpy(read_baseline(self.baseline_path, self.num_layers))
        elif self.baseline_path is not None:
            raise ScorekitError("baseline_path given but rescale_with_baseline is off")
        tok = self.tokenizer
        self._special = {t for t in (tok.cls_token_id, tok.sep_token_id) if t is not None}
        # bert_score encodes GPT-2/RoBERTa text with a leading space (add_prefix_space=True)
        self._prefix_space = type(tok).__name__.startswith(("GPT2", "Roberta"))

    def signature_fields(self, truncated: int = 0) -> dict[str, object]:
        """The one builder of what pins a BERTScore number: model, layer, idf, rescaling, the
        padding/matching mode, truncation and dtype (and how many texts were truncated)."""
        params: dict[str, object] = {
            "model": self._loaded.pin, "layer": self.num_layers, "idf": self.idf,
            "rescale": self.rescale,
        }
        if self.rescale:
            # by name and content: two baseline files named alike rescale differently
            digest = hashlib.sha256(self.baseline_path.read_bytes()).hexdigest()[:12]
            params["baseline"] = f"{self.baseline_path.name}#{digest}"
        params["match"] = f"bert_score@{self.batch_size}" if self.bert_score_padding else "max"
        params.update({"trunc": self.max_length, "dtype": self._loaded.precision})
        if truncated:
            params["truncated"] = truncated
        return params

    def pin(self, truncated: int = 0) -> str:
        """:meth:`signature_fields` as one value inside a family's signature, what a BERTScore
        metric pins: ``all-MiniLM-L6-v2/L6/match=bert_score@64/trunc=512/dtype=fp32`` (``/idf``,
        ``/rescaled=<baseline>``, ``/truncated=<n>`` when they apply)."""
        fields = self.signature_fields(truncated)
        parts = [str(fields["model"]), f"L{fields['layer']}"]
        if fields["idf"]:
            parts.append("idf")
        if fields["rescale"]:
            parts.append(f"rescaled={fields['baseline']}")
        parts += [f"{key}={fields[key]}" for key in ("match", "trunc", "dtype", "truncated") if key in fields]
        return "/".join(parts)

    def signature(self, truncated: int = 0) -> str:
        return make_signature("bertscore", self.signature_fields(truncated))

    def _encode_ids(self, sentences: list[str]) -> list[list[int]]:
        """bert_score's ``sent_encode``: strip, [CLS] [SEP] for an empty text, else tokenise with
        special tokens, truncated to the model window."""
        kw = {"add_prefix_space": True} if self._prefix_space else {}
        stripped = [s.strip() for s in sentences]
        nonempty = [s for s in stripped if s]
        logger = logging.getLogger("transformers.tokenization_utils_base")
        level = logger.level
        logger.setLevel(logging.ERROR)  # over-long texts are expected: we truncate and report them
        try:
            ids_iter = iter(self.tokenizer(nonempty, add_special_tokens=True, truncation=False,
                                           **kw)["input_ids"] if nonempty else [])
        finally:
            logger.setLevel(level)
        empty = [t for t in (self.tokenizer.cls_token_id, self.tokenizer.sep_token_id) if t is not None]
        return [list(next(ids_iter)) if s else list(empty) for s in stripped]

    def _truncate(self, ids: list[int]) -> list[int]:
        if len(ids) <= self.max_length:
            return ids
        # keep the closing special token, as the tokenizer's own truncation does
        tail = ids[-1:] if ids[-1] in self._special else []
        return ids[: self.max_length - len(tail)] + tail

    def _embed(self, ids: list[list[int]], texts: list[str]):
        """Normalised token states of every sentence as one flat (tokens + 1, d) tensor (last row:
        zeros, for padding) and per-sentence offsets; cached sentences skip the model."""
        torch = _hf.require_torch()
        lens = [len(x) for x in ids]
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        flat = torch.zeros(int(offsets[-1]) + 1, self._dim, dtype=torch.float32)
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        todo = []
        for i, t in enumerate(texts):
            hit = self._states.get(t) if self.cache_size else None
            if hit is not None and hit.shape[0] == lens[i]:
                self._states.move_to_end(t)
                flat[offsets[i] : offsets[i + 1]] = hit
            else:
                todo.append(i)
        order = sorted(todo, key=lambda i: -lens[i])
        with torch.inference_mode():
            for start in track(range(0, len(order), self.batch_size), "BERTScore"):
                idx = order[start : start + self.batch_size]
                width = lens[idx[0]]
                batch = torch.full((len(idx), width), pad_id, dtype=torch.long)
                mask = torch.zeros((len(idx), width), dtype=torch.long)
                for row, i in enumerate(idx):
                    batch[row, : lens[i]] = torch.tensor(ids[i], dtype=torch.long)
                    mask[row, : lens[i]] = 1
                out = self.model(batch.to(self.device), attention_mask=mask.to(self.device))[0]
                out = out.float()
                out = out / out.norm(dim=-1, keepdim=True)
                out = out.cpu()
                for row, i in enumerate(idx):
                    flat[offsets[i] : offsets[i + 1]] = out[row, : lens[i]]
                    if self.cache_size:
                        self._states[texts[i]] = out[row, : lens[i]].clone()
        while len(self._states) > self.cache_size:
            self._states.popitem(last=False)
        return flat, offsets

    def _idf_weights(self, ids: list[list[int]], idf_docs: list[list[int]] | None) -> list[np.ndarray]:
        if idf_docs is None:
            return [np.array([0.0 if t in self._special else 1.0 for t in x], dtype=np.float32) for x in ids]
        df = Counter(t for doc in idf_docs for t in set(doc))
        n = len(idf_docs)
        unseen = math.log(n + 1)
        table = {t: math.log((n + 1) / (c + 1)) for t, c in df.items()}
        return [np.array([table.get(t, unseen) for t in x], dtype=np.float32) for x in ids]

    def _padding_clamps(self, h_len: np.ndarray, r_len: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which pairs bert_score scores with a floor of 0 on the token maxima: it matches pairs in
        chunks of ``batch_size`` in input order and zeroes padding similarities *before* the maxima,
        so a token whose best cosine is negative gets 0 whenever its partner sentence is shorter
        than the longest partner in its chunk (negative maxima are common with sentence-embedding
        models such as MiniLM). ``bert_score_padding=False`` uses the plain maximum."""
        h_clamp = np.zeros(len(h_len), dtype=bool)
        r_clamp = np.zeros(len(r_len), dtype=bool)
        for start in range(0, len(h_len), self.batch_size):
            sl = slice(start, start + self.batch_size)
            h_clamp[sl] = h_len[sl] < h_len[sl].max()
            r_clamp[sl] = r_len[sl] < r_len[sl].max()
        return h_clamp, r_clamp

    def score(self, candidates: Sequence[str], references: Sequence[str] | Sequence[Sequence[str]], *,
              idf_sentences: Sequence[str] | None = None) -> BERTScoreOutput:
        """P, R, F1 per candidate (float64 arrays) against one or several references each."""
        torch = _hf.require_torch()
        if isinstance(candidates, str) or isinstance(references, str):
            raise ScorekitError("candidates and references must be lists of texts, not one string")
        candidates, references = list(candidates), list(references)
        if len(candidates) != len(references):
            raise ScorekitError(f"{len(candidates)} candidates but {len(references)} references: "
                                "they must pair up one to one")
        check_hangul(self.tokenizer, [*candidates, *(r for rs in references
                                                     for r in ([rs] if isinstance(rs, str) else rs))],
                     self.name, allow=self.allow_english_model,
                     **({"option": self.model_option} if self.model_option else {}))
        if idf_sentences is not None and not self.idf:
            raise ScorekitError("idf_sentences given but idf is off (BERTScorer(idf=True))")
        if not candidates:
            empty = np.zeros(0, dtype=np.float64)
            return BERTScoreOutput(empty, empty.copy(), empty.copy(), self.signature())
        # flatten several references per candidate into (candidate, reference) pairs
        multi = not isinstance(references[0], str)
        pair_c, pair_r, groups = [], [], []
        for i, (c, refs) in enumerate(zip(candidates, references)):
            refs = [refs] if isinstance(refs, str) else list(refs)
            if multi and not refs:
                raise ScorekitError(f"candidate {i} has no reference")
            groups.append((len(pair_r), len(pair_r) + len(refs)))
            pair_c += [nfc(str(c))] * len(refs)
            pair_r += [nfc(str(r)) for r in refs]

        sentences = list(dict.fromkeys(pair_r + pair_c))
        index = {s: k for k, s in enumerate(sentences)}
        raw_ids = self._encode_ids(sentences)
        long_texts = tuple(s for s, x in zip(sentences, raw_ids) if len(x) > self.max_length)
        truncated = len(long_texts)
        ids = [self._truncate(x) for x in raw_ids]

        idf_docs = None
        if self.idf:
            source = pair_r if idf_sentences is None else [nfc(str(s)) for s in idf_sentences]
            extra_ids = {s: ids[index[s]] for s in source if s in index}
            missing = [s for s in dict.fromkeys(source) if s not in extra_ids]
            extra_ids.update(zip(missing, (self._truncate(x) for x in self._encode_ids(missing))))
            idf_docs = [extra_ids[s] for s in source]
        weights = self._idf_weights(ids, idf_docs)
        flat_w = torch.from_numpy(np.concatenate(weights + [np.zeros(1, dtype=np.float32)]))

        flat, offsets = self._embed(ids, sentences)
        pad_row = flat.shape[0] - 1
        lens = np.diff(offsets)
        ci = np.array([index[s] for s in pair_c], dtype=np.int64)
        ri = np.array([index[s] for s in pair_r], dtype=np.int64)
        h_clamp, r_clamp = self._padding_clamps(lens[ci], lens[ri])
        P = torch.empty(len(ci), dtype=torch.float32)
        R = torch.empty(len(ci), dtype=torch.float32)
        # batches of pairs with similar lengths keep the padded similarity blocks small
        order = np.argsort(-(lens[ci] * 4096 + lens[ri]), kind="stable")
        step = max(self.batch_size, 256)
        with torch.inference_mode():
            for start in range(0, len(order), step):
                sel = order[start : start + step]
                hi = _padded_index(offsets, ci[sel], lens, pad_row)
                rj = _padded_index(offsets, ri[sel], lens, pad_row)
                h_valid = torch.from_numpy(hi != pad_row)
                r_valid = torch.from_numpy(rj != pad_row)
                hi_t, rj_t = torch.from_numpy(hi), torch.from_numpy(rj)
                sim = torch.bmm(flat[hi_t], flat[rj_t].transpose(1, 2))
                sim = sim.masked_fill(~r_valid.unsqueeze(1), -math.inf)
                word_p = sim.max(dim=2).values.masked_fill(~h_valid, 0.0)
                sim = sim.masked_fill(~h_valid.unsqueeze(2), -math.inf)
                word_r = sim.max(dim=1).values.masked_fill(~r_valid, 0.0)
                if self.bert_score_padding:
                    # bert_score's zero padding: see _padding_clamps
                    word_p = torch.where(torch.from_numpy(r_clamp[sel])[:, None], word_p.clamp(min=0), word_p)
                    word_r = torch.where(torch.from_numpy(h_clamp[sel])[:, None], word_r.clamp(min=0), word_r)
                wh, wr = flat_w[hi_t], flat_w[rj_t]
                sel_t = torch.from_numpy(sel)
                P[sel_t] = (word_p * (wh / wh.sum(dim=1, keepdim=True))).sum(dim=1)
                R[sel_t] = (word_r * (wr / wr.sum(dim=1, keepdim=True))).sum(dim=1)
        F = 2 * P * R / (P + R)
        # bert_score: a sentence that is only [CLS] [SEP] scores P = R = 0; an undefined F is 0
        only_special = torch.from_numpy((lens[ci] == 2) | (lens[ri] == 2))
        P = P.masked_fill(only_special, 0.0)
        R = R.masked_fill(only_special, 0.0)
        F = F.masked_fill(torch.isnan(F), 0.0)
        preds = torch.stack((P, R, F), dim=-1)
        if multi or any(b - a != 1 for a, b in groups):
            preds = torch.stack([preds[a:b].max(dim=0).values for a, b in groups])
        if self.baseline is not None:
            preds = (preds - self.baseline) / (1 - self.baseline)
        out = preds.double().numpy()
        return BERTScoreOutput(out[:, 0].copy(), out[:, 1].copy(), out[:, 2].copy(),
                               self.signature(truncated), truncated=truncated, long_texts=long_texts)


def _padded_index(offsets: np.ndarray, which: np.ndarray, lens: np.ndarray, pad_row: int) -> np.ndarray:
    """(B, max_len) rows into the flat token table for sentences ``which``; padding -> pad_row."""
    width = int(lens[which].max())
    ar = np.arange(width, dtype=np.int64)[None, :]
    idx = offsets[which][:, None] + ar
    return np.where(ar < lens[which][:, None], idx, pad_row)


_scorers: dict[tuple, BERTScorer] = {}


def bertscore(candidates: Sequence[str], references: Sequence[str] | Sequence[Sequence[str]], *,
              ids: Sequence[str] | None = None, idf_sentences: Sequence[str] | None = None,
              name: str | None = None, **kw) -> Result:
    """BERTScore as a :class:`~scorekit.result.Result`: corpus means ``bertscore_p``,
    ``bertscore_r``, ``bertscore_f1`` and one per-item row per candidate. ``kw`` goes to
    :class:`BERTScorer` (model, num_layers, idf, rescale_with_baseline, baseline_path, ...)."""
    if len(candidates) == 0:
        raise ScorekitError("nothing to score: the list of candidates is empty")
    key = tuple(sorted((k, str(v)) for k, v in kw.items()))
    scorer = _scorers.get(key)
    if scorer is None:
        scorer = _scorers[key] = BERTScorer(**kw)
    out = scorer.score(candidates, references, idf_sentences=idf_sentences)
    ids = [str(i) for i in (ids if ids is not None else range(len(out.f1)))]
    if len(ids) != len(out.f1):
        raise ScorekitError(f"{len(ids)} ids for {len(out.f1)} candidates")
    per_item = [dict(id=i, bertscore_p=float(p), bertscore_r=float(r), bertscore_f1=float(f))
                for i, p, r, f in zip(ids, out.precision, out.recall, out.f1)]
    extra = {"warnings": [f"{out.truncated} text(s) longer than the model window of "
                          f"{scorer.max_length} tokens were truncated"]} if out.truncated else {}
    return Result(task="bertscore", metrics=out.mean(), signature=out.signature, per_item=per_item,
                  inputs={"n_items": len(out.f1)}, extra=extra, name=name)


__all__ = ["BERTScorer", "BERTScoreOutput", "bertscore", "DEFAULT_LAYERS"]

