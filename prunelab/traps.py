"""The trap check of :func:`prunelab.sample`, the same for every sampler, all in one place.

What it warns with (:class:`SamplerTrappedWarning`) and what it reports
(:class:`TrapReport`, ``SampleResult.trap``); the test of chains that disagree
beyond their ESS (:func:`chain_disagreement`, numpy and scipy only, so
:func:`prunelab.sample` needs no ArviZ); and the single-site checks
(:func:`single_site_frozen`, :func:`can_take`).

Three signs that chains are trapped, each naming free variables (see "Traps" in
:mod:`prunelab.sampling`):

* **split** (every sampler): one chain holds a variable at a state for at least
  :data:`MIN_DRAWS` consecutive draws and a tenth of its
  draws (:data:`HELD_SHARE`), and another chain
  never visits that state: chains held at different constant values (R-hat
  infinite), or one chain that leaves, once, a state the others never see (R-hat
  large). Or every chain holds it at the same state throughout, although exact
  inference (where the network allows it) gives its other states a probability
  of :data:`HELD_SHARE` or more: the chains agree, but only because they all
  started there. Zeros trap Gibbs this way; near-zero entries trap prune sampling and
  MC-SAT this way (a label with ``c = 2e-6`` survives a pruning with probability
  ``2e-6``), whatever the evidence says is possible.
* **disagreeing** (every sampler): the chain means differ beyond what the ESS of
  the chains' own moves allows (:func:`chain_disagreement`
  over *every* chain, those in which the variable never moved included): the
  calibrated form of "a large R-hat".
* **stuck** (single-site samplers: Gibbs, Metropolis): a variable never changed in
  any chain although the evidence allows another state and no single-site move
  could change it from any state visited.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compiled import CompiledNetwork
from .network import EvidenceError
from .samplers.init import hybrid_forward_nb

__all__ = [
    "ESS_MARGIN",
    "HELD_SHARE",
    "MIN_DRAWS",
    "MIN_EXPECTED_COUNT",
    "TRAP_FALSE_ALARM",
    "TRAP_SPAWN",
    "WITNESS_TRIES",
    "SamplerTrappedWarning",
    "TrapReport",
    "can_take",
    "chain_disagreement",
    "distinct_rows",
    "held_apart",
    "single_site_frozen",
    "trap_report",
    "trap_seed",
]

TRAP_FALSE_ALARM = 1e-3
"""Family-wise false-alarm rate of the disagreement test of :func:`prunelab.sample`
(Bonferroni over every tested indicator of every free variable)."""


MIN_DRAWS = 100
"""Fewest draws per chain for which :func:`chain_disagreement` judges; shorter chains cannot
show their autocorrelation time (a slow but healthy sampler would look trapped)."""

ESS_MARGIN = 2.0
"""Factor by which :func:`chain_disagreement` allows the estimated ESS to be too large:
the estimate from finite chains is noisy and biased up, and the test is only as good as it."""

MIN_EXPECTED_COUNT = 5
"""Smallest effective count ``ESS * min(p, 1 - p)`` for which :func:`chain_disagreement` tests."""


class SamplerTrappedWarning(UserWarning):
    """The chains of :func:`prunelab.sample` look trapped; their marginals are not to be trusted.

    Raised as a warning (``warnings.warn``), so it can be filtered or caught by
    category::

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", prunelab.SamplerTrappedWarning)
            result = prunelab.sample(bn, "gibbs", 1000)

    The details are in ``result.trap`` (a :class:`TrapReport`).
    """


class TrapReport(NamedTuple):
    """Signs that chains are trapped, as :func:`prunelab.sample` found them (:func:`trap_report`).

    Attributes
    ----------
    stuck : tuple of str
        For single-site samplers (``SINGLE_SITE = True``: Gibbs, Metropolis), the
        free variables that never changed in any chain (nor from the start state),
        although the evidence allows another of their states (a state with
        ``P(x, e) > 0`` and another value was found), and that no single-site move
        could change from any state the chains visited
        (:func:`single_site_frozen`). For Gibbs and
        Metropolis this is a trap, not bad luck: their moves had probability zero.
    disagreeing : tuple of str
        Free variables whose chains disagree beyond what their ESS allows:
        :func:`chain_disagreement` below ``threshold`` for one of their states.
    p_values : dict of str to float
        Per free variable, the smallest p-value of :func:`chain_disagreement` over
        its states, over every chain (those in which the variable never moved
        count with their constant mean: a chain held in one state is the plainest
        disagreement there is).
    threshold : float
        :data:`TRAP_FALSE_ALARM` divided by the number of tests.
    split : tuple of str
        For every sampler, the free variables that one chain held at a state for
        at least :data:`MIN_DRAWS` consecutive draws and a tenth of its draws
        (:data:`HELD_SHARE`), a state that another chain
        never visited (:func:`held_apart`): chains held at
        different constant values (R-hat infinite), or a chain that left, once, a
        state the others never saw (R-hat large); or that every chain held at one
        same state for all its draws although exact inference gives the other
        states a tenth of the probability or more.
        Exact zeros trap single-site samplers this way, near-zero entries (a label
        kept with probability ``c`` close to 0) prune sampling and MC-SAT.
    """

    stuck: tuple[str, ...] = ()
    disagreeing: tuple[str, ...] = ()
    p_values: dict = {}
    threshold: float = float("nan")
    split: tuple[str, ...] = ()

    @property
    def trapped(self) -> bool:
        """Whether any variable is stuck, split or disagreeing."""
        return bool(self.stuck or self.disagreeing or self.split)

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable flagged, each once: stuck, then split, then disagreeing."""
        return tuple(dict.fromkeys((*self.stuck, *self.split, *self.disagreeing)))

    def message(self, sampler: str, n_chains: int) -> str:
        """The text of the :class:`SamplerTrappedWarning`."""
        parts = []
        if self.stuck:
            parts.append(
                f"free variable(s) {list(self.stuck)} never changed in any of the {n_chains} chain(s), although "
                "the evidence allows other states and no single-site move could change them from the states visited"
            )
        if self.split:
            parts.append(
                f"chains were held apart on {list(self.split)} (one chain stayed a tenth of its draws or more, in one "
                "stay, in a state that another never visited, or all stayed in a state whose exact probability is "
                "0.9 or less): zero or near-zero entries keep the sampler from moving between those states"
            )
        if self.disagreeing:
            parts.append(
                f"the chains disagree on {list(self.disagreeing)} beyond what their ESS allows "
                f"(homogeneity test of the chain means, p < {self.threshold:.2g})"
            )
        return (
            f"{sampler} chains look trapped: " + "; ".join(parts)
            + ". Their marginals are not to be trusted (see result.trap): run longer chains, or a sampler that "
            "moves between these states (prune sampling for exact zeros, prune-tempered for near-zero entries)."
        )

