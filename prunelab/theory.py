"""Exact transition matrices of prune, Gibbs and Metropolis sampling on tiny networks.

On a network small enough to list its feasible states, every sampler here is a
finite Markov chain whose transition matrix can be computed exactly, and the
paper's claims checked to machine precision: prune sampling is reversible with
respect to ``P(x | e)`` and regular; Gibbs sampling on a deterministic network is
reducible (the paper's Example "Gibbs").

Prune sampling. From ``x``, every label ``l`` not in ``C_x`` survives with
probability ``c_l``, independently, and the next state is uniform on the set ``S``
of surviving states (feasible states agreeing with the evidence, all of whose
labels survive). So

.. math:: R(x \\to y) = \\sum_{S} \\Pr(S \\mid x) \\, \\frac{1\\{y \\in S\\}}{|S|}.

Enumerating the ``2^m`` pruning patterns of the ``m`` random labels is hopeless
beyond a couple of dozen labels; :func:`prune_transition_matrix` stays exact and
is far cheaper because

* only labels with ``0 < c < 1`` are random (``c = 0``: always pruned, and no
  feasible state uses it; ``c = 1``: always kept);
* a label that no feasible evidence-consistent state uses cannot change ``S``;
* labels used by exactly the same states act as one label, kept with probability
  ``prod c`` (all of them must survive);
* a dynamic programme over these label groups carries the distribution of ``S``
  itself, as ``{bitmask of surviving states: probability}``: a kept group leaves
  the mask, a pruned group removes its states (``mask &= ~uses``), equal masks are
  merged;
* one programme serves all rows: pruning around ``x`` is "unconditional" pruning
  (every label random) given ``x in S`` (see :func:`prune_transition_matrix`);
* with at most 64 feasible states a set is one ``uint64`` and a numba kernel runs
  the programme with a hash table; the pure-Python programme stays as the
  reference (``reference=True``), and for larger ``k``.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", sections "Prune
   sampling" (eq. (5)-(6), R_h and R; eq. (7) and the proof of detailed
   balance) and "Gibbs sampling"
   (Example 1).
.. [2] D. A. Levin and Y. Peres, *Markov Chains and Mixing Times*, 2nd ed., AMS,
   2017, ch. 1 (irreducibility, aperiodicity, reversibility, stationarity).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numba
import numpy as np
from scipy import stats
from scipy.sparse.csgraph import connected_components

from .clauses import WeightedClauses, satisfied_clauses, satisfied_weight
from .compiled import CompiledNetwork, compile_network, state_labels
from .network import BayesianNetwork, EvidenceError

__all__ = [
    "MAX_STATES",
    "feasible_states",
    "prune_transition_matrix",
    "gibbs_transition_matrix",
    "metropolis_transition_matrix",
    "stationary_check",
    "communicating_classes",
    "is_irreducible",
    "is_regular",
    "enumerate_pruned_set",
    "ChiSquare",
    "transition_chi_square",
    "clause_states",
    "mcsat_transition_matrix",
]

MAX_STATES = 1 << 16
"""Largest joint state space (product of cardinalities) the brute-force listing accepts."""


def _all_states(net: CompiledNetwork, max_states: int = MAX_STATES) -> np.ndarray:
    """Every state agreeing with the evidence, lexicographic in topological order."""
    card = [int(c) if e < 0 else 1 for c, e in zip(net.cardinality, net.evidence_value)]
    total = int(np.prod(card, dtype=object))
    if total > max_states:
        raise ValueError(
            f"the network has {total} evidence-consistent states; exact matrices are for tiny "
            f"networks (at most {max_states})"
        )
    states = np.indices(card).reshape(len(card), -1).T.astype(np.int64)
    observed = net.evidence_value >= 0
    states[:, observed] = net.evidence_value[observed]
    return states


def _as_compiled(bn, evidence) -> CompiledNetwork:
    if isinstance(bn, CompiledNetwork):
        if evidence:
            raise ValueError("pass evidence to compile_network, not with a CompiledNetwork")
        return bn
    return compile_network(bn, evidence)


def feasible_states(bn: BayesianNetwork, evidence: Mapping | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The feasible states that agree with the evidence, and their posterior.

    Parameters
    ----------
    bn : BayesianNetwork or CompiledNetwork
    evidence : mapping of str to state, optional

    Returns
    -------
    states : int64 (k, n)
        Full states (topological order, evidence included) with ``P(x, e) > 0``,
        lexicographic.
    p : float64 (k,)
        ``P(x | e)``.

    Raises
    ------
    EvidenceError
        If ``P(e) = 0``.
    ValueError
        If the state space exceeds :data:`MAX_STATES`.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import feasible_states
    >>> states, p = feasible_states(load_network("deterministic_pair"))
    >>> states.tolist(), p.tolist()
    ([[0, 0], [1, 1]], [0.5, 0.5])
    """
    net = _as_compiled(bn, evidence)
    states = _all_states(net)
    joint = net.cpt[state_labels(net, states)].prod(axis=1)
    keep = joint > 0
    if not keep.any():
        raise EvidenceError("the evidence has probability zero: no feasible state agrees with it")
    return states[keep], joint[keep] / joint[keep].sum()


