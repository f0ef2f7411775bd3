"""Rao-Blackwellised prune sampling: the uniform marginals of every pruned set, summed at checkpoints.

A prune step draws the next state ``x^(t)`` uniformly from the pruned set ``S_t``.
Its conditional expectation given the set is known exactly,

.. math:: E[1\\{X_i^{(t)} = s\\} \\mid S_t] = \\frac{|\\{y \\in S_t : y_i = s\\}|}{|S_t|},

the share of the set's members with ``X_i = s``: the analogue for prune sampling of
the conditionals that the Rao-Blackwell estimator of Gibbs sampling averages (the
paper's eq. (3)). Averaged over the steps it estimates ``P(X_i = s | e)``, without
the noise of the one draw that the plain estimator keeps of each set.

How the shares are computed follows the ``uniform=`` method that drew:

* ``"enumerate"`` (and ``"auto"`` when it searched): the mean over the listed
  members (:data:`~prunelab.samplers.prune.draws.compiler.MEMBER_CAPACITY` are kept;
  a larger set is counted instead, which gives the same numbers).
* ``"count"``: a downward pass over the counting program's tables. Variable
  elimination leaves, for every step ``k`` that eliminated ``v_k``, the combined
  table ``T_k`` over ``(outer variables, v_k)`` and its row sums ``o_k``. Under
  the uniform distribution on ``S`` the combined scope has the marginal
  ``P_k(r, a) = T_k[r, a] * Q_k[r] / o_k[r]``, where ``Q_k`` is the marginal of
  the outer variables: 1 for a root, else the sum of ``P_j`` over the entries of
  the later step ``j`` that read ``o_k`` (each output is read by one step). The
  pass runs from the last step to the first, visits only rows with ``Q_k > 0``,
  and reads off ``P(v_k = a) = sum_r P_k(r, a)``.

:func:`pruned_set_marginals` is the readable numpy reference (``np.einsum`` over the
same program, or the members listed); :func:`count_marginals_arrays` and
:func:`member_marginals_arrays` are the numba kernels that
:func:`prunelab.samplers.prune.sampler.run_chain` calls at every step when it is given
``rb_checkpoints``. Neither consumes random numbers, so the draws are those of the
plain chain.

* ``"circuit"``: the outward pass over the compiled circuit
  (:func:`prunelab.circuit.passes.outward_nb`) with the pruning's 0/1 weights,
  in :mod:`prunelab.samplers.prune.draws.circuit`.

The other ``uniform=`` options have no estimate: ``"heuristic"`` does not draw
uniformly, and the solver draws (``"cmsgen"``, ``"unigen"``) and the circuit
compiled at every step do not give the set's marginals (:func:`rao_blackwell_refusal`).

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", eq. (3) (the
   Rao-Blackwell estimator of Gibbs sampling).
.. [2] G. Casella and C. P. Robert, "Rao-Blackwellisation of sampling schemes",
   Biometrika 83 (1996).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from prunelab.checkpoints import checked_checkpoints
from prunelab.compiled import CompiledNetwork
from .draws.compiler import UniformPlan
from .draws.counting import count_nb, count_sparse_arrays
from .draws.reference import count_py, search_py
from .draws.registry import DRAWS

__all__ = [
    "RaoBlackwellSums", "NO_RAO_BLACKWELL", "rao_blackwell_refusal", "check_rao_blackwell",
    "rao_blackwell_sums", "chain_sums", "pruned_set_marginals", "message_inputs",
    "count_marginals_arrays", "member_marginals_arrays", "add_marginals_nb", "record_step_nb", "record_step_arrays",
]

def rao_blackwell_refusal(options: dict) -> str | None:
    """Why prune sampling with these options has no Rao-Blackwell estimate, or None if it has one.

    Examples
    --------
    >>> from prunelab.samplers.prune.rao_blackwell import rao_blackwell_refusal
    >>> rao_blackwell_refusal({"uniform": "count"}) is None
    True
    >>> print(rao_blackwell_refusal({"uniform": "cmsgen"}))  # doctest: +ELLIPSIS
    prune sampling with uniform='cmsgen' has no Rao-Blackwell estimate...
    """
    uniform = options.get("uniform", "auto")
    if uniform in DRAWS and DRAWS[uniform].rao_blackwell:
        return None
    why = ("its draw is not uniform on the pruned set" if uniform == "heuristic"
           else "its draw does not give the pruned set's marginals")
    return (f"prune sampling with uniform={uniform!r} has no Rao-Blackwell estimate ({why}); "
            f"use uniform= one of {[name for name, draw in DRAWS.items() if draw.rao_blackwell]}, "
            "or estimator='empirical'")


def check_rao_blackwell(rb_checkpoints, uniform: str, drawn_by: str) -> None:
    """Refuse ``rb_checkpoints`` for a chain whose draws are ``drawn_by`` (``uniform="auto"`` may turn to another).

    Raises
    ------
    ValueError
        The method has no estimate; the message names the ``uniform=`` option.

    Examples
    --------
    >>> from prunelab.samplers.prune.rao_blackwell import check_rao_blackwell
    >>> check_rao_blackwell([10], "count", "count")
    >>> check_rao_blackwell([10], "cmsgen", "cmsgen")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: prune sampling with uniform='cmsgen' has no Rao-Blackwell estimate ...
    """
    if rb_checkpoints is None:
        return
    refusal = rao_blackwell_refusal({"uniform": drawn_by})
    if refusal is None:
        return
    if uniform != drawn_by:
        refusal = f"uniform={uniform!r} turned to the {drawn_by} (the counting plan's tables do not fit): {refusal}"
    raise ValueError(refusal)


class RaoBlackwellSums(NamedTuple):
    """Running Rao-Blackwell sums of a prune chain and the kernels' scratch (one per chain).

    Attributes
    ----------
    checkpoints : int64 (k,)
        Step counts ``t`` at which the running sums are copied out; empty: off.
    sums : float64 (k, sum of cardinalities)
        ``sum_{t' <= t} E[1{X_i = s} | S_t']`` at each checkpoint.
    running : float64 (sum of cardinalities,)
        The running sum.
    offsets : int64 (n + 1,)
        Start of each variable's block (:func:`prunelab.samplers.gibbs.state_offsets`).
    reached : float64 (factor buffer,)
        ``Q``: the marginal of each output factor's entries, zero between steps.
    listed : int64 (factor buffer,)
        The positions reached in each output factor, from the factor's offset on.
    n_listed : int64 (factors,)
        How many are listed, zero between steps.
    message_ptr, message_input : int64
        CSR: the inputs of every step that are earlier steps' outputs (:func:`message_inputs`).
    index : int64 (axes,)
        The outer indices of a row.
    progress : int64 (2,)
        Steps done and the next checkpoint's position.
    """

    checkpoints: np.ndarray
    sums: np.ndarray
    running: np.ndarray
    offsets: np.ndarray
    reached: np.ndarray
    listed: np.ndarray
    n_listed: np.ndarray
    message_ptr: np.ndarray
    message_input: np.ndarray
    index: np.ndarray
    progress: np.ndarray

    def asked(self) -> tuple:
        """``(self,)`` when sums are recorded, else ``()``: the extra argument of a draw's ``run_chain``."""
        return () if self.sums.shape[1] == 0 else (self,)

    def output(self, net: CompiledNetwork) -> tuple[np.ndarray | None, np.ndarray | None]:
        """``(rb_checkpoints, rb_sums)`` of a chain's output: None if off, else the sums with evidence one-hot."""
        if self.checkpoints.shape[0] == 0 and self.sums.shape[1] == 0:
            return None, None
        observed = np.flatnonzero(net.evidence_value >= 0)
        value = self.checkpoints[:, None].astype(np.float64)
        self.sums[:, self.offsets[observed] + net.evidence_value[observed]] = value
        return self.checkpoints, self.sums


