"""Readable numpy references of the uniform draws (same draws as the numba kernels).

The tests pin each kernel to its reference draw for draw.
"""

from __future__ import annotations

import numpy as np

from .compiler import EXACT_COUNT_LIMIT
from .registry import AUTO, COUNT, ENUMERATE, HEURISTIC

__all__ = ["count_py", "search_py", "sparse_count_py", "uniform_draw_py"]


def _label_py(net, y, i):
    lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
    return int(net.cpt_offset[i] + y[i] + np.dot(y[net.parent_index[lo:hi]], net.parent_stride[lo:hi]))


def _consistent_py(net, plan, kept, y, p) -> bool:
    if not kept[_label_py(net, y, plan.dfs_order[p])]:
        return False
    for c in plan.check_var[plan.check_ptr[p] : plan.check_ptr[p + 1]]:
        if not kept[_label_py(net, y, c)]:
            return False
    for c in plan.look_var[plan.look_ptr[p] : plan.look_ptr[p + 1]]:
        base = _label_py(net, y, c) - y[c]
        if not kept[base : base + net.cardinality[c]].any():
            return False
    return True


def search_py(net, plan, kept, y):
    """All members of ``S`` in search order, and the number of nodes tried."""
    if not all(kept[plan.const_label]):
        return [], 0
    order = plan.dfs_order
    members: list[np.ndarray] = []
    nodes = 0

    def extend(p):
        nonlocal nodes
        if p == len(order):
            members.append(y.copy())
            return
        v = order[p]
        for a in range(net.cardinality[v]):
            nodes += 1
            y[v] = a
            if _consistent_py(net, plan, kept, y, p):
                extend(p + 1)

    extend(0)
    return members, nodes


def _walk_py(net, plan, kept, y, target):
    """Count the members of ``S`` in search order, and the nodes tried; nothing is kept.

    With ``target >= 0`` the walk stops at member number ``target`` (from 0), which
    ``y`` then holds (its free variables; the rest of ``y`` is left as it was). The
    readable twin of :func:`~prunelab.samplers.prune.draws.search.search_arrays`.
    """
    if not all(kept[plan.const_label]):
        return 0, 0
    order = plan.dfs_order
    count = nodes = 0

    def extend(p) -> bool:
        nonlocal count, nodes
        if p == len(order):
            count += 1
            return count == target + 1
        v = order[p]
        for a in range(net.cardinality[v]):
            nodes += 1
            y[v] = a
            if _consistent_py(net, plan, kept, y, p) and extend(p + 1):
                return True
        return False

    extend(0)
    return count, nodes


def _choose_py(rng, row) -> int:
    total = float(sum(row))
    if total < EXACT_COUNT_LIMIT:
        r = rng.integers(0, int(total))
    else:
        r = rng.random() * total
    cumulative = 0.0
    for a, w in enumerate(row):
        cumulative += w
        if r < cumulative:
            return a
    return max(a for a, w in enumerate(row) if w > 0)


def count_py(net, plan, kept):
    """|S| and the combined tables, by variable elimination with ``np.einsum``."""
    if not all(kept[plan.const_label]):
        return 0.0, None
    card = net.cardinality

    def scope(f):
        return plan.factor_scope_var[plan.factor_scope_ptr[f] : plan.factor_scope_ptr[f + 1]]

    factors = {}
    for f in range(plan.n_indicator):
        lo, hi = plan.factor_ptr[f], plan.factor_ptr[f + 1]
        factors[f] = kept[plan.factor_label[lo:hi]].astype(np.float64).reshape(card[scope(f)])
    tables = []
    total = 1.0
    for k in range(plan.n_steps):
        combined = plan.step_scope_var[plan.step_scope_ptr[k] : plan.step_scope_ptr[k + 1]]
        letter = {int(u): chr(ord("a") + d) for d, u in enumerate(combined)}
        operands = []
        for f in plan.step_input_factor[plan.step_input_ptr[k] : plan.step_input_ptr[k + 1]]:
            operands += [factors.pop(int(f)), [letter[int(u)] for u in scope(f)]]
        spec = ",".join("".join(s) for s in operands[1::2]) + "->" + "".join(letter.values())
        table = np.einsum(spec, *operands[0::2])
        tables.append(table)
        out = table.sum(axis=-1)
        factors[plan.n_indicator + k] = out
        if len(combined) == 1:
            total *= float(out)
    return total, tables


def _backward_py(rng, plan, tables, y):
    for k in reversed(range(plan.n_steps)):
        combined = plan.step_scope_var[plan.step_scope_ptr[k] : plan.step_scope_ptr[k + 1]]
        row = tables[k][tuple(y[combined[:-1]])]
        y[combined[-1]] = _choose_py(rng, row)


