"""The trap check of :func:`prunelab.sample`, the same for every sampler.

Three signs that chains are trapped, each naming free variables (see "Traps" in
:mod:`prunelab.sampling`; the result is a :class:`~prunelab.diagnostics.TrapReport`):

* **split** (every sampler): one chain holds a variable at a state for at least
  :data:`~prunelab.diagnostics.MIN_DRAWS` consecutive draws and a tenth of its
  draws (:data:`HELD_SHARE`), and another chain
  never visits that state: chains held at different constant values (R-hat
  infinite), or one chain that leaves, once, a state the others never see (R-hat
  large). Or every chain holds it at the same state throughout, although exact
  inference (where the network allows it) gives its other states a probability
  of :data:`HELD_SHARE` or more: the chains agree, but only because they all
  started there. Zeros trap Gibbs this way; near-zero entries trap prune sampling and
  MC-SAT this way (a label with ``c = 2e-6`` survives a pruning with probability
  ``2e-6``), whatever the evidence says is possible.
* **disagreeing** (every sampler): the chain means differ beyond what the ESS of
  the chains' own moves allows (:func:`~prunelab.diagnostics.chain_disagreement`
  over *every* chain, those in which the variable never moved included): the
  calibrated form of "a large R-hat".
* **stuck** (single-site samplers: Gibbs, Metropolis): a variable never changed in
  any chain although the evidence allows another state and no single-site move
  could change it from any state visited.
"""

from __future__ import annotations

import numpy as np

from .diagnostics import MIN_DRAWS, TRAP_FALSE_ALARM, TrapReport, chain_disagreement
from .network import EvidenceError
from .sample_result import distinct_rows
from .samplers.init import can_take, single_site_frozen

__all__ = ["HELD_SHARE", "TRAP_SPAWN", "held_apart", "trap_report", "trap_seed"]

HELD_SHARE = 0.1
"""Shortest stay, as a share of a chain, that :func:`held_apart` counts (and never under ``MIN_DRAWS`` draws).

A rare state that a slow but healthy sampler visits in short clusters (Gibbs on
alarm with its frozen evidence: stays of up to 200 sweeps in a state of
probability 3e-4, in chains of 100,000) is missed by some chains and not others;
a stay of a tenth of a chain is not a cluster but a part of the chain's answer.
"""

TRAP_SPAWN = 2**32 - 1
"""Last spawn-key entry of the seed of the trap check's witness search (no chain has it)."""


