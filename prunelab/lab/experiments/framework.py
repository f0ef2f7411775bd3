"""One framework for every frozen result: an experiment plans runs, runs one, and its records become tables.

An **experiment** is a small object (:class:`Experiment`): it has named profiles
(how much it runs), plans the runs of a profile, computes one run from its seed,
and names the table each kind of run goes to. Everything else is here, once:

* :func:`sweep` runs (or resumes) a profile: one JSON record per finished run,
  written atomically as it arrives (``<out>/runs/<kind>/<run id>.json``), a
  ``sweep.json`` that refuses a resumed sweep with other settings, workers that
  stop cleanly on Ctrl-C or ``SIGTERM`` (the records written are kept);
* :func:`consolidate` turns the records into one parquet table per kind;
* :func:`write_provenance` writes ``provenance.json`` in the one schema every
  frozen result has (:data:`PROVENANCE_KEYS`);
* :func:`results` is the one reader of the chapters: the frozen folder at the
  ``paper`` profile, any other profile run now in a temporary folder (once per
  process).

A new experiment is one module that defines its profiles, its runs and
:meth:`Experiment.run`, and one line in :data:`prunelab.lab.experiments.EXPERIMENTS`.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import shlex
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import numpy as np

from . import store
from .cases import results_dir
from .provenance import PROVENANCE_KEYS, current_load, git_commit, library_versions, out_name, previous_sessions
from .provenance import provenance_record, utc_now
from .runner import SweepInterrupted, check_root_seed, stop_workers
from .specs import DEFAULT_ROOT_SEED
from prunelab.workers import Terminated, sigint_blocked, sigterm_as_interrupt, worker_count

__all__ = [
    "PROVENANCE_KEYS", "Experiment", "consolidate", "extends", "load_folder", "record_path", "records_from_tables",
    "results", "results_folder", "run_seed_sequence", "sweep", "write_provenance",
]


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


def run_seed_sequence(run_id: str, root_seed: int) -> np.random.SeedSequence:
    """A run's seed: ``SeedSequence(root_seed, spawn_key=(crc32(run id),))``, whatever the workers.

    Examples
    --------
    >>> a, b, c = (run_seed_sequence(i, 7).generate_state(1).tolist() for i in ("grid.x", "grid.x", "grid.y"))
    >>> a == b != c
    True
    """
    import zlib

    return np.random.SeedSequence(int(root_seed), spawn_key=(zlib.crc32(run_id.encode()),))


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
    tables = consolidate(experiment, out)
    return write_provenance(
        experiment, out, command=command, profile=prof, root_seed=root_seed, n_jobs=n_jobs,
        n_workers=len(on_cluster["workers"]) if on_cluster and on_cluster["workers"] else n_workers,
        planned=planned, n_runs=len(runs), n_done=n_done, n_skipped=len(runs) - len(todo), tables=tables,
        started=started, load_start=load_start, git=git, sweep_seconds=time.perf_counter() - tic,
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
    from joblib import Parallel, delayed

    with sigint_blocked():  # the workers never see Ctrl-C, even while they start: it is ours to handle
        return Parallel(n_jobs=n_workers, return_as="generator_unordered")(
            delayed(experiment.run)(r, prof, root_seed) for r in todo)


def _cluster_records(experiment: Experiment, todo, prof, root_seed: int, scheduler, on_cluster):
    from . import cluster

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
                     n_runs, n_done, n_skipped, tables, started, load_start, git, sweep_seconds,
                     workers=None) -> dict:
    """Write ``<out>/provenance.json`` (:data:`PROVENANCE_KEYS`) and return it.

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
        "runs_wall_seconds": float(sum(t["wall_seconds"].sum() for t in tables.values() if "wall_seconds" in t)),
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
    """One parquet table per kind of run from the run records (``<table>.parquet``); the tables as DataFrames.

    A record that is not at the place of its own ``id`` (a copy, which would be a
    second row of one run) is refused by name, before any table is written.
    """
    import pandas as pd
    import pyarrow as pa

    tables = {}
    for kind, name in experiment.tables.items():
        records = [{k: v for k, v in record.items() if k != "settings"} for _, record in _records(out, kind)]
        if not records:
            continue
        frame = _numeric_nulls(pd.DataFrame(records)).sort_values("id", kind="stable")
        store.write_table_atomic(pa.Table.from_pandas(frame, preserve_index=False), Path(out) / f"{name}.parquet")
        tables[name] = frame
    return tables


def records_from_tables(experiment: Experiment, out) -> int:
    """Write the run records of a frozen folder that holds only its tables, so a sweep can extend it.

    Frozen folders ship their tables and provenance, not ``runs/``. Each table row
    becomes the record it was made from (null where the row has none), with the
    settings of ``sweep.json``; records already on disk are left alone. Consolidating
    the records gives back the same tables.

    Returns
    -------
    int
        How many records were written.
    """
    import pandas as pd

    out = Path(out)
    settings = store.read_json(out / "sweep.json", store.SWEEP_SAFE)
    written = 0
    for name in experiment.tables.values():
        path = out / f"{name}.parquet"
        if not path.is_file():
            continue
        for row in pd.read_parquet(path).to_dict(orient="records"):
            target = record_path(out, row["id"])
            if target.exists():
                continue
            record = {k: (None if not isinstance(v, (list, dict, np.ndarray)) and pd.isna(v) else v)
                      for k, v in row.items()}
            store.write_json_atomic({**record, "settings": settings}, target)
            written += 1
    return written


def _numeric_nulls(frame):
    """Columns of numbers with NaN written as JSON null (None) back to float columns (None -> NaN)."""
    import pandas as pd

    for name in frame.columns:
        values = frame[name]
        if values.dtype == object and values.map(lambda v: v is None or (
                isinstance(v, (int, float)) and not isinstance(v, bool))).all():
            frame[name] = pd.to_numeric(values.astype(float))
    return frame


def load_folder(out) -> dict:
    """The tables of a results folder (pandas DataFrames by file stem) and its ``provenance``."""
    import pandas as pd

    out = Path(out)
    if not (out / "provenance.json").is_file():
        raise FileNotFoundError(f"{out} holds no results (no provenance.json)")
    tables = {p.stem: pd.read_parquet(p) for p in sorted(out.glob("*.parquet"))}
    tables["provenance"] = json.loads((out / "provenance.json").read_text())
    return tables


def results(experiment: Experiment, profile: str) -> dict:
    """The chapter's results: frozen at the ``paper`` profile, any other profile run now in a temporary folder.

    Parameters
    ----------
    experiment : Experiment
    profile : str
        The book's profile. ``"paper"`` reads the folder a rerun wrote
        (:func:`results_folder`) if there is one, else the frozen results shipped in
        ``data/results/<name>``; any other runs the experiment's ``smoke`` profile now,
        on one core, once per process (later calls get a copy).

    Returns
    -------
    dict
        As :func:`load_folder`.
    """
    from prunelab.catalogue import data_dir

    if profile == "paper":
        written = results_folder(experiment, "paper")  # a rerun's, where it writes (the user's folder for a wheel)
        if (written / "provenance.json").is_file():
            return load_folder(written)
        return load_folder(data_dir() / "results" / experiment.name)  # the frozen results shipped
    return copy.deepcopy(_run_now(experiment, "smoke"))


@functools.lru_cache(maxsize=8)
def _run_now(experiment: Experiment, profile: str) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        sweep(experiment, profile, out=tmp, n_jobs=1, command=f"results({experiment.name!r}, {profile!r})")
        return load_folder(tmp)
