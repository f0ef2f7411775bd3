"""Every uniform draw of prune sampling, in one registry: :data:`DRAWS`, the one place that names them.

A prune step prunes around the current state (:mod:`prunelab.samplers.prune.pruning`), then draws the next state
uniformly from the pruned set ``S``. How it draws is the sampler's ``uniform=``, a key of :data:`DRAWS`; its position
there is the integer code the kernels and ``PruneChain.uniform_code`` report (:data:`UNIFORM_NAMES`), and its
:class:`Draw` says where it lives and what it offers.

The first four (``"enumerate"``, ``"count"``, ``"heuristic"``, ``"auto"``) are drawn by prune's own numba chain over the
counting plan (:class:`~prunelab.samplers.prune.plan.PrunePlan`; see :mod:`prunelab.samplers.prune.draws`); their
``module`` is None. Every other draw is a module, imported on first use (:func:`pruned_draw`), that defines

``plan(net) -> Plan``
    Compiled once per (network, evidence) and cached by content; its field ``pruning``
    (:class:`~prunelab.samplers.prune.plan.Pruning`) says which labels a step prunes at random, so the pruning
    step is shared. A draw with ``vtree=True`` takes ``plan(net, vtree)``.
``draw(rng, net, x, kept, plan) -> (y, size)``
    The next state given the pruning ``kept`` (the readable reference), and ``|S|`` (NaN when the method does not
    count).
``run_chain(rng, net, x0, n_draws, plan) -> (draws, sizes)``
    ``n_draws`` prune steps, consuming ``rng`` exactly as ``n_draws`` prunings
    (:func:`~prunelab.samplers.prune.pruning.prune_around`) each followed by ``draw``.
``marginals(net, kept, plan)`` (with ``rao_blackwell=True``)
    The Rao-Blackwell term of a step: ``E[1{X_i = s} | S]``.

A new uniform draw is one such module and one entry here: the sampler, tempering (``tempered=True``), MC-SAT
(``mcsat=True``), the Rao-Blackwell sums and ``vtree=`` read its :class:`Draw`, and
``tests/samplers/test_draws.py`` checks every exact draw's uniformity on tiny networks.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import NamedTuple

from prunelab.circuit import check_vtree_choice

__all__ = ["Draw", "DRAWS", "UNIFORM_NAMES", "ENUMERATE", "COUNT", "HEURISTIC", "AUTO", "uniform_index",
           "pruned_draw", "sampler_vtree"]


class Draw(NamedTuple):
    """One uniform draw from the pruned set: where it lives and what it offers.

    Attributes
    ----------
    module : str or None
        The dotted name of its module (``plan``, ``draw``, ``run_chain``); None for the draws prune's own chain makes
        over the counting plan.
    exact : bool
        Every member of ``S`` is drawn with probability ``1 / |S|`` (up to the rounding of the logs).
    rao_blackwell : bool
        A step gives its pruned set's marginals, so a chain records Rao-Blackwell sums.
    vtree : bool
        It may draw over the whole network's circuit, and so takes ``vtree=``.
    tempered : bool
        Tempered prune sampling (``"prune-tempered"``) draws with it.
    mcsat : bool
        MC-SAT draws from its kept clauses' models with it (``uniform=`` of :mod:`prunelab.samplers.mcsat`).
    """

    module: str | None
    exact: bool
    rao_blackwell: bool = False
    vtree: bool = False
    tempered: bool = False
    mcsat: bool = False


_WING = "prunelab.samplers.prune.draws"

DRAWS: dict[str, Draw] = {
    "enumerate": Draw(None, exact=True, rao_blackwell=True, tempered=True),
    "count": Draw(None, exact=True, rao_blackwell=True, tempered=True),
    "heuristic": Draw(None, exact=False),
    "auto": Draw(None, exact=True, rao_blackwell=True, vtree=True, tempered=True),
    "circuit": Draw(f"{_WING}.circuit", exact=True, rao_blackwell=True, vtree=True, tempered=True),
    "circuit-per-step": Draw(f"{_WING}.circuit_per_step", exact=True),
    "cmsgen": Draw(f"{_WING}.cmsgen", exact=False, mcsat=True),
    "unigen": Draw(f"{_WING}.unigen", exact=False, mcsat=True),
}
"""``uniform=`` name -> :class:`Draw`. ``"heuristic"`` is the paper's approximate method (biased), ``"cmsgen"``
near-uniform without a guarantee, ``"unigen"`` almost-uniform with one (:mod:`.cmsgen`, :mod:`.unigen`);
``"auto"`` never draws itself: it counts or searches (or turns to the circuit) and reports which."""

UNIFORM_NAMES = tuple(DRAWS)
"""The names of :data:`DRAWS`; by position, the name of the draw that ran for the integer code the kernels return."""

ENUMERATE, COUNT, HEURISTIC, AUTO = (UNIFORM_NAMES.index(name) for name in ("enumerate", "count", "heuristic", "auto"))
"""The codes of the draws of prune's own chain (numba reads them as constants)."""


def uniform_index(uniform: str) -> int:
    """The integer code of the draw ``uniform`` names: its position in :data:`DRAWS`.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).

    Examples
    --------
    >>> uniform_index("auto"), UNIFORM_NAMES[uniform_index("circuit")]
    (3, 'circuit')
    """
    if uniform not in DRAWS:
        raise ValueError(f"unknown uniform draw {uniform!r}; choose one of {list(UNIFORM_NAMES)}")
    return UNIFORM_NAMES.index(uniform)


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
        The sampler's ``uniform=``; ``vtree`` applies to the draws with ``Draw.vtree`` only.
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
    if vtree is None:
        return "dissection"
    if not DRAWS[uniform].vtree:
        takes = tuple(name for name, draw in DRAWS.items() if draw.vtree)
        raise ValueError(f"vtree={vtree!r} names the vtree of the whole network's circuit, which uniform={uniform!r} "
                         f"does not draw over: it applies to uniform= {takes}")
    if plan is not None:
        raise ValueError("give vtree= or plan=, not both: a plan given holds its circuit already")
    check_vtree_choice(vtree)
    if not isinstance(vtree, str):
        raise TypeError("a sampler's vtree= is a name, one of prunelab.circuit.VTREES; for a Vtree of your own, pass "
                        "plan=compile_circuit_prune_plan(net, compile_circuit(net, vtree=...))")
    return vtree


def pruned_draw(name: str) -> ModuleType:
    """The module of the draw ``name`` (one with a ``Draw.module``), imported on first use.

    Examples
    --------
    >>> pruned_draw("circuit").__name__
    'prunelab.samplers.prune.draws.circuit'
    """
    module = DRAWS[name].module
    if module is None:
        raise ValueError(f"uniform={name!r} is drawn by prune's own chain over the counting plan: it has no module")
    return importlib.import_module(module)
