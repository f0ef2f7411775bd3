"""Past the junction tree: grids with determinism, compiled into circuits, and the samplers beside them.

The grids are Sang, Beame & Kautz's (:func:`prunelab.make_grid`): a share of the
nodes deterministic, sides up to where compilation stops. Each grid is asked two
ways: without evidence (the query of the published benchmark, ``P(sink)``, where
forward sampling is exact sampling) and with a tenth of the nodes observed
(:data:`EVIDENCE_SHARE`; never the sink or its parents) at the states of one forward
sample of the grid, so that the evidence is possible.

Four kinds of run, each a flat record (:func:`prunelab.lab.experiments.framework.sweep`):

``compile``
    the induced width of the cheapest elimination order exact inference finds, the junction tree's answer or refusal
    and its seconds, the circuit's compile seconds and size or refusal, the exact
    ``P(sink = T | e)`` from the circuit (and from the tree where it fits: both
    recorded), and prune sampling's steps per second with circuit draws and the
    median size of its pruned sets;
``budget``
    one chain of one sampler for a wall-clock budget: the sink estimate and its error,
    the AHD over all free variables, the number of variables off by more than 0.05 and
    the worst Hellinger distance, all against the circuit's exact answer where it gave
    one; steps and seconds;
``per_step``
    independent prune chains with ``uniform="circuit-per-step"`` (the pruned set's CNF
    compiled at every step) on a grid whose whole circuit is out of reach: steps per
    second of wall and of CPU time (the latter does not depend on the machine's load)
    and each chain's sink estimate; and as many independent prune chains with
    CMSGen's near-uniform draws (``uniform="cmsgen"``), so that two independent
    methods can be checked against each other (and against the ``count`` runs' exact answer);
``count``
    the exact ``P(sink = T | e)`` and ``log P(e)`` of every grid and evidence of the
    ``compile`` runs by weighted model counting (Ganak, :func:`prunelab.circuit.count_inference`)
    over the circuit's CNF, two counts and no circuit kept, or the refusal at the profile's
    ``count_seconds``; wall seconds and CPU seconds (this process and the counter's
    child), so that the counter's reach stands beside the compiler's.

The budget runs' samplers (:data:`FRONTIER_SAMPLERS`): ``"prune"`` draws from the
compiled circuit, or compiles the pruned set's CNF at every step where the whole
circuit refuses (``uniform="circuit-per-step"``); ``"prune-tempered"`` is parallel
tempering with prune moves whose replicas all draw from the one compiled circuit (it
needs the whole circuit: refused where it does not compile); ``"prune-cmsgen"`` is
prune with CMSGen's draws, which need no circuit and carry no uniformity guarantee.

::

    from prunelab.lab.experiments import EXPERIMENTS, results
    tables = results(EXPERIMENTS["frontier"], "smoke")      # tables["compile"], tables["budget"], tables["count"]

or ``python -m prunelab run frontier --profile paper``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from ..registry import own_name
from .framework import run_seed_sequence
from prunelab.grids import make_grid
from prunelab.samplers.init import initial_state
from prunelab.circuit import CircuitTooLargeError, circuit_for, circuit_inference
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, treewidth
from prunelab.samplers.prune import sampler as prune
from prunelab.samplers.prune.draws.circuit import compile_circuit_prune_plan
from prunelab.samplers.prune.draws.registry import DRAWS
import resource
from prunelab.circuit import CountTooHardError, count_inference
from prunelab.sampling import sample
from ..peers.prunelab import run_prunelab
from .large.measures import off_figures
from ..peers import run_sampler
from .large.guard import GUARDED_SAMPLERS, PEER_GRACE_SECONDS, run_peer_guarded
from prunelab.extras import MissingExtraError
from .provenance import current_load

__all__ = ["FRONTIER", "FRONTIER_PROFILES", "FRONTIER_SAMPLERS", "PRUNE_SAMPLERS", "FrontierProfile", "FrontierRun",
           "grid_case"]

FRONTIER_SAMPLERS = ("prune", "prune-tempered", "prune-cmsgen", "gibbs", "pyagrum-gibbs", "pyagrum-lbp",
                     "pyagrum-importance", "pyagrum-weighted")
"""Samplers of the budget runs: prunelab's prune (circuit draws), tempered prune (circuit draws), prune with
CMSGen draws and Gibbs, and pyAgrum's four."""

