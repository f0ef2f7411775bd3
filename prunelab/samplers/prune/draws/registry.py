"""Draws from the pruned set that need only the pruning: the ``uniform=`` options beyond the counting plan.

The four classic options of :mod:`prunelab.samplers.prune.draws` (``"enumerate"``,
``"count"``, ``"heuristic"``, ``"auto"``) share one plan built on the junction
tree's elimination order. The options listed here bring their own: each is a
module, imported on first use, that defines

``plan(net) -> Plan``
    Compiled once per (network, evidence) and cached by content; it has the
    pruning lists ``random_label``, ``random_c`` and ``base_kept`` of
    :class:`prunelab.samplers.prune.plan.PrunePlan` (the same sets), so the pruning
    step is shared.
``draw(rng, net, x, kept, plan) -> (y, size)``
    The next state given the pruning ``kept`` (the readable reference), and
    ``|S|`` (NaN when the method does not count).
``run_chain(rng, net, x0, n_draws, plan) -> (draws, sizes)``
    ``n_draws`` prune steps, consuming ``rng`` exactly as ``n_draws`` prunings
    (:func:`prunelab.samplers.prune.sampler.prune_around`) each followed by ``draw``.
``EXACT``
    True when every member of ``S`` is drawn with probability ``1 / |S|``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["PRUNED_DRAWS", "pruned_draw", "circuit_plan_after", "circuit_plan_if_cheaper", "CIRCUIT_UNITS_PER_ELEMENT",
           "AUTO_CHEAPER_SECONDS", "CIRCUIT_VTREE_DRAWS", "sampler_vtree"]

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

PRUNED_DRAWS: dict[str, str] = {
    "circuit": "prunelab.samplers.prune.draws.circuit",
    "circuit-per-step": "prunelab.samplers.prune.draws.circuit_per_step",
    "cmsgen": "prunelab.samplers.prune.draws.cmsgen",
    "unigen": "prunelab.samplers.prune.draws.unigen",
}
"""``uniform=`` name -> module; the codes follow the four classic options in this order."""


CIRCUIT_VTREE_DRAWS = ("circuit", "auto")
"""The ``uniform=`` options that may draw over the whole network's circuit, and so take ``vtree=``."""


def sampler_vtree(uniform: str, vtree, plan=None) -> str:
    """The name of the vtree a prune sampler's circuit is compiled for: ``vtree``, checked, or the dissection.

    A sampler compiles one fixed vtree, never a race, so its draws for a seed depend
    on the network, the evidence, the vtree named and the seed only. To draw over the
    circuit exact inference compiled (it races two vtrees), name the one that won, its
    :attr:`~prunelab.circuit.Circuit.vtree_name`: the circuit is then taken from the
    cache, not compiled again (:func:`prunelab.circuit.circuit_for`).

    Parameters
    ----------
    uniform : str
        The sampler's ``uniform=``; ``vtree`` applies to :data:`CIRCUIT_VTREE_DRAWS` only.
    vtree : {"dissection", "turned", "elimination"} or None
        One of :data:`prunelab.circuit.VTREES`; None is the dissection.
    plan : optional
        The sampler's ``plan=``; a plan holds its circuit already, so it excludes ``vtree``.

    Raises
    ------
    ValueError
        An unknown name, ``vtree`` with another ``uniform=``, or with ``plan=``.
    TypeError
        A ``vtree`` that is not a name (a :class:`~prunelab.circuit.Vtree` goes in a plan).

    Examples
    --------
    >>> sampler_vtree("circuit", "turned"), sampler_vtree("count", None)
    ('turned', 'dissection')
    >>> sampler_vtree("count", "turned")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: vtree='turned' names the vtree of the whole network's circuit, which uniform='count' does not ...
    """
    from prunelab.circuit import check_vtree_choice

    if vtree is None:
        return "dissection"
    if uniform not in CIRCUIT_VTREE_DRAWS:
        raise ValueError(f"vtree={vtree!r} names the vtree of the whole network's circuit, which uniform={uniform!r} "
                         f"does not draw over: it applies to uniform= {CIRCUIT_VTREE_DRAWS}")
    if plan is not None:
        raise ValueError("give vtree= or plan=, not both: a plan given holds its circuit already")
    check_vtree_choice(vtree)
    if not isinstance(vtree, str):
        raise TypeError("a sampler's vtree= is a name, one of prunelab.circuit.VTREES; for a Vtree of your own, pass "
                        "plan=compile_circuit_prune_plan(net, compile_circuit(net, vtree=...))")
    return vtree


def pruned_draw(name: str) -> ModuleType:
    """The module of the pruned-set draw ``name``, imported on first use.

    Examples
    --------
    >>> from prunelab.samplers.prune.draws.registry import pruned_draw
    >>> pruned_draw("circuit").EXACT
    True
    """
    return importlib.import_module(PRUNED_DRAWS[name])


def circuit_plan_after(net, refusal: Exception, vtree: str = "dissection"):
    """The circuit plan that ``uniform="auto"`` turns to when the counting plan refused with ``refusal``.

    The circuit (for the vtree named ``vtree``) is compiled for at most
    :data:`prunelab.circuit.AUTO_COMPILE_SECONDS`; if it too outgrows its caps, the error names both refusals.
    """
    from prunelab.circuit import CircuitTooLargeError, inference
    from prunelab.elimination import TablesTooLargeError

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
    from prunelab.circuit import CircuitTooLargeError, inference

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
