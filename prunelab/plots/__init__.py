"""Figures for the book (matplotlib and seaborn only; nothing here computes).

Every function takes results computed elsewhere in :mod:`prunelab` and returns a
:class:`matplotlib.figure.Figure`.

``prunelab.plots.networks``
    A small network drawn with its CPTs beside the nodes and pruned labels struck
    through (:func:`draw_network`); transition-matrix heatmaps
    (:func:`plot_transition_matrix`).
"""

from .networks import draw_network, layered_positions, plot_transition_matrix, state_label

__all__ = ["draw_network", "layered_positions", "plot_transition_matrix", "state_label"]
