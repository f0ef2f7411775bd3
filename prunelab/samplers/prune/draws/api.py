"""Public API of the uniform draws of the counting plan: count, list, draw, time.

See :mod:`prunelab.samplers.prune.draws` for the ways to draw.
"""

from __future__ import annotations

import time

import numpy as np

from prunelab.compiled import CompiledNetwork

from ..plan import checked_kept, make_workspace
from .compiler import DEFAULT_MAX_RESTARTS, DEFAULT_N_CANDIDATES, UniformPlan, uniform_plan
from .counting import count_nb
from .kernels import repeat_draws_nb, uniform_draw_nb
from .reference import search_py, uniform_draw_py
from .registry import UNIFORM_NAMES, uniform_index

__all__ = [
    "count_pruned_states",
    "enumerate_pruned_states",
    "seconds_per_uniform_draw",
    "uniform_pruned_state",
]


def _start_state(net: CompiledNetwork, x=None) -> np.ndarray:
    y = np.zeros(net.n_variables, dtype=np.int64) if x is None else np.array(x, dtype=np.int64)
    observed = net.evidence_value >= 0
    y[observed] = net.evidence_value[observed]
    return y


def count_pruned_states(net: CompiledNetwork, kept, plan: UniformPlan | None = None) -> float:
    """|S|: the number of evidence-consistent states whose labels are all kept.

    Parameters
    ----------
    net : CompiledNetwork
    kept : bool array (n_labels,)
        ``kept[l]`` is False when label ``l`` is pruned.
    plan : UniformPlan, optional
        Default: :func:`uniform_plan` of ``net``.

    Returns
    -------
    float
        The count, by variable elimination (exact below ``2**53``).

    See Also
    --------
    enumerate_pruned_states, uniform_pruned_state

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.api import count_pruned_states
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> count_pruned_states(net, net.cpt > 0)
    2.0
    """
    plan = uniform_plan(net) if plan is None else plan
    ws = make_workspace(net, plan, 1)
    kept = checked_kept(net, kept)
    return float(count_nb(plan, kept, ws.factors, ws.tables, ws.counter, ws.radix, ws.stride, ws.base))


def enumerate_pruned_states(net: CompiledNetwork, kept, plan: UniformPlan | None = None) -> np.ndarray:
    """Every member of ``S``, by the paper's depth-first search (numpy reference).

    Parameters
    ----------
    net : CompiledNetwork
    kept : bool array (n_labels,)
    plan : UniformPlan, optional

    Returns
    -------
    int64 array (|S|, n)
        Full states (evidence included) in the search's lexicographic order.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.api import enumerate_pruned_states
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> enumerate_pruned_states(net, net.cpt > 0).tolist()
    [[0, 0], [1, 1]]
    """
    plan = uniform_plan(net) if plan is None else plan
    members, _ = search_py(net, plan, checked_kept(net, kept), _start_state(net))
    return np.array(members, dtype=np.int64).reshape(len(members), net.n_variables)