PRUNE_SAMPLERS = {"prune": ("prune", None), "prune-tempered": ("prune-tempered", "circuit"),
                  "prune-cmsgen": ("prune", "cmsgen")}
"""The budget runs' prune samplers: the :func:`prunelab.sample` sampler each runs and its uniform draw
(``None``: the circuit where it compiles, else ``"circuit-per-step"``); every draw is one of
:data:`~prunelab.samplers.prune.draws.registry.DRAWS`."""
if not {u for _, u in PRUNE_SAMPLERS.values() if u} <= set(DRAWS):
    raise ValueError(f"a frontier prune sampler names a uniform draw that prune sampling lacks: {PRUNE_SAMPLERS}")

EVIDENCE_KINDS = ("none", "scattered")
"""``"none"``: no evidence; ``"scattered"``: a share of the nodes observed (see :func:`grid_case`)."""

EVIDENCE_SHARE = 0.1
"""Share of a grid's nodes observed by the ``"scattered"`` evidence."""


@dataclass(frozen=True)
class FrontierProfile:
    """How much the frontier experiment runs.

    Parameters
    ----------
    name : str
    grids : tuple of (percent deterministic, side, seed)
        The grids of the ``compile`` runs, each asked with every evidence kind.
    budget_grids : tuple of (percent deterministic, side, seed)
        The grids of the ``budget`` runs.
    budgets : tuple of float
        Wall-clock budgets (seconds) of the budget runs.
    samplers : tuple of str
        Samplers of the budget runs (:data:`FRONTIER_SAMPLERS`).
    evidence : tuple of str
        Evidence kinds (:data:`EVIDENCE_KINDS`).
    compile_seconds : float
        Cap of one circuit compilation (it refuses past it).
    count_seconds : float
        Cap of one ``count`` run's weighted model counts together (it refuses past it).
    speed_steps : int
        Prune steps timed for the steps per second of a ``compile`` run.
    per_step_grids : tuple of (percent deterministic, side, seed)
        Grids of the ``per_step`` runs, without evidence.
    per_step_chains, per_step_steps : int
        Chains and steps per chain of a ``per_step`` run.
    per_step_cmsgen_steps : int
        Steps per chain of the CMSGen chains of a ``per_step`` run (as many chains).
    """

    name: str
    grids: tuple[tuple[int, int, int], ...]
    budget_grids: tuple[tuple[int, int, int], ...]
    budgets: tuple[float, ...]
    samplers: tuple[str, ...] = FRONTIER_SAMPLERS
    evidence: tuple[str, ...] = EVIDENCE_KINDS
    compile_seconds: float = 600.0
    count_seconds: float = 600.0
    speed_steps: int = 2000
    per_step_grids: tuple[tuple[int, int, int], ...] = ()
    per_step_chains: int = 4
    per_step_steps: int = 100
    per_step_cmsgen_steps: int = 1000

    def to_dict(self) -> dict:
        """The spec as plain JSON-ready values."""
        return asdict(self)


def _sides(percent: int, sides, seeds=(1, 2, 3)) -> tuple:
    return tuple((percent, side, seed) for side in sides for seed in seeds)


