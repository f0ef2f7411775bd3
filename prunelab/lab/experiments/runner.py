"""The resumable, parallel runner: one task per run, results written as they arrive.

:func:`reproduce` lists the runs of a profile that are not on disk yet, spreads them
over processes (joblib, loky) or over a dask.distributed cluster, and writes each
finished run at once (:func:`prunelab.lab.experiments.store.write_run`, atomic). A sweep
that is killed loses only the runs in flight; started again it skips what is done.
At the end the run files are consolidated into tidy tables
(:func:`prunelab.lab.experiments.tables.consolidate`) and ``provenance.json`` is written.

Workers only compute (:func:`simulate_run` returns a record); the parent process does
all writing, so a remote cluster needs no shared file system.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from prunelab.indicators import hellinger, mean_hellinger_over_variables
from prunelab.samplers import get_sampler
from prunelab.sampling import sample
from prunelab.workers import Terminated, sigint_blocked, sigterm_as_interrupt, worker_count
from . import store
from .cases import case_exact_marginals, case_fingerprint, load_case_network, prepare_case, results_dir
from .provenance import PROVENANCE_KEYS, git_commit, library_versions, machine_info, previous_sessions
from .provenance import out_name, provenance_record, utc_now
from .specs import DEFAULT_ROOT_SEED, CaseSpec, get_profile, run_seed, select_cases
from .tables import consolidate

__all__ = [
    "reproduce", "simulate_run", "rao_blackwell_mode", "ReproduceReport",
    "SweepInterrupted", "check_root_seed", "stop_workers",
]

def check_root_seed(root_seed) -> int:
    """A sweep's root seed: an int ``>= 0`` (numpy integers too, not a bool).

    It is written to ``sweep.json`` and every run's seed derives from it
    (:func:`~prunelab.lab.experiments.run_seed`), so that a killed sweep resumes with the
    same numbers: a Generator or a SeedSequence, which :func:`prunelab.sample`
    accepts, cannot be recorded that way and is refused here.
    """
    if isinstance(root_seed, (bool, np.bool_)) or not isinstance(root_seed, (int, np.integer)):
        raise TypeError(
            f"root_seed must be an int >= 0 (it is recorded in sweep.json to resume the sweep), "
            f"got {type(root_seed).__name__} {root_seed!r}"
        )
    if root_seed < 0:
        raise ValueError(f"root_seed must be >= 0, got {root_seed}")
    return int(root_seed)


def _stat_means(stats: dict) -> dict:
    means = {}
    for name, values in stats.items():
        values = np.asarray(values)
        if np.issubdtype(values.dtype, np.number) or values.dtype == bool:
            means[name] = float(np.mean(values))
    return means


def simulate_run(
    case: CaseSpec,
    run: int,
    n_draws: int,
    checkpoints,
    root_seed: int,
    query_state: int,
    start=None,
) -> dict:
    """One run: a chain of ``n_draws`` draws, reduced to curves at the checkpoints.

    The chain is ``prunelab.sample(bn, case.sampler, n_draws, n_chains=1, seed=s)``
    with ``s = run_seed(root_seed, case, run)``. Recorded (see
    :data:`prunelab.lab.experiments.store.RUN_SCHEMA`): the running estimate of the
    query marginal (all states), its Hellinger distance to the exact marginal, the
    mean over free variables of the Hellinger distance of each one's running
    estimate ("all variables"), the Rao-Blackwellised versions for samplers that
    have them (prune sampling's from a second chain of the same seed, timed apart:
    :func:`rao_blackwell_mode`), final estimates of every marginal, the seconds, the query draws, and
    the variables the chain was stuck on (``SampleResult.trap.stuck``; sampled with
    ``traps="record"``, so a trapped run is recorded, not warned about).

    Parameters
    ----------
    case : CaseSpec
    run : int
        The run's index; its seed is ``run_seed(root_seed, case, run)``.
    n_draws : int
        Draws of the chain.
    checkpoints : array_like of int
    root_seed : int
    query_state : int
        The query state whose probability the curves follow.
    start : int array, optional
        The start of every run of a ``"fixed"`` case.

    Returns
    -------
    dict
        A record with the fields of :data:`~prunelab.lab.experiments.store.RUN_SCHEMA`.
    """
    quiet_worker()
    bn, evidence = load_case_network(case)
    exact = case_exact_marginals(case)
    cps = np.asarray(checkpoints, dtype=np.int64)
    options = dict(case.options)
    always, on_request = rao_blackwell_mode(case.sampler, options)
    init = case.init if case.init != "fixed" else np.asarray(start, dtype=np.int64)
    seed = run_seed(root_seed, case, run)

    def chain(**rb):
        return sample(bn, case.sampler, n_draws, n_chains=1, evidence=evidence, init=init,
                      seed=run_seed(root_seed, case, run), n_jobs=1, progress=False, traps="record", **options, **rb)

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
    n_states = len(bn.states[query])

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
        "case": case.id,
        "benchmark": case.benchmark,
        "network": case.network,
        "evidence": case.evidence,
        "sampler": case.sampler,
        "init": case.init,
        "query": query,
        "query_state": int(query_state),
        "n_states": n_states,
        "run": int(run),
        "n_draws": int(n_draws),
        "root_seed": str(int(root_seed)),
        "spawn_key": [int(k) for k in seed.spawn_key],
        "init_used": result.inits_used[0],
        "init_seconds": float(result.init_seconds[0]),
        "sample_seconds": float(result.sample_seconds[0]),
        "sample_seconds_rb": None if result_rb is None else float(result_rb.sample_seconds[0]),
        "stats": _json_dumps(_stat_means({k: v[0] for k, v in result.stats.items()})),
        "start_state": result.initial_states[0].tolist(),
        "t": cps.tolist(),
        "estimate": estimate.ravel().tolist(),
        "hellinger_query": h_query.tolist(),
        "hellinger_all": h_all.tolist(),
        "final_marginals": final.tolist(),
        "query_draws": draws[:, qi].astype(np.int8).tobytes(),
        "stuck": list(result.trap.stuck),
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


def rao_blackwell_mode(sampler: str, options: dict) -> tuple[bool, bool]:
    """``(always, on_request)``: how a run of ``sampler`` gets its Rao-Blackwell estimate.

    ``always``: the sampler records the sums in every chain (``RAO_BLACKWELL = True``,
    Gibbs), so the one chain is timed with them, as the paper timed Gibbs.
    ``on_request``: it records them only when asked (``rao_blackwell_refusal(options)``
    is None: prune sampling, MC-SAT with exact draws); the run then computes the
    chain twice from the same seed, plain (``sample_seconds``) and with the sums
    (``sample_seconds_rb``), so that Table 3 has each estimator at its own cost.
    Neither: no Rao-Blackwell estimate (Metropolis).

    Examples
    --------
    >>> from prunelab.lab.experiments.runner import rao_blackwell_mode
    >>> rao_blackwell_mode("gibbs", {}), rao_blackwell_mode("prune", {}), rao_blackwell_mode("metropolis", {})
    ((True, False), (False, True), (False, False))
    >>> rao_blackwell_mode("prune", {"uniform": "heuristic"})
    (False, False)
    """
    module = get_sampler(sampler)
    if getattr(module, "RAO_BLACKWELL", False):
        return True, False
    refusal = getattr(module, "rao_blackwell_refusal", None)
    return False, refusal is not None and refusal(options) is None


def quiet_worker() -> None:
    """In a worker process, leave Ctrl-C to the parent (which stops the sweep and says so once).

    A terminal's Ctrl-C reaches every process of the group; without this each loky
    worker would print its own traceback. Threads (dask) and the parent are left alone.
    """
    import multiprocessing
    import signal
    import threading

    if multiprocessing.parent_process() is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_workers() -> None:
    """Shut the loky workers down cleanly after Ctrl-C (else their semaphores are reported leaked)."""
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True, kill_workers=True)


def _json_dumps(obj) -> str:
    return json.dumps(store.plain_json(obj), sort_keys=True)


# ----------------------------------------------------------------------------- the sweep
class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or a stop from ``on_run_written``) during a sweep; what is on disk is kept.

    Attributes
    ----------
    out : Path
    n_written : int
        Runs written in this session before the stop.
    n_on_disk : int
        Finished runs of the selected cases now in ``out`` (from any session).
    terminated : bool
        Stopped by ``SIGTERM`` rather than Ctrl-C.
    """

    def __init__(self, out: Path, n_written: int, n_on_disk: int, terminated: bool = False):
        super().__init__(f"sweep stopped: {n_written} runs written now, {n_on_disk} on disk in {out}")
        self.out, self.n_written, self.n_on_disk, self.terminated = out, n_written, n_on_disk, terminated


