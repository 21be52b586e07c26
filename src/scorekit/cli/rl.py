"""`scorekit train-summarizer` and `scorekit summarize` (Phase 2 of the n-word spec)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from scorekit.cli._common import emit, output_options, print_table, signature_line
from scorekit.errors import ScorekitError

DEFAULT_SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "summarization" / "news_en.jsonl"


def _parse_n(value: str) -> list[int]:
    from scorekit.cli.sweep import parse_int_list

    return parse_int_list(value, "--n")


def _load_pairs(data: Path | None, dataset: str | None, split: str, limit: int | None, dataset_files):
    from scorekit.summarization.data import load_corpus, read_pairs

    if dataset:
        return load_corpus(dataset, split=split, limit=limit, files=dataset_files)
    path = data or DEFAULT_SAMPLE
    if data is None and not path.exists():
        raise ScorekitError("no --data given and the shipped sample is missing; pass --data FILE.jsonl")
    return read_pairs(path).head(limit)


data_options = [
    click.option("--data", type=click.Path(path_type=Path),
                 help="JSONL/CSV of (document, reference) records. Default: the shipped English sample."),
    click.option("--dataset", type=click.Choice(["cnn_dailymail", "xsum"]),
                 help="Load a Hugging Face corpus from local files or the local cache (never downloads)."),
    click.option("--dataset-files", type=click.Path(path_type=Path), help="Local parquet/jsonl/csv files of --dataset."),
    click.option("--lang", type=click.Choice(["en", "ko"]), default="en", show_default=True),
    click.option("--encoder", help="Sentence encoder directory (default: the shipped all-MiniLM-L6-v2)."),
    click.option("--bert-model", help="BERTScore model directory for the reward (default: the shipped MiniLM)."),
    click.option("--n", "n_list", default="7,9,11,13", show_default=True, help="Summary lengths (N_LIST)."),
]


def _with(options):
    def deco(f):
        for o in reversed(options):
            f = o(f)
        return f
    return deco


@click.command("train-summarizer")
@_with(data_options)
@click.option("--num-train", default=200, show_default=True, help="Articles used for training (NUM_TRAIN).")
@click.option("--epochs", default=1, show_default=True)
@click.option("--k", "k_sentences", default=2, show_default=True, help="Sentences the policy picks per article.")
@click.option("--lr", default=1e-3, show_default=True)
@click.option("--seed", default=42, show_default=True)
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Where to save the trained policy (.pt).")
def train_summarizer(data, dataset, dataset_files, lang, encoder, bert_model, n_list, num_train, epochs,
                     k_sentences, lr, seed, checkpoint):
    """Train the RL n-word summariser: REINFORCE, one article per episode, BERTScore-F1 reward.

    \b
    Example:
      scorekit train-summarizer --data examples/summarization/news_en.jsonl --checkpoint policy.pt
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from scorekit.summarization.rl.pipeline import Toolkit
    from scorekit.summarization.rl.policy import PolicyConfig
    from scorekit.summarization.rl.train import Policy, train

    ns = _parse_n(n_list)
    if epochs <= 0 or k_sentences <= 0 or num_train <= 0:
        raise ScorekitError("--epochs, --k and --num-train must be positive")
    pairs = _load_pairs(data, dataset, "train", num_train, dataset_files)
    toolkit = Toolkit.load(encoder=encoder, bert_model=bert_model, lang=lang)
    t0 = time.perf_counter()
    articles, chunker = toolkit.prepare(pairs.ids, pairs.documents, pairs.references)
    dim = articles[0].sent_emb.shape[1] if articles else 384
    policy = Policy.create(PolicyConfig(embed_dim=dim, k_sentences=k_sentences), seed=seed)
    total = len(articles) * epochs
    err = Console(stderr=True)
    with Progress(TextColumn("training"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TextColumn("running reward {task.fields[reward]:.4f}"), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("train", total=total, reward=float("nan"))
        log = train(policy, articles, toolkit.reward, n_list=ns, epochs=epochs, lr=lr, seed=seed,
                    progress=lambda i, r: bar.update(task, completed=i, reward=r))
    policy.meta.update({"encoder": toolkit.encoder_name, "chunker": chunker, "lang": lang,
                        "train_source": pairs.source, "minutes": (time.perf_counter() - t0) / 60})
    policy.save(checkpoint)
    click.echo(f"trained on {len(articles)} articles x {epochs} epoch(s) in "
               f"{policy.meta['minutes']:.2f} min; final running reward {log.running():.4f}")
    click.echo(f"saved {checkpoint}")


@click.command("summarize")
@_with(data_options)
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path),
              help="A policy from `scorekit train-summarizer`; without it only TextRank and lead-n run.")
@click.option("--num-test", default=200, show_default=True, help="Articles evaluated (NUM_TEST).")
@click.option("--split", default="test", show_default=True, help="Split of --dataset to use.")
@output_options
def summarize(data, dataset, dataset_files, lang, encoder, bert_model, n_list, checkpoint, num_test, split,
              output, fmt, quiet, **extra):
    """Summarise to n words with the trained policy and compare it with TextRank and lead-n
    on BERTScore F1, ROUGE-1/2, Efficiency and Density at each n.

    \b
    Example:
      scorekit summarize --data examples/summarization/news_en.jsonl --checkpoint policy.pt
    """
    from scorekit.summarization.rl.pipeline import EVAL_METRICS, Toolkit, evaluate_policy
    from scorekit.summarization.rl.policy import PolicyConfig
    from scorekit.summarization.rl.train import Policy

    ns = _parse_n(n_list)
    policy = Policy.load(checkpoint) if checkpoint else None
    pairs = _load_pairs(data, dataset, split, num_test, dataset_files)
    toolkit = Toolkit.load(encoder=encoder, bert_model=bert_model, lang=lang)
    articles, chunker = toolkit.prepare(pairs.ids, pairs.documents, pairs.references)
    if policy is None:
        dim = articles[0].sent_emb.shape[1] if articles else 384
        policy = Policy.create(PolicyConfig(embed_dim=dim), seed=42).eval()
        policy.meta["untrained"] = True
    result = evaluate_policy(policy, articles, toolkit, n_list=ns, chunker=chunker,
                             name=checkpoint.stem if checkpoint else "untrained")
    result.inputs.update({"data": pairs.source, "checkpoint": str(checkpoint) if checkpoint else None})
    if not quiet:
        rows = result.extra["table"]
        header = ["system", "n"] + [m for m in EVAL_METRICS if m in rows[0]]
        print_table(header, [[r[h] for h in header] for r in rows], fmt,
                    title="RL policy vs TextRank vs lead-n" + (" (UNTRAINED policy)" if not checkpoint else ""))
        signature_line(result.signature, fmt)
    emit(result, output=output, fmt=fmt, quiet=quiet, **extra)
