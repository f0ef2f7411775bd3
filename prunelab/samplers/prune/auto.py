"""What a prune chain settles before its first step: the draw's plan, and for ``uniform="auto"``, which draw.

:func:`draw_plan` is the one place that turns a ``uniform=`` name (a key of
:data:`~prunelab.samplers.prune.draws.registry.DRAWS`) into its integer code and its plan, for prune sampling
(:mod:`prunelab.samplers.prune.sampler`) and its tempered chain (:mod:`prunelab.samplers.prune.tempered`).

``uniform="auto"`` decides twice:

* once per (network, evidence), :func:`auto_choice`: the counting plan, or the circuit where a circuit step costs
  less than a count (:data:`CIRCUIT_UNITS_PER_ELEMENT`), where the counting plan's tables refuse, or where its
  elimination-order search passes the planner's work cap (:data:`prunelab.planner.ORDER_SEARCH_WORK`: a network
  that needs more is far past the tables' caps; :func:`circuit_plan_if_cheaper`, :func:`circuit_plan_after`);
* with the counting plan, at every step, :func:`auto_searches`: search (and enumerate) when the search is predicted
  far cheaper than a count (:data:`AUTO_SHARE`), else count.
"""

from __future__ import annotations

from functools import partial

import numba

from prunelab.circuit import VTREES, CircuitTooLargeError, inference
from prunelab.compiled import CompiledNetwork, PlanCache
from prunelab.elimination import OrderSearchTooLongError, TablesTooLargeError
from prunelab.planner import ORDER_SEARCH_WORK

from .draws.registry import AUTO, DRAWS, UNIFORM_NAMES, pruned_draw, sampler_vtree, uniform_index
from .plan import PrunePlan, prune_plan

__all__ = ["AUTO_SHARE", "CIRCUIT_UNITS_PER_ELEMENT", "AUTO_CHEAPER_SECONDS", "auto_searches", "auto_choice",
           "circuit_plan_after", "circuit_plan_if_cheaper", "draw_plan"]

AUTO_SHARE = 0.125
"""``"auto"`` searches when the predicted search costs at most this share of a count.

Small because the prediction is weak: the last step's ``|S|`` times the last search's nodes per member misjudges
the next search often (the search's dead ends dominate), and a search that runs out of its budget is paid on top
of the count. Measured on stationary chains of every network of ``benchmarks/bench_prune.py``: even an oracle that
knew each search's cost in advance would search on 11-41 % of the steps and save at most 17 %, and the rule at
share 0.5 lost 1-9 % to pure counting (grid-8x8: 9 %); at 0.125 it loses under 1 % and still searches where
counting is dear (a small ``|S|`` under big tables)."""

CIRCUIT_UNITS_PER_ELEMENT = 6.0
"""Count units (:attr:`~prunelab.samplers.prune.plan.PrunePlan.count_units`) that one circuit element is taken to
cost per prune step. Measured (``benchmarks/bench_auto_circuit.py``, stationary CPU time per step, medians of 3):
a circuit element costs 6.6-20 ns, a count unit 1.9-5.3 ns on the pgmpy networks and small grids but 6.6-19 ns on
counts of 1e5-1e6 units; the two break even at 5.6 (90 % 12 x 12 grid, 12,052 units, 4,955 elements: the count
2.4 times faster) and 6.0 (75 % 12 x 12, 97,653 units, 18,799 elements: count 1.15 times faster); past it the
circuit wins by far (90 % 16 x 16: 123,150 units, 9,926 elements, 16 times faster; 75 % 16 x 16: 1,146,999 units,
94,813 elements, 12 times faster; 90 % 20 x 20: 399,530 units at 247 ns each, 21,190 elements, 364 times faster).
With 25 % evidence the same grids count 3.7-6.0 times faster than the circuit (1,054-5,514 units, 1,064-4,385
elements), and on asia, alarm and win95pts, whose circuits hold 3-15 elements per unit, 7-57 times faster."""

AUTO_CHEAPER_SECONDS = 30.0
"""Compile cap when ``uniform="auto"`` tries the circuit because it may be cheaper (the tables would serve)."""


@numba.njit(cache=True, nogil=True)
def auto_searches(size, nodes_per_member, budget):
    """Does ``uniform="auto"`` search this step? The rule of prune's ``step`` and ``run_chain``.

    The search is predicted to visit ``size * nodes_per_member`` nodes (the last
    step's ``|S|`` times the nodes per member of the last completed search); it
    is tried when that is at most :data:`AUTO_SHARE` of ``budget``, and stops
    (for a count) when it exceeds ``budget``. Otherwise the step counts at once.
    The choice depends on the chain's past and on the pruning only, never on the
    draw's own random numbers, and both draw exactly uniformly from
    ``S``, so the mixture is exact.
    """
    return size * nodes_per_member <= AUTO_SHARE * budget


def circuit_plan_after(net, refusal: Exception, vtree: str = "dissection"):
    """The circuit plan that ``uniform="auto"`` turns to when the counting plan refused with ``refusal``.

    The circuit (for the vtree named ``vtree``) is compiled for at most
    :data:`prunelab.circuit.AUTO_COMPILE_SECONDS`; if it too outgrows its caps, the error names both refusals.
    """
    try:
        inference.circuit_for(net, max_seconds=inference.AUTO_COMPILE_SECONDS, vtree=vtree)  # cached for the plan
    except CircuitTooLargeError as exc:
        raise TablesTooLargeError(f"{refusal} uniform='auto' then tried a circuit: {exc}") from None
    return pruned_draw("circuit").plan(net, vtree)