def uniform_pruned_state(
    rng: np.random.Generator,
    net: CompiledNetwork,
    kept,
    x=None,
    uniform: str = "auto",
    *,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    node_budget: int | None = None,
    plan: UniformPlan | None = None,
    reference: bool = False,
) -> tuple[np.ndarray, float, str]:
    """One state drawn uniformly from the pruned set ``S``.

    Parameters
    ----------
    rng : numpy.random.Generator
    net : CompiledNetwork
    kept : bool array (n_labels,)
        Which labels survived the pruning.
    x : int array (n,), optional
        The state pruned around (returned by ``"heuristic"`` if no candidate
        completes). Default: ``S``'s draw does not need it.
    uniform : {"auto", "enumerate", "count", "heuristic"}
        See the module docstring. ``"heuristic"`` is approximate (biased).
    n_candidates, max_restarts : int
        Size of ``V`` and restarts per candidate, for ``"heuristic"``.
    node_budget : int, optional
        Search nodes ``"auto"`` allows before counting (default: the plan's).
    plan : UniformPlan, optional
    reference : bool, default False
        Run the readable numpy reference instead of the numba kernel (same draws).

    Returns
    -------
    y : int64 array (n,)
        The drawn state (evidence included). If ``S`` is empty, the evidence
        values and zeros.
    size : float
        ``|S|``; for ``"heuristic"`` the number of distinct members of ``V``.
    uniform : str
        The uniform draw that ran: ``"enumerate"``, ``"count"`` or ``"heuristic"``.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.samplers.prune.draws.api import uniform_pruned_state
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> y, size, how = uniform_pruned_state(np.random.default_rng(0), net, net.cpt > 0)
    >>> bool(y[0] == y[1]), size, how
    (True, 2.0, 'enumerate')
    """
    code = uniform_index(uniform)
    plan = uniform_plan(net) if plan is None else plan
    kept = checked_kept(net, kept)
    x = _start_state(net, x)
    y = _start_state(net)
    budget = plan.node_budget if node_budget is None else int(node_budget)
    if reference:
        size, used, _ = uniform_draw_py(rng, net, plan, kept, x, y, code, n_candidates, max_restarts, budget)
    else:
        ws = make_workspace(net, plan, n_candidates)
        size, used = uniform_draw_nb(
            rng, net, plan, kept, x, y, code, n_candidates, max_restarts, budget, ws
        )
    if size == 0:
        y = _start_state(net)
    return y, float(size), UNIFORM_NAMES[used]


def seconds_per_uniform_draw(
    rng: np.random.Generator,
    net: CompiledNetwork,
    kept,
    x=None,
    uniform: str = "auto",
    *,
    n_candidates: int = DEFAULT_N_CANDIDATES,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    plan: UniformPlan | None = None,
    target_seconds: float = 0.004,
    rounds: int = 3,
) -> float:
    """Wall seconds of one uniform draw from a pruned network (best of ``rounds``).

    The draws repeat inside one compiled loop, so the tens of microseconds that a
    call from Python into numba costs are not counted; each round repeats the draw
    enough times to last about ``target_seconds`` (at most 1000 times).

    Parameters
    ----------
    rng : numpy.random.Generator
        Drives the draws that are timed.
    net : CompiledNetwork
    kept : bool array (n_labels,)
        Which labels survived the pruning.
    x : int array (n,), optional
        The state pruned around (used by ``"heuristic"``).
    uniform : {"auto", "enumerate", "count", "heuristic"}
    n_candidates, max_restarts : int
        Size of ``V`` and restarts per candidate, for ``"heuristic"``.
    plan : UniformPlan, optional
        Default: the network's cached plan.
    target_seconds : float, default 0.004
        Approximate length of one timed round.
    rounds : int, default 3
        Timed rounds; the fastest is reported.

    Returns
    -------
    float
        Seconds per draw.

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> seconds = seconds_per_uniform_draw(np.random.default_rng(0), net, net.cpt > 0, uniform="count")
    >>> 0 < seconds < 0.01
    True
    """
    if rounds < 1 or target_seconds <= 0:
        raise ValueError(f"rounds must be >= 1 and target_seconds > 0, got {rounds} and {target_seconds}")
    code = uniform_index(uniform)
    plan = uniform_plan(net) if plan is None else plan
    kept = checked_kept(net, kept)
    x = _start_state(net, x)
    y = _start_state(net)
    ws = make_workspace(net, plan, n_candidates)
    args = (rng, net, plan, kept, x, y, code, n_candidates, max_restarts, plan.node_budget, ws)
    tic = time.perf_counter()
    repeat_draws_nb(*args, 1)
    once = time.perf_counter() - tic
    repeats = int(np.clip(target_seconds / max(once, 1e-7), 1, 1000))
    best = np.inf
    for _ in range(rounds):
        tic = time.perf_counter()
        repeat_draws_nb(*args, repeats)
        best = min(best, (time.perf_counter() - tic) / repeats)
    return best
