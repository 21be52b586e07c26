"""Reproducible, per command: two runs that differ in one batch-level option (language,
tokenizer, stemming, relevance level, lengths, band ...) and give different numbers have different
signatures; an option that changes no number (--name, --format, -q) leaves the signature as it is.
The per-metric parameters are walked in tests/metrics/test_signature_pins.py; this file walks the
options each command sets for the whole run, on the shipped examples."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorekit.cli import main

EX = "examples"
SUM = f"{EX}/summarization/summaries.jsonl"
BASES = {
    "retrieval": ["retrieval", "--qrels", f"{EX}/retrieval/qrels.txt", "--run", f"{EX}/retrieval/run_v1.txt",
                  "-m", "ndcg@5,map,recall@3,bpref"],
    "caption": ["caption", "-p", f"{EX}/caption/predictions_en.jsonl", "-r", f"{EX}/caption/references_en.csv",
                "--lang", "en", "-m", "bleu,chrf,rouge_l,cider"],
    "caption-chrf": ["caption", "-p", f"{EX}/caption/predictions_en.jsonl", "-r", f"{EX}/caption/references_en.csv",
                     "--lang", "en", "-m", "chrf,chrf_pp,rouge_l"],
    "caption-ko": ["caption", "-p", f"{EX}/caption/predictions_ko.json", "-r", f"{EX}/caption/references_ko.json",
                   "--lang", "ko", "-m", "bleu,chrf,rouge_l,cider_d"],
    "summary": ["summary", "-p", SUM, "-r", SUM, "-s", SUM, "-m", "rouge,density,words"],
    "summary-words": ["summary", "-p", SUM, "-r", SUM, "-m", "words"],
    "retrieval-graded": ["retrieval", "--qrels", f"{EX}/retrieval/qrels.txt", "--run", f"{EX}/retrieval/run_v1.txt",
                         "-m", "ndcg@5,err@5,recall(rel=1)@3"],
    "retrieval-compare": ["retrieval", "--qrels", f"{EX}/retrieval/qrels.txt", "--run", f"{EX}/retrieval/run_v1.txt",
                          "--run", f"{EX}/retrieval/run_v2.txt", "-m", "ndcg@5,map", "--test", "bootstrap",
                          "--n-resamples", "200"],
    "topics-ratings": ["topics", "--topics", f"{EX}/topics/topics_en.json", "--ratings", f"{EX}/topics/ratings_en.csv",
                       "--corpus", f"{EX}/topics/corpus_en.txt", "-m", "coherence,topic_diversity",
                       "--bootstrap", "100"],
    "rag": ["rag", "--data", f"{EX}/rag/system_v1.jsonl", "-m", "hit_rate@3,ndcg@3,mrr"],
    "topics": ["topics", "--topics", f"{EX}/topics/topics_en.json", "--corpus", f"{EX}/topics/corpus_en.txt",
               "-m", "coherence,topic_diversity"],
    "sweep": ["sweep", "--data", f"{EX}/summarization/news_en.jsonl", "--limit", "6", "--n", "5,10",
              "--summarizer", "lead,random", "-m", "rouge,words", "--bootstrap", "50"],
}

# (base, extra options, does it change numbers: True / False / None = may, then pinned if it does)
KNOBS = [
    ("retrieval", ["--rel-threshold", "2"], None),
    ("retrieval", ["--name", "other"], False),
    ("retrieval", ["--format", "csv"], False),
    ("retrieval-graded", ["--rel-threshold", "2"], False),   # nDCG/ERR use the grades, recall its own rel=
    ("retrieval-compare", ["--seed", "7"], None),
    ("retrieval-compare", ["--n-resamples", "300"], None),
    ("retrieval-compare", ["--test", "randomization"], None),
    ("retrieval-compare", ["--alpha", "0.1"], None),
    ("caption", ["--tokenizer", "whitespace"], None),
    ("caption", ["--tokenizer", "13a"], None),
    ("caption", ["--scale", "100"], None),
    ("caption", ["--format", "markdown"], False),
    ("caption-chrf", ["--tokenizer", "13a"], False),     # chrF reads characters, not tokens
    ("caption-chrf", ["--tokenizer", "whitespace"], False),
    ("caption-ko", ["--tokenizer", "whitespace"], None),
    ("caption-ko", ["--tokenizer", "coco"], None),
    ("summary", ["--stem"], None),
    ("summary", ["--lang", "ko"], None),
    ("summary", ["--name", "other"], False),
    ("summary", ["--device", "cpu"], False),
    ("summary", ["--allow-english-model"], False),
    ("summary-words", ["--lang", "ko"], None),
    ("rag", ["--match", "exact"], None),
    ("rag", ["--match", "rouge_1"], None),
    ("rag", ["--match", "kiwi_rouge"], None),
    ("rag", ["--threshold", "0.3"], None),
    ("rag", ["--graded"], None),
    ("rag", ["--compat", "ranx-k"], None),
    ("rag", ["--compat", "ranx-k", "--mode", "retrieval_based"], None),
    ("rag", ["--match", "kiwi_rouge", "--kiwi-tokens", "nouns"], "kiwi"),
    ("rag", ["--match", "kiwi_rouge", "--no-kiwi-stopwords"], "kiwi"),
    ("rag", ["--match", "kiwi_rouge", "--kiwi-rouge", "rouge2"], "kiwi"),
    ("rag", ["--name", "other"], False),
    ("topics", ["--tokenizer", "whitespace"], None),
    ("topics", ["--tokenizer", "regex"], None),
    ("topics-ratings", ["--seed", "7"], None),
    ("topics-ratings", ["--bootstrap", "150"], None),
    ("sweep", ["--stem"], None),
    ("sweep", ["--seed", "7"], None),
    ("sweep", ["--band", "0.5,0.9"], None),
    ("sweep", ["--n", "5,15"], None),
]


def _run(args, tmp_path, capsys) -> dict:
    out = tmp_path / f"r{len(list(tmp_path.iterdir()))}.json"
    code = main([*args, "-q", "-o", str(out), "--no-record"])
    err = capsys.readouterr().err
    assert code == 0, err
    return json.loads(out.read_text())


def _numbers(doc: dict) -> dict:
    """Every number of a result: corpus metrics and per-item rows (of each run in a multi-run one)."""
    out: dict = {}

    def walk(prefix, x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k not in ("signature", "name", "names", "inputs", "elapsed", "created", "timing", "version"):
                    walk(f"{prefix}/{k}", v)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(f"{prefix}[{i}]", v)
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            out[prefix] = float(x)
    walk("", {k: doc.get(k) for k in ("metrics", "per_item", "runs", "systems", "rows", "table", "comparison",
                                      "extra")})
    return out


def _signatures(doc: dict) -> list:
    sigs = [doc.get("signature")] + [r.get("signature") for r in doc.get("runs", []) if isinstance(r, dict)]
    return [s for s in sigs if s]


def _differ(a: dict, b: dict) -> bool:
    return a.keys() != b.keys() or any(not np.isclose(a[k], b[k], rtol=0, atol=0, equal_nan=True) for k in a)


@pytest.mark.parametrize("base,extra,changes", KNOBS, ids=[f"{b}:{' '.join(e)}" for b, e, _ in KNOBS])
def test_an_option_that_changes_numbers_changes_the_signature(base, extra, changes, tmp_path, capsys):
    args = BASES[base]
    if changes == "kiwi":   # a kiwi_rouge option, against kiwi_rouge with its defaults
        args, extra = [*args, *extra[:2]], extra[2:]
    a, b = _run(args, tmp_path, capsys), _run([*args, *extra], tmp_path, capsys)
    sa, sb = _signatures(a), _signatures(b)
    assert sa, f"{base}: no signature in the output"
    if changes is False:
        assert sa == sb, f"{' '.join(extra)} changes no number but changes the signature:\n{sa}\n{sb}"
        assert not _differ(_numbers(a), _numbers(b)), f"{' '.join(extra)} changed a number"
        return
    if _differ(_numbers(a), _numbers(b)):
        assert sa != sb, f"{' '.join(extra)} changes the numbers but not the signature {sa}"


@pytest.mark.parametrize("family", ["caption", "summary"])
def test_the_engine_changes_neither_numbers_nor_signature(family):
    """In this process or in forked parts: the same numbers, the same signature (the engine is
    written in ``inputs``, not pinned)."""
    from scorekit.generation.driver import evaluate
    from scorekit.summarization.metrics import summary_metrics

    preds = ["a man rides a wave", "two dogs run", "고양이가 잔다"] * 4
    refs = [["a man riding a wave"], ["dogs run in the park"], ["고양이가 소파에서 잔다"]] * 4
    if family == "caption":
        def score(engine):
            return evaluate(preds, refs, metrics=["bleu", "chrf", "cider", "rouge_l"], engine=engine)
    else:
        def score(engine):
            return summary_metrics(preds, [r[0] for r in refs], metrics=["rouge", "words", "chrf"], engine=engine)
    a, b = score(None), score("fork")
    assert a.signature == b.signature
    assert a.metrics.keys() == b.metrics.keys()
    for k in a.metrics:
        assert a.metrics[k] == pytest.approx(b.metrics[k], rel=1e-12, abs=1e-12), k


FUSE = ["fuse", "--run", f"{EX}/retrieval/run_v1.txt", "--run", f"{EX}/retrieval/run_v2.txt"]
# (method, option, can it change a fused score)
FUSE_KNOBS = [
    (["-m", "rrf"], ["--rrf-k", "10"], True),
    (["-m", "rrf"], ["--norm", "zmuv"], False),       # RRF fuses ranks: no normalisation changes them
    (["-m", "rrf"], ["--norm", "none"], False),
    (["-m", "rrf"], ["--tag", "other"], False),       # the run's tag column: no score
    (["-m", "sum"], ["--norm", "zmuv"], True),
    (["-m", "sum"], ["--norm", "rank"], True),
    (["-m", "wsum", "--weights", "0.5,0.5"], ["--weights", "0.2,0.8"], True),
    (["-m", "mnz"], ["--rrf-k", "10"], False),        # k is RRF's alone
]


def _fuse(args, tmp_path, capsys) -> tuple[list, str]:
    out = tmp_path / f"f{len(list(tmp_path.iterdir()))}.txt"
    code = main([*FUSE, *args, "-o", str(out)])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    sig = next(line.split(": ", 1)[1] for line in (cap.out + cap.err).splitlines() if line.startswith("signature: "))
    return [line.split()[:5] for line in out.read_text().splitlines()], sig


@pytest.mark.parametrize("base,extra,changes", FUSE_KNOBS,
                         ids=[f"{' '.join(b)}:{' '.join(e)}" for b, e, _ in FUSE_KNOBS])
def test_fuse_signature_changes_when_the_fused_scores_do(base, extra, changes, tmp_path, capsys):
    (ra, sa), (rb, sb) = _fuse(base, tmp_path, capsys), _fuse([*base, *extra], tmp_path, capsys)
    if ra != rb:
        assert sa != sb, f"{' '.join(extra)} changes the fused run but not the signature {sa}"
    if not changes:
        assert ra == rb, f"{' '.join(extra)} changed a fused score"
        assert sa == sb, f"{' '.join(extra)} changes no score but changes the signature:\n{sa}\n{sb}"


@pytest.mark.parametrize("base", ["retrieval", "rag", "caption-ko", "summary", "topics", "sweep"])
def test_a_signature_lists_its_metrics_as_get_metric_rebuilds_them(base, tmp_path, capsys):
    """One layout for every family: ``task:<family>|...|metrics:<canonical specs>|...``; each spec
    listed builds, with :func:`scorekit.metrics.get_metric`, a metric whose canonical spec it is."""
    from scorekit.errors import ScorekitError
    from scorekit.metrics import get_metric, split_specs
    from scorekit.metrics.registry import scoring_families
    from scorekit.signature import parse_signature

    fields = parse_signature(_run(BASES[base], tmp_path, capsys)["signature"])
    specs = split_specs(fields["metrics"])
    assert specs and list(fields)[0] == "task" and list(fields)[-1] == "version"
    for spec in specs:
        for family in scoring_families(fields["task"]):
            try:
                metric = get_metric(family, spec)
            except ScorekitError:
                continue
            assert metric.spec() == spec
            break
        else:
            pytest.fail(f"{spec!r} of {fields['metrics']!r} builds in no family of {fields['task']}")
