"""What a peer run is: the samplers by name, the result of one chain, and what every adapter shares.

:data:`PEER_SAMPLERS` names every sampler (its library, what one step is, its
prunelab counterpart); :class:`PeerRun` is what every runner returns;
:func:`start_state` is the feasible start the comparison gives every sampler that
takes one; :func:`joint_state_count` and :meth:`PeerRun.mean_hellinger` are the figures a
comparison reads off a network and a run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from prunelab.indicators import mean_hellinger_over_variables
from prunelab.network import BayesianNetwork
from ..registry import own_samplers
from prunelab.samplers.init import initial_state

__all__ = [
    "PEER_SAMPLERS",
    "PeerNotBuilt",
    "PeerRun",
    "SamplerInfo",
    "cache_key",
    "chain_start",
    "counterpart",
    "describe_state_count",
    "joint_state_count",
    "sampler_info",
    "start_state",
]


class PeerNotBuilt(RuntimeError):
    """A peer sampler that is refused before construction (too large) or cannot be built."""


class SamplerInfo(NamedTuple):
    """What a sampler name means: its library, what one step is, its prunelab counterpart, and for ours what runs.

    ``sampler`` and ``rao_blackwell`` are prunelab's (:class:`~prunelab.lab.registry.OwnSampler`):
    the registered sampler and whether its marginals are the Rao-Blackwell sums; ``None`` and
    False for a peer.
    """

    library: str
    step_unit: str
    counterpart: str
    sampler: str | None = None
    rao_blackwell: bool = False


PEER_SAMPLERS: dict[str, SamplerInfo] = {
    "pgmpy-gibbs": SamplerInfo("pgmpy", "sweep", "prunelab-gibbs"),
    "pyagrum-gibbs": SamplerInfo("pyagrum", "sweep", "prunelab-gibbs"),
    "pyagrum-lbp": SamplerInfo("pyagrum", "message round", "prunelab-prune"),
    "pyagrum-importance": SamplerInfo("pyagrum", "sample", "prunelab-prune"),
    "pyagrum-weighted": SamplerInfo("pyagrum", "sample", "prunelab-prune"),
    "pymc-cgm-uniform": SamplerInfo("pymc", "sweep", "prunelab-gibbs"),
    "pymc-cgm-proportional": SamplerInfo("pymc", "sweep", "prunelab-gibbs"),
    "pymc-metropolis": SamplerInfo("pymc", "sweep", "prunelab-metropolis"),
    **{own.name: SamplerInfo("prunelab", own.step_unit, own.counterpart, own.sampler, own.rao_blackwell)
       for own in own_samplers()},
}
"""Every sampler :func:`run_sampler` knows, in the order tables list them: the peers', then ours.

