"""Figures and tables of the experiment chapters (prunelab.lab.plots.results, .alpha and .tables).

Each test draws from small synthetic results with known content and checks what a
reader would check: one line per sampler in the sampler's colour, the paper's log
axes, the labels, the values behind the lines, the marks in the tables.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from prunelab.lab.ahd import ahd_table  # noqa: E402
from prunelab.indicators import fit_alpha, log_checkpoints, running_marginals, sigma_t  # noqa: E402
from prunelab.lab.plots import (  # noqa: E402
    PAPER_SAMPLER_LABELS,
    PAPER_SAMPLERS,
    SAMPLER_STYLES,
    ahd_figure,
    alpha_procedure_figure,
    plot_ahd,
    plot_alpha_by_query,
    plot_final_estimates,
    plot_verdicts,
    plot_g_linear,
    plot_log_sigma,
    plot_run_estimates,
    plot_running_estimates,
    plot_sigma,
    running_estimate_figure,
    style_paper_table,
    trace_figure,
)
from tests.helpers import EXACT, fake_curves



@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def line_labels(ax):
    return [line.get_label() for line in ax.get_lines()]


# ----------------------------------------------------------------------------- Figures 3-4
def test_running_estimates_one_line_per_chain_and_the_exact_value():
    t = np.arange(1, 501)
    chains = {"Gibbs from (0,0)": np.zeros(500), "Prune from (0,0)": np.cumsum(t % 2) / t}
    ax = plot_running_estimates(chains, exact=0.5, t_max=250, ylabel="running frequency of A = 1")
    assert line_labels(ax) == ["Gibbs from (0,0)", "Prune from (0,0)", "exact"]
    gibbs, prune, exact = ax.get_lines()
    assert len(gibbs.get_xdata()) == 250 and gibbs.get_xdata()[0] == 1
    np.testing.assert_allclose(prune.get_ydata(), chains["Prune from (0,0)"][:250], atol=EXACT)
    assert list(exact.get_ydata()) == [0.5, 0.5]
    assert ax.get_xscale() == ax.get_yscale() == "linear"
    assert ax.get_xlim()[1] == 250
    assert ax.get_ylabel() == "running frequency of A = 1"
    assert "samples" in ax.get_xlabel()


def test_running_estimate_figure_has_one_panel_per_horizon_and_one_legend():
    t = np.arange(1, 2001)
    chains = {"a": np.cumsum(t % 2) / t, "b": np.cumsum(t % 3 == 0) / t}
    styles = {"a": {"color": "tab:red", "linestyle": "--"}}
    fig = running_estimate_figure(chains, exact=0.5, windows=(50, 2000), styles=styles)
    assert [ax.get_xlim()[1] for ax in fig.axes] == [50, 2000]
    assert [ax.get_title() for ax in fig.axes] == ["(a) first 50 samples", "(b) first 2,000 samples"]
    assert fig.axes[0].get_lines()[0].get_color() == "tab:red"
    assert fig.axes[0].get_lines()[0].get_linestyle() == "--"
    assert len(fig.legends) == 1
    assert [text.get_text() for text in fig.legends[0].get_texts()] == ["a", "b", "exact"]


def test_trace_figure_shows_each_chain_on_its_own_row_with_state_names():
    draws = {"Gibbs": np.array([0, 1, 1, 0, 1, 0]), "Prune": np.array([0, 2, 3, 1, 2, 2])}
    fig = trace_figure(draws, ["0", "1", "2", "3"], n_draws=5, bands=[(0, 1), (2, 3)])
    assert len(fig.axes) == 2
    for ax, (label, x) in zip(fig.axes, draws.items()):
        assert ax.get_ylabel() == label
        assert [tick.get_text() for tick in ax.get_yticklabels()] == ["0", "1", "2", "3"]
        np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), x[:5])
        assert len(ax.patches) == 2  # the two shaded blocks
    assert fig.axes[-1].get_xlabel() == "draw"


# ----------------------------------------------------------------------------- Figure 5
def test_plot_ahd_one_line_per_sampler_in_its_colour_on_log_axes(rng):
    curves = fake_curves(rng)
    ax = plot_ahd(curves, "b1", "hellinger_query")
    assert line_labels(ax) == [PAPER_SAMPLER_LABELS[m] for m in PAPER_SAMPLERS]
    for line, sampler in zip(ax.get_lines(), PAPER_SAMPLERS):
        assert to_rgba(line.get_color()) == to_rgba(SAMPLER_STYLES[sampler].color)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_ylabel() == "AHD" and "samples" in ax.get_xlabel()
    assert ax.get_title() == "b1"
    assert len(ax.collections) == len(PAPER_SAMPLERS)  # the 10-90 % bands
    table = ahd_table(curves).query("benchmark == 'b1' and sampler == 'gibbs'")
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), table["ahd"].to_numpy(), rtol=1e-12)
    band = ax.collections[0].get_paths()[0].vertices  # seaborn's percentile interval is ahd_table's 10-90 % band
    for t, low, high in table[["t", "low", "high"]].itertuples(index=False):
        at_t = band[np.isclose(band[:, 0], t), 1]
        np.testing.assert_allclose([at_t.min(), at_t.max()], [low, high], rtol=1e-12)


def test_plot_ahd_skips_absent_samplers_and_masks_zeros(rng):
    curves = fake_curves(rng, samplers=("gibbs", "prune"))
    curves.loc[(curves["sampler"] == "prune") & (curves["t"] == 1), "hellinger_query"] = 0.0
    ax = plot_ahd(curves, "b1", band=False)
    assert line_labels(ax) == ["Gibbs", "Prune"]
    assert len(ax.collections) == 0
    prune = ax.get_lines()[1].get_ydata()
    assert np.isnan(prune[0]) and np.isfinite(prune[1:]).all()


def test_plot_ahd_says_so_when_every_distance_is_zero(rng):
    curves = fake_curves(rng, benchmarks=("fixed",)).assign(hellinger_query=0.0)
    ax = plot_ahd(curves, "fixed")
    assert any("distance 0" in text.get_text() for text in ax.texts)


def test_ahd_figure_one_panel_per_benchmark_missing_ones_marked(rng):
    curves = fake_curves(rng, benchmarks=("b1", "b2"))
    fig = ahd_figure(curves, ["b1", "missing", "b2"], titles={"b1": "first"}, ncols=2)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["(a) first", "(b) missing", "(c) b2"]
    assert len(visible[0].get_lines()) == len(visible[2].get_lines()) == len(PAPER_SAMPLERS)
    assert len(visible[1].get_lines()) == 0
    assert any("not in these results" in t.get_text() for t in visible[1].texts)
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in visible)
    assert visible[0].get_ylim() == visible[2].get_ylim()  # shared, comparable panels
    assert len(fig.axes) == 4 and not fig.axes[3].get_visible()  # the spare cell of the 2x2 grid
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [PAPER_SAMPLER_LABELS[m] for m in PAPER_SAMPLERS]


# ----------------------------------------------------------------------------- Figure 6
@pytest.fixture
def runs(rng):
    """50 runs of 2 000 iid draws with p = 0.8: running estimates at log checkpoints."""
    t = log_checkpoints(2000, 30)
    estimates = running_marginals((rng.random((50, 2000)) < 0.8).astype(np.int64), 2, t)[:, :, 1]
    sigma = sigma_t(estimates)
    return t, estimates, sigma, fit_alpha(t, sigma, delta=0.9), fit_alpha(t, sigma)


def test_run_estimates_one_line_per_run_plus_mean_and_exact(runs):
    t, y, *_ = runs
    ax = plot_run_estimates(t, y, exact=0.8)
    lines = ax.get_lines()
    assert len(lines) == len(y) + 2
    assert line_labels(ax)[-2:] == ["mean of runs", "exact"]
    np.testing.assert_allclose(lines[-2].get_ydata(), y.mean(axis=0), atol=EXACT)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"


def test_sigma_panel_draws_alpha_over_sqrt_t_from_t_min(runs):
    t, _, sigma, fit, _ = runs
    ax = plot_sigma(t, sigma, fit=fit)
    data, asymptote = ax.get_lines()
    np.testing.assert_allclose(data.get_ydata(), sigma, atol=EXACT)
    x = asymptote.get_xdata()
    assert x.min() == pytest.approx(fit.t_min)
    np.testing.assert_allclose(asymptote.get_ydata(), fit.alpha / np.sqrt(x), rtol=1e-12)
    assert ax.get_xscale() == ax.get_yscale() == "linear"
    assert ax.get_ylim()[0] == 0


def test_log_sigma_panel_is_log_log_with_the_ignored_range_shaded(runs):
    t, _, sigma, fit, _ = runs
    ax = plot_log_sigma(t, sigma, t_min=10, fit=fit)
    assert ax.get_xscale() == ax.get_yscale() == "log"
    (span,) = ax.patches
    assert span.get_x() == pytest.approx(t.min()) and span.get_x() + span.get_width() == pytest.approx(10)
    slope = ax.get_lines()[1]
    logs = np.log(slope.get_ydata()) - np.log(fit.alpha)
    np.testing.assert_allclose(logs, -0.5 * np.log(slope.get_xdata()), atol=1e-12)


def test_g_panel_x_is_t_to_minus_delta_and_alpha_is_the_intercept(runs):
    t, _, sigma, fit, fit_free = runs
    ax = plot_g_linear(t, sigma, fit, fit_free=fit_free)
    used = t >= fit.t_min
    points = ax.get_lines()[0]
    np.testing.assert_allclose(points.get_xdata(), t[used] ** -0.9, rtol=1e-12)
    np.testing.assert_allclose(points.get_ydata(), sigma[used] * np.sqrt(t[used]), rtol=1e-12)
    fitted = next(line for line in ax.get_lines() if line.get_label().startswith(r"$\alpha(1"))
    assert fitted.get_xdata()[0] == 0 and fitted.get_ydata()[0] == pytest.approx(fit.alpha)
    intercepts = [line for line in ax.get_lines() if len(line.get_xdata()) == 1]
    assert [line.get_ydata()[0] for line in intercepts] == pytest.approx([fit.alpha, fit_free.alpha])
    assert ax.get_xlim()[1] < 1.1 * (t[used] ** -0.9).max()  # the view is the fitted range
    shown = [line for line in ax.get_lines() if len(line.get_xdata())]
    assert all(np.nanmax(line.get_xdata()) <= ax.get_xlim()[1] for line in shown if line.get_linestyle() == "None")
    assert not any("ignored" in label for label in ax.get_legend_handles_labels()[1])  # nothing listed out of view
    assert "delta" in ax.get_xlabel() and "sqrt" in ax.get_ylabel()


def test_alpha_procedure_figure_has_the_four_panels_of_figure_6(runs):
    t, y, sigma, fit, fit_free = runs
    fig = alpha_procedure_figure(t, y, sigma, fit, fit_free=fit_free, exact=0.8)
    assert [ax.get_title()[:3] for ax in fig.axes] == ["(a)", "(b)", "(c)", "(d)"]
    assert [(ax.get_xscale(), ax.get_yscale()) for ax in fig.axes] == [
        ("log", "linear"), ("linear", "linear"), ("log", "log"), ("linear", "linear")]
    assert all(ax.get_legend() is not None for ax in fig.axes)
    assert fig.axes[0].get_title() == f"(a) {len(y)} runs"


# ----------------------------------------------------------------------------- runs, queries
def test_final_estimates_one_row_of_points_per_sampler():
    finals = pd.DataFrame({"sampler": ["gibbs"] * 4 + ["prune"] * 3,
                           "estimate_final": [0.0, 1.0, 0.0, 1.0, 0.49, 0.51, 0.5]})
    ax = plot_final_estimates(finals, exact=0.5, levels={"class 0": 0.0, "class 1": 1.0})
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Gibbs", "Prune"]
    points = [c for c in ax.collections if isinstance(c, PathCollection)]  # seaborn's strip, beside its violins
    assert [len(c.get_offsets()) for c in points] == [4, 3]
    np.testing.assert_allclose(points[1].get_offsets()[:, 0], [0.49, 0.51, 0.5])
    np.testing.assert_allclose(points[1].get_offsets()[:, 1], [1, 1, 1])  # no jitter: the same bytes every build
    assert to_rgba(points[0].get_facecolor()[0], 1) == to_rgba(SAMPLER_STYLES["gibbs"].color, 1)
    assert to_rgba(points[1].get_facecolor()[0], 1) == to_rgba(SAMPLER_STYLES["prune"].color, 1)
    assert [line.get_xdata()[0] for line in ax.get_lines()] == [0.5, 0.0, 1.0]
    assert [t.get_text() for t in ax.texts] == ["class 0", "class 1"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["exact"]


def test_alpha_by_query_marks_our_query_and_the_paper_value():
    alphas = pd.DataFrame({"group": ["alarm"] * 3 + ["grid"] * 2, "sampler": ["gibbs"] * 3 + ["metropolis"] * 2,
                           "variable": ["BP", "CO", "HR", "v_8_8", "v_1_2"], "alpha": [2.0, 0.3, 5.0, 4.0, 9.0]})
    ax = plot_alpha_by_query(alphas, highlight={"alarm": "BP", "grid": "v_8_8"}, paper={"alarm": 0.43})
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["alarm", "grid"]
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    clouds = [c for c in points if len(c.get_offsets()) > 1]
    assert [len(c.get_offsets()) for c in clouds] == [3, 2]
    diamonds = [c for c in points if len(c.get_offsets()) == 1]
    assert sorted(float(c.get_offsets()[0, 1]) for c in diamonds) == [2.0, 4.0]
    paper = [c for c in ax.collections if c.get_label() == "paper's alpha"]
    assert len(paper) == 1 and np.allclose(np.asarray(paper[0].get_segments())[0][:, 1], 0.43)


# ----------------------------------------------------------------------------- Tables 1-2
@pytest.fixture
def table():
    columns = pd.MultiIndex.from_product([["gibbs", "metropolis", "prune"], ["ours", "paper"]],
                                         names=["sampler", "source"])
    data = [[4.86, 0.52, 4.39, 0.51, 0.74, 0.81], [2.10, 0.43, 2.49, 0.46, 0.88, 0.79],
            [np.nan, 0.45, np.nan, 0.48, np.nan, 0.50]]
    return pd.DataFrame(data, index=["Asia_ev0", "Alarm_ev0", "Win95pts_ev25"], columns=columns)


def test_paper_table_values_intervals_and_missing(table):
    intervals = pd.DataFrame({("prune", "low"): [0.69, 0.82, np.nan], ("prune", "high"): [0.79, 0.94, np.nan]},
                             index=table.index)
    data = style_paper_table(table, intervals=intervals).data
    assert data.loc["Asia_ev0", ("prune", "ours")] == "0.74 [0.69, 0.79]"
    assert data.loc["Asia_ev0", ("prune", "paper")] == "0.81"
    assert data.loc["Asia_ev0", ("gibbs", "ours")] == "4.86"
    assert (data.loc["Win95pts_ev25", (slice(None), "ours")] == "-").all()


def test_paper_table_marks_non_ergodic_cells_and_bolds_the_best_ergodic_one(table):
    flags = pd.DataFrame({"gibbs": ["‡", "", ""], "metropolis": [True, False, False], "prune": [False] * 3},
                         index=table.index)
    styler = style_paper_table(table, flags=flags)
    data = styler.data
    assert data.loc["Asia_ev0", ("gibbs", "ours")] == "4.86 ‡"
    assert data.loc["Asia_ev0", ("metropolis", "ours")] == "4.39 †"
    assert data.loc["Alarm_ev0", ("gibbs", "ours")] == "2.10"
    styler._compute()
    css = {(r, c): "; ".join(f"{k}: {v}" for k, v in props) for (r, c), props in styler.ctx.items()}
    col = {name: k for k, name in enumerate(table.columns)}
    # Asia: both single-site values are flagged, so prune (0.74) is our best; the paper's best is 0.51
    assert "bold" in css[(0, col[("prune", "ours")])]
    assert "bold" in css[(0, col[("metropolis", "paper")])]
    assert "italic" in css[(0, col[("gibbs", "ours")])] and "bold" not in css.get((0, col[("gibbs", "ours")]), "")
    # Alarm: nothing flagged, the smallest of ours is prune (0.88), of the paper's Gibbs (0.43)
    assert "bold" in css[(1, col[("prune", "ours")])]
    assert "bold" in css[(1, col[("gibbs", "paper")])]
    assert "bold" not in css.get((1, col[("gibbs", "ours")]), "")


def test_paper_table_without_best(table):
    styler = style_paper_table(table, best=None)
    assert "bold" not in styler.to_html()
    with pytest.raises(ValueError, match="best"):
        style_paper_table(table, best="max")


def test_verdicts_one_stacked_bar_per_group_in_the_verdict_colours():
    from prunelab.lab.plots.results import VERDICT_COLORS

    table = pd.DataFrame({"reproduced": [8, 0], "reversed": [0, 8], "not testable": [0, 1]}, index=["theory", "fig 5"])
    ax = plot_verdicts(table)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["theory", "fig 5"]  # the first group on top
    widths = {c: [p.get_width() for p in bars] for c, bars in zip(table.columns, ax.containers)}
    assert widths == {"reproduced": [8, 0], "reversed": [0, 8], "not testable": [0, 1]}
    assert ax.get_legend_handles_labels()[1] == list(table.columns)
    assert ax.containers[0][0].get_facecolor()[:3] == pytest.approx(matplotlib.colors.to_rgb(VERDICT_COLORS["reproduced"]))
    plt.close(ax.figure)
