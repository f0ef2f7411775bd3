"""How the book's figures look: one colour, marker and name per sampler, and the axes they share.

:data:`SAMPLER_STYLES` is the one mapping from a sampler's name to its
:class:`SamplerStyle`: prunelab's samplers (``"gibbs"``, ``"metropolis"``,
``"prune"``, the names of :data:`prunelab.lab.paper_numbers.PAPER_SAMPLERS`, and every
registered sampler under its peer name, ``"prunelab-gibbs"`` ...:
:func:`prunelab.lab.registry.own_samplers`) and
the peers' (``"pgmpy-gibbs"``, ``"pyagrum-gibbs"``, ``"pymc-cgm-uniform"``,
``"pymc-cgm-proportional"``, ``"pymc-metropolis"``). The eight colours are
ColorBrewer's Dark2, readable for colour-blind readers; a prunelab sampler has the
same colour whichever name it goes by. A chapter draws a sampler with::

    color, marker = SAMPLER_STYLES[sampler]

or, through seaborn, with the palette keyed by sampler name (:func:`sampler_palette`)::

    sns.lineplot(data, x="t", y="ahd", hue="sampler", palette=sampler_palette(samplers))

and names it, in a legend, a table's index or a tick label, with
:func:`sampler_label` (:data:`SAMPLER_LABELS`): ``"Gibbs"`` for prunelab's own in
the chapters that show only prunelab, ``"prunelab Gibbs"`` beside the peers.

The plotting helpers draw on the axes they are given, or on new ones
(:func:`given_or_new_axes`), and label a number of draws :data:`T_LABEL`.
"""

from __future__ import annotations

from typing import NamedTuple

import matplotlib.pyplot as plt
from matplotlib.axes import Axes

from ..paper_numbers import PAPER_SAMPLERS
from ..registry import own_samplers

__all__ = [
    "PAPER_SAMPLERS",
    "PAPER_SAMPLER_LABELS",
    "SAMPLER_LABELS",
    "SAMPLER_STYLES",
    "T_LABEL",
    "SamplerStyle",
    "given_or_new_axes",
    "sampler_label",
    "sampler_palette",
    "sampler_style",
]


class SamplerStyle(NamedTuple):
    """A sampler's colour (any matplotlib colour) and marker (a matplotlib marker code)."""

    color: str
    marker: str


_PAPER_SAMPLER_STYLES = {
    "gibbs": SamplerStyle("#1b9e77", "o"),
    "metropolis": SamplerStyle("#7570b3", "^"),
    "prune": SamplerStyle("#d95f02", "*"),
}

_OWN_STYLES = {  # registered sampler: (its style, with its Rao-Blackwell estimate a darker shade, or None)
    **{sampler: (style, None) for sampler, style in _PAPER_SAMPLER_STYLES.items()},
    "gibbs": (_PAPER_SAMPLER_STYLES["gibbs"], SamplerStyle("#0b5c45", "8")),
    "prune": (_PAPER_SAMPLER_STYLES["prune"], SamplerStyle("#8c3a00", "d")),
    "prune-tempered": (SamplerStyle("#f4a261", "p"), SamplerStyle("#b5651d", "H")),
    "prune+gibbs": (SamplerStyle("#fdbf6f", "1"), None),
    "mc-sat": (SamplerStyle("#a6cee3", "x"), SamplerStyle("#1f5f7a", "+")),
}

_OWN_LABELS = {"gibbs": "Gibbs", "metropolis": "Metropolis", "prune": "prune", "prune-tempered": "tempered prune",
               "prune+gibbs": "prune with Gibbs", "mc-sat": "MC-SAT"}
"""A registered sampler's name in a legend beside the peers (after ``"prunelab "``)."""

_OWN = [own for own in own_samplers() if own.sampler in _OWN_STYLES]  # a sampler registered by a user has no style

_PEER_STYLES = {
    "pgmpy-gibbs": SamplerStyle("#e7298a", "s"),
    "pyagrum-gibbs": SamplerStyle("#66a61e", "D"),
    "pyagrum-lbp": SamplerStyle("#1f78b4", "P"),
    "pyagrum-importance": SamplerStyle("#b15928", "X"),
    "pyagrum-weighted": SamplerStyle("#6a3d9a", "h"),
    "pymc-cgm-uniform": SamplerStyle("#e6ab02", "v"),
    "pymc-cgm-proportional": SamplerStyle("#a6761d", "<"),
    "pymc-metropolis": SamplerStyle("#666666", ">"),
}

