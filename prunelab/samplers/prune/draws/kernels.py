"""The uniform draw's numba entry point (:func:`uniform_draw_nb`) and its scratch arrays (:class:`UniformWorkspace`).

The kernels it dispatches to live by job: :mod:`.search` (enumeration, the
heuristic), :mod:`.counting` (variable elimination, backward sampling, the used
labels) and :mod:`.primitives` (what both share); their names are importable from
here too. Each has a readable numpy counterpart in :mod:`.reference` (except the
boolean support pass, checked against brute force in the tests); both consume a
``numpy.random.Generator`` in the same order.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from prunelab.compiled import CompiledNetwork

from .compiler import DEFAULT_N_CANDIDATES, MEMBER_CAPACITY, UniformPlan
from .counting import backward_arrays, backward_nb, count_nb, count_sparse_arrays, support_nb
from .primitives import integer_below_nb, label_nb
from .search import draw_member_arrays, heuristic_nb, search_arrays, search_nb

# the kernels of counting, primitives and search are also importable from here, as before they had modules
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

# Arrays are taken out of the network/plan tuples once, at the top of each kernel:
# reading a field of a numba tuple inside a loop costs a reference-count update.
_jit = numba.njit(cache=True, nogil=True)


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


@_jit
def uniform_draw_nb(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget, ws):
    """Draw ``y`` from ``S``; returns ``(size, method used)``.

    ``y`` must hold the evidence values on entry (any values on free variables).
    """
    if uniform_code == 2:
        return heuristic_nb(rng, net, plan, kept, x, y, n_candidates, max_restarts, ws), 2
    if uniform_code == 0 or uniform_code == 3:
        limit = budget if uniform_code == 3 else -1
        args = (net.cardinality, net.cpt_offset, net.parent_ptr, net.parent_index, net.parent_stride,
                plan.dfs_order, plan.check_ptr, plan.check_var, plan.look_ptr, plan.look_var, plan.const_label)
        count, nodes = search_arrays(*args, kept, y, ws.value, limit, -1, ws.members)
        if count >= 0:
            draw_member_arrays(rng, *args, kept, y, ws.value, ws.members, count)
            return float(count), 0
    total = count_nb(plan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base)
    if total > 0.0:
        backward_nb(rng, plan, ws.tables, y)
    return total, 1


@numba.njit(cache=True)
def repeat_draws_nb(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget, ws, repeats):
    """``repeats`` uniform draws from the same pruned set (for timing); returns the last |S|."""
    size = 0.0
    for _ in range(repeats):
        size, _ = uniform_draw_nb(rng, net, plan, kept, x, y, uniform_code, n_candidates, max_restarts, budget, ws)
    return size
