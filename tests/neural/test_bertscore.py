"""BERTScore == bert_score.score(cands, refs, model_type=<MiniLM dir>, num_layers=L, idf=...) to 1e-5.

Oracle notes (docs/neural.md): bert_score 0.3.x calls ``tokenizer.build_inputs_with_special_tokens``
for empty texts, which transformers 5 tokenizers no longer have; the oracle below patches only that
branch to return the same ``[CLS] [SEP]`` it returned under transformers 4. Model and tokenizer
loading inside bert_score are memoised so each example does not reload the weights — the scoring
code that runs is bert_score's own.
"""

from __future__ import annotations

import functools
import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("torch")
pytest.importorskip("bert_score")

from scorekit.errors import InputError, ScorekitError  # noqa: E402
from scorekit.neural.bertscore import BERTScorer as _BERTScorer, bertscore  # noqa: E402
from scorekit.neural.encoder import default_model_path  # noqa: E402

# These tests compare numbers with bert_score, Korean text included, on the shipped English-only
# MiniLM: the Hangul refusal (tests/neural/test_hangul.py) is switched off here on purpose.
BERTScorer = functools.partial(_BERTScorer, allow_english_model=True)

MODEL = str(default_model_path())

EN = ["a", "man", "woman", "is", "riding", "a", "horse", "the", "sea", "waves", "break", "on",
      "beach", "two", "dogs", "play", "in", "snow", "red", "car", "city", "street", "at", "night",
      "quickly", "unbelievable", ",", ".", "!"]
KO = ["푸른", "바다", "위로", "하얀", "파도가", "부서진다", "높은", "산", "위에", "구름이", "걸려",
      "있다", "아이들이", "공원에서", "뛰어논다", "서울의", "밤거리", "해변으로", "밀려온다", "."]

words = st.one_of(st.sampled_from(EN), st.sampled_from(KO))
sentence = st.one_of(
    st.lists(st.sampled_from(EN), min_size=0, max_size=14).map(" ".join),
    st.lists(st.sampled_from(KO), min_size=1, max_size=10).map(" ".join),
    st.lists(words, min_size=1, max_size=12).map(" ".join),
)


def oracle():
    """bert_score with memoised loading and the transformers-5 empty-text fix."""
    import bert_score
    import bert_score.utils as U

    mod = sys.modules["bert_score.score"]
    if not getattr(mod, "_scorekit_oracle", False):
        orig_encode = U.sent_encode

        def sent_encode(tokenizer, sent):
            if sent.strip() == "":
                return [tokenizer.cls_token_id, tokenizer.sep_token_id]
            return orig_encode(tokenizer, sent)

        U.sent_encode = sent_encode
        mod.get_model = functools.lru_cache(maxsize=8)(mod.get_model)
        mod.get_tokenizer = functools.lru_cache(maxsize=8)(mod.get_tokenizer)
        mod._scorekit_oracle = True
    return bert_score


def ref_score(cands, refs, **kw):
    kw.setdefault("nthreads", 0)
    P, R, F = oracle().score(cands, refs, model_type=MODEL, **kw)
    return P.numpy(), R.numpy(), F.numpy()


def assert_equal(out, ref):
    P, R, F = ref
    np.testing.assert_allclose(out.precision, P, atol=1e-5, rtol=0)
    np.testing.assert_allclose(out.recall, R, atol=1e-5, rtol=0)
    np.testing.assert_allclose(out.f1, F, atol=1e-5, rtol=0)


pairs = st.lists(st.tuples(sentence, sentence), min_size=1, max_size=7)


@pytest.mark.slow
@settings(max_examples=15)
@given(pairs, st.booleans(), st.sampled_from([6, 3]), st.sampled_from([64, 3]))
def test_equals_bert_score_single_reference(data, idf, layers, batch):
    cands = [c for c, _ in data]
    refs = [r for _, r in data]
    out = BERTScorer(num_layers=layers, idf=idf, batch_size=batch).score(cands, refs)
    assert_equal(out, ref_score(cands, refs, num_layers=layers, idf=idf, batch_size=batch))


@pytest.mark.slow
@settings(max_examples=12)
@given(st.lists(st.tuples(sentence, st.lists(sentence, min_size=1, max_size=3)), min_size=1, max_size=6),
       st.booleans())
def test_equals_bert_score_several_references(data, idf):
    cands = [c for c, _ in data]
    refs = [r for _, r in data]
    out = BERTScorer(num_layers=6, idf=idf).score(cands, refs)
    assert_equal(out, ref_score(cands, refs, num_layers=6, idf=idf))


