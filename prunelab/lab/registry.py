"""The lab's one view of prunelab's samplers.

Every list of our own samplers in the lab (the peers' ``prunelab-*`` names, their
styles and labels, the budget runner's switches) is derived here from the registry
of :mod:`prunelab.samplers` (:func:`~prunelab.samplers.available_samplers`,
:func:`~prunelab.samplers.get_sampler`): :func:`own_samplers` gives each registered
sampler its peer name, ``prunelab-<name>``, and each that has a Rao-Blackwell
estimate a second one, ``prunelab-<name>-rb``; a name is looked up, never cut apart.

The names of prune sampling's uniform draws are the wing's own registry,
:data:`prunelab.samplers.prune.draws.registry.DRAWS` (in code order:
:data:`~prunelab.samplers.prune.draws.registry.UNIFORM_NAMES`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from prunelab.samplers import available_samplers, get_sampler
from .paper_numbers import PAPER_SAMPLERS

__all__ = ["OwnSampler", "own_name", "own_samplers", "rao_blackwell_mode"]


class OwnSampler(NamedTuple):
    """One of our samplers as the peers' comparisons name it."""

    name: str
    """``prunelab-<sampler>``, with ``-rb`` for its Rao-Blackwell estimate."""
    sampler: str
    """Its name in the registry (:func:`prunelab.sample`'s ``sampler``)."""
    rao_blackwell: bool
    """The marginals are the Rao-Blackwell sums, not the draws' frequencies."""
    step_unit: str
    """What one step is: ``"sweep"`` for a single-site sampler (``SINGLE_SITE``), else ``"step"``."""
    counterpart: str
    """The :attr:`name` a peer's figures are divided by: the sampler itself for the paper's three, prune's otherwise."""


def rao_blackwell_mode(sampler: str, options: dict) -> tuple[bool, bool]:
    """``(always, on_request)``: how a chain of ``sampler`` gets its Rao-Blackwell estimate.

    ``always``: the sampler records the sums in every chain (``RAO_BLACKWELL = True``,
    Gibbs). ``on_request``: it records them only when asked
    (``rao_blackwell_refusal(options)`` is None: prune sampling, MC-SAT with exact
    draws). Neither: no Rao-Blackwell estimate (Metropolis).

    Examples
    --------
    >>> rao_blackwell_mode("gibbs", {}), rao_blackwell_mode("prune", {}), rao_blackwell_mode("metropolis", {})
    ((True, False), (False, True), (False, False))
    >>> rao_blackwell_mode("prune", {"uniform": "heuristic"})
    (False, False)
    """
    module = get_sampler(sampler)
    if getattr(module, "RAO_BLACKWELL", False):
        return True, False
    refusal = getattr(module, "rao_blackwell_refusal", None)
    return False, refusal is not None and refusal(options) is None


@functools.cache
def own_samplers() -> tuple[OwnSampler, ...]:
    """Every registered sampler by its peer name: the paper's three first, then the others; then the ``-rb`` ones.

    Examples
    --------
    >>> [s.name for s in own_samplers()][:3]
    ['prunelab-gibbs', 'prunelab-metropolis', 'prunelab-prune']
    >>> own = {s.name: s for s in own_samplers()}
    >>> own["prunelab-prune-rb"].sampler, own["prunelab-prune-rb"].rao_blackwell, "prunelab-metropolis-rb" in own
    ('prune', True, False)
    """
    names = [*PAPER_SAMPLERS, *(s for s in available_samplers() if s not in PAPER_SAMPLERS)]
    plain, with_rb = [], []
    for sampler in names:
        unit = "sweep" if getattr(get_sampler(sampler), "SINGLE_SITE", False) else "step"
        counterpart = f"prunelab-{sampler if sampler in PAPER_SAMPLERS else 'prune'}"
        plain.append(OwnSampler(f"prunelab-{sampler}", sampler, False, unit, counterpart))
        if any(rao_blackwell_mode(sampler, {})):
            with_rb.append(OwnSampler(f"prunelab-{sampler}-rb", sampler, True, unit, counterpart))
    return (*plain, *with_rb)


def own_name(sampler: str, rao_blackwell: bool = False) -> str:
    """The peer name of a registered sampler (with its Rao-Blackwell estimate, or not).

    Raises
    ------
    ValueError
        A sampler that is not registered, or has no Rao-Blackwell estimate when asked for one.

    Examples
    --------
    >>> own_name("prune-tempered"), own_name("gibbs", rao_blackwell=True)
    ('prunelab-prune-tempered', 'prunelab-gibbs-rb')
    """
    for own in own_samplers():
        if own.sampler == sampler and own.rao_blackwell == rao_blackwell:
            return own.name
    raise ValueError(f"no peer name for sampler {sampler!r}{' with a Rao-Blackwell estimate' * rao_blackwell}; "
                     f"known: {[s.name for s in own_samplers()]}")

