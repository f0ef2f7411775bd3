"""Where only a sampler can go: every marginal estimated where no exact method gives them all.

The networks are those where neither the junction tree (its tables refuse) nor the
compiled circuit (it refuses within its cap) gives every posterior: Sang, Beame &
Kautz's 90 % grids of side 50 whose circuit refuses (:func:`~prunelab.lab.experiments.frontier.grid_case`),
and development relational networks of ``data/benchmarks/2004-pgm`` with and without
their evidence files (:func:`~prunelab.lab.experiments.families.load_instance`). On
each, every sampler of :data:`REACH_SAMPLERS` that starts estimates every marginal for
a wall-clock budget, and the weighted model counter gives the exact posterior of a
seeded random choice of the free variables (:func:`truth_variables`), the ground truth.

Two kinds of run, each a flat record (:func:`prunelab.lab.experiments.framework.sweep`):

``truth``
    the counted posteriors of :func:`truth_variables` of one network
    (:func:`prunelab.circuit.count_inference`: ``P(e)`` once, then ``k - 1`` counts per
    variable), the variables' names, ``log P(e)``, wall and CPU seconds, or the refusal;
``budget``
    one sampler on one network for ``budget`` seconds (each of the profile's ``budgets`` for its
    ``samplers``, then its ``long_budget`` for its ``long_samplers``): :data:`REACH_SAMPLERS` of prunelab
    run ``chains`` chains of ``budget / chains`` seconds each, each in a forked child stopped
    at its share plus the profile's ``grace_seconds`` (:func:`~prunelab.lab.experiments.guard.guarded`),
    through the lab's budget loop (:func:`~prunelab.lab.peers.budget.fill_budget`); pyAgrum's
    run once for the whole budget. The record holds the pooled estimates of the counted
    variables, the steps, and the trap check of the chains on those variables
    (:func:`prunelab.traps.trap_report`: split and disagreeing variables; the variables no
    chain moved, judged against the counted truth by :func:`reach_table`), or the
    refusal and its reason: a sampler that cannot start is a record, never a crash.

:func:`reach_table` joins the two: per network and sampler the draws, the AHD over the
counted variables (:func:`prunelab.indicators.mean_hellinger_over_variables`), the worst
Hellinger distance, and whether the chains were flagged as trapped.

::

    from prunelab.lab.experiments import EXPERIMENTS, results
    from prunelab.lab.experiments.reach import reach_table
    table = reach_table(results(EXPERIMENTS["reach"], "smoke"))

or ``python -m prunelab run reach --profile paper`` (60 s per sampler, then 600 s for the best three at 60 s;
``--extend`` adds the 600 s stage to a store made before the profile had it, its truth kept).
"""

from __future__ import annotations

import functools
import math
import time
import zlib
from dataclasses import asdict, dataclass

import numpy as np

from .framework import run_seed_sequence
from .guard import clipped_message, guarded

__all__ = ["REACH", "REACH_PROFILES", "REACH_SAMPLERS", "ReachProfile", "ReachRun", "reach_case", "reach_table",
           "truth_variables"]

REACH_SAMPLERS = {
    "gibbs-rb": ("gibbs", {}, True),
    "pyagrum-lbp": ("pyagrum-lbp", {}, False),
    "pyagrum-importance": ("pyagrum-importance", {}, False),
    "mc-sat-samplesat": ("mc-sat", {"uniform": "samplesat"}, False),
    "prune-per-step": ("prune", {"uniform": "circuit-per-step"}, False),
    "prune-count": ("prune", {"uniform": "count"}, False),
    "prune-count-rb": ("prune", {"uniform": "count"}, True),
    "prune-tempered": ("prune-tempered", {"uniform": "count"}, False),
    "mc-sat": ("mc-sat", {"uniform": "exact"}, False),
}
"""Each sampler of the budget runs, in the order they run (those that need no counting plan first): ``(sampler,
options, Rao-Blackwell)``. prunelab's run through
:func:`prunelab.sample` (prune with counting or per-step circuit draws, with and without the
Rao-Blackwell estimate, tempered prune, Gibbs with its Rao-Blackwell estimate, MC-SAT with its exact
uniform step, which needs prune's counting plan, and with SampleSAT's near-uniform one, which needs none);
the ``pyagrum-`` ones through :func:`~prunelab.lab.peers.pyagrum_other.run_pyagrum_other`."""

