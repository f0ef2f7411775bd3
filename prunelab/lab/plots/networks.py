"""Figures of small networks and of their Markov chains.

:func:`draw_network`
    A Bayesian network drawn the way the paper draws its Figures 1 and 2: the
    graph, each CPT as a table beside its node (rows: the variable's states,
    columns: its parents' configurations), the entries used by a state in bold and
    pruned CPT labels struck through.
:func:`plot_transition_matrix`
    A heatmap of an exact transition matrix (from :mod:`prunelab.theory`), with
    zeros set apart and the communicating classes boxed.
:func:`state_label`
    A state as text, ``(k_g, l_b, b_e, s_y, m_e)``.

Nothing here computes anything the figures show; the numbers come from
:mod:`prunelab.theory`, :mod:`prunelab.samplers` and :mod:`prunelab.exact`.

Artists that tests (and readers) may want to find carry a ``gid``:
``"node:<variable>"``, ``"table:<variable>"``, ``"cell:<label>"`` (the text of CPT
label ``<label>``, a global label number as in :mod:`prunelab.compiled`),
``"state:<label>"`` (the highlight behind a label the state uses), ``"rule:<variable>"``
(a table's inner rules),
``"struck:<label>"`` (the stroke through a pruned label), ``"edge:<parent>-><child>"``
and, on heatmaps, ``"class:<k>"``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.colors import LogNorm, Normalize
from matplotlib.patches import Ellipse, FancyArrowPatch, Rectangle

from prunelab.compiled import compile_network, state_labels
from prunelab.network import BayesianNetwork

__all__ = [
    "PAPER_LAYOUTS",
    "depth_layers",
    "draw_network",
    "plot_transition_matrix",
    "state_label",
]

_CELL_H = 0.28  # table row height, inches (one data unit is one inch)
_NODE_H = 0.46
_STRIKE_COLOR = "#c0392b"
_STATE_COLOR = "#fdebd0"
_SIMPLE_NAME = re.compile(r"^[A-Za-z]+_[A-Za-z0-9]+$")


# ------------------------------------------------------------------ text helpers
def _math(name: str, bold: bool = False) -> str:
    """``k_b`` as mathtext (as the paper prints it); other names unchanged."""
    if _SIMPLE_NAME.match(name):
        base, sub = name.split("_")
        return rf"$\mathbf{{{base}_{{{sub}}}}}$" if bold else rf"${base}_{{{sub}}}$"
    return name


def _state_text(variable: str, name: str) -> str:
    """A state in a table: ``k_b`` as printed in the paper, other names as ``A=0``."""
    return name if _SIMPLE_NAME.match(name) else f"{variable}={name}"


def _text_width(name: str) -> float:
    """Rough width in inches of ``name`` at the table font size."""
    plain = name.replace("_", "") if _SIMPLE_NAME.match(name) else name
    return 0.075 * len(plain)


def state_label(bn: BayesianNetwork, x, variables: Sequence[str] | None = None, sep: str = ", "):
    """A full state as text: its state names in ``bn.variables`` order.

    Parameters
    ----------
    bn : BayesianNetwork
    x : array_like of int, shape (n,) or (k, n)
        State indices in ``bn.variables`` order; a 2-D array gives one label per row.
    variables : sequence of str, optional
        Only these variables (in this order). Default: all.
    sep : str, default ", "

    Returns
    -------
    str or list of str
        ``"(k_g, l_b, b_e, s_y, m_e)"``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.lab.plots import state_label
    >>> state_label(load_network("blood_pressure"), [1, 0, 1, 1, 1])
    '(k_g, l_b, b_e, s_y, m_e)'
    """
    x = np.asarray(x, dtype=np.int64)
    if x.ndim == 2:
        return [state_label(bn, row, variables, sep) for row in x]
    names = bn.variables if variables is None else tuple(variables)
    return "(" + sep.join(bn.states[v][int(x[bn.index(v)])] for v in names) + ")"


# ------------------------------------------------------------------ layout
def depth_layers(bn: BayesianNetwork) -> list[list[str]]:
    """The variables by depth: the roots first, each variable one layer below its deepest parent.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.lab.plots import depth_layers
    >>> depth_layers(load_network("blood_pressure"))
    [['Kidney', 'Lifestyle'], ['BloodPressure', 'Sports'], ['Measurement']]
    """
    depth: dict[str, int] = {}
    layers: list[list[str]] = []
    for v in bn.variables:  # topological order
        depth[v] = 1 + max((depth[p] for p in bn.parents[v]), default=-1)
        layers += [[] for _ in range(depth[v] + 1 - len(layers))]
        layers[depth[v]].append(v)
    return layers


# ------------------------------------------------------------------ the network
_GAP = 0.3  # between a node and its table

PAPER_LAYOUTS: dict[str, tuple[dict, dict]] = {
    # the paper's Figure 2, made compact enough to read at the width of a book page
    "blood_pressure": (
        {"Kidney": (0.0, 0.0), "Lifestyle": (2.6, 0.0), "BloodPressure": (1.3, -1.2),
         "Sports": (3.9, -1.2), "Measurement": (2.1, -3.0)},  # the arrow from BloodPressure clears its table
        {"Kidney": (-1.35, 0.0), "Lifestyle": (1.4, 0.0), "BloodPressure": (-1.75, -0.8),
         "Sports": (0.0, -0.85), "Measurement": (1.75, 0.0)},
    ),
}
"""Hand-made ``(positions, table_offsets)`` used by :func:`draw_network` for networks by name."""


def _default_offset(size) -> tuple[float, float]:
    node_w, width, _ = size
    return (node_w / 2 + _GAP + width / 2, 0.0)


def _auto_layout(bn: BayesianNetwork, sizes) -> dict[str, tuple[float, float]]:
    """Layers by depth, each node followed by its table, nothing overlapping."""
    layers = depth_layers(bn)
    positions = {}
    y = 0.0
    for d, members in enumerate(layers):
        spans = [sizes[v][0] + _GAP + sizes[v][1] for v in members]
        total = sum(spans) + 0.6 * (len(members) - 1)
        x = -total / 2
        for v, span in zip(members, spans):
            positions[v] = (x + sizes[v][0] / 2, y)
            x += span + 0.6
        height = max(max(sizes[v][2] for v in members), _NODE_H)
        y -= height / 2 + 0.9 + max(
            (max(sizes[v][2] for v in layers[d + 1]) / 2 if d + 1 < len(layers) else 0.0), _NODE_H / 2
        )
    return positions


def _table_spec(bn: BayesianNetwork, v: str, offset: int):
    """Rows, column headers and the global label of every cell of ``v``'s CPT."""
    pars = bn.parents[v]
    card = len(bn.states[v])
    configs = list(itertools.product(*(range(len(bn.states[p])) for p in pars)))
    headers = [", ".join(_state_text(p, bn.states[p][s]) for p, s in zip(pars, conf)) for conf in configs]
    cpt = np.asarray(bn.cpts[v]).reshape(len(configs), card)
    labels = offset + np.arange(len(configs))[:, None] * card + np.arange(card)[None, :]
    rows = [_state_text(v, name) for name in bn.states[v]]
    return rows, headers, configs, cpt, labels  # cpt, labels: (config, state)


