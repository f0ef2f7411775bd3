"""Elimination orders: float costs, the caps, the grid orders, speed-independent determinism.

The order finder is shared by exact inference and the counting plan, so its tests
check the orders themselves (clique sizes against a direct recount, widths on
known graphs) and the two ways it used to go wrong: an int64 overflow that made
the worst order look cheapest (pathfinder, pigs), and min-fill's wasted width on
Sang-Beame-Kautz grids.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunelab import load_network, make_grid
from prunelab.catalogue import pgmpy_example_path
from prunelab.elimination import (
    HEURISTICS,
    MAX_CLIQUE_ENTRIES,
    TablesTooLargeError,
    check_fits,
    evaluate_order,
    find_order,
    greedy_order,
    interaction_graph,
)
from prunelab.io import read_bif
from prunelab.junction_tree import free_moral_graph


def moral_graph(bn):
    return free_moral_graph(bn, frozenset())


def recount(adjacency, card, order):
    """Clique table sizes of ``order``, by eliminating on a copy of the graph (Python ints)."""
    adj = {v: set(nb) for v, nb in adjacency.items()}
    sizes = []
    for v in order:
        nb = adj.pop(v)
        for a in nb:
            adj[a] |= nb - {a}
            adj[a].discard(v)
        sizes.append(math.prod(int(card[u]) for u in nb | {v}))
    return sizes


@pytest.mark.parametrize("name", ["pathfinder", "pigs"])
def test_costs_are_float_and_the_chosen_order_fits(name):
    """min-weight's costs once overflowed int64 and came out negative (pathfinder: -1.65e19)."""
    bn = read_bif(pgmpy_example_path(name))
    adjacency, card = moral_graph(bn), bn.cardinalities
    for heuristic in HEURISTICS:
        result = evaluate_order(adjacency, card, greedy_order(adjacency, card, heuristic), heuristic)
        assert all(isinstance(e, float) and e >= 1.0 for e in result.entries)
        assert result.total_entries > 0 and math.isfinite(result.total_entries)
    best = find_order(adjacency, card)
    assert 0 < best.largest_entries <= MAX_CLIQUE_ENTRIES
    assert best.width <= 12  # min-fill's largest step has 5-11 neighbours on these two
    exact_sizes = recount(adjacency, card, best.order)
    assert list(best.entries) == [float(s) for s in exact_sizes]
    check_fits(best, name)  # no error


def test_evaluate_order_counts_cliques_exactly():
    adjacency = {0: {1, 2}, 1: {0, 2, 3}, 2: {0, 1}, 3: {1}}
    card = [2, 3, 4, 5]
    result = evaluate_order(adjacency, card, [3, 0, 1, 2])
    assert result.entries == (15.0, 24.0, 12.0, 4.0)
    assert result.neighbours == (frozenset({1}), frozenset({1, 2}), frozenset({2}), frozenset())
    assert result.width == 2 and result.largest_clique == (0, 1, 2)
    with pytest.raises(ValueError, match="every variable to eliminate exactly once"):
        evaluate_order(adjacency, card, [0, 1, 2])


def test_greedy_heuristics_on_a_star_and_a_chain():
    # a star: eliminating the leaves first never adds an edge; the centre comes last but one
    star = interaction_graph([(0, leaf) for leaf in range(1, 6)], range(6))
    for heuristic in HEURISTICS:
        order = greedy_order(star, [2] * 6, heuristic)
        assert evaluate_order(star, [2] * 6, order).width == 1
    with pytest.raises(ValueError, match="unknown heuristic 'max-cardinality'"):
        greedy_order(star, [2] * 6, "max-cardinality")
    # min-weight prefers the cheap end of a chain with one huge variable
    chain = interaction_graph([(0, 1), (1, 2)], range(3))
    assert greedy_order(chain, [50, 2, 2], "min-weight")[0] == 2