FRONTIER_PROFILES = {
    "paper": FrontierProfile(
        "paper",
        grids=(_sides(90, (10, 20, 30, 36, 40, 46, 50)) + _sides(75, (10, 14, 18, 22, 26))
               + _sides(50, (10, 14, 18, 20)) + _sides(90, (50,), seeds=range(4, 11))),
        budget_grids=((90, 30, 1), (90, 40, 2), (75, 22, 1), (50, 18, 1)),
        budgets=(10.0, 60.0),
        per_step_grids=((90, 50, 1),),
    ),
    "smoke": FrontierProfile(
        "smoke", grids=((90, 6, 1), (50, 5, 1)), budget_grids=((90, 6, 1),), budgets=(0.2,),
        samplers=("prune", "prune-tempered", "prune-cmsgen", "gibbs", "pyagrum-lbp"), compile_seconds=60.0,
        count_seconds=60.0, speed_steps=200, per_step_grids=((90, 6, 1),), per_step_chains=2, per_step_steps=5,
        per_step_cmsgen_steps=20,
    ),
}
"""``paper``: 55 grids (90 % to 50 x 50, 75 % to 26 x 26, 50 % to 20 x 20, seeds 1-3, and the 90 % 50 x 50
grids of seeds 4-10, so that side has ten, as the published grid family does) with and without evidence, and
budget runs of 10 s and 60 s on four of them (several hours on 2 cores: the
provenance says how long); ``smoke``: two tiny grids (seconds, for the book's smoke build and the tests)."""


@dataclass(frozen=True)
class FrontierRun:
    """One run: a grid asked with one evidence kind, compiled or sampled.

    Examples
    --------
    >>> FrontierRun("budget", 90, 30, 1, "scattered", sampler="prune", budget=10.0).id
    'budget.d90-30x30-s1.scattered.prune.10s'
    """

    kind: str
    percent: int
    side: int
    seed: int
    evidence: str
    sampler: str = ""
    budget: float = 0.0

    @property
    def grid(self) -> str:
        """``d<percent>-<side>x<side>-s<seed>``."""
        return f"d{self.percent}-{self.side}x{self.side}-s{self.seed}"

    @property
    def id(self) -> str:
        """The run's id: kind, grid, evidence and the budget run's sampler and seconds."""
        parts = [self.kind, self.grid, self.evidence]
        if self.kind == "budget":
            parts += [self.sampler, f"{self.budget:g}s"]
        return ".".join(parts)


def grid_case(percent: int, side: int, seed: int, evidence: str):
    """``(bn, evidence)`` of a grid: :func:`prunelab.make_grid` with ``seed``, and its evidence kind.

    ``"scattered"`` observes ``round(EVIDENCE_SHARE * side**2)`` nodes, drawn without
    replacement among all but the sink and its two parents, at the states of one
    forward sample of the grid (both drawn from ``SeedSequence([seed, side, percent])``),
    so ``P(e) > 0`` and the sink's posterior is not fixed by an observed parent;
    ``"none"`` observes nothing.

    Examples
    --------
    >>> bn, ev = grid_case(90, 10, 1, "scattered")
    >>> len(ev), "v_10_10" in ev, "v_9_10" in ev or "v_10_9" in ev
    (10, False, False)
    """
    if evidence not in EVIDENCE_KINDS:
        raise ValueError(f"unknown evidence kind {evidence!r}; kinds are {list(EVIDENCE_KINDS)}")
    bn = make_grid(side, percent / 100, seed=seed)
    if evidence == "none":
        return bn, {}
    rng = np.random.default_rng(np.random.SeedSequence([seed, side, percent]))
    x = initial_state(rng, bn, "forward")
    sink = bn.variables[-1]
    candidates = [v for v in bn.variables if v != sink and v not in bn.parents[sink]]
    observed = rng.choice(len(candidates), size=round(EVIDENCE_SHARE * side**2), replace=False)
    return bn, {candidates[k]: bn.states[candidates[k]][int(x[bn.index(candidates[k])])] for k in sorted(observed)}


