"""#26: one driver, any executor — the same numbers in one process and in forked parts (to 1e-12;
in fact bit for bit) for caption and summary metrics, on the shipped examples and random inputs.
Ray runs the same driver (tests/engine/test_ray.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.engine.driver import shard_bounds
from scorekit.engine.executors import Forked
from scorekit.generation import evaluate
from scorekit.summarization.metrics import summary_metrics

ROOT = Path(__file__).resolve().parents[2]
NGRAM = ["bleu", "cider", "cider_plain", "rouge_l", "rouge_l_coco", "meteor_nltk", "chrf(beta=3)", "chrf_pp",
         "bleu_4(mode=sacrebleu)", "bleu_2(mode=sentence)"]
WORDS = "a man dog cat runs on the beach red ball sits in water".split()   # Korean: the shipped set
sent = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)
items = st.lists(st.tuples(sent, st.lists(sent.filter(str.strip), min_size=1, max_size=3)), min_size=2, max_size=9)


def _same(a, b):
    assert a.signature == b.signature and list(a.metrics) == list(b.metrics)
    for k, v in a.metrics.items():
        assert abs(b.metrics[k] - v) <= 1e-12 or (np.isnan(v) and np.isnan(b.metrics[k])), k
    for ra, rb in zip(a.per_item, b.per_item):
        for k in a.metrics:
            assert abs(ra[k] - rb[k]) <= 1e-12, k


def test_shard_bounds_cut_on_aligned_pairs():
    refs = [["x"] * n for n in (1, 2, 3, 1, 1, 4, 2)]
    assert shard_bounds(refs, None) == [0, 7]
    b = shard_bounds(refs, 2, align=3)
    assert b[0] == 0 and b[-1] == 7
    cum = np.cumsum([len(r) for r in refs])
    assert all(cum[x - 1] % 3 == 0 for x in b[1:-1])


@pytest.mark.parametrize("lang", ["en", pytest.param("ko", marks=pytest.mark.slow)])   # ko: Kiwi per child
def test_shipped_captions_forked_equal_one_process(lang):
    from scorekit.io.captions import read_caption_set

    ex = ROOT / "examples" / "caption"
    files = {"en": ("predictions_en.jsonl", "references_en.csv"), "ko": ("predictions_ko.json", "references_ko.json")}
    data = read_caption_set(ex / files[lang][0], ex / files[lang][1])
    names = NGRAM if lang == "en" else [n for n in NGRAM if n != "rouge_l_coco"] + ["meteor", "meteor(delta=0.5)"]
    one = evaluate(data.predictions, data.references, lang=lang, metrics=names)
    _same(one, evaluate(data.predictions, data.references, lang=lang, metrics=names,
                        engine=Forked(workers=3, items_per_shard=3)))


@pytest.mark.slow   # Korean rows: Kiwi in each forked child
def test_shipped_summaries_forked_equal_one_process():
    rows = [json.loads(x) for x in (ROOT / "examples" / "summarization" / "summaries.jsonl").read_text().splitlines()
            if x.strip()]
    p, r, d = ([x[k] for x in rows] for k in ("prediction", "reference", "document"))
    names = ["chrf", "bleu_4", "chrf(beta=3)", "cider"]
    one = summary_metrics(p, r, d, bertscorer=None, metrics=names)
    _same(one, summary_metrics(p, r, d, bertscorer=None, metrics=names, engine=Forked(workers=2, items_per_shard=4)))


@settings(max_examples=8, deadline=None)
@given(data=items, size=st.integers(1, 4))
def test_random_captions_forked_equal_one_process(data, size):
    preds, refs = [p for p, _ in data], [r for _, r in data]
    names = ["bleu", "cider", "chrf(beta=3)", "rouge_l_coco", "meteor_nltk(alpha=0.8)"]
    one = evaluate(preds, refs, lang="en", metrics=names)
    _same(one, evaluate(preds, refs, lang="en", metrics=names, engine=Forked(workers=2, items_per_shard=size)))


@settings(max_examples=6, deadline=None)
@given(data=items, size=st.integers(1, 4))
def test_random_summaries_forked_equal_one_process(data, size):
    preds, refs = [p for p, _ in data], [r for _, r in data]
    docs = [" ".join(r) for r in refs]
    one = summary_metrics(preds, refs, docs, bertscorer=None, metrics=["chrf", "bleu_4"])
    _same(one, summary_metrics(preds, refs, docs, bertscorer=None, metrics=["chrf", "bleu_4"],
                               engine=Forked(workers=2, items_per_shard=size)))


@pytest.mark.slow   # loads the shipped MiniLM
def test_bertscore_idf_on_forked_shards_weighs_tokens_as_one_process():
    """idf=true: the idf comes from every reference of the batch, not from each shard's (shards
    are cut on batch_size=2 pairs here, so each shard holds one or two items)."""
    pytest.importorskip("torch")
    preds = ["a man runs on the beach", "a red ball", "the dog sits in water", "a cat", "a man sits",
             "red water", "the beach"]
    refs = [["a man is running on a beach", "someone runs"], ["a red ball on grass"], ["a dog in the water"],
            ["a small cat sits"], ["a man sitting on a bench", "a person sits"], ["the water is red"],
            ["a sandy beach", "the sea and the beach"]]
    names = ["bertscore(idf=true,batch_size=2)"]
    one = evaluate(preds, refs, lang="en", metrics=names)
    forked = evaluate(preds, refs, lang="en", metrics=names, engine=Forked(workers=2, items_per_shard=1))
    assert forked.signature == one.signature and "/idf/" in one.signature
    for k, v in one.metrics.items():   # float32 model: batches of other shapes round in the last bits
        assert abs(forked.metrics[k] - v) <= 1e-6, k
    assert max(abs(a[k] - b[k]) for a, b in zip(forked.per_item, one.per_item) for k in one.metrics) <= 1e-6


@pytest.mark.slow   # loads the shipped MiniLM
def test_sweep_bertscore_idf_is_the_whole_sets_on_forked_shards():
    """The sweep's shards of documents weigh BERTScore's idf by every reference once, as one
    process and as `scorekit summary` on the same summaries."""
    pytest.importorskip("torch")
    from scorekit.summarization.sweep import run_sweep

    rows = [json.loads(x) for x in (ROOT / "examples" / "summarization" / "summaries.jsonl").read_text().splitlines()
            if x.strip() and json.loads(x)["id"].startswith("en")]
    docs, refs = [r["document"] for r in rows], [r["reference"] for r in rows]
    kw = dict(ns=[5, 9], summarizers=("lead",), seed=3, n_resamples=20,
              metrics="bertscore(idf=true,batch_size=2),words", keep_summaries=True)
    one = run_sweep(docs, refs, **kw)
    forked = run_sweep(docs, refs, engine=Forked(workers=2), docs_per_shard=1, **kw)
    for m, v in one.values["lead"].items():
        assert np.allclose(forked.values["lead"][m], v, rtol=0, atol=1e-6), m
    lead5 = one.summaries["lead"][0]
    alone = summary_metrics(lead5, refs, docs, bertscorer=None, metrics=["bertscore(idf=true,batch_size=2)"])
    assert np.allclose(one.values["lead"]["bertscore_f1"][0], [r["bertscore_f1(idf=true,batch_size=2)"] for r in alone.per_item],
                       rtol=0, atol=1e-6)