def _heuristic_py(rng, net, plan, kept, x, y, n_candidates, max_restarts):
    if not all(kept[plan.const_label]):
        return 0.0
    order = plan.dfs_order
    distinct: list[tuple] = []
    seen: set[tuple] = set()
    for _ in range(n_candidates):
        for _attempt in range(max_restarts + 1):
            complete = True
            for p, v in enumerate(order):
                allowed = []
                for a in range(net.cardinality[v]):
                    y[v] = a
                    if _consistent_py(net, plan, kept, y, p):
                        allowed.append(a)
                if not allowed:
                    complete = False
                    break
                y[v] = allowed[rng.integers(0, len(allowed))]
            if complete:
                break
        if not complete:
            continue
        key = tuple(int(a) for a in y[order])
        if key not in seen:
            seen.add(key)
            distinct.append(key)
    if not distinct:
        y[:] = x
        return 1.0
    y[order] = distinct[rng.integers(0, len(distinct))]
    return float(len(distinct))


def uniform_draw_py(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget):
    """Draw ``y`` from ``S``; returns ``(size, method used, search nodes)`` (nodes 0 without a search)."""
    if uniform_code == HEURISTIC:
        return _heuristic_py(rng, net, plan, kept, x, y, n_candidates, max_restarts), HEURISTIC, 0
    nodes = 0
    if uniform_code in (ENUMERATE, AUTO):
        # count, then draw the r-th member by searching again: memory stays O(n) however large S is
        count, nodes = _walk_py(net, plan, kept, y.copy(), -1)
        if uniform_code == ENUMERATE or nodes <= budget:
            if count:
                _walk_py(net, plan, kept, y, int(rng.integers(0, count)))
            return float(count), ENUMERATE, nodes
    total, tables = count_py(net, plan, kept)
    if total > 0:
        _backward_py(rng, plan, tables, y)
    return total, COUNT, nodes


def sparse_count_py(plan, tables, variable, limit):
    """The arrays of a :class:`~prunelab.samplers.prune.plan.SparseCount` and its cost, or None past ``limit``.

    The arrays are all but ``possible``; ``tables``: the workspace's combined tables after a full count with
    every possible label kept; ``limit``: the most gather entries allowed. What
    :func:`~.counting.sparse_count_nb` computes, step by step.
    """
    card = plan.step_scope_card
    dirty_factor = np.zeros(int(plan.factor_ptr.shape[0] - 1), dtype=bool)
    live_entry, live_row, n_label, n_input, gathers, root_factor = [], [], [], [], [], []
    n_gather = 0
    for k in range(plan.n_steps):
        t0, t1 = int(plan.table_ptr[k]), int(plan.table_ptr[k + 1])
        s0, s1 = int(plan.step_scope_ptr[k]), int(plan.step_scope_ptr[k + 1])
        out = plan.n_indicator + k
        o0 = int(plan.factor_ptr[out])
        if s1 - s0 == 1:
            root_factor.append(o0)
        live = np.flatnonzero(tables[t0:t1] != 0.0)
        unrolled = plan.gather_ptr[k + 1] > plan.gather_ptr[k]
        if not unrolled:
            digits = np.stack(np.unravel_index(live, tuple(int(c) for c in card[s0:s1])))
        labels, messages, varies = [], [], False
        for a, g in enumerate(range(int(plan.step_input_ptr[k]), int(plan.step_input_ptr[k + 1]))):
            f = int(plan.step_input_factor[g])
            if unrolled:  # the positions are in the full program's gather already
                position = plan.gather[plan.gather_ptr[k] + a * (t1 - t0) + live]
            else:
                stride = plan.input_stride[plan.input_stride_ptr[g] : plan.input_stride_ptr[g + 1]]
                position = plan.factor_ptr[f] + stride @ digits
            if f < plan.n_indicator:
                label = plan.factor_label[position]
                if variable[label].any():
                    labels.append(label)
                    varies = True
            else:
                messages.append(position)
                varies |= bool(dirty_factor[f])
        if not varies or live.size == 0:
            continue
        dirty_factor[out] = True
        inputs = labels + messages
        n_gather += live.size * len(inputs)
        if n_gather > limit:
            return None
        live_entry.append(t0 + live)
        live_row.append(o0 + live // int(card[s1 - 1]))
        n_label.append(len(labels))
        n_input.append(len(inputs))
        gathers.append(np.concatenate(inputs))

    def flat(parts):
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    return dict(
        live_ptr=np.concatenate([[0], np.cumsum([len(e) for e in live_entry])]).astype(np.int64),
        live_entry=flat(live_entry),
        live_row=flat(live_row),
        n_label=np.asarray(n_label, dtype=np.int64),
        n_input=np.asarray(n_input, dtype=np.int64),
        gather_ptr=np.concatenate([[0], np.cumsum([len(g) for g in gathers])]).astype(np.int64),
        gather=flat(gathers),
        root_factor=np.asarray(root_factor, dtype=np.int64),
    ), n_gather
