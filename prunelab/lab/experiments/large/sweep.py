"""The resumable sweep of the large-network experiment: run files, tables, provenance.

Each finished run is one JSON file, ``<out>/runs/<kind>/<run id>.json``, written
atomically by the parent process; ``sweep.json`` refuses a resumed sweep with other
settings; :func:`consolidate_large` turns the run files into one parquet table per kind.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import shlex
import sys
import time
from pathlib import Path

from prunelab.catalogue import data_dir
from .. import store
from ..cases import results_dir
from ..provenance import (
    current_load,
    git_commit,
    library_versions,
    machine_info,
    package_version,
    previous_sessions,
    utc_now,
)
from ..runner import SweepInterrupted, check_root_seed, stop_workers
from ..specs import DEFAULT_ROOT_SEED
from prunelab.workers import Terminated, sigterm_as_interrupt, worker_count
from .kinds import simulate_large_run
from .profiles import get_large_profile, plan_runs

__all__ = ["consolidate_large", "large_results_dir", "large_results_for", "load_large_results", "run_large"]


def large_results_dir(profile) -> Path:
    """``<data>/results/large`` for the paper profile, ``<data>/results/large-<name>`` otherwise."""
    name = get_large_profile(profile).name
    return results_dir("large" if name == "paper" else f"large-{name}")


def _record_path(out: Path, run_id: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_.=+-]+", run_id):
        raise ValueError(f"run id {run_id!r} is not a safe file name")
    return Path(out) / "runs" / run_id.split(".", 1)[0] / f"{run_id}.json"


_RECORD_SAFE = "deleting it is safe: the run is made again when the sweep resumes"


def _read_record(path: Path) -> dict:
    record = store.read_json(path, _RECORD_SAFE)
    if not isinstance(record, dict) or "id" not in record:
        raise store.ResultsFileError(f"{path} is not a run record (a JSON object with an 'id'); {_RECORD_SAFE}")
    return record


def _check_settings(out: Path, settings: dict) -> None:
    """Record the settings in ``sweep.json`` or refuse to mix runs made with others.

    Each run record carries the settings it was made with (``settings``); they are
    checked too, so a lost ``sweep.json`` cannot let other settings in.
    """
    settings = store.plain_json(settings)  # tuples as the lists read back
    path = Path(out) / "sweep.json"
    records = sorted((Path(out) / "runs").glob("*/*.json"))
    for record_path in records:
        made = _read_record(record_path).get("settings", settings)
        diffs = sorted(k for k in set(made) | set(settings) if made.get(k) != settings.get(k))
        if diffs:
            raise store.SweepMismatchError(
                f"{out} holds runs made with other settings: {record_path} has other {', '.join(diffs)}; "
                "resume with the settings it was made with (the same --profile and --seed), "
                "or choose another output folder or delete this one"
            )
    if path.exists() and records:
        old = store.read_json(path, store.SWEEP_SAFE)
        diffs = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
        if diffs:
            raise store.SweepMismatchError(
                f"{out} holds runs made with other settings ({', '.join(diffs)}); "
                "choose another output folder or delete this one"
            )
    store.write_json_atomic(settings, path)


def run_large(profile="paper", out=None, n_jobs: int = 1, root_seed: int = DEFAULT_ROOT_SEED,
              kinds=None, progress: bool = False, command: str | None = None) -> dict:
    """Run (or resume) the large-network experiment and write its tables and provenance.

    Parameters
    ----------
    profile : str or LargeProfile
        ``"paper"`` or ``"smoke"`` (:data:`LARGE_PROFILES`).
    out : path, optional
        Default :func:`large_results_dir`.
    n_jobs : int, default 1
        Worker processes (joblib, loky); runs in flight compete for the cores, so
        the timed budgets are fairest with one worker per free core. At most one per
        run to do and per usable core are started (a warning says so when lowered).
        A ``SIGTERM`` or Ctrl-C ends the workers and raises
        :class:`~prunelab.lab.experiments.SweepInterrupted`; the records written are kept.
    root_seed : int
    kinds : iterable of str, optional
        Only these kinds of run (``"network"``, ``"budget"``, ``"mixing"``, ``"grid"``).
    progress : bool
        A line per finished run on stderr.
    command : str, optional
        Recorded in the provenance (default: ``sys.argv``).

    Returns
    -------
    dict
        The provenance, also written to ``<out>/provenance.json``.
    """
    from joblib import Parallel, delayed

    root_seed = check_root_seed(root_seed)
    prof = get_large_profile(profile)
    out = Path(out) if out is not None else large_results_dir(prof)
    runs = [r for r in plan_runs(prof) if kinds is None or r.kind in set(kinds)]
    settings = store.plain_json({"profile": prof.to_dict(), "root_seed": str(root_seed)})
    store.remove_stale_tmp(out)
    _check_settings(out, settings)
    todo = [r for r in runs if not _record_path(out, r.id).exists()]
    n_workers = worker_count(n_jobs, len(todo), "runs to do") if todo else 1
    tic, started, load_start, git = time.perf_counter(), utc_now(), current_load(), git_commit()  # the code that ran
    tasks = (delayed(simulate_large_run)(r, prof, root_seed) for r in todo)
    n_done = 0
    with sigterm_as_interrupt():  # a SIGTERM ends the workers as Ctrl-C does
        results = (t[0](*t[1], **t[2]) for t in tasks) if n_workers == 1 else Parallel(
            n_jobs=n_workers, return_as="generator_unordered")(tasks)
        try:
            for record in results:
                store.write_json_atomic({**record, "settings": settings}, _record_path(out, record["id"]))
                n_done += 1
                if progress:
                    print(f"[{n_done}/{len(todo)}] {record['id']} {record['wall_seconds']:.1f} s", file=sys.stderr,
                          flush=True)
        except KeyboardInterrupt as stop:
            if n_workers != 1:
                results.close()
                stop_workers()
            raise SweepInterrupted(out, n_done, n_done + len(runs) - len(todo),
                                   terminated=isinstance(stop, Terminated)) from None
    sweep_seconds = time.perf_counter() - tic
    tables = consolidate_large(out)
    report = {
        "command": command if command is not None else " ".join(shlex.quote(a) for a in sys.argv),
        "regenerate": f"python -m prunelab large --profile {prof.name} --jobs {n_jobs}",
        "prunelab_version": package_version(), "git": git, "root_seed": str(root_seed),
        "profile": prof.to_dict(), "out": str(out), "n_jobs": n_jobs, "n_workers": n_workers,
        "n_runs": len(runs), "n_done": n_done,
        "n_skipped": len(runs) - len(todo), "rows": {k: len(t) for k, t in tables.items()},
        "runs_wall_seconds": float(sum(t["wall_seconds"].sum() for t in tables.values())),
        "missing": [r.id for r in plan_runs(prof) if not _record_path(out, r.id).exists()],
        "start_time": started, "end_time": utc_now(), "sweep_seconds": sweep_seconds,
        "machine": {**machine_info(), "load_average_start": load_start},
        "libraries": {**library_versions(), **_peer_versions()},
        "previous_sessions": previous_sessions(out / "provenance.json"),
    }
    store.write_json_atomic(report, out / "provenance.json")
    return report


def _peer_versions() -> dict:
    from importlib import metadata

    try:
        return {"pyagrum": metadata.version("pyagrum")}
    except metadata.PackageNotFoundError:
        return {"pyagrum": None}


def consolidate_large(out: Path) -> dict:
    """One parquet table per kind of run from the run files (``<kind>.parquet``, plural for networks, grids)."""
    import pandas as pd
    import pyarrow as pa

    tables = {}
    for kind, name in (("network", "networks"), ("budget", "budget"), ("mixing", "mixing"), ("grid", "grids")):
        files = sorted((Path(out) / "runs" / kind).glob("*.json"))
        if not files:
            continue
        records = [{k: v for k, v in _read_record(p).items() if k != "settings"} for p in files]
        frame = _numeric_nulls(pd.DataFrame(records)).sort_values("id", kind="stable")
        store.write_table_atomic(pa.Table.from_pandas(frame, preserve_index=False), Path(out) / f"{name}.parquet")
        tables[name] = frame
    return tables


def _numeric_nulls(frame):
    """Columns of numbers with NaN written as JSON null (None) back to float columns (None -> NaN)."""
    import pandas as pd

    for name in frame.columns:
        values = frame[name]
        if values.dtype == object and values.map(lambda v: v is None or (
                isinstance(v, (int, float)) and not isinstance(v, bool))).all():
            frame[name] = pd.to_numeric(values.astype(float))
    return frame


def load_large_results(out) -> dict:
    """The tables written by :func:`run_large` (pandas DataFrames) and ``provenance``."""
    import pandas as pd

    out = Path(out)
    results = {p.stem: pd.read_parquet(p) for p in sorted(out.glob("*.parquet"))}
    results["provenance"] = json.loads((out / "provenance.json").read_text())
    return results


def large_results_for(profile: str) -> dict:
    """The chapter's results: frozen at the paper profile, else the smoke profile run now in a temporary folder.

    Parameters
    ----------
    profile : str
        The book profile (:func:`prunelab.lab.notebook.setup`): ``"paper"`` reads
        ``data/results/large`` (``python -m prunelab large --profile paper``
        regenerates it); any other runs :data:`LARGE_PROFILES` ``["smoke"]`` on one core,
        once per process (later calls get a copy).

    Returns
    -------
    dict
        As :func:`load_large_results`.
    """
    if profile == "paper":
        written = large_results_dir("paper")  # a rerun's, where it writes (the user's folder for a wheel)
        if (written / "provenance.json").is_file():
            return load_large_results(written)
        return load_large_results(data_dir() / "results" / "large")  # the frozen results shipped
    return copy.deepcopy(_smoke_results())


@functools.lru_cache(maxsize=1)
def _smoke_results() -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        run_large("smoke", out=tmp, n_jobs=1, command="large_results_for('smoke')")
        return load_large_results(tmp)
