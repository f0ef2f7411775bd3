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
from prunelab.samplers import get_sampler
from prunelab.sampling import sample
from .budget import MAX_CHUNK_CELLS, ChainTally, check_budget, fill_budget, peer_seed
from .run import PeerRun, chain_start, sampler_info

__all__ = ["CHUNK_SALT", "chunk_seed", "run_prunelab"]


CHUNK_SALT = {"int": 200, "SeedSequence": 500}
"""Spawn key of chunk ``salt`` is ``CHUNK_SALT[...] + salt``: for an int seed (as every peer is given, reduced to a
31-bit seed by :func:`~prunelab.lab.peers.budget.peer_seed`) and for a SeedSequence (the frontier's runs, passed on
whole); the offsets keep the draws of records written before the two runners shared this loop."""


def chunk_seed(seed, salt: int):
    """The seed of the chunk (or pilot) ``salt`` of a chain seeded with ``seed`` (see :data:`CHUNK_SALT`).

    Examples
    --------
    >>> chunk_seed(7, 1) == chunk_seed(7, 1) != chunk_seed(7, 2)
    True
    >>> chunk_seed(np.random.SeedSequence(7, spawn_key=(3,)), 1).spawn_key
    (3, 501)
    """
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, CHUNK_SALT["SeedSequence"] + salt))
    return peer_seed(seed, CHUNK_SALT["int"] + salt)


def run_prunelab(bn: BayesianNetwork, evidence: Mapping | None = None, sampler: str = "prunelab-gibbs", *,
                 n_steps: int | None = None, seconds: float | None = None, seed=None, start=None,
                 uniform: str | None = None, vtree: str | None = None, pilot_start: int = 100) -> PeerRun:
    """prunelab's own sampler through :func:`prunelab.sample`, one chain, same interface.

    A ``-rb`` sampler name (:data:`~prunelab.lab.peers.run.PEER_SAMPLERS`) estimates the
    marginals by the Rao-Blackwell sums of every chunk instead of the draws' frequencies.

    Under a budget, pilot-measured chunks continue the chain from its last draw
    (see :func:`~prunelab.lab.peers.budget.fill_budget`); ``seconds`` adds up the chunks' ``sample_seconds``
    (the chain only: compiling the network and the sampler's plan for each call
    is in ``setup_seconds``).

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping, optional
    sampler : str, default "prunelab-gibbs"
        A ``prunelab-`` key of :data:`~prunelab.lab.peers.run.PEER_SAMPLERS`.
    n_steps, seconds : exactly one of them
        The budget (:func:`~prunelab.lab.peers.budget.check_budget`).
    seed : int, sequence of int, None, or numpy.random.SeedSequence
        Seeds the start (when ``start`` is None) and each chunk (:func:`chunk_seed`).
    start : array_like of int, optional
        The chain's first state (before its first draw); default one forward sample (:func:`chain_start`).
    uniform : str, optional
        Prune sampling's (or tempered prune's) ``uniform=``; default the sampler's own. Another sampler
        refuses it (a ``TypeError`` naming the options it takes).
    vtree : {"dissection", "turned", "elimination"}, optional
        With ``uniform="circuit"`` or ``"auto"``: the circuit's vtree
        (:func:`prunelab.samplers.prune.draws.registry.sampler_vtree`); e.g. the
        :attr:`~prunelab.circuit.Circuit.vtree_name` that exact inference's race chose.
    pilot_start : int, default 100
        Draws of the first pilot (:func:`~prunelab.lab.peers.budget.fill_budget`): fewer for a slow sampler, whose
        pilots would otherwise eat into a short budget.

    Returns
    -------
    PeerRun

    Examples
    --------
    >>> from prunelab import load_network
    >>> run = run_prunelab(load_network("deterministic_pair"), None, "prunelab-prune", n_steps=50, seed=1,
    ...                    uniform="circuit", vtree="dissection")
    >>> run.status, run.n_steps
    ('ok', 50)
    """
    info = sampler_info(sampler)
    if info.sampler is None:
        raise ValueError(f"{sampler!r} is {info.library}'s sampler, not one of prunelab's")
    own, rao_blackwell = info.sampler, info.rao_blackwell
    check_budget(n_steps, seconds)
    x0 = chain_start(bn, evidence, start, seed)
    options = {name: value for name, value in (("uniform", uniform), ("vtree", vtree)) if value is not None}
    if not rao_blackwell and getattr(get_sampler(own), "RAO_BLACKWELL", False):
        options["rb_checkpoints"] = np.zeros(0, dtype=np.int64)  # plain frequencies: no running sums

    def draw(n, start_from, salt):
        if rao_blackwell:  # the sums over the whole chunk, the chain's (the cold replica's) first row
            options["rb_checkpoints"] = np.array([int(n)], dtype=np.int64)
        result = sample(bn, own, int(n), evidence=evidence, init=start_from, seed=chunk_seed(seed, salt),
                        traps="off", **options)  # chunks of one chain: a trap check per chunk means nothing
        chunk = (result.draws[0], float(result.sample_seconds.sum()))
        return chunk + (result.rb_sums[0, -1],) if rao_blackwell else chunk

    t0 = time.perf_counter()
    draw(1, x0, 99)  # numba compile and warm-up, outside the timing
    warm = time.perf_counter() - t0
    tally = ChainTally(bn, evidence, x0)
    setup = warm + fill_budget(draw, tally, n_steps, seconds, pilot_start=pilot_start,
                               max_draws=max(1, MAX_CHUNK_CELLS // len(bn.variables)))
    return PeerRun(sampler, "ok", tally.n_steps, tally.seconds, setup, tally.marginals(), tally.move_rate)
