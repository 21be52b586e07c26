"""``scorekit rag``: retrieval measures for a retriever that returns passages, not document ids
(issue #30). A thin layer over :func:`scorekit.retrieval.rag.evaluate` / ``compare``."""

from __future__ import annotations

import click

from scorekit.cli._common import emit, example, metrics_table, output_options, print_comparison, print_table, signature_line
from scorekit.cli._types import count, finite, usage_error
from scorekit.errors import ScorekitError
from scorekit.retrieval.rag import COMPAT_MEASURES, COMPAT_MODES, DEFAULT_RAG_MEASURES
from scorekit.retrieval.rag_match import KIWI_ROUGE_TYPES, KIWI_TOKENS, METHODS
from scorekit.stats.significance import METHODS as METHODS_TESTS


@click.command(name="rag", context_settings={"help_option_names": ["-h", "--help"]},
               epilog=example("scorekit rag --data examples/rag/system_v1.jsonl --match kiwi_rouge --threshold 0.5 \\",
                              "    -m hit_rate@3,ndcg@3,map@3,mrr,recall@3",
                              "scorekit rag --data examples/rag/system_v1.jsonl --compat ranx-k --match kiwi_rouge",
                              heading="Examples:"))
@click.option("--data", "datas", required=True, multiple=True, metavar="FILE.jsonl",
              help='One record per question: {"id", "question", "retrieved": [passage, ...] in rank order, '
                   '"references": [passage, ...]}; a passage is a string or {"page_content": ...}. Repeat to '
                   "compare retrievers; the first is the baseline.")
@click.option("--name", "names", multiple=True, metavar="NAME", help="Display name for each --data, in order.")
@click.option("--match", "match", type=click.Choice(METHODS), default="rouge_l", show_default=True,
              help="How a retrieved passage matches a reference: exact (NFC + whitespace), rouge_l/rouge_1/"
                   "rouge_2 (scorekit's tokens, Kiwi for Korean), kiwi_rouge (ranx-k's Kiwi tokens), rouge "
                   "(rouge-score ROUGE-L, as ranx-k's 'rouge'), embedding (cosine, --model).")
@click.option("--threshold", type=finite(0, 1, min_open=True), default=0.5, show_default=True,
              help="A pair matches when its similarity is at least this.")
@click.option("--graded", is_flag=True, help="Use the similarity of a match as its gain (nDCG, DCG, ERR).")
@click.option("--compat", type=click.Choice(["ranx-k"]), default=None,
              help="Reproduce ranx-k 0.0.17's evaluate_with_ranx_similarity (its relevance rules, see docs/rag.md).")
@click.option("--mode", type=click.Choice(COMPAT_MODES), default="reference_based", show_default=True,
              help="ranx-k's evaluation_mode (with --compat ranx-k).")
@click.option("--kiwi-tokens", type=click.Choice(KIWI_TOKENS), default="morphs", show_default=True,
              help="kiwi_rouge: ranx-k's tokenize_method.")
@click.option("--kiwi-stopwords/--no-kiwi-stopwords", default=True, show_default=True,
              help="kiwi_rouge: drop ranx-k's Korean stopwords.")
@click.option("--kiwi-rouge", type=click.Choice(KIWI_ROUGE_TYPES), default="rougeL", show_default=True,
              help="kiwi_rouge: ranx-k's rouge_type.")
@click.option("--model", metavar="PATH", help="embedding: a local sentence-encoder folder.")
@click.option("--allow-english-model", is_flag=True, help="embedding: score Korean with a model that cannot read Hangul.")
@click.option("--metrics", "-m", default=None, metavar="LIST",
              help=f"Comma-separated retrieval measures (ranx, ir_measures or trec_eval syntax, as `scorekit "
                   f"retrieval`), keyed by the names as written. Default: {','.join(DEFAULT_RAG_MEASURES)} "
                   f"(with --compat ranx-k: {','.join(COMPAT_MEASURES)}).")
@click.option("--test", type=click.Choice(METHODS_TESTS), default="t", show_default=True,
              help="Paired significance test for comparing retrievers.")
@click.option("--alpha", type=finite(0, 1, min_open=True, max_open=True), default=0.05, show_default=True,
              help="Significance level (Holm–Bonferroni adjusted p-values).")
@click.option("--n-resamples", type=count(1), default=10000, show_default=True,
              help="Permutations / bootstrap samples.")
@click.option("--seed", type=count(0), default=42, show_default=True, help="Seed for randomization / bootstrap.")
@output_options
def command(datas, names, match, threshold, graded, compat, mode, kiwi_tokens, kiwi_stopwords, kiwi_rouge,
            model, allow_english_model, metrics, test, alpha, n_resamples, seed, output, fmt, quiet):
    """Evaluate RAG retrieval from passages: relevance by matching each retrieved passage to the
    question's reference passages, then trec_eval's measures.

    By default every reference passage is relevant (unretrieved ones count against recall, nDCG
    and MAP), each retrieved passage is matched one-to-one to the best free reference at or above
    --threshold, and duplicates are non-relevant. --compat ranx-k gives ranx-k's numbers instead.
    """
    from scorekit.retrieval.rag import compare

    if names and len(names) != len(datas):
        raise ScorekitError(f"--name given {len(names)} times for {len(datas)} --data files")
    if match == "embedding" and not model:
        raise ScorekitError("--match embedding needs --model PATH (a local sentence-encoder folder)")
    ctx = click.get_current_context()   # an option --compat/--match never reads is an error
    kiwi, emb = ("--match kiwi_rouge", match == "kiwi_rouge"), ("--match embedding", match == "embedding")
    readers = {"mode": ("--compat ranx-k", compat), "kiwi_tokens": kiwi, "kiwi_stopwords": kiwi,
               "kiwi_rouge": kiwi, "model": emb, "allow_english_model": emb}
    for p in ctx.command.params:
        reader, read = readers.get(p.name, ("", True))
        if not read and ctx.get_parameter_source(p.name) is click.core.ParameterSource.COMMANDLINE:
            raise usage_error(f"{'/'.join(p.opts[:1] + p.secondary_opts)} is read by {reader} only")
    comp = compare(list(datas), metrics, names=list(names) or None, match=match, threshold=threshold,
                   graded=graded, compat=compat, mode=mode, test=test, alpha=alpha, n_resamples=n_resamples,
                   seed=seed, kiwi_tokens=kiwi_tokens, kiwi_stopwords=kiwi_stopwords, kiwi_rouge=kiwi_rouge,
                   model=model, allow_english_model=allow_english_model)
    if compat:
        click.echo(f"scorekit: note: {comp.results[0].extra['rag']['note']}", err=True)
    if not quiet:
        first, (header, rows) = comp.results[0], metrics_table(comp.results)
        rag = first.extra["rag"]
        for r in comp.results if compat else ():   # ranx-k's numbers, then scorekit's default ones
            d = r.extra["rag"].get("default_metrics") or {}
            rows.append([f"{r.name} (scorekit default)", *[d.get(m) for m in header[1:]]])
        title = (f"RAG retrieval: {first.inputs['n_questions']} questions, match {rag['match']} "
                 f">= {rag['threshold']:g}" + (f", --compat ranx-k ({rag['mode']})" if compat else ""))
        print_table(header, rows, fmt, title=title)
        if len(comp.results) > 1:
            print_comparison(comp, fmt)
        signature_line(comp.signature, fmt)
    emit(comp.results, output=output, fmt=fmt, quiet=quiet,
         payload=comp.to_dict() if len(comp.results) > 1 else None)
