"""Numba kernels that count the pruned set by variable elimination and draw from it by backward sampling.

Also the boolean pass of :func:`support_nb` (which labels some member uses) and
the count specialised to prune sampling's varying labels
(:func:`count_sparse_arrays`). The readable counterparts are in :mod:`.reference`.
"""

from __future__ import annotations

import numba
import numpy as np

from .compiler import EXACT_COUNT_LIMIT
from .primitives import constants_kept_nb, integer_below_nb

__all__ = ["backward_arrays", "backward_nb", "count_nb", "count_sparse_arrays", "sparse_count_nb", "support_nb"]

# Arrays are taken out of the network/plan tuples once, at the top of each kernel:
# reading a field of a numba tuple inside a loop costs a reference-count update.
_jit = numba.njit(cache=True, nogil=True)


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
    """|S| by variable elimination; fills ``tables`` for :func:`backward_nb`.

    Each step multiplies its inputs entry by entry (indicator inputs first, so a
    pruned entry stops the product at once) and sums the eliminated variable, the
    last axis, out of the combined table. Input positions come from the
    precompiled gather indices, or, for a step too large to unroll, from a
    mixed-radix counter over the outer axes; the products and sums are the same.
    """
    if not constants_kept_nb(plan.const_label, kept):
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
    if not constants_kept_nb(const_label, kept):
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
def _input_position_nb(plan, k, a, g, T, e):
    """Position in the factor buffer of input ``a`` (input slot ``g``) of step ``k`` at combined entry ``e``."""
    g0 = plan.gather_ptr[k]
    if plan.gather_ptr[k + 1] > g0:  # unrolled in the full program's gather already
        return plan.gather[g0 + a * T + e]
    s0 = plan.step_scope_ptr[k]
    p0 = plan.input_stride_ptr[g]
    position = plan.factor_ptr[plan.step_input_factor[g]]
    rest = e
    for d in range(plan.step_scope_ptr[k + 1] - s0 - 1, -1, -1):  # the digits of e, last axis fastest
        c = plan.step_scope_card[s0 + d]
        position += plan.input_stride[p0 + d] * (rest % c)
        rest //= c
    return position


@_jit
def sparse_count_nb(plan, tables, variable, limit):
    """The arrays of a :class:`~prunelab.samplers.prune.plan.SparseCount`; ``n_gather`` -1 past ``limit``.

    Returns ``(n_gather, live_ptr, live_entry, live_row, n_label, n_input, gather_ptr, gather, root_factor)``.
    ``tables``: the combined tables of a full count with every possible label kept. Two passes: the first
    finds the steps that vary and their sizes, the second fills the arrays. The numpy reference is
    :func:`~.reference.sparse_count_py`, step by step (on a 65,536-node chain its per-step numpy calls took
    1.3 s).
    """
    n_steps = plan.table_ptr.shape[0] - 1
    n_ind = plan.n_indicator
    dirty = np.zeros(plan.factor_ptr.shape[0] - 1, dtype=np.bool_)
    reads = np.zeros(plan.step_input_factor.shape[0], dtype=np.bool_)  # input slots the program keeps
    n_live = np.zeros(n_steps, dtype=np.int64)
    n_label = np.zeros(n_steps, dtype=np.int64)
    n_input = np.zeros(n_steps, dtype=np.int64)
    n_gather = 0
    n_dirty = 0
    n_root = 0
    for k in range(n_steps):
        t0 = plan.table_ptr[k]
        T = plan.table_ptr[k + 1] - t0
        if plan.step_scope_ptr[k + 1] - plan.step_scope_ptr[k] == 1:
            n_root += 1
        L = 0
        for e in range(T):
            if tables[t0 + e] != 0.0:
                L += 1
        varies = False
        labels = 0
        messages = 0
        i0 = plan.step_input_ptr[k]
        for a in range(plan.step_input_ptr[k + 1] - i0):
            g = i0 + a
            f = plan.step_input_factor[g]
            if f < n_ind:
                for e in range(T):
                    if tables[t0 + e] != 0.0 and variable[plan.factor_label[_input_position_nb(plan, k, a, g, T, e)]]:
                        reads[g] = True
                        break
                if reads[g]:
                    labels += 1
                    varies = True
            else:
                reads[g] = True
                messages += 1
                varies = varies or dirty[f]
        if not varies or L == 0:
            continue
        dirty[n_ind + k] = True
        n_gather += L * (labels + messages)
        if n_gather > limit:
            empty = np.zeros(0, dtype=np.int64)
            return -1, empty, empty, empty, empty, empty, empty, empty, empty
        n_live[k] = L
        n_label[k] = labels
        n_input[k] = labels + messages
        n_dirty += 1
    live_ptr = np.zeros(n_dirty + 1, dtype=np.int64)
    gather_ptr = np.zeros(n_dirty + 1, dtype=np.int64)
    d = 0
    for k in range(n_steps):
        if n_input[k] > 0:
            live_ptr[d + 1] = live_ptr[d] + n_live[k]
            gather_ptr[d + 1] = gather_ptr[d] + n_live[k] * n_input[k]
            d += 1
    live_entry = np.zeros(live_ptr[-1], dtype=np.int64)
    live_row = np.zeros(live_ptr[-1], dtype=np.int64)
    gather = np.zeros(gather_ptr[-1], dtype=np.int64)
    root_factor = np.zeros(n_root, dtype=np.int64)
    d = 0
    r = 0
    for k in range(n_steps):
        o0 = plan.factor_ptr[n_ind + k]
        s1 = plan.step_scope_ptr[k + 1]
        if s1 - plan.step_scope_ptr[k] == 1:
            root_factor[r] = o0
            r += 1
        if n_input[k] == 0:
            continue
        t0 = plan.table_ptr[k]
        T = plan.table_ptr[k + 1] - t0
        row_card = plan.step_scope_card[s1 - 1]
        j = live_ptr[d]
        for e in range(T):
            if tables[t0 + e] != 0.0:
                live_entry[j] = t0 + e
                live_row[j] = o0 + e // row_card
                j += 1
        out = gather_ptr[d]
        i0 = plan.step_input_ptr[k]
        for a in range(plan.step_input_ptr[k + 1] - i0):  # labels first, then messages: the program's order
            g = i0 + a
            if not reads[g]:
                continue
            indicator = plan.step_input_factor[g] < n_ind
            for e in range(T):
                if tables[t0 + e] != 0.0:
                    position = _input_position_nb(plan, k, a, g, T, e)
                    gather[out] = plan.factor_label[position] if indicator else position
                    out += 1
        d += 1
    dirty_steps = n_input > 0
    return n_gather, live_ptr, live_entry, live_row, n_label[dirty_steps], n_input[dirty_steps], gather_ptr, gather, \
        root_factor


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
    if not constants_kept_nb(plan.const_label, kept):
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
def backward_nb(rng, plan, tables, y):
    """Draw the free variables of ``y`` uniformly from ``S`` (after :func:`count_nb`)."""
    backward_arrays(rng, plan.table_ptr, plan.step_scope_ptr, plan.step_scope_var, plan.step_scope_card, tables, y)


@_jit
def backward_arrays(rng, table_ptr, scope_ptr, scope_var, scope_card, tables, y):
    """:func:`backward_nb` on the plan's arrays (see :func:`search_arrays` for why)."""
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