NO_RAO_BLACKWELL = RaoBlackwellSums(np.zeros(0, np.int64), np.zeros((0, 0)), np.zeros(0), np.zeros(1, np.int64),
                                    np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64),
                                    np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64),
                                    np.zeros(2, np.int64))
"""Stands in when no sums are recorded (numba needs one type); never written."""


def _offsets(net: CompiledNetwork) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(net.cardinality)]).astype(np.int64)


def rao_blackwell_sums(net: CompiledNetwork, plan: UniformPlan | None, checkpoints, n_draws: int
                       ) -> RaoBlackwellSums:
    """Zeroed sums for ``checkpoints`` (checked: strictly increasing in ``1..n_draws``).

    ``plan``: the counting program whose downward pass the sums need scratch for;
    None for a chain that brings its own marginals (the circuit).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.plan import prune_plan
    >>> from prunelab.samplers.prune.rao_blackwell import rao_blackwell_sums
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> rao_blackwell_sums(net, prune_plan(net).uniform, [2, 4], 4).sums.shape
    (2, 4)
    """
    cps = checked_checkpoints(checkpoints, n_draws, name="rb_checkpoints", increasing=True)
    offsets = _offsets(net)
    sums, running = np.zeros((cps.size, int(offsets[-1]))), np.zeros(int(offsets[-1]))
    if plan is None:
        return NO_RAO_BLACKWELL._replace(checkpoints=cps, sums=sums, running=running, offsets=offsets,
                                         progress=np.zeros(2, np.int64))
    axes = int(np.diff(plan.step_scope_ptr).max(initial=0)) + 1
    n_buffer = int(plan.factor_ptr[-1])
    return RaoBlackwellSums(cps, sums, running, offsets, np.zeros(n_buffer), np.zeros(n_buffer, np.int64),
                            np.zeros(plan.factor_ptr.size - 1, np.int64), *message_inputs(plan),
                            np.zeros(axes, np.int64), np.zeros(2, np.int64))


