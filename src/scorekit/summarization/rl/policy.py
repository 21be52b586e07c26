"""Sentence and chunk policies (spec: nword-summarization.md, Phase 2 §4).

Both map per-candidate feature rows to one logit each; selection is sequential sampling without
replacement from the masked softmax (training) or top-k (evaluation), and the log-probability of
the chosen sequence is returned for REINFORCE.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn


@dataclass(frozen=True)
class PolicyConfig:
    embed_dim: int = 384      # sentence-embedding width (all-MiniLM-L6-v2: 384)
    hidden: int = 128
    k_sentences: int = 2      # K sentences chosen per article
    dropout: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


class SentencePolicyModel(nn.Module):
    """logit_i = MLP([s_i ⊕ t_i]) with s_i the SBERT embedding and t_i the TextRank score.

    TextRank scores sum to 1 over an article; they are fed as ``t_i * n_sentences`` so the
    feature means 1 whatever the article length.
    """

    def __init__(self, config: PolicyConfig = PolicyConfig()):
        super().__init__()
        self.config = config
        self.net = nn.Sequential(
            nn.Linear(config.embed_dim + 1, config.hidden),
            nn.Tanh(),
            nn.Dropout(config.dropout),
            nn.Linear(config.hidden, 1),
        )

    def forward(self, embeddings: torch.Tensor, textrank: torch.Tensor) -> torch.Tensor:
        n = embeddings.shape[0]
        feats = torch.cat([embeddings, (textrank * n).unsqueeze(-1)], dim=-1)
        return self.net(feats).squeeze(-1)


class ChunkPolicyModel(nn.Module):
    """logit_j = MLP(c_j) + a * cos(c_j, d) + b * cos(c_j, s(j)).

    c_j is the chunk's SBERT embedding, d the document centroid and s(j) the embedding of the
    sentence the chunk comes from: the MLP score is "corrected" by SBERT similarity with learnt
    weights a, b (initialised to 1 so an untrained policy already prefers central phrases).
    """

    def __init__(self, config: PolicyConfig = PolicyConfig()):
        super().__init__()
        self.config = config
        self.net = nn.Sequential(
            nn.Linear(config.embed_dim, config.hidden),
            nn.Tanh(),
            nn.Dropout(config.dropout),
            nn.Linear(config.hidden, 1),
        )
        self.sim_weights = nn.Parameter(torch.ones(2))

    def forward(self, chunk_emb: torch.Tensor, doc_sim: torch.Tensor, sent_sim: torch.Tensor) -> torch.Tensor:
        base = self.net(chunk_emb).squeeze(-1)
        return base + self.sim_weights[0] * doc_sim + self.sim_weights[1] * sent_sim


def sample_without_replacement(logits: torch.Tensor, k: int, *, greedy: bool,
                               generator: torch.Generator | None = None,
                               mask: torch.Tensor | None = None) -> tuple[list[int], torch.Tensor]:
    """Pick ``k`` distinct indices one at a time from softmax over the not-yet-chosen ones.

    Returns the indices in pick order and the summed log-probability (a differentiable scalar).
    ``mask`` (bool, True = selectable) excludes candidates; fewer than ``k`` selectable -> all.
    Greedy picks the highest remaining logit each step (= top-k).
    """
    available = torch.ones_like(logits, dtype=torch.bool) if mask is None else mask.clone()
    k = min(k, int(available.sum()))
    chosen: list[int] = []
    log_prob = logits.new_zeros(())
    for _ in range(k):
        idx, logp = _pick(logits, available, greedy, generator)
        log_prob = log_prob + logp
        chosen.append(idx)
    return chosen, log_prob


def _pick(logits: torch.Tensor, available: torch.Tensor, greedy: bool,
          generator: torch.Generator | None) -> tuple[int, torch.Tensor]:
    """One step: pick among ``available`` (marked unavailable afterwards); its log-probability."""
    masked = logits.masked_fill(~available, float("-inf"))
    logp = torch.log_softmax(masked, dim=-1)
    if greedy:
        idx = int(torch.argmax(masked))
    else:
        idx = int(torch.multinomial(logp.exp().detach(), 1, generator=generator))
    available[idx] = False
    return idx, logp[idx]


def sample_until_budget(logits: torch.Tensor, lengths: list[int], budget: int, *, greedy: bool,
                        generator: torch.Generator | None = None) -> tuple[list[int], torch.Tensor]:
    """Pick chunks one at a time until their word lengths reach ``budget`` (or none is left)."""
    available = torch.ones_like(logits, dtype=torch.bool)
    chosen: list[int] = []
    total = 0
    log_prob = logits.new_zeros(())
    while total < budget and bool(available.any()):
        idx, logp = _pick(logits, available, greedy, generator)
        log_prob = log_prob + logp
        chosen.append(idx)
        total += lengths[idx]
    return chosen, log_prob
