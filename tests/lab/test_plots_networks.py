"""Smoke tests of the network figures: the artists they draw say what the figure claims."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from prunelab import load_network  # noqa: E402
from prunelab.compiled import compile_network, entry_label, state_labels  # noqa: E402
from prunelab.lab.plots import (  # noqa: E402
    depth_layers,
    draw_network,
    plot_transition_matrix,
    state_label,
)
from prunelab.samplers.prune.pruning import prune_around  # noqa: E402
from prunelab.theory import communicating_classes, gibbs_transition_matrix  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _gids(ax, prefix):
    artists = list(ax.lines) + list(ax.patches) + list(ax.texts)
    return sorted(a.get_gid() for a in artists if (a.get_gid() or "").startswith(prefix))


def _figure2_kept(bn):
    """The pruning of the paper's Figure 2 around (k_g, l_b, b_e, s_y, m_e)."""
    net = compile_network(bn)

    def label(v, state, parents=()):
        return entry_label(bn, net, v, state, dict(parents))

    pruned = [
        label("Kidney", "k_b"),
        label("BloodPressure", "b_n", [("Kidney", "k_b"), ("Lifestyle", "l_b")]),
        label("BloodPressure", "b_n", [("Kidney", "k_b"), ("Lifestyle", "l_g")]),
        label("BloodPressure", "b_n", [("Kidney", "k_g"), ("Lifestyle", "l_b")]),
        label("BloodPressure", "b_e", [("Kidney", "k_g"), ("Lifestyle", "l_g")]),
        label("Sports", "s_n", [("Lifestyle", "l_g")]),
        label("Sports", "s_y", [("Lifestyle", "l_g")]),
        label("Measurement", "m_n", [("BloodPressure", "b_e")]),
        label("Measurement", "m_e", [("BloodPressure", "b_n")]),
    ]
    kept = np.ones(net.n_labels, dtype=bool)
    kept[pruned] = False
    return kept, pruned


def test_figure2_strikes_exactly_the_pruned_labels():
    bn = load_network("blood_pressure")
    kept, pruned = _figure2_kept(bn)
    x = [1, 0, 1, 1, 1]  # (k_g, l_b, b_e, s_y, m_e)
    fig = draw_network(bn, state=x, kept=kept, title="Figure 2")
    ax = fig.axes[0]
    assert _gids(ax, "struck:") == sorted(f"struck:{lab}" for lab in pruned)
    used = state_labels(compile_network(bn), np.array(x))
    assert _gids(ax, "state:") == sorted(f"state:{lab}" for lab in used)
    assert len(_gids(ax, "table:")) == len(_gids(ax, "node:")) == bn.n_variables
    assert len(_gids(ax, "cell:")) == bn.n_parameters
    n_edges = sum(len(bn.parents[v]) for v in bn.variables)
    assert len(_gids(ax, "edge:")) == n_edges
    assert ax.get_title() == "Figure 2"
    # the used entries are set in bold
    bold = {t.get_gid() for t in ax.texts if t.get_fontweight() == "bold" and (t.get_gid() or "").startswith("cell:")}
    assert bold == {f"cell:{lab}" for lab in used}


def test_random_pruning_struck_count(rng):
    bn = load_network("blood_pressure")
    net = compile_network(bn)
    x = np.array([1, 0, 1, 1, 1])
    kept = prune_around(rng, net, x)
    fig = draw_network(bn, state=x, kept=kept)
    assert len(_gids(fig.axes[0], "struck:")) == int((~kept).sum())
    # the labels of x are never pruned
    assert not set(_gids(fig.axes[0], "struck:")) & {f"struck:{lab}" for lab in state_labels(net, x)}


def test_draw_network_evidence_and_positions():
    bn = load_network("deterministic_pair")
    positions = {"A": (0.0, 0.0), "B": (3.0, 0.0)}
    fig = draw_network(bn, evidence={"B": "1"}, positions=positions)
    ax = fig.axes[0]
    nodes = {p.get_gid(): p for p in ax.patches if (p.get_gid() or "").startswith("node:")}
    assert nodes["node:A"].center == (0.0, 0.0) and nodes["node:B"].center == (3.0, 0.0)
    assert nodes["node:B"].get_facecolor() != nodes["node:A"].get_facecolor()  # observed: shaded
    assert _gids(ax, "struck:") == [] and _gids(ax, "state:") == []


