"""REINFORCE with a baseline (spec: nword-summarization.md, Phase 2 §4; docs/rl.md).

One article per episode: for every n in ``n_list`` the policies sample a summary, the reward is
``reward_fn(summaries, references)`` and the loss ``-Σ_n (R_n - b_n) · log π(choices_n)`` averaged
over n. The baseline ``b_n`` is ``"ema"`` (moving average of past rewards at n), ``"greedy"`` (the
reward of the policy's own greedy choice, self-critical) or ``"none"`` (0). Everything is seeded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from scorekit import __version__
from scorekit.errors import InputError, ScorekitError
from scorekit.io.atomic import atomic_write
from scorekit.summarization.rl.episode import PreparedArticle, decide
from scorekit.summarization.rl.policy import ChunkPolicyModel, PolicyConfig, SentencePolicyModel

RewardFn = Callable[[list[str], list[str]], np.ndarray]
N_LIST = (7, 9, 11, 13)
CHECKPOINT_FORMAT = "scorekit-rl-summarizer/1"
BASELINES = ("ema", "greedy", "none")


def document_key(text: str) -> str:
    """A short content hash of a document: what the leakage checks compare."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


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

    def decide(self, article: PreparedArticle, n: int):
        """The greedy :class:`~scorekit.summarization.rl.episode.Decision` for ``article`` at ``n``."""
        with torch.inference_mode():
            return decide(article, n, self.sentence, self.chunk, greedy=True)

    def summarize(self, article: PreparedArticle, n: int) -> str:
        return self.decide(article, n).summary

    def save(self, path: str | Path) -> None:
        payload = {"format": CHECKPOINT_FORMAT, "scorekit_version": __version__,
                   "config": asdict(self.config), "sentence": self.sentence.state_dict(),
                   "chunk": self.chunk.state_dict(),
                   "baselines": {str(k): v for k, v in self.baselines.items()}, "meta": self.meta}
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
        missing = [k for k in ("config", "sentence", "chunk") if not isinstance(payload.get(k), dict)]
        if missing:
            raise InputError(f"damaged summariser checkpoint: no {', '.join(missing)}", path)
        try:   # a checkpoint older than the state/compress options gets their defaults: spec, chunks
            config = PolicyConfig(**payload["config"])
            policy = cls(SentencePolicyModel(config), ChunkPolicyModel(config), config,
                         {int(k): float(v) for k, v in (payload.get("baselines") or {}).items()},
                         dict(payload.get("meta") or {}))
            policy.sentence.load_state_dict(payload["sentence"])
            policy.chunk.load_state_dict(payload["chunk"])
        except ScorekitError as exc:
            raise InputError(f"damaged summariser checkpoint: {exc}", path) from None
        except (TypeError, ValueError, RuntimeError, KeyError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if "size mismatch" in str(exc) or "Missing key" in str(exc) or "Unexpected key" in str(exc):
                first = "tensor names or shapes do not match its config"
            raise InputError(f"damaged summariser checkpoint: {first[:200]}", path) from None
        return policy.eval()

    @property
    def trained_on(self) -> set[str]:
        """Content keys (:func:`document_key`) of the training articles, if recorded."""
        return set(self.meta.get("train_keys") or [])


@dataclass
class TrainLog:
    rewards: list[float] = field(default_factory=list)  # mean reward over n, per episode

    def running(self, window: int = 20) -> float:
        return float(np.mean(tail)) if (tail := self.rewards[-window:]) else float("nan")


def train(policy: Policy, articles: Sequence[PreparedArticle], reward_fn: RewardFn, *,
          n_list: Sequence[int] = N_LIST, epochs: int = 1, lr: float = 1e-3, seed: int = 42,
          baseline: str = "ema", baseline_momentum: float = 0.9, heldout: Sequence[PreparedArticle] = (),
          progress: Callable[[int, float], None] | None = None) -> TrainLog:
    """Train ``policy`` in place; returns the per-episode mean rewards.

    ``heldout``: articles that will be used for evaluation; training refuses to start when any
    of them (by id or by content) is among the training articles.
    """
    if baseline not in BASELINES:
        raise ScorekitError(f"unknown baseline {baseline!r}: expected {', '.join(BASELINES)}")
    check_disjoint(articles, heldout)
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
            summaries = [d.summary for d in decisions]
            if baseline == "greedy":
                with torch.no_grad():
                    summaries += [decide(article, n, policy.sentence, policy.chunk, greedy=True).summary
                                  for n in n_list]
            scores = np.asarray(reward_fn(summaries, [article.reference] * len(summaries)), dtype=np.float64)
            rewards = scores[:len(n_list)]
            loss = torch.zeros(())
            for j, (n, d, r) in enumerate(zip(n_list, decisions, rewards)):
                # ema: the first visit has zero advantage
                b = (float(scores[len(n_list) + j]) if baseline == "greedy"
                     else policy.baselines.get(n, float(r)) if baseline == "ema" else 0.0)
                loss = loss - (float(r) - b) * d.log_prob
                prev = policy.baselines.get(n, float(r))
                policy.baselines[n] = baseline_momentum * prev + (1 - baseline_momentum) * float(r)
            loss = loss / len(n_list)
            if loss.requires_grad:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            log.rewards.append(float(rewards.mean()))
            if progress is not None:
                progress(len(log.rewards), log.running())
    policy.meta.update({"episodes": len(log.rewards), "n_list": list(n_list), "lr": lr, "seed": seed,
                        "epochs": epochs, "baseline": baseline,
                        "train_ids": [a.id for a in articles],
                        "train_keys": sorted({document_key(a.source) for a in articles if a.source})})
    policy.eval()
    return log


def check_disjoint(train_articles: Sequence[PreparedArticle], heldout: Sequence[PreparedArticle]) -> None:
    """Refuse training data that overlaps the evaluation data (same id or same document text)."""
    ids = {a.id for a in train_articles}
    keys = {document_key(a.source) for a in train_articles if a.source}
    clash = [a.id for a in heldout if a.id in ids or (a.source and document_key(a.source) in keys)]
    if clash:
        raise ScorekitError(f"{len(clash)} evaluation article(s) are also training articles "
                            f"(ids {', '.join(clash[:5])}{', ...' if len(clash) > 5 else ''}): "
                            "train and evaluate on disjoint data")
