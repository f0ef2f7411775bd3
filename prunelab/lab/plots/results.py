"""Figures of the experiment chapters' runs: the paper's Figures 3-5 and each run's final estimate.

Thin seaborn and matplotlib helpers on top of the arrays and tidy tables of
:mod:`prunelab.indicators`, :mod:`prunelab.lab.ahd` and :mod:`prunelab.lab.experiments`. They
only draw; every number they show is computed by the caller (or is a plain mean or
quantile of the data handed in), so a chapter shows the computation and the helper
the picture.

==============================  ===========================================================
helper                          draws
==============================  ===========================================================
:func:`plot_running_estimates`  running estimates of chains against ``t`` (Figures 3-4)
:func:`running_estimate_figure` the same at several horizons, side by side
:func:`trace_figure`            the states a few chains visit, one row per chain
:func:`plot_ahd`                AHD(t) per sampler, log-log (one panel of Figure 5)
:func:`ahd_figure`              a grid of :func:`plot_ahd` panels (Figure 5)
:func:`plot_final_estimates`    each run's final estimate, per sampler (non-ergodicity)
:func:`plot_verdicts`           the scorecard's verdicts per group of items, stacked bars
==============================  ===========================================================

Samplers always have the same colour (:data:`prunelab.lab.plots.style.SAMPLER_STYLES`)
and name (:data:`~prunelab.lab.plots.style.PAPER_SAMPLER_LABELS`) in every figure of the book.
The AHD(t) tables these figures draw are :func:`prunelab.lab.ahd.ahd_table`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..ahd import ahd_table
from .style import PAPER_SAMPLER_LABELS, PAPER_SAMPLERS, T_LABEL, given_or_new_axes, sampler_palette, sampler_style

__all__ = [
    "ahd_figure",
    "plot_ahd",
    "plot_final_estimates",
    "plot_running_estimates",
    "plot_verdicts",
    "running_estimate_figure",
    "trace_figure",
]

def _label(sampler: str) -> str:
    return PAPER_SAMPLER_LABELS.get(sampler, sampler)


# ----------------------------------------------------------------------------- Figures 3-4
def plot_running_estimates(
    estimates: Mapping[str, np.ndarray],
    exact: float | None = None,
    t_max: int | None = None,
    ax: Axes | None = None,
    styles: Mapping[str, dict] | None = None,
    ylabel: str = "running estimate",
    exact_label: str = "exact",
) -> Axes:
    """Running estimates of single chains against the number of samples (Figures 3-4).

    Parameters
    ----------
    estimates : mapping of str to 1-D array
        Chain label -> running estimate after ``t = 1, 2, ..., T`` draws (entry
        ``t - 1`` is the estimate after ``t`` draws).
    exact : float, optional
        The exact value, drawn as a black dotted horizontal line.
    t_max : int, optional
        Show ``t <= t_max`` only (default: all draws).
    ax : matplotlib Axes, optional
    styles : mapping of str to dict, optional
        Per label, keyword arguments for :meth:`~matplotlib.axes.Axes.plot`
        (``color``, ``linestyle`` ...).
    ylabel, exact_label : str

    Returns
    -------
    matplotlib.axes.Axes
        Linear axes; one line per chain, plus the exact line.

    See Also
    --------
    running_estimate_figure : the same at several horizons.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), Figures "simple-deterministic" and
    "block-BN" (the running frequency of a state, Gibbs against prune sampling).

    Examples
    --------
    >>> t = np.arange(1, 101)
    >>> ax = plot_running_estimates({"chain": np.cumsum(t % 2) / t}, exact=0.5)
    >>> [line.get_label() for line in ax.get_lines()]
    ['chain', 'exact']
    >>> plt.close(ax.figure)
    """
    ax = given_or_new_axes(ax)
    styles = styles or {}
    for label, values in estimates.items():
        values = np.asarray(values, dtype=float)
        n = values.size if t_max is None else min(int(t_max), values.size)
        t = np.arange(1, n + 1)
        kw = {"linewidth": 1.4}
        kw.update(styles.get(label, {}))
        ax.plot(t, values[:n], label=label, **kw)
    if exact is not None:
        ax.axhline(exact, color="black", linestyle=":", linewidth=1.2, label=exact_label)
    ax.set_ylim(-0.04, 1.04)
    ax.set_xlim(1, t_max if t_max is not None else None)
    ax.set_xlabel(T_LABEL)
    ax.set_ylabel(ylabel)
    return ax


def running_estimate_figure(
    estimates: Mapping[str, np.ndarray],
    exact: float | None = None,
    windows: Sequence[int] = (250, 10_000),
    styles: Mapping[str, dict] | None = None,
    ylabel: str = "running estimate",
    suptitle: str | None = None,
    figsize=(8.5, 3.4),
) -> Figure:
    """:func:`plot_running_estimates` at several horizons, one panel each, one legend.

    Parameters
    ----------
    estimates, exact, styles, ylabel
        As for :func:`plot_running_estimates`.
    windows : sequence of int
        The horizons ``t_max`` of the panels (the paper: 250 and 10 000 draws for
        Figure 3, 50 and 10 000 for Figure 4).
    suptitle : str, optional
    figsize : (float, float)

    Returns
    -------
    matplotlib.figure.Figure
        Panels titled "(a) first 250 samples", ...; the legend sits below them.

    Examples
    --------
    >>> t = np.arange(1, 1001)
    >>> fig = running_estimate_figure({"chain": np.cumsum(t % 2) / t}, 0.5, windows=(50, 1000))
    >>> [ax.get_title() for ax in fig.axes]
    ['(a) first 50 samples', '(b) first 1,000 samples']
    >>> plt.close(fig)
    """
    fig, axes = plt.subplots(1, len(windows), figsize=figsize, sharey=True, layout="constrained")
    axes = np.atleast_1d(axes)
    for k, (ax, window) in enumerate(zip(axes, windows)):
        plot_running_estimates(estimates, exact, t_max=window, ax=ax, styles=styles, ylabel=ylabel)
        ax.set_title(f"({chr(ord('a') + k)}) first {window:,} samples")
        if k:
            ax.set_ylabel("")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), frameon=False)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def trace_figure(
    draws: Mapping[str, np.ndarray],
    state_names: Sequence[str],
    n_draws: int = 50,
    styles: Mapping[str, dict] | None = None,
    bands: Sequence[tuple[int, int]] | None = None,
    figsize=None,
) -> Figure:
    """The states visited by a few chains over their first draws, one row per chain.

    Parameters
    ----------
    draws : mapping of str to 1-D int array
        Chain label -> state index of the variable at draws ``1, 2, ...``.
    state_names : sequence of str
        Names of the states (the y tick labels).
    n_draws : int, default 50
        How many draws to show.
    styles : mapping of str to dict, optional
        Per label, keyword arguments for the step line (``color`` ...).
    bands : sequence of (int, int), optional
        Groups of states ``(low, high)`` to shade alternately (e.g. the blocks
        ``{0, 1}`` and ``{2, 3}`` of the block chain), so that a chain confined to
        one block is visible at a glance.
    figsize : (float, float), optional

    Returns
    -------
    matplotlib.figure.Figure
        One axes per chain, shared x ("draw") and y (states).

    Examples
    --------
    >>> fig = trace_figure({"a": np.array([0, 1, 0, 1]), "b": np.array([2, 3, 3, 2])},
    ...                    ["0", "1", "2", "3"], n_draws=4, bands=[(0, 1), (2, 3)])
    >>> len(fig.axes), fig.axes[-1].get_xlabel()
    (2, 'draw')
    >>> plt.close(fig)
    """
    labels = list(draws)
    figsize = figsize or (8.5, 0.9 + 0.85 * len(labels))
    fig, axes = plt.subplots(len(labels), 1, figsize=figsize, sharex=True, sharey=True, layout="constrained")
    axes = np.atleast_1d(axes)
    styles = styles or {}
    for ax, label in zip(axes, labels):
        x = np.asarray(draws[label])[:n_draws]
        kw = {"linewidth": 1.4, "where": "mid"}
        kw.update(styles.get(label, {}))
        ax.step(np.arange(1, x.size + 1), x, label=label, **kw)
        ax.plot(np.arange(1, x.size + 1), x, "o", markersize=2.5, color=kw.get("color"))
        for k, (lo, hi) in enumerate(bands or ()):
            ax.axhspan(lo - 0.45, hi + 0.45, color="0.92" if k % 2 == 0 else "0.82", zorder=0)
        ax.set_yticks(range(len(state_names)), list(state_names))
        ax.set_ylim(-0.6, len(state_names) - 0.4)
        ax.set_ylabel(label, rotation=0, ha="right", va="center")
    axes[-1].set_xlabel("draw")
    axes[-1].set_xlim(0.5, n_draws + 0.5)
    return fig


# ----------------------------------------------------------------------------- Figure 5

def plot_ahd(
    curves: pd.DataFrame,
    benchmark: str,
    column: str = "hellinger_query",
    ax: Axes | None = None,
    samplers: Sequence[str] = PAPER_SAMPLERS,
    band: bool = True,
    title: str | None = None,
    ylim: tuple[float, float] | None = None,
    init: str | None = "forward",
) -> Axes:
    """AHD(t) of each sampler on one benchmark, log-log (one panel of Figure 5), drawn by seaborn.

    :func:`seaborn.lineplot` on the long-form results: the line is the mean over runs
    of ``column`` at each ``t`` (the AHD of :func:`prunelab.lab.ahd.ahd_table`), the
    band the 10-90 % percentile interval over runs (``errorbar=("pi", 80)``).

    Parameters
    ----------
    curves : DataFrame
        ``curves.parquet``: one row per ``(benchmark, sampler, init, run, t)`` (see
        :func:`prunelab.lab.ahd.ahd_table`).
    benchmark : str
        Benchmark id, e.g. ``"asia_ev0"``.
    column : str, default "hellinger_query"
    ax : matplotlib Axes, optional
    samplers : sequence of str
        Samplers to draw, in this order; samplers absent from the data are skipped.
    band : bool, default True
        Shade the 10-90 % quantiles over runs.
    title : str, optional
        Default: the benchmark id.
    ylim : (float, float), optional
    init : str or None, default "forward"
        Keep runs with this initialisation only, as :func:`~prunelab.lab.ahd.ahd_table` does.

    Returns
    -------
    matplotlib.axes.Axes
        Log-log axes, one line per sampler present, in its colour
        (:func:`~prunelab.lab.plots.style.sampler_palette`) and labelled by
        :data:`PAPER_SAMPLER_LABELS`. A distance of exactly 0 cannot be shown on a log
        axis and is left out of the line; if every distance is 0 (a marginal fixed
        by the evidence) the panel says so.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), Figure "results1".

    Examples
    --------
    >>> t = np.array([1, 10, 100])
    >>> curves = pd.DataFrame({"benchmark": "b", "sampler": np.repeat(["gibbs", "prune"], 3),
    ...                        "init": "forward", "run": 0, "t": np.tile(t, 2),
    ...                        "hellinger_query": np.tile(0.3 / np.sqrt(t), 2)})
    >>> ax = plot_ahd(curves, "b")
    >>> [line.get_label() for line in ax.get_lines()], ax.get_xscale(), ax.get_yscale()
    (['Gibbs', 'Prune'], 'log', 'log')
    >>> plt.close(ax.figure)
    """
    ax = given_or_new_axes(ax)
    rows = curves[curves["benchmark"] == benchmark]
    if init is not None and "init" in rows:
        rows = rows[rows["init"] == init]
    present = [sampler for sampler in samplers if (rows["sampler"] == sampler).any()]
    rows = rows[rows["sampler"].isin(present)]
    band = band and bool((rows[column] > 0).any())  # no band of zeros on a log axis
    if present:  # aggregated on linear axes (seaborn would average the logs on log axes), then made log-log
        sns.lineplot(rows, x="t", y=column, hue="sampler", hue_order=present, palette=sampler_palette(present),
                     estimator="mean", errorbar=("pi", 80) if band else None, err_kws={"alpha": 0.15, "linewidth": 0},
                     linewidth=1.6, legend=False, ax=ax)
    for line, sampler in zip(ax.get_lines(), present):
        line.set_label(_label(sampler))
        y = np.asarray(line.get_ydata(), dtype=float)
        line.set_ydata(np.where(y > 0, y, np.nan))
    ax.relim()  # the limits of what is left on the line
    if len(rows) and not (rows[column] > 0).any():
        ax.text(0.5, 0.5, "distance 0 at every $t$\n(the marginal is fixed)", transform=ax.transAxes,
                ha="center", va="center", color="0.4")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel(T_LABEL)
    ax.set_ylabel("AHD")
    ax.set_title(title if title is not None else benchmark)
    ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
    return ax


def ahd_figure(
    curves: pd.DataFrame,
    benchmarks: Sequence[str],
    column: str = "hellinger_query",
    titles: Mapping[str, str] | None = None,
    ncols: int = 3,
    band: bool = True,
    suptitle: str | None = None,
    panel_size=(2.9, 2.7),
) -> Figure:
    """A grid of :func:`plot_ahd` panels with shared axes and one legend (Figure 5).

    A benchmark that has no rows in ``curves`` gets an empty panel that says so,
    instead of an error: the figure shows what is there and what is missing.

    Parameters
    ----------
    curves : DataFrame
        ``curves.parquet`` (see :func:`prunelab.lab.ahd.ahd_table`).
    benchmarks : sequence of str
        One panel each, row by row.
    column : str, default "hellinger_query"
    titles : mapping of str to str, optional
        Panel titles per benchmark (default: the ids), prefixed "(a)", "(b)", ...
    ncols : int, default 3
    band : bool, default True
    suptitle : str, optional
    panel_size : (float, float)
        Inches per panel.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> t = np.array([1, 10, 100])
    >>> curves = pd.DataFrame({"benchmark": "b", "sampler": "prune", "init": "forward",
    ...                        "run": 0, "t": t, "hellinger_query": 0.3 / np.sqrt(t)})
    >>> fig = ahd_figure(curves, ["b", "missing"], ncols=2)
    >>> [ax.get_title() for ax in fig.axes]
    ['(a) b', '(b) missing']
    >>> plt.close(fig)
    """
    titles = titles or {}
    table = ahd_table(curves, column)
    n = len(benchmarks)
    nrows = int(np.ceil(n / ncols))
    ncols_used = min(ncols, n)
    fig, axes = plt.subplots(
        nrows, ncols_used, figsize=(panel_size[0] * ncols_used, panel_size[1] * nrows + 0.6),
        sharex=True, sharey=True, layout="constrained", squeeze=False,
    )
    present = set(table["benchmark"])
    positive = table.loc[table["low"] > 0, "low"]
    lowest = float(positive.min()) if len(positive) else 1e-3
    highest = float(table["high"].max()) if len(table) else 1.0
    ylim = (max(lowest * 0.7, 1e-5), min(1.2, max(highest * 1.4, 2 * lowest)))
    for k, (ax, benchmark) in enumerate(zip(axes.flat, benchmarks)):
        title = f"({chr(ord('a') + k)}) {titles.get(benchmark, benchmark)}"
        if benchmark in present:
            plot_ahd(curves, benchmark, column, ax=ax, band=band, title=title, ylim=ylim)
        else:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(title)
            ax.text(0.5, 0.5, "not in these results", transform=ax.transAxes, ha="center", va="center",
                    color="0.4")
        if k % ncols_used:
            ax.set_ylabel("")
        if k < n - ncols_used:
            ax.set_xlabel("")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    handles = [plt.Line2D([], [], color=sampler_style(m).color, linewidth=1.6, label=_label(m)) for m in PAPER_SAMPLERS
               if m in set(table["sampler"])]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), frameon=False)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


# ----------------------------------------------------------------------------- runs
def plot_final_estimates(
    finals: pd.DataFrame,
    exact: float,
    levels: Mapping[str, float] | None = None,
    ax: Axes | None = None,
    samplers: Sequence[str] = PAPER_SAMPLERS,
    value: str = "estimate_final",
    xlabel: str = "final estimate of each run",
) -> Axes:
    """Each run's final estimate, one row per sampler: seaborn's violin (outline) and strip plots.

    A sampler that mixes puts its runs in a narrow cloud around the exact value; a
    reducible one (a chain that cannot leave the part of the state space it starts
    in) puts them in clusters, one per part, at the value the part implies. The
    violin (cut at the data, each as wide as the row) shows where the runs gather,
    the strip (no jitter: the same picture at every build) each run.

    Parameters
    ----------
    finals : DataFrame
        One row per run with ``sampler`` and ``value`` (``runs.parquet`` of one
        benchmark).
    exact : float
        The exact probability (a black line).
    levels : mapping of str to float, optional
        Named reference values (e.g. the probability within each communicating
        class), drawn as dashed vertical lines, labelled above the axes (leave
        room with ``ax.set_title(..., pad=16)``).
    ax : matplotlib Axes, optional
    samplers : sequence of str
        Rows, top to bottom; absent samplers are skipped.
    value, xlabel : str

    Returns
    -------
    matplotlib.axes.Axes
        One scatter collection (:class:`~matplotlib.collections.PathCollection`) per
        sampler present.

    Examples
    --------
    >>> finals = pd.DataFrame({"sampler": ["gibbs"] * 3 + ["prune"] * 3,
    ...                        "estimate_final": [0.0, 1.0, 1.0, 0.49, 0.5, 0.52]})
    >>> ax = plot_final_estimates(finals, exact=0.5)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['Gibbs', 'Prune']
    >>> plt.close(ax.figure)
    """
    ax = given_or_new_axes(ax, figsize=(7.0, 0.9 + 0.7 * len(samplers)))
    present = [m for m in samplers if (finals["sampler"] == m).any()]
    rows = finals[finals["sampler"].isin(present)]
    common = {"x": value, "y": "sampler", "hue": "sampler", "order": present, "hue_order": present,
              "palette": sampler_palette(present), "legend": False, "ax": ax}
    sns.violinplot(rows, cut=0, inner=None, density_norm="width", fill=False, linewidth=0.8, **common)
    sns.stripplot(rows, jitter=False, size=4, alpha=0.5, linewidth=0, **common)
    exact_line = ax.axvline(exact, color="black", linewidth=1.2, label="exact")
    top = ax.get_xaxis_transform()  # x in data, y in axes fraction
    for name, level in (levels or {}).items():
        ax.axvline(level, color="0.35", linestyle="--", linewidth=1.0, label=name)
        ax.text(level, 1.01, name, transform=top, ha="center", va="bottom", fontsize="small", color="0.3")
    ax.legend(handles=[exact_line], loc="best", fontsize="small")
    ax.set_yticks(range(len(present)), [_label(m) for m in present])
    ax.set_ylabel("")
    ax.set_xlabel(xlabel)
    return ax


# ----------------------------------------------------------------------------- the scorecard
VERDICT_COLORS = {"reproduced": "#1b9e77", "differs": "#e6ab02", "reversed": "#7570b3", "not testable": "#bbbbbb"}
"""One colour per verdict of :data:`prunelab.lab.scorecard.VERDICTS`."""


def plot_verdicts(table: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """The scorecard's verdicts as stacked horizontal bars, one bar per group of items.

    Parameters
    ----------
    table : pandas.DataFrame
        Counts, index the groups, columns the verdicts
        (:func:`prunelab.lab.headline.verdicts_by_group`).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        The first group on top; each segment labelled with its count.

    Examples
    --------
    >>> table = pd.DataFrame({"reproduced": [3, 0], "reversed": [0, 2]}, index=["theory", "Figure 5"])
    >>> ax = plot_verdicts(table)
    >>> [t.get_text() for t in ax.get_yticklabels()], [float(p.get_width()) for p in ax.patches if p.get_width()]
    (['theory', 'Figure 5'], [3.0, 2.0])
    >>> plt.close(ax.figure)
    """
    ax = given_or_new_axes(ax, figsize=(7.0, 2.4))
    y = np.arange(len(table))[::-1]
    left = np.zeros(len(table))
    for verdict in table.columns:
        counts = table[verdict].to_numpy(float)
        bars = ax.barh(y, counts, left=left, color=VERDICT_COLORS.get(verdict, "0.5"), label=verdict,
                       edgecolor="white")
        ax.bar_label(bars, labels=[f"{c:g}" if c else "" for c in counts], label_type="center", fontsize=9)
        left += counts
    ax.set_yticks(y, table.index)
    ax.set_xlabel("items of the paper")
    ax.legend(ncol=len(table.columns), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return ax
