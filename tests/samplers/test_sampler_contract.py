"""The sampler contract of :mod:`prunelab.samplers`, checked once for every registered sampler.

A sampler added to the registry is tested here without a test file of its own:
``init`` checks its start; ``step`` (numpy reference) and ``run_chain`` (numba) give
the same draws for one seed, with per-draw statistics named like ``Info``'s fields;
draws have the compiled network's shape, keep the evidence and stay feasible; bad
starts are refused with a message that says what is wrong.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_network
from prunelab.compiled import compile_network, draw_dtype, state_labels
from prunelab.network import EvidenceError
from prunelab.samplers import REQUIRED_ATTRIBUTES, available_samplers, get_sampler
from prunelab.samplers.init import initial_state
from prunelab.samplers.chain import InfeasibleStateError
from tests.conftest import TEST_SEED

SAMPLERS = available_samplers()
CASES = {
    "pair": ("deterministic_pair", None),
    "blood_pressure|m_e": ("blood_pressure", {"Measurement": "m_e"}),
    "asia|xray,dysp": ("asia", {"xray": "yes", "dysp": "no"}),
    "block_chain": ("block_chain", None),
}
N_DRAWS = 40


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def case(request):
    name, evidence = CASES[request.param]
    bn = load_network(name)
    net = compile_network(bn, evidence)
    x0 = initial_state(np.random.default_rng(TEST_SEED), net)  # module-scoped: the rng fixture is per test
    return bn, evidence, net, x0


def _feasible(net, draws) -> bool:
    """Every draw agrees with the evidence and uses only CPT entries above zero."""
    return bool((net.cpt[state_labels(net, draws)] > 0).all())


def test_every_registered_sampler_is_listed():
    assert {"gibbs", "metropolis", "prune"} <= set(SAMPLERS)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_module_defines_the_contract(sampler):
    module = get_sampler(sampler)
    for name in REQUIRED_ATTRIBUTES:
        assert callable(getattr(module, name)), f"{sampler} lacks {name}"


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_init_keeps_a_feasible_start(sampler, case):
    _, _, net, x0 = case
    state = get_sampler(sampler).init(net, x0)
    assert state.x.dtype == np.int64 and state.x.shape == (net.n_variables,)
    np.testing.assert_array_equal(state.x, x0)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_step_and_run_chain_give_the_same_draws(sampler, case):
    """The numpy reference and the numba path consume one seed identically."""
    _, _, net, x0 = case
    module = get_sampler(sampler)
    rng = np.random.default_rng(20240101)  # the same seed as run_chain below: the two are compared
    state, infos, draws = module.init(net, x0), [], []
    for _ in range(N_DRAWS):
        state, info = module.step(rng, net, state)
        draws.append(state.x.copy())
        infos.append(info)
    chain = module.run_chain(np.random.default_rng(20240101), net, x0, N_DRAWS)

    assert chain.draws.shape == (N_DRAWS, net.n_variables) and chain.draws.dtype == draw_dtype(net.cardinality)
    np.testing.assert_array_equal(chain.draws, np.array(draws))
    # per-draw statistics of run_chain are the scalar Info fields of step, draw by draw
    scalar_fields = [f for f in infos[0]._fields if np.ndim(getattr(infos[0], f)) == 0]
    for field in scalar_fields:
        if field in chain._fields:
            np.testing.assert_array_equal(getattr(chain, field), [getattr(i, field) for i in infos], err_msg=field)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_draws_keep_the_evidence_and_stay_feasible(sampler, case, rng):
    _, _, net, x0 = case
    draws = get_sampler(sampler).run_chain(rng, net, x0, 200).draws
    observed = net.evidence_value >= 0
    assert (draws[:, observed] == net.evidence_value[observed]).all()
    assert _feasible(net, draws)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_bad_starts_are_refused_with_a_reason(sampler, rng):
    module = get_sampler(sampler)
    bn = load_network("deterministic_pair")
    net = compile_network(bn)
    with pytest.raises(InfeasibleStateError):
        module.init(net, [0, 1])  # B must copy A: P(x) = 0
    with pytest.raises(InfeasibleStateError):
        module.run_chain(rng, net, [1, 0], 5)
    with pytest.raises(ValueError, match="length|shape|variables"):
        module.init(net, [0, 0, 0])
    with pytest.raises(ValueError, match="state|range|cardinalit"):
        module.init(net, [0, 5])
    observed = compile_network(bn, {"B": bn.states["B"][1]})
    with pytest.raises(EvidenceError):
        module.init(observed, [0, 0])  # B observed in its second state
