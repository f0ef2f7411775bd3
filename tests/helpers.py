"""What several test modules share: tolerances (each with its derivation), random networks, fixtures' data.

A test module imports these from here, never from another test module.
"""

from __future__ import annotations

import string
import warnings

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from prunelab import BayesianNetwork, load_network, make_grid
from prunelab.indicators import log_checkpoints
from prunelab.lab.paper_numbers import PAPER_SAMPLERS

EXACT = 1e-12
"""Round-off allowed where the answer is exact: sums and products of at most about a thousand float64
probabilities in [0, 1], each operation off by at most 2**-53 (1.1e-16) relative, so at most about 1e-13;
1e-12 leaves a factor of ten."""

LOG_EXACT = 1e-9
"""Round-off allowed where two exact methods reach one answer by different routes through log space: a circuit's or
the model counter's log-sum-exp over hundreds of terms, or 128-bit model counts returned as doubles, against the
junction tree's products; each exp/log pair costs a few ulps of the log, relative to values near 1, so well below
1e-12 per term but not per several hundred: 1e-9 is what these tests assert."""

CIRCUIT_CASES = [
    ("deterministic_pair", None),
    ("asia", None),
    ("asia", {"dysp": "yes", "xray": "no"}),
    ("grid-6", None),
    ("grid-6", {"v_6_6": "T"}),
    ("multi", None),
    ("multi", {"C": "c2"}),
]
"""``(network, evidence)`` on which the circuit and the model counter are checked against the junction tree
(:func:`circuit_case_network` builds each network)."""


def multi_valued_network() -> BayesianNetwork:
    """Three- and four-state variables with deterministic rows (one-hot encoding, zeros as clauses)."""
    return BayesianNetwork(
        states={"A": ["a0", "a1", "a2"], "B": ["b0", "b1", "b2", "b3"], "C": ["c0", "c1", "c2"]},
        parents={"B": ["A"], "C": ["A", "B"]},
        cpts={
            "A": [0.2, 0.5, 0.3],
            "B": [[0.0, 0.5, 0.5, 0.0], [1.0, 0.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.4]],
            "C": np.array([[[0.3, 0.3, 0.4], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.0, 0.8]]] * 3),
        },
        name="multi",
    )


def circuit_case_network(name: str) -> BayesianNetwork:
    """The network of a :data:`CIRCUIT_CASES` name: ``"grid-6"`` (a 6x6 grid, 75 % deterministic), ``"multi"``
    (:func:`multi_valued_network`) or a catalogue network."""
    if name == "grid-6":
        return make_grid(6, 0.75, seed=11)
    if name == "multi":
        return multi_valued_network()
    return load_network(name)

CHI2_LEVEL = 1e-3
"""Significance of the chi-square tests at fixed seeds (each is deterministic: a pass is reproducible)."""

Z_TOLERANCE = 4.5
"""Long-chain tolerance in standard errors: ``|p_hat - p| <= 4.5 sqrt(p (1 - p) / ESS)``.

Two-sided normal tail 6.8e-6 per comparison; a network has at most ~300
(variable, state) comparisons, so by Bonferroni the chance of a false alarm per
network is below 0.2 % (the tests run at fixed seeds, so a pass is reproducible).
"""


Z_MULTI = 6.5
"""Bound on |error| / standard error of a pooled estimate from 16 independent chains (derived in the module notes of
``tests/samplers/test_gibbs_metropolis.py``)."""


def fan_network(width: int = 8) -> BayesianNetwork:
    """A uniform; B uniform on ``width`` states if A=0, B=0 if A=1. P(A=1) = 1/2."""
    return BayesianNetwork(
        states={"A": ["0", "1"], "B": [str(i) for i in range(width)]},
        parents={"B": ["A"]},
        cpts={"A": [0.5, 0.5], "B": [[1 / width] * width, [1.0] + [0.0] * (width - 1)]},
        name="fan",
    )


@st.composite
def random_network(draw):
    n = draw(st.integers(1, 6))
    cards = [draw(st.integers(1, 3)) for _ in range(n)]
    parents = {f"V{i}": [f"V{j}" for j in range(i) if draw(st.booleans())][:3] for i in range(n)}
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)  # hypothesis's seed: a failing example replays
    cpts = {}
    for i in range(n):
        shape = [cards[int(p[1:])] for p in parents[f"V{i}"]] + [cards[i]]
        table = rng.random(shape) * (rng.random(shape) < 0.8)
        table[..., 0] += 1e-3
        cpts[f"V{i}"] = table / table.sum(-1, keepdims=True)
    order = list(rng.permutation(n))
    return BayesianNetwork(
        states={f"V{i}": [f"s{k}" for k in range(cards[i])] for i in order},
        parents={f"V{i}": parents[f"V{i}"] for i in order},
        cpts={f"V{i}": cpts[f"V{i}"] for i in order},
    )