def enumerate_pruned_set(net: CompiledNetwork, kept) -> np.ndarray:
    """The pruned set ``S`` by brute force over all states (a test reference).

    Parameters
    ----------
    net : CompiledNetwork
        The network and its evidence.
    kept : bool array (n_labels,)
        Surviving labels.

    Returns
    -------
    int64 array (|S|, n)
        Every evidence-consistent state all of whose labels are kept,
        lexicographic in topological order.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.theory import enumerate_pruned_set
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> enumerate_pruned_set(net, net.cpt > 0).tolist()
    [[0, 0], [1, 1]]
    """
    kept = np.asarray(kept, dtype=bool)
    if kept.shape != (net.n_labels,):
        raise ValueError(f"kept must have shape ({net.n_labels},), got {kept.shape}")
    states = _all_states(net)
    return states[kept[state_labels(net, states)].all(axis=1)]


def _label_groups(labels: np.ndarray, cpt: np.ndarray, exclude=frozenset()) -> dict[int, float]:
    """Random labels merged by the set of states that use them: ``{uses mask: prod c}``.

    Labels with ``c = 1`` are always kept and dropped; labels in ``exclude`` (the
    labels of the state pruned around) are kept too. Every label here is used by
    some feasible state, so it has ``c > 0``.
    """
    uses: dict[int, int] = {}
    for s, row in enumerate(labels):
        for lab in row:
            uses[int(lab)] = uses.get(int(lab), 0) | (1 << s)
    groups: dict[int, float] = {}
    for lab, mask in sorted(uses.items()):
        if cpt[lab] < 1.0 and lab not in exclude:
            groups[mask] = groups.get(mask, 1.0) * float(cpt[lab])
    return groups


def _surviving_sets(groups: Mapping[int, float], full: int) -> dict[int, float]:
    """The distribution of ``S`` as ``{bitmask: probability}`` (empty sets dropped).

    Groups that remove many states go first: the number of distinct masks grows
    more slowly that way. Raises ``MemoryError`` beyond :data:`MAX_SETS_REFERENCE`
    distinct sets.
    """
    dist = {full: 1.0}
    for uses, c in sorted(groups.items(), key=lambda item: -item[0].bit_count()):
        nxt: dict[int, float] = {}
        for mask, prob in dist.items():
            nxt[mask] = nxt.get(mask, 0.0) + prob * c
            pruned = mask & ~uses
            if pruned:
                nxt[pruned] = nxt.get(pruned, 0.0) + prob * (1.0 - c)
        if len(nxt) > MAX_SETS_REFERENCE:
            raise MemoryError(_TOO_MANY_SETS.format(max_sets=MAX_SETS_REFERENCE, k=full.bit_length()))
        dist = nxt
    return dist


_TOO_MANY_SETS = (
    "the exact prune matrix needs more than {max_sets:,} distinct surviving sets on "
    "these {k} feasible states; observe some variables (evidence) to shrink the chain"
)


