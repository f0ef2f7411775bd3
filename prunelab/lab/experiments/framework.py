"""One framework for every frozen result: an experiment plans runs, runs one, and its records become tables.

An **experiment** is a small object (:class:`Experiment`): it has named profiles
(how much it runs), plans the runs of a profile, computes one run from its seed,
and names the table each kind of run goes to. Everything else is here, once:

* :func:`sweep` runs (or resumes) a profile: one JSON record per finished run,
  written atomically as it arrives (``<out>/runs/<kind>/<run id>.json``), a
  ``sweep.json`` that refuses a resumed sweep with other settings, workers that
  stop cleanly on Ctrl-C or ``SIGTERM`` (the records written are kept);
* :func:`consolidate` turns the records into one parquet table per kind (or the
  tables an experiment derives from them, :meth:`Experiment.derive`);
* :func:`write_provenance` writes ``provenance.json`` in the one schema every
  frozen result has (:data:`PROVENANCE_KEYS`);
* :func:`results` is the one reader of the chapters: the frozen folder at the
  ``paper`` profile, any other profile run now in a temporary folder (once per
  process).

Seeds
-----
Every run draws from :func:`run_seed_sequence` of its id and the root seed, which
depends on neither the run's place in the plan, the other runs, the workers nor a
resume. A run that is replicate ``r`` of a series (the paper's 100 runs of a case)
draws from child ``r`` of the series' seed (``run_seed_sequence(series, root_seed,
replicate=r)``), and chains inside a run from children spawned from its seed.

A new experiment is one module that defines its profiles, its runs and
:meth:`Experiment.run`, and one line in :data:`prunelab.lab.experiments.EXPERIMENTS`.
"""

from __future__ import annotations

import copy
import functools
import json
import multiprocessing
import os
import re
import shlex
import signal
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
from joblib import Parallel, delayed
from joblib.externals.loky import get_reusable_executor

from prunelab.catalogue import data_dir
from prunelab.workers import Terminated, sigint_blocked, sigterm_as_interrupt, worker_count
from . import cluster, store
from .provenance import PROVENANCE_KEYS, current_load, git_commit, library_versions, out_name, previous_sessions
from .provenance import provenance_record, utc_now

__all__ = [
    "DEFAULT_ROOT_SEED", "PROVENANCE_KEYS", "Experiment", "SweepInterrupted", "check_root_seed", "consolidate",
    "extends", "load_folder", "quiet_worker", "record_path", "results", "results_dir", "results_folder",
    "run_seed_sequence", "stop_workers", "sweep", "write_provenance",
]

DEFAULT_ROOT_SEED = 20170901
"""Root of every run's :class:`numpy.random.SeedSequence` (the paper's year and month)."""


class Experiment(Protocol):
    """What :func:`sweep` needs of an experiment.

    Attributes
    ----------
    name : str
        Its results go to ``<data>/results/<name>`` at the ``paper`` profile,
        ``<name>-<profile>`` otherwise; the CLI calls it by this name.
    profiles : mapping of str to profile
        Each profile is a frozen dataclass with a ``name`` and ``to_dict()``.
    tables : mapping of str to str
        The table (parquet file stem) each kind of run goes to.
    libraries : tuple of str
        Libraries beyond :data:`~prunelab.lab.experiments.provenance.LIBRARIES` whose
        versions the provenance records.
    """

    name: str
    profiles: Mapping
    tables: Mapping[str, str]
    libraries: tuple[str, ...]

    def plan(self, profile) -> tuple:
        """Every run of a profile; each has an ``id`` (``<kind>.<rest>``, a safe file name) and a ``kind``."""

    def run(self, run, profile, root_seed: int) -> dict:
        """One run's record: a flat dict of JSON values; its seed comes from :func:`run_seed_sequence`."""

    # Optional: ``derive(frames, settings) -> dict of DataFrame``, the tables written from
    # the records (one DataFrame per table of :attr:`tables`, as read back from JSON) and
    # the settings they were made with (``{"profile": ..., "root_seed": ...}``). Without
    # it each table is its records (:func:`consolidate`).


