"""Naming the circuit's vtree: the same exact answers over every vtree, draws that depend on the vtree named and
the seed only, the winner of a race passed on to a sampler, refusals by name.

The transition matrices of prune sampling over the turned vtree are checked exactly in ``test_circuit.py``
(``test_the_circuit_chain_has_the_exact_prune_transition_matrix``, parametrised by vtree).
"""

import numpy as np
import pytest

from prunelab import load_network, make_grid, sample
from prunelab.circuit import (
    VTREES,
    circuit_for,
    circuit_inference,
    compile_circuit,
    dissection_vtree,
    encode_network,
)
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, log_probability_of_evidence
from prunelab.samplers.prune import sampler as prune, tempered as tempering
from prunelab.samplers.prune.draws import circuit as prune_circuit
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.draws.circuit import compile_circuit_prune_plan
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune.auto import draw_plan
from tests.helpers import LOG_EXACT


CASES = {
    "grid-8": (lambda: make_grid(8, 0.9, seed=2), None),
    "grid-8|e": (lambda: make_grid(8, 0.9, seed=2), {"v_8_8": "T", "v_3_5": "F"}),
    "grid-7-75": (lambda: make_grid(7, 0.75, seed=4), None),
    "asia|dysp": (lambda: load_network("asia"), {"dysp": "yes"}),
}


def _same_vtree(a, b) -> bool:
    return bool(np.array_equal(a.left, b.left) and np.array_equal(a.leaf_boolean, b.leaf_boolean))