def test_korean_fixed_example_and_result():
    hyps = ["파란 바다에 하얀 파도가 친다", "산꼭대기에 구름이 피어오른다"]
    refs = ["푸른 바다 위로 하얀 파도가 부서진다", "높은 산 위에 구름이 걸려 있다"]
    res = bertscore(hyps, refs, num_layers=6, ids=["v1", "v2"], allow_english_model=True)
    P, R, F = ref_score(hyps, refs, num_layers=6)
    assert res.task == "bertscore"
    assert set(res.metrics) == {"bertscore_p", "bertscore_r", "bertscore_f1"}
    assert res.metrics["bertscore_f1"] == pytest.approx(float(F.mean()), abs=1e-6)
    assert res.metrics["bertscore_p"] == pytest.approx(float(P.mean()), abs=1e-6)
    assert [row["id"] for row in res.per_item] == ["v1", "v2"]
    assert res.per_item[1]["bertscore_r"] == pytest.approx(float(R[1]), abs=1e-6)
    assert res.signature.startswith("task:bertscore|model:all-MiniLM-L6-v2|layer:6|idf:no")
    assert "truncated" not in res.signature
    res.to_json()  # JSON-clean


def test_nfc_and_nfd_korean_score_alike():
    text = "푸른 바다 위로 하얀 파도가 부서진다"
    s = BERTScorer(num_layers=6)
    a = s.score([text], ["바다"]).f1
    b = s.score([unicodedata.normalize("NFD", text)], ["바다"]).f1
    np.testing.assert_array_equal(a, b)


def test_baseline_rescaling_equals_bert_score(tmp_path):
    path = tmp_path / "minilm.tsv"
    rows = ["LAYER,P,R,F"] + [f"{i},{0.1 + 0.05 * i:.4f},{0.2 + 0.03 * i:.4f},{0.15 + 0.04 * i:.4f}"
                              for i in range(7)]
    path.write_text("\n".join(rows) + "\n")
    cands = ["a man rides a horse on the beach", "푸른 바다 위로 하얀 파도가 부서진다", ""]
    refs = [["a man is riding a horse", "a horse"], ["바다가 푸르다"], ["nothing"]]
    for layers in (6, 4):
        out = BERTScorer(num_layers=layers, idf=True, rescale_with_baseline=True,
                         baseline_path=path).score(cands, refs)
        assert_equal(out, ref_score(cands, refs, num_layers=layers, idf=True,
                                    rescale_with_baseline=True, lang="en", baseline_path=str(path)))
        assert "rescale:yes|baseline:minilm.tsv" in out.signature


def test_baseline_file_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("LAYER,P,R,F\n0,0.1,0.2,x\n")
    with pytest.raises(InputError, match=r"bad.tsv:2: expected three numbers"):
        BERTScorer(num_layers=0, rescale_with_baseline=True, baseline_path=bad)
    with pytest.raises(InputError, match="layers 0..0, but layer 6"):
        BERTScorer(num_layers=6, rescale_with_baseline=True, baseline_path=bad)
    with pytest.raises(ScorekitError, match="needs baseline_path"):
        BERTScorer(num_layers=6, rescale_with_baseline=True)


def test_idf_sentences_equal_a_bert_score_idf_dict():
    from bert_score.utils import get_idf_dict, get_tokenizer

    idf_docs = ["the sea is blue", "a man rides a horse", "바다가 푸르다", "the the the"]
    cands = ["the sea waves", "a horse on the beach"]
    refs = ["blue sea", "a man riding a horse"]
    idf_dict = get_idf_dict(idf_docs, get_tokenizer(MODEL), nthreads=0)
    out = BERTScorer(num_layers=6, idf=True).score(cands, refs, idf_sentences=idf_docs)
    assert_equal(out, ref_score(cands, refs, num_layers=6, idf=idf_dict))


def test_long_text_is_truncated_and_signed():
    long = " ".join(["waves"] * 700)
    cands, refs = [long, "a dog"], ["the sea", "a dog runs"]
    out = BERTScorer(num_layers=6).score(cands, refs)
    assert_equal(out, ref_score(cands, refs, num_layers=6))
    assert "trunc:512|" in out.signature and "truncated:1|" in out.signature
    res = bertscore(cands, refs, num_layers=6)
    assert "truncated" in res.extra["warnings"][0]


def test_plain_max_matching_differs_only_by_the_padding_floor():
    cands = ["a man runs across a wooden bench.", "two dogs"]
    refs = ["a group of people is looking at a city square at sunset.", "the sea"]
    compat = BERTScorer(num_layers=6).score(cands, refs)
    plain = BERTScorer(num_layers=6, bert_score_padding=False).score(cands, refs)
    assert "match:max" in plain.signature and "match:bert_score@64" in compat.signature
    assert np.all(compat.precision >= plain.precision - 1e-7)
    assert np.all(compat.recall >= plain.recall - 1e-7)


