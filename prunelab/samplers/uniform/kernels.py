"""Numba kernels of the uniform draws: search, count, used labels, backward sampling, heuristic.

Each has a readable numpy counterpart in :mod:`.reference` (except the boolean
support pass, checked against brute force in the tests); both consume a
``numpy.random.Generator`` in the same order.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba.np.random.generator_core import next_uint32
from numba.np.random.random_methods import bounded_lemire_uint64, buffered_bounded_lemire_uint32

from prunelab.compiled import CompiledNetwork

from .compiler import (
    DEFAULT_N_CANDIDATES,
    EXACT_COUNT_LIMIT,
    MEMBER_CAPACITY,
    UniformPlan,
)

__all__ = [
    "UniformWorkspace",
    "backward_arrays",
    "count_nb",
    "count_sparse_arrays",
    "draw_member_arrays",
    "integer_below_nb",
    "label_nb",
    "make_workspace",
    "repeat_draws_nb",
    "search_arrays",
    "search_nb",
    "support_nb",
    "uniform_draw_nb",
]


class UniformWorkspace(NamedTuple):
    """Scratch arrays for the numba kernels, allocated once per chain."""

    factors: np.ndarray  # float64, factor buffer
    tables: np.ndarray  # float64, combined tables of the elimination steps
    value: np.ndarray  # int64, search state per position
    allowed: np.ndarray  # int64, allowed values (heuristic)
    candidates: np.ndarray  # int64 (n_candidates, n_free)
    hashes: np.ndarray  # uint64 (n_candidates,)
    members: np.ndarray  # int64 (MEMBER_CAPACITY, n_free): first members found by the search
    counter: np.ndarray  # int64 (axes,), mixed-radix counter over a step's combined scope
    radix: np.ndarray  # int64 (axes,), the cardinalities of that scope
    stride: np.ndarray  # int64 (inputs, axes), every input's stride along every axis
    base: np.ndarray  # int64 (inputs,), every input's position at the counter's row


def make_workspace(
    net: CompiledNetwork,
    plan: UniformPlan,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    fill=None,
) -> UniformWorkspace:
    """Scratch arrays for the numba kernels (one per chain; not shared between threads).

    With ``fill`` (bool array over the labels), the tables and factors are filled
    by one count with those labels kept: a :class:`~.sparse.SparseCount` needs
    ``fill=sparse.possible``, since it never recomputes the steps that do not vary.
    """
    n_free = plan.dfs_order.shape[0]
    axes = int(np.diff(plan.step_scope_ptr).max(initial=0)) + 1
    inputs = int(np.diff(plan.step_input_ptr).max(initial=0)) + 1
    ws = UniformWorkspace(
        factors=np.zeros(int(plan.factor_ptr[-1]), dtype=np.float64),
        tables=np.zeros(int(plan.table_ptr[-1]), dtype=np.float64),
        value=np.zeros(n_free + 1, dtype=np.int64),
        allowed=np.zeros(int(net.cardinality.max()) + 1, dtype=np.int64),
        candidates=np.zeros((max(int(n_candidates), 1), n_free), dtype=np.int64),
        hashes=np.zeros(max(int(n_candidates), 1), dtype=np.uint64),
        members=np.zeros((MEMBER_CAPACITY, n_free), dtype=np.int64),
        counter=np.zeros(axes, dtype=np.int64),
        radix=np.zeros(axes, dtype=np.int64),
        stride=np.zeros((inputs, axes), dtype=np.int64),
        base=np.zeros(inputs, dtype=np.int64),
    )
    if fill is not None:
        count_nb(plan, np.ascontiguousarray(fill, dtype=np.bool_), ws.factors, ws.tables, ws.counter,
                 ws.radix, ws.stride, ws.base)
    return ws


# Arrays are taken out of the network/plan tuples once, at the top of each kernel:
# reading a field of a numba tuple inside a loop costs a reference-count update.
_jit = numba.njit(cache=True, nogil=True)


@_jit
def label_nb(offset, parent_ptr, parent_index, parent_stride, y, i):
    """Global label of variable ``i``'s CPT entry in the (partial) state ``y``."""
    lab = offset[i] + y[i]
    for k in range(parent_ptr[i], parent_ptr[i + 1]):
        lab += y[parent_index[k]] * parent_stride[k]
    return lab