TRUTH_SEED = 30
"""Seed of the choice of counted variables (with the network's name: :func:`truth_variables`)."""


@dataclass(frozen=True)
class ReachProfile:
    """How much the reach experiment runs.

    Parameters
    ----------
    name : str
    networks : tuple of str
        Network keys (:func:`reach_case`): ``grid-d<percent>-<side>x<side>-s<seed>`` or a
        ``data/benchmarks`` instance key (``blockmap_10_02-0000``).
    samplers : tuple of str
        Keys of :data:`REACH_SAMPLERS`.
    budgets : tuple of float
        Wall-clock seconds per sampler and network (split over ``chains`` for prunelab's).
    chains : int
        Chains of each prunelab sampler (their trap check needs two or more).
    n_truth : int
        Free variables counted for the ground truth (:func:`truth_variables`).
    count_seconds : float
        Cap of one network's counts together (a refusal past it).
    grace_seconds : float
        Set-up time a chain's child may take past its share of the budget before it is stopped
        (a refusal, ``"timed out"``).
    max_gib : float
        Memory cap of a chain's child and of the counts.
    long_samplers : tuple of str
        Keys of :data:`REACH_SAMPLERS` also run for ``long_budget`` seconds (none: no long stage).
    long_budget : float
        Wall-clock seconds of the long stage, per sampler and network.
    """

    name: str
    networks: tuple[str, ...]
    samplers: tuple[str, ...] = tuple(REACH_SAMPLERS)
    budgets: tuple[float, ...] = (60.0,)
    chains: int = 2
    n_truth: int = 30
    count_seconds: float = 3600.0
    grace_seconds: float = 150.0
    max_gib: float = 6.0
    long_samplers: tuple[str, ...] = ()
    long_budget: float = 600.0

    def to_dict(self) -> dict:
        """The spec as plain JSON-ready values."""
        return asdict(self)


PAPER_NETWORKS = ("mastermind_05_08_03-0000", "mastermind_05_08_03-0014", "blockmap_10_02-0000", "grid-d90-50x50-s1",
                  "grid-d90-50x50-s5")
"""The networks where neither the junction tree nor the circuit gives every marginal (see the module notes), the
quickest to count first."""

REACH_PROFILES = {
    "paper": ReachProfile("paper", networks=PAPER_NETWORKS,
                          long_samplers=("gibbs-rb", "pyagrum-lbp", "pyagrum-importance")),
    "smoke": ReachProfile("smoke", networks=("grid-d90-5x5-s1", "grid-d90-5x5-s2"), budgets=(0.4,), n_truth=6,
                          count_seconds=120.0, grace_seconds=120.0),
}
"""``paper``: 60 s per sampler on five networks (two 90 % 50 x 50 grids whose circuit refuses, blockmap_10_02
without evidence, mastermind_05_08_03 without and with ``-0014.inst``), 30 counted variables each, then 600 s
for the three best at 60 s (Gibbs, the only one that ran on blockmap_10_02; pyAgrum's importance sampling and
loopy belief propagation, the lowest AHD on mastermind_05_08_03); ``smoke``: two tiny grids (seconds, for the
tests and the book's smoke build)."""


@dataclass(frozen=True)
class ReachRun:
    """One run: the counted truth of a network, or one sampler on it for a budget.

    Examples
    --------
    >>> ReachRun("budget", "blockmap_10_02-0000", "gibbs-rb", 60.0).id
    'budget.blockmap_10_02-0000.gibbs-rb.60s'
    """

    kind: str
    network: str
    sampler: str = ""
    budget: float = 0.0

    @property
    def id(self) -> str:
        """The run's id: kind, network and the budget run's sampler and seconds."""
        parts = [self.kind, self.network]
        if self.kind == "budget":
            parts += [self.sampler, f"{self.budget:g}s"]
        return ".".join(parts)


