"""Exact transition matrices of prune sampling, Gibbs, Metropolis and MC-SAT on tiny networks."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..clauses import WeightedClauses, satisfied_clauses
from ..compiled import CompiledNetwork, state_labels
from ..network import BayesianNetwork
from .pruned_sets import MAX_KERNEL_STATES, joint_matrix, label_groups, rows_matrix
from .states import as_compiled, clause_states, feasible_states

__all__ = [
    "gibbs_transition_matrix", "mcsat_transition_matrix", "metropolis_transition_matrix", "prune_transition_matrix",
]


def prune_transition_matrix(
    bn: BayesianNetwork,
    evidence: Mapping | None = None,
    method: str = "joint",
    *,
    reference: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The exact transition matrix of prune sampling (with an exactly uniform draw).

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
        A tiny network (its joint state space at most :data:`MAX_STATES`).
    evidence : mapping of str to state, optional
    method : {"joint", "rows"}, default "joint"
        ``"rows"`` follows the definition: for every state ``x``, a dynamic
        programme over the labels not in ``C_x`` gives the distribution of ``S``
        pruned around ``x``, and ``R(x -> y) = sum_S P(S | x) 1{y in S} / |S|``.
        ``"joint"`` runs one programme with *every* label random ("unconditional"
        pruning). Pruning around ``x`` is that pruning conditioned on the labels of
        ``x`` surviving, which is the event ``x in S``, of probability
        ``prod_{l in C_x} c_l = P(x, e)``; so

        .. math:: P(x, e) \\, R(x \\to y) = E\\left[\\frac{1\\{x \\in S\\} 1\\{y \\in S\\}}{|S|}\\right],

        a symmetric matrix - which is the paper's detailed balance in one line.
        Both are exact; ``"joint"`` is one programme instead of ``k``.
    reference : bool, default False
        Run the readable pure-Python programme (sets as Python ints in a dict)
        even when ``k <= 64``. With ``k <= 64`` (:data:`MAX_KERNEL_STATES`) the
        default is the numba kernel; beyond, the reference runs anyway. The two
        add the same probabilities in different orders and agree to ``1e-12``
        relative (3e-13 on the full ``grid-3x3``), not bit for bit.

    Returns
    -------
    states : int64 (k, n)
        The feasible states agreeing with ``e`` (as :func:`feasible_states`).
    R : float64 (k, k)
        ``R[a, b]`` = probability that one prune step from ``states[a]`` moves to
        ``states[b]``.

    Notes
    -----
    The cost is the number of distinct surviving sets, which grows quickly with the
    number of feasible states ``k``, and every set costs ``O(|S|^2)`` to add to
    ``R``. Measured on a 2-core machine (one core used; seconds for the call, peak
    resident memory of the whole process, about 0.2 GB of which is Python and the
    imports):

    ==========================  ====  ============  ====================  ===================
    network                     k     sets          numba kernel          reference
    ==========================  ====  ============  ====================  ===================
    blood_pressure              32    1.8e4         0.004 s               0.2 s
    ``make_grid(3, seed=5)``    32    8.7e4         0.02 s                1.1 s
    catalogue ``grid-3x3``      64    1.49e7        5.4 s, 0.42 GB        287 s, 2.7 GB
    asia                        128   8.4e5         (``k > 64``)          14 s, 0.38 GB
    ==========================  ====  ============  ====================  ===================

    The kernel stores a set as one ``uint64`` and runs the same programme, group
    by group in the same order, with an open-addressing hash table (linear
    probing, at most 70 % full) rebuilt for every group. Since ``R`` is linear in
    the distribution of ``S``, equal sets need not be merged: the last
    :data:`UNMERGED_TAIL` groups are applied while accumulating, all ``2^2``
    patterns of every merged set (4 x 5.1e6 patterns instead of 1.49e7 sets): on
    the grid the tables peak at 5.1e6 sets (``2^23`` slots of 16 bytes, 134 MB)
    instead of 1.49e7 (``2^25`` slots, 537 MB), and the call takes 5.4 s and
    0.42 GB instead of 7.0 s and 0.93 GB. The kernel checks that the sets'
    probabilities, with the empty set's, add up to 1. ``method="rows"`` with the
    kernel takes 23 s on the grid.

    See Also
    --------
    stationary_check, is_regular, prunelab.samplers.prune.sampler

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling", eq. (5)-(6).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import prune_transition_matrix
    >>> states, R = prune_transition_matrix(load_network("deterministic_pair"))
    >>> R.tolist()  # the paper: from (0, 0), stay with probability 3/4
    [[0.75, 0.25], [0.25, 0.75]]
    """
    if method not in ("joint", "rows"):
        raise ValueError(f"unknown method {method!r}; choose 'joint' or 'rows'")
    net = as_compiled(bn, evidence)
    states, _ = feasible_states(net)
    k = states.shape[0]
    labels = state_labels(net, states)
    joint = net.cpt[labels].prod(axis=1)  # P(x, e) = P(x in S)
    kernel = not reference and k <= MAX_KERNEL_STATES
    if method == "rows":
        return states, rows_matrix(lambda a: label_groups(labels, net.cpt, frozenset(int(lab) for lab in labels[a])),
                                   k, kernel)
    return states, joint_matrix(label_groups(labels, net.cpt), k, kernel) / joint[:, None]


