"""Draws from the pruned set that need only the pruning: the ``uniform=`` options beyond the counting plan.

The four classic options of :mod:`prunelab.samplers.uniform` (``"enumerate"``,
``"count"``, ``"heuristic"``, ``"auto"``) share one plan built on the junction
tree's elimination order. The options listed here bring their own: each is a
module, imported on first use, that defines

``plan(net) -> Plan``
    Compiled once per (network, evidence) and cached by content; it has the
    pruning lists ``random_label``, ``random_c`` and ``base_kept`` of
    :class:`prunelab.samplers.prune_plans.PrunePlan` (the same sets), so the pruning
    step is shared.
``draw(rng, net, x, kept, plan) -> (y, size)``
    The next state given the pruning ``kept`` (the readable reference), and
    ``|S|`` (NaN when the method does not count).
``run_chain(rng, net, x0, n_draws, plan) -> (draws, sizes)``
    ``n_draws`` prune steps, consuming ``rng`` exactly as ``n_draws`` prunings
    (:func:`prunelab.samplers.prune.prune_around`) each followed by ``draw``.
``EXACT``
    True when every member of ``S`` is drawn with probability ``1 / |S|``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["PRUNED_DRAWS", "pruned_draw", "circuit_plan_after"]

PRUNED_DRAWS: dict[str, str] = {
    "circuit": "prunelab.samplers.prune_circuit",
    "circuit-per-step": "prunelab.samplers.prune_circuit_per_step",
    "cmsgen": "prunelab.samplers.prune_cmsgen",
    "unigen": "prunelab.samplers.prune_unigen",
}
"""``uniform=`` name -> module; the codes follow the four classic options in this order."""


def pruned_draw(name: str) -> ModuleType:
    """The module of the pruned-set draw ``name``, imported on first use.

    Examples
    --------
    >>> from prunelab.samplers.pruned_draws import pruned_draw
    >>> pruned_draw("circuit").EXACT
    True
    """
    return importlib.import_module(PRUNED_DRAWS[name])


def circuit_plan_after(net, refusal: Exception):
    """The circuit plan that ``uniform="auto"`` turns to when the counting plan refused with ``refusal``.

    The circuit is compiled for at most :data:`prunelab.circuit.AUTO_COMPILE_SECONDS`;
    if it too outgrows its caps, the error names both refusals.
    """
    from ..circuit import CircuitTooLargeError, inference
    from ..elimination import TablesTooLargeError

    try:
        inference.circuit_for(net, max_seconds=inference.AUTO_COMPILE_SECONDS)  # cached for the plan below
    except CircuitTooLargeError as exc:
        raise TablesTooLargeError(f"{refusal} uniform='auto' then tried a circuit: {exc}") from None
    return pruned_draw("circuit").plan(net)
