"""prunelab's own samplers behind the same interface as the peers': one chain, sweeps or seconds.

The runner calls :func:`prunelab.sample` chunk by chunk through the budget loop
(:func:`~prunelab.lab.peers.budget.fill_budget`), so a budget is filled the same way
as PyMC's, and reports a :class:`~prunelab.lab.peers.run.PeerRun` like every peer.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import numpy as np

from prunelab.network import BayesianNetwork
from .budget import MAX_CHUNK_CELLS, ChainTally, check_budget, fill_budget, peer_seed
from .run import PEER_SAMPLERS, PeerRun, chain_start

__all__ = ["run_prunelab"]


def run_prunelab(bn: BayesianNetwork, evidence: Mapping | None = None, sampler: str = "prunelab-gibbs", *,
                 n_steps: int | None = None, seconds: float | None = None, seed=None, start=None) -> PeerRun:
    """prunelab's own sampler through :func:`prunelab.sample`, one chain, same interface.

    A ``-rb`` sampler name (:data:`~prunelab.lab.peers.run.PEER_SAMPLERS`) estimates the
    marginals by the Rao-Blackwell sums of every chunk instead of the draws' frequencies.

    Under a budget, pilot-measured chunks continue the chain from its last draw
    (see :func:`~prunelab.lab.peers.budget.fill_budget`); ``seconds`` adds up the chunks' ``sample_seconds``
    (the chain only: compiling the network and the sampler's plan for each call
    is in ``setup_seconds``).
    """
    from prunelab.samplers import get_sampler
    from prunelab.sampling import sample

    if sampler not in PEER_SAMPLERS or not sampler.startswith("prunelab-"):
        raise ValueError(f"unknown prunelab sampler {sampler!r}")
    own = sampler.removeprefix("prunelab-")
    rao_blackwell = own.endswith("-rb")
    own = own.removesuffix("-rb")
    check_budget(n_steps, seconds)
    x0 = chain_start(bn, evidence, start, seed)
    options = {}
    if not rao_blackwell and getattr(get_sampler(own), "RAO_BLACKWELL", False):
        options["rb_checkpoints"] = np.zeros(0, dtype=np.int64)  # plain frequencies: no running sums

    def draw(n, start_from, salt):
        if rao_blackwell:  # the sums over the whole chunk, the chain's (the cold replica's) first row
            options["rb_checkpoints"] = np.array([int(n)], dtype=np.int64)
        result = sample(bn, own, int(n), evidence=evidence, init=start_from, seed=peer_seed(seed, 200 + salt),
                        traps="off", **options)  # chunks of one chain: a trap check per chunk means nothing
        chunk = (result.draws[0], float(result.sample_seconds.sum()))
        return chunk + (result.rb_sums[0, -1],) if rao_blackwell else chunk

    t0 = time.perf_counter()
    draw(1, x0, 99)  # numba compile and warm-up, outside the timing
    warm = time.perf_counter() - t0
    tally = ChainTally(bn, evidence, x0)
    setup = warm + fill_budget(draw, tally, n_steps, seconds, pilot_start=100,
                               max_draws=max(1, MAX_CHUNK_CELLS // len(bn.variables)))
    return PeerRun(sampler, "ok", tally.n_steps, tally.seconds, setup, tally.marginals(), tally.move_rate)