def reach_case(network: str):
    """``(bn, evidence)`` of a network key: a grid (``grid-d90-50x50-s1``, no evidence) or a benchmark instance.

    Examples
    --------
    >>> bn, evidence = reach_case("grid-d90-5x5-s1")
    >>> len(bn.variables), evidence
    (25, {})
    """
    import re

    grid = re.fullmatch(r"grid-d(\d+)-(\d+)x\2-s(\d+)", network)
    if grid:
        from .frontier import grid_case

        return grid_case(int(grid[1]), int(grid[2]), int(grid[3]), "none")
    from .families import benchmark_instances, load_instance

    instances = {i.key: i for i in benchmark_instances()}
    if network not in instances:
        raise ValueError(f"unknown network {network!r}: neither grid-d<percent>-<side>x<side>-s<seed> nor an "
                         f"instance of data/benchmarks (e.g. {sorted(instances)[0]!r})")
    bn, evidence, *_ = load_instance(instances[network])
    return bn, evidence


def truth_variables(bn, evidence, network: str, n: int) -> list[str]:
    """The ``n`` free variables counted for the ground truth: drawn without replacement, in network order.

    Drawn by ``default_rng(SeedSequence([TRUTH_SEED, crc32(network)]))``, so the same network always
    counts the same variables, whatever the profile.

    Examples
    --------
    >>> bn, evidence = reach_case("grid-d90-5x5-s1")
    >>> chosen = truth_variables(bn, evidence, "grid-d90-5x5-s1", 4)
    >>> len(chosen), chosen == truth_variables(bn, evidence, "grid-d90-5x5-s1", 4)
    (4, True)
    """
    observed = bn.evidence_names(evidence)
    free = [v for v in bn.variables if v not in observed]
    rng = np.random.default_rng(np.random.SeedSequence([TRUTH_SEED, zlib.crc32(network.encode())]))
    picked = set(rng.choice(len(free), size=min(n, len(free)), replace=False).tolist())
    return [v for k, v in enumerate(free) if k in picked]


def _truth_run(run: ReachRun, prof: ReachProfile, root_seed: int) -> dict:
    """The counted posteriors of the network's :func:`truth_variables` in a guarded child (nothing drawn)."""
    from prunelab.circuit import count_inference
    from prunelab.compiled import compile_network
    bn, evidence = reach_case(run.network)
    chosen = truth_variables(bn, evidence, run.network, prof.n_truth)

    def count():
        net = compile_network(bn, evidence)
        log_p, marginals = count_inference(bn.variables, net, [bn.index(v) for v in chosen],
                                           max_seconds=prof.count_seconds, max_bytes=int(prof.max_gib * 2**30),
                                           what=run.network)
        return float(log_p), [marginals[v].tolist() for v in chosen]

    out = guarded(count, timeout=prof.count_seconds + prof.grace_seconds, max_bytes=int(prof.max_gib * 2**30))
    answered = out["status"] == "answered"
    return {"n_variables": len(bn.variables), "n_observed": len(bn.evidence_names(evidence)), "variables": chosen,
            "status": "ok" if answered else out["status"], "reason": "" if answered else
            clipped_message(f"{out['error']}: {out['message']}", keep=200),
            "log_p_evidence": out["value"][0] if answered else math.nan,
            "marginals": out["value"][1] if answered else [], "count_seconds": out["wall_seconds"],
            "count_cpu_seconds": out["cpu_seconds"]}