def _state_index(states: np.ndarray, card: np.ndarray) -> dict[int, int]:
    keys = states @ _radix(card)
    return {int(key): a for a, key in enumerate(keys)}


def _radix(card: np.ndarray) -> np.ndarray:
    radix = np.ones(len(card), dtype=np.int64)
    for i in range(len(card) - 2, -1, -1):
        radix[i] = radix[i + 1] * card[i + 1]
    return radix


def _single_site_kernels(net: CompiledNetwork, states: np.ndarray, p: np.ndarray, rule: str):
    """Site by site (free variables in topological order), the one-site kernel."""
    k = states.shape[0]
    radix = _radix(net.cardinality)
    index = _state_index(states, net.cardinality)
    keys = states @ radix
    kernels = []
    for i in net.free:
        card = int(net.cardinality[i])
        K = np.zeros((k, k))
        for a in range(k):
            base = int(keys[a] - states[a, i] * radix[i])
            targets = [index.get(base + s * int(radix[i])) for s in range(card)]
            weights = np.array([0.0 if b is None else p[b] for b in targets])
            if rule == "gibbs":
                for s, b in enumerate(targets):
                    if b is not None:
                        K[a, b] += weights[s] / weights.sum()
            else:  # metropolis, uniform proposal over the other states
                if card < 2:
                    K[a, a] = 1.0
                    continue
                for s, b in enumerate(targets):
                    if s == states[a, i] or b is None:
                        continue
                    K[a, b] += min(1.0, weights[s] / p[a]) / (card - 1)
                K[a, a] += 1.0 - K[a].sum()
        kernels.append(K)
    return kernels


def _sweep(net: CompiledNetwork, evidence, rule: str) -> tuple[np.ndarray, np.ndarray]:
    states, p = feasible_states(net, evidence)
    R = np.eye(states.shape[0])
    for K in _single_site_kernels(net, states, p, rule):
        R = R @ K
    return states, R


