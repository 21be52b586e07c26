"""CIDEr-D and plain CIDEr against pycocoevalcap / vrama91's scorer on random captions."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit.errors import InputError
from scorekit.generation import cider as C

pycoco_cider = pytest.importorskip("pycocoevalcap.cider.cider_scorer")

EN = ["a", "man", "dog", "the", "on", "riding", "red"]
KO = ["바다", "파도", "가", "하얀", "해변", "에", "치다"]


def sent(vocab, min_size=0):
    return st.lists(st.sampled_from(vocab), min_size=min_size, max_size=10)


def corpus(vocab):
    item = st.tuples(sent(vocab), st.lists(sent(vocab, 1), min_size=1, max_size=5))
    return st.lists(item, min_size=1, max_size=12)


class PlainCiderScorer(pycoco_cider.CiderScorer):
    """vrama91/cider's original CIDEr: pycocoevalcap's scorer without clipping and penalty."""

    def compute_cider(self):
        import pycocoevalcap.cider.cider_scorer as mod

        # mirrors vrama91/cider pyciderevalcap/cider/cider_scorer.py
        def counts2vec(cnts):
            vec = [mod.defaultdict(float) for _ in range(self.n)]
            length, norm = 0, [0.0] * self.n
            for ngram, tf in cnts.items():
                df = np.log(max(1.0, self.document_frequency[ngram]))
                k = len(ngram) - 1
                vec[k][ngram] = float(tf) * (self.ref_len - df)
                norm[k] += pow(vec[k][ngram], 2)
                if k == 1:
                    length += tf
            return vec, [np.sqrt(x) for x in norm], length

        def sim(vh, vr, nh, nr):
            val = np.array([0.0] * self.n)
            for k in range(self.n):
                for ngram in vh[k]:
                    val[k] += vh[k][ngram] * vr[k][ngram]
                if nh[k] != 0 and nr[k] != 0:
                    val[k] /= nh[k] * nr[k]
            return val

        self.ref_len = np.log(float(len(self.crefs)))
        scores = []
        for test, refs in zip(self.ctest, self.crefs):
            vec, norm, _ = counts2vec(test)
            score = np.array([0.0] * self.n)
            for ref in refs:
                vr, nr, _ = counts2vec(ref)
                score += sim(vec, vr, norm, nr)
            scores.append(np.mean(score) / len(refs) * 10.0)
        return scores


def oracle(items, cls=pycoco_cider.CiderScorer):
    scorer = cls(n=4, sigma=6.0)
    for h, refs in items:
        scorer += (" ".join(h), [" ".join(r) for r in refs])
    return scorer.compute_score()


def close(a, b, tol=1e-9):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


@pytest.mark.parametrize("vocab", [EN, KO], ids=["en", "ko"])
@given(data=st.data())
def test_cider_d_equals_pycocoevalcap(vocab, data):
    items = data.draw(corpus(vocab))
    expected, expected_items = oracle(items)
    out = C.cider_d([h for h, _ in items], [r for _, r in items])
    assert close(out.score, expected)
    assert np.allclose(out.scores, expected_items, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("vocab", [EN, KO], ids=["en", "ko"])
@given(data=st.data())
def test_plain_cider_equals_original(vocab, data):
    items = data.draw(corpus(vocab))
    expected, expected_items = oracle(items, PlainCiderScorer)
    out = C.cider([h for h, _ in items], [r for _, r in items], clipped=False, length_penalty=False)
    assert close(out.score, expected)
    assert np.allclose(out.scores, expected_items, rtol=1e-9, atol=1e-9)


def test_pycocoevalcap_cider_class_matches_on_spec_example():
    from pycocoevalcap.cider.cider import Cider

    from scorekit.text.tokenizers import tokenize_batch

    refs = {"v1": ["푸른 바다 위로 하얀 파도가 부서진다", "해변에 파도가 밀려오고 있다"],
            "v2": ["높은 산 위에 구름이 걸려 있다", "산 위로 구름이 흘러간다"],
            "v3": ["도시의 거리에 사람들이 걸어다니고 있다"]}
    hyps = {"v1": ["파란 바다에서 하얀 파도가 치고 있다"], "v2": ["산꼭대기에 구름이 피어오른다"],
            "v3": ["도심 거리를 사람들이 지나가고 있다"]}
    ids = sorted(refs)
    h_tok = tokenize_batch([hyps[i][0] for i in ids], "kiwi")
    r_tok = [tokenize_batch(refs[i], "kiwi") for i in ids]
    gts = {i: [" ".join(t) for t in r] for i, r in zip(ids, r_tok)}
    res = {i: [" ".join(t)] for i, t in zip(ids, h_tok)}
    expected, _ = Cider().compute_score(gts, res)
    got = C.cider_d(h_tok, r_tok)
    assert expected > 0 and close(got.score, expected)
    # the spec's evaluate_single scores one item at a time: idf = log(1) - log(1) = 0 -> always 0
    assert C.cider_d(h_tok[:1], r_tok[:1]).score == 0.0


@given(data=st.data())
def test_loaded_document_frequency(data, tmp_path_factory):
    items = data.draw(corpus(EN))
    background = data.draw(st.lists(st.lists(sent(EN, 1), min_size=1, max_size=3), min_size=1, max_size=20))
    dfo = C.document_frequency(background)
    path = tmp_path_factory.mktemp("df") / "df.json"
    C.save_document_frequency(dfo, path)
    loaded = C.load_document_frequency(path)
    got = C.cider_d([h for h, _ in items], [r for _, r in items], df=loaded)
    assert np.isfinite(got.score)
    # pycocoevalcap cannot load a df file: re-compute one item independently with the loaded idf
    h, refs = items[0]
    ref_len = np.log(float(loaded.n_docs))

    def vec(tokens):
        v = {}
        for g, c in C.ngram_counts(tokens, 4).items():
            v[g] = c * (ref_len - np.log(max(1.0, loaded.df.get(g, 0.0))))
        return v

    vh = vec(h)
    total = np.zeros(4)
    for r in refs:
        vr = vec(r)
        for k in range(4):
            hk = {g: x for g, x in vh.items() if len(g) == k + 1}
            rk = {g: x for g, x in vr.items() if len(g) == k + 1}
            val = sum(min(x, rk.get(g, 0.0)) * rk.get(g, 0.0) for g, x in hk.items())
            nh = math.sqrt(sum(x * x for x in hk.values()))
            nr = math.sqrt(sum(x * x for x in rk.values()))
            if nh and nr:
                val /= nh * nr
            delta = max(0, len(h) - 1) - max(0, len(r) - 1)
            total[k] += val * math.exp(-(delta ** 2) / 72.0)
    assert close(got.scores[0], float(np.mean(total)) / len(refs) * 10.0)


def test_bad_df_file(tmp_path):
    p = tmp_path / "df.json"
    p.write_text('{"df": {}}')
    with pytest.raises(InputError, match="n_docs"):
        C.load_document_frequency(p)