Ours are every registered sampler (:func:`~prunelab.lab.registry.own_samplers`):
``prunelab-<name>``, and ``prunelab-<name>-rb`` for one with a Rao-Blackwell estimate
(the paper's eq. (3) for Gibbs, the pruned sets' exact marginals for prune) in place of
the draws' frequencies; ``prunelab-prune-tempered`` is the cold chain of parallel
tempering with prune moves."""


def counterpart(sampler: str) -> str:
    """The prunelab sampler a peer's figures are divided by (Gibbs for Gibbs, ...).

    Examples
    --------
    >>> counterpart("pymc-metropolis")
    'prunelab-metropolis'
    """
    return sampler_info(sampler).counterpart


def sampler_info(sampler: str) -> SamplerInfo:
    """The :data:`PEER_SAMPLERS` entry of ``sampler``.

    Raises
    ------
    ValueError
        For a name that is not a key of :data:`PEER_SAMPLERS` (the message lists them).

    Examples
    --------
    >>> sampler_info("pgmpy-gibbs").library
    'pgmpy'
    """
    try:
        return PEER_SAMPLERS[sampler]
    except KeyError:
        raise ValueError(f"unknown sampler {sampler!r}; known: {list(PEER_SAMPLERS)}") from None


class PeerRun(NamedTuple):
    """One chain of one sampler on one network and evidence.

    Attributes
    ----------
    sampler : str
        A key of :data:`PEER_SAMPLERS`.
    status : str
        ``"ok"``; ``"not built"`` (refused or failed before sampling: see ``note``);
        ``"crashed"`` (raised while sampling); ``"not installed"``.
    n_steps : int
        Sweeps (or steps, see :data:`PEER_SAMPLERS`) done; 0 unless ``status == "ok"``.
    seconds : float
        Sampling time of those steps (NaN when none ran).
    setup_seconds : float
        Building, compiling and pilot time, not part of ``seconds``.
    marginals : dict of str to numpy.ndarray, or None
        Estimated ``P(X | e)`` of every free variable (empirical frequencies of the
        draws; pyAgrum's own estimate for ``pyagrum-gibbs``).
    move_rate : float
        Share of steps after which the state differs from the one before (NaN
        where the draws are not seen, i.e. pyAgrum).
    note : str
        What went wrong, or what the reader should know (e.g. pgmpy's NaN rows).
    warnings : tuple of str
        Runtime and user warnings the peer raised during the run (recorded here
        rather than shown; deprecation warnings are passed on).
    """

    sampler: str
    status: str
    n_steps: int = 0
    seconds: float = math.nan
    setup_seconds: float = math.nan
    marginals: dict | None = None
    move_rate: float = math.nan
    note: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def steps_per_second(self) -> float:
        """``n_steps / seconds`` (NaN when nothing ran)."""
        if self.status != "ok" or not self.seconds > 0:
            return math.nan
        return self.n_steps / self.seconds

    def mean_hellinger(self, exact: Mapping[str, np.ndarray]) -> float:
        """Mean over free variables of the Hellinger distance to ``exact`` (NaN if no estimate).

        :func:`prunelab.indicators.mean_hellinger_over_variables` of the run's marginals.
        """
        if self.marginals is None:
            return math.nan
        return float(mean_hellinger_over_variables(self.marginals, exact))



def joint_state_count(bn: BayesianNetwork, evidence: Mapping | None = None) -> int:
    """Number of joint states of the free variables (an exact Python int).

    Examples
    --------
    >>> from prunelab import load_network
    >>> joint_state_count(load_network("asia"))
    256
    >>> joint_state_count(load_network("asia"), {"lung": "yes"})
    128
    """
    observed = {bn.variables[i] for i in bn.evidence_indices(evidence)}
    return math.prod(len(bn.states[v]) for v in bn.variables if v not in observed)


def describe_state_count(count: int) -> str:
    """``2^k`` for a power of two, else ``2^k.k`` (log2 to one decimal).

    Examples
    --------
    >>> describe_state_count(2**37), describe_state_count(3 * 2**10)
    ('2^37', '2^11.6')
    """
    if count > 0 and count & (count - 1) == 0:
        return f"2^{count.bit_length() - 1}"
    return f"2^{math.log2(count):.1f}"


def start_state(bn: BayesianNetwork, evidence: Mapping | None = None, seed=None) -> np.ndarray:
    """A feasible start (``P(x, e) > 0``) by prunelab's forward sampling: one per seed.

    The comparison gives this same start to every sampler that accepts one (pgmpy,
    PyMC, prunelab); pyAgrum draws its own (forward sampling with the evidence
    clamped, which may be infeasible).

    Returns
    -------
    numpy.ndarray of int64, state indices in ``bn.variables`` order, evidence set.

    Examples
    --------
    >>> from prunelab import load_network
    >>> start_state(load_network("deterministic_pair"), {"B": "1"}, seed=0).tolist()  # B = A: A is 1 too
    [1, 1]
    """
    return np.asarray(initial_state(np.random.default_rng(seed), bn, evidence=evidence), dtype=np.int64)


def chain_start(bn: BayesianNetwork, evidence: Mapping | None = None, start=None, seed=None) -> np.ndarray:
    """The start of a runner's chain: ``start`` as int64 state indices, or :func:`start_state`.

    Parameters
    ----------
    start : array_like of int, optional
        State indices in ``bn.variables`` order; ``None`` draws :func:`start_state`
        with ``seed``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> chain_start(load_network("deterministic_pair"), start=[1, 1]).tolist()
    [1, 1]
    """
    return start_state(bn, evidence, seed) if start is None else np.asarray(start, dtype=np.int64)


def cache_key(library: str, bn: BayesianNetwork, evidence: Mapping | None, variant) -> tuple:
    """Key of what a runner built (a sampler, a compiled model) in the caller's ``cache`` dict.

    The same network (by content: :attr:`~prunelab.BayesianNetwork.fingerprint`, not
    by ``id``, which Python reuses once a network is collected), evidence and
    ``variant`` (PyMC's sampler, pgmpy's size limit) give the same key, so a runner
    called again, e.g. for the next budget, reuses what it built, and never what it
    built for another network.

    Examples
    --------
    >>> from prunelab import load_network
    >>> bn = load_network("asia")
    >>> cache_key("pymc", bn, {"lung": "yes"}, "pymc-metropolis") == cache_key(
    ...     "pymc", bn, {"lung": "yes"}, "pymc-metropolis")
    True
    """
    return library, bn.fingerprint, tuple(sorted(bn.evidence_names(evidence).items())), variant
