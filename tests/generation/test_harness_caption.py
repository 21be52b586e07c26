"""Every registered caption metric through the shared oracle harness (tests/harness.py), English
and Korean. BERTScore and CLIPScore need a model: BERTScore runs on the shipped MiniLM over one
fixed batch here; CLIPScore's case (a tiny offline CLIP and images) is in
tests/neural/test_harness_clipscore.py."""

from functools import partial

import numpy as np
import pytest

from scorekit.generation.batch import CaptionBatch
from scorekit.metrics import REGISTRY
from tests.harness import MetricCase, harness_test, run_case, text_batches

EN = "a man rides the wave dog dogs runs in park cat sleeps on sofa red car road . , two".split()
KO = "고양이가 소파 위에서 잔다 파란 바다에 하얀 파도가 친다 사람들 산 구름이 높은".split()
EN_BATCHES = text_batches(EN)
# words whose Porter stems meet (rides/riding, runs/running, dogs/dog): stemming changes the numbers
STEM_BATCHES = text_batches(EN + "riding running sleeping played plays parks cats waves".split())
KO_BATCHES = text_batches(KO, make=partial(CaptionBatch, lang="ko"))
# verbs in several endings, one lemma each (갔다/간다 -> 가다): Kiwi lemmas change the numbers
KO_STEM_BATCHES = text_batches(KO + "갔다 간다 가는 잤다 자는 쳤다".split(), make=partial(CaptionBatch, lang="ko"))


def _coco(b):
    from scorekit.text.english import coco_tokenize

    gts = {i: [" ".join(coco_tokenize(r)) for r in rs] for i, rs in enumerate(b.references)}
    res = {i: [" ".join(coco_tokenize(p))] for i, p in enumerate(b.predictions)}
    return gts, res


def bleu_oracle(b):
    from pycocoevalcap.bleu.bleu import Bleu

    score, items = Bleu(4).compute_score(*_coco(b), verbose=0)
    keys = [f"bleu_{n}" for n in range(1, 5)]
    return dict(zip(keys, score)), {k: items[n] for n, k in enumerate(keys)}


def cider_oracle(key):
    def oracle(b):
        from pycocoevalcap.cider.cider import Cider

        score, items = Cider().compute_score(*_coco(b))
        return {key: score}, {key: list(items)}
    return oracle


def rouge_coco_oracle(beta=None):
    def oracle(b):
        from pycocoevalcap.rouge.rouge import Rouge

        scorer = Rouge()
        if beta is not None:
            scorer.beta = beta
        score, items = scorer.compute_score(*_coco(b))
        return {"rouge_l_coco": score}, {"rouge_l_coco": list(items)}
    return oracle


def rouge_l_oracle(use_stemmer=False):
    def oracle(b):
        from rouge_score import rouge_scorer

        sc = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=use_stemmer)
        items = [sc.score_multi(rs, p)["rougeL"].fmeasure for p, rs in zip(b.predictions, b.references)]
        return {"rouge_l": float(np.mean(items))}, {"rouge_l": items}
    return oracle


def rouge_l_ko_oracle(b):
    """rouge-score's ROUGE-L (score_multi) on Kiwi lemma tokens: rouge-score's own tokenizer deletes
    Hangul, so it gets the Korean tokens use_stemmer asks for (surface morphs -> lemmas)."""
    from rouge_score import rouge_scorer

    from scorekit.generation.rouge import rouge_tokenize

    class KiwiLemmas:
        def tokenize(self, text):
            return rouge_tokenize(text, lang="ko", stem=True)

    sc = rouge_scorer.RougeScorer(["rougeL"], tokenizer=KiwiLemmas())
    items = [sc.score_multi(rs, p)["rougeL"].fmeasure for p, rs in zip(b.predictions, b.references)]
    return {"rouge_l": float(np.mean(items))}, {"rouge_l": items}


def chrf_oracle(key, **kw):
    def oracle(b):
        import sacrebleu

        preds, refs = b.predictions, b.references
        n = max(len(r) for r in refs)
        streams = [[r[j] if j < len(r) else None for r in refs] for j in range(n)]
        m = sacrebleu.CHRF(**kw)
        return ({key: m.corpus_score(preds, streams).score / 100},
                {key: [m.sentence_score(p, rs).score / 100 for p, rs in zip(preds, refs)]})
    return oracle


def _case(name, params=None, **kw):
    return MetricCase(REGISTRY.metric_class("caption", name), dict(params or {}), **kw)


