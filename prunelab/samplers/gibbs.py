"""Gibbs sampling on the Markov blanket, systematic scan, with Rao-Blackwell terms.

One draw is one sweep over the free variables in topological order. At a site
``i`` with current state ``x``, the full conditional is

.. math:: P(x_i = s \\mid x_{-i}) \\propto \\prod_{j \\in \\{i\\} \\cup ch(i)}
          P(x_j \\mid pa_j)\\big|_{x_i = s},

the product over the *family factors* of ``i``: its own CPT and its children's
(the CSR lists ``family_ptr/family_var/family_stride`` of the compiled network).
Kernels keep the current label of every variable; candidate ``s`` shifts the
label of factor ``j`` by ``(s - x_i) * stride``, so a site costs
``|X_i| * |family|`` multiplications and no allocation. The new value is drawn by
inverse CDF with **one** ``rng.random()`` per free variable per sweep (also for a
variable with a single state), in the same order in the numpy reference
(:func:`step`) and the numba path (:func:`run_chain`): same seed, same draws.

A zero-weight candidate is never chosen, so from a feasible state the chain never
enters a state with probability zero. If every candidate has weight zero the
current state was infeasible: :class:`~prunelab.samplers.chain.InfeasibleStateError`.

Rao-Blackwell estimate
----------------------
The paper's eq. (3), ``P~_T(x_i) = (1/T) sum_t P(x_i | x_-i^(t))``, uses exactly
the conditional computed at site ``i`` of sweep ``t``. :func:`step` returns it for
every variable (``GibbsInfo.conditionals``; evidence variables one-hot). To keep
memory bounded, :func:`run_chain` never stores it per draw: it accumulates the
running sums and copies them out at the requested ``rb_checkpoints`` only,
``rb_sums[k] = sum_{t <= rb_checkpoints[k]} conditionals_t``. Memory is
``len(rb_checkpoints) * sum(cardinality) * 8`` bytes per chain (200 checkpoints
on win95pts: 0.3 MB; 100 chains: 30 MB). Per-draw storage would be 25 000 x 152
floats per chain, 3 GB for 100 chains.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ..checkpoints import checked_checkpoints
from ..compiled import CompiledNetwork, state_labels
from ..inverse_cdf import inverse_cdf_nb, inverse_cdf_py
from .chain import ChainState, InfeasibleStateError, start_chain
from .chain import init_state as init

__all__ = ["GibbsState", "GibbsInfo", "GibbsChain", "init", "step", "run_chain", "state_offsets", "RAO_BLACKWELL"]

RAO_BLACKWELL = True
"""This sampler produces Rao-Blackwell terms (``run_chain(..., rb_checkpoints=...)``)."""

SINGLE_SITE = True
"""A draw changes one variable at a time, so determinism can trap it (see :func:`prunelab.sample`, Traps)."""


GibbsState = ChainState
"""State of the Gibbs chain: the full state ``x`` (see :class:`~prunelab.samplers.chain.ChainState`)."""


class GibbsInfo(NamedTuple):
    """What one sweep computed.

    Attributes
    ----------
    conditionals : float64 (sum of cardinalities,)
        ``P(x_i = s | x_-i)`` used at site ``i`` of the sweep, at
        ``state_offsets(net)[i] + s``; evidence variables one-hot.
    """

    conditionals: np.ndarray


class GibbsChain(NamedTuple):
    """Output of :func:`run_chain`.

    Attributes
    ----------
    draws : int64 (n_draws, n)
        The state after each sweep.
    rb_checkpoints : int64 (k,)
        Draw counts ``t`` (1-based) at which running sums were recorded.
    rb_sums : float64 (k, sum of cardinalities)
        ``sum_{t' <= t} P(x_i = s | x_-i^(t'))`` at each checkpoint ``t``; divide
        by ``t`` for the estimate of eq. (3). Evidence entries count ``t`` for the
        observed state.
    """

    draws: np.ndarray
    rb_checkpoints: np.ndarray
    rb_sums: np.ndarray


def state_offsets(net: CompiledNetwork) -> np.ndarray:
    """Start of each variable's block in a vector over all (variable, state) pairs.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.gibbs import state_offsets
    >>> state_offsets(compile_network(load_network("deterministic_pair"))).tolist()
    [0, 2, 4]
    """
    return np.concatenate([[0], np.cumsum(net.cardinality)]).astype(np.int64)


def _dead_site(i: int, x: np.ndarray) -> InfeasibleStateError:
    """The error for a site at which every candidate has weight zero."""
    return InfeasibleStateError(
        f"Gibbs site {i}: every state has weight zero; the chain state {x.tolist()} is infeasible"
    )


def step(rng: np.random.Generator, net: CompiledNetwork, state: GibbsState) -> tuple[GibbsState, GibbsInfo]:
    """One systematic-scan Gibbs sweep (numpy reference).

    Parameters
    ----------
    rng : numpy.random.Generator
        One ``rng.random()`` per free variable, in topological order.
    net : CompiledNetwork
    state : GibbsState

    Returns
    -------
    GibbsState
        After updating every free variable once.
    GibbsInfo
        The conditionals of the sweep (the Rao-Blackwell terms of eq. (3)).

    Raises
    ------
    InfeasibleStateError
        If a site has no candidate with positive weight (``state`` had ``P = 0``).

    See Also
    --------
    run_chain : the numba path, same draws for the same seed.

    References
    ----------
    .. [1] S. Geman and D. Geman, "Stochastic relaxation, Gibbs distributions, and
       the Bayesian restoration of images", IEEE TPAMI 6 (1984).
    .. [2] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling", 2017, section
       "Gibbs sampling", eq. (3).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import gibbs
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state, info = gibbs.step(np.random.default_rng(0), net, gibbs.init(net, [1, 1]))
    >>> state.x.tolist(), info.conditionals.tolist()
    ([1, 1], [0.0, 1.0, 0.0, 1.0])
    """
    x = state.x.copy()
    labels = state_labels(net, x)
    offsets = state_offsets(net)
    conditionals = np.zeros(offsets[-1])
    observed = np.flatnonzero(net.evidence_value >= 0)
    conditionals[offsets[observed] + net.evidence_value[observed]] = 1.0
    for i in net.free:
        family = slice(net.family_ptr[i], net.family_ptr[i + 1])
        members, strides = net.family_var[family], net.family_stride[family]
        shift = np.arange(net.cardinality[i]) - x[i]
        # weights[s] = product over family factors, with x_i set to s
        weights = net.cpt[labels[members][None, :] + shift[:, None] * strides[None, :]].prod(axis=1)
        total = np.cumsum(weights)[-1]  # added left to right, as the kernel adds it
        if not total > 0.0:
            raise _dead_site(i, x)
        new = inverse_cdf_py(weights, weights.size, rng.random() * total)
        conditionals[offsets[i]:offsets[i + 1]] = weights / total
        labels[members] += (new - x[i]) * strides
        x[i] = new
    return GibbsState(x), GibbsInfo(conditionals)


@numba.njit(cache=True, nogil=True)
def _gibbs_chain_nb(rng, cardinality, cpt, family_ptr, family_var, family_stride, free,
                        offsets, x, labels, n_draws, draws, checkpoints, rb_sums):
    """Numba kernel: ``n_draws`` sweeps; returns -1 or the index of a dead site."""
    max_card = 1
    for i in range(cardinality.shape[0]):
        if cardinality[i] > max_card:
            max_card = cardinality[i]
    weights = np.empty(max_card)
    rb_on = checkpoints.shape[0] > 0
    running = np.zeros(rb_sums.shape[1])
    next_cp = 0
    n_free = free.shape[0]
    for t in range(n_draws):
        for f in range(n_free):
            i = free[f]
            card = cardinality[i]
            xi = x[i]
            f0 = family_ptr[i]
            f1 = family_ptr[i + 1]
            # factor by factor: each factor's label and stride are read once for every candidate (each
            # candidate's product is multiplied in the same order as candidate by candidate)
            if card == 2:
                # a binary site in registers: the same products, sum and inverse CDF as the loops below, bit for bit
                w0 = 1.0
                w1 = 1.0
                for k in range(f0, f1):
                    stride = family_stride[k]
                    lab = labels[family_var[k]] - xi * stride
                    w0 *= cpt[lab]
                    w1 *= cpt[lab + stride]
                total = w0 + w1
                if not total > 0.0:
                    return i
                new = 0 if w0 > rng.random() * total or w1 == 0.0 else 1
                weights[0] = w0
                weights[1] = w1
            elif card == 3:  # the same for three states (most of alarm's sites)
                w0 = 1.0
                w1 = 1.0
                w2 = 1.0
                for k in range(f0, f1):
                    stride = family_stride[k]
                    lab = labels[family_var[k]] - xi * stride
                    w0 *= cpt[lab]
                    w1 *= cpt[lab + stride]
                    w2 *= cpt[lab + 2 * stride]
                total = w0 + w1 + w2
                if not total > 0.0:
                    return i
                u = rng.random() * total
                new = 0 if w0 > u else 1 if w0 + w1 > u else 2
                if new == 2 and w2 == 0.0:
                    new = 1
                if new == 1 and w1 == 0.0:
                    new = 0
                weights[0] = w0
                weights[1] = w1
                weights[2] = w2
            else:
                for s in range(card):
                    weights[s] = 1.0
                for k in range(f0, f1):
                    stride = family_stride[k]
                    lab = labels[family_var[k]] - xi * stride
                    for s in range(card):
                        weights[s] *= cpt[lab + s * stride]
                total = 0.0
                for s in range(card):
                    total += weights[s]
                if not total > 0.0:
                    return i
                new = inverse_cdf_nb(weights, card, rng.random() * total)
            if rb_on:
                base = offsets[i]
                for s in range(card):
                    running[base + s] += weights[s] / total
            if new != xi:
                delta = new - xi
                for k in range(f0, f1):
                    labels[family_var[k]] += delta * family_stride[k]
                x[i] = new
        for j in range(x.shape[0]):
            draws[t, j] = x[j]
        if rb_on:
            while next_cp < checkpoints.shape[0] and checkpoints[next_cp] == t + 1:
                for q in range(running.shape[0]):
                    rb_sums[next_cp, q] = running[q]
                next_cp += 1
    return -1


def run_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int,
              rb_checkpoints=None) -> GibbsChain:
    """``n_draws`` Gibbs sweeps from ``x0`` (numba path).

    Parameters
    ----------
    rng : numpy.random.Generator
        Consumed exactly like ``n_draws`` calls of :func:`step`.
    net : CompiledNetwork
    x0 : array_like of int (n,)
        A feasible start state (checked).
    n_draws : int
    rb_checkpoints : array_like of int, optional
        Strictly increasing draw counts in ``1..n_draws`` at which to record the
        running Rao-Blackwell sums; none by default (and no cost).

    Returns
    -------
    GibbsChain

    Raises
    ------
    InfeasibleStateError
        ``x0`` has ``P(x0, e) = 0`` or disagrees with the evidence.

    See Also
    --------
    step : the numpy reference.
    prunelab.sample : chains, seeds, parallelism.

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling", 2017, section
       "Gibbs sampling", eq. (3).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers import gibbs
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> out = gibbs.run_chain(np.random.default_rng(0), net, [0, 0], 3, rb_checkpoints=[3])
    >>> out.draws.tolist(), out.rb_sums.tolist()
    ([[0, 0], [0, 0], [0, 0]], [[3.0, 0.0, 3.0, 0.0]])
    """
    n_draws, x, labels, draws = start_chain(net, x0, n_draws)
    offsets = state_offsets(net)
    cps = checked_checkpoints([] if rb_checkpoints is None else rb_checkpoints, n_draws,
                              name="rb_checkpoints", increasing=True)
    rb_sums = np.zeros((cps.size, offsets[-1]))
    dead = _gibbs_chain_nb(
        rng, net.cardinality, net.cpt, net.family_ptr, net.family_var, net.family_stride,
        net.free, offsets, x, labels, n_draws, draws, cps, rb_sums,
    )
    if dead >= 0:
        raise _dead_site(dead, x)
    if cps.size:
        observed = np.flatnonzero(net.evidence_value >= 0)
        rb_sums[:, offsets[observed] + net.evidence_value[observed]] = cps[:, None].astype(np.float64)
    return GibbsChain(draws, cps, rb_sums)