@pytest.mark.parametrize("vtree", [*VTREES, "given"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_vtree_answers_as_the_junction_tree(case, vtree):
    make, evidence = CASES[case]
    bn = make()
    net = compile_network(bn, evidence)
    enc = encode_network(net)
    turned = dissection_vtree(net, enc, turn_root=True)
    assert not _same_vtree(turned, dissection_vtree(net, enc))  # the two cuts differ on every case
    circuit = compile_circuit(net, vtree=turned if vtree == "given" else vtree, race=False)
    assert circuit.vtree_name == vtree
    if vtree in ("turned", "given"):
        assert _same_vtree(circuit.vtree, turned)
    log_p, marginals = circuit_inference(bn, net, circuit)
    assert log_p == pytest.approx(log_probability_of_evidence(bn, evidence), abs=LOG_EXACT)
    for v, p in exact_marginals(bn, evidence).items():
        np.testing.assert_allclose(marginals[v], p, atol=LOG_EXACT, rtol=0)


def test_a_race_names_its_winner_and_a_sampler_named_so_draws_over_that_circuit():
    net = compile_network(make_grid(9, 0.9, seed=3))
    raced = circuit_for(net, race=True)
    enc = encode_network(net)
    assert raced.vtree_name in ("dissection", "turned")
    assert _same_vtree(raced.vtree, dissection_vtree(net, enc, turn_root=raced.vtree_name == "turned"))
    assert circuit_for(net, vtree=raced.vtree_name) is raced  # cached under the winner's name: not compiled again
    assert prune_circuit.plan(net, raced.vtree_name).circuit is raced
    assert circuit_for(net, race=True) is raced


def test_the_cache_keeps_vtree_choices_apart():
    net = compile_network(make_grid(7, 0.9, seed=6))
    enc = encode_network(net)
    straight, turned = circuit_for(net), circuit_for(net, vtree="turned")
    assert (straight.vtree_name, turned.vtree_name) == ("dissection", "turned")
    assert not _same_vtree(straight.vtree, turned.vtree)
    assert circuit_for(compile_network(make_grid(7, 0.9, seed=6)), vtree="turned") is turned  # keyed by content
    given = circuit_for(net, vtree=dissection_vtree(net, enc, turn_root=True))
    assert given is not turned and given.vtree_name == "given"
    assert circuit_for(net, vtree=dissection_vtree(net, enc, turn_root=True)) is given  # a Vtree keyed by content
    assert given.size == turned.size and np.array_equal(given.sub, turned.sub)  # one vtree, one canonical diagram


def test_draws_for_a_seed_depend_on_the_vtree_named_and_the_seed_only():
    """``sample`` with ``vtree="turned"`` twice, and a chain over a circuit compiled afresh for that vtree (not
    from the cache), draw identically; the reference step loop draws as the numba chain does."""
    bn = make_grid(8, 0.9, seed=2)
    evidence = {"v_8_8": "T"}
    net = compile_network(bn, evidence)
    first = sample(bn, "prune", 300, evidence=evidence, seed=17, uniform="circuit", vtree="turned", traps="off")
    again = sample(bn, "prune", 300, evidence=evidence, seed=17, uniform="circuit", vtree="turned", traps="off")
    np.testing.assert_array_equal(first.draws, again.draws)
    fresh = compile_circuit_prune_plan(net, compile_circuit(net, vtree="turned", race=False))
    assert fresh.circuit is not circuit_for(net, vtree="turned")
    x0 = initial_state(np.random.default_rng(4), net, "forward")
    named = prune.run_chain(np.random.default_rng(9), net, x0, 200, "circuit", vtree="turned")
    planned = prune.run_chain(np.random.default_rng(9), net, x0, 200, "circuit", plan=fresh)
    np.testing.assert_array_equal(named.draws, planned.draws)
    np.testing.assert_array_equal(named.size, planned.size)
    state, ref = prune.init(net, x0), np.random.default_rng(9)
    for t in range(200):
        state, _ = prune.step(ref, net, state, "circuit", vtree="turned")
        assert np.array_equal(state.x, named.draws[t])
    # the tempered sampler passes the choice on to every replica's circuit draw
    hot = tempering.run_chain(np.random.default_rng(3), net, x0, 50, uniform="circuit", vtree="turned")
    hot_planned = tempering.run_chain(np.random.default_rng(3), net, x0, 50, uniform="circuit", plan=fresh)
    np.testing.assert_array_equal(hot.draws, hot_planned.draws)


def test_auto_draws_over_the_vtree_named():
    net = compile_network(make_grid(16, 0.9, seed=1))  # "auto" turns to the circuit here (test_prune_auto.py)
    code, plan = draw_plan(net, "auto", vtree="turned")
    assert UNIFORM_NAMES[code] == "circuit" and plan.circuit.vtree_name == "turned"


def test_bad_vtree_choices_are_refused_by_name():
    bn = make_grid(5, 0.9, seed=1)
    net = compile_network(bn)
    with pytest.raises(ValueError, match="'metis'"):
        compile_circuit(net, vtree="metis")
    with pytest.raises(TypeError, match="got a int"):
        compile_circuit(net, vtree=3)
    other = compile_network(make_grid(4, 0.9, seed=1))
    with pytest.raises(ValueError, match="leaves, not one for each of the .* Booleans"):
        compile_circuit(net, vtree=dissection_vtree(other, encode_network(other)))
    with pytest.raises(ValueError, match="race=True races the dissection .* vtree='turned'"):
        circuit_for(net, race=True, vtree="turned")
    with pytest.raises(ValueError, match="'Turned'"):
        sample(bn, "prune", 5, seed=1, uniform="circuit", vtree="Turned", traps="off")
    with pytest.raises(ValueError, match="uniform='count' does not draw over"):
        sample(bn, "prune", 5, seed=1, uniform="count", vtree="turned", traps="off")
    x0 = initial_state(np.random.default_rng(0), net, "forward")
    with pytest.raises(ValueError, match="not both"):
        prune.run_chain(np.random.default_rng(0), net, x0, 5, "circuit", plan=prune_circuit.plan(net), vtree="turned")
    with pytest.raises(TypeError, match="a sampler's vtree= is a name"):
        prune.run_chain(np.random.default_rng(0), net, x0, 5, "circuit", vtree=dissection_vtree(net, encode_network(net)))
    with pytest.raises(ValueError, match="uniform='circuit-per-step' does not draw over"):
        prune.run_chain(np.random.default_rng(0), net, x0, 5, "circuit-per-step", vtree="turned")
    with pytest.raises(ValueError, match="'diagonal'"):
        tempering.run_chain(np.random.default_rng(0), net, x0, 5, uniform="circuit", vtree="diagonal")
