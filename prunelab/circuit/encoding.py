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
the size of a pruned set (:mod:`prunelab.samplers.prune.sampler`).

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

__all__ = ["CircuitEncoding", "ImpossibleEvidenceError", "encode_network", "encode_states", "state_literal"]


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


def state_literal(state_ptr, state_boolean, card, i: int, v: int) -> int:
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
    one_hot_ptr, one_hot_literal = _csr(clauses)
    lengths = [np.diff(one_hot_ptr)]
    literals = [one_hot_literal]
    theta_owner: list[np.ndarray] = []
    theta_labels: list[np.ndarray] = []
    next_theta = len(owner)
    log_constant = 0.0
    constant_label: list[int] = []
    for i, labels, c, family_free, condition in _family_rows(net, state_ptr, state_boolean):
        zero = c == 0.0
        if not family_free:
            if zero.any():
                raise ImpossibleEvidenceError(
                    f"evidence is impossible: P(e) = 0 (a zero of P({_name(names, i)} | parents) agrees with it)"
                )
            log_constant += math.fsum(np.log(c).tolist())
            constant_label.extend(labels.tolist())
            continue
        theta = np.where(zero, 0, next_theta + np.cumsum(~zero) - 1)
        n_theta = int((~zero).sum())
        next_theta += n_theta
        theta_owner.append(np.full(n_theta, family_free[-1], dtype=np.int64))
        theta_labels.append(labels[~zero])
        row_lengths, row_literals = _row_clauses(condition, theta, zero)
        lengths.append(row_lengths)
        literals.append(row_literals)
    clause_ptr = np.zeros(sum(a.shape[0] for a in lengths) + 1, dtype=np.int64)
    np.cumsum(np.concatenate(lengths), out=clause_ptr[1:])
    n_states = len(owner) - 1
    return CircuitEncoding(
        next_theta - 1, clause_ptr, np.concatenate(literals).astype(np.int64),
        np.concatenate([np.full(n_states + 1, -1, dtype=np.int64), *theta_labels]),
        np.concatenate([np.asarray(owner, dtype=np.int64), *theta_owner]), state_ptr, state_boolean, log_constant,
        np.asarray(constant_label, dtype=np.int64),
    )


def _row_clauses(condition: np.ndarray, theta: np.ndarray, zero: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The clauses of one CPT's rows, in row order, as clause lengths and concatenated literals.

    A zero row (``zero``) gives "not condition"; a row with a label indicator
    ``theta`` gives "theta implies each literal" and "condition implies theta".
    """
    n_rows, nf = condition.shape
    rows = np.arange(n_rows)
    clause_count = np.where(zero, 1, nf + 1)
    clause_start = np.cumsum(clause_count) - clause_count
    literal_count = np.where(zero, nf, 3 * nf + 1)
    literal_start = np.cumsum(literal_count) - literal_count
    lengths = np.empty(int(clause_count.sum()), dtype=np.int64)
    literals = np.empty(int(literal_count.sum()), dtype=np.int64)
    z, t = rows[zero], rows[~zero]
    lengths[clause_start[z]] = nf
    literals[literal_start[z][:, None] + np.arange(nf)] = -condition[z]
    lengths[clause_start[t][:, None] + np.arange(nf + 1)] = [2] * nf + [nf + 1]
    block = np.empty((t.shape[0], 3 * nf + 1), dtype=np.int64)
    block[:, 0:2 * nf:2] = -theta[t][:, None]
    block[:, 1:2 * nf:2] = condition[t]
    block[:, 2 * nf:3 * nf] = -condition[t]
    block[:, 3 * nf] = theta[t]
    literals[literal_start[t][:, None] + np.arange(3 * nf + 1)] = block
    return lengths, literals


def encode_states(net: CompiledNetwork, names=None):
    """The CNF over the state indicators alone, and the clause that pruning each random label would add.

    For prune sampling's per-step compilation
    (:mod:`prunelab.samplers.prune.draws.circuit_per_step`): kept labels constrain
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
            condition = [state_literal(state_ptr, state_boolean, card, family[col], int(values[r, col]))
                         for col in free_cols]
            yield i, int(net.cpt_offset[i] + r), float(c_row[r]), family_free, condition


def _family_rows(net: CompiledNetwork, state_ptr, state_boolean):
    """:func:`_rows` a CPT at a time, vectorised: ``(child, labels, c, free family, literal matrix)`` per CPT.

    The literal matrix has a row per label (those agreeing with the evidence with
    ``c < 1``, in label order) and a column per free family member.
    """
    card = net.cardinality
    ev = net.evidence_value
    for i in range(net.n_variables):
        lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
        family = [*net.parent_index[lo:hi].tolist(), i]
        strides = [*net.parent_stride[lo:hi].tolist(), 1]
        flat = np.arange(int(net.cpt_offset[i + 1] - net.cpt_offset[i]), dtype=np.int64)
        c_row = net.cpt[net.cpt_offset[i]:net.cpt_offset[i + 1]]
        keep = c_row < 1.0
        for j, s in zip(family, strides):
            if ev[j] >= 0:
                keep &= (flat // s) % card[j] == ev[j]
        rows = np.flatnonzero(keep)
        if rows.shape[0] == 0:
            continue
        family_free = [j for j in family if ev[j] < 0]
        condition = np.empty((rows.shape[0], len(family_free)), dtype=np.int64)
        for col, (j, s) in enumerate((j, s) for j, s in zip(family, strides) if ev[j] < 0):
            value = (rows // s) % card[j]
            first = state_boolean[state_ptr[j]]
            if card[j] == 2:
                condition[:, col] = np.where(value == 1, first, -first)
            else:
                condition[:, col] = state_boolean[state_ptr[j] + value]
        yield i, net.cpt_offset[i] + rows, c_row[rows].astype(float), family_free, condition


def _csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in lists], out=ptr[1:])
    return ptr, np.fromiter((v for c in lists for v in c), dtype=np.int64, count=int(ptr[-1]))


def _name(names, i: int) -> str:
    return f"variable {i}" if names is None else str(names[i])
