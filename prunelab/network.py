"""The discrete Bayesian network: names, states, parents, CPTs, and evidence.

A :class:`BayesianNetwork` is immutable. Its CPT for a variable ``X`` with parents
``(P1, ..., Pk)`` is an array of shape ``(|P1|, ..., |Pk|, |X|)``: the last axis is
the child's own state, so ``cpt[p1, ..., pk]`` is the conditional distribution
``P(X | P1=p1, ..., Pk=pk)``. Variables are kept in a topological order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

__all__ = ["BayesianNetwork", "NetworkError", "EvidenceError"]

SUM_TOLERANCE = 1e-6


class NetworkError(ValueError):
    """A network that cannot be built: a cycle, a bad CPT, an unknown name."""


class EvidenceError(ValueError):
    """Evidence that names an unknown variable or state, or that is impossible."""


def _format_config(parents: Sequence[str], states: Mapping[str, Sequence[str]], config) -> str:
    if not parents:
        return "(no parents)"
    return ", ".join(f"{p}={states[p][i]}" for p, i in zip(parents, config))


def _topological_order(names: Sequence[str], parents: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """Kahn's algorithm, stable in the given order; raises on a cycle."""
    remaining = {v: set(parents[v]) for v in names}
    order: list[str] = []
    placed: set[str] = set()
    while remaining:
        ready = [v for v in names if v in remaining and remaining[v] <= placed]
        if not ready:
            cycle = _find_cycle(remaining)
            raise NetworkError(
                "the graph has a cycle: " + " -> ".join(cycle + [cycle[0]])
            )
        for v in ready:
            order.append(v)
            placed.add(v)
            del remaining[v]
    return tuple(order)


def _find_cycle(remaining: Mapping[str, set[str]]) -> list[str]:
    """One cycle among the variables that could not be ordered (parent -> child)."""
    start = next(iter(remaining))
    path: list[str] = []
    seen: dict[str, int] = {}
    v = start
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = next(p for p in remaining[v] if p in remaining)
    cycle = path[seen[v]:]
    return cycle[::-1]


