"""Evidence and seeds as they enter the package, and seeded evidence sets.

:func:`as_evidence` is the one place where evidence given by a user is checked for
its *type* (names and states are checked by
:meth:`prunelab.BayesianNetwork.evidence_indices`); :func:`as_seed_sequence` the
one place where a seed becomes a :class:`numpy.random.SeedSequence`.
:func:`random_evidence` draws an evidence set from one forward sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .inverse_cdf import inverse_cdf_py
from .network import BayesianNetwork, EvidenceError

__all__ = ["as_evidence", "as_seed_sequence", "impossible_evidence", "random_evidence", "forward_sample"]


def as_seed_sequence(seed) -> np.random.SeedSequence:
    """The root :class:`~numpy.random.SeedSequence` of a seed given by a user.

    Parameters
    ----------
    seed : int, SeedSequence, Generator, or None
        * an int ``>= 0`` (numpy integers too; not a bool): ``SeedSequence(seed)``;
        * a SeedSequence: a copy, so the caller's object is not advanced by spawning;
        * a Generator: one child spawned from its seed sequence (what
          ``Generator.spawn`` does), so the caller's generator moves on and two
          calls with the same generator give different, reproducible streams;
        * None: fresh entropy from the operating system.

    Returns
    -------
    numpy.random.SeedSequence

    Raises
    ------
    TypeError
        Any other type (a float, a string, a bool ...), or a Generator built without
        a seed sequence.
    ValueError
        A negative integer.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab.evidence import as_seed_sequence
    >>> as_seed_sequence(7).entropy
    7
    >>> rng = np.random.default_rng(7)
    >>> as_seed_sequence(rng).spawn_key, as_seed_sequence(rng).spawn_key
    ((0,), (1,))
    """
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    if isinstance(seed, np.random.Generator):
        parent = seed.bit_generator.seed_seq
        if not isinstance(parent, np.random.SeedSequence):
            raise TypeError(
                "seed is a Generator without a SeedSequence (built from a state); pass an int or a SeedSequence"
            )
        return parent.spawn(1)[0]
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
        return np.random.SeedSequence(int(seed))
    raise TypeError(
        f"seed must be an int >= 0, a SeedSequence, a Generator or None; got {type(seed).__name__} {seed!r}"
    )


def _is_pandas(value, name: str) -> bool:
    """``value`` is a pandas ``name`` (checked by type, so the core does not import pandas)."""
    return any(cls.__name__ == name and cls.__module__.startswith("pandas") for cls in type(value).__mro__)


def as_evidence(evidence) -> dict | None:
    """Evidence as a plain ``{variable: state}`` dict, or ``None`` for none.

    Parameters
    ----------
    evidence : mapping, pandas Series, or None
        ``{variable: state}`` with states as names or indices; a Series is read as
        ``{index label: value}``. An empty mapping means no evidence.

    Returns
    -------
    dict or None

    Raises
    ------
    TypeError
        For anything else (a list, string, set, tuple, DataFrame ...); the message
        names the type given. Such values used to fail later with an
        ``AttributeError`` or "truth value is ambiguous".
    EvidenceError
        A Series whose index repeats a variable.

    Examples
    --------
    >>> from prunelab.evidence import as_evidence
    >>> as_evidence({"B": "1"})
    {'B': '1'}
    >>> as_evidence(["B", "1"])
    Traceback (most recent call last):
    ...
    TypeError: evidence must be a mapping {variable: state} or a pandas Series, got a list: ['B', '1']
    """
    if evidence is None:
        return None
    if isinstance(evidence, Mapping):
        return dict(evidence) or None
    if _is_pandas(evidence, "Series"):
        labels = list(evidence.index)
        repeated = sorted({str(v) for v in labels if labels.count(v) > 1})
        if repeated:
            raise EvidenceError(f"evidence Series repeats variable(s) {repeated}")
        return dict(zip(labels, evidence.tolist())) or None
    text = repr(evidence)
    text = text if len(text) <= 60 else text[:57] + "..."
    raise TypeError(
        f"evidence must be a mapping {{variable: state}} or a pandas Series, got a {type(evidence).__name__}: {text}"
    )


def impossible_evidence(bn: BayesianNetwork, evidence: Mapping, how: str = "") -> EvidenceError:
    """The error for evidence found impossible, naming it (``how``: what decided it).

    Examples
    --------
    >>> from prunelab import load_network
    >>> impossible_evidence(load_network("deterministic_pair"), {"A": "0", "B": "1"})
    EvidenceError("evidence {A=0, B=1} is impossible in network 'deterministic_pair': P(e) = 0")
    """
    named = ", ".join(f"{v}={s}" for v, s in bn.evidence_names(evidence).items())
    return EvidenceError(f"evidence {{{named}}} is impossible in network {bn.name!r}: P(e) = 0{how}")


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
        x[i] = inverse_cdf_py(row, row.size, rng.random() * row.sum())
    return x


def random_evidence(bn: BayesianNetwork, fraction: float = 0.25, seed=None, exclude=()) -> dict[str, str]:
    """Observe ``ceil(fraction * n)`` variables, set from one forward sample.

    Because the values come from a forward sample, ``P(e) > 0``.

    Parameters
    ----------
    bn : BayesianNetwork
    fraction : float, default 0.25
        Fraction of the variables observed (the paper's "25 % evidence").
    seed : int, SeedSequence, Generator or None
        Which variables, and the forward sample; pass it explicitly. As in
        :func:`prunelab.sample`, a Generator is not used directly: one child is
        spawned from it (``Generator.spawn``), so the caller's generator moves on
        and two calls with it give two evidence sets, reproducibly.
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
    rng = np.random.default_rng(as_seed_sequence(seed))
    chosen = set(rng.choice(candidates, size=k, replace=False).tolist())
    x = forward_sample(bn, rng)
    return {v: bn.states[v][x[i]] for i, v in enumerate(bn.variables) if i in chosen}