def draw_network(
    bn: BayesianNetwork,
    state=None,
    kept=None,
    evidence: Mapping | None = None,
    positions: Mapping[str, tuple[float, float]] | None = None,
    table_offsets: Mapping[str, tuple[float, float]] | None = None,
    ax=None,
    title: str | None = None,
    fontsize: float = 9,
):
    """Draw a small network with its CPTs, a state in bold and pruned labels struck through.

    Parameters
    ----------
    bn : BayesianNetwork
        Small: every CPT is drawn in full.
    state : array_like of int (n,) or mapping of str to state name, optional
        A full state; the CPT entries it uses (the paper's ``C_x``) are set in bold
        on a shaded background.
    kept : bool array (n_labels,), optional
        Which CPT labels survived a pruning (``True``: kept), numbered as in
        :mod:`prunelab.compiled`, e.g. from
        :func:`prunelab.samplers.prune.pruning.prune_around`. Every label with
        ``kept[l] == False`` is struck through.
    evidence : mapping of str to state, optional
        Observed variables are drawn shaded.
    positions : mapping of str to (x, y), optional
        Node centres in inches. Default: the hand-made layout of
        :data:`PAPER_LAYOUTS` if the network's name is there, otherwise layers by
        depth (:func:`depth_layers`), spaced so that no two tables overlap.
    table_offsets : mapping of str to (dx, dy), optional
        Centre of each CPT table relative to its node. Default: from
        :data:`PAPER_LAYOUTS` (with its positions), otherwise to the right.
    ax : matplotlib.axes.Axes, optional
        Draw here; by default a new figure sized to the drawing.
    title : str, optional
    fontsize : float, default 9

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    prunelab.samplers.prune.pruning.prune_around : a random pruning (``kept``).
    prunelab.compiled.state_labels : the labels a state uses.

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
       technique for discrete and deterministic Bayesian networks", Figures 1 and 2.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from prunelab import load_network
    >>> from prunelab.lab.plots import draw_network
    >>> bn = load_network("deterministic_pair")
    >>> kept = np.array([True, False, True, False, False, True])  # A=1 and B(2), B(3) pruned
    >>> fig = draw_network(bn, state=[0, 0], kept=kept)
    >>> sum(line.get_gid().startswith("struck:") for line in fig.axes[0].lines)
    3
    >>> plt.close(fig)
    """
    net = compile_network(bn)
    used = _used_labels(bn, net, state)
    struck = _struck_labels(net, kept)
    observed = set(bn.evidence_names(evidence)) if evidence else set()
    specs, sizes = _table_specs(bn, net)  # sizes first: the default layout leaves room for every table
    positions, table_offsets = _layout(bn, sizes, positions, table_offsets)
    if ax is None:
        fig, ax = plt.subplots()
        own_figure = True
    else:
        fig, own_figure = ax.figure, False
    ellipses, bounds = _draw_nodes(ax, bn, positions, sizes, observed, fontsize)
    _draw_edges(ax, bn, positions, ellipses)
    for v in bn.variables:
        offset = table_offsets.get(v, _default_offset(sizes[v]))
        bounds.append(_draw_table(ax, v, specs[v], sizes[v], positions[v], offset, ellipses[v], used, struck,
                                  fontsize))
    _fit_view(fig, ax, bounds, title, fontsize, own_figure)
    return fig