SAMPLER_STYLES: dict[str, SamplerStyle] = {
    **_PAPER_SAMPLER_STYLES,
    **{own.name: _OWN_STYLES[own.sampler][own.rao_blackwell] for own in _OWN},
    **_PEER_STYLES,
}
"""Sampler name -> :class:`SamplerStyle`, the same in every figure (see the module docstring)."""

PAPER_SAMPLER_LABELS = {"gibbs": "Gibbs", "metropolis": "Metropolis", "prune": "Prune"}
"""Display names of prunelab's samplers."""

SAMPLER_LABELS: dict[str, str] = {
    **PAPER_SAMPLER_LABELS,
    **{own.name: f"prunelab {_OWN_LABELS[own.sampler]}{' (Rao–Blackwell)' * own.rao_blackwell}" for own in _OWN},
    "pgmpy-gibbs": "pgmpy Gibbs",
    "pyagrum-gibbs": "pyAgrum Gibbs",
    "pyagrum-lbp": "pyAgrum loopy BP",
    "pyagrum-importance": "pyAgrum importance sampling",
    "pyagrum-weighted": "pyAgrum likelihood weighting",
    "pymc-cgm-uniform": "PyMC CGM uniform",
    "pymc-cgm-proportional": "PyMC CGM proportional",
    "pymc-metropolis": "PyMC Metropolis",
}
"""Sampler name -> display name, for every key of :data:`SAMPLER_STYLES`.

prunelab's samplers are named by :data:`PAPER_SAMPLER_LABELS` where only they appear, and
``"prunelab ..."`` under their :data:`prunelab.lab.peers.PEER_SAMPLERS` names, beside
the peers; a peer's name says its library.
"""


def sampler_style(sampler: str) -> SamplerStyle:
    """The :class:`SamplerStyle` of ``sampler`` (a key of :data:`SAMPLER_STYLES`).

    Raises
    ------
    ValueError
        For a name without a style (the message lists the known ones), rather than
        a colour picked silently from matplotlib's cycle.

    Examples
    --------
    >>> sampler_style("prune") == sampler_style("prunelab-prune")
    True
    >>> sampler_style("pgmpy-gibbs").marker
    's'
    """
    try:
        return SAMPLER_STYLES[sampler]
    except KeyError:
        raise ValueError(f"no style for sampler {sampler!r}; known: {list(SAMPLER_STYLES)}") from None


def sampler_label(sampler: str) -> str:
    """The display name of ``sampler`` (a key of :data:`SAMPLER_LABELS`).

    Raises
    ------
    ValueError
        For a name without a label (the message lists the known ones), rather than
        the raw name shown silently.

    Examples
    --------
    >>> sampler_label("pyagrum-gibbs")
    'pyAgrum Gibbs'
    >>> sampler_label("prunelab-prune"), sampler_label("prune")
    ('prunelab prune', 'Prune')
    """
    try:
        return SAMPLER_LABELS[sampler]
    except KeyError:
        raise ValueError(f"no label for sampler {sampler!r}; known: {list(SAMPLER_LABELS)}") from None


def sampler_palette(samplers) -> dict[str, str]:
    """Seaborn's ``palette`` for ``hue="sampler"``: sampler name -> its colour in :data:`SAMPLER_STYLES`.

    Raises
    ------
    ValueError
        For a sampler without a style, as :func:`sampler_style` does.

    Examples
    --------
    >>> sampler_palette(["gibbs", "prune"])
    {'gibbs': '#1b9e77', 'prune': '#d95f02'}
    """
    return {sampler: sampler_style(sampler).color for sampler in samplers}


T_LABEL = "number of samples $t$"
"""The x label of every figure against the number of draws ``t``."""


def given_or_new_axes(ax: Axes | None, figsize=(5.0, 3.5)) -> Axes:
    """``ax``, or the axes of a new figure of ``figsize`` inches (constrained layout) when it is None.

    Examples
    --------
    >>> ax = given_or_new_axes(None)
    >>> given_or_new_axes(ax) is ax
    True
    >>> plt.close(ax.figure)
    """
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax
