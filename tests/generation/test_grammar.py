"""#26: every declared parameter of a caption metric is reachable by the name grammar
(``chrf(beta=3)``), from the API and the CLI, and equals the reference library with non-default
values: chrF (sacrebleu), METEOR (nltk), CIDEr's sigma (pycocoevalcap)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit.generation import evaluate
from scorekit.metrics import REGISTRY, split_specs

sacrebleu = pytest.importorskip("sacrebleu")
WORDS = "a man dog cat runs on the beach red ball sits in water big small two people 남자가 개가 해변에서".split()
sent = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
items = st.lists(st.tuples(sent, st.lists(sent.filter(str.strip), min_size=1, max_size=1)), min_size=1, max_size=8)


def test_split_specs_keeps_commas_inside_parentheses():
    assert split_specs("chrf(beta=3),meteor(alpha=0.85,beta=0.2,gamma=0.6), bleu_4") == [
        "chrf(beta=3)", "meteor(alpha=0.85,beta=0.2,gamma=0.6)", "bleu_4"]


def test_every_declared_parameter_is_reachable_by_the_grammar():
    """Each non-batch parameter of every caption and summary metric, set through the grammar,
    reaches the built metric (no table beside the declaration)."""
    from scorekit.engine.driver import plan

    samples = {int: "3", float: "0.5", bool: "true", str: None, object: "x.tsv"}
    checked = 0
    for cls in REGISTRY.classes("caption"):
        for p in cls.params:
            if p.batch:
                continue
            text = p.choices[-1] if p.choices else samples[p.type]
            if text is None:
                text = "somewhere"
            lang = "ko" if p.name in ("ko_units", "delta") or cls.name == "meteor" else "en"   # meteor: Korean only
            (planned,) = plan("caption", [f"{cls.name}({p.name}={text})"],
                              {"lang": lang, "tokenizer": None})
            got = planned.metric.values[p.name]
            want = p.coerce(text)
            assert got == want or got == [text], (cls.name, p.name, got)
            assert planned.keys[0][1].endswith(f"({p.name}={text})")
            checked += 1
    assert checked >= 15


@settings(max_examples=25, deadline=None)
@given(data=items, beta=st.integers(1, 4), char_order=st.integers(1, 6), word_order=st.integers(0, 2))
def test_chrf_parameters_equal_sacrebleu(data, beta, char_order, word_order):
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    spec = f"chrf(beta={beta},char_order={char_order},word_order={word_order})"
    res = evaluate(preds, refs, lang="en", metrics=[spec])
    ref = sacrebleu.CHRF(beta=beta, char_order=char_order, word_order=word_order)
    want = ref.corpus_score(preds, [[r[0] for r in refs]]).score / 100
    assert math.isclose(res.metrics[spec], want, rel_tol=1e-12, abs_tol=1e-12)
    assert list(res.metrics) == [spec]


CASED = WORDS + ["A", "Man", "DOG", "dog.", "(red)", "e.g.", "고양이가", "!"]
cased = st.lists(st.sampled_from(CASED), min_size=0, max_size=9).map(" ".join)
multi = st.lists(st.tuples(cased, st.lists(cased, min_size=1, max_size=3)), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(data=multi, name=st.sampled_from(["chrf", "chrf_pp"]), beta=st.integers(0, 4), char_order=st.integers(0, 6),
       word_order=st.integers(0, 3), lowercase=st.booleans(), whitespace=st.booleans(), eps_smoothing=st.booleans())
def test_every_chrf_parameter_equals_sacrebleu(data, name, beta, char_order, word_order, lowercase, whitespace,
                                               eps_smoothing):
    """All six declared parameters of chrF and chrF++ at once, through the grammar, against
    sacrebleu's CHRF with the same values: corpus and per-item, several references."""
    if char_order + word_order == 0:
        return   # sacrebleu divides by zero orders
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    kw = dict(char_order=char_order, word_order=word_order, beta=beta, lowercase=lowercase, whitespace=whitespace,
              eps_smoothing=eps_smoothing)
    spec = f"{name}({','.join(f'{k}={str(v).lower()}' for k, v in kw.items())})"
    res = evaluate(preds, refs, lang="en", metrics=[spec])
    ref = sacrebleu.CHRF(**kw)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(max(map(len, refs)))]
    assert res.metrics[spec] == pytest.approx(ref.corpus_score(preds, streams).score / 100, rel=1e-12, abs=1e-12)
    want = [ref.sentence_score(p, rs).score / 100 for p, rs in zip(preds, refs)]
    np.testing.assert_allclose(res.column(spec), want, rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def nltk_meteor(tmp_path_factory):
    nltk = pytest.importorskip("nltk")
    wn_dir = Path("/usr/share/wordnet")
    if not (wn_dir / "index.noun").exists():
        pytest.skip("wordnet-base not installed")
    from scorekit.text.wordnet import export_for_nltk

    nltk.data.path.insert(0, str(export_for_nltk(tmp_path_factory.mktemp("nltk_data"), wn_dir)))
    from nltk.translate.meteor_score import meteor_score

    return meteor_score


def test_meteor_parameters_equal_nltk(nltk_meteor):
    from scorekit.generation.rouge import coco_tokenize

    preds = ["a man rides a big wave", "two dogs run on the beach", "a cat", "people sit in water"]
    refs = [["a man riding a wave", "a surfer on a large wave"], ["dogs running on a beach"], ["the cat sits"],
            ["two people sitting in the water"]]
    spec = "meteor_nltk(alpha=0.85,beta=0.2,gamma=0.6)"    # English METEOR by nltk's recipe
    res = evaluate(preds, refs, lang="en", metrics=[spec, "meteor_nltk"])
    want = [nltk_meteor([coco_tokenize(r) for r in rs], coco_tokenize(p), alpha=0.85, beta=0.2, gamma=0.6)
            for p, rs in zip(preds, refs)]
    np.testing.assert_allclose(res.column(spec), want, rtol=0, atol=1e-12)
    assert res.metrics[spec] != res.metrics["meteor_nltk"]


@settings(max_examples=15, deadline=None)
@given(data=items, sigma=st.sampled_from([1.0, 3.0, 12.5]), name=st.sampled_from(["cider", "cider_d"]))
def test_cider_sigma_equals_pycocoevalcap(data, sigma, name):
    scorer_mod = pytest.importorskip("pycocoevalcap.cider.cider_scorer")
    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    spec = f"{name}(sigma={sigma:g})"
    res = evaluate(preds, refs, lang="en", metrics=[spec], tokenizer="whitespace")
    scorer = scorer_mod.CiderScorer(n=4, sigma=sigma)
    for p, rs in zip(preds, refs):
        scorer += (p, rs)
    want, want_items = scorer.compute_score()
    assert math.isclose(res.metrics[spec], want, rel_tol=1e-9, abs_tol=1e-9)
    np.testing.assert_allclose(res.column(spec), want_items, rtol=1e-9, atol=1e-9)


def test_cli_grammar_equals_the_api(tmp_path):
    from scorekit.cli import main

    preds, refs = ["a man rides a wave", "two dogs"], [["a man riding a wave"], ["two dogs play"]]
    (tmp_path / "p.json").write_text(json.dumps({"1": preds[0], "2": preds[1]}))
    (tmp_path / "r.json").write_text(json.dumps({"1": refs[0], "2": refs[1]}))
    out = tmp_path / "o.json"
    assert main(["caption", "-p", str(tmp_path / "p.json"), "-r", str(tmp_path / "r.json"), "--lang", "en",
                 "-m", "chrf(beta=3),bleu_4(mode=sacrebleu)", "-q", "-o", str(out)]) == 0
    got = json.loads(out.read_text())["metrics"]
    api = evaluate(preds, refs, lang="en", metrics=["chrf(beta=3)", "bleu_4(mode=sacrebleu)"]).metrics
    assert got == pytest.approx(api, abs=1e-15) and set(got) == {"chrf(beta=3)", "bleu_4(mode=sacrebleu)"}


@settings(max_examples=15, deadline=None)
@given(data=st.lists(st.tuples(sent.filter(str.strip), st.lists(sent.filter(str.strip), min_size=1, max_size=3)),
                     min_size=1, max_size=5),
       alpha=st.sampled_from([0.1, 0.5, 0.85, 1.0]), beta=st.sampled_from([0.0, 0.2, 1.5, 3.0]),
       gamma=st.sampled_from([0.0, 0.3, 0.6, 1.0]))
def test_meteor_nltk_parameters_equal_nltk_on_random_captions(nltk_meteor, data, alpha, beta, gamma):
    """alpha, beta and gamma of meteor_nltk, set by the grammar, against nltk's meteor_score with
    the same values, per caption (the corpus value is their mean)."""
    from scorekit.generation.rouge import coco_tokenize

    preds = [p for p, _ in data]
    refs = [r for _, r in data]
    spec = f"meteor_nltk(alpha={alpha:g},beta={beta:g},gamma={gamma:g})"
    res = evaluate(preds, refs, lang="en", metrics=[spec])
    want = [nltk_meteor([coco_tokenize(r) for r in rs], coco_tokenize(p), alpha=alpha, beta=beta, gamma=gamma)
            for p, rs in zip(preds, refs)]
    np.testing.assert_allclose(res.column(spec), want, rtol=0, atol=1e-12)
    assert res.metrics[spec] == pytest.approx(float(np.mean(want)), abs=1e-12)