class ReproduceReport(dict):
    """What :func:`reproduce` did: the provenance dict (:data:`~.provenance.PROVENANCE_KEYS`)."""


def _parallel_context(scheduler, n_jobs):
    import contextlib

    import joblib

    if scheduler is None:
        return contextlib.nullcontext(None)

    @contextlib.contextmanager
    def dask_context():
        from distributed import Client

        client = Client(scheduler) if isinstance(scheduler, str) else scheduler
        try:
            with joblib.parallel_config(backend="dask"):
                yield client
        finally:
            if isinstance(scheduler, str):
                client.close()

    return dask_context()


def reproduce(
    profile="paper",
    cases=None,
    n_jobs: int = -1,
    scheduler=None,
    out=None,
    root_seed: int = DEFAULT_ROOT_SEED,
    progress: bool = True,
    init: str | None = None,
    on_run_written=None,
    command: str | None = None,
) -> ReproduceReport:
    """Run (or resume) a profile's sweep and write its tables and provenance.

    Parameters
    ----------
    profile : str or Profile
        ``"smoke"``, ``"quick"``, ``"paper"`` (see :data:`~prunelab.lab.experiments.PROFILES`).
    cases : iterable of str or CaseSpec, optional
        Case patterns (:func:`~prunelab.lab.experiments.select_cases`); default: the
        profile's cases.
    n_jobs : int, default -1
        Worker processes (joblib); -1 for all cores, 1 runs in this process. At most
        one per run to do and per usable core are started (a warning says so when a
        larger number is lowered). With a ``scheduler``: -1 uses every worker of the
        cluster. A ``SIGTERM`` stops the sweep as Ctrl-C does, workers included.
    scheduler : str or distributed.Client, optional
        ``"tcp://HOST:PORT"`` of a dask.distributed scheduler (or a client): the same
        sweep runs on that cluster (``joblib.parallel_config(backend="dask")``) and
        gives the same numbers.
    out : path, optional
        Results folder; default ``data/results/<profile>``.
    root_seed : int
        Root of every run's seed (see :func:`~prunelab.lab.experiments.run_seed`).
    progress : bool, default True
        A tqdm bar over runs.
    init : str, optional
        Replace every case's ``init``; ``"fixed"`` starts all runs of a case from one
        state (its case ids get a ``.fixed`` suffix, so they sit beside the forward ones).
    on_run_written : callable, optional
        ``on_run_written(case_id, run)`` after each run file is written (a hook for
        tests and monitoring; an exception from it stops the sweep).

    Raises
    ------
    SweepInterrupted
        On Ctrl-C (a ``KeyboardInterrupt``) while runs are computed; every run
        written so far is kept, and the same call resumes.
    TypeError, ValueError
        A bad ``root_seed`` or ``n_jobs``, before anything is written.
    command : str, optional
        Recorded as the command line in the provenance (default: ``sys.argv``).

    Returns
    -------
    ReproduceReport
        The provenance dict, also written to ``<out>/provenance.json``.

    Examples
    --------
    >>> report = reproduce("smoke", cases=["deterministic_pair.gibbs"], out=tmp, progress=False)  # doctest: +SKIP
    >>> sorted(p.name for p in tmp.glob("*.parquet"))  # doctest: +SKIP
    ['curves.parquet', 'final_marginals.parquet', 'runs.parquet', 'summary.parquet']
    """
    tic = time.perf_counter()
    started, git = utc_now(), git_commit()  # the code that ran
    load_start = machine_info()["load_average"]
    root_seed = check_root_seed(root_seed)  # before anything is written
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer (-1: all cores), got {n_jobs!r}")
    prof = get_profile(profile)
    specs = select_cases(cases if cases is not None else prof.cases, init=init)
    out = Path(out) if out is not None else results_dir(prof.name)
    prepared = {c.id: prepare_case(c, root_seed) for c in specs}  # fails early on a bad case
    settings = _sweep_settings(prof, specs, root_seed)
    store.remove_stale_tmp(out)
    on_disk = store.check_run_files(out, settings)  # every run file: its name, folder and settings
    store.check_sweep(out, settings, on_disk)
    todo = _runs_to_do(out, specs, prof.n_runs)
    n_workers = worker_count(n_jobs, len(todo), "runs to do") if todo and scheduler is None else n_jobs
    n_done = 0
    if todo:
        with sigterm_as_interrupt():  # a SIGTERM ends the workers as Ctrl-C does
            n_done = _run_todo(todo, prof, prepared, root_seed, out, n_workers, scheduler, progress,
                               on_run_written, specs, settings["cases"])
    tables = consolidate(out, prof, root_seed=root_seed, cases=specs)
    regenerate = f"python -m prunelab reproduce --profile {prof.name} --jobs {n_jobs}"
    if cases is not None:
        regenerate += " --cases " + " ".join(shlex.quote(c.id) for c in specs)
    base = provenance_record("paper", regenerate, root_seed=int(root_seed), git=git,
                             command=command if command is not None else " ".join(shlex.quote(a) for a in sys.argv),
                             profile={**prof.to_dict(), "cases": [c.id for c in specs]})  # the cases this ran
    runs = tables.get("runs")
    runs = None if runs is None else runs[runs["case"].isin([c.id for c in specs])]  # this call's cases
    sweep_part = {
        "out": out_name(out), "n_jobs": n_jobs, "n_workers": n_workers,
        "n_runs": len(specs) * prof.n_runs, "n_done": n_done, "n_skipped": len(specs) * prof.n_runs - len(todo),
        "missing": [f"{case.id}.run{run}" for case, run in _runs_to_do(out, specs, prof.n_runs)],
        "rows": {name: len(table) for name, table in tables.items()},
        "runs_wall_seconds": 0.0 if runs is None else float(runs["init_seconds"].sum() + runs["sample_seconds"].sum()),
        "start_time": started, "sweep_seconds": time.perf_counter() - tic,
        "machine": {**base["machine"], "load_average_start": load_start,
                    "scheduler": scheduler if isinstance(scheduler, str) or scheduler is None else repr(scheduler)},
        "libraries": library_versions(),
        "previous_sessions": previous_sessions(out / "provenance.json"),
    }
    report = ReproduceReport({k: {**base, **sweep_part}[k] for k in PROVENANCE_KEYS})
    store.write_json_atomic(dict(report), out / "provenance.json")
    return report


