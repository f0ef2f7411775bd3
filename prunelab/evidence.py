"""Seeded evidence sets: a fraction of the variables set from one forward sample."""

from __future__ import annotations

import math

import numpy as np

from .network import BayesianNetwork

__all__ = ["random_evidence", "forward_sample"]


def forward_sample(bn: BayesianNetwork, rng: np.random.Generator) -> np.ndarray:
    """One ancestral (forward) sample of ``bn``, as state indices in ``variables`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.evidence import forward_sample
    >>> x = forward_sample(load_network("deterministic_pair"), np.random.default_rng(0))
    >>> bool(x[0] == x[1])
    True
    """
    x = np.zeros(bn.n_variables, dtype=np.int64)
    for i, v in enumerate(bn.variables):
        row = bn.cpts[v][tuple(x[bn.index(p)] for p in bn.parents[v])]
        x[i] = min(int(np.searchsorted(np.cumsum(row), rng.random() * row.sum(), side="right")), len(row) - 1)
        while row[x[i]] == 0.0:  # guard against rounding landing on a zero entry
            x[i] -= 1
    return x


def random_evidence(bn: BayesianNetwork, fraction: float = 0.25, seed=None, exclude=()) -> dict[str, str]:
    """Observe ``ceil(fraction * n)`` variables, set from one forward sample.

    Because the values come from a forward sample, ``P(e) > 0``.

    Parameters
    ----------
    bn : BayesianNetwork
    fraction : float, default 0.25
        Fraction of the variables observed (the paper's "25 % evidence").
    seed : int, SeedSequence or Generator
        Which variables, and the forward sample; pass it explicitly.
    exclude : iterable of str, optional
        Variables never observed (e.g. the query variable). The ``ceil(fraction * n)``
        observed variables are drawn from the others; ``n`` counts all variables.

    Returns
    -------
    dict of str to str
        ``{variable: state name}`` in ``bn.variables`` order.

    Examples
    --------
    >>> from prunelab import load_network, random_evidence
    >>> ev = random_evidence(load_network("asia"), 0.25, seed=3)
    >>> len(ev)
    2
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must lie in [0, 1], got {fraction!r}")
    excluded = {bn.index(v) for v in exclude}
    candidates = np.array([i for i in range(bn.n_variables) if i not in excluded], dtype=np.int64)
    k = math.ceil(fraction * bn.n_variables)
    if k > candidates.size:
        raise ValueError(f"cannot observe {k} variables: only {candidates.size} are not excluded")
    rng = np.random.default_rng(seed)
    chosen = set(rng.choice(candidates, size=k, replace=False).tolist())
    x = forward_sample(bn, rng)
    return {v: bn.states[v][x[i]] for i, v in enumerate(bn.variables) if i in chosen}
