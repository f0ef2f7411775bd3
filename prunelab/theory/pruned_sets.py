"""The distribution of the surviving set ``S`` of a random pruning, by a dynamic programme over label groups.

A group of labels (or of clauses) used by the same feasible states survives with
probability ``prod c``; the programme carries ``{bitmask of surviving states:
probability}`` group by group (see :mod:`prunelab.theory`). :func:`surviving_sets`
is the readable dict programme; with at most :data:`MAX_KERNEL_STATES` states a set
is one ``uint64`` and :func:`accumulate_sets` runs the numba kernels (a hash table
per group) and adds the sets' shares to a transition matrix directly.
:func:`rows_matrix` and :func:`joint_matrix` turn groups into the matrix, for prune
sampling and MC-SAT alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numba
import numpy as np

__all__ = [
    "MAX_KERNEL_STATES", "MAX_SETS_KERNEL", "MAX_SETS_REFERENCE", "UNMERGED_TAIL", "accumulate_sets", "joint_matrix",
    "label_groups", "rows_matrix", "set_members", "surviving_sets",
]


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


def label_groups(labels: np.ndarray, cpt: np.ndarray, exclude=frozenset()) -> dict[int, float]:
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


def surviving_sets(groups: Mapping[int, float], full: int) -> dict[int, float]:
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


def set_members(mask: int) -> list[int]:
    """The members of a set held as a bitmask, increasing."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio, odd: multiplicative hashing
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)  # B(2, 6): (low bit * it) >> 58 is distinct per bit
_DE_BRUIJN_BIT = np.zeros(64, dtype=np.int64)  # [index] = the bit with that de Bruijn index
_DE_BRUIJN_BIT[[((int(_DE_BRUIJN) << bit) % (1 << 64)) >> 58 for bit in range(64)]] = np.arange(64)
_EMPTY = np.uint64(0)  # the empty set is never stored, so 0 marks a free slot


def _ordered_groups(groups: Mapping[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """The groups as arrays in :func:`surviving_sets`'s order: ``uint64`` masks, ``prod c``."""
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
    """:func:`surviving_sets` on ``uint64`` masks (``k <= 64``): one hash table per group.

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


def accumulate_sets(groups: Mapping[int, float], k: int, R: np.ndarray, row: int = -1) -> None:
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


def rows_matrix(row_groups: Callable[[int], Mapping[int, float]], k: int, kernel: bool) -> np.ndarray:
    """``R[a, b] = sum_S P(S | a) 1{b in S} / |S|``, one programme per row ``a`` (the definition).

    Parameters
    ----------
    row_groups : callable
        ``row_groups(a)``: the groups random when pruning around state ``a``.
    k : int
        Number of states.
    kernel : bool
        Run the numba kernels (needs ``k <= MAX_KERNEL_STATES``); else the dict programme.
    """
    R = np.zeros((k, k))
    full = (1 << k) - 1
    for a in range(k):
        if kernel:
            accumulate_sets(row_groups(a), k, R, a)
            continue
        for mask, prob in surviving_sets(row_groups(a), full).items():
            members = set_members(mask)
            R[a, members] += prob / len(members)
    return R


def joint_matrix(groups: Mapping[int, float], k: int, kernel: bool) -> np.ndarray:
    """``E[1{a in S} 1{b in S} / |S|]`` over one programme with every group random (symmetric).

    Divided row by row by ``P(a in S)`` it is the transition matrix (see
    :func:`prunelab.theory.prune_transition_matrix`, ``method="joint"``).

    Parameters
    ----------
    groups : mapping of int to float
        Every random group: ``{uses mask: probability it survives}``.
    k : int
        Number of states.
    kernel : bool
        Run the numba kernels (needs ``k <= MAX_KERNEL_STATES``); else the dict programme.
    """
    R = np.zeros((k, k))
    if kernel:
        accumulate_sets(groups, k, R)  # the upper triangle
        return np.triu(R) + np.triu(R, 1).T
    for mask, prob in surviving_sets(groups, (1 << k) - 1).items():
        members = np.array(set_members(mask))
        R[np.ix_(members, members)] += prob / len(members)
    return R