def _compile_run(run: FrontierRun, prof: FrontierProfile, root_seed: int) -> dict:

    bn, evidence = grid_case(run.percent, run.side, run.seed, run.evidence)
    sink = bn.variables[-1]
    record = {"n_nodes": len(bn.variables), "n_observed": len(evidence),
              "width": int(treewidth(bn, evidence, heuristic="best"))}
    tic = time.perf_counter()
    try:
        jt = exact_marginals(bn, evidence, method="junction_tree")
    except (MemoryError, ValueError) as exc:  # the tree's refusal names the clique it would need
        record.update(jt_status="refused", jt_note=str(exc)[:300], jt_p_sink=math.nan)
    else:
        record.update(jt_status="ok", jt_note="", jt_p_sink=float(jt[sink][1]))
    record["jt_seconds"] = time.perf_counter() - tic
    net = compile_network(bn, evidence)
    tic = time.perf_counter()
    try:
        circuit = circuit_for(net, max_seconds=prof.compile_seconds, race=True)
    except CircuitTooLargeError as exc:
        record.update(circuit_status="refused", circuit_note=str(exc)[:300], compile_seconds=time.perf_counter() - tic,
                      vtree="", size=math.nan, p_sink=math.nan, log_p_evidence=math.nan, inference_seconds=math.nan,
                      steps_per_second=math.nan, median_log10_pruned=math.nan)
        return record
    record.update(circuit_status="ok", circuit_note="", compile_seconds=time.perf_counter() - tic,
                  vtree=circuit.vtree_name, size=int(circuit.size))
    tic = time.perf_counter()
    log_p, marginals = circuit_inference(bn, net, circuit)
    record.update(inference_seconds=time.perf_counter() - tic, p_sink=float(marginals[sink][1]),
                  log_p_evidence=float(log_p))
    rng = np.random.default_rng(run_seed_sequence(run.id, root_seed))
    x0 = initial_state(rng, bn, "forward", evidence=evidence)  # its exact fallback draws from the circuit
    plan = compile_circuit_prune_plan(net, circuit)  # the raced circuit: not compiled again
    prune.run_chain(rng, net, x0, 2, uniform="circuit", plan=plan)  # numba compile outside the clock
    tic = time.perf_counter()
    out = prune.run_chain(rng, net, x0, prof.speed_steps, uniform="circuit", plan=plan)
    record["steps_per_second"] = prof.speed_steps / (time.perf_counter() - tic)
    record["median_log10_pruned"] = float(np.median(np.log10(out.size)))
    return record


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the counter's forked child among them)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _count_run(run: FrontierRun, prof: FrontierProfile, root_seed: int) -> dict:
    """``P(sink = T | e)`` and ``log P(e)`` by weighted model counting (Ganak) over the circuit's CNF, or a refusal.

    Two counts (the sink's two states) within the profile's ``count_seconds``; the seconds (wall, and CPU of this
    process and the counter's child) run from the CNF's encoding to the last count. Nothing is drawn:
    ``root_seed`` is unused.
    """
    bn, evidence = grid_case(run.percent, run.side, run.seed, run.evidence)
    sink = bn.variables[-1]
    net = compile_network(bn, evidence)
    tic, cpu = time.perf_counter(), _cpu_seconds()
    try:
        log_p, marginals = count_inference(bn.variables, net, [len(bn.variables) - 1], max_seconds=prof.count_seconds,
                                           what=f"{run.grid} with evidence {run.evidence!r}")
    except CountTooHardError as exc:
        status, note, log_p, p_sink = "refused", str(exc)[:300], math.nan, math.nan
    else:
        status, note, p_sink = "ok", "", float(marginals[sink][1])
    return {"n_nodes": len(bn.variables), "n_observed": len(evidence), "count_status": status, "count_note": note,
            "count_seconds": time.perf_counter() - tic, "count_cpu_seconds": _cpu_seconds() - cpu,
            "count_p_sink": p_sink, "count_log_p_evidence": float(log_p), "count_cap_seconds": prof.count_seconds}


def _prune_chain(bn, evidence, seconds: float, seed: np.random.SeedSequence, uniform: str, sampler: str = "prune"):
    """One chain of ``sampler`` filling ``seconds`` through the peers' budget loop (a ``PeerRun``).

    The chain starts at the first draw of a one-step chain seeded by ``seed``'s first child, and continues chunk
    by chunk from its last draw (:func:`~prunelab.lab.peers.prunelab.run_prunelab`, its chunks seeded from
    ``seed`` itself, the first pilot 10 steps: the slowest samplers here make tens of steps per second); for
    ``"prune-tempered"`` each chunk starts its hotter replicas at that draw too (a few restarts per run: the pilots
    and at most :data:`~prunelab.lab.peers.budget.MAX_CHUNKS` chunks).
    """
    x0 = sample(bn, sampler, 1, evidence=evidence, seed=seed.spawn(1)[0], traps="off", uniform=uniform).draws[0, 0]
    return run_prunelab(bn, evidence, own_name(sampler), seconds=seconds, seed=seed, start=x0, uniform=uniform,
                        pilot_start=10)


