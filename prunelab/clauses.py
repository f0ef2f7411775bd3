"""A Bayesian network as weighted clauses: the form on which MC-SAT runs.

MC-SAT (Poon & Domingos 2006) samples from a distribution over full states
written as weighted clauses, ``P(x) ∝ exp(sum of the weights of the clauses x
satisfies)``, with hard clauses (infinite weight) that every state must satisfy.
A Bayesian network has such a form with **one clause per CPT label**: for the
label ``l = (parents = u, X = v)`` with value ``c_l``, the clause

.. math:: \\neg l \\;=\\; (X \\ne v) \\vee (U_1 \\ne u_1) \\vee \\dots \\vee (U_k \\ne u_k),

"the state does not use label ``l``", with weight ``w_l = -log c_l``: hard where
``c_l = 0``, and no clause at all where ``c_l = 1`` (weight 0). A state uses
exactly one label per variable, so it satisfies every clause but those of its
own labels ``C_x``, and

.. math:: \\exp\\Big(\\sum_{l \\notin C_x} w_l\\Big)
          = \\prod_{l \\notin C_x} \\frac{1}{c_l}
          \\;\\propto\\; \\prod_{l \\in C_x} c_l = P(x)

(the constant is ``prod over all clauses of 1/c_l``). Evidence ``E = e`` is a
unit hard clause ``(E = e)``. Variables keep their domains: a literal is
``X = v`` or ``X != v`` on a multi-valued variable, so no exactly-one
constraints are needed.

Clauses are numbered in increasing label order, then the evidence clauses in
variable order; literals of a label clause list the variable first, then its
parents. Everything is a flat read-only array (CSR lists), like
:mod:`prunelab.compiled`.

References
----------
.. [1] H. Poon and P. Domingos, "Sound and efficient inference with
   probabilistic and deterministic dependencies", AAAI 2006.
.. [2] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling", section "Prune
   sampling" (CPT labels).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compiled import CompiledNetwork

__all__ = ["WeightedClauses", "network_clauses", "satisfied_clauses", "satisfied_weight"]


class WeightedClauses(NamedTuple):
    """Weighted clauses over multi-valued variables.

    Attributes
    ----------
    cardinality : int64 (n,)
        Number of values of every variable.
    clause_ptr : int64 (m + 1,)
        The literals of clause ``c`` are ``clause_ptr[c]:clause_ptr[c + 1]``.
    literal_var, literal_value : int64 (n_literals,)
        Variable and value of every literal.
    literal_equal : bool (n_literals,)
        True for ``X = v`` (evidence), False for ``X != v``.
    weight : float64 (m,)
        ``-log c`` of the label, ``inf`` for a hard clause.
    label : int64 (m,)
        The CPT label the clause negates, or -1 for an evidence clause.
    """

    cardinality: np.ndarray
    clause_ptr: np.ndarray
    literal_var: np.ndarray
    literal_value: np.ndarray
    literal_equal: np.ndarray
    weight: np.ndarray
    label: np.ndarray

    @property
    def n_clauses(self) -> int:
        """Number of clauses ``m``."""
        return int(self.weight.shape[0])

    @property
    def hard(self) -> np.ndarray:
        """bool (m,): the hard clauses (infinite weight)."""
        return np.isinf(self.weight)


def network_clauses(net: CompiledNetwork) -> WeightedClauses:
    """The weighted clauses of a network and its evidence: one per label with ``c < 1``.

    Parameters
    ----------
    net : CompiledNetwork

    Returns
    -------
    WeightedClauses

    Examples
    --------
    The deterministic pair: ``A`` uniform, ``B`` copies ``A``. Labels ``A(1), A(2)``
    (``c = 1/2``) give soft clauses, ``B``'s zero entries hard ones, its ones none:

    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses
    >>> clauses = network_clauses(compile_network(load_network("deterministic_pair")))
    >>> clauses.label.tolist(), clauses.weight.round(4).tolist()
    ([0, 1, 3, 4], [0.6931, 0.6931, inf, inf])
    >>> clauses.literal_var[clauses.clause_ptr[2]:clauses.clause_ptr[3]].tolist()  # not (B=1 and A=0)
    [1, 0]
    """
    ptr, var, value, equal, weight, label = [0], [], [], [], [], []
    for i in range(net.n_variables):
        span = slice(net.parent_ptr[i], net.parent_ptr[i + 1])
        parents, strides = net.parent_index[span], net.parent_stride[span]
        card = int(net.cardinality[i])
        for lab in range(int(net.cpt_offset[i]), int(net.cpt_offset[i + 1])):
            c = float(net.cpt[lab])
            if c >= 1.0:
                continue
            k = lab - int(net.cpt_offset[i])  # label = offset + sum_j u_j * stride_j + v
            var.extend([i, *parents.tolist()])
            value.extend([k % card, *((k // strides) % net.cardinality[parents]).tolist()])
            equal.extend([False] * (1 + len(parents)))
            ptr.append(len(var))
            weight.append(np.inf if c == 0.0 else -np.log(c))
            label.append(lab)
    for i in np.flatnonzero(net.evidence_value >= 0):
        var.append(int(i))
        value.append(int(net.evidence_value[i]))
        equal.append(True)
        ptr.append(len(var))
        weight.append(np.inf)
        label.append(-1)
    arrays = (
        net.cardinality.copy(),
        np.asarray(ptr, dtype=np.int64),
        np.asarray(var, dtype=np.int64),
        np.asarray(value, dtype=np.int64),
        np.asarray(equal, dtype=bool),
        np.asarray(weight, dtype=np.float64),
        np.asarray(label, dtype=np.int64),
    )
    for a in arrays:
        a.setflags(write=False)
    return WeightedClauses(*arrays)


def satisfied_clauses(clauses: WeightedClauses, states) -> np.ndarray:
    """Which clauses each state satisfies.

    Parameters
    ----------
    clauses : WeightedClauses
    states : int array (n,) or (k, n)

    Returns
    -------
    bool array (m,) or (k, m)

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses, satisfied_clauses
    >>> clauses = network_clauses(compile_network(load_network("deterministic_pair")))
    >>> satisfied_clauses(clauses, [1, 1]).tolist()  # violates only "not A(2)"
    [True, False, True, True]
    """
    states = np.asarray(states, dtype=np.int64)
    single = states.ndim == 1
    states = np.atleast_2d(states)
    if states.shape[1] != clauses.cardinality.shape[0]:
        raise ValueError(f"states have {states.shape[1]} variables, the clauses {clauses.cardinality.shape[0]}")
    true_literal = (states[:, clauses.literal_var] == clauses.literal_value) == clauses.literal_equal
    # a clause is satisfied when one of its literals is: a segmented "any"
    counts = np.add.reduceat(true_literal.astype(np.int64), clauses.clause_ptr[:-1], axis=1)
    satisfied = counts > 0
    return satisfied[0] if single else satisfied


def satisfied_weight(clauses: WeightedClauses, states) -> np.ndarray:
    """``sum of w`` over the soft clauses each state satisfies; ``-inf`` if it breaks a hard one.

    ``exp`` of it is proportional to ``P(x | e)`` for the clauses of a network
    (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses, satisfied_weight
    >>> clauses = network_clauses(compile_network(load_network("deterministic_pair")))
    >>> np.round(satisfied_weight(clauses, [[0, 0], [0, 1]]), 4).tolist()
    [0.6931, -inf]
    """
    satisfied = satisfied_clauses(clauses, states)
    hard = clauses.hard
    soft_sum = np.where(satisfied & ~hard, clauses.weight, 0.0).sum(axis=-1)
    return np.where((satisfied | ~hard).all(axis=-1), soft_sum, -np.inf)