def _used_labels(bn: BayesianNetwork, net, state) -> set[int]:
    """The CPT labels ``state`` uses (the paper's ``C_x``); none without a state."""
    if state is None:
        return set()
    if isinstance(state, Mapping):
        x = np.array([bn.state_index(v, state[v]) for v in bn.variables], dtype=np.int64)
    else:
        x = np.asarray(state, dtype=np.int64)
    if x.shape != (bn.n_variables,):
        raise ValueError(f"state must have one entry per variable ({bn.n_variables}), got shape {x.shape}")
    return {int(lab) for lab in state_labels(net, x)}


def _struck_labels(net, kept) -> set[int]:
    """The CPT labels a pruning removed (``kept[l] == False``); none without a pruning."""
    if kept is None:
        return set()
    kept = np.asarray(kept, dtype=bool)
    if kept.shape != (net.n_labels,):
        raise ValueError(f"kept must have one entry per CPT label, shape ({net.n_labels},); got {kept.shape}")
    return {int(lab) for lab in np.flatnonzero(~kept)}


def _table_specs(bn: BayesianNetwork, net):
    """Per variable, what its table shows and its column widths; and the sizes ``(node, table width, height)``."""
    specs, sizes = {}, {}
    for i, v in enumerate(bn.variables):
        rows, headers, configs, cpt, labels = _table_spec(bn, v, int(net.cpt_offset[i]))
        root = not bn.parents[v]
        stub_w = max(0.45, max(_text_width(r) for r in rows) + 0.2)
        col_w = max(0.5, max((_text_width(h) for h in headers), default=0) + 0.2)
        width = stub_w + col_w * len(headers)
        height = _CELL_H * (len(rows) + (0 if root else 1))
        node_w = max(0.9, _text_width(v) * 1.15 + 0.35)
        specs[v] = (rows, headers, configs, cpt, labels, root, stub_w, col_w)
        sizes[v] = (node_w, width, height)
    return specs, sizes


