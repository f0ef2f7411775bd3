"""The front door: :func:`sample` runs chains of any registered sampler.

It owns what the kernels do not: seeds, initial states, parallelism over chains,
timing, and the result object. The kernels stay pure (see
:mod:`prunelab.samplers`).

Seeds
-----
``np.random.SeedSequence(seed).spawn(n_chains)`` gives one child per chain, and
each child spawns two: the first seeds the initial state, the second the chain.
A chain's numbers therefore depend on ``(seed, chain index)`` only, never on
``n_jobs`` or on the order in which workers finish.

A seed may be an int, a SeedSequence (copied, not advanced), a Generator (one child
is spawned from it, so the generator moves on) or None; see
:func:`prunelab.evidence.as_seed_sequence`, which :func:`prunelab.random_evidence`
uses too.

Traps
-----
A sampler can be trapped: Gibbs and Metropolis by exact zeros (the paper's Figures
1-2), prune sampling and MC-SAT by near-zero entries (a label with ``c = 2e-6``
survives a pruning with probability ``2e-6``, so the chain moves between the states
that need it about once in ``5e5`` steps). :func:`sample` runs one check for every
sampler (:func:`prunelab.traps.trap_report`), reports it in
:attr:`SampleResult.trap` and, with ``traps="warn"`` (the default), in one
:class:`~prunelab.traps.SamplerTrappedWarning` that names the variables:

* split: one chain held a free variable at a state for at least
  :data:`~prunelab.traps.MIN_DRAWS` consecutive draws and a tenth of its
  draws, a state that another
  chain never visited (chains held at different constant values: R-hat infinite;
  a chain that left, once, a state the others never saw: R-hat large);
* disagreeing: chains disagree beyond what their ESS allows, every chain counted
  (:func:`~prunelab.traps.chain_disagreement`: the chain means against the
  ESS that the chains' own moves imply, a chi-square test, with a Bonferroni bound
  over all tested indicators so that a healthy run warns with probability below
  :data:`~prunelab.traps.TRAP_FALSE_ALARM`): the calibrated "large R-hat";
* stuck (single-site samplers): a free variable never changed in any chain
  although a state with another value and ``P(x, e) > 0`` exists, and no
  single-site move could have changed it from any state visited (so it is not bad
  luck in a short run, and not a variable the evidence fixes).

The false-alarm rate on chains that mix is measured by ``benchmarks/bench_traps.py``.

Memory
------
Before anything is allocated, the size of the result (draws, per-draw statistics,
Rao-Blackwell sums) and of the per-chain buffers is checked against ``max_bytes``
(default :data:`MAX_BYTES`).

Rao-Blackwell estimates
-----------------------
For samplers with ``RAO_BLACKWELL = True`` (Gibbs) the running sums of the
conditionals ``P(x_i | x_-i^(t))`` (the paper's eq. (3)) are recorded at
``rb_checkpoints`` only, by default :data:`DEFAULT_N_CHECKPOINTS` log-spaced draw
counts ending at ``n_draws`` (:func:`prunelab.checkpoints.log_checkpoints`). Memory:
``n_chains * len(rb_checkpoints) * sum(cardinalities) * 8`` bytes, 30 MB for 100
chains of win95pts. Pass ``rb_checkpoints=np.arange(1, n + 1)`` for every draw if
you can afford it; the empirical estimator always has every draw. Prune sampling
records the sums of ``E[1{X_i = s} | S_t]`` over its pruned sets when
``rb_checkpoints`` is given (:mod:`prunelab.samplers.prune.rao_blackwell`), and so does MC-SAT
with exact uniform draws (``uniform="exact"``) over its solution sets ``M``
(:mod:`prunelab.samplers.mcsat`); with approximate draws it has no such estimate.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from .chain_job import run_chain_job
from .checkpoints import checked_checkpoints, log_checkpoints
from .compiled import compile_network, draw_dtype
from .elimination import TablesTooLargeError
from .evidence import as_evidence, as_seed_sequence
from .network import BayesianNetwork
from .sample_result import SampleResult
from .samplers import get_sampler
from .samplers.init import INITS, MAX_RESTARTS, start_state_from
from .traps import SamplerTrappedWarning, TrapReport, trap_report, trap_seed
from .workers import worker_count

__all__ = ["sample", "SampleResult", "DEFAULT_N_CHECKPOINTS", "MAX_BYTES"]

DEFAULT_N_CHECKPOINTS = 200
"""Number of log-spaced Rao-Blackwell checkpoints recorded by default."""

MAX_BYTES = 4 * 2**30
"""Default cap (4 GiB) on the memory :func:`sample` plans to use; pass ``max_bytes`` to change it."""

_BYTES_PER_CHAIN = 4096
"""Bookkeeping per chain (seeds, job, timings, result dict), counted against ``max_bytes``."""

_STAT_BYTES_PER_DRAW = 16
"""Per-draw sampler statistics assumed per chain and draw (Metropolis: 8, prune: 9)."""

_RESERVED_FIELDS = ("draws", "rb_checkpoints", "rb_sums")


def _integer(value, name: str, minimum: int | None = 1) -> int:
    """``value`` as an int if it is one (numpy integers too, bools not); no silent rounding or parsing."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"need {name} >= {minimum}, got {value}")
    return int(value)


