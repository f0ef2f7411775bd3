"""Figures and tables of the experiment chapters: the paper's Figures 3-6 and Tables 1-2.

Thin matplotlib (and pandas Styler) helpers on top of the arrays and tidy tables of
:mod:`prunelab.indicators`, :mod:`prunelab.ahd` and :mod:`prunelab.experiments`. They
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
:func:`plot_run_estimates`      Figure 6(a): the runs' running estimates
:func:`plot_sigma`              Figure 6(b): sigma_t against t
:func:`plot_log_sigma`          Figure 6(c): log sigma_t against log t
:func:`plot_g_linear`           Figure 6(d): g(t) = sigma_t sqrt(t) against t^-delta
:func:`alpha_procedure_figure`  Figure 6(a)-(d) in one figure
:func:`plot_final_estimates`    each run's final estimate, per sampler (non-ergodicity)
:func:`plot_alpha_by_query`     alpha of every candidate query variable, per sampler
:func:`style_paper_table`       Table 1 or 2, ours beside the paper's, marked and bolded
==============================  ===========================================================

Samplers always have the same colour (:data:`prunelab.plots.style.SAMPLER_STYLES`)
and name (:data:`~prunelab.plots.style.METHOD_LABELS`) in every figure of the book.
The AHD(t) tables these figures draw are :func:`prunelab.ahd.ahd_table`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..ahd import ahd_table
from .style import METHOD_LABELS, METHODS, sampler_style

__all__ = [
    "ahd_figure",
    "alpha_procedure_figure",
    "plot_ahd",
    "plot_alpha_by_query",
    "plot_final_estimates",
    "plot_g_linear",
    "plot_log_sigma",
    "plot_run_estimates",
    "plot_running_estimates",
    "plot_sigma",
    "running_estimate_figure",
    "style_paper_table",
    "trace_figure",
]

_AHD_XLABEL = "number of samples $t$"


def _axes(ax: Axes | None, figsize=(5.0, 3.5)) -> Axes:
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _label(method: str) -> str:
    return METHOD_LABELS.get(method, method)


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
    ax = _axes(ax)
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
    ax.set_xlabel(_AHD_XLABEL)
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
    methods: Sequence[str] = METHODS,
    band: bool = True,
    title: str | None = None,
    ylim: tuple[float, float] | None = None,
) -> Axes:
    """AHD(t) of each sampler on one benchmark, log-log (one panel of Figure 5).

    Parameters
    ----------
    curves : DataFrame
        ``curves.parquet`` (see :func:`prunelab.ahd.ahd_table`), or the output of
        :func:`prunelab.ahd.ahd_table` itself (recognised by its ``ahd`` column).
    benchmark : str
        Benchmark id, e.g. ``"asia_ev0"``.
    column : str, default "hellinger_query"
    ax : matplotlib Axes, optional
    methods : sequence of str
        Samplers to draw, in this order; samplers absent from the data are skipped.
    band : bool, default True
        Shade the 10-90 % quantiles over runs.
    title : str, optional
        Default: the benchmark id.
    ylim : (float, float), optional

    Returns
    -------
    matplotlib.axes.Axes
        Log-log axes, one line per sampler present (labelled by
        :data:`METHOD_LABELS`). A distance of exactly 0 cannot be shown on a log
        axis and is left out of the line; if every distance is 0 (a marginal fixed
        by the evidence) the panel says so.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), Figure "results1".

    Examples
    --------
    >>> t = np.array([1, 10, 100])
    >>> curves = pd.DataFrame({"benchmark": "b", "method": np.repeat(["gibbs", "prune"], 3),
    ...                        "init": "forward", "run": 0, "t": np.tile(t, 2),
    ...                        "hellinger_query": np.tile(0.3 / np.sqrt(t), 2)})
    >>> ax = plot_ahd(curves, "b")
    >>> [line.get_label() for line in ax.get_lines()], ax.get_xscale(), ax.get_yscale()
    (['Gibbs', 'Prune'], 'log', 'log')
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    table = curves if "ahd" in curves else ahd_table(curves, column)
    table = table[table["benchmark"] == benchmark]
    drawn = 0
    for method in methods:
        rows = table[table["method"] == method].sort_values("t")
        if rows.empty:
            continue
        drawn += int((rows["ahd"] > 0).any())
        y = rows["ahd"].to_numpy(float)
        y = np.where(y > 0, y, np.nan)
        ax.plot(rows["t"], y, color=sampler_style(method).color, label=_label(method), linewidth=1.6)
        if band:
            low = np.where(rows["low"] > 0, rows["low"], np.nan)
            high = np.where(rows["high"] > 0, rows["high"], np.nan)
            ax.fill_between(rows["t"], low, high, color=sampler_style(method).color, alpha=0.15, linewidth=0)
    if len(table) and not drawn:
        ax.text(0.5, 0.5, "distance 0 at every $t$\n(the marginal is fixed)", transform=ax.transAxes,
                ha="center", va="center", color="0.4")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_xlabel(_AHD_XLABEL)
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
        ``curves.parquet`` (see :func:`prunelab.ahd.ahd_table`).
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
    >>> curves = pd.DataFrame({"benchmark": "b", "method": "prune", "init": "forward",
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
            plot_ahd(table, benchmark, column, ax=ax, band=band, title=title, ylim=ylim)
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
    handles = [plt.Line2D([], [], color=sampler_style(m).color, linewidth=1.6, label=_label(m)) for m in METHODS
               if m in set(table["method"])]
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), frameon=False)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