def _budget_run(run: FrontierRun, prof: FrontierProfile, root_seed: int) -> dict:

    bn, evidence = grid_case(run.percent, run.side, run.seed, run.evidence)
    sink = bn.variables[-1]
    net = compile_network(bn, evidence)
    try:
        circuit = circuit_for(net, max_seconds=prof.compile_seconds)
    except CircuitTooLargeError:
        circuit, exact = None, None
    else:
        exact = circuit_inference(bn, net, circuit)[1]
    seed = run_seed_sequence(run.id, root_seed)
    record = {"exact_p_sink": float(exact[sink][1]) if exact is not None else math.nan}
    marginals = None
    try:
        if run.sampler == "prune-tempered" and circuit is None:
            record.update(status="refused", note="prune-tempered draws from the whole circuit, which did not compile",
                          n_steps=0, seconds=math.nan, setup_seconds=math.nan, move_rate=math.nan)
        elif run.sampler in PRUNE_SAMPLERS:
            sampler, uniform = PRUNE_SAMPLERS[run.sampler]
            uniform = uniform or ("circuit" if circuit is not None else "circuit-per-step")
            chain = _prune_chain(bn, evidence, run.budget, seed, uniform, sampler)
            marginals = chain.marginals
            record.update(status="ok", note=f"uniform={uniform}", n_steps=chain.n_steps, seconds=chain.seconds,
                          setup_seconds=chain.setup_seconds, move_rate=chain.move_rate)
        else:

            name, peer_seed = own_name(run.sampler) if run.sampler == "gibbs" else run.sampler, int(
                seed.generate_state(1)[0])
            if name in GUARDED_SAMPLERS:  # a pyAgrum sampler that may overrun is stopped
                peer = run_peer_guarded(name, bn, evidence, run.budget, peer_seed, run.budget + PEER_GRACE_SECONDS)
            else:
                peer = run_sampler(name, bn, evidence, seconds=run.budget, seed=peer_seed)
            marginals = peer.marginals
            record.update(status=peer.status, note=peer.note[:300], n_steps=int(peer.n_steps),
                          seconds=float(peer.seconds), setup_seconds=float(peer.setup_seconds),
                          move_rate=float(peer.move_rate))
    except Exception as exc:  # a sampler that raises is a finding, not the end of the sweep  # noqa: BLE001
        record.update(status="crashed", note=f"{type(exc).__name__}: {exc}"[:300], n_steps=0, seconds=math.nan,
                      setup_seconds=math.nan, move_rate=math.nan)
    record["p_sink_estimate"] = float(marginals[sink][1]) if marginals is not None else math.nan
    record["sink_error"] = abs(record["p_sink_estimate"] - record["exact_p_sink"])
    figures = off_figures(marginals, exact) if marginals is not None and exact is not None else {}
    record.update(ahd=figures.get("ahd", math.nan), n_off=figures.get("n_off", -1),
                  worst_hellinger=figures.get("worst_hellinger", math.nan))
    return record


def _independent_chains(bn, evidence, seeds, n_steps: int, uniform: str) -> tuple[list[float], float, float]:
    """One prune chain of ``n_steps`` per seed from a forward start: ``(sink estimates, wall and CPU seconds)``."""
    net = compile_network(bn, evidence)
    estimates, seconds, cpu_seconds = [], 0.0, 0.0
    for chain_seed in seeds:
        rng = np.random.default_rng(chain_seed)
        x0 = initial_state(rng, bn, "forward", evidence=evidence)
        tic, cpu = time.perf_counter(), time.process_time()
        out = prune.run_chain(rng, net, x0, n_steps, uniform=uniform)
        seconds += time.perf_counter() - tic
        cpu_seconds += time.process_time() - cpu
        estimates.append(float((out.draws[:, -1] == 1).mean()))
    return estimates, seconds, cpu_seconds