def _planned_bytes(bn, n_chains, n_draws, n_checkpoints, n_workers) -> dict[str, int]:
    """Bytes :func:`sample` will hold at its peak, by what holds them."""
    n = bn.n_variables
    itemsize = np.dtype(draw_dtype(bn.cardinalities)).itemsize
    return {
        # per-chain draws, then np.stack copies them into the result
        "draws": 2 * n_chains * n_draws * n * itemsize,
        "chain buffers": n_workers * n_draws * n * itemsize,  # the draws of a running chain
        "statistics": 2 * n_chains * n_draws * _STAT_BYTES_PER_DRAW,
        "Rao-Blackwell sums": 2 * n_chains * n_checkpoints * int(bn.cardinalities.sum()) * 8,
        "bookkeeping": n_chains * _BYTES_PER_CHAIN,
    }


def _explicit_starts(bn, net, init, n_chains) -> list[np.ndarray] | None:
    """Per-chain start states from ``init`` when it is not an initialiser name."""
    if isinstance(init, str):
        return None
    if isinstance(init, Mapping):
        return [start_state_from(bn, net, init)] * n_chains
    if isinstance(init, Sequence) and init and isinstance(init[0], Mapping):
        per_chain = list(init)
    else:
        arr = np.asarray(init)
        if arr.ndim == 1:
            return [start_state_from(bn, net, arr)] * n_chains
        if arr.ndim != 2:
            raise ValueError(f"init must be a name, a state, or one state per chain; got shape {arr.shape}")
        per_chain = list(arr)
    if len(per_chain) != n_chains:
        raise ValueError(f"init gives {len(per_chain)} start states for {n_chains} chains")
    return [start_state_from(bn, net, s) for s in per_chain]


def _checked_arguments(bn, sampler, n_draws, n_chains, n_jobs, max_restarts, init_p, backend, init, traps):
    """The sampler module and the counts as ints; every argument checked before anything is computed."""
    if not isinstance(bn, BayesianNetwork):
        raise TypeError(f"bn must be a BayesianNetwork, got {type(bn).__name__}")
    module = get_sampler(sampler)
    n_draws = _integer(n_draws, "n_draws")
    n_chains = _integer(n_chains, "n_chains")
    n_jobs = _integer(n_jobs, "n_jobs", minimum=None)
    if n_jobs == 0:
        raise ValueError("n_jobs must be a positive number of workers or negative (-1: all cores), not 0")
    max_restarts = _integer(max_restarts, "max_restarts")
    if isinstance(init_p, (bool, np.bool_)) or not isinstance(init_p, (int, float, np.integer, np.floating)):
        raise TypeError(f"init_p must be a number in [0, 1], got {type(init_p).__name__} {init_p!r}")
    if backend not in ("numba", "numpy"):
        raise ValueError(f"unknown backend {backend!r}; choose 'numba' or 'numpy'")
    if isinstance(init, str) and init not in INITS:
        raise ValueError(f"unknown init {init!r}; choose one of {list(INITS)} or give a start state")
    if traps not in ("warn", "record", "off"):
        raise ValueError(f"traps must be 'warn', 'record' or 'off', got {traps!r}")
    return module, n_draws, n_chains, n_jobs, max_restarts