@pytest.mark.parametrize("side", [14, 16, 18, 20])
def test_grid_orders_have_the_width_of_the_side(side):
    """min-fill gives width 22/24/29/32 here; the row-major (topological) order gives the side."""
    bn = make_grid(side, 0.5, seed=0)
    adjacency = moral_graph(bn)
    best = find_order(adjacency, bn.cardinalities)
    assert best.width <= side
    fill = evaluate_order(adjacency, bn.cardinalities, greedy_order(adjacency, bn.cardinalities))
    assert best.total_entries < fill.total_entries


def test_restarts_are_deterministic_given_the_seed():
    bn = make_grid(12, 0.5, seed=1)
    adjacency = moral_graph(bn)
    ranks = np.random.default_rng(5)  # the seeds are what is tested: equal seeds, equal orders; another, another
    a = greedy_order(adjacency, bn.cardinalities, "min-fill", np.random.default_rng(3))
    b = greedy_order(adjacency, bn.cardinalities, "min-fill", np.random.default_rng(3))
    c = greedy_order(adjacency, bn.cardinalities, "min-fill", ranks)
    assert a == b and sorted(a) == sorted(adjacency) and a != c
    assert find_order(adjacency, bn.cardinalities, seed=9) == find_order(adjacency, bn.cardinalities, seed=9)


def test_check_fits_names_the_clique_and_the_cap(monkeypatch):
    import prunelab.elimination

    bn = load_network("grid-3x3")
    best = find_order(moral_graph(bn), bn.cardinalities)
    monkeypatch.setattr(prunelab.elimination, "MAX_CLIQUE_ENTRIES", 8)
    with pytest.raises(TablesTooLargeError, match=r"needs a clique over 4 variables \(16 entries, more than "
                       r"MAX_CLIQUE_ENTRIES=8 in one table\).*'v_\d_\d'.*observe some of these variables"):
        check_fits(best, "a test", bn.variables)
    monkeypatch.setattr(prunelab.elimination, "MAX_CLIQUE_ENTRIES", 2**27)
    monkeypatch.setattr(prunelab.elimination, "MAX_TOTAL_ENTRIES", 16)
    with pytest.raises(TablesTooLargeError, match="more than MAX_TOTAL_ENTRIES=16"):
        check_fits(best, "a test", bn.variables)


def test_tables_past_the_float_range_are_refused_not_crashed():
    """Cliques of 2**1022 entries and more sum past the largest float: a refusal, not ``fsum``'s OverflowError."""
    n = 1023
    complete = {i: set(range(n)) - {i} for i in range(n)}
    order = evaluate_order(complete, [2] * n, list(range(n)))
    assert order.largest_entries == 2.0**1022 * 2  # finite, every table finite
    assert order.total_entries == math.inf
    with pytest.raises(TablesTooLargeError, match=r"a clique over 1023 variables \(8\.988e\+307 entries"):
        check_fits(order, "exact inference on a complete graph")


def test_an_order_search_past_its_work_cap_is_refused():
    from prunelab.elimination import OrderSearchTooLongError

    adjacency = {v: {u for u in range(12) if u != v} for v in range(12)}
    with pytest.raises(OrderSearchTooLongError, match=r"search for an elimination order of 12 variables passed its "
                                                      r"cap of 10 units of work \(min-fill, 1 variables eliminated"):
        find_order(adjacency, [2] * 12, max_work=10)


def test_a_search_far_past_the_caps_is_given_up_and_refused():
    from prunelab.elimination import GIVE_UP_ENTRIES, check_fits

    n = 40  # a complete graph: the first clique alone holds 2**40 entries, past GIVE_UP_ENTRIES
    adjacency = {v: {u for u in range(n) if u != v} for v in range(n)}
    best = find_order(adjacency, [2] * n)
    assert 2.0**n > GIVE_UP_ENTRIES and best.heuristic.startswith("min-fill, given up past")
    assert sorted(best.order) == list(range(n)) and best.total_entries >= GIVE_UP_ENTRIES
    with pytest.raises(TablesTooLargeError, match=r"needs a clique over 40 variables"):
        check_fits(best, "a test")


