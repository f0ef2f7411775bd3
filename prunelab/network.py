"""The discrete Bayesian network: names, states, parents, CPTs, and evidence.

A :class:`BayesianNetwork` is immutable. Its CPT for a variable ``X`` with parents
``(P1, ..., Pk)`` is an array of shape ``(|P1|, ..., |Pk|, |X|)``: the last axis is
the child's own state, so ``cpt[p1, ..., pk]`` is the conditional distribution
``P(X | P1=p1, ..., Pk=pk)``. Variables are kept in a topological order.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

__all__ = ["BayesianNetwork", "NetworkError", "EvidenceError", "MAX_CPT_ENTRIES", "check_cpt_size", "collector_paused"]

SUM_TOLERANCE = 1e-6

MAX_CPT_ENTRIES = 2**24
"""Largest CPT accepted (16 777 216 float64 entries, 128 MiB).

The largest CPT among the networks pgmpy ships (``mildew``, ``dm_4``) has 280 000
entries. A declared size above the cap is an error before anything is allocated.
"""


_BULK_ENTRIES = 4096
"""CPTs of at most this many entries have their values checked together (see ``_checked_cpts``)."""


class NetworkError(ValueError):
    """A network that cannot be built: a cycle, a bad CPT, an unknown name."""


class EvidenceError(ValueError):
    """Evidence that names an unknown variable or state, or that is impossible."""


def check_cpt_size(variable: str, shape: Sequence[int]) -> int:
    """Number of entries of a CPT of ``shape``; an error above :data:`MAX_CPT_ENTRIES`.

    Parameters
    ----------
    variable : str
        The CPT's variable, for the message.
    shape : sequence of int
        Parent cardinalities, then the variable's own.

    Returns
    -------
    int
        ``prod(shape)``, computed exactly (no overflow).

    Raises
    ------
    NetworkError
        The size exceeds the cap; the message names the variable, shape and size.

    Examples
    --------
    >>> check_cpt_size("X", (3, 2))
    6
    """
    size = math.prod(map(int, shape))
    if size > MAX_CPT_ENTRIES:
        raise NetworkError(
            f"CPT of {variable!r} would have {size} entries (shape {tuple(int(k) for k in shape)}), "
            f"more than MAX_CPT_ENTRIES = {MAX_CPT_ENTRIES}"
        )
    return size


@contextlib.contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector for a block (or, as a decorator, a function); restore it after.

    For a construction or compilation that allocates millions of small sets, lists and tuples and makes no
    reference cycles: the collector's passes over them (a full pass visits every live container) cost 1.0
    of 2.8 CPU seconds of a 65,536-node chain's counting plan, 0.15 of 0.8 of its construction. Garbage is
    freed by reference counting meanwhile, as always. The collector is on again after the outermost block if
    it was on before (a block in another thread may find it on early: only its speed depends on it).

    Examples
    --------
    >>> import gc
    >>> from prunelab.network import collector_paused
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def format_listing(names: Sequence, limit: int = 10) -> str:
    """``names`` as a list for a message; long lists are cut after ``limit`` items."""
    names = list(names)
    if len(names) <= limit:
        return repr(names)
    return repr(names[:limit])[:-1] + f", ...] ({len(names)} in all)"


def format_config(parents: Sequence[str], states: Mapping[str, Sequence[str]], config) -> str:
    """A parent configuration for a message, ``"A=a1, B=b0"`` (``"(no parents)"`` for none)."""
    if not parents:
        return "(no parents)"
    return ", ".join(f"{p}={states[p][i]}" for p, i in zip(parents, config))


def _names(items, owner: str, kind: str) -> tuple[str, ...]:
    """``items`` as a tuple of distinct strings, in order; ``owner`` and ``kind`` word the errors."""
    if type(items) not in (list, tuple) and (  # the common case first: the ABC checks cost microseconds
            isinstance(items, (str, bytes, Mapping, Set)) or not isinstance(items, Iterable)):
        raise NetworkError(f"{owner}: {kind} names must be an ordered list of strings, found {items!r}")
    items = tuple(items)
    if not items or set(map(type, items)) == {str}:  # the common case, in a few calls that loop in C
        given = set(items)
        if len(given) == len(items):
            if "".join(items).isascii():  # an ASCII name is its own NFC form
                return items
            odd = [s for s in items if not s.isascii()]
            if len(given.difference(odd).union(unicodedata.normalize("NFC", s) for s in odd)) == len(items):
                return items
    given = set()  # the names as given: one hash lookup per name, so linear in their number
    seen: dict[str, str] = {}  # NFC form -> the name as given
    for s in items:
        if not isinstance(s, str):
            raise NetworkError(f"{owner}: {kind} name {s!r} has type {type(s).__name__}, not str")
        if s in given:
            raise NetworkError(f"{owner} has repeated {kind} names: {s!r} in {format_listing(items)}")
        given.add(s)
        nfc = unicodedata.normalize("NFC", s)
        if nfc in seen:
            raise NetworkError(
                f"{owner} has {kind} names {seen[nfc]!r} and {s!r} that differ only in their Unicode "
                "normalization (NFC and NFD spellings of one name); spell them alike, or differently"
            )
        seen[nfc] = s
    return tuple(str(s) for s in items)


def _topological_order(names: Sequence[str], parents: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """Parents before children: by depth, ties in the given order; raises on a cycle.

    A variable's depth is 0 without parents, else one more than its deepest parent.
    Sorting by depth, stably, gives the order of placing, round after round, every
    variable whose parents are all placed; this computes it in time linear in the
    number of variables and edges (Kahn's algorithm with a work list).
    """
    # Over indices into names, in lists: a dict lookup by name is a cache miss on a large network (on a chain of
    # 262,144 variables the dicts of names made this 48 times slower than at 16,384).
    index = {v: i for i, v in enumerate(names)}
    children: list[list[int]] = [[] for _ in names]
    waiting = [len(parents[v]) for v in names]
    for i, v in enumerate(names):
        for p in parents[v]:
            children[index[p]].append(i)
    depth = [0] * len(names)
    ready = [i for i, w in enumerate(waiting) if not w]
    while ready:
        i = ready.pop()
        below = depth[i] + 1
        for c in children[i]:
            if depth[c] < below:
                depth[c] = below
            waiting[c] -= 1
            if not waiting[c]:
                ready.append(c)
    stuck = {v: parents[v] for v, w in zip(names, waiting) if w}
    if stuck:
        cycle = _find_cycle(stuck)
        shown = cycle + [cycle[0]] if len(cycle) <= 10 else cycle[:10] + [f"... ({len(cycle)} variables)"]
        raise NetworkError("the graph has a cycle: " + " -> ".join(shown))
    layers: list[list[str]] = [[] for _ in range(max(depth) + 1)]
    for v, d in zip(names, depth):
        layers[d].append(v)
    return tuple(v for layer in layers for v in layer)


def _find_cycle(stuck: Mapping[str, Sequence[str]]) -> list[str]:
    """One cycle among variables that could not be ordered (parent -> child).

    Every such variable has a parent among them, so walking up from any of them
    comes back to a variable already seen.
    """
    path: list[str] = []
    seen: dict[str, int] = {}
    v = next(iter(stuck))
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = next(p for p in stuck[v] if p in stuck)
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
        On a name that is not a string, a repeated state or parent name, a cycle,
        an unknown parent, a CPT of the wrong shape or above
        :data:`MAX_CPT_ENTRIES`, an entry outside [0, 1], or a row that does not
        sum to 1 (or, with ``normalize``, sums to 0 or past the largest float).
        The message names the variable and the parent configuration at fault.

    Notes
    -----
    Two networks are equal when their variables (in order), states, parents and
    CPTs are; the name does not count. Equal networks hash equal (the hash is
    computed once, on first use). Construction takes time linear in the number of
    variables, edges and CPT entries.

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

    @collector_paused()
    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise NetworkError(f"the network's name must be a string, found {type(self.name).__name__} {self.name!r}")
        for arg, what in ((self.states, "states"), (self.parents, "parents"), (self.cpts, "cpts")):
            if not isinstance(arg, Mapping):
                raise NetworkError(f"{what} must be a mapping keyed by variable name, found {type(arg).__name__}")
        names = list(_names(list(self.states), "the network", "variable"))
        if not names:
            raise NetworkError("a network needs at least one variable")
        states = {}
        for v, given in zip(names, self.states.values()):  # values in the order of the names, no lookups
            sv = _names(given, f"variable {v!r}", "state")
            if not sv:
                raise NetworkError(f"variable {v!r} has no states")
            states[v] = sv
        for key, what in ((self.parents, "parents"), (self.cpts, "cpts")):
            extra = [k for k in key if k not in states]
            if extra:
                raise NetworkError(
                    f"{what} given for unknown variable(s) {format_listing(extra)}; "
                    f"variables are {format_listing(names)}"
                )
        parents = {}
        for v in names:
            pv = _names(self.parents.get(v, ()), f"variable {v!r}", "parent")
            for p in pv:
                if p not in states:
                    raise NetworkError(
                        f"variable {v!r} has unknown parent {p!r}; variables are {format_listing(names)}"
                    )
            if v in pv:
                raise NetworkError(f"variable {v!r} is its own parent: {list(pv)}")
            parents[v] = pv
        order = _topological_order(names, parents)
        cpts = self._checked_cpts(order, states, parents)
        if order != tuple(names):  # the dicts in topological order (as given, usually: kept)
            states, parents = {v: states[v] for v in order}, {v: parents[v] for v in order}
        object.__setattr__(self, "states", MappingProxyType(states))
        object.__setattr__(self, "parents", MappingProxyType(parents))
        object.__setattr__(self, "cpts", MappingProxyType(cpts))
        object.__setattr__(self, "variables", order)

    def _checked_cpts(self, order, states, parents) -> dict[str, np.ndarray]:
        """Every CPT as a read-only float64 array, checked in ``order``: the first fault is the error.

        Shapes are checked one CPT at a time, values all at once (a few numpy calls
        for the whole network rather than a few per CPT, which dominated construction
        on networks of many small CPTs); only when the values fail are the CPTs
        checked one by one, for the message.
        """
        cpts: dict[str, np.ndarray] = {}
        fault = None
        for v in order:
            try:
                if v not in self.cpts:
                    raise NetworkError(f"variable {v!r} has no CPT")
                cpts[v] = self._shaped_cpt(v, self.cpts[v], states, parents[v])
            except NetworkError as exc:
                fault = exc  # raised after the values of the CPTs before it are checked
                break
        small = {v: arr for v, arr in cpts.items() if arr.size <= _BULK_ENTRIES}  # no large copy
        fits = not self.normalize and bool(small) and self._values_fit(small, states)
        for v, arr in cpts.items():
            if fits and v in small:
                arr.setflags(write=False)
            else:
                cpts[v] = self._checked_values(v, arr, states, parents[v])
        if fault is not None:
            raise fault
        return cpts

    @staticmethod
    def _values_fit(cpts: Mapping[str, np.ndarray], states) -> bool:
        """Whether every entry is in [0, 1] and every row sums to 1 within the tolerance (no message)."""
        flat = np.concatenate([arr.ravel() for arr in cpts.values()])
        if not ((flat >= 0).all() and (flat <= 1).all()):  # NaN fails both
            return False
        row_length = np.array([len(states[v]) for v in cpts], dtype=np.int64)
        n_rows = np.array([arr.size for arr in cpts.values()], dtype=np.int64) // row_length
        lengths = np.repeat(row_length, n_rows)
        starts = np.cumsum(lengths) - lengths
        sums = np.add.reduceat(flat, starts) if flat.size else flat
        return not (np.abs(sums - 1.0) > SUM_TOLERANCE).any()

    def _shaped_cpt(self, v, table, states, pv) -> np.ndarray:
        """``table`` as a float64 array of the CPT's shape (its size checked first), values not checked."""
        shape = tuple(len(states[p]) for p in pv) + (len(states[v]),)
        check_cpt_size(v, shape)
        try:
            arr = np.array(table, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise NetworkError(f"CPT of {v!r} is not numeric: {exc}") from None
        if arr.shape != shape:
            if arr.size == math.prod(shape) and arr.ndim == 1 and len(shape) > 1:
                raise NetworkError(
                    f"CPT of {v!r} is flat with {arr.size} entries; give it shape {shape} "
                    f"(parents {list(pv)} then {v!r})"
                )
            raise NetworkError(
                f"CPT of {v!r} has shape {arr.shape}, expected {shape} "
                f"(parents {list(pv)} then {v!r})"
            )
        return arr

    def _checked_values(self, v, arr, states, pv) -> np.ndarray:
        """``arr`` checked (entries, row sums), rescaled with ``normalize``, read-only."""
        bad = ~np.isfinite(arr) | (arr < 0)
        if not self.normalize:
            bad |= arr > 1
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise NetworkError(
                f"CPT of {v!r} has entry {float(arr[idx])!r} outside [0, 1] at "
                f"{v}={states[v][idx[-1]]} given {format_config(pv, states, idx[:-1])}"
            )
        with np.errstate(over="ignore"):
            sums = arr.sum(axis=-1)
        if self.normalize:
            if (sums <= 0).any():
                idx = tuple(int(i) for i in np.argwhere(sums <= 0)[0])
                raise NetworkError(
                    f"CPT of {v!r} has an all-zero row given {format_config(pv, states, idx)}"
                )
            if not np.isfinite(sums).all():
                idx = tuple(int(i) for i in np.argwhere(~np.isfinite(sums))[0])
                raise NetworkError(
                    f"CPT of {v!r} cannot be normalized given {format_config(pv, states, idx)}: "
                    f"its row {arr[idx].tolist()} sums past the largest float"
                )
            arr = arr / sums[..., None]
        else:
            off = np.abs(sums - 1.0) > SUM_TOLERANCE
            if off.any():
                idx = tuple(int(i) for i in np.argwhere(off)[0])
                raise NetworkError(
                    f"CPT of {v!r} does not sum to 1 given {format_config(pv, states, idx)}: "
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
        return np.array([len(s) for s in self.states.values()], dtype=np.int64)  # kept in variables order

    def index(self, variable: str) -> int:
        """Position of ``variable`` in :attr:`variables`; error lists the valid names."""
        try:
            return self._index_map[variable]
        except KeyError:
            raise KeyError(
                f"unknown variable {variable!r} in network {self.name!r}; "
                f"variables are {format_listing(self.variables)}"
            ) from None

    @property
    def _index_map(self) -> dict[str, int]:
        cache = self.__dict__.get("_index_cache")
        if cache is None:
            cache = {v: i for i, v in enumerate(self.variables)}
            object.__setattr__(self, "_index_cache", cache)
        return cache

    def state_index(self, variable: str, state) -> int:
        """Index of ``state`` (a name, or an integer index) among ``variable``'s states.

        An integer that could be read both ways (states ``["1", "2", "3"]`` and
        ``1``: index 1 is ``"2"``, but a state is named ``"1"``) is refused: give the
        name as a string.
        """
        names = self.states[variable] if variable in self.states else None
        if names is None:
            self.index(variable)
        if isinstance(state, (int, np.integer)) and not isinstance(state, bool):
            if 0 <= int(state) < len(names):
                if str(int(state)) in names and names.index(str(int(state))) != int(state):
                    raise EvidenceError(
                        f"state {int(state)} of variable {variable!r} is ambiguous: index {int(state)} is state "
                        f"{names[int(state)]!r}, but a state is named {str(int(state))!r}; give the state's name as "
                        f"a string ({names[int(state)]!r} or {str(int(state))!r})"
                    )
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
                    f"evidence names unknown variable {var!r}; variables are {format_listing(self.variables)}"
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

    def __hash__(self) -> int:
        # Consistent with __eq__ (the name is left out of both), since the junction
        # trees of exact inference are cached by network.
        return hash(self.fingerprint)

    @property
    def fingerprint(self) -> bytes:
        """A digest of what the network is: variables, states, parents and CPTs (not its name).

        Equal networks (``==``) have equal fingerprints, and unequal ones different
        fingerprints short of a 128-bit collision: a cache keyed on it serves a
        network's equal and nothing else, and keeps no reference to the network.
        Computed once.

        Examples
        --------
        >>> from prunelab import load_network
        >>> load_network("asia").fingerprint == load_network("asia").fingerprint
        True
        >>> load_network("asia").fingerprint == load_network("alarm").fingerprint
        False
        """
        cached = self.__dict__.get("_fingerprint")
        if cached is None:
            digest = hashlib.blake2b(digest_size=16)
            digest.update(repr((self.variables, tuple(self.states.values()), tuple(self.parents.values()))).encode())
            for v in self.variables:
                digest.update((self.cpts[v] + 0.0).tobytes())  # + 0.0 turns -0.0 into 0.0, its equal
            cached = digest.digest()
            object.__setattr__(self, "_fingerprint", cached)
        return cached

    def __reduce__(self):
        # read-only mapping proxies do not pickle; rebuild from plain dicts
        plain = (
            {v: list(s) for v, s in self.states.items()},
            {v: list(p) for v, p in self.parents.items()},
            {v: np.array(c) for v, c in self.cpts.items()},
            self.name,
        )
        return (BayesianNetwork, plain)
