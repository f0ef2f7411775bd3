"""The pruning step of prune sampling, shared by every draw: :func:`prune_around` and its numba twin.

Every CPT label that the current state does not use is pruned with probability ``1 - c`` (the paper's Definition
"Pruning around state x"); which labels draw a random number is the plan's
:class:`~prunelab.samplers.prune.plan.Pruning`. :func:`prune_around` is the readable reference,
:func:`prune_around_nb` the kernel every chain calls; both draw one ``rng.random()`` per random label that the
current state does not use, in increasing label order, so they consume a generator identically.
"""

from __future__ import annotations

import numba
import numpy as np

from prunelab.compiled import CompiledNetwork, state_labels

from .draws.primitives import label_nb
from .plan import prune_plan

__all__ = ["prune_around", "prune_around_nb"]


def prune_around(rng: np.random.Generator, net: CompiledNetwork, x, plan=None) -> np.ndarray:
    """One random pruning around ``x`` (the paper's Definition "Pruning around state x").

    Parameters
    ----------
    rng : numpy.random.Generator
        One ``rng.random()`` per label in ``plan.pruning.random_label`` that ``x`` does
        not use, in increasing label order.
    net : CompiledNetwork
    x : int array (n,)
        The current state.
    plan : optional
        The plan of any draw (its :class:`~prunelab.samplers.prune.plan.Pruning`, ``plan.pruning``); default: the
        counting plan, :func:`~prunelab.samplers.prune.plan.prune_plan` of ``net``.

    Returns
    -------
    bool array (n_labels,)
        ``kept[l]``: label ``l`` survived (is in the paper's ``C_x^np``). Entries of
        labels that contradict the evidence are meaningless.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> prune_around(np.random.default_rng(1), net, [0, 0]).tolist()
    [True, False, True, False, False, True]
    """
    pruning = (prune_plan(net) if plan is None else plan).pruning
    labels = state_labels(net, np.asarray(x, dtype=np.int64))
    kept = pruning.base_kept.copy()
    random = ~np.isin(pruning.random_label, labels)
    kept[pruning.random_label[random]] = rng.random(int(random.sum())) < pruning.random_c[random]
    kept[labels] = True
    return kept


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
