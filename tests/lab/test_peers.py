"""Peer adapters (pgmpy, pyAgrum, PyMC); the comparison experiment is tested in ``test_peers_comparison.py``.

The adapters must hand the peers the same model: pyAgrum's exact inference and
PyMC's log-density are checked against prunelab's. The PyMC ``proportional``
tests are built to FAIL IF PyMC WERE RIGHT: their thresholds bound what a correct
chain could produce.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from prunelab import BayesianNetwork, load_evidence, load_network
from prunelab.lab import peers
from prunelab.indicators import mean_hellinger_over_variables
from prunelab.lab.peers.run import cache_key
from prunelab.exact import exact_marginals

EXACT_AGREEMENT = 1e-9
"""pyAgrum's LazyPropagation vs prunelab's junction tree (different summation orders)."""

FALSE_ALARM = 1e-6
"""Chance that a test of a correct sampler fails (the chi-square tail used below)."""

CASES = [("asia", False), ("asia", True), ("grid-3x3", False)]


def _case(name, with_evidence):
    bn = load_network(name)
    return bn, (load_evidence(name) if with_evidence else None)


# --------------------------------------------------------------------------- pyAgrum
@pytest.mark.parametrize(("name", "with_evidence"), CASES)
def test_pyagrum_exact_inference_equals_prunelab(name, with_evidence):
    pytest.importorskip("pyagrum")
    bn, evidence = _case(name, with_evidence)
    ours = exact_marginals(bn, evidence)
    theirs = peers.pyagrum_exact_marginals(bn, evidence)
    assert list(theirs) == list(ours)
    for v in ours:
        np.testing.assert_allclose(theirs[v], ours[v], atol=EXACT_AGREEMENT, rtol=0)


@pytest.mark.parametrize("name", ["asia", "grid-3x3", "blood_pressure"])
def test_pyagrum_cpt_entries_by_name(name):
    """Every entry, looked up by variable and state names, is prunelab's (not only the marginals)."""
    pytest.importorskip("pyagrum")
    bn = load_network(name)
    net = peers.to_pyagrum(bn)
    for v in bn.variables:
        table = net.cpt(v)
        for index in np.ndindex(bn.cpts[v].shape):
            names = [*bn.parents[v], v]
            where = {n: bn.states[n][i] for n, i in zip(names, index)}
            assert table[where] == bn.cpts[v][index]


def test_pyagrum_fixed_sweeps_do_not_stop_early():
    """Epsilon rules off: a trapped chain (deterministic_pair) still runs every sweep asked for."""
    pytest.importorskip("pyagrum")
    bn = load_network("deterministic_pair")
    run = peers.run_pyagrum_gibbs(bn, n_steps=1500, seed=3)
    assert run.status == "ok" and run.n_steps == 1500
    assert "max iteration" in run.note


def test_pyagrum_default_rule_declares_a_trapped_chain_converged():
    """The default rule ignores autocorrelation: B = A stays put, and pyAgrum stops, sure of a wrong answer."""
    pytest.importorskip("pyagrum")
    bn = load_network("deterministic_pair")
    run = peers.pyagrum_default_gibbs(bn, seed=5)
    assert "epsilon" in run.note
    assert sorted(run.marginals["A"].tolist()) == [0.0, 1.0]  # the truth is (0.5, 0.5)
    assert run.mean_hellinger(exact_marginals(bn)) > 0.5


# --------------------------------------------------------------------------- pgmpy
def test_pgmpy_size_guard_refuses_alarm():
    bn = load_network("alarm")
    with pytest.raises(peers.PeerNotBuilt, match=r"not built: 2\^"):
        peers.to_pgmpy_gibbs(bn)
    run = peers.run_pgmpy_gibbs(bn, n_steps=10, seed=0)
    assert run.status == "not built" and "2^" in run.note


def test_pgmpy_state_count_is_exact():
    assert peers.joint_state_count(load_network("grid-8x8")) == 2**64
    assert peers.describe_state_count(peers.joint_state_count(load_network("win95pts"))) == "2^76"


def test_pgmpy_with_evidence_samples_the_posterior():
    """Evidence enters through reduced factors; 1000 sweeps land near the exact posterior."""
    bn, evidence = _case("asia", True)
    run = peers.run_pgmpy_gibbs(bn, evidence, n_steps=1000, seed=11)
    assert run.status == "ok" and run.n_steps == 1000
    assert set(run.marginals) == set(exact_marginals(bn, evidence))
    assert run.mean_hellinger(exact_marginals(bn, evidence)) < 0.05


def test_pgmpy_nan_rows_on_determinism():
    import pgmpy.sampling  # noqa: F401 - first, so its import-time FutureWarning meets pyproject's filter

    with pytest.warns(RuntimeWarning, match="invalid value"):  # pgmpy divides 0 by 0 while building
        gibbs = peers.to_pgmpy_gibbs(load_network("asia"))
    nan, total = peers.pgmpy_nan_rows(gibbs)
    assert total == 8 * 2**7 and nan > 0


