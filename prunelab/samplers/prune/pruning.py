"""The pruning step of prune sampling in numba: shared by every chain kernel that prunes.

:func:`prunelab.samplers.prune.sampler.prune_around` is its readable reference; both draw
one ``rng.random()`` per random label that the current state does not use, in
increasing label order, so they consume a generator identically.
"""

from __future__ import annotations

import numba

from .draws.primitives import label_nb

__all__ = ["prune_around_nb"]


@numba.njit(cache=True, nogil=True)
def prune_around_nb(rng, net, x, random_label, random_c, kept, marked, x_labels):
    """:func:`prune_around` in place on ``kept``: one ``rng.random()`` per random label ``x`` does not use.

    ``marked`` is all False on entry and on return; ``x_labels`` receives the labels of ``x``.
    """
    n = x.shape[0]
    for i in range(n):
        lab = label_nb(net.cpt_offset, net.parent_ptr, net.parent_index, net.parent_stride, x, i)
        x_labels[i] = lab
        marked[lab] = True
    for j in range(random_label.shape[0]):
        lab = random_label[j]
        if not marked[lab]:
            kept[lab] = rng.random() < random_c[j]
    for i in range(n):
        kept[x_labels[i]] = True
        marked[x_labels[i]] = False
