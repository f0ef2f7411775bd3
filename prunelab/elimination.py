"""Elimination orders: one order finder for exact inference and for the counting plan.

Both :mod:`prunelab.exact` (junction tree) and :mod:`prunelab.samplers.prune.draws`
(variable elimination over 0/1 factors) eliminate the free variables of a network
one by one; eliminating ``v`` builds a table over ``v`` and its neighbours at that
time (its *clique*), so time and memory grow with the clique tables. This module
finds an order, costs it, and refuses one whose tables would not fit.

Candidates. Three greedy heuristics on the interaction graph (an edge between
two variables that share a factor; for a Bayesian network the moral graph without
the observed variables), each eliminating the variable with the smallest score and
joining its neighbours:

* ``"min-fill"``: fewest added edges, then smallest clique table, then index;
* ``"min-weight"``: smallest clique table (product of cardinalities), then fewest
  added edges, then index;
* ``"min-degree"``: fewest neighbours, then smallest clique table, then index.

Scores are updated incrementally (a heap with lazy deletion; after an elimination
only the neighbours, and for fill the common neighbours of each added edge, are
rescored), so a greedy order of a 1,000-variable network takes a fraction of a
second. Table sizes are products of float64 cardinalities: they never overflow
into negative numbers (an overflow is ``inf``, larger than every cap).

When the best of the three needs more than :data:`SEARCH_THRESHOLD` entries in
all and a table of more than :data:`SEARCH_WIDTH_ENTRIES`, more orders are
tried: the variables' own (topological) order and its reverse - on a
Sang-Beame-Kautz grid the row-major order has width equal to the side, where
min-fill's is half as large again - and restarts of min-fill and
min-weight with ties broken at random. Restarts are paid for from a budget
counted in deterministic work units (the squared degrees of the scores the
greedy search computes, weighted by :data:`SET_OPERATION_ENTRIES`), worth :data:`RESTART_SHARE` of the
best order's table entries (or of the cap, when the best is over it), so the
search costs a fraction of the inference it saves, gives up quickly on a network
that cannot fit, and does not depend on the machine's load: the same seed gives
the same order. The cheapest candidate by total table entries wins; ties go to
the first tried.

Cap. An order is refused (:class:`TablesTooLargeError`, a ``ValueError``) when its
largest table exceeds :data:`MAX_CLIQUE_ENTRIES` or all its tables together exceed
:data:`MAX_TOTAL_ENTRIES`; the message names the clique and what the user can do.
Both checks run on the symbolic order, before any table is allocated.

References
----------
.. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
   2009, sec. 9.4.3 (greedy elimination orderings: min-fill, min-weight,
   min-neighbours) and 9.4.3.2 (randomised tie-breaking).
.. [2] U. Kjaerulff, "Optimal decomposition of probabilistic networks by
   simulated annealing", Statistics and Computing 2 (1992), on the total clique
   state space as the cost of a triangulation.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

__all__ = [
    "HEURISTICS",
    "MAX_CLIQUE_ENTRIES",
    "MAX_TOTAL_ENTRIES",
    "GIVE_UP_ENTRIES",
    "SEARCH_THRESHOLD",
    "SEARCH_WIDTH_ENTRIES",
    "EliminationOrder",
    "OrderSearchTooLongError",
    "TablesTooLargeError",
    "check_fits",
    "evaluate_order",
    "find_order",
    "greedy_order",
    "interaction_graph",
]

HEURISTICS = ("min-fill", "min-weight", "min-degree")
"""Greedy heuristics of :func:`greedy_order`, in the order :func:`find_order` tries them."""

MAX_CLIQUE_ENTRIES = 2**27
"""Largest single table (float64 entries, 1 GiB) an elimination order may need."""

MAX_TOTAL_ENTRIES = 2**28
"""Largest number of table entries (2 GiB of float64) an order may need in all."""

SEARCH_THRESHOLD = 2.0**20
"""Total table entries above which :func:`find_order` tries more than the three greedy orders."""

SEARCH_WIDTH_ENTRIES = 2.0**8
"""Largest table (entries) at or below which :func:`find_order` tries no more orders, whatever the total: the
tables are many and small (a chain or tree of 2^18 binary nodes passes :data:`SEARCH_THRESHOLD` with tables of
4 entries), no other order can make them much smaller, and costing two more orders would add a third to the
search."""

RESTART_SHARE = 0.5
"""Restart budget, as a share of the best order's cost (at most of :data:`MAX_TOTAL_ENTRIES`)."""

