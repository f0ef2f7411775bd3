"""A network with evidence as a CNF over state and label indicators, exploiting determinism.

The encoding of Chavira & Darwiche (2008, "ENC1"), with the evidence conditioned
in and the deterministic entries turned into constraints:

* **State indicators.** A free binary variable is one Boolean ``b`` (its state 1
  is ``b``, its state 0 is ``not b``). A free variable with ``k > 2`` states is
  ``k`` Booleans, one per state, with the clauses "at least one" and "at most one"
  (one-hot). Observed variables have no Booleans: their states are substituted.
* **Label indicators.** Every CPT entry (a *label*, numbered as in
  :mod:`prunelab.compiled`) whose row agrees with the evidence gets, by its value
  ``c``:

  - ``c = 0``: the clause "not (child = v and parents = u)": its states are
    excluded from every model;
  - ``c = 1``: nothing (a weight of one needs no variable);
  - ``0 < c < 1``: a Boolean ``theta`` with ``theta <=> (child = v and parents = u)``;
    if the row mentions no free variable, the factor ``c`` is a constant instead.

So the models of the CNF are exactly the full states that agree with the evidence
and have ``P(x, e) > 0``, each with its ``theta`` values fixed. Weighting a
``theta`` by ``c`` (and its negation by 1) makes the weighted model count ``P(e)``
divided by the constant; weighting it by 1 or 0 ("kept" or "pruned") makes the count
the size of a pruned set (:mod:`prunelab.samplers.prune`).

References
----------
.. [1] M. Chavira and A. Darwiche, "On probabilistic inference by weighted model
   counting", Artificial Intelligence 172 (2008), sec. 3-4 (ENC1, determinism).
.. [2] T. Sang, P. Beame and H. Kautz, "Solving Bayesian networks by weighted model
   counting", AAAI 2005.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..compiled import CompiledNetwork
from ..network import EvidenceError

__all__ = ["CircuitEncoding", "encode_network", "encode_states", "ImpossibleEvidenceError"]


class ImpossibleEvidenceError(EvidenceError):
    """A deterministic zero that mentions only observed variables: ``P(e) = 0``."""


class CircuitEncoding(NamedTuple):
    """The CNF of a network with evidence, and what its Booleans mean.

    Booleans are numbered from 1 (DIMACS style); arrays indexed by a Boolean have
    an unused entry 0.

    Attributes
    ----------
    n_booleans : int
        Number of Booleans.
    clause_ptr, clause_literal : int64
        CSR list of clauses: clause ``k`` is the disjunction of the signed
        Booleans ``clause_literal[clause_ptr[k]:clause_ptr[k+1]]``.
    theta_label : int64 (n_booleans + 1,)
        The label a Boolean indicates, or -1 for a state indicator.
    owner : int64 (n_booleans + 1,)
        The free network variable a Boolean belongs to: its variable for a state
        indicator; for a label indicator the CPT's child, or if that is observed
        the CPT's last free parent (-1 at entry 0).
    state_ptr, state_boolean : int64
        For network variable ``i``, ``state_boolean[state_ptr[i]:state_ptr[i+1]]``
        are its state indicators: one Boolean (binary), ``k`` Booleans (one-hot),
        none (observed).
    log_constant : float
        Sum of ``log c`` over the labels with ``0 < c < 1`` that mention only
        observed variables (they are used by every state).
    constant_label : int64
        Those labels.
    """

    n_booleans: int
    clause_ptr: np.ndarray
    clause_literal: np.ndarray
    theta_label: np.ndarray
    owner: np.ndarray
    state_ptr: np.ndarray
    state_boolean: np.ndarray
    log_constant: float
    constant_label: np.ndarray

    @property
    def n_clauses(self) -> int:
        """Number of clauses."""
        return int(self.clause_ptr.shape[0] - 1)

    def clause(self, k: int) -> np.ndarray:
        """The signed Booleans of clause ``k``."""
        return self.clause_literal[self.clause_ptr[k]:self.clause_ptr[k + 1]]


def _state_literal(state_ptr, state_boolean, card, i: int, v: int) -> int:
    """The literal that says "variable ``i`` is in state ``v``" (``i`` free)."""
    first = state_boolean[state_ptr[i]]
    if card[i] == 2:
        return int(first) if v == 1 else -int(first)
    return int(state_boolean[state_ptr[i] + v])


def encode_network(net: CompiledNetwork, names=None) -> CircuitEncoding:
    """The CNF of ``net`` (a network with its evidence), as the module docstring describes.

    Parameters
    ----------
    net : CompiledNetwork
        From :func:`prunelab.compiled.compile_network`; labels keep its numbering.
    names : sequence of str, optional
        The variables' names (``bn.variables``), for the message of an impossible
        evidence.

    Returns
    -------
    CircuitEncoding

    Raises
    ------
    ImpossibleEvidenceError
        A label with ``c = 0`` that mentions only observed variables agrees with the
        evidence: ``P(e) = 0``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_network
    >>> enc = encode_network(compile_network(load_network("deterministic_pair")))
    >>> enc.n_booleans, enc.n_clauses  # A and B: one Boolean each; A's two labels: one theta each
    (4, 6)
    """
    state_ptr, state_boolean, owner, clauses = _state_indicators(net)
    theta_label = [-1] * len(owner)
    log_constant = 0.0
    constant_label: list[int] = []
    for i, label, c, family_free, condition in _rows(net, state_ptr, state_boolean):
        if c == 0.0:
            if not condition:
                raise ImpossibleEvidenceError(
                    f"evidence is impossible: P(e) = 0 (a zero of P({_name(names, i)} | parents) agrees with it)"
                )
            clauses.append([-lit for lit in condition])
        elif not condition:
            log_constant += math.log(c)
            constant_label.append(label)
        else:
            theta = len(owner)
            owner.append(family_free[-1])
            theta_label.append(label)
            clauses.extend([-theta, lit] for lit in condition)
            clauses.append([*(-lit for lit in condition), theta])
    clause_ptr, clause_literal = _csr(clauses)
    return CircuitEncoding(
        len(owner) - 1, clause_ptr, clause_literal, np.asarray(theta_label, dtype=np.int64),
        np.asarray(owner, dtype=np.int64), state_ptr, state_boolean, log_constant,
        np.asarray(constant_label, dtype=np.int64),
    )


def encode_states(net: CompiledNetwork, names=None):
    """The CNF over the state indicators alone, and the clause that pruning each random label would add.

    For prune sampling's per-step compilation
    (:mod:`prunelab.samplers.prune_circuit_per_step`): kept labels constrain
    nothing, a pruned label excludes its row like a zero.

    Returns
    -------
    states : CircuitEncoding
        No label indicators; the clauses are the one-hot constraints and the zeros.
    labels : int64
        The labels pruned at random: ``0 < c < 1``, row agreeing with the evidence
        and mentioning a free variable; increasing.
    label_ptr, label_literal : int64
        CSR list of the clause "not this row" of each of ``labels``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.circuit.encoding import encode_states
    >>> states, labels, ptr, literal = encode_states(compile_network(load_network("deterministic_pair")))
    >>> states.n_booleans, labels.tolist(), literal.tolist()
    (2, [0, 1], [1, -1])
    """
    state_ptr, state_boolean, owner, clauses = _state_indicators(net)
    labels: list[int] = []
    label_clauses: list[list[int]] = []
    for i, label, c, _, condition in _rows(net, state_ptr, state_boolean):
        if c == 0.0:
            if not condition:
                raise ImpossibleEvidenceError(
                    f"evidence is impossible: P(e) = 0 (a zero of P({_name(names, i)} | parents) agrees with it)"
                )
            clauses.append([-lit for lit in condition])
        elif condition:
            labels.append(label)
            label_clauses.append([-lit for lit in condition])
    clause_ptr, clause_literal = _csr(clauses)
    states = CircuitEncoding(
        len(owner) - 1, clause_ptr, clause_literal, np.full(len(owner), -1, dtype=np.int64),
        np.asarray(owner, dtype=np.int64), state_ptr, state_boolean, 0.0, np.zeros(0, dtype=np.int64),
    )
    label_ptr, label_literal = _csr(label_clauses)
    return states, np.asarray(labels, dtype=np.int64), label_ptr, label_literal


def _state_indicators(net: CompiledNetwork):
    """State Booleans (one for binary, one-hot otherwise) of the free variables, and their clauses."""
    n = net.n_variables
    card = net.cardinality
    state_ptr = np.zeros(n + 1, dtype=np.int64)
    state_boolean: list[int] = []
    owner: list[int] = [-1]
    clauses: list[list[int]] = []
    for i in range(n):
        if net.evidence_value[i] < 0:
            k = 1 if card[i] == 2 else int(card[i])
            members = list(range(len(owner), len(owner) + k))
            state_boolean.extend(members)
            owner.extend([i] * k)
            if k > 1:
                clauses.append(members)
                clauses.extend([-a, -b] for j, a in enumerate(members) for b in members[j + 1:])
        state_ptr[i + 1] = len(state_boolean)
    return state_ptr, np.asarray(state_boolean, dtype=np.int64), owner, clauses


def _rows(net: CompiledNetwork, state_ptr, state_boolean):
    """Every label whose row agrees with the evidence and has ``c < 1``: ``(child, label, c, free family, literals)``.

    ``literals`` say "the row's free variables are in the row's states" (empty when
    the row mentions only observed variables).
    """
    card = net.cardinality
    ev = net.evidence_value
    for i in range(net.n_variables):
        lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
        family = [*net.parent_index[lo:hi].tolist(), i]
        strides = [*net.parent_stride[lo:hi].tolist(), 1]
        size = int(net.cpt_offset[i + 1] - net.cpt_offset[i])
        flat = np.arange(size, dtype=np.int64)
        values = np.stack([(flat // s) % card[j] for j, s in zip(family, strides)], axis=1)
        agree = np.ones(size, dtype=bool)
        for col, j in enumerate(family):
            if ev[j] >= 0:
                agree &= values[:, col] == ev[j]
        free_cols = [col for col, j in enumerate(family) if ev[j] < 0]
        family_free = [family[col] for col in free_cols]
        c_row = net.cpt[net.cpt_offset[i]:net.cpt_offset[i + 1]]
        for r in np.flatnonzero(agree & (c_row < 1.0)):
            condition = [_state_literal(state_ptr, state_boolean, card, family[col], int(values[r, col]))
                         for col in free_cols]
            yield i, int(net.cpt_offset[i] + r), float(c_row[r]), family_free, condition


def _csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in lists], out=ptr[1:])
    return ptr, np.fromiter((v for c in lists for v in c), dtype=np.int64, count=int(ptr[-1]))


def _name(names, i: int) -> str:
    return f"variable {i}" if names is None else str(names[i])