@st.composite
def small_networks(draw):
    """A random DAG on <= 7 variables with 2-3 states and CPTs with exact zeros.

    Variables are declared in a shuffled order so the network's topological order
    is not the declaration order. CPT rows are one-hot (deterministic) or random
    with some entries exactly 0; every row keeps one positive entry.
    """
    n = draw(st.integers(1, 7))
    cards = draw(st.lists(st.integers(2, 3), min_size=n, max_size=n))
    parents = [
        draw(st.lists(st.integers(0, k - 1), max_size=min(k, 3), unique=True)) if k else []
        for k in range(n)
    ]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))  # hypothesis's seed: a failing example replays
    names = list(string.ascii_uppercase[:n])
    cpts = {}
    for k in range(n):
        shape = tuple(cards[p] for p in parents[k]) + (cards[k],)
        table = rng.random(shape) * (rng.random(shape) > 0.3)
        one_hot = rng.random(shape[:-1]) < 0.3
        keep = rng.integers(0, cards[k], size=shape[:-1])
        rows = np.eye(cards[k])[keep]
        table = np.where(one_hot[..., None], rows, table)
        empty = table.sum(axis=-1) == 0
        table = np.where(empty[..., None], rows, table)
        cpts[names[k]] = table / table.sum(axis=-1, keepdims=True)
    declared = draw(st.permutations(range(n)))
    bn = BayesianNetwork(
        states={names[k]: [f"s{j}" for j in range(cards[k])] for k in declared},
        parents={names[k]: [names[p] for p in parents[k]] for k in declared},
        cpts={names[k]: cpts[names[k]] for k in declared},
        name="random",
    )
    observed = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    evidence = {
        v: draw(st.integers(0, len(bn.states[v]) - 1)) for v, o in zip(names, observed) if o
    }
    return bn, evidence


GOOD_BIF = """\
network toy {
}
variable A {
  type discrete [ 2 ] { a0, a1 };
}
variable B {
  type discrete [ 3 ] { b0, b1, b2 };
  property weight = 7 ;
}
probability ( A ) {
  table 0.25, 0.75;
}
probability ( B | A ) {
  (a0) 0.5, 0.25, 0.25;
  (a1) 0.0, 0.0, 1.0;
}
"""


def effective_sample_size(draws: np.ndarray, n_states: int) -> float:
    """ESS of one variable: the smallest arviz mean-ESS over its state indicators.

    ``draws`` is (chain, draw). Indicators that never change carry no information
    on mixing and are skipped; a variable that never changes gets ESS = number of
    chains (every chain one independent draw).
    """
    import arviz as az

    values = []
    for s in range(n_states):
        indicator = (draws == s).astype(float)
        if indicator.std() > 0:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values.append(float(az.ess(indicator, method="mean")))
    return min(values, default=float(draws.shape[0]))


def pooled_errors(per_chain: np.ndarray, exact: np.ndarray, n_per_chain: int) -> np.ndarray:
    """|pooled - exact| / standard error, the SE from independent chains (module doc)."""
    n_chains = per_chain.shape[0]
    pooled = per_chain.mean(axis=0)
    se_between = per_chain.std(axis=0, ddof=1) / np.sqrt(n_chains)
    se_iid = np.sqrt(exact * (1.0 - exact) / (n_chains * n_per_chain))
    se = np.maximum(se_between, se_iid)
    return np.abs(pooled - exact) / np.where(se > 0, se, np.inf)


def ahd_tolerance(n_steps):
    """Largest AHD a chain of ``n_steps`` draws may show, with 0.1 as the floor.

    For one binary variable the Hellinger distance of an estimate off by ``d`` is
    about ``|d| / sqrt(8 p (1 - p))``, and ``d`` is at most ``Z * sqrt(p (1 - p) / ESS)``
    with ``Z = 5``; so ``H <= 5 / sqrt(8 ESS)``. With ESS taken as at least a quarter
    of the draws (prune and Gibbs on these small networks), ``5 / sqrt(2 n)``. An
    exact method (no steps) gets the floor.
    """
    n = np.maximum(np.asarray(n_steps, dtype=float), 1.0)
    return np.where(np.asarray(n_steps) > 0, np.maximum(0.1, 5.0 / np.sqrt(2.0 * n)), 0.1)


