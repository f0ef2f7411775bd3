"""Where Gibbs sampling is trapped: its communicating classes and the spread sigma_inf they leave.

A Gibbs sweep on a deterministic network can split the feasible states into
communicating classes it never leaves. A run started in class ``k`` (drawn from ``P``,
as forward sampling does without evidence) estimates ``P(query = s | class k) = p_k``
however long it runs, so the spread of run estimates around the exact ``p`` tends to

.. math:: \\sigma_\\infty = \\Big(\\sum_k P(k)\\,(p_k - p)^2\\Big)^{1/2},

not to 0. :func:`query_classes` computes the classes, their ``P(k)`` and ``p_k`` exactly.

References
----------
F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference technique
for discrete and deterministic Bayesian networks", Example 1 (Gibbs trapped).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .chains import communicating_classes
from .matrices import gibbs_transition_matrix
from .states import feasible_states

__all__ = ["QueryClasses", "query_classes"]


class QueryClasses(NamedTuple):
    """The communicating classes of a Gibbs sweep, seen from one query state."""

    states: np.ndarray
    """(n_states, n_variables) the feasible states, state indices."""
    p: np.ndarray
    """(n_states,) their probability."""
    classes: list
    """The members (state rows) of each class."""
    mass: np.ndarray
    """(n_classes,) ``P(class)``."""
    level: np.ndarray
    """(n_classes,) ``P(query = state | class)``: where a run trapped in the class settles."""
    p_query: float
    """The exact ``P(query = state)``."""
    sigma_infinity: float
    """The limiting spread of run estimates around ``p_query`` (module notes)."""


def query_classes(bn, query: str, state: int, evidence=None) -> QueryClasses:
    """The classes of a Gibbs sweep on ``bn`` and the limit sigma_inf of the spread of run estimates.

    Parameters
    ----------
    bn : BayesianNetwork
        Small enough to list its feasible states (:func:`feasible_states`).
    query : str
        The query variable.
    state : int
        The index of the query state whose probability the runs estimate.
    evidence : mapping, optional

    Returns
    -------
    QueryClasses

    Raises
    ------
    KeyError
        If ``query`` is not a variable of ``bn``.
    ValueError
        If ``state`` is not a state index of ``query``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> qc = query_classes(load_network("deterministic_pair"), "A", 0)
    >>> len(qc.classes), qc.level.tolist(), round(qc.sigma_infinity, 12)
    (2, [1.0, 0.0], 0.5)
    """
    qi = bn.index(query)
    n_states = len(bn.states[query])
    if not 0 <= int(state) < n_states:
        raise ValueError(f"state {state} is not a state index of {query!r} (it has {n_states} states)")
    states, p = feasible_states(bn, evidence)
    states_gibbs, R = gibbs_transition_matrix(bn, evidence)
    if not np.array_equal(states_gibbs, states):
        raise AssertionError("feasible_states and gibbs_transition_matrix list the states differently")
    classes = communicating_classes(R)
    hit = states[:, qi] == state
    p_query = float(p[hit].sum())
    mass = np.array([p[m].sum() for m in classes])
    level = np.array([p[m][hit[m]].sum() / p[m].sum() for m in classes])
    sigma = float(np.sqrt(np.sum(mass * (level - p_query) ** 2)))
    return QueryClasses(states, p, classes, mass, level, p_query, sigma)
