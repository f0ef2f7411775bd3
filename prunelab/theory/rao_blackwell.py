"""The stationary expectation of prune sampling's Rao-Blackwell term, computed exactly on a tiny network.

At stationarity the state ``x`` has the law ``pi(x) = P(x | e)``, a pruning around
``x`` leaves the set ``S`` with probability ``P(S | x)``, and the Rao-Blackwell
term of the step is the set's uniform marginal ``m_S(i, s) = |{y in S: y_i = s}| /
|S|`` (:mod:`prunelab.samplers.prune.rao_blackwell`). Its expectation

.. math:: \\sum_x \\pi(x) \\sum_S P(S \\mid x) \\, m_S(i, s)

is :func:`rao_blackwell_expectation`: the distribution of ``S`` from ``x`` by the
dynamic programme of :mod:`.pruned_sets` (every set, not a sample), and ``m_S`` by
the sampler's own kernels (a count and the downward pass over its tables). It
must equal ``P(X_i = s | e)``: that is the estimator's unbiasedness at
stationarity, since ``sum_S P(S | x) m_S = sum_y R(x -> y) 1{y_i = s}`` and ``pi R =
pi``.

:func:`mcsat_rao_blackwell_expectation` is the same check for MC-SAT with exact
uniform draws, built from the weighted clauses alone: from ``x`` every random soft
clause that ``x`` satisfies is kept with probability ``1 - exp(-w)``, ``M`` is what
the kept clauses leave, and its uniform marginal comes from MC-SAT's own counting
plan and kernels.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..clauses import network_clauses, satisfied_clauses
from ..compiled import CompiledNetwork, state_labels
from ..network import BayesianNetwork
from ..samplers.mcsat import mcsat_plan
from ..samplers.prune.draws.counting import count_nb
from ..samplers.prune.plan import make_workspace, prune_plan
from ..samplers.prune.rao_blackwell import count_marginals_arrays, rao_blackwell_sums
from .pruned_sets import label_groups, set_members, surviving_sets
from .states import as_compiled, clause_states, feasible_states

__all__ = ["rao_blackwell_expectation", "mcsat_rao_blackwell_expectation"]


def rao_blackwell_expectation(bn: BayesianNetwork, evidence: Mapping | None = None) -> tuple[np.ndarray, int]:
    """``sum_x pi(x) sum_S P(S | x) m_S``: the stationary mean of prune sampling's Rao-Blackwell term.

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
        A tiny network (its feasible states listed, as for
        :func:`prunelab.theory.prune_transition_matrix`).
    evidence : mapping of str to state, optional

    Returns
    -------
    expectation : float64 (sum of cardinalities,)
        At ``state_offsets(net)[i] + s``; evidence variables one-hot. Equals
        ``P(X_i = s | e)`` (to rounding).
    n_sets : int
        The distinct pruned sets whose marginals were computed.

    Raises
    ------
    AssertionError
        A set's count by the sampler's kernel differs from its number of members.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory.rao_blackwell import rao_blackwell_expectation
    >>> expectation, n_sets = rao_blackwell_expectation(load_network("deterministic_pair"))
    >>> expectation.tolist(), n_sets
    ([0.5, 0.5, 0.5, 0.5], 3)
    """
    net = as_compiled(bn, evidence)
    states, posterior = feasible_states(net)
    labels = state_labels(net, states)
    set_marginals, marginals = _set_marginals(net, prune_plan(net).uniform, labels)
    full = (1 << states.shape[0]) - 1
    expectation = np.zeros(int(np.sum(net.cardinality)))
    for a in range(states.shape[0]):
        groups = label_groups(labels, net.cpt, frozenset(int(lab) for lab in labels[a]))
        for mask, prob in surviving_sets(groups, full).items():
            expectation += posterior[a] * prob * set_marginals(mask)
    return expectation, len(marginals)


def _set_marginals(net: CompiledNetwork, plan, labels: np.ndarray):
    """``(m, cache)``: ``m(mask)`` the uniform marginals of the set of ``states`` rows in ``mask`` (cached).

    By a sampler's kernels: the count over the members' labels (checked against the
    number of members) and the downward pass over its tables; evidence one-hot.
    """
    ws = make_workspace(net, plan)
    rb = rao_blackwell_sums(net, plan, [], 1)
    offsets = rb.offsets
    observed = np.flatnonzero(net.evidence_value >= 0)
    marginals: dict[int, np.ndarray] = {}

    def set_marginals(mask: int) -> np.ndarray:
        if mask not in marginals:
            members = set_members(mask)
            kept = np.zeros(net.n_labels, dtype=np.bool_)
            kept[labels[members].ravel()] = True  # the members' labels: exactly the set survives
            size = count_nb(plan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base)
            assert size == len(members), f"the kernel counts {size} members in a set of {len(members)}"
            out = np.zeros(int(offsets[-1]))
            count_marginals_arrays(plan.table_ptr, plan.step_scope_ptr, plan.step_scope_var, plan.step_scope_card,
                                   rb.message_ptr, rb.message_input, plan.step_input_ptr, plan.step_input_factor,
                                   plan.input_stride_ptr,
                                   plan.input_stride, plan.factor_ptr, plan.n_indicator, plan.gather_ptr,
                                   plan.gather, ws.factors, ws.tables, rb.reached, rb.listed, rb.n_listed, rb.index,
                                   offsets, out)
            out[offsets[observed] + net.evidence_value[observed]] = 1.0
            marginals[mask] = out
        return marginals[mask]

    return set_marginals, marginals


def mcsat_rao_blackwell_expectation(bn: BayesianNetwork, evidence: Mapping | None = None
                                    ) -> tuple[np.ndarray, int]:
    """``sum_x pi(x) sum_M P(M | x) m_M``: the stationary mean of MC-SAT's Rao-Blackwell term (exact draws).

    Built from the network's weighted clauses (:func:`prunelab.clauses.network_clauses`)
    as :func:`prunelab.theory.mcsat_transition_matrix` builds the chain: ``pi`` is
    the clauses' target on the hard-feasible states, and from ``x`` each soft clause
    that ``x`` satisfies and some feasible state violates is kept with probability
    ``1 - exp(-w)``, which removes the states violating it from ``M``. ``m_M`` comes
    from MC-SAT's counting plan (:func:`prunelab.samplers.mcsat.mcsat_plan`) and the
    kernels its chain runs.

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
        A tiny network.
    evidence : mapping of str to state, optional

    Returns
    -------
    expectation : float64 (sum of cardinalities,)
        Equals ``P(X_i = s | e)`` (to rounding).
    n_sets : int
        The distinct sets ``M`` whose marginals were computed.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory.rao_blackwell import mcsat_rao_blackwell_expectation
    >>> expectation, n_sets = mcsat_rao_blackwell_expectation(load_network("deterministic_pair"))
    >>> expectation.round(12).tolist(), n_sets
    ([0.5, 0.5, 0.5, 0.5], 3)
    """
    net = as_compiled(bn, evidence)
    clauses = network_clauses(net)
    states, target = clause_states(clauses)
    set_marginals, marginals = _set_marginals(net, mcsat_plan(net).uniform, state_labels(net, states))
    soft = np.flatnonzero(~clauses.hard)
    violated = ~satisfied_clauses(clauses, states)[:, soft]  # (state, soft clause)
    survive = np.exp(-clauses.weight[soft])
    random = violated.any(axis=0)
    masks = [sum(1 << int(k) for k in np.flatnonzero(violated[:, j])) for j in range(len(soft))]
    full = (1 << states.shape[0]) - 1
    expectation = np.zeros(int(np.sum(net.cardinality)))
    for a in range(states.shape[0]):
        groups: dict[int, float] = {}
        for j in np.flatnonzero(random & ~violated[a]):
            groups[masks[j]] = groups.get(masks[j], 1.0) * float(survive[j])
        for mask, prob in surviving_sets(groups, full).items():
            expectation += target[a] * prob * set_marginals(mask)
    return expectation, len(marginals)
