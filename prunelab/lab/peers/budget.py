"""The budget loop: one chain drawn in chunks until a number of steps or a wall-clock budget is spent.

A runner that can continue a chain from a given state (PyMC, prunelab) hands
:func:`fill_budget` a function ``draw(n, start, salt) -> (draws, seconds)``; the
loop measures the sampler's rate by pilots and fills the budget with chunks, each
continuing the chain from the last draw of the one before. :class:`ChainTally`
counts the draws as they come; :func:`peer_seed` gives each chunk its own seed.
pgmpy is stopped by its adapter's clock and pyAgrum by itself, so they use only
:func:`check_budget` and :func:`peer_seed`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np

from prunelab.network import BayesianNetwork

__all__ = [
    "CHUNK_SHARE", "MAX_CHUNKS", "MAX_CHUNK_CELLS", "PILOT_SECONDS", "ChainTally", "check_budget", "fill_budget",
    "peer_seed",
]

PILOT_SECONDS = 0.05
"""Target length of the pilot run that measures a sampler's rate before a budget run."""

MAX_CHUNKS = 6
"""Most continuation chunks used to fill a budget (see :func:`fill_budget`)."""

MAX_CHUNK_CELLS = 2**25
"""Most draws x variables held at once by one chunk (a 60 s budget of a fast chain on a
large network would otherwise ask :func:`prunelab.sample` for gigabytes): a chunk cut to
this size does not count towards :data:`MAX_CHUNKS`."""

CHUNK_SHARE = 0.7
"""Share of the remaining budget each chunk aims at, so a rate misjudged by the pilot
(draw storage, other load) overshoots the budget little."""


def peer_seed(seed, salt: int) -> int:
    """A positive 31-bit integer seed for a peer that takes one, from ``(seed, salt)``.

    Parameters
    ----------
    seed : int, sequence of int or None
        The run's seed (entropy of a :class:`numpy.random.SeedSequence`).
    salt : int
        Which use of the seed (a chunk, a peer's global generator ...): the spawn key.

    Returns
    -------
    int
        In ``[1, 2**31 - 2]``.

    Examples
    --------
    >>> peer_seed(0, 1) == peer_seed(0, 1) != peer_seed(0, 2)
    True
    """
    return int(np.random.SeedSequence(seed, spawn_key=(salt,)).generate_state(1)[0] % (2**31 - 2)) + 1


class ChainTally:
    """Running counts of the free variables' states over consecutive chunks of one chain.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping, optional
        The observed variables are not counted.
    start : array_like of int
        The state before the first draw (a first draw that differs from it is a move).

    Examples
    --------
    >>> from prunelab import load_network
    >>> tally = ChainTally(load_network("deterministic_pair"), None, [0, 0])
    >>> tally.add(np.array([[0, 0], [1, 1], [1, 1]]), seconds=0.5)
    >>> tally.n_steps, tally.move_rate, tally.marginals()["A"].tolist()
    (3, 0.3333333333333333, [0.3333333333333333, 0.6666666666666666])
    """

    def __init__(self, bn: BayesianNetwork, evidence: Mapping | None, start):
        observed = bn.evidence_names(evidence)
        self.free = [v for v in bn.variables if v not in observed]
        self.columns = [bn.index(v) for v in self.free]
        starts = np.cumsum([0] + [len(bn.states[v]) for v in bn.variables])
        self._rb_blocks = [slice(starts[c], starts[c + 1]) for c in self.columns]  # free variables in rb_sums
        self.counts = [np.zeros(len(bn.states[v]), dtype=np.int64) for v in self.free]
        self.last = np.asarray(start, dtype=np.int64)
        self.n_steps = 0
        self.n_moves = 0
        self.seconds = 0.0
        self.rb_sums = None  # per free variable, once a chunk brings Rao-Blackwell sums

    def add(self, draws: np.ndarray, seconds: float, rb_sums: np.ndarray | None = None) -> None:
        """``draws``: (n, n_variables) state indices in network order, following ``self.last``.

        ``rb_sums``: the chunk's Rao-Blackwell sums over its ``n`` steps, every variable's
        states in network order (as :attr:`prunelab.SampleResult.rb_sums` holds them); a
        tally given them for one chunk must be given them for every chunk.
        """
        if draws.shape[0] == 0:
            return
        if (rb_sums is None) != (self.rb_sums is None) and self.n_steps:
            raise ValueError("every chunk of a chain must bring Rao-Blackwell sums, or none")
        if rb_sums is not None:
            sums = np.asarray(rb_sums, dtype=np.float64)
            chunk = [sums[block] for block in self._rb_blocks]
            self.rb_sums = chunk if self.rb_sums is None else [a + b for a, b in zip(self.rb_sums, chunk)]
        for counts, c in zip(self.counts, self.columns):
            counts += np.bincount(draws[:, c].astype(np.intp), minlength=counts.size)
        self.n_moves += int(np.any(draws[0] != self.last))
        self.n_moves += int(np.count_nonzero(np.any(draws[1:] != draws[:-1], axis=1)))
        self.n_steps += int(draws.shape[0])
        self.last = np.asarray(draws[-1], dtype=np.int64)
        self.seconds += float(seconds)

    def marginals(self) -> dict[str, np.ndarray]:
        """Each free variable's estimate, in network order.

        The Rao-Blackwell average where the chunks brought sums, the empirical frequencies otherwise.
        """
        if self.rb_sums is not None:
            return {v: s / self.n_steps for v, s in zip(self.free, self.rb_sums)}
        return {v: c / c.sum() for v, c in zip(self.free, self.counts)}

    @property
    def move_rate(self) -> float:
        """Share of steps after which the state differs from the one before (NaN before any)."""
        return self.n_moves / self.n_steps if self.n_steps else math.nan


