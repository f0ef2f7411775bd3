"""pgmpy's Gibbs sampler from a feasible start, and from its own random start.

pgmpy builds its sampler from :func:`~prunelab.lab.peers.convert.to_pgmpy_gibbs` (refused
above :data:`~prunelab.lab.peers.convert.PGMPY_MAX_STATES` joint states) and draws from
numpy's *global* generator: every run seeds it from ``seed`` inside
:func:`~prunelab.lab.peers.capture.numpy_global_seed`, which restores the caller's
global state afterwards.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np

from prunelab.network import BayesianNetwork
from .budget import ChainTally, check_budget, peer_seed
from .capture import crash_note, numpy_global_seed, quiet_loggers, recording_warnings, unique_messages
from .convert import PGMPY_MAX_STATES, check_pgmpy_size, to_pgmpy_gibbs
from .run import PeerNotBuilt, PeerRun, cache_key, chain_start

__all__ = ["pgmpy_nan_rows", "pgmpy_random_start", "run_pgmpy_gibbs"]


def pgmpy_nan_rows(gibbs) -> tuple[int, int]:
    """``(rows with NaN, rows)`` of a pgmpy Gibbs sampler's transition tables.

    A row is NaN where all states of the variable have probability zero given the
    other variables (``0 / 0``): on networks with deterministic CPTs, at every
    infeasible configuration of the others. A chain that visits one crashes
    (``ValueError: probabilities contain NaN``).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> with np.errstate(invalid="ignore"):  # pgmpy divides 0 by 0 at each NaN row
    ...     rows = [pgmpy_nan_rows(to_pgmpy_gibbs(load_network(name))) for name in ("deterministic_pair", "asia")]
    >>> rows  # B = A leaves no state of the other infeasible; asia's "either" (an OR) does
    [(0, 4), (64, 1024)]
    """
    nan = total = 0
    for kernel in gibbs.transition_models.values():
        for row in kernel.values():
            total += 1
            nan += bool(np.isnan(np.asarray(row, float)).any())
    return nan, total


def _pgmpy_build(bn, evidence, max_states, sink):
    check_pgmpy_size(bn, evidence, max_states)  # before importing pgmpy: refusing is instant
    import pgmpy.models  # noqa: F401 - import-time deprecations go to the usual filters, not the sink
    import pgmpy.sampling  # noqa: F401

    with recording_warnings(sink), quiet_loggers("pgmpy"):
        return to_pgmpy_gibbs(bn, evidence, max_states)


def pgmpy_random_start(bn: BayesianNetwork, evidence: Mapping | None = None, n_steps: int = 50, seed=None,
                       max_states: int = PGMPY_MAX_STATES) -> PeerRun:
    """Whether pgmpy's Gibbs sampler runs from its own default start (uniformly random).

    Like :func:`run_pgmpy_gibbs`, it seeds numpy's global generator for the run only.

    On networks with determinism the random start is usually infeasible and the
    first NaN row it meets raises ``ValueError``; the run is then ``"crashed"``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> run = pgmpy_random_start(load_network("asia"), seed=1, n_steps=20)
    >>> run.status, run.note
    ('crashed', 'random start: ValueError: probabilities contain NaN')
    >>> pgmpy_random_start(load_network("deterministic_pair"), seed=0, n_steps=5).status
    'ok'
    """
    sink: list[str] = []
    try:
        gibbs = _pgmpy_build(bn, evidence, max_states, sink)
    except PeerNotBuilt as exc:
        return PeerRun("pgmpy-gibbs", "not built", note=str(exc))
    try:
        with numpy_global_seed(peer_seed(seed, 3)), recording_warnings(sink), quiet_loggers("pgmpy"):
            states = [tuple(s for _, s in st) for st in gibbs.generate_sample(size=n_steps, include_latents=True)]
    except Exception as exc:  # noqa: BLE001 - the crash is the finding
        return PeerRun("pgmpy-gibbs", "crashed", note="random start: " + crash_note(exc),
                       warnings=unique_messages(sink))
    return PeerRun("pgmpy-gibbs", "ok", len(states), note="random start ran", warnings=unique_messages(sink))


def run_pgmpy_gibbs(bn: BayesianNetwork, evidence: Mapping | None = None, *, n_steps: int | None = None,
                    seconds: float | None = None, seed=None, start=None,
                    max_states: int = PGMPY_MAX_STATES, cache: dict | None = None) -> PeerRun:
    """pgmpy's ``GibbsSampling`` from a feasible start, for sweeps or seconds.

    Driven through ``generate_sample`` (``sample`` always shows a progress bar); the
    adapter's clock stops it between sweeps. One warm-up sweep is neither timed
    nor counted. pgmpy draws from numpy's *global* generator, which is seeded
    here from ``seed`` and given back in the state it was in.

    Parameters
    ----------
    start : array_like of int, optional
        State indices in ``bn.variables`` order (default: :func:`~prunelab.lab.peers.run.start_state`).
    max_states : int
        See :func:`to_pgmpy_gibbs`; above it the run is ``"not built"``.
    cache : dict, optional
        Keeps the built sampler between calls on the same network and evidence.
    """
    check_budget(n_steps, seconds)
    x0 = chain_start(bn, evidence, start, seed)
    sink: list[str] = []
    key = cache_key("pgmpy", bn, evidence, max_states)
    if cache is not None and key in cache:
        gibbs, setup = cache[key]
    else:
        t0 = time.perf_counter()
        try:
            gibbs = _pgmpy_build(bn, evidence, max_states, sink)
        except PeerNotBuilt as exc:
            return PeerRun("pgmpy-gibbs", "not built", note=str(exc))
        setup = time.perf_counter() - t0
        if cache is not None:
            cache[key] = (gibbs, setup)
    nan, total = pgmpy_nan_rows(gibbs)
    note = f"{nan} of {total} transition rows are NaN"
    from pgmpy.factors.discrete import State

    order = [str(v) for v in gibbs.variables]
    columns = np.array([bn.index(v) for v in order])
    size = int(n_steps) if n_steps is not None else 2**62
    limit = math.inf if seconds is None else float(seconds)
    rows: list[tuple[int, ...]] = []
    try:
        with numpy_global_seed(peer_seed(seed, 3)), recording_warnings(sink), quiet_loggers("pgmpy"):
            generator = gibbs.generate_sample(
                start_state=[State(v, int(x0[bn.index(v)])) for v in order], size=size + 1, include_latents=True)
            first = next(generator)  # warm-up sweep (lazy imports, first lookups), not timed or counted
            x0 = x0.copy()
            x0[columns] = [s for _, s in first]
            t0 = time.perf_counter()
            for sweep in generator:
                rows.append(tuple(s for _, s in sweep))
                if time.perf_counter() - t0 >= limit:
                    break
            elapsed = time.perf_counter() - t0
    except Exception as exc:  # noqa: BLE001 - a crash is reported, not raised
        return PeerRun("pgmpy-gibbs", "crashed", setup_seconds=setup, note=f"{note}; {crash_note(exc)}",
                       warnings=unique_messages(sink))
    draws = np.tile(x0, (len(rows), 1))
    draws[:, columns] = np.asarray(rows, dtype=np.int64).reshape(len(rows), len(order))
    tally = ChainTally(bn, evidence, x0)
    tally.add(draws, elapsed)
    return PeerRun("pgmpy-gibbs", "ok", tally.n_steps, elapsed, setup, tally.marginals(), tally.move_rate, note,
                   unique_messages(sink))
