"""Reproducible: a result's signature pins everything that changes its numbers (issue #26 item 2).

For every registered metric class (``REGISTRY.classes()``, so a new metric or a new ``Param`` is
covered without editing this file) and every parameter declared per metric (not the batch-level
language and tokenizer: those are pinned by each command's signature, tests/core/
test_command_signatures.py), two metrics that differ in that one parameter either have different
signatures (:func:`scorekit.signature.make_signature`: the canonical spec in ``metrics`` and
the declared pins) or give the same numbers on every batch hypothesis draws from the metric's harness
case (tests/harness.py, the ``HARNESS_CASES`` of the family's test module). A parameter whose
value never changes a number (a batch size, a device) must leave the signature unchanged.

Parameters this generic walk cannot vary by itself (a model folder, a lexicon, a document-frequency
file, METEOR 1.5's resources) have explicit cases below."""

from __future__ import annotations

import dataclasses
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

from scorekit.errors import ScorekitError
from scorekit.metrics import REGISTRY
from scorekit.metrics.base import Param
from scorekit.signature import make_signature
from tests.metrics.test_harness_coverage import harness_modules

# parameters that cannot change a number: changing them must leave the signature as it is
NO_NUMBERS = {"device"}
# parameters naming a file or folder (no value this walk can invent): the explicit cases below
FILES = {"model", "lexicon", "df", "resources", "baseline_path"}
# parameters that go with another one (rescaling needs its baseline file): the explicit cases below
PAIRED = {"rescale_with_baseline"}


def _signed(m) -> str:
    """The part of a signature ``m`` writes: its canonical spec and its pins."""
    return make_signature(m.family, metrics=[m])


def _alternatives(p: Param, base) -> list:
    """Values of ``p`` other than ``base`` (its value in the harness case), within its declaration."""
    if p.choices:
        return [c for c in p.choices if c != base]
    if p.type is bool:
        return [not base] if base is not None else [True, False]
    if p.type is int:
        low = int(p.low) if p.low is not None else 0
        cands = [low, low + 1, low + 2, 3] if base is None else [base + 1, base - 1, low]
    elif p.type is float:
        if p.low is not None and p.high is not None:
            cands = [p.low + (p.high - p.low) * f for f in (0.25, 0.5, 0.75)]
        elif base is None:
            cands = [0.5, 1.5]
        else:
            cands = [base * 2 + 0.5, base / 2]
    else:
        return []
    out = []
    for v in cands:
        try:
            v = p.coerce(v)
        except Exception:
            continue
        if v != base and v not in out:
            out.append(v)
    return out[:2]


def _cases() -> dict[type, list]:
    """The harness cases of each metric class with a generated or fixed batch, no fixture and no
    model (model metrics: the explicit cases), English first."""
    out: dict[type, list] = {}
    for mod in harness_modules():
        for case in getattr(mod, "HARNESS_CASES", ()):
            if not case.fixture and not case.cls.needs_model:
                out.setdefault(case.cls, []).append(case)
    for cases in out.values():
        cases.sort(key=lambda c: c.params.get("lang", "en") != "en")
    return out


CASES = _cases()


def _knobs():
    for cls in REGISTRY.classes():
        for p in cls.params:
            if p.batch or p.name in FILES | PAIRED:   # files and folders: explicit cases below
                continue
            yield pytest.param(cls, p, id=f"{cls.family}:{cls.name}.{p.name}")


def _numbers(m, batch, feed) -> dict:
    stats = m.item_stats(feed(batch))
    out = {f"corpus {k}": v for k, v in m.score(stats).items()}
    try:
        out.update({f"item {k}": np.asarray(v, dtype=float) for k, v in m.item_scores(stats).items()})
    except NotImplementedError:
        pass
    return out


