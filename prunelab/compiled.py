"""The flat-array form of a network with evidence, on which the kernels run.

Compiled once per (network, evidence). Every CPT entry of the network is a *label*
in the paper's sense; labels are numbered globally, variable by variable in
``bn.variables`` order, each CPT flattened in C order (parents first, child last).
So the label of variable ``i`` in a full state ``x`` is::

    cpt_offset[i] + sum_k x[parent_k] * parent_stride_k + x[i]

:func:`state_labels` computes it for full states, :func:`entry_label` for one entry
named by its variable and states, and :func:`label_entry` is the inverse.

Nothing here is random and nothing here holds Python objects: kernels (numba or
numpy) receive the arrays of a :class:`CompiledNetwork` directly.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from .network import BayesianNetwork

__all__ = ["CompiledNetwork", "CptEntry", "PlanCache", "PLAN_CACHE_SIZE", "compile_network", "draw_dtype",
           "entry_label", "label_entry", "network_key", "state_labels"]


class CompiledNetwork(NamedTuple):
    """Flat arrays describing a network and its evidence.

    Attributes
    ----------
    cardinality : int64 (n,)
        Number of states per variable (topological order).
    parent_ptr, parent_index, parent_stride : int64
        CSR lists: the parents of variable ``i`` are
        ``parent_index[parent_ptr[i]:parent_ptr[i+1]]`` with their strides in
        ``i``'s flattened CPT.
    cpt_offset : int64 (n + 1,)
        First label of each variable's CPT; ``cpt_offset[n]`` is the number of labels.
    cpt : float64 (n_labels,)
        All CPT entries (the labels' values ``c``).
    family_ptr, family_var, family_stride : int64
        CSR lists of the CPTs that mention variable ``i`` (its own and its
        children's: the Markov-blanket factors), with ``i``'s stride in each.
    evidence_value : int64 (n,)
        The observed state index, or -1 for a free variable.
    free : int64 (n_free,)
        Indices of the free variables, in topological order.
    """

    cardinality: np.ndarray
    parent_ptr: np.ndarray
    parent_index: np.ndarray
    parent_stride: np.ndarray
    cpt_offset: np.ndarray
    cpt: np.ndarray
    family_ptr: np.ndarray
    family_var: np.ndarray
    family_stride: np.ndarray
    evidence_value: np.ndarray
    free: np.ndarray

    @property
    def n_variables(self) -> int:
        """Number of variables, ``n``."""
        return int(self.cardinality.shape[0])

    @property
    def n_labels(self) -> int:
        """Number of CPT labels (entries of ``cpt``), ``cpt_offset[n]``."""
        return int(self.cpt_offset[-1])


def compile_network(bn: BayesianNetwork, evidence: Mapping | None = None) -> CompiledNetwork:
    """Flatten ``bn`` and ``evidence`` into the arrays the sampling kernels use.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping of variable name to state (name or index), optional

    Returns
    -------
    CompiledNetwork

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> net.n_labels
    6
    """
    ev = bn.evidence_indices(evidence)
    n = bn.n_variables
    card = bn.cardinalities
    index = bn._index_map
    # the parents' CSR lists, numpy throughout: a loop per variable is most of the time on large networks
    parent_ptr = np.zeros(n + 1, dtype=np.int64)
    parents = list(bn.parents.values())  # in variables order, without a lookup per variable
    np.cumsum([len(pv) for pv in parents], out=parent_ptr[1:])
    parent_index = np.fromiter((index[p] for pv in parents for p in pv), dtype=np.int64, count=int(parent_ptr[-1]))
    child = np.repeat(np.arange(n, dtype=np.int64), np.diff(parent_ptr))
    # a parent's stride is the child's cardinality times those of the parents after it, so the strides of
    # the last parents are set first, then those of the parents one before, and so on
    from_end = parent_ptr[child + 1] - 1 - np.arange(parent_index.size, dtype=np.int64)
    parent_stride = card[child]
    for r in range(1, int(from_end.max(initial=0)) + 1):
        at = np.flatnonzero(from_end == r)
        parent_stride[at] = parent_stride[at + 1] * card[parent_index[at + 1]]
    cpt_offset = np.zeros(n + 1, dtype=np.int64)
    tables = list(bn.cpts.values())  # in variables order
    np.cumsum([table.size for table in tables], out=cpt_offset[1:])
    cpt = np.concatenate([table.ravel() for table in tables]).astype(np.float64)
    # the family of i: its own CPT (stride 1), then its children's in variable order, i's stride in each
    by_parent = np.argsort(parent_index, kind="stable")  # child order kept within a parent
    n_children = np.bincount(parent_index, minlength=n)
    family_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_children + 1, out=family_ptr[1:])
    family_var = np.empty(family_ptr[-1], dtype=np.int64)
    family_stride = np.empty(family_ptr[-1], dtype=np.int64)
    own = family_ptr[:-1]
    family_var[own] = np.arange(n)
    family_stride[own] = 1
    in_family = np.ones(family_ptr[-1], dtype=np.bool_)
    in_family[own] = False
    family_var[in_family] = child[by_parent]
    family_stride[in_family] = parent_stride[by_parent]
    evidence_value = np.full(n, -1, dtype=np.int64)
    for i, s in ev.items():
        evidence_value[i] = s
    free = np.flatnonzero(evidence_value < 0).astype(np.int64)
    arrays = (
        card.astype(np.int64),
        parent_ptr,
        parent_index,
        parent_stride,
        cpt_offset,
        cpt,
        family_ptr,
        family_var,
        family_stride,
        evidence_value,
        free,
    )
    for a in arrays:
        a.setflags(write=False)
    return CompiledNetwork(*arrays)


def draw_dtype(cardinality: np.ndarray) -> type[np.signedinteger]:
    """The smallest signed integer type that holds every state index (``cardinality - 1``).

    Every chain stores its draws in it (``int8`` on every network pgmpy ships),
    from the sampler's buffer to :class:`~prunelab.sample_result.SampleResult`:
    draws are indices, a draw array is read and written far more than it is
    computed with, and an ``int64`` one is eight times the memory traffic.
    Arithmetic on draws (sums, differences of more than two) should widen first.

    Examples
    --------
    >>> import numpy as np
    >>> draw_dtype(np.array([2, 128])).__name__, draw_dtype(np.array([2, 129])).__name__
    ('int8', 'int16')
    """
    top = int(cardinality.max())
    for dtype in (np.int8, np.int16, np.int32):
        if top - 1 <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def state_labels(net: CompiledNetwork, x: np.ndarray) -> np.ndarray:
    """The label of every variable's CPT entry used by a full state ``x`` (or by each of many).

    ``labels[i] = cpt_offset[i] + x[i] + sum_k x[parent_k(i)] * parent_stride_k(i)``:
    the arithmetic of the module docstring, written out here once.

    Parameters
    ----------
    net : CompiledNetwork
    x : int array (n,) or (m, n)
        State indices in topological order; one state or ``m`` of them.

    Returns
    -------
    int64 array, the shape of ``x``
        ``labels[..., i]`` is the global label of ``P(x_i | x_parents(i))``; the
        probability of a state is ``net.cpt[labels].prod(axis=-1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network, state_labels
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> state_labels(net, np.array([1, 1])).tolist()
    [1, 5]
    >>> state_labels(net, np.array([[0, 0], [1, 1]])).tolist()
    [[0, 2], [1, 5]]
    """
    x = np.asarray(x, dtype=np.int64)
    n = net.n_variables
    # every parent's term x[parent] * stride, then each variable's sum of its CSR run of terms, as a
    # difference of running sums: exact in int64 arithmetic (wrapping included), and in numpy, not a loop
    terms = x[..., net.parent_index] * net.parent_stride
    running = np.zeros(x.shape[:-1] + (terms.shape[-1] + 1,), dtype=np.int64)
    np.cumsum(terms, axis=-1, out=running[..., 1:])
    return net.cpt_offset[:n] + x + running[..., net.parent_ptr[1:]] - running[..., net.parent_ptr[:-1]]


class CptEntry(NamedTuple):
    """The CPT entry a label stands for (:func:`label_entry`): indices, not names.

    Attributes
    ----------
    variable : int
        Index in ``bn.variables``.
    state : int
        The variable's state.
    parent_states : tuple of int
        The parents' states, in ``bn.parents[variable]`` order.
    row : int
        The parents' configuration numbered in C order: the row of the CPT flattened
        to ``(configurations, states)``.
    """

    variable: int
    state: int
    parent_states: tuple[int, ...]
    row: int


def entry_label(bn: BayesianNetwork, net: CompiledNetwork, variable: str, state: str,
                given: Mapping[str, str] | None = None) -> int:
    """The global label of the CPT entry ``P(variable = state | parents as in given)``, by names.

    Parameters
    ----------
    bn : BayesianNetwork
    net : CompiledNetwork
        ``bn`` compiled (with any evidence: labels do not depend on it).
    variable, state : str
    given : mapping of str to str, optional
        A state of every parent of ``variable`` (other names are ignored, so a full
        state as a dict will do).

    Returns
    -------
    int

    Raises
    ------
    KeyError
        A parent of ``variable`` without a state in ``given``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> bn = load_network("deterministic_pair")
    >>> net = compile_network(bn)
    >>> entry_label(bn, net, "B", "1", {"A": "1"}), label_entry(net, 5)
    (5, CptEntry(variable=1, state=1, parent_states=(1,), row=1))
    """
    given = {} if given is None else given
    missing = [p for p in bn.parents[variable] if p not in given]
    if missing:
        raise KeyError(f"the entry of {variable!r} needs a state of its parent(s) {missing}")
    index = tuple(bn.state_index(p, given[p]) for p in bn.parents[variable]) + (bn.state_index(variable, state),)
    return int(net.cpt_offset[bn.index(variable)] + np.ravel_multi_index(index, bn.cpts[variable].shape))


def label_entry(net: CompiledNetwork, label: int) -> CptEntry:
    """The CPT entry of a global label: the inverse of :func:`entry_label` (see :class:`CptEntry`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> [label_entry(net, label).variable for label in range(net.n_labels)]
    [0, 0, 1, 1, 1, 1]
    """
    label = int(label)
    if not 0 <= label < net.n_labels:
        raise ValueError(f"label {label} is not one of the network's {net.n_labels} labels")
    i = int(np.searchsorted(net.cpt_offset, label, side="right")) - 1
    row, state = divmod(label - int(net.cpt_offset[i]), int(net.cardinality[i]))
    lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
    shape = tuple(int(net.cardinality[p]) for p in net.parent_index[lo:hi])
    parent_states = tuple(int(s) for s in np.unravel_index(row, shape)) if shape else ()
    return CptEntry(i, int(state), parent_states, int(row))


PLAN_CACHE_SIZE = 32
"""Networks (with their evidence) a :class:`PlanCache` keeps, the most recently used."""


def network_key(net: CompiledNetwork) -> bytes:
    """A digest of every array of ``net``: equal networks with equal evidence share it.

    Examples
    --------
    >>> from prunelab import load_network
    >>> bn = load_network("asia")
    >>> network_key(compile_network(bn)) == network_key(compile_network(bn))
    True
    >>> network_key(compile_network(bn)) == network_key(compile_network(bn, {"xray": "yes"}))
    False
    """
    digest = hashlib.blake2b(digest_size=16)
    for a in net:
        a = np.ascontiguousarray(a)
        digest.update(str((a.dtype.str, a.shape)).encode())
        digest.update(a.tobytes())
    return digest.digest()


class PlanCache:
    """A small least-recently-used cache of compiled plans, keyed by :func:`network_key`.

    Every plan compiled once per (network, evidence) is cached in one: the samplers' plans and the
    prune draws' (:mod:`prunelab.samplers.prune.sampler`).

    ``compile_network`` builds a new object for every chain, so the key is the
    content, not the identity.

    Examples
    --------
    >>> from prunelab import load_network
    >>> sizes = PlanCache(lambda net: net.n_labels)
    >>> sizes(compile_network(load_network("deterministic_pair")))
    6
    """

    def __init__(self, compile_plan, size: int = PLAN_CACHE_SIZE):
        self._compile = compile_plan
        self._size = size
        self._plans: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, net: CompiledNetwork, **caps):
        """The plan of ``net``: compiled on first use, then from the cache.

        ``caps`` go to the compilation, if it runs now: they bound how long it may try (and it raises past them),
        never what it gives, so a plan cached is the plan whatever the caps.
        """
        key = network_key(net)
        with self._lock:
            plan = self._plans.get(key)
            if plan is not None:
                self._plans.move_to_end(key)
                return plan
        plan = self._compile(net, **caps)
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > self._size:
                self._plans.popitem(last=False)
        return plan