EN_CASES = [
    _case("bleu", batches=EN_BATCHES, oracle=bleu_oracle, rel=1e-12, max_examples=20),
    _case("cider", batches=EN_BATCHES, oracle=cider_oracle("cider"), max_examples=20),
    _case("cider_d", batches=EN_BATCHES, oracle=cider_oracle("cider_d"), max_examples=20),
    _case("cider_plain", batches=EN_BATCHES, oracle_test="tests/generation/test_cider.py (vrama91 CIDEr formula)"),
    _case("rouge_l", batches=EN_BATCHES, oracle=rouge_l_oracle(), rel=1e-12, max_examples=20),
    _case("rouge_l_coco", batches=EN_BATCHES, oracle=rouge_coco_oracle(), rel=1e-12, max_examples=20),
    _case("meteor_nltk", batches=EN_BATCHES,
          oracle_test="tests/generation/test_meteor.py (nltk meteor_score with WordNet)"),
    _case("meteor15", batches=EN_BATCHES, max_examples=10,
          oracle_test="tests/generation/test_meteor15.py (the Meteor 1.5 jar through Java)"),
    _case("chrf", batches=EN_BATCHES, oracle=chrf_oracle("chrf"), rel=0, max_examples=20),
    _case("chrf_pp", batches=EN_BATCHES, oracle=chrf_oracle("chrf_pp", word_order=2), rel=0, max_examples=20),
    # a declared parameter away from its default, against the reference with the same value
    _case("chrf", {"beta": 3, "char_order": 4}, batches=EN_BATCHES,
          oracle=chrf_oracle("chrf", beta=3, char_order=4), rel=0, max_examples=10),
    _case("rouge_l", {"use_stemmer": True}, batches=STEM_BATCHES, oracle=rouge_l_oracle(use_stemmer=True),
          rel=1e-12, max_examples=15),
    _case("rouge_l_coco", {"beta": 1.0}, batches=EN_BATCHES, oracle=rouge_coco_oracle(1.0), rel=1e-12,
          max_examples=10),
    _case("rouge_l_coco", {"beta": 2.5}, batches=EN_BATCHES, oracle=rouge_coco_oracle(2.5), rel=1e-12,
          max_examples=10),
]

# Korean: the same properties through the Korean tokenizers; chrF's oracle holds (characters)
# while the others' references tokenize English only (their Korean oracles: the files named)
KO_CASES = [
    _case(name, {"lang": "ko"}, batches=KO_BATCHES, max_examples=8, id=f"caption:{name}(lang=ko)",
          oracle=chrf_oracle(name, word_order=2 if name == "chrf_pp" else 0) if name.startswith("chrf") else None,
          oracle_test=f"the English {name} case above (same statistics), tests/generation/test_ko_pairs.py")
    for name in ("bleu", "cider_d", "rouge_l", "meteor_nltk", "chrf", "chrf_pp")
] + [
    _case("rouge_l", {"lang": "ko", "ko_units": "surface", "use_stemmer": True}, batches=KO_STEM_BATCHES,
          oracle=rouge_l_ko_oracle, rel=1e-12, max_examples=8),
    # `meteor` is the Korean METEOR (English: meteor15, meteor_nltk)
    _case("meteor", {"lang": "ko"}, batches=KO_BATCHES, max_examples=8,
          oracle_test="tests/generation/test_meteor_ko.py (the spec's worked numbers)"),
]

# BERTScore needs a model: one fixed batch (English and Korean items); the shipped MiniLM
# cannot read Hangul, allowed here where only the properties are checked
BERTSCORE = _case("bertscore", allow_english_model=True, shard_rel=1e-6,
                  batch=CaptionBatch(["a man rides a wave", "고양이가 잔다", "two dogs"],
                                     [["a man riding a wave"], ["고양이가 소파 위에서 잔다"], ["dogs play", "two dogs run"]]),
                  oracle_test="tests/neural/test_bertscore.py (bert_score)")

# Encoder batches of one caption, so the driver cuts three shards; a reference past the model
# window (512 word pieces) stands in two items of different shards: counted once in the pin
LONG = " ".join(["waves"] * 600)
BERTSCORE_SHARDS = _case("bertscore", {"batch_size": 1}, allow_english_model=True, shard_rel=1e-6,
                         batch=CaptionBatch(["a man rides a wave", "the sea", "two dogs"],
                                            [["a man riding a wave", LONG], [LONG], ["dogs play"]]),
                         oracle_test="tests/neural/test_bertscore.py (bert_score)")

HARNESS_CASES = EN_CASES + KO_CASES + [BERTSCORE]

test_harness = harness_test(EN_CASES + KO_CASES)


def test_bertscore_properties():
    pytest.importorskip("torch")
    run_case(BERTSCORE)


def test_bertscore_truncation_pin_is_the_same_on_shards():
    """Shards computed elsewhere (pickled to a worker, as on Ray) sign ``truncated=1``, the count
    of one process, not the driver's share (0) or the sum over shards (2)."""
    pytest.importorskip("torch")
    run_case(BERTSCORE_SHARDS)     # the harness: shard pins == one process's pins
    from scorekit.engine.driver import Planned, run

    one = BERTSCORE_SHARDS.make()
    run([Planned(one, [("bertscore_f1", "bertscore_f1")])], BERTSCORE_SHARDS.batch)
    assert "/truncated=1" in one.signature_params()["bertscore"], one.signature_params()