def _differ(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return True
    for k in a:
        x, y = np.asarray(a[k], dtype=float), np.asarray(b[k], dtype=float)
        if x.shape != y.shape or not np.array_equal(x, y, equal_nan=True):
            return True
    return False


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    return _tiny_bert(tmp_path_factory.mktemp("bert"), 0)


def _model_case(cls, folder):
    """A text-model metric (BERTScore, Efficiency) on a tiny random BERT over one fixed batch."""
    from scorekit.generation.batch import CaptionBatch
    from scorekit.summarization.metrics import SummaryBatch
    from tests.harness import MetricCase

    make = SummaryBatch if cls.family == "summary" else CaptionBatch
    batch = make(["a man rides a wave", "two dogs run", "a dog"],
                 [["a man riding a wave"], ["dogs run in the park"], ["two dogs"]])
    return MetricCase(cls, {"model": str(folder)}, batch=batch, oracle_test="-")


def _baseline(where, value: float):
    """A bert_score rescale-baseline file (LAYER,P,R,F), every layer ``value``."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / "bert-tiny.tsv"
    path.write_text("LAYER,P,R,F\n" + "".join(f"{i},{value},{value},{value}\n" for i in range(3)))
    return path


@pytest.mark.parametrize("cls,param", list(_knobs()))
def test_a_parameter_that_changes_numbers_changes_the_signature(cls, param, request):
    cases = CASES.get(cls, ())
    if not cases and cls.needs_model:
        if cls.name == "clipscore":
            pytest.skip("CLIPScore needs images: its model pin is checked in tests/neural/test_clipscore.py")
        cases = [_model_case(cls, request.getfixturevalue("tiny_bert"))]
    for case in cases:
        a = case.make()
        alts = _alternatives(param, a.values[param.name])
        try:
            pairs = [(alt, cls(**{**case.params, param.name: alt})) for alt in alts]
        except ScorekitError:
            continue   # not with this case's other parameters (ko_units needs Korean)
        break
    else:
        pytest.fail(f"{cls.name}.{param.name}: no harness case takes another value")
    assert alts, f"{cls.name}.{param.name}: no other value to try (add one to _alternatives)"
    for alt, b in pairs:
        b.allow_english_model = case.allow_english_model
        sig_a, sig_b = _signed(a), _signed(b)
        if param.name in NO_NUMBERS:
            assert sig_a == sig_b, f"{param.name} changes no number but changes the signature: {sig_a} vs {sig_b}"
            continue
        if sig_a != sig_b:
            continue
        # same signature: the numbers must be the same on every batch
        feed = case.shape.feed
        if case.batch is not None:
            na, nb = _numbers(a, case.batch, feed), _numbers(b, case.batch, feed)
            assert not _differ(na, nb), f"{cls.name}({param.name}={alt}) changes numbers, same signature {sig_a}"
            continue
        try:
            found = find(case.batches, lambda batch: _differ(_numbers(a, batch, feed), _numbers(b, batch, feed)),
                         settings=settings(max_examples=40, deadline=None, database=None, phases=[Phase.generate],
                                           suppress_health_check=list(HealthCheck)))
        except NoSuchExample:
            continue
        pytest.fail(f"{cls.family}:{cls.name}({param.name}={alt}) changes numbers but not the signature "
                    f"{sig_a}: {found!r}"[:2000])


def test_the_walk_covers_every_registered_metric_parameter():
    """Every per-metric parameter of every registered class is varied by the walk above or named
    as a file/folder parameter with an explicit case; every class without a model has a batch."""
    missing = [f"{c.family}:{c.name}" for c in REGISTRY.classes() if not c.needs_model and c not in CASES
               and any(not p.batch for p in c.params)]
    assert not missing, missing


# --- explicit cases: parameters naming a file or folder ---------------------------------------

def _tiny_bert(where, seed: int):
    """A tiny random BERT (examples/summarization/make_tiny_encoders.py, as tests/summarization
    builds them) in ``where``/bert-tiny: two seeds, two models with the same folder name and shape."""
    pytest.importorskip("transformers")
    from tests.summarization.conftest import _tiny_builder

    return _tiny_builder().build_bert(where / "bert-tiny", ["a man rides a wave", "two dogs run in the park"],
                                     seed=seed)


@pytest.mark.parametrize("family", ["caption", "summary"])
def test_a_model_folder_is_pinned_by_its_content_not_only_its_name(family, tmp_path):
    """Two folders named alike (``runs/a/bert-tiny``, ``runs/b/bert-tiny``: a checkpoint and its
    fine-tuned twin) with different weights give different BERTScores: their signatures differ."""
    from scorekit.generation.batch import CaptionBatch
    from scorekit.metrics import get_metric
    from scorekit.summarization.metrics import SummaryBatch

    make = CaptionBatch if family == "caption" else SummaryBatch
    batch = make(["a man rides a wave", "two dogs run"], [["a man riding a wave"], ["dogs run in the park"]])
    out = []
    for i, seed in enumerate((0, 1)):
        folder = _tiny_bert(tmp_path / str(i), seed)
        m = get_metric(family, f"bertscore(model={folder})")
        out.append((m(batch), _signed(m)))
    (na, sa), (nb, sb) = out
    assert _differ(na, nb), "the two random models should score differently"
    assert sa != sb, f"different weights, same signature {sa}"


@pytest.mark.parametrize("name", ["bertscore", "efficiency"])
def test_rescaling_and_its_baseline_file_are_pinned_by_content(name, tiny_bert, tmp_path):
    """``rescale_with_baseline`` (with its ``baseline_path``) changes the numbers and the signature;
    two baseline files named alike with different values give different signatures too."""
    case = _model_case(REGISTRY.metric_class("summary", name), tiny_bert)
    runs = [case.make()]
    for i, value in enumerate((0.1, 0.3)):
        runs.append(case.cls(**case.params, rescale_with_baseline=True,
                             baseline_path=str(_baseline(tmp_path / str(i), value))))
    out = [(m(case.batch), _signed(m)) for m in runs]
    for (na, sa), (nb, sb) in zip(out, out[1:]):
        assert _differ(na, nb), "rescaling with another baseline should change the numbers"
        assert sa != sb, f"different numbers, same signature {sa}"


def _rewritten(path, texts: list[str]):
    """Each of ``texts`` written to the same ``path`` in turn (a file updated between two runs)."""
    for text in texts:
        path.write_text(text, encoding="utf-8")
        yield str(path)


def test_cider_document_frequencies_are_pinned_by_content(tmp_path):
    """``cider(df=FILE)``: two files of the same name, documents and n-grams but other counts give
    different CIDEr and different signatures."""
    from scorekit.generation.batch import CaptionBatch
    from scorekit.metrics import get_metric

    batch = CaptionBatch(["a man rides a wave", "two dogs"], [["a man riding a wave"], ["two dogs run"]])
    out = []
    for df in _rewritten(tmp_path / "df.json", ['{"n_docs": 10, "df": {"a": 9, "man": 2, "dogs": 1}}',
                                               '{"n_docs": 10, "df": {"a": 2, "man": 9, "dogs": 5}}']):
        m = get_metric("caption", f"cider(df={df})")
        out.append((m(batch), _signed(m)))
    (na, sa), (nb, sb) = out
    assert _differ(na, nb), "other document frequencies should change CIDEr"
    assert sa != sb, f"different numbers, same signature {sa}"


def test_meteor_lexicon_is_pinned_by_content(tmp_path):
    """``meteor(lexicon=FILE)`` (Korean): the same file with another synonym pair changes the
    score and the signature."""
    from scorekit.generation.batch import CaptionBatch
    from scorekit.metrics import get_metric

    batch = CaptionBatch(["송아지가 뛴다"], [["소가 달린다"]], lang="ko")   # 송아지~소: not in the starter lexicon
    out = []
    for lex in _rewritten(tmp_path / "syn.tsv", ["송아지\t소\n", "망아지\t말\n"]):
        m = get_metric("caption", f"meteor(lexicon={lex})", lang="ko")
        out.append((m(batch), _signed(m)))
    (na, sa), (nb, sb) = out
    assert _differ(na, nb), "another synonym pair should change METEOR"
    assert sa != sb, f"different numbers, same signature {sa}"


def test_a_summarizer_policy_is_pinned_by_its_weights():
    """``scorekit summarize``: two policies trained alike but for the learning rate (same config,
    seed and episodes) write other summaries; the result's signature tells them apart."""
    pytest.importorskip("torch")
    from scorekit.summarization.rl.pipeline import Toolkit, evaluate_policy
    from scorekit.summarization.rl.policy import PolicyConfig
    from scorekit.summarization.rl.train import Policy, train
    from tests.summarization.rl.test_policy import DIM, gold_reward, toy_article

    rng = np.random.default_rng(3)
    articles = [toy_article(rng, i) for i in range(6)]
    toolkit = Toolkit(embed=None, encoder_name="toy", bertscorer=None)
    out = []
    for lr in (0.5, 0.0):
        policy = Policy.create(PolicyConfig(embed_dim=DIM, hidden=16, k_sentences=2), seed=1)
        train(policy, articles, gold_reward, n_list=(3,), epochs=2, lr=lr, seed=1)
        res = evaluate_policy(policy, articles, toolkit, n_list=(3,), baselines=())
        out.append((res.metrics, res.signature))
    (ma, sa), (mb, sb) = out
    assert ma != mb, "the two policies should summarise differently"
    assert sa != sb, f"different numbers, same signature {sa}"


def test_a_summarizer_sentence_encoder_is_pinned_by_its_content(tmp_path):
    """``train-summarizer``/``summarize --encoder DIR``: the sentence states come from the
    encoder, so two folders named alike with other weights embed differently and must be told
    apart by the signature's ``encoder`` field."""
    pytest.importorskip("torch")
    from scorekit.summarization.rl.pipeline import Toolkit

    kits = [Toolkit.load(encoder=str(_tiny_bert(tmp_path / str(i), seed)), allow_english_model=True)
            for i, seed in enumerate((0, 1))]
    a, b = (k.embed(["a man rides a wave"]) for k in kits)
    assert not np.array_equal(a, b), "the two random encoders should embed differently"
    assert kits[0].encoder_name != kits[1].encoder_name, kits[0].encoder_name


# --- the batch's tokenizer: pinned by the metrics that read it, and only by them -------------

TOKENIZERS = ("coco", "13a", "whitespace")


def _tokenizer_knobs():
    for cls in REGISTRY.classes():
        p = next((p for p in cls.params if p.name == "tokenizer" and p.batch), None)
        # the caption commands write the tokenizer (``tok:``); Meteor 1.5's jar tokenises itself
        if p is not None and cls.family == "caption" and not cls.needs_model and cls.name != "meteor15" \
                and any(c.params.get("lang", "en") == "en" for c in CASES.get(cls, ())):
            yield pytest.param(cls, p, id=f"{cls.family}:{cls.name}")


@pytest.mark.parametrize("cls,param", list(_tokenizer_knobs()))
def test_the_batch_tokenizer_is_pinned_exactly_by_the_metrics_it_changes(cls, param):
    """A metric whose ``tokenizer`` Param is pinned (``signature=True``: the command writes
    ``tok:`` in the signature) changes its numbers with the tokenizer on some English batch; one
    that declares it unpinned (chrF: characters and whitespace words) never does."""
    case = next(c for c in CASES[cls] if c.params.get("lang", "en") == "en")
    feed = case.shape.feed
    ms = [cls(**{**case.params, "tokenizer": t}) for t in TOKENIZERS]

    def tokenized(batch, tok):   # the batch carries the tokenizer (a fresh copy: no caches)
        return dataclasses.replace(batch.slice(0, len(batch)), tokenizer=tok)

    def changes(batch) -> bool:
        first = _numbers(ms[0], tokenized(batch, TOKENIZERS[0]), feed)
        return any(_differ(first, _numbers(m, tokenized(batch, t), feed)) for m, t in zip(ms[1:], TOKENIZERS[1:]))
    try:
        found = find(case.batches, changes,
                     settings=settings(max_examples=25, deadline=None, database=None, phases=[Phase.generate],
                                       suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        found = None
    if param.signature:
        assert found is not None, f"{cls.name} pins the tokenizer but no tokenizer changed its numbers"
    else:
        assert found is None, f"{cls.name} leaves the tokenizer unpinned but it changes its numbers: {found!r}"
