"""Figures for the book, and the display of its tables (seaborn, matplotlib, pandas' Styler; nothing here computes).

Every function takes results computed elsewhere in :mod:`prunelab` (arrays, the
tidy tables of :mod:`prunelab.lab.experiments`, :mod:`prunelab.lab.ahd` and
:mod:`prunelab.theory`) and draws them: it returns a
:class:`matplotlib.figure.Figure`, or the :class:`~matplotlib.axes.Axes` it drew
on, or for a table a :class:`pandas.io.formats.style.Styler`. The only numbers a
helper works out itself are the plain means and quantiles of what it is handed
(and its axis limits).

``prunelab.lab.plots.style``
    One colour and marker per sampler in every figure (:data:`SAMPLER_STYLES`,
    :func:`sampler_style`), the samplers' display names (:data:`PAPER_SAMPLER_LABELS`,
    :data:`SAMPLER_LABELS`, :func:`sampler_label`),
    and what the helpers share (:data:`T_LABEL`, :func:`given_or_new_axes`).
``prunelab.lab.plots.networks``
    A small network drawn with its CPTs beside the nodes and pruned labels struck
    through (:func:`draw_network`); transition-matrix heatmaps
    (:func:`plot_transition_matrix`).
``prunelab.lab.plots.results``
    The experiment chapters' runs: running estimates and traces of single chains
    (the paper's Figures 3-4), AHD(t) (Figure 5), each run's final estimate; the
    scorecard's verdicts per group of items (:func:`plot_verdicts`).
``prunelab.lab.plots.alpha``
    From runs to alpha (Figure 6), and alpha of every candidate query variable.
``prunelab.lab.plots.tables``
    Tables 2-3 beside the paper's, for display (:func:`style_paper_table`).
"""

from .networks import PAPER_LAYOUTS, depth_layers, draw_network, plot_transition_matrix, state_label
from .alpha import (
    alpha_procedure_figure,
    plot_alpha_by_query,
    plot_g_linear,
    plot_log_sigma,
    plot_run_estimates,
    plot_sigma,
)
from .results import (
    ahd_figure,
    plot_ahd,
    plot_final_estimates,
    plot_running_estimates,
    plot_verdicts,
    running_estimate_figure,
    trace_figure,
)
from .style import (
    PAPER_SAMPLER_LABELS,
    PAPER_SAMPLERS,
    SAMPLER_LABELS,
    SAMPLER_STYLES,
    T_LABEL,
    SamplerStyle,
    given_or_new_axes,
    sampler_label,
    sampler_palette,
    sampler_style,
)
from .tables import style_paper_table

__all__ = [
    "PAPER_SAMPLERS",
    "PAPER_SAMPLER_LABELS",
    "PAPER_LAYOUTS",
    "SAMPLER_LABELS",
    "SAMPLER_STYLES",
    "SamplerStyle",
    "T_LABEL",
    "ahd_figure",
    "alpha_procedure_figure",
    "depth_layers",
    "draw_network",
    "given_or_new_axes",
    "plot_ahd",
    "plot_alpha_by_query",
    "plot_final_estimates",
    "plot_g_linear",
    "plot_log_sigma",
    "plot_run_estimates",
    "plot_running_estimates",
    "plot_verdicts",
    "plot_sigma",
    "plot_transition_matrix",
    "running_estimate_figure",
    "sampler_label",
    "sampler_palette",
    "sampler_style",
    "state_label",
    "style_paper_table",
    "trace_figure",
]
