"""Networks without determinism: every 0/1 CPT entry moved by a small epsilon.

The paper captions its Figure 5 (a)-(c) "0 % determinism", yet asia, alarm and
win95pts as distributed have deterministic CPT rows. One reading is that the paper
ran smoothed variants of them. :func:`smooth_network` makes such a variant, and
:func:`deterministic_row_share` measures how deterministic a network is, so that the
hypothesis can be tested (the book's performance chapter does).

Examples
--------
>>> from prunelab import load_network
>>> from prunelab.smoothing import deterministic_row_share, smooth_network
>>> pair = load_network("deterministic_pair")
>>> deterministic_row_share(pair)
0.6666666666666666
>>> smooth_network(pair, 1e-3).cpts["B"].round(6).tolist()
[[0.999, 0.001], [0.001, 0.999]]
>>> deterministic_row_share(smooth_network(pair, 1e-3))
0.0
"""

from __future__ import annotations

import numpy as np

from .network import BayesianNetwork

__all__ = ["deterministic_row_share", "smooth_network"]


def deterministic_row_share(bn: BayesianNetwork) -> float:
    """The share of CPT rows (one per variable and parent configuration) that are deterministic.

    Parameters
    ----------
    bn : BayesianNetwork

    Returns
    -------
    float
        Rows whose every entry is 0 or 1, over all rows of all CPTs.

    Examples
    --------
    >>> from prunelab import load_network
    >>> deterministic_row_share(load_network("deterministic_pair"))  # A's row is not, B's two rows are
    0.6666666666666666
    """
    deterministic = total = 0
    for v in bn.variables:
        rows = np.asarray(bn.cpts[v]).reshape(-1, len(bn.states[v]))
        deterministic += int(np.isin(rows, (0.0, 1.0)).all(axis=1).sum())
        total += rows.shape[0]
    return deterministic / total


def smooth_network(bn: BayesianNetwork, epsilon: float = 1e-3) -> BayesianNetwork:
    """``bn`` with every CPT entry equal to 0 raised to ``epsilon`` and every 1 lowered to ``1 - epsilon``.

    Each conditional distribution is then renormalised, so a row ``(1, 0, 0)`` becomes
    ``(1 - epsilon, epsilon, epsilon) / (1 + epsilon)``. No entry of the result is 0 or
    1, so single-site Gibbs and Metropolis are ergodic on it; entries strictly between
    0 and 1 move only by the renormalisation.

    Parameters
    ----------
    bn : BayesianNetwork
    epsilon : float, default 1e-3
        In ``(0, 0.5)``.

    Returns
    -------
    BayesianNetwork
        Same variables, states and parents; name ``"<name>, smoothed by <epsilon>"``.

    Raises
    ------
    ValueError
        If ``epsilon`` is not in ``(0, 0.5)``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> smoothed = smooth_network(load_network("deterministic_pair"), 0.01)
    >>> smoothed.cpts["B"].tolist(), deterministic_row_share(smoothed)
    ([[0.99, 0.01], [0.01, 0.99]], 0.0)
    """
    if not 0.0 < epsilon < 0.5:
        raise ValueError(f"epsilon must be in (0, 0.5), got {epsilon!r}")
    cpts = {}
    for v in bn.variables:
        cpt = np.array(bn.cpts[v], dtype=float)
        cpt[cpt == 0.0] = epsilon
        cpt[cpt == 1.0] = 1.0 - epsilon
        cpts[v] = cpt / cpt.sum(axis=-1, keepdims=True)
    return BayesianNetwork(states=dict(bn.states), parents=dict(bn.parents), cpts=cpts,
                           name=f"{bn.name}, smoothed by {epsilon:g}")