def fill_budget(draw, tally: ChainTally, n_steps, seconds, pilot_start: int, max_draws: int | None = None) -> float:
    """Draw ``n_steps``, or fill a time budget, through ``draw(n, start, salt) -> (draws, seconds)``.

    Under a budget, pilots of growing size (from ``pilot_start`` draws, not
    counted) measure the rate until one lasts :data:`PILOT_SECONDS`; then chunks
    of ``CHUNK_SHARE * rate * remaining`` draws continue the chain from its last
    state until at least 90 % of the budget is spent (at most :data:`MAX_CHUNKS`
    chunks; the rate is re-measured after each). No call asks for more than
    ``max_draws`` draws: a longer fixed run or chunk is cut into pieces of that size.

    Parameters
    ----------
    draw : callable
        ``draw(n, start, salt)`` runs the sampler for ``n`` steps from ``start``
        with the seed of ``salt`` (0 for a fixed ``n_steps``, then 1, 2, ... for
        pilots and chunks), and returns the ``(n, n_variables)`` draws and the
        sampler's own seconds, and optionally the chunk's Rao-Blackwell sums
        (see :meth:`ChainTally.add`).
    tally : ChainTally
        Receives the counted draws (pilots are not counted).
    n_steps, seconds : exactly one of them (see :func:`check_budget`)
    pilot_start : int
        Draws of the first pilot.
    max_draws : int, optional
        Most draws per call of ``draw`` (see :data:`MAX_CHUNK_CELLS`); default no limit.

    Returns
    -------
    float
        The setup time: pilots, and time outside the sampler's own clock.
    """
    t_start = time.perf_counter()
    cap = int(max_draws) if max_draws is not None else None
    if cap is not None and cap < 1:
        raise ValueError(f"max_draws must be at least 1, got {max_draws!r}")
    if n_steps is not None:
        left, salt = int(n_steps), 0
        while left > 0:  # one call (salt 0) unless the run is longer than the cap
            n = left if cap is None else min(left, cap)
            tally.add(*draw(n, tally.last, salt))
            left, salt = left - n, salt + 1000
        return time.perf_counter() - t_start - tally.seconds
    n_pilot, salt = pilot_start, 1
    while True:
        pilot_seconds = draw(n_pilot if cap is None else min(n_pilot, cap), tally.last, salt)[1]
        salt += 1
        if pilot_seconds >= PILOT_SECONDS or n_pilot >= 10**8 or (cap is not None and n_pilot >= cap):
            break
        n_pilot *= 8
    n_pilot = n_pilot if cap is None else min(n_pilot, cap)
    rate = n_pilot / max(pilot_seconds, 1e-9)
    n_chunks = 0
    while n_chunks < MAX_CHUNKS:
        remaining = float(seconds) - tally.seconds
        if remaining <= 0.1 * float(seconds):
            break
        n = max(1, round(CHUNK_SHARE * rate * remaining))
        if cap is not None and n > cap:
            n = cap  # a piece of a longer chunk: not counted
        else:
            n_chunks += 1
        chunk = draw(n, tally.last, salt)
        salt += 1
        tally.add(*chunk)
        rate = chunk[0].shape[0] / max(chunk[1], 1e-9)
    return time.perf_counter() - t_start - tally.seconds


def check_budget(n_steps, seconds) -> None:
    """Refuse anything but exactly one of ``n_steps >= 1`` and ``seconds > 0``.

    Raises
    ------
    ValueError
        Naming what is wrong.

    Examples
    --------
    >>> check_budget(None, 0.5)
    >>> check_budget(10, 0.5)
    Traceback (most recent call last):
    ...
    ValueError: give exactly one of n_steps and seconds
    """
    if (n_steps is None) == (seconds is None):
        raise ValueError("give exactly one of n_steps and seconds")
    if n_steps is not None and int(n_steps) < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}")
    if seconds is not None and not float(seconds) > 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