SET_OPERATION_ENTRIES = 1000.0
"""Table entries one unit of greedy-search work (a squared degree) is taken to cost.

Measured: a unit costs about 1 µs of Python set operations, a table entry about
1 ns in the numba counting pass (and more in exact inference's numpy)."""

MAX_RESTARTS = 32
"""Most randomised restarts :func:`find_order` runs, whatever the budget."""

_RUNAWAY = 10.0  # a restart is given up past this many times the work left in the budget

GIVE_UP_ENTRIES = 2.0**36
"""Table entries past which a greedy order search stops: 256 times :data:`MAX_TOTAL_ENTRIES`, refused anyway."""


class EliminationOrder(NamedTuple):
    """An elimination order and the tables it needs.

    Attributes
    ----------
    order : tuple of int
        The variables, in elimination order.
    neighbours : tuple of frozenset of int
        For every step, the neighbours of ``order[k]`` when it is eliminated (its
        clique without itself).
    entries : tuple of float
        For every step, the entries of its clique table (product of the
        cardinalities, float64).
    heuristic : str
        Which candidate found the order (e.g. ``"min-fill"``,
        ``"min-fill, random ties 3"``, ``"topological"``, ``"given"``).
    """

    order: tuple[int, ...]
    neighbours: tuple[frozenset[int], ...]
    entries: tuple[float, ...]
    heuristic: str

    @property
    def total_entries(self) -> float:
        """Entries of all clique tables together; ``inf`` past the float range (more than any cap)."""
        try:
            return math.fsum(self.entries)
        except OverflowError:  # finite tables of ~2**1023 entries each whose sum is not
            return math.inf

    @property
    def largest_entries(self) -> float:
        """Entries of the largest clique table (0 for no steps)."""
        return max(self.entries, default=0.0)

    @property
    def width(self) -> int:
        """Induced width: the largest clique minus one (0 for no steps)."""
        return max((len(s) for s in self.neighbours), default=0)

    @property
    def largest_clique(self) -> tuple[int, ...]:
        """Variables of the largest clique table, the eliminated one first."""
        if not self.order:
            return ()
        k = int(np.argmax(self.entries))
        return (self.order[k], *sorted(self.neighbours[k]))


class OrderSearchTooLongError(ValueError):
    """The search for an elimination order passed its work cap (:func:`find_order`'s ``max_work``)."""


class TablesTooLargeError(ValueError):
    """The best elimination order found needs tables over a cap.

    ``clique`` holds the variable indices of the largest clique when the message
    could not name them (a compiled network has no names):
    :meth:`with_names` gives the message with names.
    """

    def __init__(self, message: str, clique: tuple[int, ...] = ()):
        super().__init__(message)
        self.clique = tuple(clique)

    def __reduce__(self):  # kept whole through a worker process
        return type(self), (self.args[0], self.clique)

    def with_names(self, names: Sequence[str]) -> TablesTooLargeError:
        """The same error, its clique named by ``names`` (variable names by index)."""
        if not self.clique:
            return self
        named = [names[u] for u in self.clique]
        return TablesTooLargeError(self.args[0].replace(f"{list(self.clique)}", f"{named}"))