@dataclass(frozen=True, eq=False)
class BayesianNetwork:
    """A discrete Bayesian network with named variables and named states.

    Parameters
    ----------
    states : mapping of str to sequence of str
        Every variable's state names, in CPT order.
    parents : mapping of str to sequence of str
        Every variable's parents; the CPT's leading axes follow this order.
    cpts : mapping of str to array_like
        ``cpts[X]`` has shape ``(*[|P| for P in parents[X]], |X|)``.
    name : str, optional
        A label for the network (shown in ``repr``).
    normalize : bool, default False
        Divide every conditional distribution by its sum. Use it for files whose
        numbers are printed to few digits; without it a row that does not sum to 1
        within ``1e-6`` is an error.

    Attributes
    ----------
    variables : tuple of str
        Variable names in a topological order (parents before children).
    states, parents, cpts : read-only mappings
        As given, keyed by variable; CPT arrays are read-only float64.

    Raises
    ------
    NetworkError
        On a cycle, an unknown parent, a CPT of the wrong shape, an entry outside
        [0, 1], or a row that does not sum to 1. The message names the variable and
        the parent configuration at fault.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import BayesianNetwork
    >>> bn = BayesianNetwork(
    ...     states={"A": ["0", "1"], "B": ["0", "1"]},
    ...     parents={"A": [], "B": ["A"]},
    ...     cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.0, 1.0]]},
    ... )
    >>> bn.variables
    ('A', 'B')
    """

    states: Mapping[str, tuple[str, ...]]
    parents: Mapping[str, tuple[str, ...]]
    cpts: Mapping[str, np.ndarray]
    name: str = "network"
    normalize: bool = field(default=False, repr=False)
    variables: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        names = list(self.states)
        if not names:
            raise NetworkError("a network needs at least one variable")
        states = {}
        for v in names:
            sv = tuple(str(s) for s in self.states[v])
            if len(sv) < 1:
                raise NetworkError(f"variable {v!r} has no states")
            if len(set(sv)) != len(sv):
                raise NetworkError(f"variable {v!r} has repeated state names: {list(sv)}")
            states[v] = sv
        for key, what in ((self.parents, "parents"), (self.cpts, "cpts")):
            extra = set(key) - set(names)
            if extra:
                raise NetworkError(
                    f"{what} given for unknown variable(s) {sorted(extra)}; variables are {names}"
                )
        parents = {}
        for v in names:
            pv = tuple(self.parents.get(v, ()))
            for p in pv:
                if p not in states:
                    raise NetworkError(
                        f"variable {v!r} has unknown parent {p!r}; variables are {names}"
                    )
            if len(set(pv)) != len(pv) or v in pv:
                raise NetworkError(f"variable {v!r} has repeated or self parents: {list(pv)}")
            parents[v] = pv
        order = _topological_order(names, parents)
        cpts = {}
        for v in order:
            if v not in self.cpts:
                raise NetworkError(f"variable {v!r} has no CPT")
            cpts[v] = self._checked_cpt(v, self.cpts[v], states, parents[v])
        object.__setattr__(self, "states", MappingProxyType({v: states[v] for v in order}))
        object.__setattr__(self, "parents", MappingProxyType({v: parents[v] for v in order}))
        object.__setattr__(self, "cpts", MappingProxyType(cpts))
        object.__setattr__(self, "variables", order)

    def _checked_cpt(self, v, table, states, pv) -> np.ndarray:
        shape = tuple(len(states[p]) for p in pv) + (len(states[v]),)
        try:
            arr = np.array(table, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise NetworkError(f"CPT of {v!r} is not numeric: {exc}") from None
        if arr.shape != shape:
            if arr.size == int(np.prod(shape)) and arr.ndim == 1 and len(shape) > 1:
                raise NetworkError(
                    f"CPT of {v!r} is flat with {arr.size} entries; give it shape {shape} "
                    f"(parents {list(pv)} then {v!r})"
                )
            raise NetworkError(
                f"CPT of {v!r} has shape {arr.shape}, expected {shape} "
                f"(parents {list(pv)} then {v!r})"
            )
        bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
        if self.normalize:
            bad = ~np.isfinite(arr) | (arr < 0)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise NetworkError(
                f"CPT of {v!r} has entry {float(arr[idx])!r} outside [0, 1] at "
                f"{v}={states[v][idx[-1]]} given {_format_config(pv, states, idx[:-1])}"
            )
        sums = arr.sum(axis=-1)
        if self.normalize:
            if (sums <= 0).any():
                idx = tuple(int(i) for i in np.argwhere(sums <= 0)[0])
                raise NetworkError(
                    f"CPT of {v!r} has an all-zero row given {_format_config(pv, states, idx)}"
                )
            arr = arr / sums[..., None]
        else:
            off = np.abs(sums - 1.0) > SUM_TOLERANCE
            if off.any():
                idx = tuple(int(i) for i in np.argwhere(off)[0])
                raise NetworkError(
                    f"CPT of {v!r} does not sum to 1 given {_format_config(pv, states, idx)}: "
                    f"sum is {sums[idx]:.9g} (pass normalize=True to rescale rows)"
                )
        arr.setflags(write=False)
        return arr

    # ------------------------------------------------------------------ lookups
    @property
    def n_variables(self) -> int:
        """Number of variables."""
        return len(self.variables)

    @property
    def cardinalities(self) -> np.ndarray:
        """Number of states of each variable, in ``variables`` order."""
        return np.array([len(self.states[v]) for v in self.variables], dtype=np.int64)

    def index(self, variable: str) -> int:
        """Position of ``variable`` in :attr:`variables`; error lists the valid names."""
        try:
            return self._index_map[variable]
        except KeyError:
            raise KeyError(
                f"unknown variable {variable!r} in network {self.name!r}; "
                f"variables are {list(self.variables)}"
            ) from None

    @property
    def _index_map(self) -> dict[str, int]:
        cache = self.__dict__.get("_index_cache")
        if cache is None:
            cache = {v: i for i, v in enumerate(self.variables)}
            object.__setattr__(self, "_index_cache", cache)
        return cache

    def state_index(self, variable: str, state) -> int:
        """Index of ``state`` (a name, or an integer index) among ``variable``'s states."""
        names = self.states[variable] if variable in self.states else None
        if names is None:
            self.index(variable)
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            if 0 <= int(state) < len(names):
                return int(state)
        elif str(state) in names:
            return names.index(str(state))
        raise EvidenceError(
            f"unknown state {state!r} of variable {variable!r}; states are {list(names)}"
        )

    def children(self, variable: str) -> tuple[str, ...]:
        """Variables that have ``variable`` as a parent."""
        self.index(variable)
        return tuple(v for v in self.variables if variable in self.parents[v])

    @property
    def n_parameters(self) -> int:
        """Number of CPT entries (the paper's CPT labels)."""
        return int(sum(c.size for c in self.cpts.values()))

    def evidence_indices(self, evidence: Mapping | None) -> dict[int, int]:
        """Check evidence and return it as ``{variable index: state index}``.

        Parameters
        ----------
        evidence : mapping of str to state name (or state index), or None

        Raises
        ------
        EvidenceError
            An unknown variable or state; the message lists the valid names.
        """
        if not evidence:
            return {}
        out = {}
        for var, state in evidence.items():
            if var not in self.states:
                raise EvidenceError(
                    f"evidence names unknown variable {var!r}; variables are {list(self.variables)}"
                )
            out[self.index(var)] = self.state_index(var, state)
        return out

    def evidence_names(self, evidence: Mapping | None) -> dict[str, str]:
        """Evidence with every state given by its name."""
        return {
            self.variables[i]: self.states[self.variables[i]][s]
            for i, s in self.evidence_indices(evidence).items()
        }

    def log_probability(self, state) -> float:
        """log P(x) of a full state given as state indices in ``variables`` order."""
        x = np.asarray(state, dtype=np.int64)
        total = 0.0
        for i, v in enumerate(self.variables):
            idx = tuple(x[self.index(p)] for p in self.parents[v]) + (x[i],)
            p = self.cpts[v][idx]
            if p == 0.0:
                return -np.inf
            total += np.log(p)
        return float(total)

    def __repr__(self) -> str:
        return (
            f"BayesianNetwork(name={self.name!r}, variables={self.n_variables}, "
            f"parameters={self.n_parameters})"
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, BayesianNetwork):
            return NotImplemented
        return (
            self.variables == other.variables
            and dict(self.states) == dict(other.states)
            and dict(self.parents) == dict(other.parents)
            and all(np.array_equal(self.cpts[v], other.cpts[v]) for v in self.variables)
        )

    __hash__ = object.__hash__

    def __reduce__(self):
        # read-only mapping proxies do not pickle; rebuild from plain dicts
        plain = (
            {v: list(s) for v, s in self.states.items()},
            {v: list(p) for v, p in self.parents.items()},
            {v: np.array(c) for v, c in self.cpts.items()},
            self.name,
        )
        return (BayesianNetwork, plain)