@settings(max_examples=60, deadline=None)
@given(st.integers(6, 14), st.floats(0.15, 0.6), st.integers(0, 2**31))
def test_giving_up_dear_candidates_never_changes_the_order_chosen(n, density, seed):
    """The cheapest of the three greedy orders evaluated in full is the one find_order returns."""
    from prunelab.elimination import HEURISTICS, evaluate_order, greedy_order

    rng = np.random.default_rng(seed)
    adjacency = {v: set() for v in range(n)}
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < density:
                adjacency[a].add(b)
                adjacency[b].add(a)
    card = rng.integers(2, 4, size=n)
    candidates = [evaluate_order(adjacency, card, greedy_order(adjacency, card, h), h) for h in HEURISTICS]
    cheapest = min(candidates, key=lambda c: c.total_entries)  # min keeps the first of equals, as find_order
    best = find_order(adjacency, card)
    if cheapest.total_entries <= 2.0**20:  # below SEARCH_THRESHOLD only the three greedy orders are tried
        assert best.order == cheapest.order and best.heuristic == cheapest.heuristic


def test_a_candidate_order_is_given_up_once_it_costs_more_than_the_best(monkeypatch):
    """The topological order of a binary tree has cliques as wide as a level: evaluated in full, the
    search spends time and memory quadratic in the tree's size before it finds the order worse."""
    import prunelab.elimination as elimination

    n = 255  # a complete binary tree: node i's parent is (i - 1) // 2
    adjacency = {v: set() for v in range(n)}
    for v in range(1, n):
        adjacency[v].add((v - 1) // 2)
        adjacency[(v - 1) // 2].add(v)
    frozen = []

    def counted_frozenset(items=()):
        out = frozenset(items)
        frozen.append(len(out))
        return out

    monkeypatch.setattr(elimination, "SEARCH_THRESHOLD", 0.0)  # every candidate is tried, small tables or not
    monkeypatch.setattr(elimination, "SEARCH_WIDTH_ENTRIES", 0.0)
    monkeypatch.setattr(elimination, "frozenset", counted_frozenset, raising=False)
    best = elimination.find_order(adjacency, [2] * n)
    assert best.width == 1 and best.total_entries == 4 * (n - 1) + 2
    assert sum(frozen) <= 20 * n  # a level of the tree is 128 wide: the topological order alone freezes ~n^2 / 8


def test_many_small_tables_are_not_searched_further_however_many(monkeypatch):
    """A binary tree of 2^18 nodes passes SEARCH_THRESHOLD with tables of 4 entries; no order is costed beyond
    the greedy ones (they cost a third more of the search at that size), while a grid's wide tables still are."""
    import prunelab.elimination as elimination

    n = 1023
    tree = {v: set() for v in range(n)}
    for v in range(1, n):
        tree[v].add((v - 1) // 2)
        tree[(v - 1) // 2].add(v)
    costed = []
    evaluated = elimination._evaluated
    monkeypatch.setattr(elimination, "_evaluated", lambda *a: costed.append(a[3]) or evaluated(*a))
    monkeypatch.setattr(elimination, "SEARCH_THRESHOLD", 0.0)  # as at 2^18 nodes: the total passes it
    best = elimination.find_order(tree, [2] * n)
    assert best.total_entries == 4 * (n - 1) + 2 and max(best.entries) <= elimination.SEARCH_WIDTH_ENTRIES
    assert costed == ["min-fill"]  # the other greedy orders are the same order: seen, not costed again
    costed.clear()
    bn = make_grid(14, 0.5, seed=0)
    elimination.find_order(moral_graph(bn), bn.cardinalities)
    assert {"topological", "reverse topological"} <= set(costed)