def _chain(bn, evidence, name: str, seconds: float, seed: np.random.SeedSequence, columns) -> dict:
    """One chain of a prunelab sampler of :data:`REACH_SAMPLERS` filling ``seconds`` (run in the guarded child).

    Started at one forward sample (:func:`~prunelab.lab.peers.run.chain_start`, from ``seed``'s first child),
    continued chunk by chunk through :func:`~prunelab.lab.peers.budget.fill_budget`, each chunk seeded by
    :func:`~prunelab.lab.peers.prunelab.chunk_seed`. Returns the tally's figures, the estimates of every free
    variable and the draws of ``columns`` (the counted variables) for the trap check.
    """
    from prunelab import sample
    from prunelab.samplers import get_sampler
    from ..peers.budget import MAX_CHUNK_CELLS, ChainTally, fill_budget
    from ..peers.prunelab import chunk_seed
    from ..peers.run import chain_start

    own, options, rao_blackwell = REACH_SAMPLERS[name]
    options = dict(options)
    if not rao_blackwell and getattr(get_sampler(own), "RAO_BLACKWELL", False):
        options["rb_checkpoints"] = np.zeros(0, dtype=np.int64)  # plain frequencies: no running sums
    x0 = chain_start(bn, evidence, None, seed.spawn(1)[0])

    def draw(n, start_from, salt):
        if rao_blackwell:  # the sums over the whole chunk
            options["rb_checkpoints"] = np.array([int(n)], dtype=np.int64)
        result = sample(bn, own, int(n), evidence=evidence, init=start_from, seed=chunk_seed(seed, salt),
                        traps="off", **options)  # chunks of one chain: the trap check is the whole chain's
        chunk = (result.draws[0], float(result.sample_seconds.sum()))
        return chunk + (result.rb_sums[0, -1],) if rao_blackwell else chunk

    class Traced(ChainTally):  # the tally, keeping the counted variables' draws too
        def add(self, draws, seconds, rb_sums=None):
            super().add(draws, seconds, rb_sums)
            if draws.shape[0]:
                traces.append(np.asarray(draws[:, columns], dtype=np.int8))

    traces = []
    tic = time.perf_counter()
    draw(1, x0, 99)  # numba compile, the sampler's plan and warm-up, outside the timing
    warm = time.perf_counter() - tic
    tally = Traced(bn, evidence, x0)
    setup = warm + fill_budget(draw, tally, None, seconds, pilot_start=10,
                               max_draws=max(1, MAX_CHUNK_CELLS // len(bn.variables)))
    trace = np.concatenate(traces) if traces else np.zeros((0, len(columns)), np.int8)
    return {"n_steps": tally.n_steps, "seconds": tally.seconds, "setup_seconds": setup, "move_rate": tally.move_rate,
            "marginals": tally.marginals(), "trace": trace, "start": np.asarray(x0)[columns]}


def _pyagrum(bn, evidence, name: str, seconds: float, seed: np.random.SeedSequence) -> dict:
    """One run of a pyAgrum sampler for ``seconds`` (in the guarded child); a crash is a refusal."""
    from ..peers.pyagrum_other import run_pyagrum_other

    peer = run_pyagrum_other(bn, evidence, REACH_SAMPLERS[name][0], seconds=seconds,
                             seed=int(seed.generate_state(1)[0]))
    if peer.status != "ok":
        raise RuntimeError(f"pyAgrum {peer.status}: {peer.note}")
    return {"n_steps": peer.n_steps, "seconds": peer.seconds, "setup_seconds": peer.setup_seconds,
            "move_rate": math.nan, "marginals": peer.marginals, "note": peer.note}


def _trap_check(bn, chosen, chains: list[dict]) -> dict:
    """:func:`prunelab.traps.trap_report` of the chains on the counted variables.

    The counted variables become a network of their own (roots, each with the pooled estimate as its
    table), so that the check reads their draws alone; the variables no chain moved are returned for
    :func:`reach_table` to judge against the counted truth (the check's ``held`` sign, which needs it).
    """
    from prunelab import BayesianNetwork
    from prunelab.compiled import compile_network
    from prunelab.traps import MIN_DRAWS, trap_report, trap_seed

    length = min(c["trace"].shape[0] for c in chains)
    if len(chains) < 2 or length < MIN_DRAWS:
        return {"trap_judged": False, "trap_note": f"{len(chains)} chain(s) of at least {length} draws: the check "
                f"needs 2 chains of {MIN_DRAWS}", "trap_split": [], "trap_disagreeing": [], "never_moved": [],
                "never_moved_states": []}
    draws = np.stack([c["trace"][:length] for c in chains])
    starts = np.stack([c["start"] for c in chains]).astype(np.int8)
    pooled = {v: np.mean([c["marginals"][v] for c in chains], axis=0) for v in chosen}
    stand_in = BayesianNetwork(states={v: list(bn.states[v]) for v in chosen}, parents={v: [] for v in chosen},
                               cpts={v: pooled[v] for v in chosen})
    report = trap_report(stand_in, compile_network(stand_in), draws, starts,
                         trap_seed(np.random.SeedSequence(0)), single_site=False)
    moved = np.any(draws != starts[:, None, :], axis=(0, 1))
    same = np.all(starts == starts[:1], axis=0)
    never = [k for k in range(len(chosen)) if not moved[k] and same[k]]
    return {"trap_judged": True, "trap_note": "", "trap_split": list(report.split),
            "trap_disagreeing": list(report.disagreeing), "never_moved": [chosen[k] for k in never],
            "never_moved_states": [int(starts[0, k]) for k in never]}


@functools.lru_cache(maxsize=1)
def _warm_up() -> None:
    """Compile the prunelab samplers' numba kernels once in this process, before the chains' children fork.

    Kernels are cached on disk, but a child that loads or compiles them spends its share of the budget
    doing so (a minute and more at a load of 5): forked after this, every child has them.
    """
    from prunelab import make_grid, sample

    bn = make_grid(3, 0.5, seed=0)
    for own, options, rao_blackwell in {(o, tuple(sorted(k.items())), rb) for o, k, rb in REACH_SAMPLERS.values()
                                         if not o.startswith("pyagrum-")}:
        extra = {"rb_checkpoints": np.array([5], dtype=np.int64)} if rao_blackwell else {}
        for evidence in ({}, {"v_3_3": "T"}):
            sample(bn, own, 5, evidence=evidence, seed=0, traps="off", **dict(options), **extra)


def _budget_run(run: ReachRun, prof: ReachProfile, root_seed: int) -> dict:
    """One sampler on one network: its chains (or pyAgrum's one run) in guarded children, or the refusal."""
    if not run.sampler.startswith("pyagrum-"):
        _warm_up()
    bn, evidence = reach_case(run.network)
    chosen = truth_variables(bn, evidence, run.network, prof.n_truth)
    columns = [bn.index(v) for v in chosen]
    seed = run_seed_sequence(run.id, root_seed)
    peer = run.sampler.startswith("pyagrum-")
    n_chains = 1 if peer else prof.chains
    share = run.budget / n_chains
    cap = int(prof.max_gib * 2**30)
    chains, refusal = [], ""
    for chain_seed in seed.spawn(n_chains):
        job = (lambda s=chain_seed: _pyagrum(bn, evidence, run.sampler, share, s)) if peer else (
            lambda s=chain_seed: _chain(bn, evidence, run.sampler, share, s, columns))
        out = guarded(job, timeout=share + prof.grace_seconds, max_bytes=cap)
        if out["status"] != "answered":
            refusal = clipped_message(f"{out['status']}: {out['error']}: {out['message']}", keep=200)
            break
        chains.append(out["value"])
    record = {"n_chains": n_chains, "variables": chosen, "status": "refused" if refusal else "ok",
              "reason": refusal}
    if refusal:
        return {**record, "n_steps": 0, "steps": [], "seconds": math.nan, "setup_seconds": math.nan,
                "move_rate": math.nan, "estimates": [], "trap_judged": False, "trap_note": "",
                "trap_split": [], "trap_disagreeing": [], "never_moved": [], "never_moved_states": [],
                "note": ""}
    weights = np.array([c["n_steps"] for c in chains], float) if not peer else np.ones(1)
    estimates = [np.average([c["marginals"][v] for c in chains], axis=0, weights=weights).tolist() for v in chosen]
    traps = _trap_check(bn, chosen, chains) if not peer else {
        "trap_judged": False, "trap_note": "no draws to check: pyAgrum gives estimates only", "trap_split": [],
        "trap_disagreeing": [], "never_moved": [], "never_moved_states": []}
    return {**record, "n_steps": int(sum(c["n_steps"] for c in chains)), "steps": [int(c["n_steps"]) for c in chains],
            "seconds": float(sum(c["seconds"] for c in chains)),
            "setup_seconds": float(sum(c["setup_seconds"] for c in chains)),
            "move_rate": float(np.mean([c["move_rate"] for c in chains])), "estimates": estimates, **traps,
            "note": chains[0].get("note", "")[:300]}


def reach_table(tables):
    """Per network and sampler: draws, AHD over the counted variables, worst Hellinger, trapped chains.

    Parameters
    ----------
    tables : dict
        :func:`~prunelab.lab.experiments.framework.load_folder` (or ``results``) of a reach folder: its
        ``truth`` and ``budget`` tables.

    Returns
    -------
    DataFrame
        One row per budget run: ``network, sampler, budget, status, reason, n_steps, ahd, worst_hellinger,
        n_counted, trap_judged, trapped, n_trapped_variables, trapped_chains`` (all the run's chains when the
        check flags a variable: the check judges the chains together). ``ahd`` is the mean over the counted
        variables of the Hellinger distance between the pooled estimate and the counted posterior; NaN where
        the sampler refused or the counts did.

    Examples
    --------
    >>> from prunelab.lab.experiments import REACH, results
    >>> table = reach_table(results(REACH, "paper"))
    >>> set(table["status"]) <= {"ok", "refused"}, bool((table["ahd"].dropna() <= 1).all())
    (True, True)
    """
    import pandas as pd

    from prunelab.indicators import hellinger, mean_hellinger_over_variables
    from prunelab.traps import HELD_SHARE

    truth = {row["network"]: row for _, row in tables["truth"].iterrows()}
    rows = []
    for _, run in tables["budget"].sort_values(["network", "budget", "sampler"]).iterrows():
        t = truth.get(run["network"])
        exact = {v: np.asarray(m, float) for v, m in zip(t["variables"], t["marginals"])} if (
            t is not None and t["status"] == "ok") else {}
        ok = run["status"] == "ok" and bool(exact)
        estimates = {v: np.asarray(m, float) for v, m in zip(run["variables"], run["estimates"])}
        held = [v for v, s in zip(run["never_moved"], run["never_moved_states"])
                if v in exact and 1.0 - exact[v][int(s)] >= HELD_SHARE]  # the trap check's held sign
        flagged = sorted(set(run["trap_split"]) | set(run["trap_disagreeing"]) | set(held))
        rows.append({
            "network": run["network"], "sampler": run["sampler"], "budget": run["budget"], "status": run["status"],
            "reason": run["reason"], "n_steps": int(run["n_steps"]),
            "ahd": float(mean_hellinger_over_variables(estimates, exact)) if ok else math.nan,
            "worst_hellinger": max(float(hellinger(estimates[v], exact[v])) for v in exact) if ok else math.nan,
            "n_counted": len(exact), "trap_judged": bool(run["trap_judged"]),
            "trapped": bool(flagged) if run["trap_judged"] else None, "n_trapped_variables": len(flagged),
            "trapped_chains": int(run["n_chains"]) if flagged and run["trap_judged"] else 0,
        })
    return pd.DataFrame(rows)


class _Reach:
    """The experiment (:class:`prunelab.lab.experiments.framework.Experiment`)."""

    name = "reach"
    profiles = REACH_PROFILES
    tables = {"truth": "truth", "budget": "budget"}
    libraries = ("pyagrum", "pysdd", "pyganak")

    def plan(self, profile: ReachProfile) -> tuple[ReachRun, ...]:
        """The truth of every network, the budget runs (shortest first, network by network), the long stage last."""
        stages = [(b, profile.samplers) for b in sorted(profile.budgets)] + [(profile.long_budget,
                                                                              profile.long_samplers)]
        runs = [ReachRun("truth", n) for n in profile.networks]
        runs += [ReachRun("budget", n, s, float(b)) for b, samplers in stages for n in profile.networks
                 for s in samplers]
        return tuple(dict.fromkeys(runs))  # a long stage whose budget is one of the budgets: each run once

    def run(self, run: ReachRun, profile: ReachProfile, root_seed: int) -> dict:
        """One run's record (its seed: :func:`~prunelab.lab.experiments.framework.run_seed_sequence` of its id)."""
        from .provenance import current_load

        unknown = [s for s in (*profile.samplers, *profile.long_samplers) if s not in REACH_SAMPLERS]
        if unknown:
            raise ValueError(f"unknown reach sampler(s) {unknown}; known: {list(REACH_SAMPLERS)}")
        load, tic = current_load(), time.perf_counter()
        record = {"id": run.id, "network": run.network}
        if run.kind == "budget":
            record.update(sampler=run.sampler, budget=run.budget)
        record.update((_truth_run if run.kind == "truth" else _budget_run)(run, profile, root_seed))
        record.update(wall_seconds=time.perf_counter() - tic, load_start=load)
        return record


REACH = _Reach()
"""The reach experiment."""
