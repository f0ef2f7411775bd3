"""The trap check of :func:`prunelab.sample`: free variables stuck, and chains that disagree beyond their ESS.

See "Traps" in :mod:`prunelab.sampling` for what is looked for and why; the
result is a :class:`~prunelab.diagnostics.TrapReport`.
"""

from __future__ import annotations

import numpy as np

from .diagnostics import TRAP_FALSE_ALARM, TrapReport, chain_disagreement
from .network import EvidenceError
from .sample_result import distinct_rows
from .samplers.init import can_take, single_site_frozen

__all__ = ["TRAP_SPAWN", "trap_report", "trap_seed"]

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

    evidence = {bn.variables[i]: int(s) for i, s in enumerate(net.evidence_value) if s >= 0}
    try:
        return exact.exact_marginals(bn, evidence)
    except EvidenceError:
        raise
    except ValueError:  # too wide for exact inference
        return {}


def trap_report(bn, net, draws, initial_states, seed, single_site: bool) -> TrapReport:
    """Stuck and disagreeing free variables (see :class:`~prunelab.diagnostics.TrapReport`).

    Stuck variables are looked for only for ``single_site`` samplers: a sampler with
    larger moves (prune) that leaves a variable alone in a short run has met an
    improbable state, not a wall.
    """
    n_chains, n_draws = draws.shape[:2]
    starts = initial_states.astype(draws.dtype)
    candidates = [
        int(i) for i in net.free
        if single_site and np.all(draws[:, :, i] == starts[:, i, None])
    ]
    stuck = []
    if candidates:
        visited = distinct_rows(np.concatenate([starts, draws.reshape(-1, net.n_variables)]))
        rng = np.random.default_rng(seed)
        posterior = None
        for i in np.asarray(candidates)[single_site_frozen(net, visited, candidates)]:
            values = np.unique(starts[:, i])
            others = [s for s in range(int(net.cardinality[i])) if s != values[0]]
            if values.size == 1:
                if posterior is None:  # one calibration answers for every variable
                    posterior = _posterior_or_empty(bn, net)
                if posterior:
                    possible = bool(np.any(posterior[bn.variables[i]][others] > 0.0))
                else:  # too wide for exact inference: look for a witness state
                    possible = any(can_take(rng, net, i, s) for s in others)
            else:
                possible = True  # chains hold it at two values: both are possible
            if possible:
                stuck.append(bn.variables[i])
    p_values = {}
    n_tests = 0
    for i in net.free:
        column = draws[:, :, i]
        # a chain in which the variable never moved tells nothing of how fast it mixes
        column = column[np.any(column != column[:, :1], axis=1)]
        if column.shape[0] < 2:
            continue
        present = np.flatnonzero(np.bincount(column.ravel(), minlength=int(net.cardinality[i])))
        tested = present[:-1] if present.size == 2 else present  # two states: one indicator says it all
        p_values[bn.variables[i]] = min(chain_disagreement(column == s) for s in tested)
        n_tests += tested.size
    threshold = TRAP_FALSE_ALARM / max(n_tests, 1)
    disagreeing = tuple(v for v, p in p_values.items() if p < threshold)
    return TrapReport(tuple(stuck), disagreeing, p_values, threshold)