def interaction_graph(scopes: Iterable[Iterable[int]], variables: Iterable[int]) -> dict[int, set[int]]:
    """Graph over ``variables`` with an edge between any two that share a scope.

    Parameters
    ----------
    scopes : iterable of iterables of int
        Factor scopes; members not in ``variables`` are ignored.
    variables : iterable of int
        The nodes (variables to eliminate), including any that no scope mentions.

    Returns
    -------
    dict of int to set of int

    Examples
    --------
    >>> from prunelab.elimination import interaction_graph
    >>> interaction_graph([(0, 1), (1, 2, 3)], [0, 1, 2])
    {0: {1}, 1: {0, 2}, 2: {1}}
    """
    adjacency: dict[int, set[int]] = {int(v): set() for v in variables}
    for scope in scopes:
        members = [int(u) for u in scope if int(u) in adjacency]
        for a in members:
            adjacency[a].update(members)
    for a, nb in adjacency.items():
        nb.discard(a)
    return adjacency


def _fill(adj: Sequence[set[int]], nb: set[int]) -> int:
    """Edges that eliminating a variable with neighbours ``nb`` would add among them (``adj`` by variable)."""
    d = len(nb)
    if d < 2:
        return 0
    if d == 2:
        # The general count below with nb = {a, b}: nb - adj[a] is {a} plus b unless adjacent (no self-loops),
        # and likewise for b (the graph is symmetric), so it gives (2 + 2 * [b not in adj[a]] - 2) // 2.
        a, b = nb
        return 0 if b in adj[a] else 1
    return (sum(len(nb - adj[u]) for u in nb) - d) // 2


def _weight(card: Sequence[float], v: int, nb: Iterable[int]) -> float:
    """Entries of ``v``'s clique table, in float64 (``card`` a list of floats: numpy scalars are slow).

    ``math.prod`` multiplies floats in iteration order from ``start``, as a loop of ``*=`` would.
    """
    return math.prod(map(card.__getitem__, nb), start=card[v])


def greedy_order(
    adjacency: Mapping[int, set[int]],
    cardinality,
    heuristic: str = "min-fill",
    rng: np.random.Generator | None = None,
) -> list[int]:
    """A greedy elimination order of the nodes of ``adjacency``.

    Parameters
    ----------
    adjacency : mapping of int to set of int
        The interaction graph (not modified).
    cardinality : array_like of int
        Cardinality of every variable, indexed by variable.
    heuristic : {"min-fill", "min-weight", "min-degree"}
        See the module docstring.
    rng : numpy.random.Generator, optional
        Break the final ties by a random permutation drawn from it, instead of by
        the lowest variable index.

    Returns
    -------
    list of int

    Examples
    --------
    >>> from prunelab.elimination import greedy_order
    >>> greedy_order({0: {1}, 1: {0, 2}, 2: {1}}, [2, 2, 2])
    [0, 1, 2]
    """
    if heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r}; choose one of {list(HEURISTICS)}")
    return _greedy(adjacency, np.asarray(cardinality), heuristic, rng)[0]


def _given_up(adjacency, card: np.ndarray, prefix: list[int], heuristic: str) -> EliminationOrder:
    """The order of a search given up past :data:`GIVE_UP_ENTRIES`: its first steps, then the rest uncosted.

    Its tables already hold more than any cap, so every caller refuses it
    (:func:`check_fits` names the largest clique of those first steps).
    """
    head = _evaluated(adjacency, card, tuple(prefix), heuristic, math.inf)
    eliminated = set(prefix)
    rest = tuple(v for v in sorted(adjacency) if v not in eliminated)
    return EliminationOrder(head.order + rest, head.neighbours + (frozenset(),) * len(rest),
                            head.entries + (0.0,) * len(rest),
                            f"{heuristic}, given up past {GIVE_UP_ENTRIES:.3g} entries")