def check_root_seed(root_seed) -> int:
    """A sweep's root seed: an int ``>= 0`` (numpy integers too, not a bool).

    It is written to ``sweep.json`` and every run's seed derives from it
    (:func:`run_seed_sequence`), so that a killed sweep resumes with the same
    numbers: a Generator or a SeedSequence, which :func:`prunelab.sample` accepts,
    cannot be recorded that way and is refused here.

    Examples
    --------
    >>> check_root_seed(np.int64(3))
    3
    """
    if isinstance(root_seed, (bool, np.bool_)) or not isinstance(root_seed, (int, np.integer)):
        raise TypeError(
            f"root_seed must be an int >= 0 (it is recorded in sweep.json to resume the sweep), "
            f"got {type(root_seed).__name__} {root_seed!r}"
        )
    if root_seed < 0:
        raise ValueError(f"root_seed must be >= 0, got {root_seed}")
    return int(root_seed)


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or ``SIGTERM``) during a sweep; what is on disk is kept.

    Attributes
    ----------
    out : Path
    n_written : int
        Runs written in this session before the stop.
    n_on_disk : int
        Finished runs of the plan now in ``out`` (from any session).
    terminated : bool
        Stopped by ``SIGTERM`` rather than Ctrl-C.
    """

    def __init__(self, out: Path, n_written: int, n_on_disk: int, terminated: bool = False):
        super().__init__(f"sweep stopped: {n_written} runs written now, {n_on_disk} on disk in {out}")
        self.out, self.n_written, self.n_on_disk, self.terminated = out, n_written, n_on_disk, terminated


def quiet_worker() -> None:
    """In a worker process, leave Ctrl-C to the parent (which stops the sweep and says so once).

    A terminal's Ctrl-C reaches every process of the group; without this each loky
    worker would print its own traceback. Threads (dask) and the parent are left alone.
    """
    if multiprocessing.parent_process() is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop_workers() -> None:
    """Shut the loky workers down cleanly after Ctrl-C (else their semaphores are reported leaked)."""
    get_reusable_executor().shutdown(wait=True, kill_workers=True)


def results_dir(name: str) -> Path:
    """Where a sweep writes by default: ``<data>/results/<name>``.

    ``<data>`` is :func:`prunelab.catalogue.data_dir` (``$PRUNELAB_DATA`` when set,
    a checkout's ``data/``), except for an installed wheel, whose data folder lies
    inside ``site-packages``: results then go to the user's data folder,
    ``$XDG_DATA_HOME/prunelab`` (default ``~/.local/share/prunelab``), never into the
    installed package. :func:`results` reads from here and, for a wheel, falls back
    on the results shipped with it.
    """
    base = data_dir()
    if _inside_package(base):
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "prunelab"
    return base / "results" / name


def _inside_package(path: Path) -> bool:
    """Whether ``path`` is the data folder shipped inside the installed package (``prunelab/_data``)."""
    package = Path(__file__).resolve().parents[2]  # prunelab/lab/experiments/framework.py
    return Path(path).resolve() == package / "_data"


def run_seed_sequence(run_id: str, root_seed: int, replicate: int | None = None) -> np.random.SeedSequence:
    """A run's seed: ``SeedSequence(root_seed, spawn_key=(crc32(run id),))``, whatever the workers.

    With ``replicate``, the seed of replicate ``r`` of the series ``run_id``: child ``r``
    of the series' seed, ``SeedSequence(root_seed, spawn_key=(crc32(run id), r))``.

    Examples
    --------
    >>> a, b, c = (run_seed_sequence(i, 7).generate_state(1).tolist() for i in ("grid.x", "grid.x", "grid.y"))
    >>> a == b != c
    True
    >>> child = run_seed_sequence("asia_ev0.gibbs", 7).spawn(3)[2]
    >>> bool((child.generate_state(2) == run_seed_sequence("asia_ev0.gibbs", 7, replicate=2).generate_state(2)).all())
    True
    """
    key = (zlib.crc32(run_id.encode()),) if replicate is None else (zlib.crc32(run_id.encode()), int(replicate))
    return np.random.SeedSequence(int(root_seed), spawn_key=key)


def get_profile(experiment: Experiment, profile):
    """A profile of the experiment by name (or the profile object itself)."""
    if not isinstance(profile, str):
        return profile
    try:
        return experiment.profiles[profile]
    except KeyError:
        raise KeyError(f"unknown {experiment.name} profile {profile!r}; profiles are "
                       f"{sorted(experiment.profiles)}") from None


def results_folder(experiment: Experiment, profile) -> Path:
    """``<data>/results/<name>`` for the ``paper`` profile, ``<name>-<profile>`` otherwise."""
    name = get_profile(experiment, profile).name
    return results_dir(experiment.name if name == "paper" else f"{experiment.name}-{name}")


def record_path(out: Path, run_id: str) -> Path:
    """``<out>/runs/<kind>/<run id>.json``; a run id that is not a safe file name is refused."""
    if not re.fullmatch(r"[A-Za-z0-9_.=+-]+", run_id):
        raise ValueError(f"run id {run_id!r} is not a safe file name")
    return Path(out) / "runs" / run_id.split(".", 1)[0] / f"{run_id}.json"


_RECORD_SAFE = "deleting it is safe: the run is made again when the sweep resumes"


def _read_record(path: Path) -> dict:
    record = store.read_json(path, _RECORD_SAFE)
    if not isinstance(record, dict) or "id" not in record:
        raise store.ResultsFileError(f"{path} is not a run record (a JSON object with an 'id'); {_RECORD_SAFE}")
    return record


def _records(out: Path, kind: str = "*"):
    """``(path, record)`` of every run record under ``<out>/runs`` (of one ``kind``), in file order.

    A record not at :func:`record_path` of its own ``id`` (a copy, a renamed file:
    two files of one run) is refused by name (:func:`~prunelab.lab.experiments.store.check_placed`).
    """
    for path in sorted((Path(out) / "runs").glob(f"{kind}/*.json")):
        record = _read_record(path)
        try:
            expected = record_path(out, str(record["id"]))
        except ValueError:
            raise store.ResultsFileError(f"{path} holds run id {record['id']!r}, not one a sweep writes; "
                                         f"{_RECORD_SAFE}") from None
        store.check_placed(path, expected, f"run {record['id']!r}")
        yield path, record


def extends(new: dict, old: dict) -> bool:
    """Whether sweep settings ``new`` only add runs to ``old``.

    They do when the root seed and profile are the same, except tuple fields (networks,
    samplers, budgets ...) that hold every item of the old one and more, and fields the
    old profile did not have (settings of what the experiment has learnt to run since;
    each record keeps the settings it was made with).

    Examples
    --------
    >>> old = {"root_seed": "1", "profile": {"name": "paper", "samplers": ["a", "b"], "seconds": 2.0}}
    >>> extends({"root_seed": "1", "profile": {"name": "paper", "samplers": ["a", "b", "c"], "seconds": 2.0}}, old)
    True
    >>> extends({"root_seed": "1", "profile": {"name": "paper", "samplers": ["a", "c"], "seconds": 2.0}}, old)
    False
    >>> extends({"root_seed": "1", "profile": {"name": "paper", "samplers": ["a", "b"], "seconds": 3.0}}, old)
    False
    >>> extends({"root_seed": "1", "profile": {"name": "paper", "samplers": ["a", "b"], "seconds": 2.0, "n": 4}}, old)
    True
    """
    if new.get("root_seed") != old.get("root_seed") or set(new) != set(old):
        return False
    a, b = new.get("profile"), old.get("profile")
    if not isinstance(a, dict) or not isinstance(b, dict) or not set(b) <= set(a):
        return False
    return all(a[k] == b[k] or (isinstance(a[k], list) and isinstance(b[k], list)
                                and all(item in a[k] for item in b[k])) for k in b)


def _check_settings(out: Path, settings: dict, extend: bool = False) -> None:
    """Record the settings in ``sweep.json`` or refuse to mix runs made with others.

    Each run record carries the settings it was made with (``settings``); they are
    checked too, so a lost ``sweep.json`` cannot let other settings in, and a record
    without them, or not at the place of its own ``id`` (a copy), is refused by
    name. With ``extend``, runs made with settings that ``settings`` :func:`extends`
    are kept (each record keeps the settings it was made with).
    """
    settings = store.plain_json(settings)  # tuples as the lists read back
    path = Path(out) / "sweep.json"
    hint = ("resume with the settings it was made with (the same --profile and --seed), pass --extend if the "
            "profile only adds runs to it, or choose another output folder or delete this one")
    n_records = 0
    for path_, record in _records(out):
        n_records += 1
        made = record.get("settings")
        if not isinstance(made, dict):  # an older version's record, or an edited one: it cannot be checked
            raise store.ResultsFileError(f"{path_} has no settings (the profile and seed its run was made with), so "
                                         f"it cannot be checked against this sweep's; {_RECORD_SAFE}")
        diffs = sorted(k for k in set(made) | set(settings) if made.get(k) != settings.get(k))
        if diffs and not (extend and extends(settings, made)):
            raise store.SweepMismatchError(
                f"{out} holds runs made with other settings: {path_} has other {', '.join(diffs)}; {hint}"
            )
    if path.exists() and n_records:
        old = store.read_json(path, store.SWEEP_SAFE)
        diffs = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
        if diffs and not (extend and extends(settings, old)):
            raise store.SweepMismatchError(f"{out} holds runs made with other settings ({', '.join(diffs)}); {hint}")
    store.write_json_atomic(settings, path)


def sweep(experiment: Experiment, profile="paper", out=None, n_jobs: int = 1, root_seed: int = DEFAULT_ROOT_SEED,
          kinds=None, progress: bool = False, command: str | None = None, extend: bool = False,
          scheduler=None) -> dict:
    """Run (or resume) an experiment's profile and write its tables and provenance.

    Parameters
    ----------
    experiment : Experiment
    profile : str or profile object
        One of ``experiment.profiles``.
    out : path, optional
        Default :func:`results_folder`.
    n_jobs : int, default 1
        Worker processes (joblib, loky); at most one per run to do and per usable
        core are started (a warning says so when lowered). Timed runs are fairest
        with one worker per free core. A ``SIGTERM`` or Ctrl-C ends the workers and
        raises :class:`~prunelab.lab.experiments.SweepInterrupted`; the records written are kept.
    root_seed : int
        Every run's seed is :func:`run_seed_sequence` of its id and this.
    kinds : iterable of str, optional
        Only these kinds of run.
    progress : bool
        A line per finished run on stderr.
    command : str, optional
        Recorded in the provenance (default: ``sys.argv``).
    extend : bool
        Add the runs of a profile that :func:`extends` the one ``out`` was made with
        (more samplers, networks or budgets; nothing else changed), keeping the runs
        already there; the earlier sweeps stay listed in the provenance.
    scheduler : str or distributed.Client, optional
        A dask.distributed scheduler's address (``tcp://HOST:8786``) or a client: the
        runs are computed on its workers (each worker thread takes one run at a time;
        ``n_jobs`` is not used), after :func:`~prunelab.lab.experiments.cluster.check_workers`
        found the same prunelab and libraries on every worker, and written here. The
        records are the ones a local sweep writes; the provenance's ``machine`` lists
        the workers' hosts and the runs each computed (``workers``), not the address.

    Returns
    -------
    dict
        The provenance (:data:`PROVENANCE_KEYS`), also written to ``<out>/provenance.json``.
    """
    root_seed = check_root_seed(root_seed)
    prof = get_profile(experiment, profile)
    out = Path(out) if out is not None else results_folder(experiment, prof)
    kinds = None if kinds is None else set(kinds)
    unknown = sorted(kinds - set(experiment.tables)) if kinds is not None else []
    if unknown:
        raise ValueError(f"unknown kind(s) of {experiment.name} run: {', '.join(unknown)}; "
                         f"kinds are {', '.join(experiment.tables)}")
    planned = experiment.plan(prof)
    runs = [r for r in planned if kinds is None or r.kind in kinds]
    settings = store.plain_json({"profile": prof.to_dict(), "root_seed": str(root_seed)})
    store.remove_stale_tmp(out)
    _check_settings(out, settings, extend=extend)
    todo = [r for r in runs if not record_path(out, r.id).exists()]
    n_workers = worker_count(n_jobs, len(todo), "runs to do") if todo and scheduler is None else 1
    tic, started, load_start, git = time.perf_counter(), utc_now(), current_load(), git_commit()  # the code that ran
    on_cluster = {"workers": [], "hosts": {}} if scheduler is not None else None
    n_done = 0
    with sigterm_as_interrupt():  # a SIGTERM ends the workers as Ctrl-C does
        records = None
        try:
            records = _executor(experiment, todo, prof, root_seed, n_workers, scheduler, on_cluster)
            for record in records:
                store.write_json_atomic({**record, "settings": settings}, record_path(out, record["id"]))
                n_done += 1
                if progress:
                    seconds = record.get("wall_seconds")
                    tail = f" {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""
                    print(f"[{n_done}/{len(todo)}] {record['id']}{tail}", file=sys.stderr, flush=True)
        except KeyboardInterrupt as stop:
            if n_workers != 1 or scheduler is not None:
                if records is not None:
                    records.close()  # joblib's and the cluster's: the pending tasks are cancelled
                if scheduler is None:
                    stop_workers()
            raise SweepInterrupted(out, n_done, n_done + len(runs) - len(todo),
                                   terminated=isinstance(stop, Terminated)) from None
    tables, runs_wall_seconds = _consolidate(experiment, out)
    return write_provenance(
        experiment, out, command=command, profile=prof, root_seed=root_seed, n_jobs=n_jobs,
        n_workers=len(on_cluster["workers"]) if on_cluster and on_cluster["workers"] else n_workers,
        planned=planned, n_runs=len(runs), n_done=n_done, n_skipped=len(runs) - len(todo), tables=tables,
        runs_wall_seconds=runs_wall_seconds, started=started, load_start=load_start, git=git,
        sweep_seconds=time.perf_counter() - tic,
        workers=None if on_cluster is None else _cluster_workers(on_cluster["hosts"]),
    )


def _executor(experiment: Experiment, todo, prof, root_seed: int, n_workers: int, scheduler, on_cluster):
    """The records of the runs of ``todo``, as each finishes: here, in ``n_workers`` loky processes, or on a cluster.

    On a cluster (``scheduler``), the workers are checked before any run
    (:func:`~prunelab.lab.experiments.cluster.check_workers`: their environments go to
    ``on_cluster["workers"]``) and each run's host to ``on_cluster["hosts"]``. Closing
    the iterator cancels the runs not started (joblib's and the cluster's).
    """
    if scheduler is not None:
        return _cluster_records(experiment, todo, prof, root_seed, scheduler, on_cluster)
    if n_workers == 1:
        return (experiment.run(r, prof, root_seed) for r in todo)
    with sigint_blocked():  # the workers never see Ctrl-C, even while they start: it is ours to handle
        return Parallel(n_jobs=n_workers, return_as="generator_unordered")(
            delayed(experiment.run)(r, prof, root_seed) for r in todo)


def _cluster_records(experiment: Experiment, todo, prof, root_seed: int, scheduler, on_cluster):
    if not todo:
        return
    with cluster.connected(scheduler) as client:
        on_cluster["workers"] = cluster.check_workers(client, experiment.libraries)
        for record, host in cluster.run_each(client, experiment.run, todo, prof, root_seed):
            on_cluster["hosts"][record["id"]] = host
            yield record


def _cluster_workers(hosts: dict) -> list[dict]:
    """The hosts of a cluster sweep's runs: one entry per machine (:data:`~.cluster.HOST_KEYS`) with its run ids.

    Examples
    --------
    >>> a, b = {"hostname": "a", "cpu_count": 2}, {"hostname": "b", "cpu_count": 8}
    >>> _cluster_workers({"x.2": a, "x.1": a, "x.3": b})
    [{'hostname': 'a', 'cpu_count': 2, 'runs': ['x.1', 'x.2']}, {'hostname': 'b', 'cpu_count': 8, 'runs': ['x.3']}]
    """
    machines: dict[str, dict] = {}
    for run_id in sorted(hosts):
        key = json.dumps(hosts[run_id], sort_keys=True)
        machines.setdefault(key, {**hosts[run_id], "runs": []})["runs"].append(run_id)
    return list(machines.values())


def write_provenance(experiment: Experiment, out: Path, *, command, profile, root_seed, n_jobs, n_workers, planned,
                     n_runs, n_done, n_skipped, tables, runs_wall_seconds, started, load_start, git,
                     sweep_seconds, workers=None) -> dict:
    """Write ``<out>/provenance.json`` (:data:`PROVENANCE_KEYS`) and return it.

    ``runs_wall_seconds`` is the sum of the records' ``wall_seconds`` (what the runs took);
    ``workers``: a cluster sweep's machines and their runs (``machine["workers"]``);
    ``machine`` itself is then the machine that wrote the folder, not the one that ran the runs.
    """
    out = Path(out)
    command = command if command is not None else " ".join(shlex.quote(a) for a in sys.argv)
    regenerate = f"python -m prunelab run {experiment.name} --profile {profile.name} --jobs {n_jobs}"
    base = provenance_record(experiment.name, regenerate, command=command, root_seed=root_seed,
                             profile=profile.to_dict(), git=git)
    sweep_part = {
        "out": out_name(out), "n_jobs": n_jobs, "n_workers": n_workers,
        "n_runs": n_runs, "n_done": n_done, "n_skipped": n_skipped,
        "missing": [r.id for r in planned if not record_path(out, r.id).exists()],
        "rows": {k: len(t) for k, t in tables.items()},
        "runs_wall_seconds": float(runs_wall_seconds),
        "start_time": started, "sweep_seconds": sweep_seconds,
        "machine": {**base["machine"], "load_average_start": load_start,
                    **({} if workers is None else {"workers": workers})},
        "libraries": {**library_versions(), **library_versions(experiment.libraries)},
        "previous_sessions": previous_sessions(out / "provenance.json"),
    }
    report = {k: {**base, **sweep_part}[k] for k in PROVENANCE_KEYS}
    assert tuple(report) == PROVENANCE_KEYS
    store.write_json_atomic(report, out / "provenance.json")
    return report


def consolidate(experiment: Experiment, out) -> dict:
    """The tables of a results folder from its run records (``<table>.parquet``); the tables as DataFrames.

    Each table is the records of its kind of run, one row per run, unless the
    experiment derives its tables from them (``experiment.derive(frames, settings)``,
    see :class:`Experiment`). A record that is not at the place of its own ``id``
    (a copy, which would be a second row of one run) is refused by name, before any
    table is written.
    """
    return _consolidate(experiment, out)[0]


def _consolidate(experiment: Experiment, out) -> tuple[dict, float]:
    """:func:`consolidate`, and the seconds the records' runs took (their ``wall_seconds``)."""
    frames, wall = {}, 0.0
    for kind, name in experiment.tables.items():
        records = [{k: v for k, v in record.items() if k != "settings"} for _, record in _records(out, kind)]
        if records:
            frames[name] = pd.DataFrame(records).sort_values("id", kind="stable").reset_index(drop=True)
            if "wall_seconds" in frames[name]:
                wall += float(pd.to_numeric(frames[name]["wall_seconds"]).sum())
    derive = getattr(experiment, "derive", None)
    if derive is None:
        tables = {name: _numeric_nulls(frame) for name, frame in frames.items()}
    elif frames:
        tables = derive(frames, store.read_json(Path(out) / "sweep.json", store.SWEEP_SAFE))
    else:
        tables = {}
    for name, frame in tables.items():
        store.write_table_atomic(pa.Table.from_pandas(frame, preserve_index=False), Path(out) / f"{name}.parquet")
    return tables, wall


def _numeric_nulls(frame):
    """Columns of numbers with NaN written as JSON null (None) back to float columns (None -> NaN)."""
    for name in frame.columns:
        values = frame[name]
        if values.dtype == object and values.map(lambda v: v is None or (
                isinstance(v, (int, float)) and not isinstance(v, bool))).all():
            frame[name] = pd.to_numeric(values.astype(float))
    return frame


def load_folder(out) -> dict:
    """The tables of a results folder (pandas DataFrames by file stem) and its ``provenance``."""
    out = Path(out)
    if not (out / "provenance.json").is_file():
        raise FileNotFoundError(f"{out} holds no results (no provenance.json)")
    tables = {p.stem: _read_table(p) for p in sorted(out.glob("*.parquet"))}
    tables["provenance"] = store.read_json(out / "provenance.json", "it only describes the sessions that wrote the "
                                           "tables: deleting it is safe (the next sweep writes it)")
    return tables


def _read_table(path: Path) -> pd.DataFrame:
    """A table of a results folder, or a :class:`~.store.ResultsFileError` that names it and what to do."""
    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError) as exc:
        raise store.ResultsFileError(
            f"{path} is unreadable ({exc}); it is derived from the run records in {path.parent / 'runs'}: "
            "run the sweep's command again to rebuild it (without those records it cannot be rebuilt)"
        ) from None


