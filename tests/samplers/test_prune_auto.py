"""``uniform="auto"`` chooses between the counting plan and the circuit by their cost per step.

The rule (:func:`prunelab.samplers.prune.auto.auto_choice`): the circuit where its size times
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
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune import auto
from prunelab.elimination import OrderSearchTooLongError
from prunelab.planner import ORDER_SEARCH_WORK

CIRCUIT_WINS = (16, 0.9, 1)
"""A Sang-Beame-Kautz grid (side, determinism, seed) whose counting plan visits 12.4 times more entries per step than
its circuit holds elements; measured 16 times faster per step with the circuit."""


def test_auto_keeps_the_tables_where_they_are_cheaper(rng):
    """asia and alarm: circuits of 445 and 46,327 elements against counts of 136 and 3,188 units."""
    for name in ("asia", "alarm"):
        net = compile_network(load_network(name))
        assert auto.auto_choice(net) == "auto"
        out = prune.run_chain(rng, net, initial_state(rng, net), 20)
        assert {UNIFORM_NAMES[c] for c in out.uniform_code} <= {"count", "enumerate"}


def test_the_compile_is_capped_at_the_break_even(monkeypatch):
    """No compile where even a one-element-per-label circuit loses; otherwise one capped at the break-even size."""
    asked = []

    def spy(net, *, max_seconds, max_size, vtree):
        asked.append(max_size)
        raise CircuitTooLargeError("spy")

    monkeypatch.setattr(inference, "circuit_for", spy)
    net = compile_network(load_network("asia"))
    units_per_element = auto.CIRCUIT_UNITS_PER_ELEMENT
    assert auto.circuit_plan_if_cheaper(net, 10_000, 10) is None
    assert asked == [int(10_000 / units_per_element)]
    assert auto.circuit_plan_if_cheaper(net, int(units_per_element * 10) - 1, 10) is None
    assert len(asked) == 1  # below the lower bound: nothing compiled


@pytest.fixture(scope="module")
def grid_net():
    side, determinism, seed = CIRCUIT_WINS
    return compile_network(make_grid(side, determinism, seed=seed))


def test_auto_turns_to_the_circuit_where_it_is_cheaper(grid_net, rng):
    plan = prune_plans.prune_plan(grid_net)
    size = circuit_for(grid_net).size
    assert plan.count_units > 1.5 * auto.CIRCUIT_UNITS_PER_ELEMENT * size  # a clear case, not a near tie
    assert auto.auto_choice(grid_net) == "circuit"
    x0 = initial_state(rng, grid_net, "random_forward")
    # equal seeds below: "auto", "circuit" and one step are compared
    by_auto = prune.run_chain(np.random.default_rng(5), grid_net, x0, 60)
    circuit = prune.run_chain(np.random.default_rng(5), grid_net, x0, 60, "circuit")
    assert np.array_equal(by_auto.draws, circuit.draws)
    assert set(by_auto.uniform_code.tolist()) == {UNIFORM_NAMES.index("circuit")}
    state, info = prune.step(np.random.default_rng(5), grid_net, prune.init(grid_net, x0))
    assert info.uniform_name == "circuit" and np.array_equal(state.x, by_auto.draws[0])


def test_auto_circuit_steps_count_the_pruned_set_exactly(grid_net, rng):
    """From each state of a chain, one step of ``"auto"`` (circuit) and of ``"count"`` with the same seed prune
    alike (same random labels, same numbers) and must find the same ``|S|``."""
    x0 = initial_state(rng, grid_net, "random_forward")
    states = prune.run_chain(rng, grid_net, x0, 30, "count").draws
    for t, x in enumerate(states):
        by_auto = prune.run_chain(np.random.default_rng([t, 9]), grid_net, x, 1)
        count = prune.run_chain(np.random.default_rng([t, 9]), grid_net, x, 1, "count")
        assert by_auto.size[0] == pytest.approx(count.size[0], rel=1e-9)


def test_auto_turns_to_the_circuit_when_the_order_search_passes_its_cap(monkeypatch, rng):
    """``"auto"`` caps the counting plan's order search as the planner does; past the cap it draws from the circuit.

    The cap is lowered to one unit of work, so the search of a network not planned before passes it at once: the
    counting plan is refused (and not cached), ``"auto"`` turns to the circuit and draws as ``"circuit"`` does, and
    ``"count"``, uncapped, still compiles the same network's plan.
    """
    net = compile_network(make_grid(5, 0.5, seed=31))  # used by no other test: neither plan is cached yet
    monkeypatch.setattr(auto, "ORDER_SEARCH_WORK", 1.0)
    with pytest.raises(OrderSearchTooLongError):
        prune_plans.prune_plan(net, max_work=1.0)
    assert auto.auto_choice(net) == "circuit"
    x0 = initial_state(rng, net, "random_forward")
    by_auto = prune.run_chain(np.random.default_rng(3), net, x0, 20)  # equal seeds: "auto" against "circuit"
    circuit = prune.run_chain(np.random.default_rng(3), net, x0, 20, "circuit")
    assert np.array_equal(by_auto.draws, circuit.draws)
    assert set(by_auto.uniform_code.tolist()) == {UNIFORM_NAMES.index("circuit")}
    assert prune_plans.prune_plan(net).uniform.n_steps > 0  # the uncapped plan compiles
    other = compile_network(make_grid(5, 0.5, seed=32))
    monkeypatch.setattr(auto, "ORDER_SEARCH_WORK", ORDER_SEARCH_WORK)
    assert auto.auto_choice(other) == "auto"  # under the planner's cap the same kind of network counts