def _global_state():
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return kind, keys.tolist(), pos, has_gauss, cached


@pytest.mark.parametrize(("runner", "name"), [("run_pgmpy_gibbs", "deterministic_pair"),
                                             ("pgmpy_random_start", "grid-3x3")])
def test_pgmpy_gives_numpy_global_generator_back(runner, name):
    """pgmpy draws from numpy's global generator: seeded for the run, the caller's state restored after it.

    On grid-3x3 pgmpy's own random start is often infeasible, so ``pgmpy_random_start``
    over three seeds also takes the path where pgmpy raises.
    """
    bn = load_network(name)
    statuses = set()
    for seed in range(3):
        np.random.random(seed + 1)  # the caller's stream, somewhere
        before = _global_state()
        run = getattr(peers, runner)(bn, n_steps=20, seed=seed)
        statuses.add(run.status)
        assert _global_state() == before
    assert statuses == ({"ok"} if runner == "run_pgmpy_gibbs" else {"ok", "crashed"})


def test_pgmpy_draws_follow_the_seed_not_the_callers_global_state():
    bn, evidence = _case("asia", True)
    runs = []
    for advance in (1, 1000):
        np.random.random(advance)  # two different global states before the call
        runs.append(peers.run_pgmpy_gibbs(bn, evidence, n_steps=200, seed=8))
    for v in runs[0].marginals:
        np.testing.assert_array_equal(runs[0].marginals[v], runs[1].marginals[v])
    assert runs[0].move_rate == runs[1].move_rate


@pytest.mark.parametrize(("n_steps", "seconds", "match"), [
    (None, None, "exactly one of n_steps and seconds"),
    (10, 1.0, "exactly one of n_steps and seconds"),
    (0, None, "n_steps must be >= 1, got 0"),
    (None, -1.0, "seconds must be > 0, got -1.0"),
])
@pytest.mark.parametrize("sampler", ["prunelab-gibbs", "pgmpy-gibbs", "pymc-cgm-uniform", "pyagrum-gibbs"])
def test_runners_refuse_a_bad_budget_before_building(sampler, n_steps, seconds, match):
    bn = load_network("deterministic_pair")
    with pytest.raises(ValueError, match=match):
        peers.run_sampler(sampler, bn, n_steps=n_steps, seconds=seconds, seed=0)


# --------------------------------------------------------------------------- PyMC model
def test_pymc_logp_equals_log_probability(rng):
    bn = load_network("asia")
    model = peers.to_pymc(bn)
    logp = model.compile_logp()
    states = [rng.integers(0, 2, size=bn.n_variables) for _ in range(6)]
    states.append(peers.start_state(bn, seed=1))
    expected = np.array([bn.log_probability(x) for x in states])
    got = np.array([float(logp({v: np.int64(x[i]) for i, v in enumerate(bn.variables)})) for x in states])
    assert np.isinf(expected).any() and np.isfinite(expected).any()  # both kinds are checked
    np.testing.assert_array_equal(np.isneginf(got), np.isneginf(expected))
    np.testing.assert_allclose(got[np.isfinite(expected)], expected[np.isfinite(expected)], atol=1e-12, rtol=0)


def test_pymc_logp_with_evidence_and_out_of_range_parent():
    bn, evidence = _case("asia", True)
    model = peers.to_pymc(bn, evidence)
    logp = model.compile_logp()
    x = peers.start_state(bn, evidence, seed=2)
    point = {v.name: np.int64(x[bn.index(v.name)]) for v in model.free_RVs}
    assert float(logp(point)) == pytest.approx(bn.log_probability(x), abs=1e-12)
    point["smoke"] = np.int64(2)  # what a rounded Metropolis step can propose: -inf, not IndexError
    assert float(logp(point)) == -np.inf


# --------------------------------------------------------------------------- PyMC proportional proposal
N_DRAWS = 5000
"""Draws per PyMC chain below: the bug's chi-square is ~0.064 N = 320; a correct chain stays below
27.6 (Liu's kernel, no positive eigenvalue) or 38.7 (the uniform control) but with chance 1e-6."""


def _uniform_metropolis_kernel(p):
    """PyMC's proposal="uniform": another category uniformly, accepted with min(1, p_j / p_i)."""
    p = np.asarray(p, float)
    k = p.size
    kernel = np.array([[0.0 if i == j else min(1.0, p[j] / p[i]) / (k - 1) for j in range(k)] for i in range(k)])
    kernel[np.diag_indices(k)] = 1.0 - kernel.sum(axis=1)
    return kernel


def _chi_square_threshold(kernel, k):
    """What a correct chain's Pearson statistic stays below, but with chance FALSE_ALARM.

    For a reversible chain with second-largest eigenvalue ``lambda``, the asymptotic
    covariance of the frequencies is at most ``(1 + lambda) / (1 - lambda)`` times the
    multinomial one, so ``X^2`` is at most that factor times a chi-square with
    ``k - 1`` degrees of freedom.
    """
    eigenvalues = np.sort(np.real(np.linalg.eigvals(kernel)))
    second = max(eigenvalues[-2], 0.0)
    inflation = (1.0 + second) / (1.0 - second)
    return inflation * stats.chi2.ppf(1.0 - FALSE_ALARM, df=k - 1)


