"""The orderings a Korean speaker expects, on the team's 162-pair set (issue #15).

Data: tests/generation/data/ko_pairs.tsv; category means before/after: docs/caption.md and
``python tests/generation/ko_pairs.py``."""

from __future__ import annotations

import unicodedata

import pytest

from tests.generation import ko_pairs as K

PARAPHRASES = ("particles", "endings", "honorifics", "light_verbs", "spacing", "synonyms", "numerals")


@pytest.fixture(scope="module")
def data():
    rows = K.load_pairs()
    return rows, K.scores(rows)


def by_cat(rows, values, cat):
    return [v for r, v in zip(rows, values) if r[0] == cat]


def test_set_has_150_pairs_in_every_category(data):
    rows, _ = data
    assert len(rows) >= 150
    assert {r[0] for r in rows} == set(K.CATEGORIES)
    assert all(len(by_cat(rows, rows, c)) >= 15 for c in K.CATEGORIES)


def test_every_particle_variant_above_every_unrelated_pair(data):
    rows, sc = data
    assert min(by_cat(rows, sc["meteor"], "particles")) > max(by_cat(rows, sc["meteor"], "unrelated"))


def test_every_paraphrase_category_mean_above_every_unrelated_pair(data):
    rows, sc = data
    top_unrelated = max(by_cat(rows, sc["meteor"], "unrelated") + by_cat(rows, sc["meteor"], "copula_aux"))
    for cat in PARAPHRASES:
        vals = by_cat(rows, sc["meteor"], cat)
        assert sum(vals) / len(vals) >= 0.9 > top_unrelated, cat


def test_light_verb_pairs_at_least_085(data):
    rows, sc = data
    assert min(by_cat(rows, sc["meteor"], "light_verbs")) >= 0.85


def test_numeral_and_spacing_pairs_at_least_085(data):
    rows, sc = data
    assert min(by_cat(rows, sc["meteor"], "numerals")) >= 0.85
    assert min(by_cat(rows, sc["meteor"], "spacing")) >= 0.85


def test_sense_traps_at_most_005_above_their_baseline(data):
    rows, sc = data
    for r, m, b in zip(rows, sc["meteor"], sc["meteor_base"]):
        if r[0] == "sense_traps":
            assert m <= b + 0.05, r


def test_function_units_alone_score_low(data):
    rows, sc = data
    assert max(by_cat(rows, sc["meteor"], "copula_aux")) <= 0.1
    assert max(by_cat(rows, sc["meteor"], "unrelated")) <= 0.2


def test_content_units_rouge_and_bleu_order_paraphrases_above_unrelated(data):
    rows, _ = data
    sc = K.scores(rows, "content")
    for m in ("rouge_l", "bleu_2"):
        neg = by_cat(rows, sc[m], "unrelated") + by_cat(rows, sc[m], "copula_aux")
        for cat in ("particles", "endings", "light_verbs", "numerals"):
            assert min(by_cat(rows, sc[m], cat)) > max(neg), (m, cat)


def test_nfd_scores_equal_nfc(data):
    rows, sc = data
    nfd = [(c, unicodedata.normalize("NFD", h), unicodedata.normalize("NFD", r), b) for c, h, r, b in rows]
    assert K.scores(nfd)["meteor"] == sc["meteor"]