def _members(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


MAX_KERNEL_STATES = 64
"""Largest ``k`` the numba kernels take (a surviving set is one ``uint64``)."""

MAX_SETS_REFERENCE = 20_000_000
"""Most distinct surviving sets the pure-Python programme holds before it gives up with
an error instead of exhausting the memory: ``block_chain(n=6)`` (128 states) stops
there after 73 s at a peak of 5.4 GB (it used to grow past 24 GB)."""

MAX_SETS_KERNEL = 50_000_000
"""Most distinct surviving sets a kernel hash table holds (16 bytes a slot, at most
2.9 slots a set: about 2.3 GB) before it gives up with an error."""

UNMERGED_TAIL = 2
"""The last groups the kernel path expands without merging equal sets (see the Notes of
:func:`prune_transition_matrix`)."""

_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd: multiplicative hashing
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)  # B(2, 6): (low bit * it) >> 58 is distinct per bit
_DE_BRUIJN_BIT = np.zeros(64, dtype=np.int64)  # [index] = the bit with that de Bruijn index
_DE_BRUIJN_BIT[[((int(_DE_BRUIJN) << bit) % (1 << 64)) >> 58 for bit in range(64)]] = np.arange(64)
_EMPTY = np.uint64(0)  # the empty set is never stored, so 0 marks a free slot


