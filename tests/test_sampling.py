"""The front door ``sample``: seeds, parallel chains, backends, the result object."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from prunelab import EvidenceError, load_evidence, load_network
from prunelab.samplers import available_methods, get_method, register_method
from prunelab.samplers.init import InfeasibleStateError
from prunelab.sampling import SampleResult, default_checkpoints, sample

METHODS = ["gibbs", "metropolis"]


def assert_same_result(a: SampleResult, b: SampleResult) -> None:
    np.testing.assert_array_equal(a.draws, b.draws)
    np.testing.assert_array_equal(a.initial_states, b.initial_states)
    assert a.init_methods == b.init_methods
    if a.rb_sums is None:
        assert b.rb_sums is None
    else:
        np.testing.assert_array_equal(a.rb_checkpoints, b.rb_checkpoints)
        np.testing.assert_allclose(a.rb_sums, b.rb_sums, rtol=1e-13, atol=0)
    assert a.stats.keys() == b.stats.keys()
    for k in a.stats:
        np.testing.assert_array_equal(a.stats[k], b.stats[k])


@pytest.mark.parametrize("method", METHODS)
def test_same_draws_for_any_n_jobs(method):
    bn = load_network("alarm")
    evidence = load_evidence("alarm")
    serial = sample(bn, method, 500, n_chains=3, evidence=evidence, seed=99, n_jobs=1)
    parallel = sample(bn, method, 500, n_chains=3, evidence=evidence, seed=99, n_jobs=2)
    assert_same_result(serial, parallel)
    assert not np.array_equal(serial.draws[0], serial.draws[1])  # chains are independent streams


@pytest.mark.parametrize("method", METHODS)
def test_numpy_backend_equals_numba_backend(method):
    bn = load_network("asia")
    evidence = load_evidence("asia")
    kw = dict(n_chains=2, evidence=evidence, seed=7, init="random_forward")
    fast = sample(bn, method, 300, backend="numba", **kw)
    slow = sample(bn, method, 300, backend="numpy", **kw)
    assert_same_result(fast, slow)
    assert fast.backend == "numba" and slow.backend == "numpy"


def test_seeds_reproduce_and_differ():
    bn = load_network("blood_pressure")
    a = sample(bn, "gibbs", 200, n_chains=2, seed=1)
    b = sample(bn, "gibbs", 200, n_chains=2, seed=1)
    c = sample(bn, "gibbs", 200, n_chains=2, seed=2)
    assert_same_result(a, b)
    assert not np.array_equal(a.draws, c.draws)
    d = sample(bn, "gibbs", 200, n_chains=2)  # fresh entropy, recorded
    e = sample(bn, "gibbs", 200, n_chains=2, seed=d.seed_entropy)
    assert_same_result(d, e)
    ss = np.random.SeedSequence(5)
    f = sample(bn, "gibbs", 50, seed=ss)
    g = sample(bn, "gibbs", 50, seed=ss)  # the caller's SeedSequence is not advanced
    assert_same_result(f, g)
    # chain c of a run does not depend on how many chains there are
    h = sample(bn, "gibbs", 200, n_chains=3, seed=1)
    np.testing.assert_array_equal(h.draws[:2], a.draws)


def test_result_layout():
    bn = load_network("asia")
    evidence = {"either": "yes", "xray": "yes"}
    # either=yes: tub and lung trap Metropolis (see test_gibbs_metropolis); recorded, not warned
    result = sample(bn, "metropolis", 100, n_chains=2, evidence=evidence, seed=3, traps="record")
    assert result.draws.shape == (2, 100, 8) and result.draws.dtype == np.int8
    assert result.variables == bn.variables
    assert result.evidence == evidence
    assert result.free_variables == tuple(v for v in bn.variables if v not in evidence)
    for v, s in evidence.items():
        assert np.all(result.draws[:, :, bn.index(v)] == bn.state_index(v, s))
    assert result.initial_states.shape == (2, 8)
    assert result.init_seconds.shape == result.sample_seconds.shape == (2,)
    assert np.all(result.sample_seconds > 0) and np.all(result.init_seconds > 0)
    assert result.stats["n_accepted"].shape == (2, 100)
    assert result.rb_sums is None and result.rb_checkpoints is None
    assert result.init_methods == ("forward", "forward")
    assert "metropolis" in repr(result)
    with pytest.raises(AttributeError):
        result.method = "gibbs"  # frozen


def test_running_marginals_by_hand():
    bn = load_network("deterministic_pair")
    # chain 0 is trapped at (0, 0), chain 1 at (1, 1)
    result = sample(bn, "gibbs", 10, n_chains=2, init=[{"A": "0", "B": "0"}, {"A": "1", "B": "1"}], seed=0,
                    traps="record")
    emp = result.running_marginals("B", checkpoints=[1, 10])
    np.testing.assert_array_equal(emp, [[[1, 0], [1, 0]], [[0, 1], [0, 1]]])
    rb = result.running_marginals("A", estimator="rao_blackwell")
    np.testing.assert_array_equal(rb[0], np.tile([1.0, 0.0], (len(result.rb_checkpoints), 1)))
    np.testing.assert_array_equal(result.marginals()["A"], [0.5, 0.5])
    np.testing.assert_array_equal(result.marginals("rao_blackwell")["B"], [0.5, 0.5])


def test_running_marginals_empirical_matches_cumulative_counts():
    bn = load_network("blood_pressure")
    result = sample(bn, "metropolis", 400, n_chains=2, seed=8)
    column = result.draws[:, :, bn.index("Sports")]
    full = result.running_marginals("Sports")
    assert full.shape == (2, 400, 2)
    t = np.arange(1, 401)
    np.testing.assert_allclose(full[:, :, 1], np.cumsum(column == 1, axis=1) / t)
    np.testing.assert_allclose(full.sum(axis=2), 1.0)


def test_rao_blackwell_checkpoints():
    bn = load_network("blood_pressure")
    cps = np.array([5, 10, 40])
    result = sample(bn, "gibbs", 40, n_chains=2, evidence={"Measurement": "m_n"}, seed=9, rb_checkpoints=cps)
    np.testing.assert_array_equal(result.rb_checkpoints, cps)
    assert result.rb_sums.shape == (2, 3, 10)
    rb = result.running_marginals("Kidney", estimator="rao_blackwell")
    np.testing.assert_allclose(rb.sum(axis=2), 1.0)
    np.testing.assert_array_equal(result.running_marginals("Kidney", [10], "rao_blackwell"), rb[:, 1:2])
    with pytest.raises(ValueError, match="recorded checkpoints"):
        result.running_marginals("Kidney", [7], "rao_blackwell")
    with pytest.raises(ValueError, match="1..40"):
        result.running_marginals("Kidney", [41])
    evidence_block = result.running_marginals("Measurement", estimator="rao_blackwell")
    np.testing.assert_array_equal(evidence_block[..., 0], 1.0)
    default = sample(bn, "gibbs", 1000, seed=9)
    np.testing.assert_array_equal(default.rb_checkpoints, default_checkpoints(1000))
    assert default.rb_checkpoints[-1] == 1000 and default.rb_checkpoints[0] == 1
    metro = sample(bn, "metropolis", 10, seed=9)
    with pytest.raises(ValueError, match="no Rao-Blackwell"):
        metro.running_marginals("Kidney", estimator="rao_blackwell")
    with pytest.raises(ValueError, match="no Rao-Blackwell"):
        sample(bn, "metropolis", 10, seed=9, rb_checkpoints=[5])
    with pytest.raises(ValueError, match="increase strictly"):
        sample(bn, "gibbs", 10, seed=9, rb_checkpoints=[5, 5])


def test_explicit_init_and_its_errors():
    bn = load_network("deterministic_pair")
    one = sample(bn, "gibbs", 5, n_chains=2, init={"A": "1", "B": "1"}, seed=0, traps="off")
    assert one.init_methods == ("given", "given")
    np.testing.assert_array_equal(one.initial_states, [[1, 1], [1, 1]])
    with pytest.raises(InfeasibleStateError, match=r"\{A=0, B=1\}"):
        sample(bn, "gibbs", 5, init={"A": "0", "B": "1"})
    with pytest.raises(InfeasibleStateError, match=r"\{A=1, B=0\}"):
        sample(bn, "metropolis", 5, n_chains=2, init=np.array([[0, 0], [1, 0]]))
    with pytest.raises(ValueError, match="3 start states for 2 chains"):
        sample(bn, "gibbs", 5, n_chains=2, init=[[0, 0], [1, 1], [0, 0]])
    with pytest.raises(EvidenceError, match="disagrees"):
        sample(bn, "gibbs", 5, evidence={"B": "1"}, init=[0, 0])
    with pytest.raises(ValueError, match="unknown init"):
        sample(bn, "gibbs", 5, init="backward")


def test_init_methods_and_impossible_evidence():
    bn = load_network("asia")
    for init in ("forward", "random_forward", "hybrid"):
        result = sample(bn, "gibbs", 20, n_chains=2, evidence={"either": "yes"}, init=init, init_p=0.2, seed=1)
        assert result.init_methods == (init, init)
    with pytest.raises(EvidenceError, match="tub=yes, either=no"):
        sample(bn, "gibbs", 20, evidence={"tub": "yes", "either": "no"}, seed=1)


def test_argument_errors():
    bn = load_network("asia")
    with pytest.raises(ValueError, match="unknown sampling method 'hmc'"):
        sample(bn, "hmc", 10)
    with pytest.raises(ValueError, match="backend"):
        sample(bn, "gibbs", 10, backend="jax")
    with pytest.raises(ValueError, match="n_samples >= 1"):
        sample(bn, "gibbs", 0)
    with pytest.raises(TypeError, match="BayesianNetwork"):
        sample("asia", "gibbs", 10)
    with pytest.raises(TypeError):
        sample(bn, "gibbs", 10, thinning=2)  # unknown options reach the kernel, which refuses them


def test_progress_bar_runs(capsys):
    result = sample(load_network("asia"), "prune", 10, n_chains=2, progress=True, seed=0)
    assert result.n_chains == 2
    assert "prune chains" in capsys.readouterr().err


def test_registry(monkeypatch):
    import prunelab.samplers as samplers

    monkeypatch.setattr(samplers, "_METHODS", dict(samplers._METHODS))  # undone after the test
    assert {"gibbs", "metropolis"} <= set(available_methods())
    register_method("gibbs-alias", "prunelab.samplers.gibbs")
    bn = load_network("blood_pressure")
    a = sample(bn, "gibbs-alias", 30, seed=4)
    b = sample(bn, "gibbs", 30, seed=4)
    np.testing.assert_array_equal(a.draws, b.draws)
    register_method("broken", "prunelab.samplers.no_such_module")
    with pytest.raises(ValueError, match="cannot be imported"):
        get_method("broken")
    assert "broken" not in available_methods()
    with pytest.raises(ValueError, match="lacks"):
        register_method("not-a-sampler", np)


@pytest.mark.skipif(
    importlib.util.find_spec("prunelab.samplers.prune") is None, reason="prune sampler not written yet"
)
def test_prune_dispatches_through_the_same_door():
    bn = load_network("deterministic_pair")
    result = sample(bn, "prune", 400, n_chains=2, init=[[0, 0], [1, 1]], seed=1)
    assert result.draws.shape == (2, 400, 2)
    # prune sampling leaves the trap that holds Gibbs (paper, Figure 3)
    assert (result.draws[0] == 1).any() and (result.draws[1] == 0).any()
