"""Models that cannot read Hangul are refused for Korean input (issue #15)."""

from __future__ import annotations

import pytest

from scorekit.neural.bertscore import DEFAULT_LAYERS, default_layer
from scorekit.neural.hangul import PROBE, EnglishModelError, check_hangul, syllable_share

transformers = pytest.importorskip("transformers")

KOREAN = ["여자가 차를 마신다", "파도가 해변에 부서진다"]


@pytest.fixture(scope="module")
def minilm_tokenizer():
    from scorekit.neural.encoder import default_model_path

    try:
        path = default_model_path()
    except Exception as exc:  # pragma: no cover - the model package is part of the neural extra
        pytest.skip(f"all-MiniLM-L6-v2 not installed: {exc}")
    return transformers.AutoTokenizer.from_pretrained(str(path))


@pytest.fixture(scope="module")
def hangul_tokenizer(tmp_path_factory):
    """A tiny offline WordPiece tokenizer whose vocabulary has Hangul syllables."""
    chars = sorted({c for t in [PROBE, *KOREAN] for c in t if "\uac00" <= c <= "\ud7a3"})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars, *("##" + c for c in chars)]
    d = tmp_path_factory.mktemp("tok")
    (d / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return transformers.BertTokenizer(str(d / "vocab.txt"), do_lower_case=False)


def test_minilm_is_refused_on_korean_with_one_line(minilm_tokenizer):
    assert syllable_share(minilm_tokenizer, KOREAN) == 0.0  # jamo pieces: ᄋ ##ᅧ ##ᄌ ...
    with pytest.raises(EnglishModelError) as err:
        check_hangul(minilm_tokenizer, KOREAN, "all-MiniLM-L6-v2")
    msg = str(err.value)
    # the spelling of caption and summary, which name a model in the metric (#26)
    assert "\n" not in msg and '-m "bertscore(model=PATH)"' in msg and "bert-base-multilingual-cased" in msg
    assert "--allow-english-model" in msg and "--bert-model" not in msg


@pytest.mark.parametrize("option", [None, '--reward "bertscore(model=PATH)"'])
def test_the_refusal_names_the_option_of_the_command_that_built_the_scorer(option):
    """caption/summary: -m "bertscore(model=PATH)"; train-summarizer/summarize: --reward "bertscore(model=PATH)"."""
    if option is not None:
        from scorekit.summarization.rl.pipeline import REWARD_OPTION

        assert option == REWARD_OPTION   # what Toolkit.load gives the reward's scorer
    pytest.importorskip("torch")
    from scorekit.neural.bertscore import BERTScorer

    with pytest.raises(EnglishModelError) as err:
        BERTScorer(model_option=option).score(KOREAN, [[t] for t in KOREAN])
    msg = str(err.value)
    want = option or '-m "bertscore(model=PATH)"'
    assert "\n" not in msg and f"model ({want}), e.g." in msg


def test_allow_english_model_and_english_input_pass(minilm_tokenizer):
    assert check_hangul(minilm_tokenizer, KOREAN, "m", allow=True) == 0.0
    assert check_hangul(minilm_tokenizer, ["a dog runs"], "m") is None


def test_a_model_with_hangul_in_its_vocabulary_is_accepted(hangul_tokenizer):
    assert syllable_share(hangul_tokenizer, KOREAN) == 1.0
    assert check_hangul(hangul_tokenizer, KOREAN, "tiny") > 0.9  # the probe's "." is no syllable


def test_unknown_pieces_count_as_unreadable(hangul_tokenizer):
    assert syllable_share(hangul_tokenizer, ["뷁뷁 뷃뷃"]) == 0.0  # not in the vocabulary: [UNK]


@pytest.mark.parametrize("model,layer", [
    ("bert-base-multilingual-cased", 9), ("bert-base-uncased", 9), ("klue/roberta-large", 17),
    ("beomi/kcbert-base", 4), ("/models/bert-base-multilingual-cased", 9),
    ("/cache/hub/models--klue--roberta-large", 17), ("/somewhere/my-model", None), (None, None),
])
def test_default_layers_of_known_models(model, layer):
    assert default_layer(model) == layer


def test_default_layers_equal_bert_score_where_it_knows_the_model():
    utils = pytest.importorskip("bert_score.utils")
    for name, layer in DEFAULT_LAYERS.items():
        if name in utils.model2layers:
            assert utils.model2layers[name] == layer, name
