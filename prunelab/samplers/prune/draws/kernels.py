"""The uniform draw's numba entry point, :func:`uniform_draw_nb`, over a chain's scratch arrays.

The kernels it dispatches to live by job: :mod:`.search` (enumeration, the
heuristic), :mod:`.counting` (variable elimination, backward sampling, the used
labels) and :mod:`.primitives` (what both share). Each has a readable numpy
counterpart in :mod:`.reference` (except the boolean support pass, checked against
brute force in the tests); both consume a ``numpy.random.Generator`` in the same
order. The scratch arrays are :func:`prunelab.samplers.prune.plan.make_workspace`'s.
"""

from __future__ import annotations

import numba

from .counting import backward_nb, count_nb
from .registry import AUTO, COUNT, ENUMERATE, HEURISTIC
from .search import draw_member_arrays, heuristic_nb, search_arrays

__all__ = ["repeat_draws_nb", "uniform_draw_nb"]

# Arrays are taken out of the network/plan tuples once, at the top of each kernel:
# reading a field of a numba tuple inside a loop costs a reference-count update.
_jit = numba.njit(cache=True, nogil=True)


@_jit
def uniform_draw_nb(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget, ws):
    """Draw ``y`` from ``S``; returns ``(size, method used)``.

    ``y`` must hold the evidence values on entry (any values on free variables).
    """
    if uniform_code == HEURISTIC:
        return heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws), HEURISTIC
    if uniform_code == ENUMERATE or uniform_code == AUTO:
        limit = budget if uniform_code == AUTO else -1
        args = (net.cardinality, net.cpt_offset, net.parent_ptr, net.parent_index, net.parent_stride,
                plan.dfs_order, plan.check_ptr, plan.check_var, plan.look_ptr, plan.look_var, plan.const_label)
        count, nodes = search_arrays(*args, kept, y, ws.value, limit, -1, ws.members)
        if count >= 0:
            draw_member_arrays(rng, *args, kept, y, ws.value, ws.members, count)
            return float(count), ENUMERATE
    total = count_nb(plan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base)
    if total > 0.0:
        backward_nb(rng, plan, ws.tables, y)
    return total, COUNT


@numba.njit(cache=True)
def repeat_draws_nb(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget, ws, repeats):
    """``repeats`` uniform draws from the same pruned set (for timing); returns the last |S|."""
    size = 0.0
    for _ in range(repeats):
        size, _ = uniform_draw_nb(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget, ws)
    return size
