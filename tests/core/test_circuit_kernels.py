"""The circuit passes' compiled kernels: no reference counting left in their code, under any numba release.

A helper called with arrays from an inner loop costs an atomic reference count
increment and decrement per call unless numba's pruning pass removes them; numba
0.68 (llvmlite 0.50) kept them in the per-element loops, which halved the circuit
chain's speed. The count of ``NRT_incref`` calls in each kernel's LLVM IR is what
is checked (never a time): zero, for the argument types the chain uses.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from prunelab import load_network
from prunelab.circuit import passes, passes_for
from prunelab.compiled import compile_network
from prunelab.samplers.prune.draws import circuit as prune_circuit


def _arguments(name: str) -> tuple:
    """What :func:`prunelab.samplers.prune.draws.circuit.circuit_prune_chain_nb` passes to pass ``name``, on asia."""
    plan = prune_circuit.plan(compile_network(load_network("asia")))
    c, vt = plan.circuit, plan.circuit.vtree
    work = passes_for(c)
    counts = (c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right)
    if name == "upward":
        return (*counts, work.sums, work.log_true, work.log_false, work.val)
    if name == "outward":
        return (*counts, vt.boolean, vt.parent, vt.post_order, vt.root, work.sums, work.log_true, work.log_false,
                work.val, work.reach, work.gap, work.p_true, work.p_false)
    return (np.random.default_rng(0), *counts, vt.root, vt.leaf_lo, vt.leaf_hi, vt.leaf_boolean, work.sums,
            work.log_true, work.log_false, work.val, work.stack, work.value)


@pytest.mark.parametrize("name", ["upward", "outward", "draw"])
def test_a_pass_keeps_no_reference_count_in_its_loops(name):
    fresh = numba.njit(nogil=True)(getattr(passes, f"{name}_py"))  # not cached: its IR can be read
    args = _arguments(name)
    fresh.compile(tuple(numba.typeof(a) for a in args))
    ir = fresh.inspect_llvm(fresh.signatures[0])
    assert ir.count("call void @NRT_incref") == 0, f"{name}: {ir.count('call void @NRT_incref')} increfs"
