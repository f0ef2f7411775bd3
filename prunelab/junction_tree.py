"""The junction tree of exact inference: compiled once per network and observed set, calibrated per evidence.

The elimination cliques of the unobserved variables (the cheapest order
:func:`prunelab.elimination.find_order` finds), joined child -> parent along the
elimination tree, form a junction tree (:class:`JunctionTree`). It depends only
on the network and on *which* variables are observed, and is cached per network
object (weakly) and observed set (:func:`junction_tree`). :func:`calibrate`
enters the evidence and passes messages up (P(e), with the scales on a log
scale); :func:`distribute` passes them down and reads off every posterior.
:mod:`prunelab.exact` is the public face; the exact initialiser of
:mod:`prunelab.samplers.init` samples backwards through the upward pass.

References
----------
.. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press, 2009, ch. 10 (clique trees, sum-product message passing,
   calibration; sec. 10.3 for the Hugin belief update).
"""

from __future__ import annotations

import math
import sys
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .elimination import check_fits, find_order, interaction_graph
from .network import BayesianNetwork

__all__ = [
    "Calibration", "JunctionTree", "calibrate", "compile_junction_tree", "distribute", "forget_junction_trees",
    "free_moral_graph", "junction_tree",
]


_CACHE_PER_NETWORK = 64
"""Compiled junction trees kept per network (one per observed-variable set)."""


def free_moral_graph(bn: BayesianNetwork, observed: frozenset[int]) -> dict[int, set[int]]:
    """Moral graph of ``bn`` over the unobserved variables (by variable index).

    Each CPT, sliced at the observed variables, is a factor over its unobserved
    scope; the graph links every pair inside a scope.
    """
    index = {v: i for i, v in enumerate(bn.variables)}
    scopes = ([index[p] for p in bn.parents[v]] + [index[v]] for v in bn.variables)
    return interaction_graph(scopes, (i for i in range(bn.n_variables) if i not in observed))


@dataclass(frozen=True)
class _Factor:
    """A CPT's place in the junction tree: how to slice it and where to put it."""

    variable: str
    scope: tuple[int, ...]  # parents then the child, as variable indices
    observed_axes: tuple[bool, ...]  # per scope axis: sliced by evidence?
    clique: int  # -1: fully observed, a constant
    transpose: tuple[int, ...]  # free axes -> clique order
    shape: tuple[int, ...]  # broadcast shape inside the clique


@dataclass(frozen=True)
class JunctionTree:
    """Elimination cliques of the unobserved variables, joined into a forest.

    Clique ``i`` belongs to the ``i``-th eliminated variable ``order[i]`` and has
    axes ``(order[i], *separator)`` sorted by elimination position, so every
    separator is an order-preserving subsequence of both of its cliques and no
    message ever needs transposing. Its parent is the clique of the first
    separator variable to be eliminated (-1 for a root).
    """

    observed: frozenset[int]
    order: tuple[int, ...]
    cliques: tuple[tuple[int, ...], ...]
    shapes: tuple[tuple[int, ...], ...]
    parent: tuple[int, ...]
    has_children: tuple[bool, ...]
    message_shape: tuple[tuple[int, ...], ...]  # child message, broadcast in parent
    parent_sum_axes: tuple[tuple[int, ...], ...]  # parent axes summed to the separator
    factors: tuple[_Factor, ...]

    @property
    def width(self) -> int:
        """The width of the tree: its largest clique minus one."""
        return max((len(c) for c in self.cliques), default=1) - 1