def _layout(bn: BayesianNetwork, sizes, positions, table_offsets):
    """Node centres and table offsets: as given, else the paper's layout by name, else layers by depth."""
    if positions is None:
        if bn.name in PAPER_LAYOUTS and set(PAPER_LAYOUTS[bn.name][0]) == set(bn.variables):
            positions, default_offsets = PAPER_LAYOUTS[bn.name]
            table_offsets = {**default_offsets, **(table_offsets or {})}
        else:
            positions = _auto_layout(bn, sizes)
    positions = dict(positions)
    missing = [v for v in bn.variables if v not in positions]
    if missing:
        raise ValueError(f"positions lacks {missing}")
    return positions, {} if table_offsets is None else dict(table_offsets)


def _draw_nodes(ax, bn: BayesianNetwork, positions, sizes, observed, fontsize):
    """An ellipse with its name per variable (observed ones shaded); the ellipses and their bounds."""
    bounds = []  # (x0, y0, x1, y1) of everything drawn
    ellipses = {}
    for v in bn.variables:
        cx, cy = positions[v]
        w = sizes[v][0]
        ell = Ellipse(
            (cx, cy), w, _NODE_H, facecolor="0.85" if v in observed else "white",
            edgecolor="black", lw=1.2, zorder=3, gid=f"node:{v}",
        )
        ax.add_patch(ell)
        ax.text(cx, cy, v, ha="center", va="center", fontsize=fontsize + 1, zorder=4)
        ellipses[v] = ell
        bounds.append((cx - w / 2, cy - _NODE_H / 2, cx + w / 2, cy + _NODE_H / 2))
    return ellipses, bounds


def _draw_edges(ax, bn: BayesianNetwork, positions, ellipses) -> None:
    """An arrow from every parent to its child."""
    for v in bn.variables:
        for p in bn.parents[v]:
            ax.add_patch(FancyArrowPatch(
                positions[p], positions[v], patchA=ellipses[p], patchB=ellipses[v],
                arrowstyle="-|>", mutation_scale=14, lw=1.2, color="black", zorder=2,
                gid=f"edge:{p}->{v}",
            ))


