"""Prune sampling's draw from the pruned set by UniGen3: ``uniform="unigen"`` (almost-uniform).

UniGen3 (Soos, Gocht & Meel 2020) partitions the solutions with random XOR
constraints into cells of about the same size, found from an approximate count
(ApproxMC), and draws uniformly inside a random cell; when the solutions are few it
lists them all and draws among them. Each prune step builds a fresh sampler seeded
from ``rng`` (one ``rng.integers`` call), gives it the CNF of the pruned set
(:mod:`prunelab.samplers.prune.draws.solver`: the network's circuit encoding and a unit
clause ``-theta`` for every pruned label indicator) with the state indicators as
its sampling set (the label indicators follow from them, so the projection is one
to one) and reads the next state off the one sample it returns.

**Almost uniform.** UniGen's guarantee (Chakraborty et al. 2015) bounds each
member's probability within a factor ``1 + eps`` of ``1 / |S|``, where
``eps = (1 + kappa) (2.23 + 0.48 / (1 - kappa)**2) - 1``: about 8.6 at the default
``kappa = 0.638``. A loose bound: the measured bias
(``benchmarks/bench_solver_draws.py``) is far smaller. :data:`~prunelab.samplers.prune.draws.registry.DRAWS`
marks it not exact, and
``size`` is NaN (the sampler's internal count is approximate and not returned).

Limits. UniGen has none to set; if a call returns no sample the chain stays at
``x`` with ``size`` :data:`~prunelab.samplers.prune.draws.solver.NO_MODEL` (0). Its
tolerances (:attr:`UniGenPlan.kappa`, ``epsilon``, ``delta``) change with
``plan(net)._replace(...)``, passed on to :func:`prunelab.samplers.prune.sampler.run_chain`.

Needs ``pyunigen`` (``pip install 'prunelab[solvers]'``; a CPython 3.11 wheel).

References
----------
.. [1] M. Soos, S. Gocht and K. S. Meel, "Tinted, detached, and lazy CNF-XOR
   solving and its applications to counting and sampling", CAV 2020 (UniGen3).
.. [2] S. Chakraborty, D. J. Fremont, K. S. Meel, S. A. Seshia and M. Y. Vardi,
   "On parallel scalable uniform SAT witness generation", TACAS 2015 (the bound).
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

__all__ = ["UniGenPlan", "plan", "draw", "run_chain", "uniformity_bound"]



class UniGenPlan(NamedTuple):
    """What a UniGen prune step needs: the CNF (cached per network and evidence) and the sampler's tolerances.

    Attributes
    ----------
    cnf : SolverCNF
    pruning : Pruning
        The CNF's (:class:`~prunelab.samplers.prune.draws.solver.SolverCNF`).
    clauses : tuple of lists of int
        The CNF's clauses as pyunigen takes them, split once here instead of at every step.
    kappa : float
        Uniformity tolerance (pyunigen's default; see :func:`uniformity_bound`).
    epsilon, delta : float
        Tolerance and confidence of the approximate count UniGen partitions with
        (pyunigen's defaults).
    """

    cnf: SolverCNF
    pruning: Pruning
    clauses: tuple
    kappa: float = 0.638
    epsilon: float = 0.8
    delta: float = 0.2


def uniformity_bound(kappa: float) -> float:
    """UniGen's ``eps``: each member drawn with probability in ``[1 / ((1 + eps) |S|), (1 + eps) / |S|]``.

    Examples
    --------
    >>> from prunelab.samplers.prune.draws.unigen import uniformity_bound
    >>> round(uniformity_bound(0.638), 2)
    8.65
    """
    return (1.0 + kappa) * (2.23 + 0.48 / (1.0 - kappa) ** 2) - 1.0


def plan(net: CompiledNetwork) -> UniGenPlan:
    """The :class:`UniGenPlan` of ``net`` (its CNF compiled on first use and cached by content).

    Raises
    ------
    prunelab.extras.MissingExtraError
        ``pyunigen`` is not installed (the message names the extra that installs it).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws import unigen
    >>> import pytest; _ = pytest.importorskip("pyunigen")  # the example needs the extra
    >>> p = unigen.plan(compile_network(load_network("deterministic_pair")))
    >>> p.pruning.random_label.tolist(), p.cnf.state_boolean.tolist()
    ([0, 1], [1, 2])
    """
    return _unigen_plan(net)


def _unigen_plan(net: CompiledNetwork) -> UniGenPlan:
    require("pyunigen", EXTRA, "uniform='unigen'")
    cnf = solver_cnf(net)
    split = np.split(cnf.clauses, np.flatnonzero(cnf.clauses == 0)[:-1] + 1)
    clauses = tuple(clause[:-1].tolist() for clause in split)
    return UniGenPlan(cnf, cnf.pruning, clauses)


def draw(rng: np.random.Generator, net: CompiledNetwork, x: np.ndarray, kept: np.ndarray,
         plan: UniGenPlan) -> tuple[np.ndarray, float]:
    """The next state of one prune step given its pruning ``kept``: one UniGen sample.

    Returns
    -------
    y : int64 (n,)
        A member of ``S``; ``x`` itself if UniGen returned no sample.
    size : float
        NaN (not counted), or :data:`~prunelab.samplers.prune.draws.solver.NO_MODEL` (0)
        when UniGen returned no sample.

    Raises
    ------
    ValueError
        ``kept`` prunes a label of ``x`` (``S`` would be empty), checked before the sampler runs
        (pyunigen ends the process on an unsatisfiable CNF).
    """
    pyunigen = require("pyunigen", EXTRA, "uniform='unigen'")
    check_pruning(net, x, kept)
    cnf = plan.cnf
    seed = solver_seed(rng)
    if cnf.state_boolean.shape[0] == 0:  # every variable observed: S is {x}
        return decode_model(cnf, net, x, None), NOT_COUNTED
    sampler = pyunigen.Sampler(seed=seed, kappa=float(plan.kappa), epsilon=float(plan.epsilon),
                               delta=float(plan.delta))
    for clause in plan.clauses:
        sampler.add_clause(clause)
    for theta in pruned_units(cnf, kept)[::2].tolist():
        sampler.add_clause([theta])
    _, _, samples = sampler.sample(num=1, sampling_set=cnf.state_boolean.tolist())
    if not samples:
        return decode_model(cnf, net, x, None), NO_MODEL
    value = np.zeros(cnf.encoding.n_booleans + 1, dtype=bool)
    literals = np.asarray(samples[0], dtype=np.int64)
    value[np.abs(literals)] = literals > 0
    return decode_model(cnf, net, x, value), NOT_COUNTED


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int, plan: UniGenPlan | None = None):
    """``n_draws`` prune steps with UniGen draws: ``(draws, sizes)``, ``rng`` consumed as by :func:`draw`.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws import unigen
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> import pytest; _ = pytest.importorskip("pyunigen")  # the example needs the extra
    >>> draws, sizes = unigen.run_chain(np.random.default_rng(1), net, [0, 0], 3)
    >>> draws.shape, bool(np.isnan(sizes).all())
    ((3, 2), True)
    """
    plan = _unigen_plan(net) if plan is None else plan
    return solver_chain(rng, net, x0, n_draws, plan, draw)
