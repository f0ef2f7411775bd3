"""The budget loop: one chain drawn in chunks until a number of steps or a wall-clock budget is spent."""

from __future__ import annotations

import math
import time

import numpy as np

from ..network import BayesianNetwork

PILOT_SECONDS = 0.05
"""Target length of the pilot run that measures a sampler's rate before a budget run."""

MAX_CHUNKS = 6
"""Most continuation chunks used to fill a budget (see :func:`_fill_budget`)."""

CHUNK_SHARE = 0.7
"""Share of the remaining budget each chunk aims at, so a rate misjudged by the pilot
(draw storage, other load) overshoots the budget little."""


def _seed_int(seed, salt: int) -> int:
    """A positive 31-bit integer seed for a peer that takes one, from ``(seed, salt)``."""
    return int(np.random.SeedSequence(seed, spawn_key=(salt,)).generate_state(1)[0] % (2**31 - 2)) + 1


class _Tally:
    """Running counts of the free variables' states over consecutive chunks of one chain."""

    def __init__(self, bn: BayesianNetwork, free: list[str], start: np.ndarray):
        self.columns = [bn.index(v) for v in free]
        self.free = free
        self.counts = [np.zeros(len(bn.states[v]), dtype=np.int64) for v in free]
        self.last = np.asarray(start, dtype=np.int64)
        self.n_steps = 0
        self.n_moves = 0
        self.seconds = 0.0

    def add(self, draws: np.ndarray, seconds: float) -> None:
        """``draws``: (n, n_variables) state indices in network order, following ``self.last``."""
        if draws.shape[0] == 0:
            return
        for counts, c in zip(self.counts, self.columns):
            counts += np.bincount(draws[:, c].astype(np.intp), minlength=counts.size)
        self.n_moves += int(np.any(draws[0] != self.last))
        self.n_moves += int(np.count_nonzero(np.any(draws[1:] != draws[:-1], axis=1)))
        self.n_steps += int(draws.shape[0])
        self.last = np.asarray(draws[-1], dtype=np.int64)
        self.seconds += float(seconds)

    def marginals(self) -> dict[str, np.ndarray]:
        return {v: c / c.sum() for v, c in zip(self.free, self.counts)}

    @property
    def move_rate(self) -> float:
        return self.n_moves / self.n_steps if self.n_steps else math.nan


def _fill_budget(draw, tally: _Tally, n_steps, seconds, pilot_start: int) -> float:
    """Draw ``n_steps``, or fill a time budget, through ``draw(n, start, salt) -> (draws, seconds)``.

    Under a budget, pilots of growing size (from ``pilot_start`` draws, not
    counted) measure the rate until one lasts :data:`PILOT_SECONDS`; then chunks
    of ``CHUNK_SHARE * rate * remaining`` draws continue the chain from its last
    state until at least 90 % of the budget is spent (at most :data:`MAX_CHUNKS`
    chunks; the rate is re-measured after each). Returns the setup time: pilots,
    and time outside the sampler's own clock.
    """
    t_start = time.perf_counter()
    if n_steps is not None:
        draws, elapsed = draw(int(n_steps), tally.last, 0)
        tally.add(draws, elapsed)
        return time.perf_counter() - t_start - tally.seconds
    n_pilot, salt = pilot_start, 1
    while True:
        _, pilot_seconds = draw(n_pilot, tally.last, salt)
        salt += 1
        if pilot_seconds >= PILOT_SECONDS or n_pilot >= 10**8:
            break
        n_pilot *= 8
    rate = n_pilot / max(pilot_seconds, 1e-9)
    for _ in range(MAX_CHUNKS):
        remaining = float(seconds) - tally.seconds
        if remaining <= 0.1 * float(seconds):
            break
        draws, elapsed = draw(max(1, round(CHUNK_SHARE * rate * remaining)), tally.last, salt)
        salt += 1
        tally.add(draws, elapsed)
        rate = draws.shape[0] / max(elapsed, 1e-9)
    return time.perf_counter() - t_start - tally.seconds


def _check_budget(n_steps, seconds) -> None:
    if (n_steps is None) == (seconds is None):
        raise ValueError("give exactly one of n_steps and seconds")
    if n_steps is not None and int(n_steps) < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}")
    if seconds is not None and not float(seconds) > 0:
        raise ValueError(f"seconds must be > 0, got {seconds}")
