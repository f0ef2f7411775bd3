"""A prunelab network as each peer's model: pyAgrum's ``BayesNet``, pgmpy's Gibbs sampler, a PyMC model.

Every converter keeps the names, the states (in ``bn.states`` order) and the CPT
entries, and translates only the layout each peer expects; the tests check each
against prunelab (pyAgrum's exact inference, PyMC's log-density). The peers are
imported lazily, and only here: :func:`import_pymc` is the one way the package
imports PyMC, :func:`import_pyagrum` the one way it imports pyAgrum (an optional
extra). The pgmpy network without evidence is :func:`prunelab.io.to_pgmpy`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from prunelab.diagnostics import arviz_notice_ignored
from prunelab.network import BayesianNetwork
from .run import PeerNotBuilt, describe_state_count, joint_state_count
from prunelab.io import to_pgmpy

__all__ = [
    "PGMPY_MAX_STATES",
    "check_pgmpy_size",
    "import_pyagrum",
    "import_pymc",
    "to_pgmpy_gibbs",
    "to_pyagrum",
    "to_pymc",
]

PGMPY_MAX_STATES = 2**16
"""Largest joint state space (free variables) for which pgmpy's Gibbs sampler is built.

Its constructor reduces one factor per variable and per configuration of all the
other variables: ``sum_v S / |v|`` reductions for ``S`` joint states, about 0.1 ms
each (``block_chain``, ``4**10`` states, took 280 s). ``2**16`` keeps it under a
minute.
"""


def import_pyagrum():
    """pyAgrum, imported with its SWIG types' import-time warnings ignored.

    Raises
    ------
    ImportError
        Saying how to install the optional extra, when pyAgrum is missing.
    """
    try:
        with warnings.catch_warnings():
            # pyAgrum's SWIG types warn at import; raised as errors (-W error) they
            # crash the extension's initialisation with a segmentation fault.
            warnings.filterwarnings("ignore", r"builtin type \w+ has no __module__ attribute", DeprecationWarning)
            import pyagrum as gum
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("pyAgrum is an optional peer: pip install 'prunelab[peers]'") from exc
    return gum


def to_pyagrum(bn: BayesianNetwork):
    """Convert to a ``pyagrum.BayesNet`` with the same names, states and CPTs.

    pyAgrum orders a CPT's variables as ``(child, parent_1, ..., parent_k)`` and its
    array view (``toarray``/``fillWith``) in the reverse of that order, while a
    prunelab CPT is ``(parent_1, ..., parent_k, child)``; each table is transposed
    by variable name, not by position.

    Examples
    --------
    >>> from prunelab import load_network
    >>> g = to_pyagrum(load_network("blood_pressure"))  # doctest: +SKIP
    >>> g.cpt("BloodPressure").names                   # doctest: +SKIP
    ('BloodPressure', 'Kidney', 'Lifestyle')
    """
    gum = import_pyagrum()
    net = gum.BayesNet(bn.name)
    for v in bn.variables:
        net.add(gum.LabelizedVariable(v, v, list(bn.states[v])))
    for v in bn.variables:
        for p in bn.parents[v]:
            net.addArc(p, v)
    for v in bn.variables:
        table = net.cpt(v)
        axes = [*bn.parents[v], v]
        target = list(reversed(table.names))
        if sorted(target) != sorted(axes):
            raise RuntimeError(f"pyAgrum CPT of {v!r} has variables {table.names}, expected {axes}")
        table.fillWith(np.ascontiguousarray(np.transpose(bn.cpts[v], [axes.index(n) for n in target])))
    return net


def check_pgmpy_size(bn: BayesianNetwork, evidence: Mapping | None, max_states: int) -> None:
    """Raise :class:`PeerNotBuilt` when the free variables have more than ``max_states`` joint states.

    Examples
    --------
    >>> from prunelab import load_network
    >>> check_pgmpy_size(load_network("alarm"), None, 2**16)
    Traceback (most recent call last):
    ...
    prunelab.lab.peers.run.PeerNotBuilt: not built: 2^53.9 states (limit 2^16)
    """
    count = joint_state_count(bn, evidence)
    if count > max_states:
        limit = describe_state_count(max_states)
        raise PeerNotBuilt(f"not built: {describe_state_count(count)} states (limit {limit})")


def to_pgmpy_gibbs(bn: BayesianNetwork, evidence: Mapping | None = None, max_states: int = PGMPY_MAX_STATES):
    """pgmpy's ``GibbsSampling`` for ``bn`` given ``evidence``, refused when too large.

    pgmpy's constructor tabulates, for every variable, its conditional given *each*
    joint state of all the other variables (not of its Markov blanket), so time and
    memory grow like the joint state space. The size is checked first and a
    :class:`PeerNotBuilt` is raised, without building anything, above ``max_states``.

    pgmpy's Gibbs sampler takes no evidence. With evidence, every CPD factor is
    reduced by it and the sampler is built on the resulting Markov network of the
    free variables (pgmpy's ``DiscreteMarkovNetwork`` path; same kernel).

    Raises
    ------
    PeerNotBuilt
        ``"not built: 2^k states"`` when the free variables have more than
        ``max_states`` joint states.

    Examples
    --------
    >>> from prunelab import load_network
    >>> gibbs = to_pgmpy_gibbs(load_network("deterministic_pair"), {"B": "1"})
    >>> type(gibbs).__name__, sorted(str(v) for v in gibbs.transition_models)  # the free variable only
    ('GibbsSampling', ['A'])
    >>> to_pgmpy_gibbs(load_network("block_chain"))
    Traceback (most recent call last):
    ...
    prunelab.lab.peers.run.PeerNotBuilt: not built: 2^20 states (limit 2^16)
    """
    check_pgmpy_size(bn, evidence, max_states)
    from pgmpy.factors.discrete import DiscreteFactor
    from pgmpy.models import DiscreteMarkovNetwork
    from pgmpy.sampling import GibbsSampling


    ev = bn.evidence_indices(evidence)
    if not ev:
        return GibbsSampling(to_pgmpy(bn))
    observed = {bn.variables[i]: s for i, s in ev.items()}
    factors = []
    for v in bn.variables:  # each CPT reduced by the evidence, as a factor over its free variables
        scope = [*bn.parents[v], v]
        table = bn.cpts[v][tuple(observed.get(u, slice(None)) for u in scope)]
        free_scope = [u for u in scope if u not in observed]
        if free_scope:  # state indices as state names: pgmpy's kernel builder reduces by index
            factors.append(DiscreteFactor(free_scope, list(table.shape), np.ascontiguousarray(table).ravel()))
    free = [v for v in bn.variables if v not in observed]
    markov = DiscreteMarkovNetwork()
    markov.add_nodes_from(free)
    for factor in factors:
        scope = factor.scope()
        markov.add_edges_from((a, b) for i, a in enumerate(scope) for b in scope[i + 1:])
    markov.add_factors(*factors)
    return GibbsSampling(markov)


def import_pymc():
    """PyMC, imported without ArviZ's once-a-day notice (PyMC imports ArviZ).

    The package imports PyMC only through this function, so that no page or log
    shows the notice on a reader's first run of the day.

    Raises
    ------
    ImportError
        Saying how to install the optional extra, when PyMC is missing.
    """
    try:
        with arviz_notice_ignored():
            import pymc
    except ImportError as exc:
        raise ImportError(f"PyMC is an optional peer ({exc}): pip install 'prunelab[peers]'") from exc
    return pymc


def to_pymc(bn: BayesianNetwork, evidence: Mapping | None = None):
    """A PyMC model: one ``pm.Categorical`` per variable, ``p`` indexed by the parents.

    Variable ``X`` with parents ``(P1, ..., Pk)`` is
    ``pm.Categorical("X", p=cpt[P1, ..., Pk])`` with ``cpt`` a pytensor constant of
    shape ``(|P1|, ..., |Pk|, |X|)``; observed variables get ``observed=`` their
    state index. Parent values are clipped into range before indexing: a proposal
    outside a parent's support (``pm.Metropolis`` rounds a normal step) then gets
    ``logp = -inf`` from the parent's own term instead of an ``IndexError`` in the
    child's; inside the support the clip changes nothing.

    Returns
    -------
    pymc.Model
        Its ``logp`` at a full state is ``log P(x)`` (with evidence, ``log P(x, e)``).
    """
    pm = import_pymc()
    import pytensor.tensor as pt

    ev = bn.evidence_names(evidence)
    with pm.Model(name="") as model:
        nodes = {}
        for v in bn.variables:
            table = pt.constant(np.asarray(bn.cpts[v], dtype=np.float64))
            index = tuple(pt.clip(nodes[p], 0, len(bn.states[p]) - 1) for p in bn.parents[v])
            p = table[index] if index else table
            observed = bn.states[v].index(ev[v]) if v in ev else None
            nodes[v] = pm.Categorical(v, p=p, observed=observed)
    return model
