"""Sentence and chunk policies (spec: nword-summarization.md, Phase 2 §4; docs/rl.md).

Both map per-candidate feature rows to one logit each; selection is sequential sampling without
replacement from the masked softmax (training) or the highest remaining logit (evaluation), and
the log-probability of the chosen sequence is returned for REINFORCE. The sentence state is a set
of named features (:data:`STATE_FEATURES`: emb, textrank × S, position, length, novelty);
``state="spec"`` is the spec's ``[SBERT ⊕ TextRank]``, ``state="rich"`` all five.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from scorekit.errors import ScorekitError

STATE_FEATURES = ("emb", "textrank", "position", "length", "novelty")
STATE_ALIASES = {"spec": ("emb", "textrank"), "rich": STATE_FEATURES}
COMPRESS_MODES = ("first-words", "chunks")


def parse_state(state: str) -> tuple[str, ...]:
    """``"spec"``, ``"rich"`` or a comma list of :data:`STATE_FEATURES` -> the feature names."""
    if state in STATE_ALIASES:
        return STATE_ALIASES[state]
    names = tuple(s.strip() for s in state.split(",") if s.strip())
    bad = [s for s in names if s not in STATE_FEATURES]
    if bad or not names or names == ("novelty",):
        raise ScorekitError(f"unknown state {state!r}: expected spec, rich or a comma list of "
                            f"{', '.join(STATE_FEATURES)} (novelty alone is not enough)")
    return tuple(f for f in STATE_FEATURES if f in names)


@dataclass(frozen=True)
class PolicyConfig:
    embed_dim: int = 384      # sentence-embedding width (all-MiniLM-L6-v2: 384)
    hidden: int = 128
    k_sentences: int = 2      # K sentences chosen per article
    dropout: float = 0.0
    state: str = "spec"       # sentence features: "spec", "rich" or a comma list (parse_state)
    compress: str = "chunks"  # "chunks" (chunk policy) or "first-words" (first n words of the chosen sentences)

    def __post_init__(self):
        parse_state(self.state)
        if self.compress not in COMPRESS_MODES:
            raise ScorekitError(f"unknown compression {self.compress!r}: expected {' or '.join(COMPRESS_MODES)}")

    @property
    def features(self) -> tuple[str, ...]:
        return parse_state(self.state)

    def signature(self) -> str:
        return f"k{self.k_sentences}/h{self.hidden}/state={self.state}/{self.compress}"


def static_width(config: PolicyConfig) -> int:
    f = config.features   # position: 3 columns, length: 2 (sentence_features)
    return ((config.embed_dim if "emb" in f else 0) + ("textrank" in f) + 3 * ("position" in f)
            + 2 * ("length" in f))


def sentence_features(config: PolicyConfig, embeddings: torch.Tensor, textrank: torch.Tensor,
                      lengths: torch.Tensor) -> torch.Tensor:
    """The static (choice-independent) feature rows, one per sentence."""
    f = config.features
    n = embeddings.shape[0]
    cols = []
    if "emb" in f:
        cols.append(embeddings)
    if "textrank" in f:
        cols.append((textrank * n).unsqueeze(-1))
    if "position" in f:
        i = torch.arange(n, dtype=embeddings.dtype)
        cols += [(i / max(n, 1)).unsqueeze(-1), (i == 0).to(embeddings.dtype).unsqueeze(-1),
                 (1.0 / (i + 1)).unsqueeze(-1)]
    if "length" in f:
        w = lengths.to(embeddings.dtype)
        cols += [(w / 25.0).unsqueeze(-1), (torch.log1p(w) / 4.0).unsqueeze(-1)]
    return torch.cat(cols, dim=-1)


def _mlp(width: int, config: PolicyConfig) -> nn.Sequential:
    """width -> hidden (tanh, dropout) -> one logit."""
    return nn.Sequential(nn.Linear(width, config.hidden), nn.Tanh(), nn.Dropout(config.dropout),
                         nn.Linear(config.hidden, 1))


class SentencePolicyModel(nn.Module):
    """logit_i = MLP(static features of sentence i) [+ w · novelty_i, recomputed after each pick].

    With ``state="spec"`` the features are ``[s_i ⊕ t_i·S]`` (SBERT embedding and TextRank score
    scaled by the number of sentences S so that it means 1 whatever the article length).
    """

    def __init__(self, config: PolicyConfig = PolicyConfig()):
        super().__init__()
        self.config = config
        self.net = _mlp(static_width(config), config)
        self.uses_novelty = "novelty" in config.features
        if self.uses_novelty:
            self.novelty_weight = nn.Parameter(torch.zeros(()))

    def forward(self, embeddings: torch.Tensor, textrank: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.net(sentence_features(self.config, embeddings, textrank, lengths)).squeeze(-1)

    def step_adjust(self, embeddings: torch.Tensor) -> Callable[[list[int]], torch.Tensor] | None:
        """The logit correction after some sentences are chosen (novelty), or None."""
        if not self.uses_novelty:
            return None
        sims = embeddings @ embeddings.T

        def adjust(chosen: list[int]) -> torch.Tensor:
            return self.novelty_weight * (1.0 - sims[:, chosen].max(dim=1).values if chosen
                                          else torch.ones(embeddings.shape[0]))
        return adjust


class ChunkPolicyModel(nn.Module):
    """logit_j = MLP(c_j) + a * cos(c_j, d) + b * cos(c_j, s(j)).

    c_j is the chunk's SBERT embedding, d the document centroid and s(j) the embedding of the
    sentence the chunk comes from: the MLP score is "corrected" by SBERT similarity with learnt
    weights a, b (initialised to 1 so an untrained policy already prefers central phrases).
    """

    def __init__(self, config: PolicyConfig = PolicyConfig()):
        super().__init__()
        self.config = config
        self.net = _mlp(config.embed_dim, config)
        self.sim_weights = nn.Parameter(torch.ones(2))

    def forward(self, chunk_emb: torch.Tensor, doc_sim: torch.Tensor, sent_sim: torch.Tensor) -> torch.Tensor:
        base = self.net(chunk_emb).squeeze(-1)
        return base + self.sim_weights[0] * doc_sim + self.sim_weights[1] * sent_sim


def sample_without_replacement(logits: torch.Tensor, k: int, *, greedy: bool,
                               generator: torch.Generator | None = None,
                               adjust: Callable[[list[int]], torch.Tensor] | None = None,
                               ) -> tuple[list[int], torch.Tensor]:
    """Pick ``k`` distinct indices one at a time from softmax over the not-yet-chosen ones.

    Returns the indices in pick order and the summed log-probability (a differentiable scalar).
    Fewer than ``k`` candidates -> all.
    Greedy picks the highest remaining logit each step (= top-k when there is no ``adjust``).
    ``adjust(chosen)`` returns a term added to the logits before each pick (e.g. novelty).
    """
    return _sample(logits, lambda chosen: len(chosen) < k, greedy, generator, adjust)


def sample_until_budget(logits: torch.Tensor, lengths: list[int], budget: int, *, greedy: bool,
                        generator: torch.Generator | None = None) -> tuple[list[int], torch.Tensor]:
    """Pick chunks one at a time until their word lengths reach ``budget`` (or none is left)."""
    return _sample(logits, lambda chosen: sum(lengths[i] for i in chosen) < budget, greedy,
                   generator)


def _sample(logits: torch.Tensor, more: Callable[[list[int]], bool], greedy: bool, generator,
            adjust: Callable | None = None) -> tuple[list[int], torch.Tensor]:
    """Pick among the not-yet-chosen while ``more(chosen)`` and any is left."""
    available = torch.ones_like(logits, dtype=torch.bool)
    chosen: list[int] = []
    log_prob = logits.new_zeros(())
    while more(chosen) and bool(available.any()):
        step = logits if adjust is None else logits + adjust(chosen)
        masked = step.masked_fill(~available, float("-inf"))
        logp = torch.log_softmax(masked, dim=-1)
        if greedy:
            idx = int(torch.argmax(masked))
        else:
            idx = int(torch.multinomial(logp.exp().detach(), 1, generator=generator))
        available[idx] = False
        log_prob = log_prob + logp[idx]
        chosen.append(idx)
    return chosen, log_prob
