"""How much the large-network experiment runs (:class:`LargeProfile`) and its runs (:class:`LargeRun`)."""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass
from typing import NamedTuple

import numpy as np

from .networks import pgmpy_networks

__all__ = [
    "BUDGET_SAMPLERS", "LARGE_PROFILES", "LONG_BUDGET_NETWORKS", "MIXING_VARIANTS", "LargeProfile", "LargeRun",
    "MixingVariant",
    "get_large_profile", "plan_runs",
]


BUDGET_SAMPLERS = (
    "prunelab-prune", "prunelab-prune-rb", "prunelab-prune-tempered", "prunelab-prune-tempered-rb",
    "prunelab-gibbs", "prunelab-gibbs-rb", "pyagrum-gibbs", "pyagrum-lbp", "pyagrum-importance", "pyagrum-weighted",
)
"""Samplers compared at equal wall-clock budgets (keys of :data:`prunelab.lab.peers.PEER_SAMPLERS`): prune
sampling plain, with the Rao-Blackwell estimate, and tempered (the cold chain of four replicas) with either
estimate; prunelab's Gibbs with either estimate; pyAgrum's four."""


LONG_BUDGET_NETWORKS = ("barley", "diabetes", "hailfinder", "link", "mildew", "munin", "pathfinder", "pigs")
"""Networks also run at a 60 s budget: the six large ones the paper's open question is about
(pathfinder, pigs, link, munin, diabetes, mildew) and the two where no sampler reached an AHD of
0.01 at 10 s in the first frozen run (barley, hailfinder)."""


class MixingVariant(NamedTuple):
    """One arm of the mixing study: a registered sampler, how many chains, and their starts."""

    sampler: str
    """A name of :func:`prunelab.samplers.get_sampler`."""
    restarts: int = 1
    """Chains per :attr:`LargeProfile.mixing_chains`, each that much shorter (the same steps in all)."""
    init: str = "forward"
    """``"forward"`` (forward samples, evidence clamped) or ``"exact"`` (exact posterior draws)."""


MIXING_VARIANTS = {
    "prune": MixingVariant("prune"),
    "prune-restarts": MixingVariant("prune", restarts=10),
    "prune-exact-restarts": MixingVariant("prune", restarts=10, init="exact"),
    "prune+gibbs": MixingVariant("prune+gibbs"),
    "prune-tempered": MixingVariant("prune-tempered"),
    "gibbs": MixingVariant("gibbs"),
}
"""What the mixing study compares, by variant name, each at the same number of steps in all:

* ``prune``: :attr:`LargeProfile.mixing_chains` chains from forward starts;
* ``prune-restarts``: ten times as many chains, each a tenth as long, from forward
  starts (with evidence clamped, not weighted: they follow the prior of a root such as
  hailfinder's ``Scenario``, not its posterior);
* ``prune-exact-restarts``: the same from exact posterior draws (sequential exact
  conditioning, the initialiser's fallback): every chain is stationary from its first
  step, so pooling them is unbiased even where each chain is stuck;
* ``prune+gibbs``: the registered sampler of :mod:`prunelab.samplers.prune.with_gibbs`, blocks of
  its default 20 prune steps and one Gibbs sweep;
* ``prune-tempered``: parallel tempering with prune moves (:mod:`prunelab.samplers.prune.tempered`),
  its default ladder (4 replicas, geometric down to beta = 0.2), forward starts; the beta = 1
  replica's draws, one a step (the record adds ``betas`` and ``swap_acceptance`` per pair);
* ``gibbs``: prunelab's Gibbs sampler, one draw a sweep.

The restart variants are not samplers of their own: they are the ``prune`` sampler run as
more, shorter chains.
"""


