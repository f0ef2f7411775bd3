"""The counting program specialised to the labels that prune sampling draws at random.

A count of the pruned set ``S`` (:func:`~.kernels.count_nb`) recomputes every table of
the elimination program. Between two prune steps only the labels that are pruned at
random change, so most tables never do: :func:`compile_sparse_count` lists the table
entries that can be non-zero in the steps that depend on a random label, and
:func:`~.kernels.count_sparse_arrays` recomputes only those, after ``make_workspace``
filled the fixed steps once. The products and sums are the same numbers in the same
order as the full count's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from prunelab.compiled import CompiledNetwork
from .compiler import GATHER_LIMIT, UniformPlan
from .kernels import make_workspace

__all__ = ["SparseCount", "compile_sparse_count"]


class SparseCount(NamedTuple):
    """A plan's counting program specialised to prunings in which only some labels vary.

    Prune sampling redraws only its random labels; every other label is kept or
    pruned at every step alike. So an entry of a step's table that is zero with
    every label that can be kept is zero at every step (it is not *live*), an
    indicator input whose labels at the live entries are all fixed is 1 there,
    and a step none of whose inputs varies gives the same table at every step.
    This program recomputes only the live entries of the steps that vary, from
    the inputs that vary (and the fixed messages they read); the rest of the
    workspace is filled once (:func:`~prunelab.samplers.prune.draws.kernels.make_workspace`).
    On deterministic networks with evidence most entries are dead and most steps
    fixed: on link, mildew and diabetes with 25 % evidence a count does 10 to 60
    times fewer multiply-adds.

    Valid for every ``kept`` that equals ``possible`` outside ``variable`` and is
    False wherever ``possible`` is; it then gives the same tables and count as
    the full program, number for number.

    Attributes
    ----------
    possible : bool (n_labels,)
        The fixed labels at their value, the varying ones True.
    live_ptr : int64 (n_dirty + 1,)
        CSR over the steps that vary, in step order: their live entries.
    live_entry, live_row : int64
        Position in the table buffer of every live entry, and in the factor
        buffer of the output entry (row) it is summed into.
    n_label, n_input : int64 (n_dirty,)
        Inputs of every varying step that are read (the first ``n_label`` are
        indicator inputs, read from ``kept`` by label; the others are messages,
        read from the factor buffer), in the full program's order.
    gather_ptr, gather : int64
        For varying step ``d`` with ``L`` live entries, ``gather[gather_ptr[d] +
        g * L + j]`` is input ``g``'s label or factor position at live entry ``j``.
    root_factor : int64
        Factor positions of the root steps' outputs, in step order: ``|S|`` is
        their product.
    cost : int
        Multiply-adds of one count (``sum L * n_input``).
    """

    possible: np.ndarray
    live_ptr: np.ndarray
    live_entry: np.ndarray
    live_row: np.ndarray
    n_label: np.ndarray
    n_input: np.ndarray
    gather_ptr: np.ndarray
    gather: np.ndarray
    root_factor: np.ndarray
    cost: int


def compile_sparse_count(
    net: CompiledNetwork, plan: UniformPlan, possible, variable
) -> SparseCount | None:
    """Specialise the counting program of ``plan`` to prunings that change only ``variable`` labels.

    Parameters
    ----------
    net : CompiledNetwork
    plan : UniformPlan
    possible : bool array (n_labels,)
        The value of every label that does not vary, True for those that do.
    variable : bool array (n_labels,)
        The labels that vary from one pruning to the next (a subset of ``possible``).

    Returns
    -------
    SparseCount or None
        None when its gather indices would exceed :data:`GATHER_LIMIT` (the
        full program is then used).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.sparse import compile_sparse_count
    >>> from prunelab.samplers.prune.draws.compiler import uniform_plan
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> sparse = compile_sparse_count(net, uniform_plan(net), net.cpt > 0, (net.cpt > 0) & (net.cpt < 1))
    >>> sparse.cost, int(sparse.live_entry.size)  # both steps read A's labels; 2 live entries each
    (4, 4)
    """
    possible = np.ascontiguousarray(possible, dtype=np.bool_)
    variable = np.asarray(variable, dtype=bool)
    ws = make_workspace(net, plan, 1, fill=possible)  # a full count with every possible label kept
    card = net.cardinality
    dirty_factor = np.zeros(int(plan.factor_ptr.shape[0] - 1), dtype=bool)
    live_entry, live_row, n_label, n_input, gathers, root_factor = [], [], [], [], [], []
    n_gather = 0
    for k in range(plan.n_steps):
        t0, t1 = int(plan.table_ptr[k]), int(plan.table_ptr[k + 1])
        scope = plan.step_scope_var[plan.step_scope_ptr[k] : plan.step_scope_ptr[k + 1]]
        out = plan.n_indicator + k
        o0 = int(plan.factor_ptr[out])
        if scope.size == 1:
            root_factor.append(o0)
        live = np.flatnonzero(ws.tables[t0:t1] != 0.0)
        unrolled = plan.gather_ptr[k + 1] > plan.gather_ptr[k]
        if not unrolled:
            digits = np.stack(np.unravel_index(live, tuple(int(card[u]) for u in scope)))
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
        if n_gather > GATHER_LIMIT:
            return None
        live_entry.append(t0 + live)
        live_row.append(o0 + live // int(card[scope[-1]]))
        n_label.append(len(labels))
        n_input.append(len(inputs))
        gathers.append(np.concatenate(inputs))

    def flat(parts):
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    sizes = [len(e) for e in live_entry]
    arrays = dict(
        possible=possible,
        live_ptr=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        live_entry=flat(live_entry),
        live_row=flat(live_row),
        n_label=np.asarray(n_label, dtype=np.int64),
        n_input=np.asarray(n_input, dtype=np.int64),
        gather_ptr=np.concatenate([[0], np.cumsum([len(g) for g in gathers])]).astype(np.int64),
        gather=flat(gathers),
        root_factor=np.asarray(root_factor, dtype=np.int64),
    )
    for a in arrays.values():
        a.setflags(write=False)
    return SparseCount(**arrays, cost=int(n_gather))