@_jit
def _consistent_nb(card, offset, parent_ptr, parent_index, parent_stride, order,
                   check_ptr, check_var, look_ptr, look_var, kept, y, p):
    """Whether the checks of search position ``p`` pass for the values in ``y``."""
    if not kept[label_nb(offset, parent_ptr, parent_index, parent_stride, y, order[p])]:
        return False
    for k in range(check_ptr[p], check_ptr[p + 1]):
        if not kept[label_nb(offset, parent_ptr, parent_index, parent_stride, y, check_var[k])]:
            return False
    for k in range(look_ptr[p], look_ptr[p + 1]):
        c = look_var[k]
        base = label_nb(offset, parent_ptr, parent_index, parent_stride, y, c) - y[c]
        ok = False
        for b in range(card[c]):
            if kept[base + b]:
                ok = True
                break
        if not ok:
            return False
    return True


@_jit
def _constants_kept_nb(const_label, kept):
    for k in range(const_label.shape[0]):
        if not kept[const_label[k]]:
            return False
    return True


@_jit
def search_nb(net, plan, kept, y, value, budget, target, members):
    """Depth-first search over ``S`` in lexicographic order of ``dfs_order``.

    Counts members of ``S`` and copies the first ``len(members)`` of them (free
    variables, in search order) into ``members``. Stops early when the count
    reaches ``target + 1`` (then ``y`` holds that member) or when more than
    ``budget`` nodes (tried values) were visited (then the count is -1).
    ``budget < 0`` or ``target < 0``: no limit. Returns ``(count, nodes)``.
    """
    return search_arrays(net.cardinality, net.cpt_offset, net.parent_ptr, net.parent_index, net.parent_stride,
                         plan.dfs_order, plan.check_ptr, plan.check_var, plan.look_ptr, plan.look_var,
                         plan.const_label, kept, y, value, budget, target, members)


@_jit
def search_arrays(card, offset, parent_ptr, parent_index, parent_stride, order, check_ptr, check_var,
                  look_ptr, look_var, const_label, kept, y, value, budget, target, members):
    """:func:`search_nb` on the arrays themselves.

    Per-step kernels take arrays, not the plan's named tuple: numba updates a
    reference count for every field read from a tuple, which on small networks
    costs more than the search (about 250 ns a call).
    """
    if not _constants_kept_nb(const_label, kept):
        return 0, 0
    nf = order.shape[0]
    if nf == 0:
        return 1, 0
    capacity = members.shape[0]
    count = 0
    nodes = 0
    p = 0
    value[0] = -1
    while p >= 0:
        v = order[p]
        a = value[p] + 1
        found = False
        while a < card[v]:
            nodes += 1
            if budget >= 0 and nodes > budget:
                return -1, nodes
            y[v] = a
            # the checks of _consistent_nb, written out: a call per node costs more
            # than the checks themselves
            lab = offset[v] + a
            for k in range(parent_ptr[v], parent_ptr[v + 1]):
                lab += y[parent_index[k]] * parent_stride[k]
            ok = kept[lab]
            if ok:
                for kk in range(check_ptr[p], check_ptr[p + 1]):
                    c = check_var[kk]
                    lab = offset[c] + y[c]
                    for k in range(parent_ptr[c], parent_ptr[c + 1]):
                        lab += y[parent_index[k]] * parent_stride[k]
                    if not kept[lab]:
                        ok = False
                        break
            if ok:
                for kk in range(look_ptr[p], look_ptr[p + 1]):
                    c = look_var[kk]
                    lab = offset[c]
                    for k in range(parent_ptr[c], parent_ptr[c + 1]):
                        lab += y[parent_index[k]] * parent_stride[k]
                    some = False
                    for b in range(card[c]):
                        if kept[lab + b]:
                            some = True
                            break
                    if not some:
                        ok = False
                        break
            if ok:
                found = True
                break
            a += 1
        if not found:
            p -= 1
            continue
        value[p] = a
        if p == nf - 1:
            if count < capacity:
                for q in range(nf):
                    members[count, q] = y[order[q]]
            count += 1
            if target >= 0 and count == target + 1:
                return count, nodes
        else:
            p += 1
            value[p] = -1
    return count, nodes


