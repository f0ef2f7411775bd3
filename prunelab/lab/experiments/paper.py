"""The paper's sweep as an :class:`~prunelab.lab.experiments.framework.Experiment`: :data:`PAPER`.

A run is one chain of one case (:class:`~prunelab.lab.experiments.specs.CaseSpec`),
``prunelab.sample(bn, case.sampler, n_draws, n_chains=1, seed=s)`` reduced to curves
at the profile's checkpoints (:func:`simulate_run`). Its seed ``s`` is replicate ``r``
of the case's series, ``run_seed_sequence(case.id, root_seed, replicate=r)``
(``SeedSequence(root_seed, spawn_key=(crc32(case id), r))``): it depends on neither
the case's position, the other cases, the workers nor a resume, and different
profiles share it (run 0 of the smoke profile starts like run 0 of the paper's).

:func:`prunelab.lab.experiments.sweep` writes one record per run; the four tables
(``curves``, ``runs``, ``final_marginals``, ``summary``: :mod:`~.tables`) are derived
from them (:meth:`_Paper.derive`). ::

    from prunelab.lab.experiments import PAPER, PROFILES, results
    tables = results(PAPER, PROFILES["smoke"].only(["asia_ev25"]))

or ``python -m prunelab run paper --profile paper`` (about 5 minutes on two cores).
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from prunelab.indicators import hellinger, mean_hellinger_over_variables
from prunelab.sampling import sample
from ..registry import rao_blackwell_mode
from . import store
from .framework import quiet_worker, run_seed_sequence
from .specs import FIXED_START_SPAWN, PROFILES, CaseSpec, Profile, case_exact_marginals, load_case_network
from .specs import prepare_case
from .tables import paper_tables

__all__ = ["PAPER", "PaperRun", "simulate_run"]


@dataclass(frozen=True)
class PaperRun:
    """Run ``index`` of ``case``: replicate ``index`` of the case's seed series.

    Examples
    --------
    >>> PaperRun(CaseSpec("asia_ev0", "asia", "gibbs"), 42).id
    'run.asia_ev0.gibbs.00042'
    """

    case: CaseSpec
    index: int
    kind: str = "run"

    def __post_init__(self):
        if not 0 <= self.index < FIXED_START_SPAWN:
            raise ValueError(f"run index must be in [0, {FIXED_START_SPAWN}), got {self.index}")

    @property
    def id(self) -> str:
        """``run.<case id>.<index:05d>``."""
        return f"run.{self.case.id}.{self.index:05d}"


def _stat_means(stats: dict) -> dict:
    means = {}
    for name, values in stats.items():
        values = np.asarray(values)
        if np.issubdtype(values.dtype, np.number) or values.dtype == bool:
            means[name] = float(np.mean(values))
    return means


def simulate_run(case: CaseSpec, run: int, n_draws: int, checkpoints, root_seed: int) -> dict:
    """One run: a chain of ``n_draws`` draws, reduced to curves at the checkpoints.

    The chain is ``prunelab.sample(bn, case.sampler, n_draws, n_chains=1, seed=s)``
    with ``s = run_seed_sequence(case.id, root_seed, replicate=run)``. Recorded: the
    running estimate of the query marginal (all states), its Hellinger distance to
    the exact marginal, the mean over free variables of the Hellinger distance of
    each one's running estimate ("all variables"), the Rao-Blackwellised versions for
    samplers that have them (prune sampling's from a second chain of the same seed,
    timed apart: :func:`~prunelab.lab.registry.rao_blackwell_mode`), final estimates of every marginal, the
    seconds, the query draws (``int8`` bytes, base64), and the variables the chain was
    stuck on (``SampleResult.trap.stuck``; sampled with ``traps="record"``, so a
    trapped run is recorded, not warned about).

    Parameters
    ----------
    case : CaseSpec
    run : int
        The run's index, its replicate in the case's seed series.
    n_draws : int
        Draws of the chain.
    checkpoints : array_like of int
    root_seed : int

    Returns
    -------
    dict
        The run's record (JSON values).

    Examples
    --------
    >>> record = simulate_run(CaseSpec("deterministic_pair", "deterministic_pair", "prune"), 0, 20, [10, 20], 1)
    >>> record["t"], len(record["hellinger_query"]), record["spawn_key"][1]
    ([10, 20], 2, 0)
    """
    quiet_worker()
    bn, evidence = load_case_network(case)
    exact = case_exact_marginals(case)
    prepared = prepare_case(case, root_seed)
    cps = np.asarray(checkpoints, dtype=np.int64)
    options = dict(case.options)
    always, on_request = rao_blackwell_mode(case.sampler, options)
    init = case.init if case.init != "fixed" else np.asarray(prepared["start"], dtype=np.int64)
    seed = run_seed_sequence(case.id, root_seed, replicate=run)

    def chain(**rb):
        return sample(bn, case.sampler, n_draws, n_chains=1, evidence=evidence, init=init,
                      seed=run_seed_sequence(case.id, root_seed, replicate=run), n_jobs=1, progress=False,
                      traps="record", **options, **rb)

    result = chain(**({"rb_checkpoints": cps} if always else {}))
    result_rb = result if always else None
    if on_request:  # the same chain again (same seed, same draws), timed with the Rao-Blackwell pass
        result_rb = chain(rb_checkpoints=cps)
        if not np.array_equal(result_rb.draws, result.draws):
            raise RuntimeError(f"{case.id} run {run}: the chain with rb_checkpoints drew other states than the "
                               "plain chain of the same seed (the Rao-Blackwell pass must not draw)")
    draws = result.draws[0]  # (T, variable)
    query = case.query_variable
    qi = bn.index(query)

    def curves(estimator):
        source = result_rb if estimator == "rao_blackwell" else result
        running = {v: source.running_marginals(v, cps, estimator=estimator)[0] for v in exact}
        query_est = running[query]
        h_all = mean_hellinger_over_variables(running, exact)
        return query_est, np.asarray(hellinger(query_est, exact[query])), np.asarray(h_all)

    estimate, h_query, h_all = curves("empirical")
    final = np.concatenate(
        [np.bincount(draws[:, i], minlength=len(bn.states[v])) / n_draws for i, v in enumerate(bn.variables)]
    )
    record = {
        "case": case.id, "benchmark": case.benchmark, "network": case.network, "evidence": case.evidence,
        "sampler": case.sampler, "init": case.init, "query": query, "query_state": prepared["query_state"],
        "n_states": len(bn.states[query]), "run": int(run), "n_draws": int(n_draws),
        "root_seed": str(int(root_seed)), "spawn_key": [int(k) for k in seed.spawn_key],
        "init_used": result.inits_used[0], "init_seconds": float(result.init_seconds[0]),
        "sample_seconds": float(result.sample_seconds[0]),
        "sample_seconds_rb": None if result_rb is None else float(result_rb.sample_seconds[0]),
        "stats": json.dumps(store.plain_json(_stat_means({k: v[0] for k, v in result.stats.items()})),
                            sort_keys=True),
        "start_state": result.initial_states[0].tolist(), "t": cps.tolist(),
        "estimate": estimate.ravel().tolist(), "hellinger_query": h_query.tolist(), "hellinger_all": h_all.tolist(),
        "final_marginals": final.tolist(),
        "query_draws": base64.b64encode(draws[:, qi].astype(np.int8).tobytes()).decode("ascii"),
        "stuck": list(result.trap.stuck), "case_spec": json.dumps(case.to_dict(), sort_keys=True),
        "estimate_rb": None, "hellinger_query_rb": None, "hellinger_all_rb": None, "final_marginals_rb": None,
    }
    if result_rb is not None:
        estimate_rb, h_query_rb, h_all_rb = curves("rao_blackwell")
        record.update(
            estimate_rb=estimate_rb.ravel().tolist(),
            hellinger_query_rb=h_query_rb.tolist(),
            hellinger_all_rb=h_all_rb.tolist(),
            final_marginals_rb=(result_rb.rb_sums[0, -1] / cps[-1]).tolist(),
        )
    return record


class _Paper:
    """The experiment (:class:`prunelab.lab.experiments.framework.Experiment`)."""

    name = "paper"
    profiles = PROFILES
    tables = {"run": "runs"}
    libraries = ()

    def plan(self, profile: Profile) -> tuple[PaperRun, ...]:
        """Every run of every case of the profile, case by case; a case that cannot run is refused here.

        Each case is prepared once (:func:`~.specs.prepare_case`: exact marginals, the
        query state), so an observed query variable fails before any run.
        """
        cases = profile.selected()
        for case in cases:
            prepare_case(case)
        return tuple(PaperRun(case, r) for case in cases for r in range(profile.n_runs))

    def run(self, run: PaperRun, profile: Profile, root_seed: int) -> dict:
        """:func:`simulate_run` of the run, with its ``id`` and ``wall_seconds``."""
        tic = time.perf_counter()
        record = simulate_run(run.case, run.index, profile.n_draws, profile.checkpoints, root_seed)
        return {"id": run.id, **record, "wall_seconds": time.perf_counter() - tic}

    def derive(self, frames: dict, settings: dict) -> dict[str, pd.DataFrame]:
        """The four tables from the run records: :func:`~.tables.paper_tables`."""
        return paper_tables(frames["runs"], settings)


PAPER = _Paper()
"""The paper's sweep: 11 benchmarks x 3 samplers, 100 runs of 25 000 draws at the ``paper`` profile."""