def _draw_table(ax, v, spec, size, node_xy, offset, ellipse, used, struck, fontsize):
    """``v``'s CPT beside its node: header of parent configurations, used entries bold, pruned ones struck.

    Returns the table's bounds ``(x0, y0, x1, y1)``.
    """
    rows, headers, _, cpt, labels, root, stub_w, col_w = spec
    _, width, height = size
    node_x, node_y = node_xy
    dx, dy = offset
    x0 = node_x + dx - width / 2
    y1 = node_y + dy + height / 2  # top edge
    frame = Rectangle((x0, y1 - height), width, height, fill=False, lw=1.0,
                      edgecolor="black", zorder=3, gid=f"table:{v}")
    ax.add_patch(frame)
    ax.add_patch(FancyArrowPatch(
        (node_x, node_y), (x0 + width / 2, y1 - height / 2), patchA=ellipse, patchB=frame,
        arrowstyle="-", linestyle=":", lw=1.0, color="0.3", zorder=1,
    ))
    top = y1
    if not root:  # header row: the parents' configurations
        for j, h in enumerate(headers):
            col_used = any(int(labels[j, s]) in used for s in range(len(rows)))
            cx = x0 + stub_w + (j + 0.5) * col_w
            ax.text(cx, top - _CELL_H / 2, ", ".join(_math(s, bold=col_used) for s in h.split(", ")),
                    ha="center", va="center", fontsize=fontsize, zorder=4,
                    fontweight="bold" if col_used else "normal")
        ax.plot([x0, x0 + width], [top - _CELL_H] * 2, color="black", lw=1.0, zorder=3,
                gid=f"rule:{v}")
        top -= _CELL_H
    ax.plot([x0 + stub_w] * 2, [y1 - height, y1], color="black", lw=1.0, zorder=3,
            gid=f"rule:{v}")
    for s, name in enumerate(rows):
        cy = top - (s + 0.5) * _CELL_H
        row_used = any(int(labels[j, s]) in used for j in range(len(headers)))
        ax.text(x0 + stub_w / 2, cy, _math(name, bold=row_used), ha="center", va="center",
                fontsize=fontsize, zorder=4, fontweight="bold" if row_used else "normal")
        for j in range(len(headers)):
            _draw_cell(ax, int(labels[j, s]), cpt[j, s], x0 + stub_w + (j + 0.5) * col_w, cy, col_w, used, struck,
                       fontsize)
    return (x0, y1 - height, x0 + width, y1)


def _draw_cell(ax, lab, value, cx, cy, col_w, used, struck, fontsize) -> None:
    """One CPT entry: shaded and bold if the state uses it, struck through if pruned."""
    if lab in used:
        ax.add_patch(Rectangle(
            (cx - col_w / 2, cy - _CELL_H / 2), col_w, _CELL_H, facecolor=_STATE_COLOR,
            edgecolor="none", zorder=2.5, gid=f"state:{lab}",
        ))
    text = f"{value:.3g}"
    ax.text(cx, cy, text, ha="center", va="center", fontsize=fontsize, zorder=4,
            fontweight="bold" if lab in used else "normal", gid=f"cell:{lab}")
    if lab in struck:
        half = 0.5 * max(_text_width(text), 0.22) + 0.04
        ax.plot([cx - half, cx + half], [cy - 0.38 * _CELL_H, cy + 0.38 * _CELL_H],
                color=_STRIKE_COLOR, lw=1.4, zorder=5, gid=f"struck:{lab}")


def _fit_view(fig, ax, bounds, title, fontsize, own_figure) -> None:
    """Limits around everything drawn, equal aspect, no axes; a new figure sized to the drawing."""
    b = np.array(bounds)
    pad = 0.15
    x_lo, y_lo = b[:, 0].min() - pad, b[:, 1].min() - pad
    x_hi, y_hi = b[:, 2].max() + pad, b[:, 3].max() + pad
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_aspect("equal")
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=fontsize + 2)
    if own_figure:
        fig.set_size_inches(x_hi - x_lo, y_hi - y_lo + (0.45 if title else 0.1))
        fig.tight_layout(pad=0.2)


