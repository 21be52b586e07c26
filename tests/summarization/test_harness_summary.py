"""The summary family's own metrics (#26: on the metric contract) through the shared oracle
harness (tests/harness.py): ROUGE-1/2 against rouge-score, words against str.split, Density
against the spec's compute_density; shards merge to the whole (through the one driver too), NFD =
NFC, empty and single-item batches, stateful = functional. English and Korean (Korean ROUGE and
Density go through Kiwi, which the references cannot: their oracle is
tests/summarization/test_metrics.py). BERTScore needs a model: one fixed batch."""

import re
from functools import partial

import numpy as np
import pytest
from hypothesis import strategies as st

from scorekit.metrics import REGISTRY
from scorekit.summarization.metrics import SummaryBatch
from tests.harness import MetricCase, harness_test, run_case, text_batches

EN = "a man rides the wave dog dogs runs in park cat sleeps on sofa red car road two".split()
KO = "고양이가 소파 위에서 잔다 파란 바다에 하얀 파도가 친다 사람들 산 구름이 높은".split()


def with_sources(words, lang="en"):
    """Summary batches with a source document per item (what Density reads)."""
    sentence = st.lists(st.sampled_from(words), min_size=1, max_size=9).map(" ".join)
    item = st.tuples(sentence, sentence, st.lists(sentence, min_size=1, max_size=3).map(" ".join))
    return st.lists(item, min_size=2, max_size=6).map(
        lambda items: SummaryBatch([p for p, _, _ in items], [[r] for _, r, _ in items], lang,
                                   sources=[s for _, _, s in items]))


def rouge_oracle(b, **kw):
    from rouge_score import rouge_scorer

    sc = rouge_scorer.RougeScorer(["rouge1", "rouge2"], **kw)
    scores = [sc.score_multi(rs, p) for p, rs in zip(b.predictions, b.references)]
    items = {"rouge1": [s["rouge1"].fmeasure for s in scores], "rouge1_r": [s["rouge1"].recall for s in scores],
             "rouge2": [s["rouge2"].fmeasure for s in scores], "rouge2_r": [s["rouge2"].recall for s in scores]}
    return {k: float(np.mean(v)) for k, v in items.items()}, items


class KiwiLemmas:
    """Korean tokens for rouge-score (its own tokenizer deletes Hangul): Kiwi lemmas, what
    use_stemmer asks of Korean."""

    def tokenize(self, text):
        from scorekit.generation.rouge import rouge_tokenize

        return rouge_tokenize(text, lang="ko", stem=True)


def words_oracle(b):
    items = [float(len(p.split())) for p in b.predictions]
    return {"words": float(np.mean(items))}, {"words": items}


def density_oracle(b):
    """nword-summarization.md, Phase 2 Metrics §4 (compute_density; simple_tokenize as scorekit
    documents the spec's undefined helper), and the token share beside it."""
    def tok(text):
        return re.findall(r"\w+", text.lower())

    dens, tdens = [], []
    for pred, src in zip(b.predictions, b.sources):
        p, s = tok(pred), set(tok(src))
        dens.append(len(set(p) & s) / len(p) if p else 0.0)
        tdens.append(sum(t in s for t in p) / len(p) if p else 0.0)
    return ({"density": float(np.mean(dens)), "token_density": float(np.mean(tdens))},
            {"density": dens, "token_density": tdens})


def _case(name, params=None, **kw):
    return MetricCase(REGISTRY.metric_class("summary", name), dict(params or {}), **kw)


EN_BATCHES = text_batches(EN, make=SummaryBatch, max_refs=1)
KO_BATCHES = text_batches(KO, make=partial(SummaryBatch, lang="ko"), max_refs=1)
# words whose Porter stems meet (rides/riding, runs/running), verbs in several endings (갔다/간다)
STEM_BATCHES = text_batches(EN + "riding running sleeping played plays parks cats".split(), make=SummaryBatch)
KO_STEM_BATCHES = text_batches(KO + "갔다 간다 가는 잤다 자는".split(), make=partial(SummaryBatch, lang="ko"))
CASES = [
    _case("rouge", batches=EN_BATCHES, oracle=rouge_oracle, rel=1e-12),
    # use_stemmer away from its default (several references: score_multi)
    _case("rouge", {"use_stemmer": True}, batches=STEM_BATCHES, rel=1e-12, max_examples=15,
          oracle=partial(rouge_oracle, use_stemmer=True)),
    _case("rouge", {"lang": "ko", "use_stemmer": True}, batches=KO_STEM_BATCHES, rel=1e-12, max_examples=5,
          oracle=partial(rouge_oracle, tokenizer=KiwiLemmas())),
    _case("words", batches=EN_BATCHES, oracle=words_oracle, rel=0),
    _case("density", batches=with_sources(EN), oracle=density_oracle, rel=1e-12),
] + [
    _case(name, {"lang": "ko"}, batches=with_sources(KO, "ko") if name == "density" else KO_BATCHES,
          max_examples=5, oracle_test="tests/summarization/test_metrics.py (Kiwi units)", id=f"summary:{name}(lang=ko)")
    for name in ("rouge", "words", "density")
]

BERTSCORE = _case("bertscore", allow_english_model=True, shard_rel=1e-6,
                  batch=SummaryBatch(["a man rides a wave", "고양이가 잔다", "two dogs run in the park"],
                                     [["a man riding a wave"], ["고양이가 소파 위에서 잔다"], ["dogs play"]]),
                  oracle_test="tests/summarization/test_metrics.py and tests/neural/test_bertscore.py (bert_score)")

EFFICIENCY = _case("efficiency", allow_english_model=True, shard_rel=1e-6, batch=BERTSCORE.batch,
                   oracle_test="tests/summarization/test_metrics.py (F1 / max(1, words) of the same scorer)")

HARNESS_CASES = CASES + [BERTSCORE, EFFICIENCY]

test_harness = harness_test(CASES)


@pytest.mark.parametrize("case", [BERTSCORE, EFFICIENCY], ids=["bertscore", "efficiency"])
def test_bertscore_properties(case):
    pytest.importorskip("torch")
    run_case(case)
