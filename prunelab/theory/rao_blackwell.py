"""The stationary expectation of prune sampling's Rao-Blackwell term, computed exactly on a tiny network.

At stationarity the state ``x`` has the law ``pi(x) = P(x | e)``, a pruning around
``x`` leaves the set ``S`` with probability ``P(S | x)``, and the Rao-Blackwell
term of the step is the set's uniform marginal ``m_S(i, s) = |{y in S: y_i = s}| /
|S|`` (:mod:`prunelab.samplers.prune_rb`). Its expectation

.. math:: \\sum_x \\pi(x) \\sum_S P(S \\mid x) \\, m_S(i, s)

is :func:`rao_blackwell_expectation`: the distribution of ``S`` from ``x`` by the
dynamic programme of :mod:`.pruned_sets` (every set, not a sample), and ``m_S`` by
the sampler's own kernels (a count and the downward pass over its tables). It
must equal ``P(X_i = s | e)``: that is the estimator's unbiasedness at
stationarity, since ``sum_S P(S | x) m_S = sum_y R(x -> y) 1{y_i = s}`` and ``pi R =
pi``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..compiled import state_labels
from ..network import BayesianNetwork
from ..samplers.prune_plans import prune_plan
from ..samplers.prune_rb import count_marginals_arrays, rao_blackwell_sums
from ..samplers.uniform import make_workspace
from ..samplers.uniform.kernels import count_nb
from .pruned_sets import label_groups, set_members, surviving_sets
from .states import as_compiled, feasible_states

__all__ = ["rao_blackwell_expectation"]


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
    plan = prune_plan(net).uniform
    ws = make_workspace(net, plan)
    rb = rao_blackwell_sums(net, plan, [], 1)
    offsets = rb.offsets
    observed = np.flatnonzero(net.evidence_value >= 0)
    marginals: dict[int, np.ndarray] = {}

    def set_marginals(mask: int) -> np.ndarray:
        if mask not in marginals:
            members = set_members(mask)
            kept = np.zeros(net.n_labels, dtype=np.bool_)
            kept[labels[members].ravel()] = True  # the members' labels: exactly S survives
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

    full = (1 << states.shape[0]) - 1
    expectation = np.zeros(int(offsets[-1]))
    for a in range(states.shape[0]):
        groups = label_groups(labels, net.cpt, frozenset(int(lab) for lab in labels[a]))
        for mask, prob in surviving_sets(groups, full).items():
            expectation += posterior[a] * prob * set_marginals(mask)
    return expectation, len(marginals)
