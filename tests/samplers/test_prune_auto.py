"""``uniform="auto"`` chooses between the counting plan and the circuit by their cost per step.

The rule (:func:`prunelab.samplers.prune.sampler.auto_choice`): the circuit where its size times
``CIRCUIT_UNITS_PER_ELEMENT`` is below the counting plan's work per step, its compilation capped at that
break-even. Each side is forced here on a network where it must win, and the draws ``"auto"`` then makes are
checked to be the chosen method's own, draw for draw (whose exactness their own tests prove), with ``|S|`` equal to
the counting plan's on every step.
"""

import numpy as np
import pytest

from prunelab import load_network, make_grid
from prunelab.circuit import CircuitTooLargeError, circuit_for, inference
from prunelab.compiled import compile_network
from prunelab.samplers.prune import sampler as prune, plan as prune_plans
from prunelab.samplers.prune.draws import registry as pruned_draws
from prunelab.samplers.init import initial_state

CIRCUIT_WINS = (16, 0.9, 1)
"""A Sang-Beame-Kautz grid (side, determinism, seed) whose counting plan visits 12.4 times more entries per step than
its circuit holds elements; measured 16 times faster per step with the circuit."""


def test_auto_keeps_the_tables_where_they_are_cheaper(rng):
    """asia and alarm: circuits of 445 and 46,327 elements against counts of 136 and 3,188 units."""
    for name in ("asia", "alarm"):
        net = compile_network(load_network(name))
        assert prune.auto_choice(net) == "auto"
        out = prune.run_chain(rng, net, initial_state(rng, net), 20)
        assert {prune.UNIFORM_NAMES[c] for c in out.uniform_code} <= {"count", "enumerate"}


def test_the_compile_is_capped_at_the_break_even(monkeypatch):
    """No compile where even a one-element-per-label circuit loses; otherwise one capped at the break-even size."""
    asked = []

    def spy(net, *, max_seconds, max_size, vtree):
        asked.append(max_size)
        raise CircuitTooLargeError("spy")

    monkeypatch.setattr(inference, "circuit_for", spy)
    net = compile_network(load_network("asia"))
    units_per_element = pruned_draws.CIRCUIT_UNITS_PER_ELEMENT
    assert pruned_draws.circuit_plan_if_cheaper(net, 10_000, 10) is None
    assert asked == [int(10_000 / units_per_element)]
    assert pruned_draws.circuit_plan_if_cheaper(net, int(units_per_element * 10) - 1, 10) is None
    assert len(asked) == 1  # below the lower bound: nothing compiled


@pytest.fixture(scope="module")
def grid_net():
    side, determinism, seed = CIRCUIT_WINS
    return compile_network(make_grid(side, determinism, seed=seed))


def test_auto_turns_to_the_circuit_where_it_is_cheaper(grid_net, rng):
    plan = prune_plans.prune_plan(grid_net)
    size = circuit_for(grid_net).size
    assert plan.count_units > 1.5 * pruned_draws.CIRCUIT_UNITS_PER_ELEMENT * size  # a clear case, not a near tie
    assert prune.auto_choice(grid_net) == "circuit"
    x0 = initial_state(rng, grid_net, "random_forward")
    # equal seeds below: "auto", "circuit" and one step are compared
    auto = prune.run_chain(np.random.default_rng(5), grid_net, x0, 60)
    circuit = prune.run_chain(np.random.default_rng(5), grid_net, x0, 60, "circuit")
    assert np.array_equal(auto.draws, circuit.draws)
    assert set(auto.uniform_code.tolist()) == {prune.UNIFORM_NAMES.index("circuit")}
    state, info = prune.step(np.random.default_rng(5), grid_net, prune.init(grid_net, x0))
    assert info.uniform_name == "circuit" and np.array_equal(state.x, auto.draws[0])


def test_auto_circuit_steps_count_the_pruned_set_exactly(grid_net, rng):
    """From each state of a chain, one step of ``"auto"`` (circuit) and of ``"count"`` with the same seed prune
    alike (same random labels, same numbers) and must find the same ``|S|``."""
    x0 = initial_state(rng, grid_net, "random_forward")
    states = prune.run_chain(rng, grid_net, x0, 30, "count").draws
    for t, x in enumerate(states):
        auto = prune.run_chain(np.random.default_rng([t, 9]), grid_net, x, 1)
        count = prune.run_chain(np.random.default_rng([t, 9]), grid_net, x, 1, "count")
        assert auto.size[0] == pytest.approx(count.size[0], rel=1e-9)