def compile_junction_tree(bn: BayesianNetwork, observed: frozenset[int], max_work: float = math.inf) -> JunctionTree:
    """The junction tree of ``bn`` with the variables ``observed`` (indices) sliced away; no cache.

    Raises
    ------
    prunelab.elimination.TablesTooLargeError
        The cheapest order found needs tables above the caps of :mod:`prunelab.elimination`.
    prunelab.elimination.OrderSearchTooLongError
        The order search passed ``max_work`` (:func:`~prunelab.elimination.find_order`).
    """
    cards = bn.cardinalities
    best = find_order(free_moral_graph(bn, observed), cards, max_work=max_work)
    check_fits(best, f"exact inference on network {bn.name!r}", bn.variables)
    order = best.order
    position = {v: k for k, v in enumerate(order)}

    cliques, parent = [], []
    for v, sep in zip(order, best.neighbours):
        sep = sorted(sep, key=position.__getitem__)
        cliques.append((v, *sep))
        parent.append(position[sep[0]] if sep else -1)
    shapes = [tuple(int(cards[u]) for u in c) for c in cliques]

    has_children = [False] * len(cliques)
    message_shape, parent_sum_axes = [], []
    for i, c in enumerate(cliques):
        p = parent[i]
        if p < 0:
            message_shape.append(())
            parent_sum_axes.append(())
            continue
        has_children[p] = True
        sep = set(c[1:])
        message_shape.append(tuple(int(cards[u]) if u in sep else 1 for u in cliques[p]))
        parent_sum_axes.append(tuple(a for a, u in enumerate(cliques[p]) if u not in sep))

    index = {v: i for i, v in enumerate(bn.variables)}
    factors = []
    for v in bn.variables:
        scope = tuple(index[p] for p in bn.parents[v]) + (index[v],)
        observed_axes = tuple(u in observed for u in scope)
        free = [u for u in scope if u not in observed]
        if not free:
            factors.append(_Factor(v, scope, observed_axes, -1, (), ()))
            continue
        # All of a factor's variables are neighbours when the first one goes, so
        # the scope lies inside that variable's clique.
        home = min(position[u] for u in free)
        transpose = tuple(sorted(range(len(free)), key=lambda a: position[free[a]]))
        in_scope = set(free)
        shape = tuple(int(cards[u]) if u in in_scope else 1 for u in cliques[home])
        factors.append(_Factor(v, scope, observed_axes, home, transpose, shape))

    return JunctionTree(
        observed=observed,
        order=tuple(order),
        cliques=tuple(cliques),
        shapes=tuple(shapes),
        parent=tuple(parent),
        has_children=tuple(has_children),
        message_shape=tuple(message_shape),
        parent_sum_axes=tuple(parent_sum_axes),
        factors=tuple(factors),
    )


_trees: weakref.WeakKeyDictionary[BayesianNetwork, dict[frozenset[int], JunctionTree]] = (
    weakref.WeakKeyDictionary()
)
_trees_lock = threading.Lock()


def junction_tree(bn: BayesianNetwork, observed: frozenset[int], max_work: float = math.inf) -> JunctionTree:
    """The compiled tree for ``bn`` with ``observed`` variables, from the cache (``max_work``: of the order search)."""
    with _trees_lock:
        per_network = _trees.get(bn)
        if per_network is not None and observed in per_network:
            return per_network[observed]
    tree = compile_junction_tree(bn, observed, max_work)
    with _trees_lock:
        per_network = _trees.setdefault(bn, {})
        if len(per_network) >= _CACHE_PER_NETWORK:
            per_network.pop(next(iter(per_network)))
        per_network[observed] = tree
    return tree


def forget_junction_trees(bn: BayesianNetwork) -> None:
    """Drop the compiled trees cached for ``bn`` (and its equals), so that the next inference compiles again."""
    with _trees_lock:
        _trees.pop(bn, None)


@dataclass(frozen=True)
class Calibration:
    """The upward pass of one evidence: P(e) and, unless impossible, what :func:`distribute` needs."""

    log_probability: float  # log P(e); -inf if impossible
    probability: float  # P(e): multiplied out, or exp(log P(e)) once the product left the normal floats
    potentials: list[np.ndarray] | None  # per clique: factors x child messages
    messages: list[np.ndarray | None] | None  # per clique: rescaled upward message
    totals: list[float] | None  # per root clique: its sum (others 0)


