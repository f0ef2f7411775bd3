"""Prune sampling's draw from the pruned set by CMSGen: ``uniform="cmsgen"`` (near-uniform, no guarantee).

CMSGen (Golia, Soos, Chakraborty & Meel 2021) is CryptoMiniSat tuned to return
diverse solutions: random polarities and variable order, no restarts from a saved
phase. Each prune step builds a fresh solver seeded from ``rng`` (one
``rng.integers`` call), gives it the CNF of the pruned set
(:mod:`prunelab.samplers.prune.draws.solver`: the network's circuit encoding and a unit
clause ``-theta`` for every pruned label indicator) and reads the next state off the
model it returns.

**Not uniform.** CMSGen has no uniformity guarantee; its makers tested it with
statistical uniformity checks on benchmark CNFs. Here its bias is measurable even
on tiny sets (see ``tests/samplers/test_solver_draws.py`` and
``benchmarks/bench_solver_draws.py``), so the chain's stationary distribution is
not exactly ``P(x | e)``: :data:`~prunelab.samplers.prune.draws.registry.DRAWS` marks it not exact. It never
counts: ``size`` is NaN.

Limits. :attr:`CMSGenPlan.confl_limit` (conflicts, deterministic: a chain stays
reproducible from its seed) and :attr:`CMSGenPlan.time_limit` (seconds; None: off)
bound each call; a call that returns no model within them leaves the chain at ``x``
with ``size`` :data:`~prunelab.samplers.prune.draws.solver.NO_MODEL` (0). Change them with
``plan(net)._replace(...)`` and pass that plan to :func:`prunelab.samplers.prune.sampler.run_chain`.

Needs ``pycmsgen`` (``pip install 'prunelab[solvers]'``; PyPI has only its source,
which builds with a C++ compiler and CMake in about three minutes).

References
----------
.. [1] P. Golia, M. Soos, S. Chakraborty and K. S. Meel, "Designing samplers is
   easy: the boon of testers", FMCAD 2021 (CMSGen).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from prunelab.compiled import CompiledNetwork
from prunelab.extras import require

from ..plan import Pruning
from .solver import (
    EXTRA,
    NO_MODEL,
    NOT_COUNTED,
    SolverCNF,
    check_pruning,
    decode_model,
    pruned_units,
    solver_chain,
    solver_cnf,
    solver_seed,
)

__all__ = ["CONFL_LIMIT", "CMSGenPlan", "plan", "draw", "run_chain"]

CONFL_LIMIT = 1_000_000
"""Conflicts one CMSGen call may take before it gives up (the chain then stays at ``x``)."""


class CMSGenPlan(NamedTuple):
    """What a CMSGen prune step needs: the CNF (cached per network and evidence) and the solver's limits.

    Attributes
    ----------
    cnf : SolverCNF
    pruning : Pruning
        The CNF's (:class:`~prunelab.samplers.prune.draws.solver.SolverCNF`).
    confl_limit : int
        Conflicts per call (:data:`CONFL_LIMIT`).
    time_limit : float or None
        Seconds per call; None: no time limit (the default, so that a chain does
        not depend on the machine's speed).
    """

    cnf: SolverCNF
    pruning: Pruning
    confl_limit: int = CONFL_LIMIT
    time_limit: float | None = None


def plan(net: CompiledNetwork) -> CMSGenPlan:
    """The :class:`CMSGenPlan` of ``net`` (its CNF compiled on first use and cached by content).

    Raises
    ------
    prunelab.extras.MissingExtraError
        ``pycmsgen`` is not installed (the message names the extra that installs it).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws import cmsgen
    >>> import pytest; _ = pytest.importorskip("pycmsgen")  # the example needs the extra
    >>> p = cmsgen.plan(compile_network(load_network("deterministic_pair")))
    >>> p.pruning.random_label.tolist(), p.confl_limit
    ([0, 1], 1000000)
    """
    return _cmsgen_plan(net)


def _cmsgen_plan(net: CompiledNetwork) -> CMSGenPlan:
    require("pycmsgen", EXTRA, "uniform='cmsgen'")
    cnf = solver_cnf(net)
    return CMSGenPlan(cnf, cnf.pruning)


def draw(rng: np.random.Generator, net: CompiledNetwork, x: np.ndarray, kept: np.ndarray,
         plan: CMSGenPlan) -> tuple[np.ndarray, float]:
    """The next state of one prune step given its pruning ``kept``: one CMSGen call.

    Returns
    -------
    y : int64 (n,)
        A member of ``S``; ``x`` itself if CMSGen returned no model within its limits.
    size : float
        NaN (not counted), or :data:`~prunelab.samplers.prune.draws.solver.NO_MODEL` (0)
        when CMSGen returned no model.

    Raises
    ------
    ValueError
        ``kept`` prunes a label of ``x`` (``S`` would be empty), checked before the solver runs.
    """
    pycmsgen = require("pycmsgen", EXTRA, "uniform='cmsgen'")
    check_pruning(net, x, kept)
    limits = {"confl_limit": int(plan.confl_limit)}
    if plan.time_limit is not None:
        limits["time_limit"] = float(plan.time_limit)
    solver = pycmsgen.Solver(seed=solver_seed(rng), **limits)
    solver.add_clauses(plan.cnf.clauses)
    units = pruned_units(plan.cnf, kept)
    if units.shape[0]:
        solver.add_clauses(units)
    satisfiable, model = solver.solve()
    if satisfiable is None:
        return decode_model(plan.cnf, net, x, None), NO_MODEL
    if not satisfiable:  # x satisfies the CNF: only a solver fault gets here
        raise RuntimeError("CMSGen found no model of a CNF that the current state x satisfies")
    return decode_model(plan.cnf, net, x, np.array(model, dtype=bool)), NOT_COUNTED


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int, plan: CMSGenPlan | None = None):
    """``n_draws`` prune steps with CMSGen draws: ``(draws, sizes)``, ``rng`` consumed as by :func:`draw`.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws import cmsgen
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> import pytest; _ = pytest.importorskip("pycmsgen")  # the example needs the extra
    >>> draws, sizes = cmsgen.run_chain(np.random.default_rng(1), net, [0, 0], 3)
    >>> draws.shape, bool(np.isnan(sizes).all())
    ((3, 2), True)
    """
    plan = _cmsgen_plan(net) if plan is None else plan
    return solver_chain(rng, net, x0, n_draws, plan, draw)