def message_inputs(plan: UniformPlan) -> tuple[np.ndarray, np.ndarray]:
    """CSR over the steps: the positions in ``step_input_factor`` of the inputs that are outputs of earlier steps.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.plan import prune_plan
    >>> from prunelab.samplers.prune.rao_blackwell import message_inputs
    >>> ptr, inputs = message_inputs(prune_plan(compile_network(load_network("deterministic_pair"))).uniform)
    >>> ptr.tolist(), inputs.tolist()  # B is eliminated first, its output is read when A is
    ([0, 0, 1], [2])
    """
    is_message = plan.step_input_factor >= plan.n_indicator
    counts = np.add.reduceat(is_message, plan.step_input_ptr[:-1]) if plan.n_steps else np.zeros(0, np.int64)
    counts = np.where(np.diff(plan.step_input_ptr) > 0, counts, 0)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return ptr, np.flatnonzero(is_message).astype(np.int64)


def chain_sums(net: CompiledNetwork, plan, checkpoints, n_draws: int, uniform: str = "count",
               drawn_by: str = "count") -> RaoBlackwellSums:
    """The sums of a chain: :data:`NO_RAO_BLACKWELL` when ``checkpoints`` is None, else checked and zeroed.

    ``plan`` is the chain's plan (a prune plan with a counting program, or another
    draw's, which needs no scratch); ``uniform`` and ``drawn_by`` are checked by
    :func:`check_rao_blackwell`.
    """
    check_rao_blackwell(checkpoints, uniform, drawn_by)
    if checkpoints is None:
        return NO_RAO_BLACKWELL
    return rao_blackwell_sums(net, getattr(plan, "uniform", None), checkpoints, n_draws)


