"""Numba kernels that search the pruned set: depth-first enumeration, a member drawn from it, the heuristic.

The readable counterparts are in :mod:`.reference`; both consume the generator in
the same order.
"""

from __future__ import annotations

import numba
import numpy as np

from .primitives import constants_kept_nb, integer_below_nb, label_nb

__all__ = ["draw_member_arrays", "heuristic_nb", "search_arrays"]

# Arrays are taken out of the network/plan tuples once, at the top of each kernel:
# reading a field of a numba tuple inside a loop costs a reference-count update.
_jit = numba.njit(cache=True, nogil=True)


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
def search_arrays(card, offset, parent_ptr, parent_index, parent_stride, order, check_ptr, check_var,
                  look_ptr, look_var, const_label, kept, y, value, budget, target, members):
    """Depth-first search over ``S`` in lexicographic order of ``order`` (the plan's ``dfs_order``).

    Counts members of ``S`` and copies the first ``len(members)`` of them (free
    variables, in search order) into ``members``. Stops early when the count
    reaches ``target + 1`` (then ``y`` holds that member) or when more than
    ``budget`` nodes (tried values) were visited (then the count is -1).
    ``budget < 0`` or ``target < 0``: no limit. Returns ``(count, nodes)``.

    Per-step kernels take arrays, not the plan's named tuple: numba updates a
    reference count for every field read from a tuple, which on small networks
    costs more than the search (about 250 ns a call).
    """
    if not constants_kept_nb(const_label, kept):
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
def heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws):
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
    if not constants_kept_nb(plan.const_label, kept):
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
