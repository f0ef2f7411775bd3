"""The large-network experiment as an :class:`~prunelab.lab.experiments.framework.Experiment`: :data:`LARGE`.

Its runs are planned by :func:`~.profiles.plan_runs` and computed by
:func:`~.kinds.simulate_large_run`; :func:`prunelab.lab.experiments.sweep` writes
them, :func:`prunelab.lab.experiments.results` reads them.
"""

from __future__ import annotations

from .kinds import simulate_large_run
from .profiles import LARGE_PROFILES, get_large_profile, plan_runs

__all__ = ["LARGE"]


class _Large:
    """Prune sampling on every pgmpy network, its peers at equal budgets, mixing, grids."""

    name = "large"
    profiles = LARGE_PROFILES
    tables = {"network": "networks", "budget": "budget", "mixing": "mixing", "grid": "grids"}
    libraries = ("pyagrum",)

    def plan(self, profile):
        """:func:`~.profiles.plan_runs`."""
        return plan_runs(get_large_profile(profile))

    def run(self, run, profile, root_seed: int) -> dict:
        """:func:`~.kinds.simulate_large_run`."""
        return simulate_large_run(run, profile, root_seed)


LARGE = _Large()
"""The large-network experiment."""
