"""What the solution-sampler draws share: the CNF of a pruned set, the decoding of a model, the chain.

The ``uniform=`` options ``"cmsgen"`` (:mod:`prunelab.samplers.prune.draws.cmsgen`) and
``"unigen"`` (:mod:`prunelab.samplers.prune.draws.unigen`) hand the pruned set ``S`` to an
external solution sampler as a CNF and read the next state off the model it returns:

* the CNF of the network with its evidence is the circuit encoding
  (:func:`prunelab.circuit.encoding.encode_network`): state indicators, a label
  indicator ``theta`` per CPT entry with ``0 < c < 1``, the ``c = 0`` entries as
  clauses; its models are the feasible states;
* a pruning adds the unit clause ``-theta`` for every pruned label indicator (and
  nothing for kept ones), so the models of the step's CNF are exactly ``S``;
* the state indicators of the model give the next state.

Neither sampler counts, so ``size`` is NaN. ``S`` contains the current state, so
the CNF is always satisfiable; should the solver still return no model within its
limits, the chain stays at ``x`` and the step's ``size`` is :data:`NO_MODEL`
(``0``, which no real ``|S|`` can be): ``(sizes == NO_MODEL).sum()`` counts them.

The pruning. Which labels some feasible state uses is a question for a counter, not
for these samplers; so every label with ``0 < c < 1`` that agrees with the evidence
is pruned at random (a superset of the counting plan's :class:`~prunelab.samplers.prune.plan.Pruning`). A
label no feasible state uses never changes ``S``: the transition law is the same, only the random stream
differs from the counting plan's.

The solvers are optional (the extra ``solvers``, :data:`EXTRA`); they are imported inside
``plan`` with :func:`prunelab.extras.require`, and a missing one is refused with
:class:`~prunelab.extras.MissingExtraError`, naming the extra.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from prunelab.circuit.encoding import CircuitEncoding, encode_network
from prunelab.compiled import CompiledNetwork, PlanCache, state_labels
from prunelab.samplers.chain import start_chain

from ..plan import Pruning, pruning_of
from ..pruning import prune_around

__all__ = [
    "NO_MODEL", "NOT_COUNTED", "EXTRA", "SolverCNF", "compile_solver_cnf",
    "solver_cnf", "pruned_units", "check_pruning", "decode_model", "solver_seed", "solver_chain",
]

NO_MODEL = 0.0
"""``size`` of a step whose solver returned no model within its limits (the chain stayed at ``x``)."""

NOT_COUNTED = math.nan
"""``size`` of a step whose solver returned a model: these samplers do not count ``S``."""

EXTRA = "solvers"
"""The optional extra of ``pyproject.toml`` that installs the solution samplers."""


class SolverCNF(NamedTuple):
    """The CNF of a network with evidence, ready for a solution sampler; compiled once per (network, evidence).

    Attributes
    ----------
    encoding : CircuitEncoding
    clauses : int64
        The encoding's clauses, each followed by 0 (DIMACS order, one flat buffer).
    theta_boolean, theta_label : int64
        Every label indicator and its label.
    state_boolean : int64
        Every state indicator (the sampling set: the label indicators follow from them).
    pruning : Pruning
        Every label with ``0 < c < 1`` that agrees with the evidence is pruned at random (see the module
        docstring).
    """

    encoding: CircuitEncoding
    clauses: np.ndarray
    theta_boolean: np.ndarray
    theta_label: np.ndarray
    state_boolean: np.ndarray
    pruning: Pruning


def compile_solver_cnf(net: CompiledNetwork) -> SolverCNF:
    """The :class:`SolverCNF` of ``net`` (:func:`solver_cnf` caches it).

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.solver import compile_solver_cnf
    >>> cnf = compile_solver_cnf(compile_network(load_network("deterministic_pair")))
    >>> cnf.pruning.random_label.tolist(), cnf.theta_boolean.tolist(), cnf.state_boolean.tolist()
    ([0, 1], [3, 4], [1, 2])
    """
    enc = encode_network(net)
    flat = np.insert(enc.clause_literal, enc.clause_ptr[1:], 0).astype(np.int64)  # each clause, then 0
    theta_boolean = np.flatnonzero(enc.theta_label >= 0).astype(np.int64)
    theta_label = enc.theta_label[theta_boolean]
    random_label = np.unique(np.concatenate([theta_label, enc.constant_label])).astype(np.int64)
    arrays = (flat, theta_boolean, theta_label, enc.state_boolean.astype(np.int64))
    for a in arrays:
        a.setflags(write=False)
    return SolverCNF(enc, *arrays, pruning_of(net, random_label, net.cpt > 0.0))


_cnfs = PlanCache(compile_solver_cnf)


def solver_cnf(net: CompiledNetwork) -> SolverCNF:
    """The :class:`SolverCNF` of ``net``, compiled on first use and cached (by content)."""
    return _cnfs(net)


def pruned_units(cnf: SolverCNF, kept: np.ndarray) -> np.ndarray:
    """The unit clauses ``-theta`` (each followed by 0) of the label indicators that ``kept`` prunes.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.solver import compile_solver_cnf, pruned_units
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> kept = net.cpt > 0
    >>> kept[1] = False  # A's second label
    >>> pruned_units(compile_solver_cnf(net), kept).tolist()
    [-4, 0]
    """
    pruned = cnf.theta_boolean[~kept[cnf.theta_label]]
    units = np.zeros((pruned.shape[0], 2), dtype=np.int64)
    units[:, 0] = -pruned
    return units.reshape(-1)


def decode_model(cnf: SolverCNF, net: CompiledNetwork, x: np.ndarray, value: np.ndarray | None) -> np.ndarray:
    """The network state of a model: ``value[b]`` is Boolean ``b``'s truth (entry 0 unused); ``x`` if None.

    Observed variables keep ``x``'s (evidence) values; a free binary variable is
    its indicator, a one-hot variable the state whose indicator is true.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.solver import compile_solver_cnf, decode_model
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> cnf = compile_solver_cnf(net)
    >>> x = np.array([0, 0])
    >>> decode_model(cnf, net, x, np.array([0, 1, 1, 0, 1], dtype=bool)).tolist()
    [1, 1]
    >>> decode_model(cnf, net, x, None).tolist()
    [0, 0]
    """
    y = np.array(x, dtype=np.int64)
    if value is None:
        return y
    enc = cnf.encoding
    for i in net.free:
        lo, hi = enc.state_ptr[i], enc.state_ptr[i + 1]
        if net.cardinality[i] == 2:
            y[i] = int(value[enc.state_boolean[lo]])
        else:
            hits = np.flatnonzero(value[enc.state_boolean[lo:hi]])
            if hits.shape[0] != 1:
                raise ValueError(f"the model sets {hits.shape[0]} state indicators of variable {i}, not one")
            y[i] = int(hits[0])
    return y


def check_pruning(net: CompiledNetwork, x: np.ndarray, kept: np.ndarray) -> None:
    """Refuse a pruning that prunes a label of ``x``: ``S`` would be empty (and pyunigen exits on an empty CNF).

    Raises
    ------
    ValueError
        ``kept`` is not one entry per label, or prunes a label of ``x`` (named).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.solver import check_pruning
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> check_pruning(net, np.array([0, 0]), np.zeros(net.n_labels, dtype=bool))
    Traceback (most recent call last):
    ...
    ValueError: the pruning prunes labels [0, 2] of the current state x: the pruned set would be empty
    """
    kept = np.asarray(kept)
    if kept.shape != (net.n_labels,):
        raise ValueError(f"kept must have one entry per label ({net.n_labels}), got shape {kept.shape}")
    labels = state_labels(net, np.asarray(x, dtype=np.int64))
    pruned = labels[~kept[labels].astype(bool)]
    if pruned.shape[0]:
        raise ValueError(
            f"the pruning prunes labels {pruned.tolist()} of the current state x: the pruned set would be empty"
        )


def solver_seed(rng: np.random.Generator) -> int:
    """The seed of one solver call, drawn from ``rng`` (one ``integers`` call).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab.samplers.prune.draws.solver import solver_seed
    >>> solver_seed(np.random.default_rng(1)) == solver_seed(np.random.default_rng(1))
    True
    """
    return int(rng.integers(1, 2**31))


def solver_chain(rng: np.random.Generator, net: CompiledNetwork, x0, n_draws: int, plan,
                 draw: Callable) -> tuple[np.ndarray, np.ndarray]:
    """``n_draws`` prune steps, each a pruning around ``x`` then ``draw(rng, net, x, kept, plan)``.

    Returns ``(draws, sizes)``: ``sizes`` is NaN, or :data:`NO_MODEL` where the
    solver returned nothing and the chain stayed.
    """
    n_draws, x, _, draws = start_chain(net, x0, n_draws)
    sizes = np.empty(n_draws, dtype=np.float64)
    for t in range(n_draws):
        kept = prune_around(rng, net, x, plan)
        x, sizes[t] = draw(rng, net, x, kept, plan)
        draws[t] = x
    return draws, sizes