def pruned_set_marginals(net: CompiledNetwork, plan: UniformPlan, kept, method: str = "count") -> np.ndarray:
    """``E[1{X_i = s} | S]``: the share of the pruned set's members with ``X_i = s`` (numpy reference).

    Parameters
    ----------
    net : CompiledNetwork
    plan : UniformPlan
    kept : bool array (n_labels,)
        The pruning (:func:`prunelab.samplers.prune.pruning.prune_around`).
    method : {"count", "enumerate"}
        A downward pass over the counting program's tables (``np.einsum``), or the
        mean over the members listed by a search.

    Returns
    -------
    float64 array (sum of cardinalities,)
        At ``state_offsets(net)[i] + s``; evidence variables one-hot.

    Raises
    ------
    ValueError
        ``S`` is empty, or an unknown ``method``.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.plan import prune_plan
    >>> from prunelab.samplers.prune.rao_blackwell import pruned_set_marginals
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> kept = np.ones(net.n_labels, dtype=bool)  # nothing pruned: S holds (0, 0) and (1, 1)
    >>> pruned_set_marginals(net, prune_plan(net).uniform, kept).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    kept = np.asarray(kept, dtype=np.bool_)
    offsets = _offsets(net)
    out = np.zeros(int(offsets[-1]))
    observed = np.flatnonzero(net.evidence_value >= 0)
    out[offsets[observed] + net.evidence_value[observed]] = 1.0
    if method == "enumerate":
        y = np.where(net.evidence_value >= 0, net.evidence_value, 0).astype(np.int64)
        members, _ = search_py(net, plan, kept, y)
        if not members:
            raise ValueError("the pruned set is empty: no Rao-Blackwell term")
        listed = np.array(members)
        for i in net.free:
            out[offsets[i]:offsets[i + 1]] = np.bincount(listed[:, i], minlength=net.cardinality[i]) / len(members)
        return out
    if method != "count":
        raise ValueError(f"unknown method {method!r}; choose 'count' or 'enumerate'")
    total, tables = count_py(net, plan, kept)
    if not total > 0.0:
        raise ValueError("the pruned set is empty: no Rao-Blackwell term")

    def scope(f):
        return [int(u) for u in plan.factor_scope_var[plan.factor_scope_ptr[f]:plan.factor_scope_ptr[f + 1]]]

    reached = {}  # output factor -> marginal of its scope under the uniform distribution on S
    for k in reversed(range(plan.n_steps)):
        combined = [int(u) for u in plan.step_scope_var[plan.step_scope_ptr[k]:plan.step_scope_ptr[k + 1]]]
        row_sums = tables[k].sum(axis=-1)
        q = reached.pop(plan.n_indicator + k, np.ones(()))
        share = np.divide(q, row_sums, out=np.zeros_like(row_sums), where=row_sums > 0)
        joint = tables[k] * share[..., None]  # P_k over the combined scope
        v = combined[-1]
        out[offsets[v]:offsets[v + 1]] = joint.reshape(-1, net.cardinality[v]).sum(axis=0)
        letter = {u: chr(ord("a") + d) for d, u in enumerate(combined)}
        for f in plan.step_input_factor[plan.step_input_ptr[k]:plan.step_input_ptr[k + 1]]:
            if f >= plan.n_indicator:
                spec = "".join(letter.values()) + "->" + "".join(letter[u] for u in scope(int(f)))
                reached[int(f)] = np.einsum(spec, joint)
    return out


_jit = numba.njit(cache=True, nogil=True)


@_jit
def count_marginals_arrays(table_ptr, scope_ptr, scope_var, scope_card, message_ptr, message_input, input_ptr,
                           input_factor, stride_ptr, stride, factor_ptr, n_indicator, gather_ptr, gather, factors,
                           tables, reached, listed, n_listed, index, offsets, out):
    """Add ``E[1{X_i = s} | S]`` of every free variable to ``out``: the downward pass after a count.

    ``factors`` and ``tables`` are those the count of ``S`` left (full or sparse
    program: the same numbers). ``reached`` holds ``Q``: zero on entry and on
    return. The rows of an output factor with ``Q > 0`` are listed as they are
    first reached (``listed`` from the factor's offset on, ``n_listed`` of them),
    so the pass costs the entries reached times their inputs, not the tables.
    Only the inputs that are earlier steps' outputs receive ``Q`` (``message_ptr``,
    ``message_input``: :func:`message_inputs`). Input positions come from the
    plan's ``gather`` where it unrolled the step, else from the row's outer
    indices and the strides.
    """
    for k in range(table_ptr.shape[0] - 2, -1, -1):
        s0 = scope_ptr[k]
        nd = scope_ptr[k + 1] - s0
        cv = scope_card[s0 + nd - 1]
        base_out = offsets[scope_var[s0 + nd - 1]]
        f_out = n_indicator + k
        o0 = factor_ptr[f_out]
        t0 = table_ptr[k]
        size = table_ptr[k + 1] - t0
        i0 = input_ptr[k]
        m0 = message_ptr[k]
        m1 = message_ptr[k + 1]
        g0 = gather_ptr[k]
        unrolled = gather_ptr[k + 1] > g0
        if nd == 1:
            reached[o0] = 1.0
            listed[o0] = o0
            n_listed[f_out] = 1
        for j in range(n_listed[f_out]):
            row = listed[o0 + j]
            q = reached[row]
            reached[row] = 0.0
            o = row - o0
            share = q / factors[row]
            if not unrolled:
                rest = o
                for d in range(nd - 2, -1, -1):
                    c = scope_card[s0 + d]
                    index[d] = rest % c
                    rest //= c
            for a in range(cv):
                e = o * cv + a
                p = tables[t0 + e] * share
                if p == 0.0:
                    continue
                out[base_out + a] += p
                for m in range(m0, m1):
                    gi = message_input[m]
                    f = input_factor[gi]
                    if unrolled:
                        pos = gather[g0 + (gi - i0) * size + e]
                    else:
                        p0 = stride_ptr[gi]
                        pos = factor_ptr[f] + a * stride[p0 + nd - 1]
                        for d in range(nd - 1):
                            pos += index[d] * stride[p0 + d]
                    if reached[pos] == 0.0:
                        listed[factor_ptr[f] + n_listed[f]] = pos
                        n_listed[f] += 1
                    reached[pos] += p
        n_listed[f_out] = 0


@_jit
def member_marginals_arrays(order, members, count, offsets, out):
    """Add the mean over ``members[:count]`` (free variables in search ``order``) of each indicator to ``out``."""
    w = 1.0 / count
    for r in range(count):
        for p in range(order.shape[0]):
            out[offsets[order[p]] + members[r, p]] += w


@_jit
def add_marginals_nb(rb, uplan, sparse, use_sparse, kept, ws, enumerated):
    """Add the marginals of the step's ``S`` to ``rb.running`` and copy the sums out at a checkpoint.

    ``enumerated``: the size of ``S`` if the step's search listed it (its first
    members are in ``ws.members``), else -1 (the step counted: the tables are
    fresh). A listed set larger than the members kept is counted here.
    """
    running = rb.running
    if enumerated >= 0 and enumerated <= ws.members.shape[0]:
        member_marginals_arrays(uplan.dfs_order, ws.members, enumerated, rb.offsets, running)
    else:
        if enumerated >= 0:
            if use_sparse:
                count_sparse_nb(sparse, uplan.const_label, kept, ws)
            else:
                count_nb(uplan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base)
        count_marginals_arrays(uplan.table_ptr, uplan.step_scope_ptr, uplan.step_scope_var, uplan.step_scope_card,
                               rb.message_ptr, rb.message_input, uplan.step_input_ptr, uplan.step_input_factor,
                               uplan.input_stride_ptr, uplan.input_stride, uplan.factor_ptr, uplan.n_indicator,
                               uplan.gather_ptr,
                               uplan.gather, ws.factors, ws.tables, rb.reached, rb.listed, rb.n_listed, rb.index,
                               rb.offsets, running)
    record_step_nb(rb)


@_jit
def record_step_nb(rb):
    """Count one step; at a checkpoint, copy the running sums out."""
    record_step_arrays(rb.checkpoints, rb.sums, rb.running, rb.progress)


@_jit
def record_step_arrays(checkpoints, sums, running, progress):
    """:func:`record_step_nb` on the arrays (a chain takes them out of the tuple once: see ``search_arrays``)."""
    progress[0] += 1
    while progress[1] < checkpoints.shape[0] and checkpoints[progress[1]] == progress[0]:
        for j in range(running.shape[0]):
            sums[progress[1], j] = running[j]
        progress[1] += 1


@_jit
def count_sparse_nb(sparse, const_label, kept, ws):
    """The sparse count of a :class:`~prunelab.samplers.prune.plan.SparseCount` into the workspace."""
    return count_sparse_arrays(const_label, kept, ws.factors, ws.tables, sparse.live_ptr, sparse.live_entry,
                               sparse.live_row, sparse.n_label, sparse.n_input, sparse.gather_ptr, sparse.gather,
                               sparse.root_factor)