@dataclass(frozen=True)
class LargeProfile:
    """How much the large-network experiment runs.

    Parameters
    ----------
    name : str
        Results go to ``data/results/large`` for ``"paper"``, ``large-<name>`` otherwise.
    networks : tuple of str or None
        pgmpy networks; ``None``: every one (:func:`pgmpy_networks`).
    budgets : tuple of float
        Wall-clock budgets (seconds) of the ``budget`` runs, every network.
    long_budget : float or None
        A longer budget run on ``long_networks`` only.
    long_networks : tuple of str
        The networks of the ``long_budget`` runs.
    samplers : tuple of str
        Samplers of the ``budget`` runs.
    check_seconds : float
        Target sampling seconds of each of the two checked prune chains of a ``network`` run.
    check_max_steps : int
        At most this many steps per checked chain.
    mixing_network, mixing_variable : str
        Where the mixing study runs (with the network's frozen 25 % evidence) and the
        variable it follows.
    mixing_chains, mixing_steps : int
        Chains and steps per chain of the ``prune`` variant (every variant draws
        ``mixing_chains * mixing_steps`` in all).
    grid_sides, grid_determinism : tuple
        The grids: every side with every share of deterministic nodes.
    grid_seconds : float
        Target sampling seconds per grid chain (four chains).
    """

    name: str
    networks: tuple[str, ...] | None
    budgets: tuple[float, ...]
    long_budget: float | None = None
    long_networks: tuple[str, ...] = ()
    samplers: tuple[str, ...] = BUDGET_SAMPLERS
    check_seconds: float = 5.0
    check_max_steps: int = 200_000
    mixing_network: str = "hailfinder"
    mixing_variable: str = "Scenario"
    mixing_chains: int = 4
    mixing_steps: int = 50_000
    grid_sides: tuple[int, ...] = (10, 14, 18, 20, 22, 24, 28, 32)
    grid_determinism: tuple[float, ...] = (0.5, 0.75, 0.9)
    grid_seconds: float = 3.0

    def to_dict(self) -> dict:
        """The spec as plain JSON-ready values."""
        return asdict(self)


LARGE_PROFILES = {
    "paper": LargeProfile("paper", networks=None, budgets=(10.0, 1.0), long_budget=60.0,
                          long_networks=LONG_BUDGET_NETWORKS, check_seconds=2.0,
                          grid_sides=(10, 14, 18, 20, 24, 28), grid_seconds=2.0),
    "smoke": LargeProfile(
        "smoke", networks=("cancer", "asia"), budgets=(0.2,), check_seconds=0.2, check_max_steps=5_000,
        mixing_chains=2, mixing_steps=2_000, grid_sides=(4, 6), grid_determinism=(0.5, 0.9), grid_seconds=0.1,
    ),
}
"""``paper``: every pgmpy network, budgets 10 s and 1 s, 60 s on :data:`LONG_BUDGET_NETWORKS` (about
75 min on 2 cores, see ``provenance.json``); ``smoke``: two small networks and tiny grids (seconds, for the
book's smoke build and the tests)."""


@dataclass(frozen=True)
class LargeRun:
    """One run of the experiment (see the module docstring for the kinds).

    Examples
    --------
    >>> LargeRun("budget", "link", True, sampler="pyagrum-lbp", budget=10.0).id
    'budget.link.ev25.pyagrum-lbp.10s'
    >>> LargeRun("grid", "grid-20x20", False, side=20, determinism=0.9).id
    'grid.grid-20x20.d90'
    """

    kind: str
    network: str
    evidence: bool
    sampler: str = ""
    budget: float = 0.0
    side: int = 0
    determinism: float = 0.0

    @property
    def id(self) -> str:
        """The run's id: kind, network, evidence and the kind's own settings."""
        parts = [self.kind, self.network]
        if self.kind != "grid":
            parts.append("ev25" if self.evidence else "ev0")
        if self.sampler:
            parts.append(self.sampler)
        if self.budget:
            parts.append(f"{self.budget:g}s")
        if self.kind == "grid":
            parts.append(f"d{round(100 * self.determinism)}")
        return ".".join(parts)

    def seed(self, root_seed: int) -> np.random.SeedSequence:
        """``SeedSequence(root_seed, spawn_key=(crc32(id),))``."""
        return np.random.SeedSequence(int(root_seed), spawn_key=(zlib.crc32(self.id.encode()),))


def get_large_profile(profile) -> LargeProfile:
    """A :class:`LargeProfile` by name (or the profile itself)."""
    if isinstance(profile, LargeProfile):
        return profile
    try:
        return LARGE_PROFILES[profile]
    except KeyError:
        raise KeyError(f"unknown large-network profile {profile!r}; profiles are {sorted(LARGE_PROFILES)}") from None


def plan_runs(profile) -> tuple[LargeRun, ...]:
    """Every run of a profile, cheapest kinds first: networks, budgets (largest budget first), mixing, grids."""
    prof = get_large_profile(profile)
    names = prof.networks if prof.networks is not None else pgmpy_networks()
    runs = [LargeRun("network", n, ev) for n in names for ev in (True, False)]
    runs += [LargeRun("budget", n, True, sampler=s, budget=float(b))
             for b in prof.budgets for n in names for s in prof.samplers]
    if prof.long_budget:
        runs += [LargeRun("budget", n, True, sampler=s, budget=float(prof.long_budget))
                 for n in prof.long_networks if n in names for s in prof.samplers]
    runs += [LargeRun("mixing", prof.mixing_network, True, sampler=v) for v in MIXING_VARIANTS]
    runs += [LargeRun("grid", f"grid-{n}x{n}", False, side=n, determinism=d)
             for d in prof.grid_determinism for n in prof.grid_sides]
    return tuple(runs)
