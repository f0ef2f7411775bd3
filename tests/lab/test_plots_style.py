"""One colour and marker per sampler (``prunelab.lab.plots.style``), and the figures keep to it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from prunelab.lab import plots  # noqa: E402
from prunelab.lab.paper_numbers import PAPER_SAMPLERS  # noqa: E402
from prunelab.lab.peers import PEER_SAMPLERS  # noqa: E402
from prunelab.lab.registry import own_name  # noqa: E402
from prunelab.samplers import BUILT_IN  # noqa: E402
from prunelab.lab.plots import (  # noqa: E402
    SAMPLER_LABELS,
    SAMPLER_STYLES,
    ahd_figure,
    plot_alpha_by_query,
    sampler_label,
    sampler_palette,
    sampler_style,
)
from tests.helpers import fake_curves



@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_every_sampler_of_the_book_has_a_style():
    assert set(SAMPLER_STYLES) == set(PAPER_SAMPLERS) | set(PEER_SAMPLERS)
    assert {own_name(s) for s in BUILT_IN} <= set(SAMPLER_STYLES)  # each registered sampler, under its peer name


@pytest.mark.parametrize("sampler", PAPER_SAMPLERS)
def test_a_prunelab_sampler_looks_the_same_under_both_names(sampler):
    assert sampler_style(own_name(sampler)) == sampler_style(sampler)


def test_different_samplers_never_share_a_colour_or_a_marker():
    """One style per sampler: the peers' names, where prunelab's own appear once each."""
    styles = [SAMPLER_STYLES[s] for s in PEER_SAMPLERS]
    assert len({to_rgba(s.color) for s in styles}) == len(styles)
    assert len({s.marker for s in styles}) == len(styles)


def test_an_unknown_sampler_has_no_style_rather_than_a_default_colour():
    with pytest.raises(ValueError, match=r"no style for sampler 'hmc'; known: \['gibbs'"):
        sampler_style("hmc")
    alphas = pd.DataFrame({"group": ["g"] * 2, "sampler": ["hmc"] * 2, "variable": ["a", "b"], "alpha": [1.0, 2.0]})
    with pytest.raises(ValueError, match="no style for sampler 'hmc'"):
        plot_alpha_by_query(alphas)


def test_figure_legends_use_the_palette(rng):
    fig = ahd_figure(fake_curves(rng, benchmarks=("b1",)), ["b1"])
    colours = [to_rgba(line.get_color()) for line in fig.legends[0].get_lines()]
    assert colours == [to_rgba(SAMPLER_STYLES[m].color) for m in PAPER_SAMPLERS]


def test_the_package_exports_what_it_promises():
    """``prunelab.lab.plots`` re-exports every public name of its modules, and nothing computes tables."""
    from prunelab.lab.plots import networks, results, style

    for module in (networks, results, style):
        missing = set(module.__all__) - set(plots.__all__)
        assert not missing, f"{module.__name__} names not exported by prunelab.lab.plots: {sorted(missing)}"
    assert not {"ahd_table", "ahd_decay"} & set(dir(plots))


def test_every_styled_sampler_has_one_label_and_the_labels_tell_them_apart():
    assert set(SAMPLER_LABELS) == set(SAMPLER_STYLES)
    peers = [SAMPLER_LABELS[s] for s in PEER_SAMPLERS]
    assert len(set(peers)) == len(peers)
    for sampler in PAPER_SAMPLERS:  # prunelab's own under both names: the same sampler, qualified beside the peers
        assert sampler_label(own_name(sampler)).lower() == f"prunelab {sampler_label(sampler).lower()}"


def test_an_unknown_sampler_has_no_label_rather_than_its_raw_name():
    with pytest.raises(ValueError, match=r"no label for sampler 'hmc'; known: \['gibbs'"):
        sampler_label("hmc")


def test_seaborn_palette_is_the_style_colours_keyed_by_sampler():
    """seaborn's ``palette=`` for ``hue="sampler"``: the book's colours, an unknown sampler refused."""
    assert sampler_palette(["prune", "pgmpy-gibbs"]) == {"prune": SAMPLER_STYLES["prune"].color,
                                                         "pgmpy-gibbs": SAMPLER_STYLES["pgmpy-gibbs"].color}
    with pytest.raises(ValueError, match="no style for sampler 'hmc'"):
        sampler_palette(["prune", "hmc"])
