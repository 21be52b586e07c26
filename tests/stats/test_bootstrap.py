import numpy as np
from hypothesis import given, strategies as st

from scorekit.stats.bootstrap import bootstrap_mean_ci


@given(st.lists(st.floats(0, 1), min_size=2, max_size=50))
def test_ci_brackets_mean(values):
    mean, lo, hi = bootstrap_mean_ci(values, n_resamples=200)
    assert np.isclose(mean, np.mean(values))
    assert lo <= mean + 1e-12 and mean - 1e-12 <= hi


def test_ci_deterministic_and_narrows_with_n():
    rng = np.random.default_rng(0)
    small, big = rng.random(20), rng.random(2000)
    assert bootstrap_mean_ci(small) == bootstrap_mean_ci(small)
    _, lo_s, hi_s = bootstrap_mean_ci(small)
    _, lo_b, hi_b = bootstrap_mean_ci(big)
    assert hi_b - lo_b < hi_s - lo_s


def test_degenerate_inputs():
    assert bootstrap_mean_ci([0.3]) == (0.3, 0.3, 0.3)
    assert all(np.isnan(v) for v in bootstrap_mean_ci([]))