def _greedy(adjacency, card: np.ndarray, heuristic: str, rng, stop_above: float = math.inf,
            max_work: float = math.inf) -> tuple[list[int], float, bool]:
    """:func:`greedy_order`, its work (the sum of ``(degree + 1) ** 2`` over the scores computed), and if it ended.

    The search is given up (``False``, with the variables eliminated so far) once their
    tables hold more than ``stop_above`` entries, or once its work passes
    ``max_work``. On a network far past the caps a greedy search fills the graph in
    and its set operations take minutes (52 s for min-fill alone on a relational
    network of 6,252 variables); a randomised restart can do the same where the
    deterministic run did not.
    """
    card = [float(c) for c in card]
    adj: list[set[int] | None] = [None] * len(card)  # by variable: a list index is cheaper than a dict lookup
    for v, nb in adjacency.items():
        adj[v] = set(nb)
    nodes = sorted(adjacency)
    tie = list(range(len(card)))
    if rng is not None:
        for v, t in zip(nodes, rng.permutation(len(nodes)).tolist()):
            tie[v] = t
    fill, prod = _fill, math.prod
    at = card.__getitem__

    # An entry is the key with the variable last (a flat tuple compares faster than (key, v)); current[v] is v's
    # entry object, so a stale entry fails an identity test. An equal stale copy of the current entry is then
    # skipped instead of taken, but the current one pops next among equals: the same order.
    if heuristic == "min-fill":
        def entry(v, nb):
            return fill(adj, nb), prod(map(at, nb), start=card[v]), tie[v], v
    elif heuristic == "min-weight":
        def entry(v, nb):
            return prod(map(at, nb), start=card[v]), fill(adj, nb), tie[v], v
    else:
        def entry(v, nb):
            return len(nb), prod(map(at, nb), start=card[v]), tie[v], v
    # A current entry's weight is v's weight now: adj[v] changes only when v is rescored, after the step's changes.
    weight_at = 0 if heuristic == "min-weight" else 1
    uses_fill = heuristic != "min-degree"

    work = 0.0
    current: list[tuple | None] = [None] * len(card)
    for v in nodes:
        nb = adj[v]
        work += (len(nb) + 1) ** 2
        current[v] = entry(v, nb)
    heap = [current[v] for v in nodes]
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    order: list[int] = []
    total = 0.0
    while heap:
        e = pop(heap)
        v = e[-1]
        if current[v] is not e:
            continue  # stale entry
        total += e[weight_at]
        if total > stop_above or work > max_work:
            return order + [v], work, False
        current[v] = None
        order.append(v)
        nb = adj[v]
        adj[v] = None
        for a in nb:
            adj[a].discard(v)
        stale = set(nb)
        if uses_fill and len(nb) > 1:
            # an added edge a-b lowers the fill of every common neighbour of a and b
            for a in nb:
                for b in nb - adj[a]:
                    if a < b:
                        stale |= adj[a] & adj[b]
        for a in nb:
            adj[a] |= nb
            adj[a].discard(a)
        for u in stale:
            nu = adj[u]
            work += (len(nu) + 1) ** 2
            k = entry(u, nu)
            if k != current[u]:
                current[u] = k
                push(heap, k)
    return order, work, True


def evaluate_order(
    adjacency: Mapping[int, set[int]], cardinality, order: Sequence[int], heuristic: str = "given"
) -> EliminationOrder:
    """The cliques of ``order`` on ``adjacency`` and their table sizes (float64).

    Parameters
    ----------
    adjacency : mapping of int to set of int
    cardinality : array_like of int
    order : sequence of int
        A permutation of the nodes of ``adjacency``.
    heuristic : str, default "given"
        Recorded in the result.

    Returns
    -------
    EliminationOrder

    Raises
    ------
    ValueError
        If ``order`` is not a permutation of the nodes.

    Examples
    --------
    >>> from prunelab.elimination import evaluate_order
    >>> result = evaluate_order({0: {1}, 1: {0, 2}, 2: {1}}, [2, 3, 2], [1, 0, 2])
    >>> result.width, result.total_entries, result.largest_entries
    (2, 18.0, 12.0)
    """
    order = tuple(int(v) for v in order)
    if len(order) != len(adjacency) or set(order) != set(adjacency):
        raise ValueError(
            f"order must list every variable to eliminate exactly once; got {list(order)}, "
            f"the variables are {sorted(adjacency)}"
        )
    return _evaluated(adjacency, cardinality, order, heuristic, math.inf)