# ----------------------------------------------------------------------------- Figure 6
def plot_run_estimates(
    t,
    estimates,
    exact: float | None = None,
    ax: Axes | None = None,
    color=None,
    ylabel: str = "running estimate",
) -> Axes:
    """Figure 6(a): the running estimate of every run against ``t`` (log ``t``).

    Parameters
    ----------
    t : array_like of int
        Checkpoints, shape ``(n_checkpoints,)``.
    estimates : array_like
        Running estimates of one probability, shape ``(runs, n_checkpoints)``.
    exact : float, optional
        Drawn as a black dotted line.
    ax : matplotlib Axes, optional
    color : optional
        Colour of the runs (default: grey).
    ylabel : str

    Returns
    -------
    matplotlib.axes.Axes
        One thin line per run, the mean over runs (labelled "mean of runs") and
        the exact value; log x axis.

    Examples
    --------
    >>> ax = plot_run_estimates([1, 10, 100], [[1.0, 0.8, 0.79], [0.0, 0.7, 0.82]], exact=0.81)
    >>> len(ax.get_lines()), ax.get_xscale()
    (4, 'log')
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    t = np.asarray(t)
    estimates = np.asarray(estimates, dtype=float)
    color = color if color is not None else "0.45"
    alpha = float(np.clip(8.0 / max(len(estimates), 1), 0.08, 0.8))
    for run in estimates:
        ax.plot(t, run, color=color, linewidth=0.6, alpha=alpha)
    ax.plot(t, estimates.mean(axis=0), color="black", linewidth=1.6, label="mean of runs")
    if exact is not None:
        ax.axhline(exact, color="crimson", linestyle=":", linewidth=1.5, label="exact")
    ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(_AHD_XLABEL)
    ax.set_ylabel(ylabel)
    return ax


def plot_sigma(t, sigma, fit=None, ax: Axes | None = None, color=None) -> Axes:
    """Figure 6(b): sigma_t against ``t`` on linear axes, with ``alpha / sqrt(t)``.

    Parameters
    ----------
    t, sigma : array_like
        Checkpoints and :func:`prunelab.indicators.sigma_t` at them.
    fit : AlphaFit, optional
        From :func:`prunelab.indicators.fit_alpha`; draws the asymptote
        ``alpha / sqrt(t)`` for ``t >= fit.t_min``.
    ax : matplotlib Axes, optional
    color : optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from prunelab.indicators import fit_alpha
    >>> t = np.geomspace(1, 1000, 20)
    >>> sigma = 0.4 / np.sqrt(t)
    >>> ax = plot_sigma(t, sigma, fit=fit_alpha(t, sigma, delta=0.9))
    >>> ax.get_xscale(), len(ax.get_lines()), ax.get_lines()[1].get_label().endswith("= 0.400")
    ('linear', 2, True)
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    t = np.asarray(t, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    ax.plot(t, sigma, "o-", color=color or "0.2", markersize=3, linewidth=1.0, label=r"$\sigma_t$")
    if fit is not None:
        tt = np.geomspace(max(fit.t_min, t.min()), t.max(), 200)
        ax.plot(tt, fit.alpha / np.sqrt(tt), color="crimson", linewidth=1.4,
                label=rf"$\alpha/\sqrt{{t}}$, $\alpha$ = {fit.alpha:.3f}")
    ax.set_xlabel(_AHD_XLABEL)
    ax.set_ylabel(r"$\sigma_t$")
    finite = sigma[np.isfinite(sigma)]
    ax.set_ylim(0, 1.15 * float(finite.max()) if finite.size and finite.max() > 0 else None)
    return ax


def plot_log_sigma(t, sigma, t_min: float = 10, fit=None, ax: Axes | None = None, color=None) -> Axes:
    """Figure 6(c): log sigma_t against log t, with the slope -1/2 and the ignored range.

    Parameters
    ----------
    t, sigma : array_like
        Checkpoints and sigma_t (zeros are left out: no logarithm).
    t_min : float, default 10
        The fit ignores ``t < t_min``; that range is shaded.
    fit : AlphaFit, optional
        Draws ``alpha t^{-1/2}``, the line of slope -1/2 the fit converges to.
    ax : matplotlib Axes, optional
    color : optional

    Returns
    -------
    matplotlib.axes.Axes
        Log-log axes.

    Examples
    --------
    >>> t = np.geomspace(1, 1000, 20)
    >>> ax = plot_log_sigma(t, 0.4 / np.sqrt(t))
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    t = np.asarray(t, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    shown = np.where(sigma > 0, sigma, np.nan)
    ax.plot(t, shown, "o-", color=color or "0.2", markersize=3, linewidth=1.0, label=r"$\sigma_t$")
    if fit is not None:
        ax.plot(t, fit.alpha / np.sqrt(t), color="crimson", linewidth=1.2, linestyle="--",
                label=r"slope $-1/2$: $\alpha t^{-1/2}$")
    ax.axvspan(t.min(), t_min, color="0.9", zorder=0, label=f"$t < {t_min:g}$: ignored")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$t$ (log scale)")
    ax.set_ylabel(r"$\sigma_t$ (log scale)")
    return ax


def plot_g_linear(t, sigma, fit, fit_free=None, ax: Axes | None = None, color=None) -> Axes:
    """Figure 6(d): ``g(t) = sigma_t sqrt(t)`` against ``t^-delta``; alpha is the intercept.

    Parameters
    ----------
    t, sigma : array_like
        Checkpoints and sigma_t.
    fit : AlphaFit
        The fixed-delta fit (:func:`prunelab.indicators.fit_alpha` with ``delta``):
        the x axis is ``t^-fit.delta`` and the fitted line
        ``alpha (1 + beta t^-delta)`` is straight; its value at ``x = 0``
        (``t = infinity``) is alpha, marked.
    fit_free : AlphaFit, optional
        The free-delta fit, drawn as a dashed curve on the same axis (straight only
        if its delta equals ``fit.delta``), with its own intercept.
    ax : matplotlib Axes, optional
    color : optional
        Colour of the data points.

    Returns
    -------
    matplotlib.axes.Axes
        Points with ``t >= fit.t_min`` (used by the fit) filled; the view is their
        range, as in the paper's panel (d), and earlier points (hollow) fall to the
        right of it.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Rate of convergence":
    :math:`g(t) = \\sigma_t\\sqrt{t} = \\alpha(1 + \\beta t^{-\\delta})`, delta = 0.90.

    Examples
    --------
    >>> from prunelab.indicators import fit_alpha
    >>> t = np.geomspace(1, 1000, 20)
    >>> sigma = 0.4 * (1 + t**-0.9) / np.sqrt(t)
    >>> ax = plot_g_linear(t, sigma, fit_alpha(t, sigma, delta=0.9))
    >>> ax.get_xlabel().endswith("= 0.9"), ax.get_lines()[-1].get_ydata().round(3).tolist()
    (True, [0.4])
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax)
    t = np.asarray(t, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    g = sigma * np.sqrt(t)
    x = t ** -fit.delta
    used = t >= fit.t_min
    c = color or "0.2"
    ax.plot(x[used], g[used], "o", color=c, markersize=4, label=rf"$g(t)$, $t \geq {fit.t_min:g}$ (fitted)")
    if (~used).any():
        ax.plot(x[~used], g[~used], "o", markerfacecolor="none", color=c, markersize=4,
                label=rf"$g(t)$, $t < {fit.t_min:g}$ (ignored)")
    xx = np.linspace(0, x[used].max() if used.any() else x.max(), 100)
    ax.plot(xx, fit.alpha * (1 + fit.beta * xx), color="crimson", linewidth=1.4,
            label=rf"$\alpha(1+\beta t^{{-{fit.delta:g}}})$: $\alpha$ = {fit.alpha:.3f}")
    ax.plot([0], [fit.alpha], "D", color="crimson", markersize=7, clip_on=False)
    if fit_free is not None:
        tt = np.geomspace(t[used].min() if used.any() else t.min(), t.max() * 1e6, 300)
        ax.plot(tt ** -fit.delta, fit_free.alpha * (1 + fit_free.beta * tt ** -fit_free.delta),
                color="tab:blue", linestyle="--", linewidth=1.3,
                label=rf"free $\delta$ = {fit_free.delta:.2f}: $\alpha$ = {fit_free.alpha:.3f}")
        ax.plot([0], [fit_free.alpha], "s", color="tab:blue", markersize=6, clip_on=False)
    # the view is the fitted range (the paper's panel d ignores t < t_min); earlier points lie to the right
    x_max = float(x[used].max()) if used.any() else float(x.max())
    ax.set_xlim(-0.04 * x_max, 1.08 * x_max)
    shown = list(g[used]) + [fit.alpha] + ([fit_free.alpha] if fit_free is not None else [])
    low, high = min(min(shown), 0.0), max(shown)
    ax.set_ylim(low - 0.05 * (high - low), high + 0.08 * (high - low))
    ax.set_xlabel(rf"$t^{{-\delta}}$, $\delta$ = {fit.delta:g}")
    ax.set_ylabel(r"$g(t) = \sigma_t\sqrt{t}$")
    return ax


def alpha_procedure_figure(
    t,
    estimates,
    sigma,
    fit,
    fit_free=None,
    exact: float | None = None,
    ylabel: str = "running estimate",
    figsize=(8.5, 7.0),
) -> Figure:
    """The paper's Figure 6 (a)-(d): from runs to alpha, in one 2 x 2 figure.

    Parameters
    ----------
    t : array_like
        Checkpoints.
    estimates : array_like
        ``(runs, n_checkpoints)`` running estimates of the tracked probability.
    sigma : array_like
        sigma_t of those estimates (:func:`prunelab.indicators.sigma_t`).
    fit, fit_free : AlphaFit
        Fixed-delta and (optional) free-delta fits.
    exact : float, optional
    ylabel : str
        Label of panel (a).
    figsize : (float, float)

    Returns
    -------
    matplotlib.figure.Figure
        Four axes: (a) :func:`plot_run_estimates`, (b) :func:`plot_sigma`,
        (c) :func:`plot_log_sigma`, (d) :func:`plot_g_linear`, each with a legend.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), Figure "determine-c".

    Examples
    --------
    >>> from prunelab.indicators import fit_alpha
    >>> rng = np.random.default_rng(0)
    >>> t = np.array([1, 3, 10, 30, 100, 300, 1000])
    >>> y = np.cumsum(rng.random((50, 1000)) < 0.8, axis=1)[:, t - 1] / t
    >>> fit = fit_alpha(t, y.std(axis=0), delta=0.9)
    >>> fig = alpha_procedure_figure(t, y, y.std(axis=0), fit, exact=0.8)
    >>> [ax.get_title()[:3] for ax in fig.axes]
    ['(a)', '(b)', '(c)', '(d)']
    >>> plt.close(fig)
    """
    fig, axes = plt.subplots(2, 2, figsize=figsize, layout="constrained")
    (a, b), (c, d) = axes
    plot_run_estimates(t, estimates, exact=exact, ax=a, ylabel=ylabel)
    a.set_title(f"(a) {len(np.asarray(estimates))} runs")
    plot_sigma(t, sigma, fit=fit, ax=b)
    b.set_title(r"(b) $\sigma_t$ against $t$")
    plot_log_sigma(t, sigma, t_min=fit.t_min, fit=fit, ax=c)
    c.set_title(r"(c) $\log\sigma_t$ against $\log t$")
    plot_g_linear(t, sigma, fit, fit_free=fit_free, ax=d)
    d.set_title(r"(d) $g(t)$ against $t^{-\delta}$: $\alpha$ is the intercept")
    for ax in (a, b, c, d):
        ax.legend(fontsize="small", loc="best")
    return fig


# ----------------------------------------------------------------------------- runs
def plot_final_estimates(
    finals: pd.DataFrame,
    exact: float,
    levels: Mapping[str, float] | None = None,
    ax: Axes | None = None,
    methods: Sequence[str] = METHODS,
    value: str = "estimate_final",
    xlabel: str = "final estimate of each run",
    seed: int = 0,
) -> Axes:
    """Each run's final estimate, one row of points per sampler.

    A sampler that mixes puts its runs in a narrow cloud around the exact value; a
    reducible one (a chain that cannot leave the part of the state space it starts
    in) puts them in clusters, one per part, at the value the part implies.

    Parameters
    ----------
    finals : DataFrame
        One row per run with ``method`` and ``value`` (``runs.parquet`` of one
        benchmark).
    exact : float
        The exact probability (a black line).
    levels : mapping of str to float, optional
        Named reference values (e.g. the probability within each communicating
        class), drawn as dashed vertical lines, labelled above the axes (leave
        room with ``ax.set_title(..., pad=16)``).
    ax : matplotlib Axes, optional
    methods : sequence of str
        Rows, top to bottom; absent samplers are skipped.
    value, xlabel : str
    seed : int
        Seed of the vertical jitter (a picture detail, not a result).

    Returns
    -------
    matplotlib.axes.Axes
        One scatter collection per sampler present.

    Examples
    --------
    >>> finals = pd.DataFrame({"method": ["gibbs"] * 3 + ["prune"] * 3,
    ...                        "estimate_final": [0.0, 1.0, 1.0, 0.49, 0.5, 0.52]})
    >>> ax = plot_final_estimates(finals, exact=0.5)
    >>> len(ax.collections), [t.get_text() for t in ax.get_yticklabels()]
    (2, ['Gibbs', 'Prune'])
    >>> plt.close(ax.figure)
    """
    ax = _axes(ax, figsize=(7.0, 0.9 + 0.7 * len(methods)))
    rng = np.random.default_rng(seed)
    present = [m for m in methods if (finals["method"] == m).any()]
    for row, method in enumerate(present):
        x = finals.loc[finals["method"] == method, value].to_numpy(float)
        y = row + rng.uniform(-0.22, 0.22, size=x.size)
        ax.scatter(x, y, s=14, color=sampler_style(method).color, alpha=0.6, edgecolor="none", label=_label(method))
    exact_line = ax.axvline(exact, color="black", linewidth=1.2, label="exact")
    top = ax.get_xaxis_transform()  # x in data, y in axes fraction
    for name, level in (levels or {}).items():
        ax.axvline(level, color="0.35", linestyle="--", linewidth=1.0, label=name)
        ax.text(level, 1.01, name, transform=top, ha="center", va="bottom", fontsize="small", color="0.3")
    ax.legend(handles=[exact_line], loc="best", fontsize="small")
    ax.set_yticks(range(len(present)), [_label(m) for m in present])
    ax.set_ylim(-0.5, len(present) - 0.5)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    return ax


def plot_alpha_by_query(
    alphas: pd.DataFrame,
    highlight: Mapping[str, str] | None = None,
    paper: Mapping[str, float] | None = None,
    ax: Axes | None = None,
    group: str = "group",
    value: str = "alpha",
    seed: int = 0,
) -> Axes:
    """Alpha of every candidate query variable, one column of points per group.

    Parameters
    ----------
    alphas : DataFrame
        One row per (group, variable) with columns ``group``, ``variable`` and
        ``value``; a group is e.g. ``"alarm, Gibbs"``. Optional column ``method``
        colours the points by sampler.
    highlight : mapping of str to str, optional
        Group -> the variable to mark (our default query), drawn as a red diamond.
    paper : mapping of str to float, optional
        Group -> the paper's printed alpha, drawn as a black bar.
    ax : matplotlib Axes, optional
    group, value : str
        Column names.
    seed : int
        Seed of the horizontal jitter.

    Returns
    -------
    matplotlib.axes.Axes
        Log y axis; one scatter collection per group (plus one per highlight).

    Examples
    --------
    >>> alphas = pd.DataFrame({"group": ["g"] * 3, "variable": ["a", "b", "c"],
    ...                        "alpha": [0.4, 1.0, 3.0]})
    >>> ax = plot_alpha_by_query(alphas, highlight={"g": "b"}, paper={"g": 0.45})
    >>> ax.get_yscale(), [t.get_text() for t in ax.get_xticklabels()]
    ('log', ['g'])
    >>> plt.close(ax.figure)
    """
    groups = list(dict.fromkeys(alphas[group]))
    ax = _axes(ax, figsize=(min(8.5, 1.0 + 1.6 * len(groups)), 3.8))
    rng = np.random.default_rng(seed)
    highlight = highlight or {}
    paper = paper or {}
    for k, name in enumerate(groups):
        rows = alphas[alphas[group] == name]
        color = sampler_style(rows["method"].iloc[0]).color if "method" in rows else "0.3"
        x = k + rng.uniform(-0.18, 0.18, size=len(rows))
        ax.scatter(x, rows[value], s=16, color=color, alpha=0.65, edgecolor="none",
                   label="every free variable" if k == 0 else None)
        if name in highlight:
            hit = rows[rows["variable"] == highlight[name]]
            if len(hit):
                ax.scatter([k], hit[value], marker="D", s=46, color="crimson", zorder=3,
                           label="our query variable" if k == 0 else None)
        if name in paper:
            ax.hlines(paper[name], k - 0.3, k + 0.3, color="black", linewidth=2.2,
                      label="paper's alpha" if k == 0 else None)
    ax.set_yscale("log")
    ax.set_xticks(range(len(groups)), groups)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylabel(r"$\alpha$ (log scale)")
    ax.legend(fontsize="small", loc="best")
    return ax


# ----------------------------------------------------------------------------- Tables 1-2
def _marks(flags: pd.Series, flag_mark: str) -> list[str]:
    """Per row the mark to append: ``flag_mark`` for True, the string itself for a str, else ""."""
    out = []
    for f in flags:
        if isinstance(f, str):
            out.append(f)
        elif f is True or (isinstance(f, (bool, np.bool_)) and bool(f)):
            out.append(flag_mark)
        else:
            out.append("")
    return out


def style_paper_table(
    table: pd.DataFrame,
    intervals: pd.DataFrame | None = None,
    flags: pd.DataFrame | None = None,
    digits: int = 2,
    best: str | None = "min",
    flag_mark: str = "†",
    caption: str | None = None,
):
    """Table 1 or 2, ours beside the paper's, for display: intervals, marks, bold best.

    Parameters
    ----------
    table : DataFrame
        From :func:`prunelab.experiments.paper_table`: index the benchmarks,
        columns ``(method, "ours" | "paper")``.
    intervals : DataFrame, optional
        Columns ``(method, "low" | "high")`` on the same index: shown after our value
        as ``[low, high]`` (e.g. the bootstrap interval of alpha).
    flags : DataFrame of bool or str, optional
        Columns ``method`` on the same index: True (or a non-empty mark such as
        ``"‡"``) where our number is not what the paper's measures (a non-ergodic
        sampler: alpha is then no convergence rate). Our value gets the mark
        (``flag_mark`` for True) and is greyed out.
    digits : int, default 2
        Significant decimals of the values.
    best : {"min", None}, default "min"
        Bold the smallest value per row, separately for ours (among unflagged
        values) and for the paper's, as the paper bolds its best sampler.
    flag_mark : str, default "†"
    caption : str, optional

    Returns
    -------
    pandas.io.formats.style.Styler
        Cells are strings ("-" for a missing value); ``.data`` holds them.

    Examples
    --------
    >>> cols = pd.MultiIndex.from_product([["gibbs", "prune"], ["ours", "paper"]])
    >>> table = pd.DataFrame([[0.5, 0.52, 0.8, 0.81]], index=["Asia_ev0"], columns=cols)
    >>> flags = pd.DataFrame({"gibbs": [True], "prune": [False]}, index=["Asia_ev0"])
    >>> styler = style_paper_table(table, flags=flags)
    >>> styler.data.loc["Asia_ev0"].tolist()
    ['0.50 †', '0.52', '0.80', '0.81']
    >>> "font-weight: bold" in styler.to_html()
    True
    >>> marks = pd.DataFrame({"gibbs": ["‡"], "prune": [""]}, index=["Asia_ev0"])
    >>> style_paper_table(table, flags=marks).data.loc["Asia_ev0", ("gibbs", "ours")]
    '0.50 ‡'
    """
    methods = list(dict.fromkeys(table.columns.get_level_values(0)))
    fmt = f"{{:.{digits}f}}"

    def number(v):
        return "-" if not np.isfinite(v) else fmt.format(v)

    shown = pd.DataFrame(index=table.index, columns=table.columns, dtype=object)
    css = pd.DataFrame("", index=table.index, columns=table.columns)
    for method in methods:
        for source in table[method].columns:
            values = table[(method, source)].to_numpy(float)
            cells = [number(v) for v in values]
            if source == "ours":
                if intervals is not None and (method, "low") in intervals:
                    low = intervals[(method, "low")].reindex(table.index).to_numpy(float)
                    high = intervals[(method, "high")].reindex(table.index).to_numpy(float)
                    cells = [
                        c if not (np.isfinite(lo) and np.isfinite(hi)) else f"{c} [{number(lo)}, {number(hi)}]"
                        for c, lo, hi in zip(cells, low, high)
                    ]
                if flags is not None and method in flags:
                    marks = _marks(flags[method].reindex(table.index), flag_mark)
                    cells = [f"{c} {m}" if m else c for c, m in zip(cells, marks)]
                    css[(method, source)] = ["color: #888888; font-style: italic" if m else "" for m in marks]
            shown[(method, source)] = cells
    if best == "min":
        for source in ("ours", "paper"):
            cols = [(m, source) for m in methods if (m, source) in table]
            values = table[cols].to_numpy(float).copy()
            if source == "ours" and flags is not None:
                for j, (m, _) in enumerate(cols):
                    if m in flags:
                        values[np.array([bool(k) for k in _marks(flags[m].reindex(table.index), flag_mark)]), j] = np.nan
            for i in range(len(table)):
                row = values[i]
                if np.isfinite(row).any():
                    j = int(np.nanargmin(row))
                    k = table.columns.get_loc(cols[j])
                    css.iloc[i, k] = "; ".join(filter(None, [css.iloc[i, k], "font-weight: bold"]))
    elif best is not None:
        raise ValueError(f"best must be 'min' or None, got {best!r}")
    styler = shown.style.apply(lambda _: css, axis=None)
    if caption:
        styler = styler.set_caption(caption)
    return styler