def circuit_plan_if_cheaper(net, count_units: int, n_random_labels: int, vtree: str = "dissection"):
    """The circuit plan (its vtree named ``vtree``) if a circuit step costs less than a counting step, else None.

    The circuit is cheaper when its size (elements) times :data:`CIRCUIT_UNITS_PER_ELEMENT` is below
    ``count_units``: that size is the break-even. Every label pruned at random has an indicator in the circuit, so
    it holds at least ``n_random_labels`` elements; below that break-even nothing is compiled. Otherwise the
    compilation is capped at the break-even (elements alive while it compiles) and at :data:`AUTO_CHEAPER_SECONDS`:
    it stops as soon as the tables are sure to win, and its refusal means None. The choice depends on sizes only
    (and, past the time cap, on the machine's speed).
    """
    break_even = int(count_units / CIRCUIT_UNITS_PER_ELEMENT)
    if break_even < max(n_random_labels, 1):
        return None
    try:
        circuit = inference.circuit_for(net, max_seconds=AUTO_CHEAPER_SECONDS, max_size=break_even, vtree=vtree)
    except CircuitTooLargeError:
        return None
    if circuit.size >= break_even:  # compiled before, without this cap
        return None
    return pruned_draw("circuit").plan(net, vtree)


def _auto_plan(net: CompiledNetwork, vtree: str = "dissection"):
    """``(code, plan)`` of ``uniform="auto"``: the counting plan, or the circuit (cheaper, or the tables refuse).

    The counting plan's order search is capped at :data:`~prunelab.planner.ORDER_SEARCH_WORK`, as the planner's
    is. See :func:`circuit_plan_if_cheaper`; the circuit is over the vtree named ``vtree``.
    """
    try:
        plan = prune_plan(net, max_work=ORDER_SEARCH_WORK)
    except (TablesTooLargeError, OrderSearchTooLongError) as refusal:
        return uniform_index("circuit"), circuit_plan_after(net, refusal, vtree)
    circuit = circuit_plan_if_cheaper(net, plan.count_units, plan.pruning.random_label.size, vtree)
    return (AUTO, plan) if circuit is None else (uniform_index("circuit"), circuit)


_auto_plans = {name: PlanCache(partial(_auto_plan, vtree=name)) for name in VTREES}


def auto_choice(net: CompiledNetwork) -> str:
    """The draw ``uniform="auto"`` makes on ``net``: ``"auto"`` (the counting plan) or ``"circuit"``.

    Decided once per (network, evidence) from the counting plan's work per step and the circuit's size, and
    cached: the circuit where a circuit step is cheaper than a count or where the tables refuse; otherwise the
    counting plan, which counts and searches when the search is predicted far cheaper (:func:`auto_searches`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> auto_choice(compile_network(load_network("asia")))  # small tables: no circuit is compiled
    'auto'
    """
    return UNIFORM_NAMES[_auto_plans["dissection"](net)[0]]


def draw_plan(net: CompiledNetwork, uniform: str = "auto", plan=None, vtree: str | None = None):
    """The code of the draw ``uniform`` names and its plan, as prune's ``step`` and ``run_chain`` settle them.

    Parameters
    ----------
    net : CompiledNetwork
    uniform : str, default "auto"
        A key of :data:`~prunelab.samplers.prune.draws.registry.DRAWS`.
    plan : optional
        A plan given: kept if it serves ``uniform`` (a :class:`~prunelab.samplers.prune.plan.PrunePlan` for the
        draws of prune's own chain, the draw's own plan for the others).
    vtree : {"dissection", "turned", "elimination"}, optional
        The circuit's vtree (:func:`~prunelab.samplers.prune.draws.registry.sampler_vtree`).

    Returns
    -------
    code : int
        The position of ``uniform`` in ``DRAWS``; ``"auto"`` stays ``AUTO`` with the counting plan, or turns to the
        circuit (:func:`auto_choice`).
    plan
        The plan of that draw.

    Raises
    ------
    ValueError
        An unknown name, or a plan that does not serve ``uniform``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> code, plan = draw_plan(compile_network(load_network("deterministic_pair")), "circuit")
    >>> UNIFORM_NAMES[code], type(plan).__name__, plan.circuit.vtree_name
    ('circuit', 'CircuitPrunePlan', 'dissection')
    """
    code = uniform_index(uniform)
    name = sampler_vtree(uniform, vtree, plan)
    own_chain = DRAWS[uniform].module is None
    if plan is not None:
        if own_chain != isinstance(plan, PrunePlan):
            raise ValueError(f"the plan given does not serve uniform={uniform!r}")
        return code, plan
    if not own_chain:
        return code, (pruned_draw(uniform).plan(net, name) if DRAWS[uniform].vtree else pruned_draw(uniform).plan(net))
    if code == AUTO:
        return _auto_plans[name](net)
    return code, prune_plan(net)