def _evaluated(adjacency, cardinality, order: tuple[int, ...], heuristic: str, limit: float) -> EliminationOrder | None:
    """:func:`evaluate_order` of a checked ``order``, or None as soon as its entries pass ``limit``.

    The limit keeps a bad candidate cheap: an order whose cliques grow with the
    network (the topological order of a tree) would otherwise cost time and memory
    quadratic in its size before it is found worse.
    """
    card = [float(c) for c in np.asarray(cardinality)]
    adj = {v: set(nb) for v, nb in adjacency.items()}
    neighbours, entries = [], []
    total = 0.0
    for v in order:
        nb = adj.pop(v)
        size = _weight(card, v, nb)
        total += size
        if total > limit:
            return None
        for a in nb:
            adj[a].discard(v)
            adj[a] |= nb
            adj[a].discard(a)
        neighbours.append(frozenset(nb))
        entries.append(size)
    return EliminationOrder(order, tuple(neighbours), tuple(entries), heuristic)


def find_order(
    adjacency: Mapping[int, set[int]],
    cardinality,
    seed=0,
    cost: Callable[[EliminationOrder], float] | None = None,
    max_work: float = math.inf,
) -> EliminationOrder:
    """The cheapest elimination order found, by total clique-table entries or ``cost``.

    Tries min-fill, min-weight and min-degree; if the best needs more than
    :data:`SEARCH_THRESHOLD` entries (and a table of more than
    :data:`SEARCH_WIDTH_ENTRIES`), also the variables' own order, its reverse
    and randomised restarts within a deterministic work budget (see the module
    docstring). Does not check the caps: see :func:`check_fits`.

    Parameters
    ----------
    adjacency : mapping of int to set of int
        The interaction graph; its nodes are numbered in topological order.
    cardinality : array_like of int
        Indexed by variable.
    seed : int, SeedSequence or Generator, default 0
        Randomness of the restarts' tie-breaking; the same seed gives the same order.
    cost : callable, optional
        The cost of a candidate, in table entries (float); default its
        ``total_entries``, and never less (a candidate is given up as soon as its
        entries pass the best cost so far). The counting plan weighs every table by
        the number of factors multiplied into it, at least one.
    max_work : float, default inf
        Cap on the greedy searches' work (squared degrees, about 12 ns each), for a
        caller with other ways to answer (:mod:`prunelab.planner`).

    Returns
    -------
    EliminationOrder

    Raises
    ------
    OrderSearchTooLongError
        The greedy searches passed ``max_work`` before an order was found.

    Examples
    --------
    >>> from prunelab.elimination import find_order
    >>> best = find_order({0: {1, 2}, 1: {0, 2}, 2: {0, 1}, 3: set()}, [2, 2, 2, 5])
    >>> best.order, best.total_entries, best.heuristic
    ((3, 0, 1, 2), 19.0, 'min-fill')
    """
    card = np.asarray(cardinality)
    cost = (lambda candidate: candidate.total_entries) if cost is None else cost
    best: EliminationOrder | None = None
    best_cost = math.inf

    # A candidate is given up once its entries pass the best cost (cost >= entries): it cannot be chosen.
    # An order seen before is not costed again: it was not cheaper then, nor is it now (on a chain or a tree
    # the greedy heuristics agree, and costing is a third of the search).
    seen: set[tuple[int, ...]] = set()

    def consider(order, heuristic: str) -> None:
        nonlocal best, best_cost
        order = tuple(map(int, order))
        if order in seen:
            return
        seen.add(order)
        candidate = _evaluated(adjacency, card, order, heuristic, bound())
        if candidate is None:
            return
        candidate_cost = float(cost(candidate))
        if best is None or candidate_cost < best_cost:
            best, best_cost = candidate, candidate_cost

    def bound() -> float:
        return best_cost if best is not None else math.inf

    work = spent = 0.0
    given_up = None
    for heuristic in HEURISTICS:
        order, work, ended = _greedy(adjacency, card, heuristic, None, GIVE_UP_ENTRIES, max_work - spent)
        spent += work
        if spent > max_work:
            raise OrderSearchTooLongError(
                f"the search for an elimination order of {len(adjacency)} variables passed its cap of "
                f"{max_work:.3g} units of work ({heuristic}, {len(order)} variables eliminated)")
        if not ended:  # far past the caps: no restarts either (as its whole run's work would have said)
            given_up, work = given_up or (order, heuristic), math.inf
            continue
        consider(order, heuristic)
    if best is None:
        return _given_up(adjacency, card, *given_up)
    if best_cost <= SEARCH_THRESHOLD or max(best.entries, default=0.0) <= SEARCH_WIDTH_ENTRIES:
        return best
    nodes = sorted(adjacency)
    consider(nodes, "topological")
    consider(nodes[::-1], "reverse topological")
    rng = np.random.default_rng(seed)
    spent = 0.0
    budget = RESTART_SHARE * min(best_cost, MAX_TOTAL_ENTRIES)
    for restart in range(MAX_RESTARTS):
        # the last run's work predicts the next one's; a run far past what is left is given up
        if spent + SET_OPERATION_ENTRIES * work > budget:
            break
        heuristic = HEURISTICS[restart % 2]
        order, work, ended = _greedy(adjacency, card, heuristic, rng,
                                     max_work=_RUNAWAY * (budget - spent) / SET_OPERATION_ENTRIES)
        spent += SET_OPERATION_ENTRIES * work
        if ended:
            consider(order, f"{heuristic}, random ties {restart}")
    return best


