"""Grid networks with determinism, after Sang, Beame & Kautz (2005).

An ``n x n`` grid of binary nodes ``v_i_j`` (1-based), each with parents
``v_i_{j-1}`` and ``v_{i-1}_j`` where they exist. The source ``v_1_1`` is never
deterministic; every other node is deterministic with probability ``determinism``
(per node, not per CPT row), and then its CPT is a random *non-constant* Boolean
function of its parents. A stochastic node's ``P(T | parents)`` is uniform on
[0, 1], drawn per row.
"""

from __future__ import annotations

import numpy as np

from .network import BayesianNetwork

__all__ = ["make_grid", "GRID_STATES"]

GRID_STATES = ("F", "T")


def _node(i: int, j: int) -> str:
    return f"v_{i}_{j}"


def make_grid(n: int, determinism: float = 0.5, seed=None) -> BayesianNetwork:
    """A random ``n x n`` grid network with a fraction of deterministic nodes.

    Parameters
    ----------
    n : int
        Side of the grid (``n >= 1``); the network has ``n**2`` binary nodes.
    determinism : float, default 0.5
        Probability that a non-source node is deterministic (the paper's grids
        use 50 %).
    seed : int, SeedSequence or Generator
        Randomness for the structure of the CPTs; pass it explicitly to get the
        same grid again.

    Returns
    -------
    BayesianNetwork
        Named ``grid-{n}x{n}``; variables ``v_i_j`` with states ``("F", "T")``.
        Its query variable (the paper's) is the sink ``v_n_n``.

    References
    ----------
    T. Sang, P. Beame and H. Kautz, "Solving Bayesian networks by weighted model
    counting", AAAI 2005.

    Examples
    --------
    >>> from prunelab import make_grid
    >>> bn = make_grid(3, seed=1)
    >>> bn.variables[-1], bn.states["v_3_3"]
    ('v_3_3', ('F', 'T'))
    """
    if int(n) != n or n < 1:
        raise ValueError(f"grid side n must be a positive integer, got {n!r}")
    if not 0.0 <= determinism <= 1.0:
        raise ValueError(f"determinism must lie in [0, 1], got {determinism!r}")
    rng = np.random.default_rng(seed)
    states, parents, cpts = {}, {}, {}
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            v = _node(i, j)
            pars = [p for p, ok in ((_node(i, j - 1), j > 1), (_node(i - 1, j), i > 1)) if ok]
            states[v] = GRID_STATES
            parents[v] = pars
            rows = 2 ** len(pars)
            if pars and rng.random() < determinism:
                while True:
                    truth = rng.integers(0, 2, size=rows)
                    if 0 < truth.sum() < rows:
                        break
                p_true = truth.astype(float)
            else:
                p_true = rng.random(rows)
            table = np.stack([1.0 - p_true, p_true], axis=-1)
            cpts[v] = table.reshape([2] * len(pars) + [2])
    return BayesianNetwork(states=states, parents=parents, cpts=cpts, name=f"grid-{n}x{n}")