def _pearson(frequencies, p, n):
    p = np.asarray(p, float)
    return float(n * np.sum((np.asarray(frequencies) - p) ** 2 / p))


# The binary case divides by zero inside PyMC (the bug itself); filter only that message.
@pytest.mark.filterwarnings("ignore:divide by zero encountered in scalar divide:RuntimeWarning")
def test_pymc_proportional_never_moves_on_two_categories():
    """Would fail if PyMC were right: a correct chain on (0.5, 0.5) stays in one state with chance 2^-5000."""
    draws = peers.pymc_categorical_draws([0.5, 0.5], n_draws=N_DRAWS, proposal="proportional", seed=1)
    assert np.all(draws == draws[0])
    _, stationary = peers.metropolized_gibbs_as_coded([0.5, 0.5])
    assert peers.metropolized_gibbs_as_coded([0.5, 0.5])[0].tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert stationary.max() == 1.0


def test_pymc_proportional_targets_the_wrong_distribution():
    """Would fail if PyMC were right: the chi-square against p far exceeds any correct chain's."""
    p = [0.6, 0.3, 0.1]
    frequencies = peers.pymc_categorical_frequencies(p, n_draws=N_DRAWS, proposal="proportional", seed=2)
    liu, liu_stationary = peers.metropolized_gibbs_liu(p)
    np.testing.assert_allclose(liu_stationary, p, atol=1e-12)  # the intended kernel is right
    threshold = _chi_square_threshold(liu, len(p))
    assert _pearson(frequencies, p, N_DRAWS) > threshold
    # ... and the draws follow the kernel as coded: about (0.48, 0.41, 0.11)
    as_coded, stationary = peers.metropolized_gibbs_as_coded(p)
    assert _pearson(frequencies, stationary, N_DRAWS) < _chi_square_threshold(as_coded, len(p))


def test_pymc_uniform_proposal_is_right():
    """The control: the same model with proposal="uniform" passes the same kind of test."""
    p = [0.6, 0.3, 0.1]
    frequencies = peers.pymc_categorical_frequencies(p, n_draws=N_DRAWS, proposal="uniform", seed=3)
    assert _pearson(frequencies, p, N_DRAWS) < _chi_square_threshold(_uniform_metropolis_kernel(p), len(p))


def test_pymc_proportional_crashes_on_a_deterministic_conditional():
    bn = load_network("deterministic_pair")
    run = peers.run_pymc(bn, sampler="pymc-cgm-proportional", n_steps=20, seed=0)
    assert run.status == "crashed" and "NaN" in run.note


# --------------------------------------------------------------------------- runners and the command
@pytest.mark.parametrize("sampler", ["prunelab-gibbs", "prunelab-metropolis", "prunelab-prune", "pgmpy-gibbs"])
def test_runners_report_steps_and_marginals(sampler):
    bn, evidence = _case("asia", True)
    run = peers.run_sampler(sampler, bn, evidence, n_steps=300, seed=4)
    assert run.status == "ok" and run.n_steps == 300
    assert list(run.marginals) == list(exact_marginals(bn, evidence))
    for v, m in run.marginals.items():
        assert m.shape == (len(bn.states[v]),) and math.isclose(m.sum(), 1.0)


def test_budget_is_filled():
    bn = load_network("blood_pressure")
    run = peers.run_sampler("prunelab-gibbs", bn, seconds=0.2, seed=6)
    # a real clock: how much of the budget is used and how many steps fit in it depend on the machine's load;
    # that the loop fills a budget is tested on a fake clock (tests/lab/test_peers_budget.py)
    assert run.status == "ok" and run.seconds > 0 and run.n_steps >= 1


def _coin(p: float) -> BayesianNetwork:
    return BayesianNetwork(states={"A": ["0", "1"]}, parents={}, cpts={"A": [p, 1 - p]}, name="coin")


def test_cache_key_is_the_networks_content_not_its_identity():
    """Equal networks share what a runner built; no other network gets it, even at a reused id."""
    first, equal = _coin(0.5), _coin(0.5)
    assert first is not equal and cache_key("pymc", first, None, "v") == cache_key("pymc", equal, None, "v")
    keys = set()
    for p in (0.1, 0.2, 0.3, 0.4):  # each network dropped before the next: CPython reuses its address
        keys.add(cache_key("pgmpy", _coin(p), None, 1))
    assert len(keys) == 4


def test_mean_hellinger_of_a_run_is_the_mean_over_variables():
    bn, evidence = _case("asia", True)
    run = peers.run_sampler("prunelab-gibbs", bn, evidence, n_steps=50, seed=1)
    exact = exact_marginals(bn, evidence)
    assert run.mean_hellinger(exact) == mean_hellinger_over_variables(run.marginals, exact)
