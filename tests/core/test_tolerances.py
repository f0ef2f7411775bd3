"""The rare-state tolerance of ``tests/helpers.py`` (:func:`marginal_interval`) against simulation.

Its two approximations are checked where they can be: the compound Poisson quantiles against draws of
``Q = E_1 + ... + E_K``, and the whole interval's model on the chain it assumes (a two-state Markov chain whose rare
state is held ``L`` draws on average) at a level a simulation can reach (1 % per side instead of 3.4e-6).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.helpers import RARE_STATE_P_ESS, Z_TOLERANCE, compound_poisson_quantiles, marginal_interval

K_SIGMA = 4.5
"""Binomial standard errors allowed on a simulated tail frequency."""


@pytest.mark.parametrize("rate", [0.04, 0.5, 3.0, 9.0])
def testcompound_poisson_quantiles_match_simulation(rng, rate):
    tail, n = 0.01, 200_000
    low, high = compound_poisson_quantiles(rate, tail)
    k = rng.poisson(rate, n)
    q = np.where(k > 0, rng.gamma(np.maximum(k, 1), 1.0), 0.0)
    se = math.sqrt(tail * (1 - tail) / n)
    assert np.mean(q > high) == pytest.approx(tail, abs=K_SIGMA * se)
    if math.exp(-rate) >= tail:
        assert low == 0.0  # P(no visit) alone exceeds the tail: an estimate of 0 is always allowed
    else:
        assert np.mean(q < low) == pytest.approx(tail, abs=K_SIGMA * se)


def test_the_interval_holds_a_rare_two_state_chain(rng):
    # p = 1e-3 held L = 20 draws on average, N = 20,000 draws: ESS = N / (2 L - 1) ~ 513, p ESS ~ 0.5
    p, stay, n_draws, n_chains, tail = 1e-3, 20.0, 20_000, 2_000, 0.01
    leave, enter = 1.0 / stay, p / (stay * (1.0 - p))
    x = rng.random(n_chains) < p  # stationary start
    visits = np.zeros(n_chains)
    for _ in range(n_draws):
        u = rng.random(n_chains)
        x = np.where(x, u >= leave, u < enter)
        visits += x
    frequency = visits / n_draws
    rate = p * n_draws / stay
    low, high = (q * stay / n_draws for q in compound_poisson_quantiles(rate, tail))
    se = math.sqrt(tail * (1 - tail) / n_chains)
    assert np.mean(frequency > high) <= tail + K_SIGMA * se  # the model's tail is no thinner than the chain's
    assert np.mean(frequency < low) <= tail + K_SIGMA * se
    ess = n_draws / (2 * stay - 1)
    normal_high = p + 2.326 * math.sqrt(p * (1 - p) / ess)  # the normal 1 % quantile: too thin a tail here
    assert np.mean(frequency > normal_high) > tail + K_SIGMA * se


def test_common_states_keep_the_normal_tolerance():
    for p, ess in [(0.3, 1e4), (5e-3, 1e3), (0.999, 1e4)]:
        assert min(p, 1 - p) * ess >= RARE_STATE_P_ESS
        half = Z_TOLERANCE * math.sqrt(p * (1 - p) / ess)
        assert marginal_interval(p, ess, 40_000) == (p - half, p + half)


def test_rare_states_are_bounded_by_visits_and_mirrored():
    # the long-chain case: TnrSpply=Low on win95pts with evidence, one stay of 19 draws in 30,000
    p, ess, n = 1.22e-5, 1580.0, 30_000
    low, high = marginal_interval(p, ess, n)
    assert low == 0.0 and 19 / n <= high < 0.01
    assert not 19 / n <= p + Z_TOLERANCE * math.sqrt(p / ess)  # the normal bound rejected it
    mirrored = marginal_interval(1 - p, ess, n)
    assert mirrored == pytest.approx((1 - high, 1 - low), abs=1e-15)
    assert marginal_interval(0.0, ess, n) == (0.0, 0.0) and marginal_interval(1.0, ess, n) == (1.0, 1.0)
    assert marginal_interval(p, ess / 4, n)[1] > high  # longer stays (a smaller ESS): a wider interval