def _per_step_run(run: FrontierRun, prof: FrontierProfile, root_seed: int) -> dict:
    """Independent prune chains that compile the pruned set's CNF at every step, and as many with CMSGen's draws.

    The first need no whole circuit, the second no compilation at all: two independent methods to check against
    each other where no exact answer exists. The CMSGen chains' seeds are the run's next children, after those of
    the per-step chains.
    """
    bn, evidence = grid_case(run.percent, run.side, run.seed, run.evidence)
    seed, n = run_seed_sequence(run.id, root_seed), prof.per_step_chains
    estimates, seconds, cpu_seconds = _independent_chains(bn, evidence, seed.spawn(n), prof.per_step_steps,
                                                          "circuit-per-step")
    try:
        cmsgen, cmsgen_seconds, _ = _independent_chains(bn, evidence, seed.spawn(n), prof.per_step_cmsgen_steps,
                                                        "cmsgen")
    except MissingExtraError as exc:  # the per-step chains' figures are kept; the note says what is missing
        cmsgen, cmsgen_seconds, cmsgen_note = [], math.nan, str(exc)[:300]
    else:
        cmsgen_note = ""
    return {"n_chains": n, "steps_per_chain": prof.per_step_steps,
            "steps_per_second": n * prof.per_step_steps / seconds,
            "steps_per_cpu_second": n * prof.per_step_steps / cpu_seconds, "p_sink_estimates": estimates,
            "p_sink_mean": float(np.mean(estimates)), "p_sink_chain_sd": float(np.std(estimates, ddof=1)),
            "cmsgen_steps_per_chain": prof.per_step_cmsgen_steps,
            "cmsgen_steps_per_second": n * prof.per_step_cmsgen_steps / cmsgen_seconds,
            "cmsgen_p_sink_estimates": cmsgen, "cmsgen_p_sink_mean": float(np.mean(cmsgen)) if cmsgen else math.nan,
            "cmsgen_p_sink_chain_sd": float(np.std(cmsgen, ddof=1)) if len(cmsgen) > 1 else math.nan,
            "cmsgen_note": cmsgen_note}


class _Frontier:
    """The experiment (:class:`prunelab.lab.experiments.framework.Experiment`)."""

    name = "frontier"
    profiles = FRONTIER_PROFILES
    tables = {"compile": "compile", "budget": "budget", "per_step": "per_step", "count": "count"}
    libraries = ("pyagrum", "pysdd", "pycmsgen", "pyganak")

    def plan(self, profile) -> tuple[FrontierRun, ...]:
        """Compile runs, smallest grids first, then budget runs, shortest budgets first, per-step runs, count runs."""
        asked = [(p, n, s, ev) for p, n, s in sorted(profile.grids, key=lambda g: (g[1], -g[0]))
                 for ev in profile.evidence]
        runs = [FrontierRun("compile", *grid) for grid in asked]
        runs += [FrontierRun("budget", p, n, s, ev, sampler=name, budget=float(b))
                 for b in sorted(profile.budgets) for p, n, s in profile.budget_grids for ev in profile.evidence
                 for name in profile.samplers]
        runs += [FrontierRun("per_step", p, n, s, "none") for p, n, s in profile.per_step_grids]
        runs += [FrontierRun("count", *grid) for grid in asked]
        return tuple(runs)

    def run(self, run: FrontierRun, profile: FrontierProfile, root_seed: int) -> dict:
        """One run's record (its seed: :func:`~prunelab.lab.experiments.framework.run_seed_sequence` of its id)."""
        load, tic = current_load(), time.perf_counter()
        body = {"compile": _compile_run, "budget": _budget_run, "per_step": _per_step_run,
                "count": _count_run}[run.kind]
        record = {"id": run.id, "grid": run.grid, "percent": run.percent, "side": run.side, "seed": run.seed,
                  "evidence": run.evidence}
        if run.kind == "budget":
            record.update(sampler=run.sampler, budget=run.budget)
        record.update(body(run, profile, root_seed))
        record.update(wall_seconds=time.perf_counter() - tic, load_start=load)
        return record


FRONTIER = _Frontier()
"""The frontier experiment."""
