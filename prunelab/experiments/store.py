"""The results store: one parquet file per finished run, tidy tables, provenance.

Layout of ``data/results/<profile>/``::

    runs/<case id>/run-00042.parquet   one row per run (written at once, atomically)
    sweep.json                         what the runs were made with (checked on resume)
    curves.parquet                     one row per (case, run, checkpoint)
    runs.parquet                       one row per (case, run): seconds, final estimates
    summary.parquet                    one row per case: alpha, time to sigma, AHD, ESS
    provenance.json                    command, versions, seed, machine, times

``runs/`` is the working store of the runner: a sweep that is killed resumes from it
without losing or redoing a finished run. It also keeps each run's query-variable
draws (``int8``, 25 kB per run of 25 000 draws) from which the ESS columns of the
summary are computed; 100 runs x 33 cases are 80 MB, too much to commit, so
``data/results/.gitignore`` keeps every ``runs/`` out of git. The four tables and
``provenance.json`` are small and are committed; they are all a chapter needs.

A run file is a one-row table (:data:`RUN_SCHEMA`): scalars, the curves as lists
over the checkpoints, the query draws as bytes.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = [
    "RUN_SCHEMA",
    "SweepMismatchError",
    "check_sweep",
    "finished_runs",
    "read_runs",
    "run_path",
    "write_json_atomic",
    "write_run",
    "write_table_atomic",
]

_f64 = pa.float64()
_list_f64 = pa.list_(pa.float64())

RUN_SCHEMA = pa.schema(
    [
        ("case", pa.string()),
        ("benchmark", pa.string()),
        ("network", pa.string()),
        ("evidence", pa.string()),
        ("method", pa.string()),
        ("init", pa.string()),
        ("query", pa.string()),
        ("query_state", pa.int64()),
        ("n_states", pa.int64()),
        ("run", pa.int64()),
        ("n_samples", pa.int64()),
        ("root_seed", pa.string()),
        ("spawn_key", pa.list_(pa.int64())),
        ("init_method", pa.string()),
        ("init_seconds", _f64),
        ("sample_seconds", _f64),
        ("stats", pa.string()),  # JSON: per-run means of the sampler's per-draw statistics
        ("start_state", pa.list_(pa.int64())),
        ("t", pa.list_(pa.int64())),
        ("estimate", _list_f64),  # (checkpoint, state), row-major
        ("estimate_rb", _list_f64),  # Gibbs only, else null
        ("hellinger_query", _list_f64),
        ("hellinger_query_rb", _list_f64),
        ("hellinger_all", _list_f64),
        ("hellinger_all_rb", _list_f64),
        ("final_marginals", _list_f64),  # all variables' states, bn.variables order
        ("final_marginals_rb", _list_f64),
        ("query_draws", pa.binary()),  # int8 bytes, one per draw
        ("stuck", pa.list_(pa.string())),  # free variables the chain could not move (SampleResult.trap.stuck)
    ]
)
"""Schema of a run file (one row)."""


class SweepMismatchError(RuntimeError):
    """The results folder holds runs made with other settings than the ones asked for."""


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]", "_", name)


def run_path(out: Path, case_id: str, run: int) -> Path:
    """``<out>/runs/<case id>/run-<run:05d>.parquet``."""
    return Path(out) / "runs" / _safe(case_id) / f"run-{run:05d}.parquet"


def _tmp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_table_atomic(table: pa.Table, path: Path, compression: str = "zstd") -> Path:
    """Write a parquet file so that it is either absent or complete: tmp file, then ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_path(path)
    try:
        pq.write_table(table, tmp, compression=compression)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def write_json_atomic(obj, path: Path) -> Path:
    """Write JSON (indented, sorted keys) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_path(path)
    try:
        tmp.write_text(json.dumps(obj, indent=1, sort_keys=True, default=_json_default) + "\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def _json_default(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_run(out: Path, record: dict) -> Path:
    """Write one run's record (a dict with the fields of :data:`RUN_SCHEMA`) atomically."""
    row = {name: [record.get(name)] for name in RUN_SCHEMA.names}
    table = pa.Table.from_pydict(row, schema=RUN_SCHEMA)
    return write_table_atomic(table, run_path(out, record["case"], int(record["run"])))


def finished_runs(out: Path, case_id: str) -> set[int]:
    """Run indices of ``case_id`` whose files are complete (temporary files are not)."""
    folder = Path(out) / "runs" / _safe(case_id)
    if not folder.is_dir():
        return set()
    done = set()
    for p in folder.glob("run-*.parquet"):
        m = re.fullmatch(r"run-(\d+)\.parquet", p.name)
        if m:
            done.add(int(m.group(1)))
    return done


def remove_stale_tmp(out: Path) -> int:
    """Delete temporary files left by a killed writer; returns how many."""
    n = 0
    runs = Path(out) / "runs"
    if runs.is_dir():
        for p in runs.glob("*/.*.tmp"):
            p.unlink(missing_ok=True)
            n += 1
    return n


def read_runs(out: Path, case_ids=None) -> pa.Table:
    """All run files under ``<out>/runs`` (or those of ``case_ids``), sorted by case and run."""
    root = Path(out) / "runs"
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if case_ids is not None:
        wanted = {_safe(c) for c in case_ids}
        folders = [p for p in folders if p.name in wanted]
    tables = [
        pq.read_table(p, schema=RUN_SCHEMA)
        for folder in folders
        for p in sorted(folder.glob("run-*.parquet"))
    ]
    if not tables:
        return RUN_SCHEMA.empty_table()
    table = pa.concat_tables(tables)
    return table.sort_by([("case", "ascending"), ("run", "ascending")])


def check_sweep(out: Path, settings: dict) -> None:
    """Record the sweep's settings in ``sweep.json``, or check that earlier runs used the same.

    ``settings`` holds ``root_seed``, ``n_samples``, ``checkpoints`` and ``cases``
    (id -> spec dict). Only finished runs lock a folder: the global settings must
    agree if any run file exists, and a case's spec if that case has run files;
    more runs or more cases are fine. Settings recorded by a sweep that finished no
    run (it crashed or was stopped at once) are simply replaced.

    Raises
    ------
    SweepMismatchError
        With the differing settings named; use another ``out`` folder or delete it.
    """
    path = Path(out) / "sweep.json"
    if path.exists():
        old = json.loads(path.read_text())
        with_runs = {cid for cid in old.get("cases", {}) if finished_runs(out, cid)}
        diffs = []
        if with_runs:
            diffs = [k for k in ("root_seed", "n_samples", "checkpoints") if old.get(k) != settings[k]]
        for cid, spec in settings["cases"].items():
            before = old.get("cases", {}).get(cid)
            if cid in with_runs and before != spec:
                keys = sorted(k for k in set(spec) | set(before) if spec.get(k) != before.get(k))
                diffs.append(f"case {cid}: {', '.join(keys)}")
        if diffs:
            raise SweepMismatchError(
                f"{out} holds runs made with other settings ({', '.join(diffs)}); "
                "choose another output folder or delete this one"
            )
        merged = dict(settings)
        merged["cases"] = {**{cid: old["cases"][cid] for cid in with_runs}, **settings["cases"]}
        settings = merged
    write_json_atomic(json.loads(json.dumps(settings, default=_json_default)), path)
