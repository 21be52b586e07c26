"""The Phase-2 workflow end to end: data -> prepared articles -> training -> evaluation table.

Defaults follow the spec (MiniLM sentence embeddings, TextRank initial scores, BERTScore F1
reward, N_LIST = [7, 9, 11, 13]) except the reward's model: the shipped MiniLM, not the spec's
bert-base-uncased (any local folder: ``reward="bertscore(model=DIR,num_layers=9)"``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scorekit.errors import InputError, ScorekitError
from scorekit.generation.model_metrics import load_bertscorer
from scorekit.metrics.registry import get_metric
from scorekit.neural.encoder import Encoder
from scorekit.progress import track
from scorekit.result import Result
from scorekit.signature import make_signature
from scorekit.summarization.metrics import (SummaryBERTScore, default_scoring, prepare_contexts,
                                            score_predictions)
from scorekit.summarization.rl.chunking import chunk_sentences
from scorekit.summarization.rl.crossval import baseline_summary, cross_validate
from scorekit.summarization.rl.episode import PreparedArticle
from scorekit.summarization.rl.policy import PolicyConfig
from scorekit.summarization.rl.train import N_LIST, Policy, document_key, train
from scorekit.summarization.sentences import split_sentences
from scorekit.summarization.summarizers import textrank_scores

EVAL_METRICS = ("bertscore_f1", "rouge1", "rouge2", "efficiency", "density")
REWARD = "bertscore"   # the reward: BERTScore F1 with the shipped MiniLM at bert_score's layer
REWARD_OPTION = '--reward "bertscore(model=PATH)"'   # how the commands name the reward's model


def reward_metric(spec: str = REWARD):
    """The reward's BERTScore, from its spec in the metric grammar (``"bertscore(model=DIR,num_layers=9)"``):
    parameters, ranges and did-you-mean come from the summary family's ``bertscore`` declaration.
    ``idf=true`` is refused (its weights come from a batch's references; the reward scores each
    (summary, reference) pair alone, and caches it)."""
    metric = get_metric("summary", spec)
    if type(metric) is not SummaryBERTScore:
        raise ScorekitError(f"the reward is BERTScore F1: write bertscore(model=DIR,num_layers=N), got {spec!r}")
    if metric.values["idf"]:
        raise ScorekitError("bertscore(idf=true) weighs tokens by a batch's references; the reward scores "
                            "each (summary, reference) pair alone")
    return metric


@dataclass
class Toolkit:
    """The models a run uses, loaded once."""

    embed: Callable[[list[str]], np.ndarray]
    encoder_name: str
    bertscorer: object
    lang: str = "en"
    reward_cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, *, encoder: str | None = None, reward: str = REWARD, lang: str = "en", device: str | None = None,
             allow_english_model: bool = False) -> "Toolkit":
        """The sentence encoder (a local folder; default the shipped MiniLM) and the reward's
        BERTScore (``reward``: :func:`reward_metric`'s spec)."""
        v = reward_metric(reward).values
        enc = Encoder.load(encoder, device=device)
        scorer = load_bertscorer(model=v["model"], num_layers=v["num_layers"],
                                 rescale_with_baseline=v["rescale_with_baseline"], baseline_path=v["baseline_path"],
                                 batch_size=v["batch_size"], device=device, allow_english_model=allow_english_model,
                                 model_option=REWARD_OPTION)
        # the encoder as signatures pin it: its name, and for a folder other than the shipped
        # MiniLM its content hash (two folders named alike embed differently)
        return cls(enc.embed, str(enc.signature_params()["model"]), scorer, lang)

    def reward(self, summaries: list[str], references: list[str]) -> np.ndarray:
        # an empty summary gets reward 0 rather than whatever BERTScore makes of ""
        # scores are cached by (summary, reference): sampled summaries repeat a lot across
        # epochs and folds, and BERTScore of a pair does not depend on what it is batched with
        todo = sorted({(s, r) for s, r in zip(summaries, references)
                       if s.strip() and (s, r) not in self.reward_cache})
        if todo:
            f1 = self.bertscorer.score([s for s, _ in todo], [r for _, r in todo]).f1
            self.reward_cache.update(zip(todo, np.asarray(f1, dtype=np.float64).tolist()))
        return np.array([self.reward_cache[(s, r)] if s.strip() else 0.0
                         for s, r in zip(summaries, references)], dtype=np.float64)

    def prepare(self, pairs) -> tuple[list[PreparedArticle], str, int]:
        """``pairs`` as episodes see them, the chunker's name (for the signature) and the embedding
        width. All sentences and chunks of all articles are embedded in one batched call."""
        split_docs, chunk_lists, chunker = [], [], "rules"
        for doc in track(pairs.documents, "splitting", total=len(pairs.documents)):
            split_docs.append(split_sentences(doc, self.lang))
            chunks, chunker = chunk_sentences(split_docs[-1], lang=self.lang)
            chunk_lists.append(chunks)
        texts = [t for sents, chunks in zip(split_docs, chunk_lists)
                 for t in (*sents, *(c.text for c in chunks))]
        vectors = self.embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        out, pos, dim = [], 0, vectors.shape[1]
        for i, (sents, chunks) in enumerate(zip(split_docs, chunk_lists)):
            s_emb = vectors[pos:pos + len(sents)].reshape(len(sents), dim)
            pos += len(sents)
            c_emb = vectors[pos:pos + len(chunks)].reshape(len(chunks), dim)
            pos += len(chunks)
            tr = textrank_scores(s_emb) if len(sents) else np.zeros(0)
            ref = pairs.references[i]
            out.append(PreparedArticle(str(pairs.ids[i]), sents, s_emb, np.asarray(tr, dtype=np.float64),
                                       chunks, c_emb, ref if isinstance(ref, str) else "\n".join(ref),
                                       pairs.documents[i]))
        return out, chunker, dim if out else 384


def weights_hash(policy: Policy) -> str:
    """A hash of the policy's weights, for the signature: two policies of one config, seed and
    episode count trained otherwise (learning rate, baseline) write other summaries."""
    h = hashlib.sha256()
    for part in (policy.sentence, policy.chunk):
        for key, value in part.state_dict().items():
            h.update(key.encode())
            h.update(value.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:12]


def evaluate_policy(policy: Policy, articles: Sequence[PreparedArticle], toolkit: Toolkit, *,
                    n_list: Sequence[int] = N_LIST, baselines: Sequence[str] = ("textrank", "lead"),
                    name: str | None = None, chunker: str = "rules") -> Result:
    """The spec's comparison: RL policy vs TextRank vs lead-n on BERTScore F1, ROUGE-1/2,
    Efficiency and Density at each n. ``metrics`` holds ``<system>@<n>/<metric>`` means."""
    if not articles:
        raise ScorekitError("no articles to evaluate")
    contexts = prepare_contexts([a.reference for a in articles], [a.source for a in articles], lang=toolkit.lang)
    scoring = default_scoring(toolkit.bertscorer)
    systems: dict[str, Callable[[PreparedArticle, int], str]] = {"rl": policy.summarize}
    systems.update({b: (lambda a, n, b=b: baseline_summary(b, a, n)) for b in baselines})
    rows, metrics = [], {}
    per_item = [{"id": a.id, "document": a.source[:300], "reference": a.reference} for a in articles]
    for n in n_list:
        for system, fn in systems.items():
            preds = [fn(a, n) for a in articles]
            scores = score_predictions(preds, contexts, metrics=scoring)
            row = {"system": system, "n": n,
                   **{m: float(np.mean(scores[m])) for m in EVAL_METRICS if m in scores}}
            metrics.update({f"{system}@{n}/{m}": row[m] for m in EVAL_METRICS if m in scores})
            rows.append(row)
            for item, p, f in zip(per_item, preds, scores.get("bertscore_f1", [None] * len(preds))):
                item[f"{system}@{n}"] = p
                if f is not None:
                    item[f"{system}@{n}/bertscore_f1"] = float(f)
    sig = make_signature("summarize-rl", {
        "policy": f"{policy.config.signature()}#{weights_hash(policy)}",
        "episodes": policy.meta.get("episodes", 0), "seed": policy.meta.get("seed", "none"),
        "encoder": toolkit.encoder_name, "chunker": chunker, "n": list(n_list)}, metrics=scoring)
    return Result("summarize-rl", metrics, sig, per_item=per_item,
                  inputs={"n_articles": len(articles)}, extra={"table": rows}, name=name)


def train_summarizer(pairs, *, n_list: Sequence[int] = N_LIST, epochs: int = 5, k_sentences: int = 1,
                     lr: float = 1e-2, hidden: int = 32, state: str = "rich", compress: str = "first-words",
                     baseline: str = "greedy", baseline_momentum: float = 0.9, seed: int = 42,
                     folds: int | None = None, final: bool = True, say: Callable[[str], None] | None = None,
                     progress: Callable[[int, int, float], None] | None = None, **models):
    """``scorekit train-summarizer`` as one call on ``pairs``: load the models (``models``:
    :meth:`Toolkit.load`'s arguments), prepare the articles, with ``folds`` cross-validate (``say``
    hears its progress), with ``final`` train one policy on every article (``progress(episode,
    total, running_reward)``). Returns ``(cv_result | None, policy | None, train_log | None)``."""
    toolkit = Toolkit.load(**models)
    t0 = time.perf_counter()
    articles, chunker, dim = toolkit.prepare(pairs)
    config = PolicyConfig(embed_dim=dim, hidden=hidden, k_sentences=k_sentences, state=state, compress=compress)
    cv = policy = log = None
    if folds is not None:
        t_cv = time.perf_counter()
        cv = cross_validate(articles, toolkit.reward, folds=folds, config=config, n_list=n_list, epochs=epochs,
                            lr=lr, seed=seed, baseline=baseline, baseline_momentum=baseline_momentum,
                            signature_params={"encoder": toolkit.encoder_name, "chunker": chunker},
                            scored_with=[SummaryBERTScore().use(toolkit.bertscorer)],
                            progress=say or (lambda m: None))
        cv.inputs.update({"data": pairs.source, "seconds": round(time.perf_counter() - t_cv, 1)})
        cv.name = f"cv{folds}"
    if final:
        total = len(articles) * epochs
        policy = Policy.create(config, seed=seed)
        log = train(policy, articles, toolkit.reward, n_list=n_list, epochs=epochs, lr=lr, seed=seed,
                    baseline=baseline, baseline_momentum=baseline_momentum,
                    progress=None if progress is None else (lambda i, r: progress(i, total, r)))
        policy.meta.update({"encoder": toolkit.encoder_name, "chunker": chunker, "lang": toolkit.lang,
                            "train_source": pairs.source, "minutes": (time.perf_counter() - t0) / 60})
    return cv, policy, log


def summarize_pairs(pairs, *, checkpoint=None, exclude_trained: bool = False, num_test: int | None = None,
                    n_list: Sequence[int] = N_LIST, **models) -> Result:
    """``scorekit summarize`` as one call: the policy saved at ``checkpoint`` (None: an untrained
    one) against TextRank and lead-n on the first ``num_test`` of ``pairs`` it was not trained on
    (an article it was trained on is an error unless ``exclude_trained``); see :func:`evaluate_policy`."""
    checkpoint = Path(checkpoint) if checkpoint else None
    policy = Policy.load(checkpoint) if checkpoint else None
    if policy is not None and policy.trained_on:
        seen = policy.trained_on
        clash = [i for i, d in zip(pairs.ids, pairs.documents) if document_key(d) in seen]
        if clash and not exclude_trained:
            raise InputError(f"{len(clash)} of the {len(pairs)} articles were used to train this checkpoint "
                             f"(ids {', '.join(clash[:3])}{', ...' if len(clash) > 3 else ''}); evaluate on "
                             "held-out data or pass --exclude-trained", checkpoint)
        keep = [j for j, d in enumerate(pairs.documents) if document_key(d) not in seen]
        if not keep:
            raise InputError("every article was used to train this checkpoint: nothing held out to evaluate",
                             checkpoint)
        pairs = type(pairs)([pairs.ids[j] for j in keep], [pairs.documents[j] for j in keep],
                            [pairs.references[j] for j in keep], pairs.source)
    pairs = pairs.head(num_test)
    toolkit = Toolkit.load(**models)
    articles, chunker, dim = toolkit.prepare(pairs)
    if policy is None:
        policy = Policy.create(PolicyConfig(embed_dim=dim), seed=42).eval()
        policy.meta["untrained"] = True
    elif policy.config.embed_dim != dim:
        raise InputError(f"checkpoint expects {policy.config.embed_dim}-dimensional sentence embeddings but "
                         f"the encoder gives {dim}; pass the --encoder it was trained with", checkpoint)
    result = evaluate_policy(policy, articles, toolkit, n_list=n_list, chunker=chunker,
                             name=checkpoint.stem if checkpoint else "untrained")
    result.inputs.update({"data": pairs.source, "checkpoint": str(checkpoint) if checkpoint else None})
    return result