def results(experiment: Experiment, profile) -> dict:
    """The chapter's results: frozen at the ``paper`` profile, any other profile run now in a temporary folder.

    Parameters
    ----------
    experiment : Experiment
    profile : str or profile object
        The book's profile. ``"paper"`` (a name, or a profile of that name) reads the
        folder a rerun wrote (:func:`results_folder`) if there is one, else the frozen
        results shipped in ``data/results/<name>``. Any other is run now, on one core,
        once per process (later calls get a copy): a profile object as it is, a name
        the experiment's profile of that name, or its ``smoke`` profile when it has none.

    Returns
    -------
    dict
        As :func:`load_folder`.

    Examples
    --------
    >>> from prunelab.lab.experiments import MCSAT
    >>> sorted(results(MCSAT, "paper"))
    ['benchmark', 'bias', 'provenance']
    """
    name = profile if isinstance(profile, str) else profile.name
    if name == "paper":
        written = results_folder(experiment, "paper")  # a rerun's, where it writes (the user's folder for a wheel)
        if (written / "provenance.json").is_file():
            return load_folder(written)
        return load_folder(data_dir() / "results" / experiment.name)  # the frozen results shipped
    if isinstance(profile, str):
        profile = experiment.profiles.get(profile, experiment.profiles["smoke"])
    return copy.deepcopy(_run_now(experiment, profile))


@functools.lru_cache(maxsize=8)
def _run_now(experiment: Experiment, profile) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        sweep(experiment, profile, out=tmp, n_jobs=1, command=f"results({experiment.name!r}, {profile.name!r})")
        return load_folder(tmp)