WITNESS_TRIES = 1000
"""Random-forward tries of :func:`can_take`."""

HELD_SHARE = 0.1
"""Shortest stay, as a share of a chain, that :func:`held_apart` counts (and never under ``MIN_DRAWS`` draws).

A rare state that a slow but healthy sampler visits in short clusters (Gibbs on
alarm with its frozen evidence: stays of up to 200 sweeps in a state of
probability 3e-4, in chains of 100,000) is missed by some chains and not others;
a stay of a tenth of a chain is not a cluster but a part of the chain's answer.
"""

TRAP_SPAWN = 2**32 - 1
"""Last spawn-key entry of the seed of the trap check's witness search (no chain has it)."""


def trap_seed(root: np.random.SeedSequence) -> np.random.SeedSequence:
    """The seed of the witness search of :func:`trap_report`: a child of ``root`` that no chain uses."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, TRAP_SPAWN))


def _posterior_or_empty(bn, net) -> dict:
    """Exact posterior marginals given ``net``'s evidence, or ``{}`` if the network is too wide.

    A positive entry proves the state possible; a zero (exact: deterministic zeros
    propagate exactly) proves it impossible. Without them nothing is claimed.
    """
    from . import exact

    evidence = {v: bn.states[v][s] for v, s in zip(bn.variables, net.evidence_value.tolist()) if s >= 0}
    try:
        return exact.exact_marginals(bn, evidence)
    except EvidenceError:
        raise
    except ValueError:  # too wide for exact inference
        return {}


def held_apart(column: np.ndarray, start: np.ndarray, cardinality: int) -> bool:
    """Whether one chain held a variable at a state, for a long stretch, that another chain never visits.

    Parameters
    ----------
    column : int array (chain, draw)
        The variable's draws.
    start : int array (chain,)
        Its value in each chain's start state (counted as the first element of the chain).
    cardinality : int

    Returns
    -------
    bool
        True when some chain sits at one state ``s`` for at least
        :data:`MIN_DRAWS` consecutive draws, and at least
        :data:`HELD_SHARE` of its draws, and another chain never visits ``s``. In
        particular, chains held at different constant values (R-hat infinite), or
        one chain that leaves, once, a state the others never see (R-hat large). A
        chain that mixes leaves a state within a few autocorrelation times, and one
        that never visits it while another stays a tenth of its draws there is not
        sampling the same distribution.

    Examples
    --------
    >>> held_apart(np.repeat([[0], [1]], 200, axis=1), np.array([0, 1]), 2)
    True
    >>> held_apart(np.repeat([[0], [0]], 200, axis=1), np.array([0, 0]), 2)
    False
    >>> left_once = np.r_[np.ones(150, int), np.zeros(150, int)]  # 150 draws at 1, then at 0
    >>> held_apart(np.vstack([left_once, np.zeros(300, int)]), np.array([1, 0]), 2)
    True
    """
    column = np.concatenate([np.asarray(start)[:, None], column], axis=1).astype(np.int64)
    n_chains, length = column.shape
    if n_chains < 2 or length < MIN_DRAWS:
        return False
    flat = column.ravel()
    run_start = np.ones(flat.size, dtype=bool)
    run_start[1:] = flat[1:] != flat[:-1]
    run_start[::length] = True  # a run never spans two chains
    first = np.flatnonzero(run_start)
    lengths = np.diff(np.append(first, flat.size))
    long = lengths >= max(MIN_DRAWS, HELD_SHARE * length)
    if not long.any():
        return False
    visits = np.zeros((n_chains, cardinality), dtype=bool)
    visits[np.repeat(np.arange(n_chains), length), flat] = True
    return bool(np.any(~visits[:, flat[first[long]]]))


class _Posterior:
    """Exact posterior marginals computed on first use, once for every test (``{}``: too wide)."""

    def __init__(self, bn, net):
        self.bn, self.net, self._value = bn, net, None

    def __call__(self) -> dict:
        if self._value is None:
            self._value = _posterior_or_empty(self.bn, self.net)
        return self._value


def _never_moved(net, draws, starts) -> list[int]:
    """Free variables that no chain ever moved from its start."""
    return [int(i) for i in net.free if np.all(draws[:, :, i] == starts[:, i, None])]


def _held(bn, net, draws, starts, posterior: _Posterior) -> list[str]:
    """Free variables every chain held at one same state although the posterior gives the others ``HELD_SHARE``.

    Over at least ``MIN_DRAWS`` draws per chain. A sampler that mixes within a
    tenth of each chain leaves a state of posterior probability ``1 - q`` (with
    ``q >= HELD_SHARE``) within a few steps; ``M`` chains of ``N`` draws that never
    do are held. Needs exact inference (networks too wide for it are not judged).
    """
    if draws.shape[1] + 1 < MIN_DRAWS:
        return []
    held = []
    for i in _never_moved(net, draws, starts):
        values = np.unique(starts[:, i])
        if values.size == 1 and posterior():
            q = 1.0 - float(posterior()[bn.variables[i]][values[0]])
            if q >= HELD_SHARE:
                held.append(bn.variables[i])
    return held


def _stuck(bn, net, draws, starts, seed, posterior: _Posterior) -> list[str]:
    """Free variables that no single-site move could change from any state visited, although others are possible."""
    candidates = _never_moved(net, draws, starts)
    stuck = []
    if not candidates:
        return stuck
    visited = distinct_rows(np.concatenate([starts, draws.reshape(-1, net.n_variables)]))
    rng = np.random.default_rng(seed)
    for i in np.asarray(candidates)[single_site_frozen(net, visited, candidates)]:
        values = np.unique(starts[:, i])
        others = [s for s in range(int(net.cardinality[i])) if s != values[0]]
        if values.size == 1:
            if posterior():
                possible = bool(np.any(posterior()[bn.variables[i]][others] > 0.0))
            else:  # too wide for exact inference: look for a witness state
                possible = any(can_take(rng, net, i, s) for s in others)
        else:
            possible = True  # chains hold it at two values: both are possible
        if possible:
            stuck.append(bn.variables[i])
    return stuck


def trap_report(bn, net, draws, initial_states, seed, single_site: bool) -> TrapReport:
    """Split, disagreeing and (for single-site samplers) stuck free variables.

    Parameters
    ----------
    bn : BayesianNetwork
    net : CompiledNetwork
        ``bn`` compiled with the evidence.
    draws : int array (chain, draw, variable)
    initial_states : int array (chain, variable)
    seed : SeedSequence
        Seed of the witness search of the stuck test (:func:`trap_seed`).
    single_site : bool
        The sampler changes one variable at a time (``SINGLE_SITE``): look for
        stuck variables too. A sampler with larger moves (prune) that leaves a
        variable alone in every chain has met an improbable state, not a wall.

    Returns
    -------
    TrapReport

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.compiled import compile_network
    >>> bn = BayesianNetwork(states={"A": ["0", "1"]}, parents={}, cpts={"A": [0.5, 0.5]})
    >>> draws = np.repeat([[[0]], [[1]]], 200, axis=1)  # two chains, each held at its own value
    >>> report = trap_report(bn, compile_network(bn), draws, np.array([[0], [1]]), trap_seed(
    ...     np.random.SeedSequence(0)), single_site=False)
    >>> report.split, report.trapped
    (('A',), True)
    """
    starts = initial_states.astype(draws.dtype)
    posterior = _Posterior(bn, net)
    stuck = _stuck(bn, net, draws, starts, seed, posterior) if single_site else []
    split = [
        bn.variables[i] for i in net.free
        if held_apart(draws[:, :, i], starts[:, i], int(net.cardinality[i]))
    ]
    split += [v for v in _held(bn, net, draws, starts, posterior) if v not in stuck and v not in split]
    p_values = {}
    n_tests = 0
    for i in net.free:
        column = draws[:, :, i]
        if column.shape[0] < 2:
            continue
        present = np.flatnonzero(np.bincount(column.ravel(), minlength=int(net.cardinality[i])))
        tested = present[:-1] if present.size == 2 else present  # two states: one indicator says it all
        if tested.size == 0:
            continue
        p_values[bn.variables[i]] = min(chain_disagreement(column == s) for s in tested)
        n_tests += tested.size
    threshold = TRAP_FALSE_ALARM / max(n_tests, 1)
    disagreeing = tuple(v for v, p in p_values.items() if p < threshold)
    return TrapReport(tuple(stuck), disagreeing, p_values, threshold, tuple(split))


def distinct_rows(rows: np.ndarray) -> np.ndarray:
    """The distinct rows of a 2-d integer array (compared as raw bytes, so in any order)."""
    rows = np.ascontiguousarray(rows)
    if rows.shape[0] == 0:
        return rows
    keep = np.ones(rows.shape[0], dtype=bool)
    keep[1:] = np.any(rows[1:] != rows[:-1], axis=1)  # runs of one state first: cheap, and common
    rows = np.ascontiguousarray(rows[keep])
    as_bytes = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first = np.unique(as_bytes, return_index=True)
    return rows[np.sort(first)]


# ------------------------------------------------------------------ chains that disagree


def _within_chain_tau(values: np.ndarray) -> float:
    """Autocorrelation time from the within-chain autocovariances (Geyer's initial monotone sequence).

    Each chain is centred on its own mean and the autocovariances are averaged over
    chains, so differences *between* chains do not enter (they are what is tested).
    At least 1. Chains that never change contribute nothing.
    """
    n_chains, n_draws = values.shape
    centred = values - values.mean(axis=1, keepdims=True)
    size = 1 << int(2 * n_draws - 1).bit_length()
    spectrum = np.fft.rfft(centred, n=size, axis=1)
    acov = np.fft.irfft(spectrum * np.conjugate(spectrum), n=size, axis=1)[:, :n_draws].mean(axis=0) / n_draws
    rho = acov / acov[0]
    pairs = rho[: 2 * (n_draws // 2)].reshape(-1, 2).sum(axis=1)
    positive = np.flatnonzero(pairs <= 0.0)
    pairs = pairs[: positive[0] if positive.size else pairs.size]
    pairs = np.minimum.accumulate(pairs)
    return max(-1.0 + 2.0 * float(pairs.sum()), 1.0)


def chain_disagreement(indicator) -> float:
    """p-value of "all chains sample the same distribution", given the ESS of their own moves.

    For a 0/1 indicator ``y`` (e.g. ``1{x_i = s}``) of ``M`` chains of ``N`` draws,
    with pooled mean ``p``: if the chains sample one stationary distribution, each
    chain mean ``m_c`` has variance ``p (1 - p) / ESS`` with ``ESS = N / tau``, so

    .. math:: Q = \\sum_c \\frac{(m_c - p)^2 \\, \\mathrm{ESS}}{p (1 - p)}

    is approximately chi-square with ``M - 1`` degrees of freedom (the homogeneity
    test of the chain means, each worth its ESS rather than its ``N`` draws). The
    p-value is ``P(chi2_{M-1} >= Q)``.

    ``tau`` is the autocorrelation time of the chains' *own* fluctuations: each chain
    is centred on its own mean, the autocovariances are averaged over chains and
    summed with Geyer's initial monotone sequence (at least 1). Chains that never
    change add nothing to it; if no chain changes the p-value is 1: chains that each
    sit still in a different state are not evidence by themselves (a slow sampler
    looks the same over a short run; structural traps are found otherwise, see
    :class:`TrapReport`). What the test catches is chains that move within their own
    part of the space but not to the part the other chains see (block-shaped
    determinism, metastable modes).

    The estimate of ``tau`` from finite chains is noisy and tends to be low, and an
    ESS too large by a factor ``r`` multiplies ``Q`` by ``r``; so the ESS is divided
    by :data:`ESS_MARGIN` (2) first, and chains shorter than :data:`MIN_DRAWS` (100)
    are not judged. The chi-square law needs enough expected counts in both cells;
    as for Pearson's test, the p-value is only computed when
    ``ESS * min(p, 1 - p) >=`` :data:`MIN_EXPECTED_COUNT` (5). Otherwise it is 1: a
    short run, or a rare state, is not judged.

    Parameters
    ----------
    indicator : array_like (chain, draw)
        At least two chains of at least two draws; values 0 or 1.

    Returns
    -------
    float
        The p-value; 1.0 when the pooled mean is 0 or 1, no chain ever changes, or
        there are too few draws or effective draws to judge.

    References
    ----------
    A. Gelman and D. B. Rubin, "Inference from iterative simulation using multiple
    sequences", Statistical Science 7(4), 1992 (chain means against within-chain
    variability); C. J. Geyer, "Practical Markov chain Monte Carlo", Statistical
    Science 7(4), 1992 (initial monotone sequence estimator of the autocorrelation time).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bool(chain_disagreement(rng.random((4, 1000)) < 0.3) > 0.001)
    True
    >>> moving = (rng.random((1, 200)) < 0.5).astype(float)  # one chain moves between 0 and 1
    >>> chain_disagreement(np.vstack([moving, np.zeros((1, 200))])) < 1e-6
    True
    """
    from scipy import stats

    values = np.asarray(indicator, dtype=float)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"need an array (chain, draw) with at least 2 chains of 2 draws, got shape {values.shape}")
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError("indicator values must be 0 or 1")
    n_chains, n_draws = values.shape
    p = float(values.mean())
    if p in (0.0, 1.0) or not np.any(np.diff(values, axis=1)):
        return 1.0
    if n_draws < MIN_DRAWS:
        return 1.0
    ess = n_draws / _within_chain_tau(values) / ESS_MARGIN
    if ess * min(p, 1.0 - p) < MIN_EXPECTED_COUNT:
        return 1.0  # too few effective draws in one of the two states for the chi-square law
    q = float(((values.mean(axis=1) - p) ** 2).sum()) * ess / (p * (1.0 - p))
    return float(stats.chi2.sf(q, n_chains - 1))


# ------------------------------------------------------------------ single-site moves


def can_take(rng: np.random.Generator, net: CompiledNetwork, variable: int, state: int,
             tries: int = WITNESS_TRIES) -> bool:
    """Whether random forward sampling finds a state with ``x[variable] = state`` and ``P(x, e) > 0``.

    The kernel of :func:`initial_state` with ``variable`` clamped like evidence,
    ``tries`` tries. True is a proof (a witness was found); False only means none
    turned up. :func:`prunelab.sample` asks exact inference first
    (``exact_marginals(bn, e)[v][state] > 0``, one calibration for all variables)
    and uses this on networks too wide for it.

    Parameters
    ----------
    rng : numpy.random.Generator
    net : CompiledNetwork
        The network compiled with the evidence.
    variable, state : int
        Indices in ``bn.variables`` and in the variable's states.
    tries : int, default :data:`WITNESS_TRIES`

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"), {"B": "1"})
    >>> can_take(np.random.default_rng(0), net, 0, 0), can_take(np.random.default_rng(0), net, 0, 1)
    (False, True)
    """
    clamped = np.array(net.evidence_value)
    clamped[variable] = state
    x = np.zeros(net.n_variables, dtype=np.int64)
    found = hybrid_forward_nb(
        rng, net.cardinality, net.parent_ptr, net.parent_index, net.parent_stride,
        net.cpt_offset, net.cpt, clamped, 0.0, int(tries), x,
    )
    return bool(found > 0)


def single_site_frozen(net: CompiledNetwork, states: np.ndarray, variables) -> np.ndarray:
    """Which of ``variables`` no single-site move can change from any of ``states``.

    A variable is frozen when, at every given full state, every other value of it
    has a zero entry among its Markov-blanket factors (its own CPT and its
    children's): Gibbs then draws the current value with probability 1 and
    Metropolis rejects every proposal, so a single-site chain that only visits
    ``states`` keeps the variable where it is. Decided by support (which entries
    are zero), not by a product of probabilities that could underflow.

    Parameters
    ----------
    net : CompiledNetwork
    states : int array (k, n)
        Full states, e.g. the distinct states a chain visited; each row is judged
        on its own.
    variables : sequence of int

    Returns
    -------
    bool array, one entry per variable

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> single_site_frozen(net, np.array([[0, 0], [1, 1]]), [0, 1]).tolist()
    [True, True]
    """
    states = np.asarray(states, dtype=np.int64)
    labels = net.cpt_offset[:-1] + states
    for i in range(net.n_variables):
        lo, hi = net.parent_ptr[i], net.parent_ptr[i + 1]
        if hi > lo:
            labels[:, i] += states[:, net.parent_index[lo:hi]] @ net.parent_stride[lo:hi]
    out = np.ones(len(variables), dtype=bool)
    for k, variable in enumerate(variables):
        lo, hi = net.family_ptr[variable], net.family_ptr[variable + 1]
        family, stride = net.family_var[lo:hi], net.family_stride[lo:hi]
        current = states[:, variable]
        for s in range(int(net.cardinality[variable])):
            moved = labels[:, family] + ((s - current)[:, None] * stride[None, :])
            if np.any(np.all(net.cpt[moved] > 0.0, axis=1) & (current != s)):
                out[k] = False
                break
    return out