def test_empty_and_mismatched_inputs():
    s = BERTScorer(num_layers=6)
    out = s.score([], [])
    assert out.f1.shape == (0,)
    with pytest.raises(ScorekitError, match="nothing to score"):
        bertscore([], [], num_layers=6)
    with pytest.raises(ScorekitError, match="2 candidates but 1 references"):
        s.score(["a", "b"], ["a"])
    with pytest.raises(ScorekitError, match="candidate 1 has no reference"):
        s.score(["a", "b"], [["a"], []])
    with pytest.raises(ScorekitError, match="not one string"):
        s.score("abc", "abd")
    with pytest.raises(ScorekitError, match="idf is off"):
        s.score(["a"], ["b"], idf_sentences=["c"])


def test_directory_that_is_not_a_model(tmp_path):
    (tmp_path / "weights.txt").write_text("nope")
    with pytest.raises(InputError, match="not a Hugging Face model directory") as err:
        BERTScorer(tmp_path)
    assert str(tmp_path) in str(err.value)


def test_layer_out_of_range():
    with pytest.raises(InputError, match="num_layers must be between 0 and 6"):
        BERTScorer(num_layers=9)


def test_state_cache_reuses_sentences_without_changing_scores():
    cands = ["a dog runs on the beach", "푸른 바다"]
    refs = ["the dog is running", "하얀 파도가 부서진다"]
    scorer = BERTScorer(num_layers=6, idf=True)
    first = scorer.score(cands, refs)
    assert len(scorer._states) == 4
    real_model = scorer.model
    scorer.model = lambda *a, **k: pytest.fail("cached sentence ran through the model again")
    try:
        again = scorer.score(cands[::-1], refs[::-1])
    finally:
        scorer.model = real_model
    np.testing.assert_allclose(again.f1[::-1], first.f1, atol=1e-6)
    assert_equal(again, ref_score(cands[::-1], refs[::-1], num_layers=6, idf=True))
    small = BERTScorer(num_layers=6, cache_size=1)
    small.score(cands, refs)
    assert len(small._states) == 1
    off = BERTScorer(num_layers=6, cache_size=0)
    off.score(cands, refs)
    assert len(off._states) == 0


@pytest.mark.parametrize("args,kw", [
    ("idf=true", {"idf": True, "num_layers": 6}),   # 6: MiniLM's depth, the default layer
    ("num_layers=3,idf=true,batch_size=2", {"num_layers": 3, "idf": True, "batch_size": 2}),
    ("num_layers=4,rescale_with_baseline=true,baseline_path={path}",
     {"num_layers": 4, "rescale_with_baseline": True, "lang": "en"}),
])
def test_one_declaration_in_both_families_equals_bert_score(tmp_path, args, kw):
    """#26: BERTScore is declared once (generation.model_metrics.BERTScore); its parameters
    reach captions and summaries by the name grammar, and both equal bert_score with them (an
    empty prediction included: 0, or its rescaled value as bert_score gives it)."""
    from scorekit.metrics.registry import get_metric

    path = tmp_path / "minilm.tsv"
    path.write_text("LAYER,P,R,F\n" + "".join(f"{i},{0.1 + 0.05 * i:.4f},{0.2 + 0.03 * i:.4f},"
                                              f"{0.15 + 0.04 * i:.4f}\n" for i in range(7)))
    if "baseline_path" in args:
        kw = {**kw, "baseline_path": str(path)}
    spec = f"bertscore({args.format(path=path)})"
    cands = ["a man rides a horse on the beach", "푸른 바다 위로 하얀 파도가 부서진다", "", "two dogs play"]
    refs = [["a man is riding a horse", "a horse"], ["바다가 푸르다"], ["nothing"], ["dogs play in snow"]]
    want = ref_score(cands, refs, **kw)
    cap = get_metric("caption", spec)
    summ = get_metric("summary", spec)
    for m in (cap, summ):
        m.allow_english_model = True     # MiniLM on the Korean item
    per = cap.item_scores(cap.item_stats((cands, refs)))
    for key, ref in zip(("bertscore_p", "bertscore_r", "bertscore_f1"), want):
        np.testing.assert_allclose(per[key], ref, atol=1e-5, rtol=0)
    got = summ.item_scores(summ.item_stats((cands, refs)))
    assert set(got) == {"bertscore_f1"}
    np.testing.assert_array_equal(got["bertscore_f1"], per["bertscore_f1"])
    assert cap.signature_params() == summ.signature_params()   # one pin format
    assert [p.name for p in cap.params] == [p.name for p in summ.params]