@_jit
def integer_below_nb(rng, n):
    """``rng.integers(0, n)`` for ``n >= 1``: the same number from the same stream, without allocating.

    numba's ``Generator.integers`` fills a fresh one-element array at every call
    (about 60 ns); this runs the branch NumPy takes for one int64 (its
    ``random_bounded_uint64_fill``: Lemire's method, on a buffered 32-bit draw
    when ``n - 1`` fits in 32 bits) with numba's own translation of it. The
    tests check it against ``Generator.integers`` for bounds on both sides of
    ``2**32``.
    """
    r = np.uint64(n - 1)
    if r == 0:
        return np.int64(0)
    bitgen = rng.bit_generator
    if r <= np.uint64(0xFFFFFFFF):
        if r == np.uint64(0xFFFFFFFF):
            return np.int64(next_uint32(bitgen))
        return np.int64(buffered_bounded_lemire_uint32(bitgen, r))
    return np.int64(bounded_lemire_uint64(bitgen, r))


@_jit
def _choose_nb(rng, weights, start, n, total):
    """Index in ``weights[start:start+n]`` drawn proportionally to the weights."""
    acc = 0.0
    if total < EXACT_COUNT_LIMIT:  # integer-valued, exact
        r = integer_below_nb(rng, np.int64(total))
        for a in range(n):
            acc += weights[start + a]
            if r < acc:
                return a
    else:
        u = rng.random() * total
        for a in range(n):
            acc += weights[start + a]
            if u < acc:
                return a
    for a in range(n - 1, -1, -1):  # float guard: last value with weight
        if weights[start + a] > 0.0:
            return a
    return n - 1


@_jit
def _start_rows_nb(plan, k, counter, radix, stride, base):
    """Load step ``k`` into the counter's scratch arrays; returns ``(inputs, axes)``.

    ``radix``: the cardinality of every axis of the combined scope; ``stride[g]``:
    input ``g``'s stride along every axis; ``base[g]``: input ``g``'s position at
    the first row (all outer axes 0); the counter is set to that row.
    """
    i0 = plan.step_input_ptr[k]
    ni = plan.step_input_ptr[k + 1] - i0
    s0 = plan.step_scope_ptr[k]
    nd = plan.step_scope_ptr[k + 1] - s0
    for d in range(nd):
        counter[d] = 0
        radix[d] = plan.step_scope_card[s0 + d]
    for g in range(ni):
        base[g] = plan.factor_ptr[plan.step_input_factor[i0 + g]]
        p0 = plan.input_stride_ptr[i0 + g]
        for d in range(nd):
            stride[g, d] = plan.input_stride[p0 + d]
    return ni, nd


@_jit
def _next_row_nb(counter, radix, stride, base, ni, nd):
    """Advance the counter by one row (the next value of the outer axes, C order)."""
    d = nd - 2
    while d >= 0:
        counter[d] += 1
        if counter[d] < radix[d]:
            for g in range(ni):
                base[g] += stride[g, d]
            return
        for g in range(ni):
            base[g] -= stride[g, d] * (radix[d] - 1)
        counter[d] = 0
        d -= 1


