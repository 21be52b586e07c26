"""Encoder-scored summarisers (nword-summarization.md Phase 1 §2, §4) on tiny BERT-, ELECTRA- and
XLNet-shaped models built offline (examples/summarization/make_tiny_encoders.py) and loaded by the
real loading code: pooling by hand with transformers, TextRank and centroid against oracles, one
model load per sweep, name + content hash in the signature, the Hangul check."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra.numpy import arrays

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from scorekit.errors import ScorekitError  # noqa: E402
from scorekit.neural import _hf  # noqa: E402
from scorekit.neural.encoder import Encoder, content_hash  # noqa: E402
from scorekit.neural.hangul import EnglishModelError  # noqa: E402
from scorekit.summarization import summarizers as S  # noqa: E402
from scorekit.summarization import sweep as SW  # noqa: E402
from scorekit.summarization.data import read_pairs  # noqa: E402
from scorekit.summarization.encoders import EncoderPool  # noqa: E402
from scorekit.summarization.sentences import split_sentences  # noqa: E402

NEWS = "examples/summarization/news_en.jsonl"
TEXTS = ["The city council of Riverton voted on Tuesday to build a new public library.",
         "The project will cost about 12 million dollars.",
         "Construction is expected to begin next spring and to take two years.",
         "The mayor said the library would include a children's wing, a computer lab and meeting rooms.",
         "Riverton"]


def _by_hand(model_dir, texts, pool="mean"):
    """transformers directly, one text at a time (no padding): the last hidden layer averaged
    over the tokens (or its first token for ``cls``)."""
    tok = transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = transformers.AutoModel.from_pretrained(model_dir, local_files_only=True).eval()
    out = []
    with torch.no_grad():
        for t in texts:
            hidden = model(**tok(t, return_tensors="pt")).last_hidden_state[0].double().numpy()
            out.append(hidden[0] if pool == "cls" else hidden.mean(axis=0))
    return np.array(out)


@pytest.mark.parametrize("kind", ["bert", "electra", "xlnet"])
def test_pooling_is_the_masked_mean_computed_by_hand(tiny_encoders, kind):
    enc = Encoder.load(tiny_encoders[kind], batch_size=3, device="cpu")   # fp32; batches mix lengths
    assert enc.pooling == "mean_tokens"
    ours = enc.embed(TEXTS, normalize=False)
    ref = _by_hand(tiny_encoders[kind], TEXTS)
    np.testing.assert_allclose(ours, ref, atol=2e-5, rtol=0)
    unit = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    np.testing.assert_allclose(enc.embed(TEXTS), unit, atol=2e-6, rtol=0)


def test_sentence_transformers_pooling_named_by_modules_json(tiny_encoders, tmp_path):
    folder = tmp_path / "st-bert"
    shutil.copytree(tiny_encoders["bert"], folder)
    (folder / "modules.json").write_text(
        '[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},'
        ' {"idx": 1, "name": "1", "path": "pool", "type": "sentence_transformers.models.Pooling"}]')
    (folder / "pool").mkdir()
    (folder / "pool" / "config.json").write_text('{"word_embedding_dimension": 32, "pooling_mode_cls_token": true}')
    enc = Encoder.load(folder, device="cpu")
    assert enc.pooling == "cls_token"
    np.testing.assert_allclose(enc.embed(TEXTS, normalize=False), _by_hand(folder, TEXTS, "cls"), atol=2e-5)


@given(arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 5)),
              elements=st.floats(-3, 3, allow_nan=False)))
def test_centroid_scores_equal_a_numpy_oracle(emb):
    mean = emb.sum(axis=0) / len(emb)
    expected = []
    for row in emb:
        na, nb = np.sqrt(row @ row), np.sqrt(mean @ mean)
        expected.append(0.0 if na == 0 or nb == 0 else float(row @ mean) / (na * nb))
    np.testing.assert_allclose(S.centroid_scores(emb), expected, atol=1e-12)


def _oracle_summary(doc, emb_fn, n, score):
    sents = split_sentences(doc)
    order = np.argsort(-score(np.asarray(emb_fn(sents), dtype=np.float64)), kind="stable")
    return S.compress_to_n_words(sents, order, n)


def test_encoder_summarisers_equal_textrank_and_centroid_given_the_same_embeddings(tiny_encoders):
    pairs = read_pairs(NEWS).head(6)
    enc = Encoder.load(tiny_encoders["electra"])
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[5, 12], n_resamples=20, keep_summaries=True,
                       summarizers=[f"textrank(encoder={tiny_encoders['electra']})",
                                    f"centroid(encoder={tiny_encoders['electra']})"])
    plain = SW.run_sweep(pairs.documents, pairs.references, ns=[5, 12], n_resamples=20, keep_summaries=True,
                         summarizers=["textrank"], embed=enc.embed)
    tr, ce = res.summarizers
    assert (tr, ce) == ("textrank(electra-base-discriminator-tiny)", "centroid(electra-base-discriminator-tiny)")
    assert res.summaries[tr] == plain.summaries["textrank"]
    for metric in plain.values["textrank"]:
        np.testing.assert_array_equal(res.values[tr][metric], plain.values["textrank"][metric])
    for j, n in enumerate([5, 12]):
        assert res.summaries[ce][j] == [_oracle_summary(d, enc.embed, n, S.centroid_scores) for d in pairs.documents]
        assert res.summaries[tr][j] == [_oracle_summary(d, enc.embed, n, S.textrank_scores) for d in pairs.documents]


def test_one_model_load_and_one_embedding_pass_per_encoder(tiny_encoders, monkeypatch):
    monkeypatch.setattr(Encoder, "_instances", {})
    monkeypatch.setattr(_hf, "_cache", {})
    loads = []
    real = transformers.AutoModel.from_pretrained

    def counting(path, *a, **kw):
        loads.append(str(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", counting)
    bert, xlnet = tiny_encoders["bert"], tiny_encoders["xlnet"]
    pairs = read_pairs(NEWS).head(4)
    pool = EncoderPool()
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[3, 9], n_resamples=10, pool=pool,
                       summarizers=f"lead,textrank(encoder={bert}),centroid(encoder={bert}),"
                                   f"textrank(encoder={bert}/,damping=0.5),centroid(encoder={xlnet})")
    assert sorted(loads) == sorted([str(bert), str(xlnet)])   # the same folder three times: one load
    assert len(pool._shared) == 2
    assert pool.get(bert).calls == 1   # the three BERT summarisers embedded the sentences once
    assert res.summarizers == ["lead", "textrank(bert-base-uncased-tiny)", "centroid(bert-base-uncased-tiny)",
                               "textrank(bert-base-uncased-tiny, damping=0.5)", "centroid(xlnet-base-cased-tiny)"]


def test_signature_pins_encoder_name_and_content_hash(tiny_encoders, tmp_path):
    pairs = read_pairs(NEWS).head(3)
    copy = tmp_path / "bert-base-uncased-tiny"
    shutil.copytree(tiny_encoders["bert"], copy)

    def signature(folder):
        res = SW.run_sweep(pairs.documents, pairs.references, ns=[4], n_resamples=10,
                           summarizers=[f"textrank(encoder={folder})"])
        return SW.sweep_to_result(res).signature

    first = signature(copy)
    assert f"|encoder:bert-base-uncased-tiny@{content_hash(copy)}|" in first
    assert signature(tiny_encoders["bert"]) == first          # same files, same signature
    weights = copy / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1                                              # one bit of one weight, same size
    weights.write_bytes(bytes(data))
    Encoder._instances.clear()
    _hf._cache.clear()
    assert content_hash(copy) != content_hash(tiny_encoders["bert"])
    assert signature(copy) != first


@pytest.mark.parametrize("kind", ["bert", "xlnet"])
def test_korean_documents_refuse_an_english_only_vocabulary(tiny_encoders, kind):
    pairs = read_pairs("examples/summarization/news_ko.jsonl").head(3)
    with pytest.raises(EnglishModelError) as err:
        SW.run_sweep(pairs.documents, pairs.references, ns=[5],
                     summarizers=[f"centroid(encoder={tiny_encoders[kind]})"])
    msg = str(err.value)
    assert "\n" not in msg and "cannot read Hangul" in msg and "--allow-english-model" in msg
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[5], n_resamples=10, allow_english_model=True,
                       summarizers=[f"centroid(encoder={tiny_encoders[kind]})"])
    assert res.values[res.summarizers[0]]["rouge1"].shape == (1, 3)


def test_korean_vocabulary_is_accepted(tiny_korean_bert):
    pairs = read_pairs("examples/summarization/news_ko.jsonl").head(3)
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[5, 9], n_resamples=10, lang="ko",
                       summarizers=[f"textrank(encoder={tiny_korean_bert})"])
    assert np.all(res.values["textrank(bert-ko-tiny)"]["words"] <= 9)


def test_a_missing_encoder_folder_is_one_line(tmp_path):
    with pytest.raises(ScorekitError) as err:
        SW.run_sweep(["A b. C d."], ["a"], ns=[2], summarizers=[f"textrank(encoder={tmp_path}/nope/model)"])
    assert "model folder not found" in str(err.value) and "\n" not in str(err.value)


def test_default_textrank_is_still_minilm_with_unchanged_numbers():
    pairs = read_pairs(NEWS).head(4)
    res = SW.run_sweep(pairs.documents, pairs.references, ns=[4, 9], n_resamples=10, summarizers=["textrank"])
    old = SW.run_sweep(pairs.documents, pairs.references, ns=[4, 9], n_resamples=10, summarizers=["textrank"],
                       embed=Encoder.load().embed)   # the MiniLM embedding the summariser always used
    for metric, arr in old.values["textrank"].items():
        np.testing.assert_array_equal(res.values["textrank"][metric], arr)
    enc = Encoder.load()
    assert res.params["summarizers"]["textrank"]["encoder"] == f"all-MiniLM-L6-v2@{enc.content_hash}"


def test_cli_sweeps_three_encoders_and_an_external_system(tiny_encoders, tmp_path, capsys):
    import csv
    import json

    from scorekit.cli import main

    system = tmp_path / "llm.csv"
    pairs = read_pairs(NEWS)
    with open(system, "w", newline="", encoding="utf-8") as fh:   # an LLM's summaries, as CSV
        csv.writer(fh).writerows([("id", "summary"), *((i, " ".join(r.split()[:12]))
                                                        for i, r in zip(pairs.ids, pairs.references))])
    out = tmp_path / "s.json"
    names = (f"lead,random,textrank(encoder={tiny_encoders['bert']}),textrank(encoder={tiny_encoders['xlnet']}),"
             f"centroid(encoder={tiny_encoders['electra']})")
    code = main(["sweep", "--data", NEWS, "--limit", "5", "--n", "3,7,11", "-m", "rouge,density,words", "--bootstrap", "20",
                 "--summarizer", names, "--system", f"llm={system}", "-q", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    data = json.loads(out.read_text())
    assert list(data["extra"]["sweep"]["series"]) == [
        "lead", "random", "textrank(bert-base-uncased-tiny)", "textrank(xlnet-base-cased-tiny)",
        "centroid(electra-base-discriminator-tiny)", "llm", "llm (full)"]
    assert data["extra"]["recommendation"]["summarizer"] == "textrank(bert-base-uncased-tiny)"
    for kind in ("bert", "xlnet", "electra"):
        assert f"{tiny_encoders[kind].name}@{content_hash(tiny_encoders[kind])}" in data["signature"]


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_ray_shards_with_encoders_and_systems_equal_one_process(tiny_encoders):
    """--engine ray: every shard task loads its encoder (once per worker) and looks the external
    summaries up by its documents' ids; the merged sweep equals the one-process sweep."""
    pytest.importorskip("ray")
    from scorekit.engine.ray_engine import RayEngine

    pairs = read_pairs(NEWS)
    system = SW.SystemSummaries("heads", {i: " ".join(r.split()[:9]) for i, r in zip(pairs.ids, pairs.references)})
    kw = dict(ns=[3, 9], n_resamples=100, systems=[system], keep_summaries=True,
              summarizers=f"lead,centroid(encoder={tiny_encoders['electra']}),textrank(encoder={tiny_encoders['xlnet']})")
    one = SW.run_sweep(pairs.documents, pairs.references, ids=pairs.ids, **kw)
    with RayEngine(num_cpus=2, progress=False) as eng:
        res = SW.run_sweep(pairs.documents, pairs.references, ids=pairs.ids, engine=eng, docs_per_shard=10, **kw)
    assert res.summarizers == one.summarizers and res.series == one.series and res.params == one.params
    assert res.summaries == one.summaries and res.recommendation == one.recommendation
