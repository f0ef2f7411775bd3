"""The paper's performance indicators: exact values on hand cases, statistics on iid draws.

Statistical tolerances are derived from the sample size in the comment beside each one
(k standard errors, k = 4 unless said otherwise), never tuned. All randomness comes from
``TEST_SEED`` (tests/conftest.py): the ``rng`` fixture, and a child of its ``SeedSequence`` for
the module's iid draws.
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
from scipy import optimize

from prunelab import indicators
from prunelab.indicators import (
    DELTA_BOUNDS,
    AlphaFitError,
    AlphaInterval,
    TimeToSigma,
    bootstrap_alpha,
    first_checkpoint_below,
    fit_alpha,
    hellinger,
    log_checkpoints,
    mean_hellinger_over_chains,
    mean_hellinger_over_variables,
    running_marginals,
    sigma_t,
    time_to_sigma,
)
from tests.conftest import TEST_SEED
from tests.helpers import EXACT

K_SIGMA = 4.0
"""Standard errors allowed in statistical checks (two-sided P(|Z| > 4) = 6e-5 per check)."""


def intercept_weights(t, delta):
    """Row w of the least-squares solution with alpha_hat = w @ g for the design [1, t^-delta].

    sum(w) = 1, so |alpha_hat - a| <= sum|w| * max_i |g_i - a| for any curve g.
    """
    design = np.column_stack([np.ones_like(t), t**-delta])
    return np.linalg.pinv(design)[0]


# ------------------------------------------------------------------ Hellinger


def test_hellinger_identical_is_zero():
    p = np.array([0.1, 0.2, 0.7])
    assert hellinger(p, p) == 0.0


def test_hellinger_disjoint_is_one():
    assert hellinger([1.0, 0.0], [0.0, 1.0]) == pytest.approx(1.0, abs=EXACT)
    assert hellinger([0.5, 0.5, 0.0], [0.0, 0.0, 1.0]) == pytest.approx(1.0, abs=EXACT)


def test_hellinger_hand_computed():
    # H^2 = 1/2 [(sqrt(1/2) - 1)^2 + 1/2] = 1 - 1/sqrt(2)
    assert hellinger([0.5, 0.5], [1.0, 0.0]) == pytest.approx(math.sqrt(1 - 1 / math.sqrt(2)), abs=EXACT)
    # H^2 = 1/2 * 2 (sqrt(1/2) - 1/2)^2, H = sqrt(1/2) - 1/2 = (sqrt(2) - 1) / 2
    assert hellinger([0.25, 0.25, 0.5], [0.5, 0.25, 0.25]) == pytest.approx((math.sqrt(2) - 1) / 2, abs=EXACT)


def test_hellinger_returns_float_for_vectors():
    assert type(hellinger([0.3, 0.7], [0.6, 0.4])) is float


def test_hellinger_broadcasts_leading_axes(rng):
    p = rng.dirichlet(np.ones(4), size=(3, 1))  # (3, 1, 4)
    q = rng.dirichlet(np.ones(4), size=5)  # (5, 4)
    result = hellinger(p, q)
    assert result.shape == (3, 5)
    expected = [[hellinger(p[i, 0], q[j]) for j in range(5)] for i in range(3)]
    np.testing.assert_allclose(result, expected, rtol=0, atol=EXACT)


def test_hellinger_rejects_negative_and_mismatched():
    with pytest.raises(ValueError, match="non-negative"):
        hellinger([1.1, -0.1], [0.5, 0.5])
    with pytest.raises(ValueError, match="last axes"):
        hellinger([0.5, 0.5], [0.2, 0.3, 0.5])


# ------------------------------------------------------------------ checkpoints and running estimates


@pytest.mark.parametrize(("n_draws", "n_points"), [(25_000, 50), (1000, 4), (7, 50), (1, 10), (2, 2)])
def test_log_checkpoints(n_draws, n_points):
    cps = log_checkpoints(n_draws, n_points)
    assert cps.dtype == np.int64
    assert cps[0] == 1 and cps[-1] == n_draws
    assert np.all(np.diff(cps) > 0)
    assert cps.size <= n_points


def test_log_checkpoints_values():
    assert log_checkpoints(1000, 4).tolist() == [1, 10, 100, 1000]
    assert log_checkpoints(5, 50).tolist() == [1, 2, 3, 4, 5]  # rounding merges, all counts kept
    ratios = np.diff(np.log(log_checkpoints(25_000, 50)[-20:]))
    np.testing.assert_allclose(ratios, np.log(25_000) / 49, rtol=0.05)  # log-spaced where rounding is negligible


def naive_running_marginals(x, n_states, checkpoints):
    """The definition, one checkpoint and one state at a time."""
    out = np.zeros((x.shape[0], len(checkpoints), n_states))
    for s in range(x.shape[0]):
        for i, t in enumerate(checkpoints):
            for k in range(n_states):
                out[s, i, k] = np.mean(x[s, :t] == k)
    return out


def test_running_marginals_equals_naive_loop(rng):
    x = rng.integers(0, 3, size=(4, 37))
    cps = np.array([1, 2, 5, 17, 36, 37])
    result = running_marginals(x, 3, cps)
    assert result.shape == (4, 6, 3)
    np.testing.assert_array_equal(result, naive_running_marginals(x, 3, cps))


def test_running_marginals_unused_state_is_zero():
    x = np.array([[0, 0, 2, 2]])
    np.testing.assert_array_equal(running_marginals(x, 3, [4])[0, 0], [0.5, 0.0, 0.5])


def test_running_marginals_probability_vectors(rng):
    x = rng.integers(0, 3, size=(3, 20))
    cps = log_checkpoints(20, 8)
    one_hot = np.eye(3)[x]  # (runs, T, 3): degenerate probability vectors
    np.testing.assert_allclose(running_marginals(one_hot, 3, cps), running_marginals(x, 3, cps), rtol=0, atol=EXACT)
    vectors = rng.dirichlet(np.ones(3), size=(3, 20))  # Rao-Blackwellised estimates
    expected = np.stack([vectors[:, :t].mean(axis=1) for t in cps], axis=1)
    np.testing.assert_allclose(running_marginals(vectors, 3, cps), expected, rtol=0, atol=EXACT)


def test_running_marginals_rejects_bad_input():
    x = np.array([[0, 1, 2]])
    with pytest.raises(ValueError, match="range"):
        running_marginals(x, 2, [1])
    with pytest.raises(ValueError, match=r"1..3 \(the number of draws\)"):
        running_marginals(x, 3, [4])
    with pytest.raises(ValueError, match=r"1..3 \(the number of draws\)"):
        running_marginals(x, 3, [0])
    with pytest.raises(TypeError, match="integer"):
        running_marginals(x.astype(float), 3, [1])
    with pytest.raises(ValueError, match="states"):
        running_marginals(np.ones((1, 3, 2)) / 2, 3, [1])


def test_mean_hellinger_over_chains_is_the_paper_ahd(rng):
    estimates = rng.dirichlet(np.ones(3), size=(5, 4))  # (runs, checkpoints, states)
    exact = np.array([0.2, 0.3, 0.5])
    expected = [np.mean([hellinger(estimates[s, i], exact) for s in range(5)]) for i in range(4)]
    np.testing.assert_allclose(mean_hellinger_over_chains(estimates, exact), expected, rtol=0, atol=EXACT)


def test_sigma_t_is_population_std_over_runs(rng):
    estimates = rng.dirichlet(np.ones(2), size=(6, 3))
    y = estimates[:, :, 1]
    expected = np.sqrt(np.mean(y**2, axis=0) - np.mean(y, axis=0) ** 2)  # the paper's <y^2> - <y>^2
    np.testing.assert_allclose(sigma_t(estimates, state=1), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sigma_t(y), expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="state is required"):
        sigma_t(estimates)
    with pytest.raises(ValueError, match="state=None"):
        sigma_t(y, state=1)


# ------------------------------------------------------------------ fit_alpha on synthetic curves

TRUE_ALPHA, TRUE_BETA, TRUE_DELTA = 0.45, 3.0, 0.8
CURVE_T = log_checkpoints(25_000, 50).astype(float)


def synthetic_sigma(t, alpha=TRUE_ALPHA, beta=TRUE_BETA, delta=TRUE_DELTA):
    return alpha * (1 + beta * t**-delta) / np.sqrt(t)


def test_fit_alpha_recovers_noiseless_curve():
    fit = fit_alpha(CURVE_T, synthetic_sigma(CURVE_T))
    # least_squares stops at relative step 1e-8 (xtol); 1e-6 leaves room for conditioning.
    assert fit.alpha == pytest.approx(TRUE_ALPHA, rel=1e-6)
    assert fit.beta == pytest.approx(TRUE_BETA, rel=1e-6)
    assert fit.delta == pytest.approx(TRUE_DELTA, rel=1e-6)
    assert fit.t_min == 10
    assert fit.n_points == np.count_nonzero(CURVE_T >= 10)
    assert fit.residual_rms < 1e-9


def test_fit_alpha_fixed_delta_recovers_noiseless_curve():
    fit = fit_alpha(CURVE_T, synthetic_sigma(CURVE_T), delta=TRUE_DELTA)
    assert fit.alpha == pytest.approx(TRUE_ALPHA, rel=EXACT)
    assert fit.beta == pytest.approx(TRUE_BETA, rel=1e-9)
    assert fit.delta == TRUE_DELTA


def test_fit_alpha_noisy_curve_within_linearised_standard_error(rng):
    noise = 0.01  # relative noise on each g(t), independent across t
    g_true = TRUE_ALPHA * (1 + TRUE_BETA * CURVE_T**-TRUE_DELTA)
    g = g_true * (1 + noise * rng.standard_normal(CURVE_T.size))
    fit = fit_alpha(CURVE_T, g / np.sqrt(CURVE_T))
    # Tolerance: the linearised covariance of the least-squares estimate at the truth,
    # (J'J)^-1 J' diag(noise^2 g^2) J (J'J)^-1 on the points with t >= t_min.
    t = CURVE_T[CURVE_T >= 10]
    power = t**-TRUE_DELTA
    jac = np.column_stack([1 + TRUE_BETA * power, TRUE_ALPHA * power, -TRUE_ALPHA * TRUE_BETA * power * np.log(t)])
    bread = np.linalg.inv(jac.T @ jac)
    meat = jac.T @ np.diag((noise * TRUE_ALPHA * (1 + TRUE_BETA * power)) ** 2) @ jac
    se = np.sqrt(np.diag(bread @ meat @ bread))
    assert abs(fit.alpha - TRUE_ALPHA) <= K_SIGMA * se[0]
    assert abs(fit.beta - TRUE_BETA) <= K_SIGMA * se[1]
    assert abs(fit.delta - TRUE_DELTA) <= K_SIGMA * se[2]


def test_fit_alpha_fixed_delta_is_the_linear_regression_intercept(rng):
    t = CURVE_T
    sigma = synthetic_sigma(t) * (1 + 0.05 * rng.standard_normal(t.size))
    delta, t_min = 0.9, 20
    keep = t >= t_min
    x, g = t[keep] ** -delta, sigma[keep] * np.sqrt(t[keep])
    slope = np.sum((x - x.mean()) * (g - g.mean())) / np.sum((x - x.mean()) ** 2)  # textbook OLS
    intercept = g.mean() - slope * x.mean()
    fit = fit_alpha(t, sigma, delta=delta, t_min=t_min)
    assert fit.alpha == pytest.approx(intercept, rel=1e-10)
    assert fit.beta == pytest.approx(slope / intercept, rel=1e-10)
    assert fit.n_points == keep.sum()
    assert fit.residual_rms == pytest.approx(np.sqrt(np.mean((g - intercept - slope * x) ** 2)), rel=1e-10)


def test_fit_alpha_refuses_zero_sigma():
    with pytest.raises(AlphaFitError, match="do not differ"):
        fit_alpha(CURVE_T, np.zeros_like(CURVE_T))


def test_fit_alpha_refuses_curve_without_positive_limit():
    # g(t) = 5 t^-0.9 decays to 0: alpha would be 0, the model's boundary; the optimiser
    # cannot settle there and the fit is refused instead of returned.
    t = np.geomspace(10, 100, 20)
    with pytest.raises(AlphaFitError, match="positive alpha"):
        fit_alpha(t, 5 * t**-0.9 / np.sqrt(t))
    # fixed delta: the intercept of 5 t^-0.9 - 0.01 on t^-0.9 is -0.01
    with pytest.raises(AlphaFitError, match="positive"):
        fit_alpha(t, (5 * t**-0.9 - 0.01) / np.sqrt(t), delta=0.9)


def test_fit_alpha_raises_when_optimiser_fails(monkeypatch):
    def failing_least_squares(fun, x0, **kwargs):
        return optimize.OptimizeResult(
            x=np.asarray(x0, dtype=float), success=False, status=0, message="max evaluations",
            active_mask=np.zeros(3, dtype=int), fun=fun(x0),
        )

    monkeypatch.setattr(indicators.convergence, "optimize", types.SimpleNamespace(least_squares=failing_least_squares))
    with pytest.raises(AlphaFitError, match="did not converge"):
        fit_alpha(CURVE_T, synthetic_sigma(CURVE_T))


def test_fit_alpha_rejects_bad_input():
    with pytest.raises(ValueError, match="at least 4"):
        fit_alpha([10.0, 20.0, 30.0], [0.1, 0.08, 0.07])
    with pytest.raises(ValueError, match="at least 2"):
        fit_alpha([1.0, 20.0], [0.1, 0.08], delta=0.9)
    with pytest.raises(ValueError, match="finite"):
        fit_alpha(CURVE_T, np.full_like(CURVE_T, np.nan))
    with pytest.raises(ValueError, match="1-D"):
        fit_alpha(CURVE_T, np.ones((CURVE_T.size, 2)))
    with pytest.raises(ValueError, match="positive"):
        fit_alpha(CURVE_T, synthetic_sigma(CURVE_T), delta=0.0)


# ------------------------------------------------------------------ iid draws: the known answer

IID_P = 0.3
IID_RUNS, IID_T = 1000, 2000
IID_ALPHA = math.sqrt(IID_P * (1 - IID_P))
"""For iid draws sigma_t = sqrt(p (1 - p) / t) exactly, so g(t) = sigma_t sqrt(t) = alpha at every t."""

IID_G_SE = IID_ALPHA / math.sqrt(2 * IID_RUNS)
"""Standard error of g(t) at one checkpoint: the std of a sample std of N near-normal values is
sigma / sqrt(2N). The running mean of t Bernoulli(0.3) draws has negative excess kurtosis
(1 - 6pq)/(tpq), which only lowers that std, so this bound is conservative. The ddof=0 bias,
-sigma/(2N), is 1/30 of it and ignored."""


@pytest.fixture(scope="module")
def iid_draws():
    rng = np.random.default_rng(np.random.SeedSequence(TEST_SEED).spawn(1)[0])  # not the stream of `rng`
    return (rng.random((IID_RUNS, IID_T)) < IID_P).astype(np.int8)


@pytest.fixture(scope="module")
def iid_curve(iid_draws):
    cps = log_checkpoints(IID_T, 50)
    return cps, sigma_t(running_marginals(iid_draws, 2, cps), state=1)


def test_iid_sigma_t_sqrt_t_is_sqrt_p_one_minus_p(iid_curve):
    cps, sigma = iid_curve
    g = sigma * np.sqrt(cps)
    # every checkpoint within K standard errors (union over <= 50 points: P(fail) < 50 * 6e-5)
    assert np.max(np.abs(g - IID_ALPHA)) <= K_SIGMA * IID_G_SE


@pytest.mark.parametrize("delta", [0.9, None], ids=["fixed-delta", "free"])
def test_iid_fitted_alpha(iid_curve, delta):
    cps, sigma = iid_curve
    fit = fit_alpha(cps, sigma, delta=delta)
    # alpha_hat is a least-squares intercept w @ g with sum(w) = 1 (for the free fit, at the
    # fitted delta), so |alpha_hat - alpha| <= sum|w| * max_i |g_i - alpha|, and the max is
    # within K standard errors (previous test). For the free fit take the worst delta allowed.
    t = cps[cps >= 10].astype(float)
    deltas = [delta] if delta is not None else np.geomspace(*DELTA_BOUNDS, 200)
    amplification = max(np.abs(intercept_weights(t, d)).sum() for d in deltas)
    assert abs(fit.alpha - IID_ALPHA) <= amplification * K_SIGMA * IID_G_SE


def test_mean_hellinger_over_variables_is_the_mean_over_the_exact_variables(rng):
    exact = {"A": np.array([0.2, 0.8]), "B": np.array([0.1, 0.3, 0.6])}
    running = {"A": rng.dirichlet(np.ones(2), size=7), "B": rng.dirichlet(np.ones(3), size=7), "E": np.ones((7, 1))}
    expected = [(hellinger(running["A"][k], exact["A"]) + hellinger(running["B"][k], exact["B"])) / 2 for k in range(7)]
    np.testing.assert_allclose(mean_hellinger_over_variables(running, exact), expected, rtol=0, atol=EXACT)
    assert mean_hellinger_over_variables({"A": [0.2, 0.8]}, {"A": [0.2, 0.8]}) == 0.0
    with pytest.raises(KeyError, match=r"no estimate for \['B'\]"):
        mean_hellinger_over_variables({"A": [0.2, 0.8]}, exact)
    with pytest.raises(ValueError, match="no variables"):
        mean_hellinger_over_variables({}, {})


def test_iid_mean_hellinger_over_chains_falls_like_one_over_sqrt_t(rng):
    p = np.array([0.2, 0.3, 0.5])
    runs, T, t_min = 400, 4000, 100
    x = rng.choice(3, size=(runs, T), p=p)
    cps = log_checkpoints(T, 50)
    cps = cps[cps >= t_min]
    ahd = mean_hellinger_over_chains(running_marginals(x, 3, cps), p)
    # Small-error expansion: H^2 ~ (1/8) sum_i d_i^2 / p_i and t sum_i d_i^2 / p_i -> chi^2 with
    # k - 1 = 2 dof (Pearson), so H ~ chi_2 / (2 sqrt(2 t)) and AHD(t) sqrt(t) -> E[chi_2] / (2 sqrt 2)
    # = sqrt(pi)/4. The mean of N runs has relative std CV(chi_2)/sqrt(N), CV(chi_2) = sqrt(4/pi - 1);
    # the next order of the expansion is a relative O(1/(t min p)) <= 0.05 at t >= 100.
    relative_error = K_SIGMA * math.sqrt(4 / math.pi - 1) / math.sqrt(runs) + 1 / (t_min * p.min())
    limit = math.sqrt(math.pi) / 4
    np.testing.assert_allclose(ahd * np.sqrt(cps), limit, rtol=relative_error)
    # Slope of log AHD on log t: each point is off by at most e = relative_error in log, so the
    # OLS slope is off by at most e * sum|x - mean x| / sum (x - mean x)^2.
    log_t = np.log(cps)
    slope = np.polyfit(log_t, np.log(ahd), 1)[0]
    centred = log_t - log_t.mean()
    assert abs(slope + 0.5) <= relative_error * np.abs(centred).sum() / (centred**2).sum()


# ------------------------------------------------------------------ bootstrap


def test_bootstrap_alpha_covers_truth_on_iid_data(rng):
    replicates, runs, T, level = 100, 100, 1000, 0.9
    cps = log_checkpoints(T, 40)
    intervals = []
    for _ in range(replicates):
        y = rng.random((runs, T)) < IID_P
        intervals.append(bootstrap_alpha(y, cps, n_boot=200, rng=rng, delta=0.9, level=level))
    covered = sum(ci.low <= IID_ALPHA <= ci.high for ci in intervals)
    # Coverage count ~ Binomial(100, 0.9): mean 90, std 3; K std below is 78.
    assert covered >= replicates * level - K_SIGMA * math.sqrt(replicates * level * (1 - level))
    # And the interval is not vacuous: the bootstrap std estimates the spread of alpha_hat
    # across replicates. The std of 100 replicate alphas has relative error 1/sqrt(2 * 100).
    spread = np.std([ci.alpha for ci in intervals], ddof=1)
    boot_std = np.mean([np.std(ci.samples, ddof=1) for ci in intervals])
    assert boot_std == pytest.approx(spread, rel=K_SIGMA / math.sqrt(2 * replicates))


def test_bootstrap_alpha_input_forms_agree(iid_draws):
    draws = iid_draws[:100, :500]
    cps = log_checkpoints(500, 30)
    estimates = running_marginals(draws, 2, cps)
    seed = 7  # the seed is what is tested: one seed, the same bootstrap from every input form
    from_estimates = bootstrap_alpha(estimates, cps, 1, 50, rng=np.random.default_rng(seed), delta=0.9)
    from_draws = bootstrap_alpha(draws, cps, 1, 50, rng=np.random.default_rng(seed), delta=0.9)
    from_indicator = bootstrap_alpha(draws == 1, cps, None, 50, rng=np.random.default_rng(seed), delta=0.9)
    for other in (from_draws, from_indicator):
        assert other.alpha == pytest.approx(from_estimates.alpha, rel=EXACT)
        np.testing.assert_allclose(other.samples, from_estimates.samples, rtol=EXACT)
    assert from_estimates.alpha == pytest.approx(fit_alpha(cps, sigma_t(estimates, state=1), delta=0.9).alpha)


def test_bootstrap_alpha_free_fit_is_reproducible(iid_draws):
    draws = iid_draws[:100, :1000]
    cps = log_checkpoints(1000, 30)
    first = bootstrap_alpha(draws, cps, 1, 40, rng=np.random.default_rng(3))  # same seed, same samples: tested
    again = bootstrap_alpha(draws, cps, 1, 40, rng=np.random.default_rng(3))
    assert isinstance(first, AlphaInterval)
    assert first.samples.shape == (40,)
    np.testing.assert_array_equal(first.samples, again.samples)
    assert first.low <= first.alpha <= first.high


def test_bootstrap_alpha_requires_a_generator(iid_draws, rng):
    cps = log_checkpoints(100, 10)
    with pytest.raises(TypeError, match="Generator"):
        bootstrap_alpha(iid_draws[:10, :100], cps, 1, rng=0)
    with pytest.raises(ValueError, match="running estimates"):
        bootstrap_alpha(np.ones((10, 3, 2)), cps, 1, rng=rng)


# ------------------------------------------------------------------ time consumption


def test_time_to_sigma_arithmetic():
    # alpha = 0.40 (the paper's Metropolis on Grid 8x8): t = (0.40 / 0.01)^2 = 1600
    result = time_to_sigma(0.40, seconds_per_draw=1e-3, init_seconds=0.5)
    assert isinstance(result, TimeToSigma)
    assert result.draws == pytest.approx(1600.0, rel=EXACT)
    assert result.seconds == pytest.approx(0.5 + 1.6, rel=EXACT)
    assert time_to_sigma(0.4, 1e-3, target=0.02).draws == pytest.approx(400.0, rel=EXACT)
    both = time_to_sigma(np.array([0.4, 0.8]), 2e-3)
    np.testing.assert_allclose(both.draws, [1600.0, 6400.0], rtol=EXACT)
    np.testing.assert_allclose(both.seconds, [3.2, 12.8], rtol=EXACT)
    with pytest.raises(ValueError, match="target"):
        time_to_sigma(0.4, 1e-3, target=0.0)
    with pytest.raises(ValueError, match="non-negative"):
        time_to_sigma(-0.4, 1e-3)


def test_first_checkpoint_below():
    cps = np.array([1, 10, 100, 1000])
    sigma = np.array([0.0, 0.05, 0.01, 0.002])
    assert first_checkpoint_below(cps, sigma) == 1  # all runs started alike: sigma_1 = 0
    assert first_checkpoint_below(cps, sigma, t_min=2) == 100  # <= target counts
    assert first_checkpoint_below(cps, sigma, target=0.001, t_min=2) is None
    assert type(first_checkpoint_below(cps, sigma, t_min=2)) is int