def trap_seed(root: np.random.SeedSequence) -> np.random.SeedSequence:
    """The seed of the witness search of :func:`trap_report`: a child of ``root`` that no chain uses."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, TRAP_SPAWN))


def _posterior_or_empty(bn, net) -> dict:
    """Exact posterior marginals given ``net``'s evidence, or ``{}`` if the network is too wide.

    A positive entry proves the state possible; a zero (exact: deterministic zeros
    propagate exactly) proves it impossible. Without them nothing is claimed.
    """
    from . import exact

    evidence = {v: bn.states[v][s] for v, s in zip(bn.variables, net.evidence_value.tolist()) if s >= 0}
    try:
        return exact.exact_marginals(bn, evidence)
    except EvidenceError:
        raise
    except ValueError:  # too wide for exact inference
        return {}


def held_apart(column: np.ndarray, start: np.ndarray, cardinality: int) -> bool:
    """Whether one chain held a variable at a state, for a long stretch, that another chain never visits.

    Parameters
    ----------
    column : int array (chain, draw)
        The variable's draws.
    start : int array (chain,)
        Its value in each chain's start state (counted as the first element of the chain).
    cardinality : int

    Returns
    -------
    bool
        True when some chain sits at one state ``s`` for at least
        :data:`~prunelab.diagnostics.MIN_DRAWS` consecutive draws, and at least
        :data:`HELD_SHARE` of its draws, and another chain never visits ``s``. In
        particular, chains held at different constant values (R-hat infinite), or
        one chain that leaves, once, a state the others never see (R-hat large). A
        chain that mixes leaves a state within a few autocorrelation times, and one
        that never visits it while another stays a tenth of its draws there is not
        sampling the same distribution.

    Examples
    --------
    >>> held_apart(np.repeat([[0], [1]], 200, axis=1), np.array([0, 1]), 2)
    True
    >>> held_apart(np.repeat([[0], [0]], 200, axis=1), np.array([0, 0]), 2)
    False
    >>> left_once = np.r_[np.ones(150, int), np.zeros(150, int)]  # 150 draws at 1, then at 0
    >>> held_apart(np.vstack([left_once, np.zeros(300, int)]), np.array([1, 0]), 2)
    True
    """
    column = np.concatenate([np.asarray(start)[:, None], column], axis=1).astype(np.int64)
    n_chains, length = column.shape
    if n_chains < 2 or length < MIN_DRAWS:
        return False
    flat = column.ravel()
    run_start = np.ones(flat.size, dtype=bool)
    run_start[1:] = flat[1:] != flat[:-1]
    run_start[::length] = True  # a run never spans two chains
    first = np.flatnonzero(run_start)
    lengths = np.diff(np.append(first, flat.size))
    long = lengths >= max(MIN_DRAWS, HELD_SHARE * length)
    if not long.any():
        return False
    visits = np.zeros((n_chains, cardinality), dtype=bool)
    visits[np.repeat(np.arange(n_chains), length), flat] = True
    return bool(np.any(~visits[:, flat[first[long]]]))


class _Posterior:
    """Exact posterior marginals computed on first use, once for every test (``{}``: too wide)."""

    def __init__(self, bn, net):
        self.bn, self.net, self._value = bn, net, None

    def __call__(self) -> dict:
        if self._value is None:
            self._value = _posterior_or_empty(self.bn, self.net)
        return self._value


def _never_moved(net, draws, starts) -> list[int]:
    """Free variables that no chain ever moved from its start."""
    return [int(i) for i in net.free if np.all(draws[:, :, i] == starts[:, i, None])]


def _held(bn, net, draws, starts, posterior: _Posterior) -> list[str]:
    """Free variables every chain held at one same state although the posterior gives the others ``HELD_SHARE``.

    Over at least ``MIN_DRAWS`` draws per chain. A sampler that mixes within a
    tenth of each chain leaves a state of posterior probability ``1 - q`` (with
    ``q >= HELD_SHARE``) within a few steps; ``M`` chains of ``N`` draws that never
    do are held. Needs exact inference (networks too wide for it are not judged).
    """
    if draws.shape[1] + 1 < MIN_DRAWS:
        return []
    held = []
    for i in _never_moved(net, draws, starts):
        values = np.unique(starts[:, i])
        if values.size == 1 and posterior():
            q = 1.0 - float(posterior()[bn.variables[i]][values[0]])
            if q >= HELD_SHARE:
                held.append(bn.variables[i])
    return held


def _stuck(bn, net, draws, starts, seed, posterior: _Posterior) -> list[str]:
    """Free variables that no single-site move could change from any state visited, although others are possible."""
    candidates = _never_moved(net, draws, starts)
    stuck = []
    if not candidates:
        return stuck
    visited = distinct_rows(np.concatenate([starts, draws.reshape(-1, net.n_variables)]))
    rng = np.random.default_rng(seed)
    for i in np.asarray(candidates)[single_site_frozen(net, visited, candidates)]:
        values = np.unique(starts[:, i])
        others = [s for s in range(int(net.cardinality[i])) if s != values[0]]
        if values.size == 1:
            if posterior():
                possible = bool(np.any(posterior()[bn.variables[i]][others] > 0.0))
            else:  # too wide for exact inference: look for a witness state
                possible = any(can_take(rng, net, i, s) for s in others)
        else:
            possible = True  # chains hold it at two values: both are possible
        if possible:
            stuck.append(bn.variables[i])
    return stuck


def trap_report(bn, net, draws, initial_states, seed, single_site: bool) -> TrapReport:
    """Split, disagreeing and (for single-site samplers) stuck free variables.

    Parameters
    ----------
    bn : BayesianNetwork
    net : CompiledNetwork
        ``bn`` compiled with the evidence.
    draws : int array (chain, draw, variable)
    initial_states : int array (chain, variable)
    seed : SeedSequence
        Seed of the witness search of the stuck test (:func:`trap_seed`).
    single_site : bool
        The sampler changes one variable at a time (``SINGLE_SITE``): look for
        stuck variables too. A sampler with larger moves (prune) that leaves a
        variable alone in every chain has met an improbable state, not a wall.

    Returns
    -------
    TrapReport

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.compiled import compile_network
    >>> bn = BayesianNetwork(states={"A": ["0", "1"]}, parents={}, cpts={"A": [0.5, 0.5]})
    >>> draws = np.repeat([[[0]], [[1]]], 200, axis=1)  # two chains, each held at its own value
    >>> report = trap_report(bn, compile_network(bn), draws, np.array([[0], [1]]), trap_seed(
    ...     np.random.SeedSequence(0)), single_site=False)
    >>> report.split, report.trapped
    (('A',), True)
    """
    starts = initial_states.astype(draws.dtype)
    posterior = _Posterior(bn, net)
    stuck = _stuck(bn, net, draws, starts, seed, posterior) if single_site else []
    split = [
        bn.variables[i] for i in net.free
        if held_apart(draws[:, :, i], starts[:, i], int(net.cardinality[i]))
    ]
    split += [v for v in _held(bn, net, draws, starts, posterior) if v not in stuck and v not in split]
    p_values = {}
    n_tests = 0
    for i in net.free:
        column = draws[:, :, i]
        if column.shape[0] < 2:
            continue
        present = np.flatnonzero(np.bincount(column.ravel(), minlength=int(net.cardinality[i])))
        tested = present[:-1] if present.size == 2 else present  # two states: one indicator says it all
        if tested.size == 0:
            continue
        p_values[bn.variables[i]] = min(chain_disagreement(column == s) for s in tested)
        n_tests += tested.size
    threshold = TRAP_FALSE_ALARM / max(n_tests, 1)
    disagreeing = tuple(v for v, p in p_values.items() if p < threshold)
    return TrapReport(tuple(stuck), disagreeing, p_values, threshold, tuple(split))