def test_draw_network_rejects_bad_shapes():
    bn = load_network("deterministic_pair")
    with pytest.raises(ValueError, match="one entry per CPT label"):
        draw_network(bn, kept=np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="one entry per variable"):
        draw_network(bn, state=[0, 0, 0])


@pytest.mark.parametrize("name", ["blood_pressure", "asia", "block_chain"])
def test_default_layout_tables_do_not_overlap(name):
    # blood_pressure: the hand-made PAPER_LAYOUTS entry; the others: layers by depth
    bn = load_network(name, n=3) if name == "block_chain" else load_network(name)
    fig = draw_network(bn)
    fig.canvas.draw()
    boxes = [p.get_extents() for p in fig.axes[0].patches if (p.get_gid() or "").startswith("table:")]
    boxes += [p.get_extents() for p in fig.axes[0].patches if (p.get_gid() or "").startswith("node:")]
    assert len(boxes) == 2 * bn.n_variables
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not boxes[a].overlaps(boxes[b])


def test_transition_matrix_heatmap_classes_and_labels():
    bn = load_network("block_chain", n=3)
    states, R = gibbs_transition_matrix(bn)
    classes = communicating_classes(R)
    labels = state_label(bn, states, sep="")
    fig = plot_transition_matrix(R, labels=labels, classes=classes, title="Gibbs")
    ax = fig.axes[0]
    assert _gids(ax, "class:") == [f"class:{k}" for k in range(len(classes))] and len(classes) == 2
    mesh = ax.collections[0]  # seaborn's heat map: one cell per entry
    assert mesh.get_array().shape == R.shape
    order = np.concatenate(classes)
    assert [t.get_text() for t in ax.get_yticklabels()] == [labels[a] for a in order]
    # zeros are masked (shown grey), non-zeros are not; the cells are in the classes' order
    assert mesh.get_array().mask.sum() == int((R == 0).sum())
    assert np.array_equal(mesh.get_array().filled(0.0), R[np.ix_(order, order)])
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title() == "Gibbs"
    assert len(fig.axes) == 2  # with its colour bar


def test_transition_matrix_annotations_and_checks():
    fig = plot_transition_matrix(np.array([[0.75, 0.25], [0.25, 0.75]]), colorbar=False)
    values = sorted(t.get_text() for t in fig.axes[0].texts if t.get_gid() == "value")
    assert values == ["0.25", "0.25", "0.75", "0.75"] and len(fig.axes) == 1
    with pytest.raises(ValueError, match="square"):
        plot_transition_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match="partition"):
        plot_transition_matrix(np.eye(3), classes=[[0], [1]])


def test_state_label_and_layers():
    bn = load_network("blood_pressure")
    assert state_label(bn, np.array([[1, 0, 1, 1, 1], [1, 0, 1, 0, 1]])) == [
        "(k_g, l_b, b_e, s_y, m_e)",
        "(k_g, l_b, b_e, s_n, m_e)",
    ]
    assert depth_layers(bn) == [["Kidney", "Lifestyle"], ["BloodPressure", "Sports"], ["Measurement"]]


@pytest.mark.parametrize("name", ["blood_pressure", "deterministic_pair", "block_chain"])
def test_the_small_networks_arrows_cross_no_table(name):
    # an arrow drawn through a CPT table hides its numbers (the paper's Figure 2 layout did on BloodPressure);
    # asia's layers-by-depth layout still draws one arrow through a table
    bn = load_network(name, n=3) if name == "block_chain" else load_network(name)
    fig = draw_network(bn)
    fig.canvas.draw()
    ax = fig.axes[0]
    tables = [p.get_extents() for p in ax.patches if (p.get_gid() or "").startswith("table:")]
    arrows = [p for p in ax.patches if (p.get_gid() or "").startswith("edge:")]
    assert len(arrows) == sum(len(bn.parents[v]) for v in bn.variables)
    for arrow in arrows:
        path = arrow.get_path().transformed(arrow.get_transform())
        points = path.interpolated(50).vertices
        for box in tables:
            assert not any(box.contains(x, y) for x, y in points), arrow.get_gid()
