"""One article as the policies see it, and the n-word summary built from their choices."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from scorekit.summarization.rl.chunking import Chunk
from scorekit.summarization.rl.policy import (ChunkPolicyModel, SentencePolicyModel,
                                              sample_until_budget, sample_without_replacement)


@dataclass
class PreparedArticle:
    """Everything an episode needs, computed once per article (embeddings are the slow part)."""

    id: str
    sentences: list[str]
    sent_emb: np.ndarray      # (S, d), L2-normalised SBERT embeddings
    textrank: np.ndarray      # (S,), sums to 1
    chunks: list[Chunk]
    chunk_emb: np.ndarray     # (C, d), L2-normalised
    reference: str = ""
    source: str = ""
    _tensors: dict = field(default_factory=dict, repr=False)

    def tensors(self) -> dict[str, torch.Tensor]:
        if not self._tensors:
            doc = self.sent_emb.mean(axis=0) if len(self.sent_emb) else np.zeros(self.sent_emb.shape[1])
            doc = doc / (np.linalg.norm(doc) or 1.0)
            sent_of_chunk = np.array([c.sentence for c in self.chunks], dtype=np.int64)
            chunk_emb = self.chunk_emb if len(self.chunks) else np.zeros((0, self.sent_emb.shape[1]))
            self._tensors = {
                "sent_emb": torch.as_tensor(self.sent_emb, dtype=torch.float32),
                "textrank": torch.as_tensor(self.textrank, dtype=torch.float32),
                "sent_len": torch.as_tensor([len(x.split()) for x in self.sentences], dtype=torch.float32),
                "chunk_emb": torch.as_tensor(chunk_emb, dtype=torch.float32),
                "doc_sim": torch.as_tensor(chunk_emb @ doc, dtype=torch.float32),
                "sent_sim": torch.as_tensor(
                    np.einsum("cd,cd->c", chunk_emb, self.sent_emb[sent_of_chunk]) if len(self.chunks)
                    else np.zeros(0), dtype=torch.float32),
                "sent_of_chunk": torch.as_tensor(sent_of_chunk),
            }
        return self._tensors


@dataclass
class Decision:
    summary: str
    sentences: list[int]
    chunks: list[int]
    log_prob: torch.Tensor


def assemble(article: PreparedArticle, chunk_ids: list[int], n: int) -> str:
    """Chosen chunks in document order, cut to exactly ``n`` words (fewer if there are fewer)."""
    return " ".join([w for j in sorted(chunk_ids) for w in article.chunks[j].words][:n])


def first_words(article: PreparedArticle, sentence_ids: list[int], n: int) -> str:
    """The first ``n`` words of the chosen sentences, in document order; when they have fewer
    than ``n`` words, the sentences after the last chosen one fill the budget (so choosing
    sentence 0 gives exactly lead-n, and the summary keeps document order)."""
    if not sentence_ids:
        return ""
    chosen = sorted(set(sentence_ids))
    order = chosen + list(range(chosen[-1] + 1, len(article.sentences)))
    return " ".join([w for i in order for w in article.sentences[i].split()][:n])


def decide(article: PreparedArticle, n: int, sentence_policy: SentencePolicyModel,
           chunk_policy: ChunkPolicyModel, *, greedy: bool,
           generator: torch.Generator | None = None) -> Decision:
    t = article.tensors()
    if len(article.sentences) == 0:
        return Decision("", [], [], torch.zeros(()))
    config = sentence_policy.config
    logits_s = sentence_policy(t["sent_emb"], t["textrank"], t["sent_len"])
    sent_ids, lp_s = sample_without_replacement(logits_s, config.k_sentences, greedy=greedy, generator=generator,
                                                adjust=sentence_policy.step_adjust(t["sent_emb"]))
    if config.compress == "first-words":
        return Decision(first_words(article, sent_ids, n), sent_ids, [], lp_s)
    candidates = torch.nonzero(torch.isin(t["sent_of_chunk"], torch.as_tensor(sent_ids))).flatten()
    if candidates.numel() == 0:
        return Decision("", sent_ids, [], lp_s)
    logits_c = chunk_policy(t["chunk_emb"][candidates], t["doc_sim"][candidates], t["sent_sim"][candidates])
    lengths = [len(article.chunks[int(j)].words) for j in candidates]
    picked, lp_c = sample_until_budget(logits_c, lengths, n, greedy=greedy, generator=generator)
    chunk_ids = [int(candidates[i]) for i in picked]
    return Decision(assemble(article, chunk_ids, n), sent_ids, chunk_ids, lp_s + lp_c)
