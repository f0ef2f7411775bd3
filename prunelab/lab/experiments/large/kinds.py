"""The four kinds of run of the large-network experiment, each a task that returns one flat record.

:func:`simulate_large_run` computes one run (see :mod:`prunelab.lab.experiments.large`
for what each kind records); the mixing variants of :data:`~.profiles.MIXING_VARIANTS`
are drawn by :func:`_mixing_chains`, each by its registered sampler's name.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict

import numpy as np

from prunelab.catalogue import pgmpy_example_path
from prunelab.compiled import compile_network
from prunelab.exact import treewidth
from prunelab.grids import make_grid
from prunelab.indicators import hellinger
from prunelab.io import read_bif
from ..provenance import current_load
from ..framework import DEFAULT_ROOT_SEED, quiet_worker
from .guard import GUARDED_SAMPLERS, PEER_GRACE_SECONDS, run_peer_guarded
from .measures import (
    deterministic_share,
    ess_check,
    exact_or_refusal,
    fresh_exact,
    longest_stay,
    off_figures,
    pooled_marginals,
    probe_prune,
    quiet_convergence_summary,
    steps_for,
    timed,
    warm_up,
)
from .networks import load_large
from .profiles import MIXING_VARIANTS, LargeProfile, LargeRun, get_large_profile
from ...peers import run_sampler, sampler_info
from prunelab.samplers import get_sampler
from prunelab.samplers.init import exact_posterior_state, initial_state
from prunelab.samplers.prune import plan as prune_plans
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune.ladder import DEFAULT_BETAS, swap_rates
from prunelab.samplers.prune.plan import prune_plan
from prunelab.sampling import sample

__all__ = ["simulate_large_run"]


def _network_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:

    warm_up()
    bn = read_bif(pgmpy_example_path(run.network), name=run.network, normalize=True)  # a fresh object
    _, evidence = load_large(run.network, run.evidence)
    net = compile_network(bn, evidence)
    record = {
        "n_variables": bn.n_variables, "n_free": bn.n_variables - len(evidence or {}),
        "n_arcs": sum(len(bn.parents[v]) for v in bn.variables),
        "max_states": max(len(bn.states[v]) for v in bn.variables),
        "n_cpt_entries": int(sum(bn.cpts[v].size for v in bn.variables)),
        "deterministic_share": deterministic_share(bn),
        "treewidth": int(treewidth(bn, evidence)),
    }
    exact_s, exact, exact_refusal = fresh_exact(bn, evidence)
    setup_s, plan, setup_refusal = timed(prune_plans.compile_prune_plan, net)
    record.update(exact_seconds=exact_s, exact_refused=exact_refusal or "", setup_seconds=setup_s,
                  setup_refused=setup_refusal or "", setup_ratio=setup_s / exact_s if exact is not None else math.nan)
    if plan is None:
        return record
    seed = run.seed(root_seed)
    probe_steps, probe_seconds = probe_prune(bn, evidence, seed.spawn(1)[0])
    n = steps_for(prof.check_seconds, probe_steps, probe_seconds, prof.check_max_steps)
    result = sample(bn, "prune", n, n_chains=2, evidence=evidence, seed=seed, traps="record")
    uniform_codes = result.stats["uniform_code"].ravel()
    record.update(
        check_steps=n,
        steps_per_second=float(2 * n / result.sample_seconds.sum()),
        init_seconds=float(result.init_seconds.mean()),
        inits_used=",".join(result.inits_used),
        mean_size=float(result.stats["size"].mean()),
        uniform_shares=json.dumps(
            {UNIFORM_NAMES[m]: float(np.mean(uniform_codes == m)) for m in np.unique(uniform_codes)}
        ),
        move_rate=float(np.mean(np.any(result.draws[:, 1:] != result.draws[:, :-1], axis=2))),
    )
    if exact is not None:
        free = list(exact)
        check = off_figures(pooled_marginals(result.draws, bn, free), exact)
        record.update({f"check_{k}": v for k, v in check.items()})
        record.update(ess_check(result.draws, bn, exact))
    return record


def _budget_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:

    bn, evidence = load_large(run.network, run.evidence)
    exact, refusal = exact_or_refusal(run.network, run.evidence)
    seed = int(run.seed(root_seed).generate_state(1)[0])
    try:
        if run.sampler in GUARDED_SAMPLERS:
            peer = run_peer_guarded(run.sampler, bn, evidence, run.budget, seed, run.budget + PEER_GRACE_SECONDS)
        else:
            peer = run_sampler(run.sampler, bn, evidence, seconds=run.budget, seed=seed)
    except Exception as exc:  # a peer that raises is a finding, not the end of the sweep  # noqa: BLE001
        record = {"status": "crashed", "note": f"{type(exc).__name__}: {exc}"[:500], "n_steps": 0}
    else:
        record = {"status": peer.status, "note": peer.note[:500], "n_steps": int(peer.n_steps),
                  "seconds": float(peer.seconds), "setup_seconds": float(peer.setup_seconds),
                  "steps_per_second": float(peer.steps_per_second), "move_rate": float(peer.move_rate),
                  "n_warnings": len(peer.warnings)}
        if peer.marginals is not None and exact is not None:
            record.update(off_figures(peer.marginals, exact))
    record.update(step_unit=sampler_info(run.sampler).step_unit, exact_refused=refusal or "")
    return record


def _mixing_chains(variant: str, bn, evidence, prof: LargeProfile, seed):
    """``(draws (chain, draw, variable), sizes or None, seconds, extra record fields)`` of one mixing variant."""
    arm = MIXING_VARIANTS[variant]
    if arm.sampler == "prune+gibbs":
        return _chains_seeded_one_generator_each(arm.sampler, bn, evidence, prof, seed)
    chains = prof.mixing_chains * arm.restarts
    init = "forward"
    if arm.init == "exact":

        rng = np.random.default_rng(seed.spawn(1)[0])
        init = np.stack([exact_posterior_state(rng, bn, evidence, 0) for _ in range(chains)])
    options = {"rb_checkpoints": np.zeros(0, dtype=np.int64)} if arm.sampler == "gibbs" else {}
    result = sample(bn, arm.sampler, prof.mixing_chains * prof.mixing_steps // chains, n_chains=chains,
                    evidence=evidence, init=init, seed=seed, traps="off", **options)
    extra = {}
    if arm.sampler == "prune-tempered":

        extra = {"betas": DEFAULT_BETAS.tolist(), "swap_acceptance": swap_rates(result.stats["swapped"]).tolist()}
    return result.draws.astype(np.int64), result.stats.get("size"), float(result.sample_seconds.sum()), extra


def _chains_seeded_one_generator_each(sampler: str, bn, evidence, prof: LargeProfile, seed):
    """The mixing chains of ``sampler`` seeded as the frozen ``prune+gibbs`` runs were.

    One generator per chain draws its forward start, one throw-away step of each kind
    (compiling the kernels before the clock starts), then the chain.
    """
    module = get_sampler(sampler)
    net = compile_network(bn, evidence)
    plan = prune_plan(net)
    draws, sizes, seconds = [], [], 0.0
    for chain_seed in seed.spawn(prof.mixing_chains):
        rng = np.random.default_rng(chain_seed)
        x = initial_state(rng, bn, "forward", evidence=evidence)
        module.run_chain(rng, net, x, 2, prune_steps=1, plan=plan)  # one prune step, one sweep: both compiled
        tic = time.perf_counter()
        out = module.run_chain(rng, net, x, prof.mixing_steps, plan=plan)
        seconds += time.perf_counter() - tic
        draws.append(out.draws)
        sizes.append(out.size)
    return np.stack(draws), np.stack(sizes), seconds, {}


def _mixing_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:
    bn, evidence = load_large(run.network, True)
    exact, _ = exact_or_refusal(run.network, True)
    draws, sizes, seconds, extra = _mixing_chains(run.sampler, bn, evidence, prof, run.seed(root_seed))
    var = prof.mixing_variable
    column = draws[:, :, bn.index(var)]
    p = exact[var]
    estimate = np.bincount(column.ravel(), minlength=p.size) / column.size
    stay, dwell_size = [], []
    for value in range(p.size):
        now = column[:, :-1] == value
        n_at = int(now.sum())
        stay.append(float((now & (column[:, 1:] == value)).sum() / n_at) if n_at else math.nan)
        if sizes is not None and n_at:
            dwell_size.append(float(np.nanmean(sizes[:, :-1][now])))
        else:
            dwell_size.append(math.nan)
    top = int(np.argmax(p))
    summary = quiet_convergence_summary((column == top).astype(float))
    record = {
        "variable": var, "n_chains": int(draws.shape[0]), "steps_per_chain": int(draws.shape[1]),
        "seconds": seconds, "hellinger": float(hellinger(estimate, p)),
        "longest_stay": max(longest_stay(c) for c in column),
        "rhat": float(summary["rhat"]), "ess_bulk": float(summary["ess_bulk"]),
        "move_rate": float(np.mean(np.any(draws[:, 1:] != draws[:, :-1], axis=2))),
        "states": list(bn.states[var]), "exact": p.tolist(), "estimate": estimate.tolist(),
        "stay_probability": stay, "mean_size_at_value": dwell_size,
        "start_values": [bn.states[var][int(c[0])] for c in column],
        "n_children": sum(var in bn.parents[v] for v in bn.variables),
    }
    record.update(off_figures(pooled_marginals(draws, bn, list(exact)), exact), **extra)
    return record


def _grid_run(run: LargeRun, prof: LargeProfile, root_seed: int) -> dict:

    warm_up()
    seed = run.seed(root_seed)
    structure, chains_seed, probe_seed = seed.spawn(3)
    bn = make_grid(run.side, run.determinism, seed=structure)
    net = compile_network(bn)
    record = {"side": run.side, "determinism": run.determinism, "n_variables": bn.n_variables,
              "treewidth": int(treewidth(bn)), "deterministic_share": deterministic_share(bn)}
    exact_s, exact, exact_refusal = fresh_exact(bn, None)
    setup_s, plan, setup_refusal = timed(prune_plans.compile_prune_plan, net)
    record.update(exact_seconds=exact_s, exact_refused=exact_refusal or "", setup_seconds=setup_s,
                  setup_refused=setup_refusal or "")
    if plan is None:
        return record
    probe_steps, probe_seconds = probe_prune(bn, None, probe_seed)
    n = steps_for(prof.grid_seconds, probe_steps, probe_seconds, 200_000)
    result = sample(bn, "prune", n, n_chains=4, init="random_forward", seed=chains_seed, traps="off")
    draws = result.draws.astype(np.int64)
    rhats, esses = [], []
    for i in range(bn.n_variables):
        summary = quiet_convergence_summary(draws[:, :, i] == 1)
        if np.isfinite(summary["ess_bulk"]) and np.isfinite(summary["rhat"]):
            rhats.append(summary["rhat"])
            esses.append(summary["ess_bulk"])
    record.update(
        steps=n, steps_per_second=float(4 * n / result.sample_seconds.sum()),
        mean_size=float(result.stats["size"].mean()),
        move_rate=float(np.mean(np.any(draws[:, 1:] != draws[:, :-1], axis=2))),
        rhat_max=float(max(rhats)) if rhats else math.nan, ess_min=float(min(esses)) if esses else math.nan,
        n_constant=bn.n_variables - len(rhats),
    )
    if exact is not None:
        record.update(off_figures(pooled_marginals(draws, bn, list(exact)), exact))
    return record


_RUNNERS = {"network": _network_run, "budget": _budget_run, "mixing": _mixing_run, "grid": _grid_run}


def simulate_large_run(run: LargeRun, profile, root_seed: int = DEFAULT_ROOT_SEED) -> dict:
    """Compute one run and return its record (the run's fields, its figures, seconds and load).

    Nothing is written: :func:`run_large` writes the records as they arrive.
    """
    quiet_worker()
    prof = get_large_profile(profile)
    tic = time.perf_counter()
    figures = _RUNNERS[run.kind](run, prof, root_seed)
    return {"id": run.id, **asdict(run), **figures, "wall_seconds": time.perf_counter() - tic,
            "load_average": current_load()}
