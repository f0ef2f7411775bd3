"""Conversions to and from pgmpy models (:func:`to_pgmpy`, :func:`from_pgmpy`)."""

from __future__ import annotations

import numpy as np

from ..network import BayesianNetwork, NetworkError

__all__ = ["from_pgmpy", "to_pgmpy"]


def to_pgmpy(bn: BayesianNetwork):
    """Convert to a pgmpy ``DiscreteBayesianNetwork`` with the same names and CPTs.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.io import to_pgmpy
    >>> sorted(to_pgmpy(load_network("deterministic_pair")).nodes())
    ['A', 'B']
    """
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork()
    model.add_nodes_from(bn.variables)
    model.add_edges_from([(p, v) for v in bn.variables for p in bn.parents[v]])
    cpds = []
    for v in bn.variables:
        pars = list(bn.parents[v])
        card = len(bn.states[v])
        values = np.moveaxis(bn.cpts[v], -1, 0).reshape(card, -1)
        cpds.append(
            TabularCPD(
                variable=v,
                variable_card=card,
                values=values,
                evidence=pars or None,
                evidence_card=[len(bn.states[p]) for p in pars] or None,
                state_names={x: list(bn.states[x]) for x in [v, *pars]},
            )
        )
    model.add_cpds(*cpds)
    return model


def from_pgmpy(model, name: str | None = None, normalize: bool = False) -> BayesianNetwork:
    """Convert a pgmpy discrete Bayesian network (TabularCPDs) to a :class:`BayesianNetwork`.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.io import from_pgmpy, to_pgmpy
    >>> bn = load_network("blood_pressure")
    >>> from_pgmpy(to_pgmpy(bn)) == bn
    True
    """
    states, parents, cpts = {}, {}, {}
    for cpd in model.get_cpds():
        v = cpd.variable
        pars = list(cpd.variables[1:])
        states[v] = [str(s) for s in cpd.state_names[v]]
        parents[v] = pars
        cpts[v] = np.moveaxis(np.asarray(cpd.values, dtype=float), 0, -1)
    missing = set(model.nodes()) - set(states)
    if missing:
        raise NetworkError(f"pgmpy model has no CPD for {sorted(missing)}")
    order = [v for v in model.nodes()]
    return BayesianNetwork(
        states={v: states[v] for v in order},
        parents={v: parents[v] for v in order},
        cpts={v: cpts[v] for v in order},
        name=name or getattr(model, "name", None) or "pgmpy",
        normalize=normalize,
    )