def fake_curves(rng, benchmarks=("b1", "b2"), samplers=PAPER_SAMPLERS, n_runs=5, t_max=1000, stalled=()):
    """A curves table: AHD ~ c / sqrt(t) per run (or flat for the (benchmark, sampler) in ``stalled``)."""
    t = log_checkpoints(t_max, 12)
    rows = []
    for b in benchmarks:
        for m in samplers:
            for run in range(n_runs):
                scale = rng.uniform(0.2, 0.4)
                h = np.full(t.size, scale) if (b, m) in stalled else scale / np.sqrt(t)
                rows.append(pd.DataFrame({
                    "case": f"{b}.{m}", "benchmark": b, "sampler": m, "init": "forward", "run": run,
                    "t": t, "hellinger_query": h, "hellinger_all": h / 2,
                }))
    return pd.concat(rows, ignore_index=True)


TEMPERING_CASES = {
    "fan": (fan_network(4), None),
    "blood_pressure|m_e": (load_network("blood_pressure"), {"Measurement": "m_e"}),
}
"""Small networks (with evidence) on which the tempering tests check exact transitions."""


RB_EXACT_CASES = {
    "deterministic_pair": (lambda: load_network("deterministic_pair"), None),
    "block_chain-3": (lambda: load_network("block_chain", n=3), None),
    "blood_pressure": (lambda: load_network("blood_pressure"), None),
    "blood_pressure|m_e": (lambda: load_network("blood_pressure"), {"Measurement": "m_e"}),
    "blood_pressure|l_g,m_n": (lambda: load_network("blood_pressure"), {"Lifestyle": "l_g", "Measurement": "m_n"}),
    "grid-3x3|e": (lambda: load_network("grid-3x3"), {"v_2_2": "F", "v_3_1": "F", "v_3_2": "T"}),
}
"""Theory cases on which a Rao-Blackwell estimator's stationary mean is checked against P(x | e) exactly."""


def assert_tempered_transitions(net, hot_plan, uniform: str, beta: float = 0.3, n_steps: int = 30_000) -> None:
    """A chain over ``hot_plan`` (the plan tempered at ``beta``) makes the exact transitions of prune sampling on
    the CPTs raised to ``beta`` (chi-square at :data:`CHI2_LEVEL`), and the test tells them from the untempered ones."""
    from prunelab.samplers.prune import sampler as prune
    from prunelab.theory import prune_transition_matrix, transition_chi_square

    states, R = prune_transition_matrix(net._replace(cpt=net.cpt**beta))
    index = {tuple(s): a for a, s in enumerate(states.tolist())}
    draws = prune.run_chain(np.random.default_rng(11), net, states[0], n_steps, uniform, plan=hot_plan).draws
    visits = np.array([index[tuple(x)] for x in draws.tolist()])
    counts = np.zeros_like(R)
    np.add.at(counts, (visits[:-1], visits[1:]), 1)
    assert transition_chi_square(counts, R).p_value > CHI2_LEVEL
    cold = prune_transition_matrix(net)[1]
    assert transition_chi_square(counts, cold).p_value < 1e-12  # the test tells the temperatures apart


def rao_blackwell_agreement(result, exact: dict, burn: int, n_draws: int) -> tuple[float, dict]:
    """Largest z-score (:func:`pooled_errors`) of the chains' estimates after ``burn`` against ``exact``, over both
    estimators, and the summed spread between chains of each estimator (``"empirical"``, ``"rao_blackwell"``)."""
    kept = n_draws - burn
    z, spread = [], {}
    for estimator in ("empirical", "rao_blackwell"):
        spread[estimator] = 0.0
        for v, p in exact.items():
            running = result.running_marginals(v, [burn, n_draws], estimator)
            per_chain = (running[:, 1, :] * n_draws - running[:, 0, :] * burn) / kept
            off = np.abs(per_chain.mean(axis=0) - p) > 1e-12  # a determined variable's rounding is no error
            z.append(np.where(off, pooled_errors(per_chain, p, kept), 0.0))
            spread[estimator] += float(per_chain.std(axis=0, ddof=1).sum())
    return float(np.max(np.concatenate(z))), spread


RARE_STATE_P_ESS = 5.0
"""``min(p, 1 - p) * ESS`` below which :func:`marginal_interval` leaves the normal tolerance for the visit count."""


