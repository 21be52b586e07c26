"""Pearson / Spearman / Kendall equal scipy.stats; seeded bootstrap CIs; Shrout-Fleiss ICCs."""

import numpy as np
import pytest
import scipy.stats as st_
from hypothesis import given, strategies as st

from scorekit.errors import ScorekitError
from scorekit.stats.correlation import correlate, icc, kendall, pearson, spearman

values = st.lists(st.integers(-5, 5), min_size=3, max_size=40)  # small ints: many ties


@given(st.data())
def test_statistics_equal_scipy(data):
    x = np.array(data.draw(values), dtype=float)
    y = np.array(data.draw(st.lists(st.floats(-1e3, 1e3), min_size=len(x), max_size=len(x))))
    y = np.round(y, 1)
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = (st_.pearsonr(x, y)[0], st_.spearmanr(x, y)[0], st_.kendalltau(x, y)[0])
    ours = (pearson(x, y), spearman(x, y), kendall(x, y))
    for a, b in zip(ours, ref):
        if np.isnan(b):
            assert np.isnan(a)
        else:
            assert a == pytest.approx(b, abs=1e-12)


def test_correlate_ci_and_p_values():
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    y = x + rng.normal(size=60)
    res = correlate(x, y, n_resamples=500)
    assert res == correlate(x, y, n_resamples=500)                      # seeded
    assert res != correlate(x, y, n_resamples=500, seed=7)
    for method, fn in (("pearson", st_.pearsonr), ("spearman", st_.spearmanr), ("kendall", st_.kendalltau)):
        c = res[method]
        assert c.statistic == pytest.approx(fn(x, y)[0], abs=1e-12)
        assert c.p_value == pytest.approx(fn(x, y)[1], rel=1e-9)
        assert c.low < c.statistic < c.high
    # the CI is the percentile interval of the resampled statistic
    idx = np.random.default_rng(42).integers(0, 60, size=(500, 60))
    boot = [st_.pearsonr(x[i], y[i])[0] for i in idx]
    lo, hi = np.quantile(boot, [0.025, 0.975])
    assert res["pearson"].low == pytest.approx(lo, abs=1e-12)
    assert res["pearson"].high == pytest.approx(hi, abs=1e-12)
    boot_k = [st_.kendalltau(x[i], y[i])[0] for i in idx[:100]]
    lo, hi = np.quantile(boot_k, [0.025, 0.975])
    k100 = correlate(x, y, ["kendall"], n_resamples=100)["kendall"]
    assert (k100.low, k100.high) == pytest.approx((lo, hi), abs=1e-12)


def test_bad_inputs():
    with pytest.raises(ScorekitError):
        correlate([1, 2, 3], [1, 2])
    with pytest.raises(ScorekitError):
        correlate([1, 2, np.nan], [1, 2, 3])
    assert np.isnan(pearson([1, 1, 1], [1, 2, 3]))


SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])


def test_icc_shrout_fleiss_table_4():
    # Shrout & Fleiss (1979), Table 4: .17 .29 .71 .44 .62 .91
    got = icc(SHROUT_FLEISS)
    want = {"ICC(1,1)": .17, "ICC(2,1)": .29, "ICC(3,1)": .71, "ICC(1,k)": .44, "ICC(2,k)": .62, "ICC(3,k)": .91}
    for k, v in want.items():
        assert round(got[k], 2) == v, k


def _icc_by_hand(x):
    """ICC from an explicit two-way ANOVA with loops (pingouin's formulas)."""
    n, k = len(x), len(x[0])
    g = sum(sum(r) for r in x) / (n * k)
    rows = [sum(r) / k for r in x]
    cols = [sum(x[i][j] for i in range(n)) / n for j in range(k)]
    ssr = k * sum((r - g) ** 2 for r in rows)
    ssc = n * sum((c - g) ** 2 for c in cols)
    sst = sum((x[i][j] - g) ** 2 for i in range(n) for j in range(k))
    sse = sst - ssr - ssc
    msr, msc, mse, msw = ssr / (n - 1), ssc / (k - 1), sse / ((n - 1) * (k - 1)), (sst - ssr) / (n * (k - 1))
    return {"ICC(1,1)": (msr - msw) / (msr + (k - 1) * msw),
            "ICC(2,1)": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
            "ICC(3,1)": (msr - mse) / (msr + (k - 1) * mse),
            "ICC(1,k)": (msr - msw) / msr,
            "ICC(2,k)": (msr - mse) / (msr + (msc - mse) / n),
            "ICC(3,k)": (msr - mse) / msr}


@given(st.integers(2, 12), st.integers(2, 5), st.integers(0, 10**6))
def test_icc_equals_hand_anova(n, k, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, size=(n, 1)) + rng.integers(-1, 2, size=(n, k)) + rng.integers(0, 2, size=(1, k))
    x = x.astype(float)
    if np.ptp(x.mean(axis=1)) == 0:  # no between-target variance: ICC undefined (0/0)
        return
    got, want = icc(x), _icc_by_hand(x.tolist())
    for key in want:
        if np.isfinite(want[key]):
            assert got[key] == pytest.approx(want[key], abs=1e-10)


def test_icc_needs_complete_tables():
    with pytest.raises(ScorekitError):
        icc([[1, 2]])
    with pytest.raises(ScorekitError):
        icc([[1, np.nan], [2, 3]])