def _runs_to_do(out: Path, specs, n_runs: int) -> list[tuple]:
    """``(case, run)`` of every run of ``specs`` not finished in ``out``, case by case, runs in order."""
    return [(case, run) for case in specs for run in sorted(set(range(n_runs)) - store.finished_runs(out, case.id))]


def _sweep_settings(prof, specs, root_seed: int) -> dict:
    """What the runs of this sweep are made with (as read back from JSON): checked against the folder on resume."""
    settings = {
        "root_seed": str(int(root_seed)),
        "n_draws": prof.n_draws,
        "checkpoints": prof.checkpoints.tolist(),
        "cases": {c.id: case_fingerprint(c) for c in specs},
    }
    return store.plain_json(settings)


def _run_todo(todo, prof, prepared, root_seed, out, n_jobs, scheduler, progress, on_run_written, specs,
              fingerprints) -> int:
    """Compute the runs of ``todo`` and write each as it arrives; the number written.

    Raises
    ------
    SweepInterrupted
        On Ctrl-C: pending tasks are cancelled, the workers stopped, every file written is kept.
    """
    from joblib import Parallel, delayed
    from tqdm import tqdm  # the text bar: tqdm.auto warns in kernels without ipywidgets

    checkpoints = prof.checkpoints
    tasks = (
        delayed(simulate_run)(
            case, run, prof.n_draws, checkpoints, root_seed,
            prepared[case.id]["query_state"], prepared[case.id]["start"],
        )
        for case, run in todo
    )
    n_done = 0
    with _parallel_context(scheduler, n_jobs), tqdm(
        total=len(todo), disable=not progress, desc=f"{prof.name} runs", unit="run"
    ) as bar:
        results = None
        try:
            if n_jobs == 1 and scheduler is None:
                results = (task[0](*task[1], **task[2]) for task in tasks)
            else:
                with sigint_blocked():  # the workers never see Ctrl-C, even while they start: it is ours to handle
                    results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)
            for record in results:
                record["case_spec"] = _json_dumps(fingerprints[record["case"]])  # the settings it was made with
                store.write_run(out, record)
                n_done += 1
                bar.update()
                if on_run_written is not None:
                    on_run_written(record["case"], record["run"])
        except KeyboardInterrupt as stop:
            if hasattr(results, "close"):
                with warnings.catch_warnings():  # joblib tells that it cancels the pending tasks: we know
                    warnings.filterwarnings("ignore", message=r"\d+ tasks which were still being processed")
                    results.close()  # joblib aborts its pending tasks
            if scheduler is None and n_jobs != 1:
                stop_workers()
            on_disk = sum(len(store.finished_runs(out, c.id)) for c in specs)
            raise SweepInterrupted(out, n_done, on_disk, terminated=isinstance(stop, Terminated)) from None
    return n_done