def compound_poisson_quantiles(rate: float, tail: float) -> tuple[float, float]:
    """Lower and upper ``tail`` quantiles of ``Q = E_1 + ... + E_K``, ``K ~ Poisson(rate)``, ``E_j ~ Exp(1)``."""
    from scipy import optimize, special, stats

    if rate == 0:
        return 0.0, 0.0
    k = np.arange(1, int(rate + 20.0 * np.sqrt(rate) + 60.0))  # P(K beyond it) < 1e-30 for the rates used (< 2 RARE_STATE_P_ESS)
    pmf = stats.poisson.pmf(k, rate)
    above = lambda q: float(pmf @ special.gammaincc(k, q)) - tail  # noqa: E731  P(Q > q) - tail
    below = lambda q: np.exp(-rate) + float(pmf @ special.gammainc(k, q)) - tail  # noqa: E731  P(Q <= q) - tail
    far = rate + 10.0 * np.sqrt(2.0 * rate) + 50.0  # P(Q > far) is far below any tail used here
    high = optimize.brentq(above, 0.0, far, xtol=1e-12)
    low = 0.0 if np.exp(-rate) >= tail else optimize.brentq(below, 0.0, far, xtol=1e-12)
    return low, high


def marginal_interval(p: float, ess: float, n_draws: int) -> tuple[float, float]:
    """Where a chain's frequency of a state with probability ``p`` may fall: ``(low, high)``.

    Common states (``min(p, 1 - p) * ESS >= RARE_STATE_P_ESS``): ``p -+ Z_TOLERANCE sqrt(p (1 - p) / ESS)``, the
    normal approximation (:data:`Z_TOLERANCE`).

    Rare states: the normal approximation needs many visits, and a state with ``p * ESS`` of order one is visited a
    few times or not at all; one visit of ``L`` draws moves the frequency by ``L / N`` (``N = n_draws``, all chains),
    far beyond ``Z sqrt(p / ESS)`` when ``p * ESS << 1``. Count visits instead. A rare state is entered at
    about ``p N / L`` independent times (a return takes much longer than a mixing time), so the number of
    visits is ``K ~ Poisson(lambda = p N / L)``; a stay ends with about the same chance every draw (the two-state
    chain behind the ESS), so its length is about ``L E`` with ``E ~ Exp(1)`` (geometric, variance ``L^2 - L``,
    taken as ``L^2``: wider). Then ``p_hat = (L / N) Q`` with ``Q = E_1 + ... + E_K`` compound Poisson, mean
    ``lambda`` and variance ``2 lambda``: ``Var(p_hat) = 2 p L / N``, the normal tolerance's ``p / ESS`` again, as
    for that two-state chain ``N / ESS = tau = 2 L - 1``, so ``L = (N / ESS + 1) / 2`` and ``lambda ~ 2 p ESS``. The
    interval is ``(L / N)`` times the quantiles of ``Q`` at the normal tolerance's two-sided level
    ``2 Phi(-Z_TOLERANCE) = 6.8e-6`` (half per side); ``low`` is 0 while ``P(K = 0) = exp(-lambda)`` exceeds half the
    level. The ESS is the variable's smallest over its states (:func:`effective_sample_size`), so ``L`` is at least
    the rare state's own mean stay; a longer ``L`` means fewer, longer visits and a wider interval. A state with
    ``1 - p`` rare is the complement of a rare event: the same interval for ``1 - p_hat``, mirrored.

    Examples
    --------
    >>> low, high = marginal_interval(1.2e-5, 1700.0, 30_000)  # a visit moves the estimate by ~ 9 / 30,000
    >>> low, round(high, 4)
    (0.0, 0.003)
    >>> marginal_interval(0.3, 1e4, 40_000) == (0.3 - 4.5 * np.sqrt(0.21 / 1e4), 0.3 + 4.5 * np.sqrt(0.21 / 1e4))
    True
    """
    from scipy import stats

    rare = min(p, 1.0 - p)
    if rare * ess >= RARE_STATE_P_ESS:
        half_width = Z_TOLERANCE * np.sqrt(p * (1.0 - p) / ess)
        return p - half_width, p + half_width
    stay = (n_draws / ess + 1.0) / 2.0
    q_low, q_high = compound_poisson_quantiles(rare * n_draws / stay, float(stats.norm.sf(Z_TOLERANCE)))
    low, high = q_low * stay / n_draws, q_high * stay / n_draws
    return (low, high) if p <= 0.5 else (1.0 - high, 1.0 - low)
