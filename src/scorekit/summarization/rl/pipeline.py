"""The Phase-2 workflow end to end: data -> prepared articles -> training -> evaluation table.

Defaults follow the spec: all-MiniLM-L6-v2 sentence embeddings, TextRank initial scores,
BERTScore F1 reward, N_LIST = [7, 9, 11, 13], NUM_TRAIN = NUM_TEST = 200 (CNN/DailyMail when it
is on disk, else the shipped sample). The spec computed its reward BERTScore with
bert-base-uncased; that model cannot be downloaded here, so the default reward model is the
shipped MiniLM (any local model directory can be passed) — the signature names the one used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from scorekit.errors import ScorekitError
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.summarization.rl.episode import PreparedArticle
from scorekit.summarization.rl.prepare import prepare_articles
from scorekit.summarization.rl.train import N_LIST, Policy

EVAL_METRICS = ("bertscore_f1", "rouge1", "rouge2", "efficiency", "density")


@dataclass
class Toolkit:
    """The models a run uses, loaded once."""

    embed: Callable[[list[str]], np.ndarray]
    encoder_name: str
    bertscorer: object
    lang: str = "en"
    reward_cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, *, encoder: str | None = None, bert_model: str | None = None, num_layers: int | None = None,
             lang: str = "en", device: str | None = None, allow_english_model: bool = False) -> "Toolkit":
        from scorekit.neural.encoder import Encoder
        from scorekit.summarization.metrics import load_bertscorer

        enc = Encoder.load(encoder, device=device)
        scorer = load_bertscorer(True, model=bert_model, num_layers=num_layers, device=device,
                                 allow_english_model=allow_english_model)
        return cls(enc.embed, enc.name, scorer, lang)

    def reward(self, summaries: list[str], references: list[str]) -> np.ndarray:
        # an empty summary gets reward 0 rather than whatever BERTScore makes of ""
        # scores are cached by (summary, reference): sampled summaries repeat a lot across
        # epochs and folds, and BERTScore of a pair does not depend on what it is batched with
        out = np.zeros(len(summaries))
        todo = sorted({(s, r) for s, r in zip(summaries, references)
                       if s.strip() and (s, r) not in self.reward_cache})
        if todo:
            f1 = self.bertscorer.score([s for s, _ in todo], [r for _, r in todo]).f1
            self.reward_cache.update(zip(todo, np.asarray(f1, dtype=np.float64).tolist()))
        for i, (s, r) in enumerate(zip(summaries, references)):
            if s.strip():
                out[i] = self.reward_cache[(s, r)]
        return out

    def prepare(self, ids: Sequence[str], documents: Sequence[str],
                references: Sequence[str | Sequence[str]]) -> tuple[list[PreparedArticle], str]:
        from scorekit.summarization.sentences import split_sentences
        from scorekit.summarization.summarizers import textrank_scores

        refs = [r if isinstance(r, str) else "\n".join(r) for r in references]
        return prepare_articles(ids, documents, refs, split=lambda d: split_sentences(d, self.lang),
                                embed=self.embed, textrank=textrank_scores, lang=self.lang)


def policy_signature(policy: Policy) -> str:
    c = policy.config
    return f"k{c.k_sentences}/h{c.hidden}/state={c.state}/{c.compress}"


def evaluate_policy(policy: Policy, articles: Sequence[PreparedArticle], toolkit: Toolkit, *,
                    n_list: Sequence[int] = N_LIST, baselines: Sequence[str] = ("textrank", "lead"),
                    name: str | None = None, chunker: str = "rules") -> Result:
    """The spec's comparison: RL policy vs TextRank vs lead-n on BERTScore F1, ROUGE-1/2,
    Efficiency and Density at each n. ``metrics`` holds ``<system>@<n>/<metric>`` means."""
    from scorekit.summarization.summarizers import compress_to_n_words, rank_order
    from scorekit.summarization.metrics import bertscore_signature, prepare_contexts, score_predictions

    if not articles:
        raise ScorekitError("no articles to evaluate")
    contexts = prepare_contexts([a.reference for a in articles], [a.source for a in articles], lang=toolkit.lang)
    systems: dict[str, Callable[[PreparedArticle, int], str]] = {"rl": policy.summarize}
    if "textrank" in baselines:
        systems["textrank"] = lambda a, n: compress_to_n_words(a.sentences, rank_order(a.textrank), n)
    if "lead" in baselines:
        systems["lead"] = lambda a, n: " ".join(a.source.split()[:n])
    rows, metrics = [], {}
    per_item = [{"id": a.id, "document": a.source[:300], "reference": a.reference} for a in articles]
    for n in n_list:
        for system, fn in systems.items():
            preds = [fn(a, n) for a in articles]
            scores = score_predictions(preds, contexts, bertscorer=toolkit.bertscorer)
            row = {"system": system, "n": n}
            for m in EVAL_METRICS:
                if m in scores:
                    row[m] = float(np.mean(scores[m]))
                    metrics[f"{system}@{n}/{m}"] = row[m]
            rows.append(row)
            for item, p, f in zip(per_item, preds, scores.get("bertscore_f1", [None] * len(preds))):
                item[f"{system}@{n}"] = p
                if f is not None:
                    item[f"{system}@{n}/bertscore_f1"] = float(f)
    sig = make_signature("summarize-rl", {
        "policy": policy_signature(policy),
        "episodes": policy.meta.get("episodes", 0), "seed": policy.meta.get("seed", "none"),
        "encoder": toolkit.encoder_name, "chunker": chunker,
        "bertscore": bertscore_signature(toolkit.bertscorer),
        "n": list(n_list)})
    return Result("summarize-rl", metrics, sig, per_item=per_item,
                  inputs={"n_articles": len(articles)}, extra={"table": rows}, name=name)