def _ordered_groups(groups: Mapping[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """The groups as arrays in :func:`_surviving_sets`'s order: ``uint64`` masks, ``prod c``."""
    items = sorted(groups.items(), key=lambda item: -item[0].bit_count())
    uses = np.array([mask for mask, _ in items], dtype=np.uint64)
    keep = np.array([c for _, c in items], dtype=np.float64)
    return uses, keep


@numba.njit(cache=True, nogil=True)
def _table_add(table_keys, table_values, shift, key, value):
    """Add ``value`` at ``key`` (open addressing, linear probing); 1 if ``key`` is new."""
    wrap = table_keys.shape[0] - 1
    slot = np.int64((key * _FIBONACCI) >> shift)
    while True:
        here = table_keys[slot]
        if here == key:
            table_values[slot] += value
            return 0
        if here == _EMPTY:
            table_keys[slot] = key
            table_values[slot] = value
            return 1
        slot = (slot + 1) & wrap


@numba.njit(cache=True, nogil=True)
def _new_table(log2_capacity):
    capacity = np.int64(1) << log2_capacity
    return np.zeros(capacity, np.uint64), np.zeros(capacity), np.uint64(64 - log2_capacity)


@numba.njit(cache=True, nogil=True)
def _surviving_sets_nb(uses, keep, full, max_sets):
    """:func:`_surviving_sets` on ``uint64`` masks (``k <= 64``): one hash table per group.

    Returns the distinct non-empty sets and their probabilities (in hash order, not
    the dict's), the probability that ``S`` is empty (the two add up to 1) and the
    largest table capacity used (16 bytes a slot). Past ``max_sets`` distinct sets it
    stops and returns no sets and an empty-set probability of -1.
    """
    keys = np.full(1, full, np.uint64)
    values = np.ones(1)
    empty = 0.0
    largest = 1
    for g in range(uses.shape[0]):
        removed = ~uses[g]
        c = keep[g]
        n = keys.shape[0]
        log2_capacity = 1
        while (np.int64(1) << log2_capacity) < 2 * n:  # the n kept sets alone fill half
            log2_capacity += 1
        table_keys, table_values, shift = _new_table(log2_capacity)
        limit = (7 * table_keys.shape[0]) // 10
        count = 0
        for i in range(n):
            count += _table_add(table_keys, table_values, shift, keys[i], values[i] * c)
            pruned = keys[i] & removed
            if pruned == _EMPTY:
                empty += values[i] * (1.0 - c)
            else:
                count += _table_add(table_keys, table_values, shift, pruned, values[i] * (1.0 - c))
            if count > max_sets:
                return keys[:0], values[:0], -1.0, largest  # too many sets: the caller raises
            if count > limit:  # over 70 % full: rehash into twice the capacity
                log2_capacity += 1
                old_keys, old_values = table_keys, table_values
                table_keys, table_values, shift = _new_table(log2_capacity)
                limit = (7 * table_keys.shape[0]) // 10
                for j in range(old_keys.shape[0]):
                    if old_keys[j] != _EMPTY:
                        _table_add(table_keys, table_values, shift, old_keys[j], old_values[j])
        largest = max(largest, table_keys.shape[0])
        keys = np.empty(0, np.uint64)  # free the previous sets before copying the new ones out
        values = np.empty(0)
        n = 0
        for i in range(table_keys.shape[0]):  # compact in place, then copy the prefix
            if table_keys[i] != _EMPTY:
                table_keys[n] = table_keys[i]
                table_values[n] = table_values[i]
                n += 1
        keys = table_keys[:n].copy()
        values = table_values[:n].copy()
    return keys, values, empty, largest


@numba.njit(cache=True, nogil=True)
def _members_nb(mask, bit_of, out):
    """The members of ``mask`` in increasing order into ``out``; returns their number."""
    size = 0
    while mask != _EMPTY:
        low = mask & (~mask + np.uint64(1))
        out[size] = bit_of[(low * _DE_BRUIJN) >> np.uint64(58)]
        size += 1
        mask ^= low
    return size


@numba.njit(cache=True, nogil=True)
def _tail_pattern(mask, prob, pattern, tail_uses, tail_keep):
    """The set and probability after the tail groups, pruned where ``pattern`` has a 1 bit."""
    for j in range(tail_uses.shape[0]):
        if (pattern >> j) & 1:
            mask &= ~tail_uses[j]
            prob *= 1.0 - tail_keep[j]
        else:
            prob *= tail_keep[j]
    return mask, prob


@numba.njit(cache=True, nogil=True)
def _accumulate_nb(keys, values, tail_uses, tail_keep, k, bit_of, R, row):
    """Add the sets' share to ``R``: its upper triangle (``row < 0``) or one row.

    ``R += sum_S P(S) 1{x in S} 1{y in S} / |S|`` (``row < 0``; upper triangle only)
    or ``R[row] += sum_S P(S) 1{y in S} / |S|``, over the sets ``keys`` after the tail
    groups (all ``2^t`` patterns, equal sets not merged).

    Returns the probability of the non-empty sets and of the empty set.
    """
    members = np.empty(k, np.int64)
    total = 0.0
    empty = 0.0
    for s in range(keys.shape[0]):
        for pattern in range(1 << tail_uses.shape[0]):
            mask, prob = _tail_pattern(keys[s], values[s], pattern, tail_uses, tail_keep)
            if mask == _EMPTY:
                empty += prob
                continue
            total += prob
            size = _members_nb(mask, bit_of, members)
            share = prob / size
            if row >= 0:
                for i in range(size):
                    R[row, members[i]] += share
                continue
            for i in range(size):
                a = members[i]
                for j in range(i, size):
                    R[a, members[j]] += share
    return total, empty


def _accumulate(groups: Mapping[int, float], k: int, R: np.ndarray, row: int = -1) -> None:
    """The kernel path: merge all groups but the last :data:`UNMERGED_TAIL`, then accumulate.

    Checks that the sets' probabilities, with the empty set's, add up to 1.
    """
    uses, keep = _ordered_groups(groups)
    head = max(len(uses) - UNMERGED_TAIL, 0)
    keys, values, empty, _ = _surviving_sets_nb(
        uses[:head], keep[:head], np.uint64((1 << k) - 1), MAX_SETS_KERNEL
    )
    if empty < 0:
        raise MemoryError(_TOO_MANY_SETS.format(max_sets=MAX_SETS_KERNEL, k=k))
    total, tail_empty = _accumulate_nb(
        keys, values, uses[head:], keep[head:], k, _DE_BRUIJN_BIT, R, row
    )
    total += empty + tail_empty
    if not abs(total - 1.0) < 1e-9:  # pragma: no cover - an invariant (sums of up to 2e7 terms)
        raise RuntimeError(f"the surviving sets' probabilities add up to {total!r}, not 1")


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
    stationary_check, is_regular, prunelab.samplers.prune

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
    net = _as_compiled(bn, evidence)
    states, _ = feasible_states(net)
    k = states.shape[0]
    labels = state_labels(net, states)
    joint = net.cpt[labels].prod(axis=1)  # P(x, e) = P(x in S)
    if not reference and k <= MAX_KERNEL_STATES:
        R = np.zeros((k, k))
        if method == "rows":
            for a in range(k):
                own = frozenset(int(lab) for lab in labels[a])
                _accumulate(_label_groups(labels, net.cpt, own), k, R, a)
            return states, R
        _accumulate(_label_groups(labels, net.cpt), k, R)
        R = np.triu(R) + np.triu(R, 1).T
        return states, R / joint[:, None]
    full = (1 << k) - 1
    R = np.zeros((k, k))
    if method == "rows":
        for a in range(k):
            groups = _label_groups(labels, net.cpt, frozenset(int(lab) for lab in labels[a]))
            for mask, prob in _surviving_sets(groups, full).items():
                members = _members(mask)
                R[a, members] += prob / len(members)
        return states, R
    for mask, prob in _surviving_sets(_label_groups(labels, net.cpt), full).items():
        members = np.array(_members(mask))
        R[np.ix_(members, members)] += prob / len(members)
    return states, R / joint[:, None]


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
    net = _as_compiled(bn, evidence)
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
    net = _as_compiled(bn, evidence)
    return _sweep(net, None, "metropolis")


def stationary_check(states: np.ndarray, R: np.ndarray, p: np.ndarray) -> dict[str, float]:
    """How far ``R`` is from a reversible, ``p``-stationary stochastic matrix.

    Parameters
    ----------
    states : int array (k, n)
        Only its length is used (rows of ``R``).
    R : float array (k, k)
    p : float array (k,)
        The target distribution, e.g. from :func:`feasible_states`.

    Returns
    -------
    dict
        ``row_sum``: max ``|sum_y R(x, y) - 1|``; ``detailed_balance``: max
        ``|p(x) R(x, y) - p(y) R(y, x)|``; ``stationarity``: max ``|(p R - p)(y)|``;
        ``negative``: most negative entry of ``R`` (0 if none).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.theory import feasible_states, prune_transition_matrix, stationary_check
    >>> bn = load_network("deterministic_pair")
    >>> states, R = prune_transition_matrix(bn)
    >>> stationary_check(states, R, feasible_states(bn)[1])["detailed_balance"]
    0.0
    """
    R = np.asarray(R, dtype=float)
    p = np.asarray(p, dtype=float)
    if R.shape != (len(states), len(states)) or p.shape != (len(states),):
        raise ValueError(f"shapes disagree: {len(states)} states, R {R.shape}, p {p.shape}")
    flow = p[:, None] * R
    return {
        "row_sum": float(np.abs(R.sum(axis=1) - 1.0).max()),
        "detailed_balance": float(np.abs(flow - flow.T).max()),
        "stationarity": float(np.abs(p @ R - p).max()),
        "negative": float(min(R.min(), 0.0)),
    }


def communicating_classes(R: np.ndarray) -> list[np.ndarray]:
    """The communicating classes of the chain (strongly connected components of ``R > 0``).

    Returns
    -------
    list of int arrays
        State indices of every class, ordered by their smallest member.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab.theory import communicating_classes
    >>> [c.tolist() for c in communicating_classes(np.eye(2))]
    [[0], [1]]
    """
    n, labels = connected_components(np.asarray(R) > 0, directed=True, connection="strong")
    classes = [np.flatnonzero(labels == c) for c in range(n)]
    return sorted(classes, key=lambda c: int(c[0]))


def is_irreducible(R: np.ndarray) -> bool:
    """Whether every state reaches every other state (``R`` irreducible)."""
    return len(communicating_classes(R)) == 1


def is_regular(R: np.ndarray) -> bool:
    """Whether some power of ``R`` is strictly positive (irreducible and aperiodic).

    Uses Wielandt's bound: a primitive ``k x k`` matrix has ``R^m > 0`` for
    ``m = (k - 1)^2 + 1``; the boolean pattern is squared until past it.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab.theory import is_regular
    >>> is_regular(np.array([[0.0, 1.0], [1.0, 0.0]])), is_regular(np.array([[0.5, 0.5], [1.0, 0.0]]))
    (False, True)
    """
    A = (np.asarray(R) > 0).astype(np.int64)
    k = A.shape[0]
    bound = (k - 1) ** 2 + 1
    power = 1
    while power < bound:
        A = ((A @ A) > 0).astype(np.int64)
        power *= 2
    return bool(A.all())


class ChiSquare(NamedTuple):
    """A chi-square goodness-of-fit test: statistic, degrees of freedom, p-value."""

    statistic: float
    dof: int
    p_value: float


def transition_chi_square(counts, R, minimum: float = 5.0) -> ChiSquare:
    """Test observed transition counts against exact transition probabilities.

    Each row of ``counts`` (the next states seen from one state) is compared with
    its expected counts ``counts.sum() * R[row]``. Within a row, cells are pooled
    from the smallest expected count up until each group expects at least
    ``minimum`` (a remainder joins the last group), so that the chi-square
    approximation holds; a row contributes its number of groups minus one degrees of
    freedom.

    Parameters
    ----------
    counts : array_like, shape (n_rows, n_states) or (n_states,)
        Observed next-state counts, one row per start state.
    R : array_like, same shape as ``counts``
        The exact transition probabilities of those rows (each sums to 1).
    minimum : float, default 5.0
        Smallest expected count of a pooled group.

    Returns
    -------
    ChiSquare

    Examples
    --------
    A sampler that moves exactly as ``R`` says passes; one that never moves fails:

    >>> import numpy as np
    >>> R = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> round(transition_chi_square([[750, 250], [250, 750]], R).p_value, 3)
    1.0
    >>> transition_chi_square([[1000, 0], [0, 1000]], R).p_value < 1e-12
    True
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    R = np.atleast_2d(np.asarray(R, dtype=float))
    if counts.shape != R.shape:
        raise ValueError(f"counts has shape {counts.shape} but R has {R.shape}")
    statistic, dof = 0.0, 0
    for observed, row in zip(counts, R):
        expected = observed.sum() * row
        obs, exp, pool_o, pool_e = [], [], 0.0, 0.0
        for j in np.argsort(expected):
            pool_o, pool_e = pool_o + observed[j], pool_e + expected[j]
            if pool_e >= minimum:
                obs.append(pool_o)
                exp.append(pool_e)
                pool_o = pool_e = 0.0
        if exp:
            obs[-1] += pool_o
            exp[-1] += pool_e
        obs, exp = np.array(obs), np.array(exp)
        statistic += float(((obs - exp) ** 2 / exp).sum())
        dof += max(len(obs) - 1, 0)
    return ChiSquare(statistic, dof, float(stats.chi2.sf(statistic, dof)))


def clause_states(clauses: WeightedClauses, max_states: int = MAX_STATES) -> tuple[np.ndarray, np.ndarray]:
    """The states that satisfy every hard clause, and MC-SAT's target on them.

    Parameters
    ----------
    clauses : WeightedClauses
        Over at most ``max_states`` joint states.
    max_states : int, default :data:`MAX_STATES`

    Returns
    -------
    states : int64 (k, n)
        Lexicographic.
    p : float64 (k,)
        ``exp(sum of w over the soft clauses satisfied) / Z``.

    Raises
    ------
    EvidenceError
        No state satisfies the hard clauses.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses
    >>> from prunelab.theory import clause_states
    >>> states, p = clause_states(network_clauses(compile_network(load_network("deterministic_pair"))))
    >>> states.tolist(), p.tolist()
    ([[0, 0], [1, 1]], [0.5, 0.5])
    """
    card = [int(c) for c in clauses.cardinality]
    total = int(np.prod(card, dtype=object))
    if total > max_states:
        raise ValueError(f"the clauses range over {total} states; exact matrices are for at most {max_states}")
    states = np.indices(card).reshape(len(card), -1).T.astype(np.int64)
    log_weight = satisfied_weight(clauses, states)
    keep = np.isfinite(log_weight)
    if not keep.any():
        raise EvidenceError("no state satisfies every hard clause")
    weight = np.exp(log_weight[keep] - log_weight[keep].max())
    return states[keep], weight / weight.sum()


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

    R = np.zeros((k, k))
    full = (1 << k) - 1
    if method == "rows":
        for a in range(k):
            if k <= MAX_KERNEL_STATES:
                _accumulate(groups(violated[a]), k, R, a)
            else:
                for mask, prob in _surviving_sets(groups(violated[a]), full).items():
                    members = _members(mask)
                    R[a, members] += prob / len(members)
        return states, R
    in_m = np.exp(-(violated * clauses.weight[soft]).sum(axis=1))  # P(x in M), unconditional selection
    if k <= MAX_KERNEL_STATES:
        _accumulate(groups(np.zeros(len(soft), bool)), k, R)
        R = np.triu(R) + np.triu(R, 1).T
    else:
        for mask, prob in _surviving_sets(groups(np.zeros(len(soft), bool)), full).items():
            members = np.array(_members(mask))
            R[np.ix_(members, members)] += prob / len(members)
    return states, R / in_m[:, None]