def check_fits(best: EliminationOrder, what: str, names: Sequence[str] | None = None) -> None:
    """Refuse an order whose tables exceed :data:`MAX_CLIQUE_ENTRIES` or :data:`MAX_TOTAL_ENTRIES`.

    Parameters
    ----------
    best : EliminationOrder
    what : str
        Who needs the tables, to start the message (e.g. ``"exact inference on
        network 'x'"``).
    names : sequence of str, optional
        Variable names by index, for the message.

    Raises
    ------
    TablesTooLargeError
        Naming the largest clique (size, entries, variables), the cap exceeded and
        what the user can do.

    Examples
    --------
    >>> from prunelab.elimination import check_fits, evaluate_order
    >>> check_fits(evaluate_order({0: {1}, 1: {0}}, [2, 2], [0, 1]), "a test")
    """
    largest, total = best.largest_entries, best.total_entries
    if largest <= MAX_CLIQUE_ENTRIES and total <= MAX_TOTAL_ENTRIES:
        return
    clique = best.largest_clique
    named = [names[u] for u in clique] if names is not None else list(clique)
    if largest > MAX_CLIQUE_ENTRIES:
        over = f"more than MAX_CLIQUE_ENTRIES={MAX_CLIQUE_ENTRIES} in one table"
    else:
        over = (f"{total:.4g} entries in all its {len(best.order)} tables, "
                f"more than MAX_TOTAL_ENTRIES={MAX_TOTAL_ENTRIES}")
    raise TablesTooLargeError(
        f"{what} needs a clique over {len(clique)} variables ({largest:.4g} entries, {over}) with the "
        f"cheapest elimination order found ({best.heuristic}, width {best.width}): {named}. "
        "To fit, observe some of these variables (evidence removes them from the graph), compile a circuit "
        "that uses the network's zeros instead (exact_marginals turns to one by default; prune sampling with "
        "uniform='circuit'), or use a sampler that builds no tables (prunelab.sample with sampler 'gibbs' or "
        "'metropolis', or 'mc-sat' with uniform='samplesat'); the caps are prunelab.elimination.MAX_CLIQUE_ENTRIES and "
        "MAX_TOTAL_ENTRIES (8 bytes per entry).",
        () if names is not None else tuple(int(u) for u in clique),
    )