# ------------------------------------------------------------------ transition matrices
def plot_transition_matrix(
    R,
    labels: Sequence[str] | None = None,
    classes: Sequence[Sequence[int]] | None = None,
    ax=None,
    title: str | None = None,
    annotate: bool | None = None,
    cmap: str = "viridis",
    colorbar: bool = True,
    log: bool = False,
):
    """Heatmap of a transition matrix, zeros in light grey, communicating classes boxed.

    Parameters
    ----------
    R : array_like (k, k)
        ``R[a, b]`` = probability of one step from state ``a`` to state ``b``, e.g.
        from :func:`prunelab.theory.prune_transition_matrix`.
    labels : sequence of str, optional
        One name per state (see :func:`state_label`); shown when ``k <= 40``.
    classes : sequence of index arrays, optional
        Communicating classes (:func:`prunelab.theory.communicating_classes`).
        States are reordered class by class and each class is boxed in red; a
        reducible chain shows as blocks with nothing between them.
    ax : matplotlib.axes.Axes, optional
    title : str, optional
    annotate : bool, optional
        Write the probabilities in the cells. Default: when ``k <= 8``.
    cmap : str, default "viridis"
    colorbar : bool, default True
    log : bool, default False
        Logarithmic colour scale (from the smallest positive entry), for large
        matrices whose entries span orders of magnitude.

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    prunelab.theory.gibbs_transition_matrix, prunelab.theory.metropolis_transition_matrix

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from prunelab.lab.plots import plot_transition_matrix
    >>> fig = plot_transition_matrix(np.eye(2), labels=["(0, 0)", "(1, 1)"], classes=[[0], [1]])
    >>> [p.get_gid() for p in fig.axes[0].patches]
    ['class:0', 'class:1']
    >>> plt.close(fig)
    """
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise ValueError(f"R must be square, got shape {R.shape}")
    k = R.shape[0]
    if labels is not None and len(labels) != k:
        raise ValueError(f"{len(labels)} labels for {k} states")
    order = np.arange(k)
    if classes is not None:
        order = np.concatenate([np.asarray(c, dtype=np.int64) for c in classes])
        if sorted(order.tolist()) != list(range(k)):
            raise ValueError("classes must partition the states 0..k-1")
    shown = R[np.ix_(order, order)]
    if ax is None:
        side = min(7.0, max(3.2, 0.32 * k + 1.8))
        fig, ax = plt.subplots(figsize=(side + (1.0 if colorbar else 0.0), side))
    else:
        fig = ax.figure
    top = max(float(shown.max()), 1e-300)
    if log:
        bottom = float(shown[shown > 0].min()) if (shown > 0).any() else top
        norm = LogNorm(bottom, max(top, bottom * 10))
    else:
        norm = Normalize(0.0, top)
    ax.set_facecolor("0.92")  # the masked cells, exactly 0, show the axes' grey
    sns.heatmap(np.ma.masked_equal(shown, 0.0), mask=shown == 0, cmap=cmap, norm=norm, square=True, ax=ax,
                cbar=colorbar, cbar_kws={"label": "transition probability (grey: exactly 0)", "fraction": 0.046,
                                         "pad": 0.04} if colorbar else None,
                xticklabels=False, yticklabels=False)
    if classes is not None:
        start = 0
        for c_index, c in enumerate(classes):
            size = len(c)
            ax.add_patch(Rectangle((start, start), size, size, fill=False,
                                   edgecolor="red", lw=2.0, gid=f"class:{c_index}"))
            start += size
    centres = np.arange(k) + 0.5  # seaborn puts cell (a, b) at x = b + 0.5, y = a + 0.5
    if labels is not None and k <= 40:
        names = [labels[a] for a in order]
        ax.set_xticks(centres, names, rotation=90, fontsize=8 if k > 12 else 9)
        ax.set_yticks(centres, names, rotation=0, fontsize=8 if k > 12 else 9)
        ax.set_xlabel("to state y")
        ax.set_ylabel("from state x")
    else:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_xlabel(f"to state y ({k} states)")
        ax.set_ylabel(f"from state x ({k} states)")
    if annotate is None:
        annotate = k <= 8
    if annotate:
        for a, b in zip(*np.nonzero(shown)):
            value = shown[a, b]
            ax.text(b + 0.5, a + 0.5, f"{value:.3g}", ha="center", va="center", fontsize=8,
                    color="white" if norm(value) < 0.6 else "black", gid="value")
    if title:
        ax.set_title(title)
    return fig
