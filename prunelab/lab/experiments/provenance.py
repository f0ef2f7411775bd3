"""Provenance of a results folder: the code, the machine, the libraries and the sessions that wrote it.

Every sweep (:func:`prunelab.lab.experiments.framework.sweep`) writes these into ``provenance.json``, and
every frozen input (the generated networks, the evidence sets) records
:func:`provenance_record`: the keys of the one schema
(:data:`~prunelab.lab.experiments.framework.PROVENANCE_KEYS`) that apply to it.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from prunelab import __version__

__all__ = [
    "KERNEL_LIBRARIES", "LIBRARIES", "PROVENANCE_KEYS", "current_load", "git_commit", "library_versions",
    "machine_info", "out_name", "package_version", "previous_sessions", "provenance_record", "utc_now",
]

KERNEL_LIBRARIES = ("numpy", "numba", "llvmlite")
"""Libraries whose versions every record names: the arrays, and the compiler of the kernels.

The same commit runs its kernels at different speeds under different numba and
llvmlite releases (a fivefold change in circuit prune steps per second has been
seen between two), so a rate in a record means little without them."""

LIBRARIES = (
    *KERNEL_LIBRARIES, "scipy", "pandas", "pyarrow", "joblib", "dask", "distributed",
    "arviz", "tqdm", "pgmpy",
)
"""Libraries whose versions go into ``provenance.json``: :data:`KERNEL_LIBRARIES` first."""

PROVENANCE_KEYS = (
    "experiment", "command", "regenerate", "prunelab_version", "git", "root_seed", "profile", "out", "n_jobs",
    "n_workers", "n_runs", "n_done", "n_skipped", "missing", "rows", "runs_wall_seconds", "start_time", "end_time",
    "sweep_seconds", "machine", "libraries", "previous_sessions",
)
"""The keys of every ``provenance.json`` (the one schema): what made the folder and how to make it again.

``command`` is what ran, ``regenerate`` the command that makes the folder again, ``out``
the results folder's name (:func:`out_name`, never a path on the machine that ran it),
``git`` the commit (and whether the checkout had changes), ``machine`` includes the
load average at the start and end, ``missing`` the runs of the plan without a
record, ``previous_sessions`` the earlier sessions that wrote to the same folder."""


def out_name(out) -> str:
    """The ``out`` of a provenance record: the results folder's name, never a machine path.

    Examples
    --------
    >>> out_name("/tmp/sweeps/paper")
    'paper'
    """
    return Path(out).name


def git_commit() -> dict:
    """The checkout's commit and whether it has changes; ``None`` for an installed wheel."""
    root = Path(__file__).resolve().parents[3]  # prunelab/lab/experiments/provenance.py
    info = {"commit": None, "dirty": None}
    if not (root / ".git").exists() or not (root / "prunelab" / "__init__.py").is_file():
        return info  # not our checkout (a wheel in site-packages, maybe inside another repository)
    try:
        info["commit"] = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True,
            text=True, timeout=10, check=True,
        ).stdout
        info["dirty"] = bool(status.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def library_versions(names=LIBRARIES) -> dict:
    """Installed version of every library of ``names`` (default :data:`LIBRARIES`; ``None`` if absent)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def machine_info() -> dict:
    """The machine: CPU, platform, core count, Python, host name and load average."""
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "hostname": platform.node(),
        "load_average": load,
    }


def _cpu_model() -> str | None:
    """The CPU's model name (``/proc/cpuinfo``), else the platform's processor."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def utc_now() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


_SESSION_KEYS = ("command", "start_time", "end_time", "sweep_seconds", "n_done", "n_skipped", "profile", "git",
                 "n_jobs", "prunelab_version")


def previous_sessions(path: Path) -> list[dict]:
    """Earlier sessions that wrote to the same folder (condensed), oldest first."""
    if not path.exists():
        return []
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return [*old.get("previous_sessions", []), {k: old.get(k) for k in _SESSION_KEYS}]


def package_version() -> str:
    """The version of prunelab that runs."""
    return __version__


def current_load() -> float:
    """The one-minute load average (NaN where the system does not report it)."""
    try:
        return float(os.getloadavg()[0])
    except OSError:
        return math.nan


def provenance_record(experiment: str, regenerate: str, *, root_seed, profile: dict, command: str | None = None,
                      git: dict | None = None, libraries=()) -> dict:
    """What made a frozen file or folder and how to make it again: the one schema's keys that apply to any of them.

    Parameters
    ----------
    experiment : str
        What was made (an experiment's name, ``"networks"``, ``"evidence"``).
    regenerate : str
        The command that makes it again.
    root_seed : int
        Its seed (recorded as a string, as JSON cannot hold every 64-bit integer exactly).
    profile : dict
        What ran: a profile's settings, or the generator's call.
    command : str, optional
        What ran (default ``regenerate``).
    git : dict, optional
        The commit (default :func:`git_commit` now).
    libraries : tuple of str
        Libraries beyond :data:`KERNEL_LIBRARIES` whose versions it records.

    Returns
    -------
    dict
        ``experiment, command, regenerate, prunelab_version, git, root_seed, profile,
        end_time, machine, libraries`` in the order of the one schema.

    Examples
    --------
    >>> record = provenance_record("networks", "python data/make_networks.py", root_seed=3, profile={})
    >>> record["command"] == record["regenerate"], record["root_seed"], sorted(record["libraries"])
    (True, '3', ['llvmlite', 'numba', 'numpy'])
    """
    return {
        "experiment": experiment, "command": regenerate if command is None else command, "regenerate": regenerate,
        "prunelab_version": package_version(), "git": git_commit() if git is None else git,
        "root_seed": str(root_seed), "profile": profile, "end_time": utc_now(), "machine": machine_info(),
        "libraries": library_versions((*KERNEL_LIBRARIES, *libraries)),
    }
