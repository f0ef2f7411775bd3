"""The paper's Figure 6, from runs to alpha, and alpha of every candidate query variable.

==============================  ===========================================================
helper                          draws
==============================  ===========================================================
:func:`plot_run_estimates`      Figure 6(a): the runs' running estimates
:func:`plot_sigma`              Figure 6(b): sigma_t against t
:func:`plot_log_sigma`          Figure 6(c): log sigma_t against log t
:func:`plot_g_linear`           Figure 6(d): g(t) = sigma_t sqrt(t) against t^-delta
:func:`alpha_procedure_figure`  Figure 6(a)-(d) in one figure
:func:`plot_alpha_by_query`     alpha of every candidate query variable, per sampler
==============================  ===========================================================

sigma_t and the fits are :mod:`prunelab.indicators`'s; the helpers only draw them.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import T_LABEL, given_or_new_axes, sampler_style

__all__ = [
    "alpha_procedure_figure",
    "plot_alpha_by_query",
    "plot_g_linear",
    "plot_log_sigma",
    "plot_run_estimates",
    "plot_sigma",
]


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
    ax = given_or_new_axes(ax)
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
    ax.set_xlabel(T_LABEL)
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
    ax = given_or_new_axes(ax)
    t = np.asarray(t, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    ax.plot(t, sigma, "o-", color=color or "0.2", markersize=3, linewidth=1.0, label=r"$\sigma_t$")
    if fit is not None:
        tt = np.geomspace(max(fit.t_min, t.min()), t.max(), 200)
        ax.plot(tt, fit.alpha / np.sqrt(tt), color="crimson", linewidth=1.4,
                label=rf"$\alpha/\sqrt{{t}}$, $\alpha$ = {fit.alpha:.3f}")
    ax.set_xlabel(T_LABEL)
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
    ax = given_or_new_axes(ax)
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
        The points with ``t >= fit.t_min`` (those the fit uses), over their range, as
        in the paper's panel (d); the earlier points would fall to the right of that
        range (``t**-delta`` is larger there) and are not drawn, so the legend lists
        only what is in view.

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
    ax = given_or_new_axes(ax)
    t = np.asarray(t, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    g = sigma * np.sqrt(t)
    x = t ** -fit.delta
    used = t >= fit.t_min
    c = color or "0.2"
    ax.plot(x[used], g[used], "o", color=c, markersize=4, label=rf"$g(t)$, $t \geq {fit.t_min:g}$ (fitted)")
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
        ``value``; a group is e.g. ``"alarm, Gibbs"``. Optional column ``sampler``
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
    ax = given_or_new_axes(ax, figsize=(min(8.5, 1.0 + 1.6 * len(groups)), 3.8))
    rng = np.random.default_rng(seed)
    highlight = highlight or {}
    paper = paper or {}
    for k, name in enumerate(groups):
        rows = alphas[alphas[group] == name]
        color = sampler_style(rows["sampler"].iloc[0]).color if "sampler" in rows else "0.3"
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
