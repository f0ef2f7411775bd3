"""ArviZ diagnostics: R-hat and ESS on chains with a known answer, and the degenerate cases.

The test chains are two-state Markov chains that flip with probability ``f`` at each
step, started from their stationary law (1/2, 1/2). The lag-k autocorrelation is
rho^k with rho = 1 - 2f, so the ESS of n draws is n (1 - rho) / (1 + rho); f = 1/2 gives
iid Bernoulli(1/2) draws. Tolerances are derived from the sample size in a comment.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from prunelab.diagnostics import convergence_summary, ess_from_alpha
from prunelab.extras import MissingExtraError
from prunelab.indicators import running_marginals, sigma_t

K_SIGMA = 4.0
"""Standard errors allowed in a statistical check."""

RHAT_BAND = 0.01
"""ArviZ's usual convergence band |R-hat - 1| < 0.01 (Vehtari et al. 2021). For iid split chains,
R-hat - 1 ~ (chi^2_{m-1}/(m-1) - 1) / (2 n') with m split chains of n' draws: a std of about
sqrt(2/(m-1)) / (2 n') ~ 1e-4 here, so the band is met with a wide margin."""

GEYER_WINDOW_IN_TAU = 5
"""The lags ArviZ's ESS sums before Geyer's initial positive sequence stops, in units of the
integrated autocorrelation time tau = (1 + rho)/(1 - rho) (at least 10 lags)."""


def ess_relative_error(n_total: int, rho: float) -> float:
    """K standard errors of an ESS estimate, relative: Sokal's var(tau_hat) ~ 2 (2M + 1) tau^2 / n.

    M is the summation window (GEYER_WINDOW_IN_TAU * tau lags, at least 10).
    """
    tau = (1 + rho) / (1 - rho)
    window = max(10, GEYER_WINDOW_IN_TAU * tau)
    return K_SIGMA * math.sqrt(2 * (2 * window + 1) / n_total)


def flip_chains(rng, n_chains: int, n_draws: int, rho: float) -> np.ndarray:
    """Stationary two-state chains with lag-1 autocorrelation rho, shape (chain, draw), values 0/1."""
    flips = rng.random((n_chains, n_draws)) < (1 - rho) / 2
    flips[:, 0] = rng.random(n_chains) < 0.5  # the initial state, drawn from (1/2, 1/2)
    return (np.cumsum(flips, axis=1) % 2).astype(np.int8)


def test_flip_chains_have_the_intended_autocorrelation(rng):
    # guards the generator the other tests rely on: lag-1 correlation of 0/1 draws
    x = flip_chains(rng, 8, 20_000, rho=0.8).astype(float)
    centred = x - x.mean()
    lag1 = np.mean(centred[:, 1:] * centred[:, :-1]) / np.mean(centred**2)
    # std of a lag-1 autocorrelation estimate is ~ sqrt((1 + rho^2)/(1 - rho^2) / n) for AR(1)-like chains
    assert lag1 == pytest.approx(0.8, abs=K_SIGMA * math.sqrt((1 + 0.64) / (1 - 0.64) / x.size))


def test_iid_chains_rhat_near_one_and_ess_near_n(rng):
    x = flip_chains(rng, 8, 5000, rho=0.0)  # this stream holds exactly 20,000 ones: the midpoint case below
    summary = convergence_summary(x)
    assert abs(summary["rhat"] - 1) < RHAT_BAND
    assert summary["n_draws"] == 40_000
    assert summary["constant_chains"] == 0
    tolerance = ess_relative_error(x.size, 0.0)
    assert summary["ess_bulk"] == pytest.approx(x.size, rel=tolerance)
    assert summary["ess_tail"] == pytest.approx(x.size, rel=tolerance)


def bulk_rhat(x: np.ndarray) -> float:
    """Split R-hat of the rank-normalised draws (Vehtari et al. 2021, eqs. 3-4 and 14), written out.

    Each chain is split in halves; all draws are ranked together (ties share their average rank r)
    and mapped to z = Phi^-1((r - 3/8) / (S + 1/4)); R-hat = sqrt(((n - 1)/n W + B/n) / W).
    """
    half = x.shape[1] // 2
    split = np.concatenate([x[:, :half], x[:, x.shape[1] - half:]])
    z = stats.norm.ppf((stats.rankdata(split).reshape(split.shape) - 0.375) / (split.size + 0.25))
    n = z.shape[1]
    within = z.var(axis=1, ddof=1).mean()
    between = n * z.mean(axis=1).var(ddof=1)
    return math.sqrt(((n - 1) / n * within + between / n) / within)


def test_an_indicator_with_exactly_half_ones_has_the_bulk_rhat(rng):
    # folded about the median 0.5 every draw is 0.5: the tail R-hat is 0/0, the documented answer is the bulk R-hat
    x = rng.permutation(np.repeat(np.array([0, 1], dtype=np.int8), 200)).reshape(8, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warning reaches the user
        summary = convergence_summary(x)
    assert summary["rhat"] == pytest.approx(bulk_rhat(x.astype(float)), rel=1e-12)
    assert summary["constant_chains"] == 0


def test_a_two_valued_indicator_gets_the_rank_rhat_wherever_the_tail_rhat_is_defined(rng):
    # with unequal counts the folding only relabels the two values: ArviZ's rank R-hat (max of bulk and tail) is
    # defined and equals the bulk R-hat reported; chains that disagree keep an R-hat far from 1
    az = pytest.importorskip("arviz")
    x = (rng.random((4, 200)) < 0.3) + 2.0 * (np.arange(4)[:, None] % 2)  # values {0, 1} and {2, 3}: four values
    agree = (rng.random((4, 200)) < 0.3).astype(float)
    assert convergence_summary(agree)["rhat"] == pytest.approx(float(az.rhat(agree, method="rank")), rel=1e-12)
    assert convergence_summary(agree)["rhat"] == pytest.approx(bulk_rhat(agree), rel=1e-12)
    apart = np.concatenate([rng.random((2, 200)) < 0.1, rng.random((2, 200)) < 0.9]).astype(float)
    assert convergence_summary(apart)["rhat"] == pytest.approx(float(az.rhat(apart, method="rank")), rel=1e-12)
    assert convergence_summary(apart)["rhat"] > 1 + 10 * RHAT_BAND  # about 1.8 for these means (0.1 vs 0.9)
    assert convergence_summary(x)["rhat"] == pytest.approx(float(az.rhat(x, method="rank")), rel=1e-12)


def test_autocorrelated_chains_have_the_theoretical_ess(rng):
    rho = 0.8
    x = flip_chains(rng, 8, 20_000, rho=rho)
    summary = convergence_summary(x)
    expected = x.size * (1 - rho) / (1 + rho)  # n / 9
    assert summary["ess_bulk"] == pytest.approx(expected, rel=ess_relative_error(x.size, rho))
    assert summary["ess_bulk"] < 0.2 * x.size  # much lower than iid
    assert abs(summary["rhat"] - 1) < RHAT_BAND  # mixing slowly is not failing to mix


def test_ess_per_second_is_bulk_ess_over_total_seconds(rng):
    x = flip_chains(rng, 4, 1000, rho=0.5)
    per_chain = convergence_summary(x, seconds_per_chain=[1.0, 2.0, 3.0, 4.0])
    assert per_chain["ess_per_second"] == pytest.approx(per_chain["ess_bulk"] / 10.0, rel=1e-12)
    same = convergence_summary(x, seconds_per_chain=2.5)
    assert same["ess_per_second"] == pytest.approx(per_chain["ess_per_second"], rel=1e-12)
    assert "ess_per_second" not in convergence_summary(x)
    with pytest.raises(ValueError, match="one value per chain"):
        convergence_summary(x, seconds_per_chain=[1.0, 2.0])


@pytest.mark.parametrize("rho", [0.0, 0.8], ids=["iid", "rho=0.8"])
def test_ess_from_alpha_agrees_with_arviz(rng, rho):
    runs, T, p = 1000, 1000, 0.5
    x = flip_chains(rng, runs, T, rho=rho)
    # alpha_hat = sigma_T sqrt(T) across runs; ESS from it scales as alpha^-2, so its relative std is
    # 2 / sqrt(2 runs) = sqrt(2 / runs). The finite-T term of Var(mean), 2 rho / (T (1 - rho)^2)
    # against tau, is 0.4% here.
    alpha_hat = sigma_t(running_marginals(x, 2, [T]), state=1)[0] * math.sqrt(T)
    from_alpha = runs * ess_from_alpha(T, p, alpha_hat)
    arviz_ess = convergence_summary(x)["ess_bulk"]
    tolerance = math.hypot(K_SIGMA * math.sqrt(2 / runs), ess_relative_error(x.size, rho))
    assert from_alpha == pytest.approx(arviz_ess, rel=tolerance)
    assert from_alpha == pytest.approx(x.size * (1 - rho) / (1 + rho), rel=K_SIGMA * math.sqrt(2 / runs))


def test_ess_from_alpha_formula():
    p = 0.3
    assert ess_from_alpha(25_000, p, math.sqrt(p * (1 - p))) == pytest.approx(25_000, rel=1e-12)
    assert ess_from_alpha(1000, 0.5, 1.0) == pytest.approx(250.0, rel=1e-12)
    np.testing.assert_allclose(ess_from_alpha(100, 0.5, np.array([0.5, 0.25])), [100.0, 400.0], rtol=1e-12)
    with pytest.raises(ValueError, match="alpha"):
        ess_from_alpha(100, 0.5, 0.0)
    with pytest.raises(ValueError, match="p must"):
        ess_from_alpha(100, 1.5, 0.5)


# ------------------------------------------------------------------ degenerate chains


def test_all_chains_constant_gives_nan_not_perfect_mixing():
    # A trapped sampler: every chain sits in the same state. ArviZ's own ESS would be the
    # number of draws; we report nan, and nan R-hat, meaning "no variation: not ergodic / unknown".
    summary = convergence_summary(np.ones((4, 100)), seconds_per_chain=1.0)
    assert math.isnan(summary["rhat"])
    assert math.isnan(summary["ess_bulk"]) and math.isnan(summary["ess_tail"])
    assert math.isnan(summary["ess_per_second"])
    assert summary["constant_chains"] == 4


def test_chains_trapped_in_different_states_give_infinite_rhat():
    x = np.repeat(np.array([[0], [1], [1], [0]]), 100, axis=1)
    summary = convergence_summary(x)
    assert summary["rhat"] == math.inf
    assert math.isnan(summary["ess_bulk"])


def test_some_chains_constant_is_flagged_by_rhat(rng):
    x = flip_chains(rng, 4, 1000, rho=0.0)
    x[0], x[1] = 1, 0  # two chains stuck, in different states
    summary = convergence_summary(x)  # filterwarnings = error: no warning may escape
    assert summary["constant_chains"] == 2
    assert summary["rhat"] > 1 + RHAT_BAND


def test_too_short_or_misshapen_input():
    with pytest.raises(ValueError, match="at least 4"):
        convergence_summary(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"\(chain, draw\)"):
        convergence_summary(np.zeros(10))


# ------------------------------------------------------------------ chain_disagreement
def _ar_indicator(rng, n_chains, n_draws, p, stay):
    """0/1 chains that keep their value with probability ``stay`` and else redraw it ~ Bernoulli(p)."""
    x = np.empty((n_chains, n_draws))
    x[:, 0] = rng.random(n_chains) < p
    for t in range(1, n_draws):
        redraw = rng.random(n_chains) >= stay
        x[:, t] = np.where(redraw, rng.random(n_chains) < p, x[:, t - 1])
    return x


def test_chain_disagreement_is_calibrated_on_agreeing_autocorrelated_chains(rng):
    """Under the hypothesis (one stationary law, tau = (1 + stay) / (1 - stay) = 9) p-values are not too small."""
    from prunelab.traps import chain_disagreement

    p_values = np.array([chain_disagreement(_ar_indicator(rng, 4, 500, 0.3, 0.8)) for _ in range(200)])
    # with the ESS margin the test is conservative: far fewer than 1 % below 0.01
    assert np.mean(p_values < 0.01) <= 0.02
    assert np.all(p_values > 1e-4)


def test_chain_disagreement_sees_chains_that_move_apart(rng):
    from prunelab.traps import chain_disagreement

    low = _ar_indicator(rng, 2, 500, 0.2, 0.5)
    high = _ar_indicator(rng, 2, 500, 0.8, 0.5)
    assert chain_disagreement(np.vstack([low, high])) < 1e-12
    # chains that never move are no evidence either way; nor are short or rare ones
    assert chain_disagreement(np.repeat([[0.0], [1.0]], 500, axis=1)) == 1.0
    assert chain_disagreement(np.vstack([low[:, :50], high[:, :50]])) == 1.0  # fewer than MIN_DRAWS
    with pytest.raises(ValueError, match="0 or 1"):
        chain_disagreement(np.full((2, 200), 0.5))
    with pytest.raises(ValueError, match="at least 2 chains"):
        chain_disagreement(np.zeros((1, 200)))


def test_without_arviz_the_error_names_the_extra(monkeypatch, rng):
    import sys

    from prunelab.diagnostics import convergence_summary

    monkeypatch.setitem(sys.modules, "arviz", None)  # as if not installed
    with pytest.raises(MissingExtraError, match=r"^computing R-hat and ESS needs the package arviz.*prunelab\[experiments\]'$"):
        convergence_summary(rng.random((2, 50)) < 0.5)
