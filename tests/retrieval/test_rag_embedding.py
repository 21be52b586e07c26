"""``--match embedding``: cosine of the shipped all-MiniLM-L6-v2 vectors against
sentence-transformers + scikit-learn's cosine (what ranx-k's embedding method computes), and
the Hangul check refusing an English-only model for Korean passages."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
st_mod = pytest.importorskip("sentence_transformers")

from scorekit.neural.encoder import default_model_path  # noqa: E402
from scorekit.neural.hangul import EnglishModelError  # noqa: E402
from scorekit.retrieval import rag  # noqa: E402
from scorekit.retrieval.rag_match import Matching, similarity_matrices  # noqa: E402

pytestmark = pytest.mark.slow


def test_cosine_equals_sentence_transformers():
    from sklearn.metrics.pairwise import cosine_similarity

    model = str(default_model_path())
    refs = [["The parcel is late.", "I want a refund."], ["My coupon does not apply."]]
    rets = [["Where is my delayed parcel?", "Refund please", "The parcel is late."], ["coupon code not working"]]
    ours = similarity_matrices(refs, rets, Matching("embedding", 0.5, model=model))
    st = st_mod.SentenceTransformer(model, device="cpu")
    for r, t, m in zip(refs, rets, ours):
        want = cosine_similarity(st.encode(r), st.encode(t))
        assert np.allclose(m, want, atol=2e-5)
    res = rag.evaluate([{"id": "1", "retrieved": rets[0], "references": refs[0]}], "mrr,recall@3",
                       match="embedding", threshold=0.99, model=model)
    assert res.metrics == {"mrr": 1 / 3, "recall@3": 0.5}


def test_english_model_is_refused_for_korean():
    with pytest.raises(EnglishModelError, match="cannot read Hangul"):
        rag.evaluate([{"id": "1", "retrieved": ["배송이 늦어요"], "references": ["배송 지연"]}], "mrr",
                     match="embedding", threshold=0.5, model=str(default_model_path()))