def gibbs_transition_matrix(
    bn: BayesianNetwork, evidence: Mapping | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact transition matrix of one systematic-scan Gibbs sweep.

    The sweep visits the free variables in topological order, each drawn from its
    full conditional, as :mod:`prunelab.samplers.gibbs` does. From a feasible
    state it only reaches feasible states, so the matrix is over those. A
    systematic sweep keeps ``P`` stationary but is not reversible in general (each
    single-site update is).

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
    evidence : mapping of str to state, optional

    Returns
    -------
    states : int64 (k, n)
    R : float64 (k, k)

    See Also
    --------
    communicating_classes : Gibbs on a deterministic network is reducible.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import gibbs_transition_matrix, is_irreducible
    >>> states, R = gibbs_transition_matrix(load_network("deterministic_pair"))
    >>> R.tolist(), is_irreducible(R)
    ([[1.0, 0.0], [0.0, 1.0]], False)
    """
    net = as_compiled(bn, evidence)
    return _sweep(net, None, "gibbs")


def metropolis_transition_matrix(
    bn: BayesianNetwork, evidence: Mapping | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Exact transition matrix of one systematic-scan single-site Metropolis sweep.

    At every free variable (topological order) a new state is proposed uniformly
    among the other states of that variable and accepted with probability
    ``min(1, P(x') / P(x))``, as :mod:`prunelab.samplers.metropolis` does.

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
    evidence : mapping of str to state, optional

    Returns
    -------
    states : int64 (k, n)
    R : float64 (k, k)

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import metropolis_transition_matrix
    >>> states, R = metropolis_transition_matrix(load_network("deterministic_pair"))
    >>> R.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    net = as_compiled(bn, evidence)
    return _sweep(net, None, "metropolis")


def mcsat_transition_matrix(clauses: WeightedClauses, method: str = "joint") -> tuple[np.ndarray, np.ndarray]:
    """The exact transition matrix of MC-SAT with an exactly uniform draw, from the clauses alone.

    From ``x``, every soft clause ``x`` satisfies is kept with probability
    ``1 - exp(-w)`` and the next state is uniform on ``M``, the hard-feasible
    states that satisfy every kept clause. Only the states a clause *violates*
    matter, so soft clauses are grouped by that set (a group survives, i.e. is
    not kept, with probability ``prod exp(-w)``), and the distribution of ``M``
    is the dynamic programme of :func:`prune_transition_matrix` (the same kernel
    for ``k <= 64`` states, the dict programme beyond). ``"joint"`` keeps every
    soft clause at random and conditions on ``x in M``, an event of probability
    ``exp(-sum of w over the clauses x violates)``; ``"rows"`` follows the
    definition row by row. Nothing here knows about CPT labels: on the clauses of
    a network, the chapter "Prune sampling and MC-SAT" shows that the result is
    prune sampling's matrix.

    Parameters
    ----------
    clauses : WeightedClauses
    method : {"joint", "rows"}, default "joint"

    Returns
    -------
    states : int64 (k, n)
        As :func:`clause_states`.
    R : float64 (k, k)

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses
    >>> from prunelab.theory import mcsat_transition_matrix
    >>> states, R = mcsat_transition_matrix(network_clauses(compile_network(load_network("deterministic_pair"))))
    >>> R.round(12).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    if method not in ("joint", "rows"):
        raise ValueError(f"unknown method {method!r}; choose 'joint' or 'rows'")
    states, _ = clause_states(clauses)
    k = states.shape[0]
    soft = np.flatnonzero(~clauses.hard)
    violated = ~satisfied_clauses(clauses, states)[:, soft]  # (k, soft)
    survive = np.exp(-clauses.weight[soft])

    def groups(exclude) -> dict[int, float]:
        out: dict[int, float] = {}
        for j in np.flatnonzero(violated.any(axis=0) & ~exclude):
            mask = sum(1 << int(s) for s in np.flatnonzero(violated[:, j]))
            out[mask] = out.get(mask, 1.0) * float(survive[j])
        return out

    kernel = k <= MAX_KERNEL_STATES
    if method == "rows":
        return states, rows_matrix(lambda a: groups(violated[a]), k, kernel)
    in_m = np.exp(-(violated * clauses.weight[soft]).sum(axis=1))  # P(x in M), unconditional selection
    return states, joint_matrix(groups(np.zeros(len(soft), bool)), k, kernel) / in_m[:, None]