def _collect(bn: BayesianNetwork, tree: JunctionTree, observed: Mapping[int, int]) -> Calibration:
    """Enter evidence, multiply in the CPTs and pass messages up to the roots.

    ``P(e)`` is the product of the scales; once that product is subnormal its
    rounding no longer tracks the factors (a factor near 1 leaves it where it is,
    so 1e-323 "sticks" for a ``P(e)`` of 1e-388), and ``exp(log P(e))`` is
    returned instead (0.0 below the smallest float).
    """
    impossible = Calibration(-math.inf, 0.0, None, None, None)
    log_scale, scale, lowest = 0.0, 1.0, 1.0
    potentials = [np.ones(shape) for shape in tree.shapes]
    for f in tree.factors:
        cpt = bn.cpts[f.variable]
        if any(f.observed_axes):
            cpt = cpt[
                tuple(observed[u] if o else slice(None) for u, o in zip(f.scope, f.observed_axes))
            ]
        if f.clique < 0:
            value = float(cpt)
            if value == 0.0:
                return impossible
            log_scale += math.log(value)
            scale *= value
            lowest = min(lowest, scale)
            continue
        potentials[f.clique] *= cpt.transpose(f.transpose).reshape(f.shape)

    messages: list[np.ndarray | None] = [None] * len(tree.cliques)
    totals = [0.0] * len(tree.cliques)
    for i, p in enumerate(tree.parent):
        if p < 0:
            total = float(potentials[i].sum())
            if total == 0.0:
                return impossible
            totals[i] = total
            log_scale += math.log(total)
            scale *= total
            lowest = min(lowest, scale)
            continue
        message = potentials[i].sum(axis=0)
        peak = float(message.max())
        if peak == 0.0:
            return impossible
        message /= peak
        log_scale += math.log(peak)
        scale *= peak
        lowest = min(lowest, scale)
        messages[i] = message
        potentials[p] *= message.reshape(tree.message_shape[i])
    if lowest < sys.float_info.min:  # the product went through a subnormal: trust the logs only
        scale = math.exp(log_scale)
    return Calibration(log_scale, scale, potentials, messages, totals)


def distribute(tree: JunctionTree, calibration: Calibration) -> list[np.ndarray]:
    """Pass messages down from the roots; return each clique variable's posterior."""
    potentials, messages, totals = calibration.potentials, calibration.messages, calibration.totals
    beliefs: list[np.ndarray | None] = [None] * len(tree.cliques)
    marginals: list[np.ndarray | None] = [None] * len(tree.cliques)
    for i in reversed(range(len(tree.cliques))):
        p = tree.parent[i]
        psi = potentials[i]
        if p < 0:
            belief = psi / totals[i]
        else:
            # Hugin update: the parent's belief on the separator over what this
            # clique already sent up; where that message is 0 so is the belief.
            separator = beliefs[p].sum(axis=tree.parent_sum_axes[i])
            sent = messages[i]
            ratio = np.divide(separator, sent, out=np.zeros_like(separator), where=sent != 0)
            if not tree.has_children[i]:
                # A leaf only needs its own variable's posterior.
                marginal = psi.reshape(psi.shape[0], -1) @ ratio.reshape(-1)
                marginals[i] = marginal / marginal.sum()
                continue
            belief = psi * ratio[np.newaxis]
            belief /= belief.sum()
        beliefs[i] = belief
        marginal = belief.reshape(belief.shape[0], -1).sum(axis=1)
        marginals[i] = marginal / marginal.sum()
    return marginals


def calibrate(bn: BayesianNetwork, evidence: Mapping | None) -> tuple[JunctionTree, Calibration]:
    """The (cached) junction tree of ``bn`` for the observed variables of ``evidence``, and its upward pass."""
    observed = bn.evidence_indices(evidence)
    tree = junction_tree(bn, frozenset(observed))
    return tree, _collect(bn, tree, observed)