def _check_options(module, sampler: str, options: dict) -> None:
    """Refuse, before any set-up, an option the sampler's ``run_chain`` does not take; name the ones it does."""
    parameters = inspect.signature(module.run_chain).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    known = [name for name, p in list(parameters.items())[4:]
             if name != "rb_checkpoints" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"sampler {sampler!r} has no option(s) {unknown}; its options are {known or 'none'} "
            "(sample()'s own arguments are named in its docstring)"
        )


def _rb_checkpoints(module, sampler, rb_checkpoints, n_draws, options) -> np.ndarray | None:
    """The Rao-Blackwell checkpoints of a sampler that has the estimate (checked), else None.

    A sampler with ``RAO_BLACKWELL = True`` records them by default; one with a
    ``rao_blackwell_refusal(options)`` (prune sampling) when ``rb_checkpoints`` is
    given and its options allow it (else the refusal is the error).
    """
    if getattr(module, "RAO_BLACKWELL", False):
        if rb_checkpoints is None:
            return log_checkpoints(n_draws, DEFAULT_N_CHECKPOINTS)
        return checked_checkpoints(rb_checkpoints, n_draws, name="rb_checkpoints", increasing=True)
    if rb_checkpoints is None:
        return None
    refusal = getattr(module, "rao_blackwell_refusal", None)
    if refusal is None:
        raise ValueError(f"sampler {sampler!r} has no Rao-Blackwell estimate; drop rb_checkpoints")
    if (why := refusal(options)) is not None:
        raise ValueError(f"sampler {sampler!r}: {why}; drop rb_checkpoints")
    return checked_checkpoints(rb_checkpoints, n_draws, name="rb_checkpoints", increasing=True)


def _check_memory(bn, n_chains, n_draws, cps, n_jobs, max_bytes) -> None:
    """Refuse a run that would hold more than ``max_bytes`` at its peak; the message gives the sizes."""
    n_workers = 1 if n_jobs == 1 else min(n_chains, os.cpu_count() or 1) if n_jobs < 0 else min(n_chains, n_jobs)
    planned = _planned_bytes(bn, n_chains, n_draws, 0 if cps is None else cps.size, n_workers)
    if sum(planned.values()) > max_bytes:
        detail = ", ".join(f"{name} {size / 2**20:,.0f} MiB" for name, size in planned.items() if size)
        raise MemoryError(
            f"sample() would need about {sum(planned.values()) / 2**20:,.0f} MiB for n_chains={n_chains} x "
            f"n_draws={n_draws} x {bn.n_variables} variables ({detail}), more than "
            f"max_bytes={max_bytes:,}; use fewer chains or draws, or pass a larger max_bytes"
        )


def _run_jobs(jobs: list, n_jobs: int, progress: bool, sampler: str) -> list[dict]:
    """Every chain's :func:`~prunelab.chain_job.run_chain_job`, in order, over joblib's workers or here.

    At most one worker per chain and per usable core is started
    (:func:`~prunelab.workers.worker_count`, which warns when it lowers ``n_jobs``).
    Without ``progress`` no tqdm bar is made at all: even a disabled one creates a
    multiprocessing lock, which inside a loky worker (a sweep's run) is a named
    semaphore that the resource tracker reports as leaked when the worker is stopped.
    """
    bar = None
    if progress:
        from tqdm import tqdm  # the text bar: tqdm.auto warns in kernels without ipywidgets

        bar = tqdm(total=len(jobs), desc=f"{sampler} chains")
    results = []
    n_workers = worker_count(n_jobs, len(jobs), "chains") if n_jobs != 1 else 1
    try:
        if n_workers > 1:
            from joblib import Parallel, delayed

            runner = Parallel(n_jobs=n_workers, backend="loky", return_as="generator")
            finished = runner(delayed(run_chain_job)(*job) for job in jobs)
        else:
            finished = (run_chain_job(*job) for job in jobs)
        for res in finished:
            results.append(res)
            if bar is not None:
                bar.update()
    finally:
        if bar is not None:
            bar.close()
    return results


