"""REINFORCE with a baseline (spec: nword-summarization.md, Phase 2 §4).

One article per episode (batch size 1, as the spec's code): for every n in ``n_list`` the
policies sample a summary, the reward is ``reward_fn(summaries, references)`` (BERTScore F1 by
default), and the loss is ``-Σ_n (R_n - b_n) · log π(choices_n)`` averaged over n, where ``b_n``
is an exponential moving average of past rewards at that n (the baseline lowers variance without
biasing the gradient). Everything is seeded: parameter initialisation and sampling.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from scorekit import __version__
from scorekit.errors import InputError
from scorekit.io.atomic import atomic_write
from scorekit.progress import is_enabled
from scorekit.summarization.rl.episode import PreparedArticle, decide
from scorekit.summarization.rl.policy import ChunkPolicyModel, PolicyConfig, SentencePolicyModel

RewardFn = Callable[[list[str], list[str]], np.ndarray]
N_LIST = (7, 9, 11, 13)
CHECKPOINT_FORMAT = "scorekit-rl-summarizer/1"


@dataclass
class Policy:
    sentence: SentencePolicyModel
    chunk: ChunkPolicyModel
    config: PolicyConfig
    baselines: dict[int, float] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    @classmethod
    def create(cls, config: PolicyConfig = PolicyConfig(), seed: int = 42) -> "Policy":
        torch.manual_seed(seed)
        return cls(SentencePolicyModel(config), ChunkPolicyModel(config), config)

    def parameters(self):
        return list(self.sentence.parameters()) + list(self.chunk.parameters())

    def eval(self) -> "Policy":
        self.sentence.eval()
        self.chunk.eval()
        return self

    def summarize(self, article: PreparedArticle, n: int) -> str:
        with torch.inference_mode():
            return decide(article, n, self.sentence, self.chunk, greedy=True).summary

    # -- checkpoints -------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        payload = {
            "format": CHECKPOINT_FORMAT,
            "scorekit_version": __version__,
            "config": self.config.to_dict(),
            "sentence": self.sentence.state_dict(),
            "chunk": self.chunk.state_dict(),
            "baselines": {str(k): v for k, v in self.baselines.items()},
            "meta": self.meta,
        }
        with atomic_write(path, "wb") as fh:
            torch.save(payload, fh)

    @classmethod
    def load(cls, path: str | Path) -> "Policy":
        path = Path(path)
        if not path.is_file():
            raise InputError("checkpoint not found (train one with `scorekit train-summarizer`)", path)
        try:
            payload = torch.load(path, map_location="cpu", weights_only=True)
        except Exception as exc:
            raise InputError(f"not a scorekit summariser checkpoint ({type(exc).__name__})", path) from None
        if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
            raise InputError(f"not a scorekit summariser checkpoint (expected format {CHECKPOINT_FORMAT})", path)
        config = PolicyConfig(**payload["config"])
        policy = cls(SentencePolicyModel(config), ChunkPolicyModel(config), config,
                     {int(k): float(v) for k, v in payload["baselines"].items()}, dict(payload["meta"]))
        policy.sentence.load_state_dict(payload["sentence"])
        policy.chunk.load_state_dict(payload["chunk"])
        return policy.eval()


@dataclass
class TrainLog:
    rewards: list[float] = field(default_factory=list)  # mean reward over n, per episode

    def running(self, window: int = 20) -> float:
        tail = self.rewards[-window:]
        return float(np.mean(tail)) if tail else float("nan")


def train(policy: Policy, articles: Sequence[PreparedArticle], reward_fn: RewardFn, *,
          n_list: Sequence[int] = N_LIST, epochs: int = 1, lr: float = 1e-3, seed: int = 42,
          baseline_momentum: float = 0.9, progress: Callable[[int, float], None] | None = None) -> TrainLog:
    """Train ``policy`` in place; returns the per-episode mean rewards."""
    generator = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    policy.sentence.train()
    policy.chunk.train()
    log = TrainLog()
    for _ in range(epochs):
        for idx in rng.permutation(len(articles)):
            article = articles[int(idx)]
            decisions = [decide(article, n, policy.sentence, policy.chunk, greedy=False, generator=generator)
                         for n in n_list]
            rewards = np.asarray(reward_fn([d.summary for d in decisions], [article.reference] * len(decisions)),
                                 dtype=np.float64)
            loss = torch.zeros(())
            for n, d, r in zip(n_list, decisions, rewards):
                b = policy.baselines.get(n, float(r))  # first visit: zero advantage
                loss = loss - (float(r) - b) * d.log_prob
                policy.baselines[n] = baseline_momentum * b + (1 - baseline_momentum) * float(r)
            loss = loss / len(n_list)
            if loss.requires_grad:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            log.rewards.append(float(rewards.mean()))
            if progress is not None:
                progress(len(log.rewards), log.running())
    policy.meta.update({"episodes": len(log.rewards), "n_list": list(n_list), "lr": lr, "seed": seed,
                        "epochs": epochs})
    policy.eval()
    return log


def describe(policy: Policy) -> str:
    return json.dumps({"config": policy.config.to_dict(), **policy.meta}, ensure_ascii=False)
