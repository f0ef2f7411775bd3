"""What the numba kernels of the uniform draws share: a CPT label, the constant labels' check, an integer below n."""

from __future__ import annotations

import numba
import numpy as np
from numba.np.random.generator_core import next_uint32
from numba.np.random.random_methods import bounded_lemire_uint64, buffered_bounded_lemire_uint32

__all__ = ["constants_kept_nb", "integer_below_nb", "label_nb"]

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
def constants_kept_nb(const_label, kept):
    """Whether every constant label (a CPT entry fixed by the evidence alone) is kept."""
    for k in range(const_label.shape[0]):
        if not kept[const_label[k]]:
            return False
    return True


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