def _gathered(results: list[dict], n_draws: int):
    """``(draws, stats, extras, rb_sums)`` of all chains, stacked along a first (chain) axis.

    A chain output field that is an array of one entry per draw is a per-draw
    statistic; any other field is a per-chain extra.
    """
    outputs = [r["output"] for r in results]
    stats, extras = {}, {}
    for name in outputs[0]:
        if name in _RESERVED_FIELDS:
            continue
        values = [o[name] for o in outputs]
        if all(isinstance(v, np.ndarray) and v.ndim >= 1 and v.shape[0] == n_draws for v in values):
            stats[name] = np.stack(values)
        else:
            extras[name] = values
    rb_sums = None
    if outputs[0].get("rb_sums") is not None:
        rb_sums = np.stack([o["rb_sums"] for o in outputs])
    draws = np.stack([o["draws"] for o in outputs])
    return draws, stats, extras, rb_sums


def sample(
    bn: BayesianNetwork,
    sampler: str,
    n_draws: int,
    *,
    n_chains: int = 1,
    evidence: Mapping | None = None,
    init="forward",
    seed=None,
    n_jobs: int = 1,
    backend: str = "numba",
    progress: bool = False,
    init_p: float = 0.5,
    max_restarts: int = MAX_RESTARTS,
    rb_checkpoints=None,
    traps: str = "warn",
    max_bytes: int = MAX_BYTES,
    **options,
) -> SampleResult:
    """Run ``n_chains`` independent chains of a sampler on ``bn`` given ``evidence``.

    Parameters
    ----------
    bn : BayesianNetwork
    sampler : str
        A registered sampler: ``"gibbs"``, ``"metropolis"``, ``"prune"``, ``"mc-sat"``
        (see :func:`prunelab.samplers.register_sampler`).
    n_draws : int
        Draws per chain; one draw is one sweep (Gibbs, Metropolis) or one step.
        No burn-in and no thinning, as in the paper: slice ``draws`` for those.
        An integer (numpy integers too): ``2.7``, ``"5"`` or ``True`` are refused.
    n_chains : int, default 1
    evidence : mapping of str to state, or pandas Series, optional
        See :func:`prunelab.evidence.as_evidence`; a list, string or set is refused.
    init : str, mapping, or array_like, default "forward"
        ``"forward"``, ``"random_forward"`` or ``"hybrid"`` (with ``init_p``):
        the paper's initialisers, see :func:`prunelab.samplers.init.initial_state`.
        Or an explicit start: a dict of state names (evidence may be left out), an
        int array in ``bn.variables`` order, or one of those per chain (a list or
        a ``(n_chains, n)`` array). A start with ``P(x, e) = 0`` is an error
        that names the state; so is one with non-integer indices.
    seed : int, SeedSequence, Generator, or None
        Root of ``SeedSequence(seed).spawn(n_chains)``; results do not depend on
        ``n_jobs``. A Generator is accepted: one child is spawned from it
        (:func:`prunelab.evidence.as_seed_sequence`), so the generator moves on
        and two calls with it give different draws; a SeedSequence is copied, not
        advanced.
    n_jobs : int, default 1
        Worker processes (joblib, loky backend) over chains; -1 for all cores. At
        most one per chain and per usable core are started (a warning says so when a
        larger number is lowered). Workers load the numba kernels from the on-disk cache (``cache=True``).
    backend : {"numba", "numpy"}
        The compiled ``run_chain`` or the reference ``step`` loop (slow; same draws).
    progress : bool, default False
        A tqdm bar over finished chains.
    init_p : float, default 0.5
        ``p`` of hybrid forward sampling.
    max_restarts : int, default 10 000
        Forward-sampling tries before the exact fallback of the initialiser.
    rb_checkpoints : array_like of int, optional
        For Rao-Blackwell samplers (Gibbs): draw counts at which running sums of
        the conditionals are kept; default ``log_checkpoints(n_draws, DEFAULT_N_CHECKPOINTS)``
        (:func:`prunelab.checkpoints.log_checkpoints`). Prune sampling records the
        sums of its pruned sets' marginals only when given them
        (:mod:`prunelab.samplers.prune.rao_blackwell`; ``uniform=`` "enumerate", "count", "auto" or "circuit"; and
        ``"prune-tempered"``, for its cold replica), and MC-SAT those of its solution sets
        with ``uniform="exact"`` only.
    traps : {"warn", "record", "off"}, default "warn"
        ``"warn"``: look for signs of a trapped sampler (see Traps in
        :mod:`prunelab.sampling`), record them in ``result.trap`` and warn
        (:class:`~prunelab.traps.SamplerTrappedWarning`) if there are any;
        ``"record"``: the same without the warning (the experiment runner);
        ``"off"``: no check (pieces of one longer chain, where a check of each
        piece means nothing); ``result.trap`` is then empty.
    max_bytes : int, default :data:`MAX_BYTES` (4 GiB)
        A number of bytes, an integer (``"1GB"`` or ``1e9`` is a TypeError).
        Refuse at once, before allocating anything, a run whose draws, per-draw
        statistics, Rao-Blackwell sums and chain buffers would need more.
    **options
        Passed to the sampler's ``run_chain`` and ``step``. A name that its
        ``run_chain`` does not take is a TypeError that lists the ones it does,
        before anything is set up.

    Returns
    -------
    SampleResult

    Raises
    ------
    TypeError
        A count that is not an integer, evidence that is not a mapping or Series,
        a seed of another type.
    EvidenceError
        Unknown or impossible evidence, or an explicit start that disagrees with it.
    InfeasibleStateError
        An explicit start state with probability zero.
    MemoryError
        The run would need more than ``max_bytes``; the message gives the sizes.

    Warns
    -----
    SamplerTrappedWarning
        Some free variable is stuck, held apart, or the chains disagree beyond
        their ESS (with ``traps="warn"``); see :class:`~prunelab.traps.TrapReport`.

    See Also
    --------
    prunelab.samplers.gibbs, prunelab.samplers.metropolis, prunelab.samplers.prune.sampler

    References
    ----------
    .. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
       technique for discrete and deterministic Bayesian networks", 2017.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.sampling import sample
    >>> bn = load_network("blood_pressure")
    >>> result = sample(bn, "gibbs", 1000, n_chains=2, evidence={"Measurement": "m_e"}, seed=42)
    >>> result.draws.shape
    (2, 1000, 5)
    >>> sorted(result.marginals())
    ['BloodPressure', 'Kidney', 'Lifestyle', 'Sports']
    """
    module, n_draws, n_chains, n_jobs, max_restarts = _checked_arguments(
        bn, sampler, n_draws, n_chains, n_jobs, max_restarts, init_p, backend, init, traps)
    evidence = as_evidence(evidence)
    root = as_seed_sequence(seed)
    cps = _rb_checkpoints(module, sampler, rb_checkpoints, n_draws, options)
    _check_options(module, sampler, options)
    _check_memory(bn, n_chains, n_draws, cps, n_jobs, _integer(max_bytes, "max_bytes"))
    net = compile_network(bn, evidence)  # checks the evidence names early
    evidence_names = bn.evidence_names(evidence)
    starts = _explicit_starts(bn, net, init, n_chains)

    seeds = [tuple(child.spawn(2)) for child in root.spawn(n_chains)]
    jobs = [
        (module.__name__, bn, net, evidence_names, init if starts is None else starts[c], init_p,
         max_restarts, seeds[c], n_draws, backend, cps, options)
        for c in range(n_chains)
    ]
    try:
        results = _run_jobs(jobs, n_jobs, progress, sampler)
    except TablesTooLargeError as exc:  # raised on the compiled network, which has indices, not names
        raise exc.with_names(bn.variables) from None
    draws, stats, extras, rb_sums = _gathered(results, n_draws)
    initial_states = np.stack([r["x0"] for r in results]).astype(np.int64)
    trap = TrapReport()
    if traps != "off":
        single_site = bool(getattr(module, "SINGLE_SITE", False))
        trap = trap_report(bn, net, draws, initial_states, trap_seed(root), single_site=single_site)
    if trap.trapped and traps == "warn":
        warnings.warn(trap.message(sampler, n_chains), SamplerTrappedWarning, stacklevel=2)
    return SampleResult(
        draws=draws,
        variables=bn.variables,
        states=dict(bn.states),
        evidence=evidence_names,
        sampler=sampler,
        init_seconds=np.array([r["init_seconds"] for r in results]),
        sample_seconds=np.array([r["sample_seconds"] for r in results]),
        initial_states=initial_states,
        inits_used=tuple(r["init_used"] for r in results),
        rb_checkpoints=cps if rb_sums is not None else None,
        rb_sums=rb_sums,
        stats=stats,
        extras=extras,
        seed_entropy=root.entropy,
        backend=backend,
        options=dict(options),
        seed_spawn_key=tuple(root.spawn_key),
        trap=trap,
    )