@numba.njit(cache=True, nogil=True, inline="never")
def _products_by_counter_nb(plan, k, factors, tables, counter, radix, stride, base):
    """The combined table of step ``k``, its input positions from a mixed-radix counter."""
    ni, nd = _start_rows_nb(plan, k, counter, radix, stride, base)
    t = plan.table_ptr[k]
    for _ in range((plan.table_ptr[k + 1] - t) // radix[nd - 1]):
        for a in range(radix[nd - 1]):
            prod = factors[base[0] + a * stride[0, nd - 1]]
            g = 1
            while g < ni and prod != 0.0:
                prod *= factors[base[g] + a * stride[g, nd - 1]]
                g += 1
            tables[t] = prod
            t += 1
        _next_row_nb(counter, radix, stride, base, ni, nd)


@_jit
def count_nb(plan, kept, factors, tables, counter, radix, stride, base):
    """|S| by variable elimination; fills ``tables`` for :func:`_backward_nb`.

    Each step multiplies its inputs entry by entry (indicator inputs first, so a
    pruned entry stops the product at once) and sums the eliminated variable, the
    last axis, out of the combined table. Input positions come from the
    precompiled gather indices, or, for a step too large to unroll, from a
    mixed-radix counter over the outer axes; the products and sums are the same.
    """
    if not _constants_kept_nb(plan.const_label, kept):
        return 0.0
    factor_label = plan.factor_label
    factor_ptr = plan.factor_ptr
    table_ptr = plan.table_ptr
    gather_ptr = plan.gather_ptr
    gather = plan.gather
    input_ptr = plan.step_input_ptr
    scope_ptr = plan.step_scope_ptr
    scope_card = plan.step_scope_card
    n_indicator = plan.n_indicator
    for j in range(factor_label.shape[0]):
        factors[j] = 1.0 if kept[factor_label[j]] else 0.0
    total = 1.0
    for k in range(table_ptr.shape[0] - 1):
        ni = input_ptr[k + 1] - input_ptr[k]
        t0 = table_ptr[k]
        size = table_ptr[k + 1] - t0
        g0 = gather_ptr[k]
        cv = scope_card[scope_ptr[k + 1] - 1]
        o0 = factor_ptr[n_indicator + k]
        if gather_ptr[k + 1] > g0:
            for e in range(size):
                prod = factors[gather[g0 + e]]
                g = 1
                while g < ni and prod != 0.0:
                    prod *= factors[gather[g0 + g * size + e]]
                    g += 1
                tables[t0 + e] = prod
        else:
            _products_by_counter_nb(plan, k, factors, tables, counter, radix, stride, base)
        for o in range(size // cv):
            s = 0.0
            for a in range(cv):
                s += tables[t0 + o * cv + a]
            factors[o0 + o] = s
        if scope_ptr[k + 1] - scope_ptr[k] == 1:
            total *= factors[o0]
    return total


@_jit
def count_sparse_arrays(const_label, kept, factors, tables, live_ptr, live_entry, live_row, n_label, n_input,
                        gather_ptr, gather, root_factor):
    """|S| by the specialised program of a :class:`SparseCount` (the workspace filled by ``make_workspace``).

    Recomputes only the live entries of the steps that depend on a varying label,
    reading varying indicator entries straight from ``kept``; every product and
    every row sum is the one :func:`count_nb` computes, in the same order, so
    the tables and the count are the same numbers.
    """
    if not _constants_kept_nb(const_label, kept):
        return 0.0
    for d in range(live_ptr.shape[0] - 1):
        l0 = live_ptr[d]
        n_live = live_ptr[d + 1] - l0
        g0 = gather_ptr[d]
        nl = n_label[d]
        ni = n_input[d]
        row = -1
        s = 0.0
        for j in range(n_live):
            if nl > 0:
                prod = 1.0 if kept[gather[g0 + j]] else 0.0
            else:
                prod = factors[gather[g0 + j]]
            g = 1
            while g < ni and prod != 0.0:
                if g < nl:
                    if not kept[gather[g0 + g * n_live + j]]:
                        prod = 0.0
                else:
                    prod *= factors[gather[g0 + g * n_live + j]]
                g += 1
            tables[live_entry[l0 + j]] = prod
            r = live_row[l0 + j]
            if r != row:
                if row >= 0:
                    factors[row] = s
                row = r
                s = 0.0
            s += prod
        if row >= 0:
            factors[row] = s
    total = 1.0
    for r in range(root_factor.shape[0]):
        total *= factors[root_factor[r]]
    return total


@_jit
def support_nb(plan, kept, counter, radix, stride, base):
    """Which indicator-factor entries some member of ``S`` uses (boolean semiring).

    An upward pass computes every factor in the (OR, AND) semiring: is some
    extension of this entry in ``S``? A downward pass marks, step by step from the
    last, the entries of the step's combined table that are alive and whose row is
    reached, and with them every input entry they read: the support of the
    marginal of ``S`` on every factor's scope. Because AND is idempotent, the
    marginal support can be passed down in place of the message that excludes the
    receiving factor (no division). Nothing is counted, so nothing overflows.

    Returns
    -------
    nonempty : bool
        Is ``S`` non-empty?
    reached : bool array (len(factor_label),)
        For every indicator entry: is its label used by some member of ``S``?
    """
    factor_label = plan.factor_label
    factor_ptr = plan.factor_ptr
    table_ptr = plan.table_ptr
    n_indicator = plan.n_indicator
    n_steps = table_ptr.shape[0] - 1
    alive = np.zeros(factor_ptr[factor_ptr.shape[0] - 1], dtype=np.bool_)
    reached = np.zeros_like(alive)
    if not _constants_kept_nb(plan.const_label, kept):
        return False, reached[: factor_label.shape[0]]
    for j in range(factor_label.shape[0]):
        alive[j] = kept[factor_label[j]]
    for k in range(n_steps):
        ni, nd = _start_rows_nb(plan, k, counter, radix, stride, base)
        cv = radix[nd - 1]
        o0 = factor_ptr[n_indicator + k]
        for o in range((table_ptr[k + 1] - table_ptr[k]) // cv):
            some = False
            for a in range(cv):
                every = True
                for g in range(ni):
                    if not alive[base[g] + a * stride[g, nd - 1]]:
                        every = False
                        break
                if every:
                    some = True
                    break
            alive[o0 + o] = some
            _next_row_nb(counter, radix, stride, base, ni, nd)
        if nd == 1 and not alive[o0]:
            return False, reached[: factor_label.shape[0]]
    for k in range(n_steps - 1, -1, -1):
        ni, nd = _start_rows_nb(plan, k, counter, radix, stride, base)
        cv = radix[nd - 1]
        o0 = factor_ptr[n_indicator + k]
        if nd == 1:
            reached[o0] = True  # a root: its (non-zero) total is a factor of |S|
        for o in range((table_ptr[k + 1] - table_ptr[k]) // cv):
            if reached[o0 + o]:
                for a in range(cv):
                    every = True
                    for g in range(ni):
                        if not alive[base[g] + a * stride[g, nd - 1]]:
                            every = False
                            break
                    if every:
                        for g in range(ni):
                            reached[base[g] + a * stride[g, nd - 1]] = True
            _next_row_nb(counter, radix, stride, base, ni, nd)
    return True, reached[: factor_label.shape[0]]


@_jit
def _backward_nb(rng, plan, tables, y):
    """Draw the free variables of ``y`` uniformly from ``S`` (after :func:`count_nb`)."""
    backward_arrays(rng, plan.table_ptr, plan.step_scope_ptr, plan.step_scope_var, plan.step_scope_card, tables, y)


@_jit
def backward_arrays(rng, table_ptr, scope_ptr, scope_var, scope_card, tables, y):
    """:func:`_backward_nb` on the plan's arrays (see :func:`search_arrays` for why)."""
    for k in range(table_ptr.shape[0] - 2, -1, -1):
        s0 = scope_ptr[k]
        s1 = scope_ptr[k + 1]
        row = 0
        for d in range(s0, s1 - 1):
            row = row * scope_card[d] + y[scope_var[d]]
        cv = scope_card[s1 - 1]
        start = table_ptr[k] + row * cv
        total = 0.0
        for a in range(cv):
            total += tables[start + a]
        y[scope_var[s1 - 1]] = _choose_nb(rng, tables, start, cv, total)


@_jit
def _heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws):
    """The paper's heuristic: uniform over the distinct states of ``V``."""
    card = net.cardinality
    offset = net.cpt_offset
    parent_ptr = net.parent_ptr
    parent_index = net.parent_index
    parent_stride = net.parent_stride
    order = plan.dfs_order
    check_ptr = plan.check_ptr
    check_var = plan.check_var
    look_ptr = plan.look_ptr
    look_var = plan.look_var
    allowed = ws.allowed
    candidates = ws.candidates
    hashes = ws.hashes
    nf = order.shape[0]
    if not _constants_kept_nb(plan.const_label, kept):
        return 0.0
    n_distinct = 0
    for _c in range(n_candidates):
        complete = False
        for _attempt in range(max_restarts + 1):
            complete = True
            for p in range(nf):
                v = order[p]
                na = 0
                for a in range(card[v]):
                    y[v] = a
                    if _consistent_nb(card, offset, parent_ptr, parent_index, parent_stride, order,
                                      check_ptr, check_var, look_ptr, look_var, kept, y, p):
                        allowed[na] = a
                        na += 1
                if na == 0:
                    complete = False
                    break
                y[v] = allowed[integer_below_nb(rng, na)]
            if complete:
                break
        if not complete:
            continue
        h = np.uint64(1469598103934665603)
        for p in range(nf):
            h = (h ^ np.uint64(y[order[p]])) * np.uint64(1099511628211)
        new = True
        for j in range(n_distinct):
            if hashes[j] == h:
                same = True
                for p in range(nf):
                    if candidates[j, p] != y[order[p]]:
                        same = False
                        break
                if same:
                    new = False
                    break
        if new:
            hashes[n_distinct] = h
            for p in range(nf):
                candidates[n_distinct, p] = y[order[p]]
            n_distinct += 1
    if n_distinct == 0:
        for i in range(y.shape[0]):
            y[i] = x[i]
        return 1.0
    r = integer_below_nb(rng, n_distinct)
    for p in range(nf):
        y[order[p]] = candidates[r, p]
    return float(n_distinct)


@_jit
def draw_member_arrays(rng, card, offset, parent_ptr, parent_index, parent_stride, order, check_ptr,
                       check_var, look_ptr, look_var, const_label, kept, y, value, members, count):
    """After a search that found ``count`` members, set ``y`` to one drawn uniformly.

    One ``integer_below_nb(rng, count)``; a member beyond the first
    ``len(members)`` kept by the search is reached by searching again.
    """
    if count <= 0:
        return
    r = integer_below_nb(rng, count)
    if r < members.shape[0]:
        for q in range(order.shape[0]):
            y[order[q]] = members[r, q]
    else:
        search_arrays(card, offset, parent_ptr, parent_index, parent_stride, order, check_ptr, check_var,
                      look_ptr, look_var, const_label, kept, y, value, -1, r, members[:0])


@_jit
def uniform_draw_nb(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget, ws):
    """Draw ``y`` from ``S``; returns ``(size, method used)``.

    ``y`` must hold the evidence values on entry (any values on free variables).
    """
    if method == 2:
        return _heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws), 2
    if method == 0 or method == 3:
        limit = budget if method == 3 else -1
        args = (net.cardinality, net.cpt_offset, net.parent_ptr, net.parent_index, net.parent_stride,
                plan.dfs_order, plan.check_ptr, plan.check_var, plan.look_ptr, plan.look_var, plan.const_label)
        count, nodes = search_arrays(*args, kept, y, ws.value, limit, -1, ws.members)
        if count >= 0:
            draw_member_arrays(rng, *args, kept, y, ws.value, ws.members, count)
            return float(count), 0
    total = count_nb(plan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base)
    if total > 0.0:
        _backward_nb(rng, plan, ws.tables, y)
    return total, 1


@numba.njit(cache=True)
def repeat_draws_nb(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget, ws, repeats):
    """``repeats`` uniform draws from the same pruned set (for timing); returns the last |S|."""
    size = 0.0
    for _ in range(repeats):
        size, _ = uniform_draw_nb(rng, net, plan, kept, x, y, method, n_candidates, max_restarts, budget, ws)
    return size
