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
over the checkpoints, the query draws as bytes. It carries the settings it was made
with (root seed, draws, checkpoints, the case's fingerprint), and every resume checks
them, and each file's name and folder, before a run is computed
(:func:`check_run_files`): a folder never mixes runs made with other settings, and a
copied or stray file is refused by name rather than counted.
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
    "ResultsFileError",
    "SweepMismatchError",
    "case_folder",
    "check_run_files",
    "check_sweep",
    "SWEEP_SAFE",
    "plain_json",
    "read_json",
    "finished_runs",
    "read_runs",
    "remove_stale_tmp",
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
        ("sampler", pa.string()),
        ("init", pa.string()),
        ("query", pa.string()),
        ("query_state", pa.int64()),
        ("n_states", pa.int64()),
        ("run", pa.int64()),
        ("n_draws", pa.int64()),
        ("root_seed", pa.string()),
        ("spawn_key", pa.list_(pa.int64())),
        ("init_used", pa.string()),
        ("init_seconds", _f64),
        ("sample_seconds", _f64),
        ("sample_seconds_rb", _f64),  # the chain that recorded the Rao-Blackwell sums (runner.rao_blackwell_mode)
        ("stats", pa.string()),  # JSON: per-run means of the sampler's per-draw statistics
        ("start_state", pa.list_(pa.int64())),
        ("t", pa.list_(pa.int64())),
        ("estimate", _list_f64),  # (checkpoint, state), row-major
        ("estimate_rb", _list_f64),  # samplers with a Rao-Blackwell estimate (Gibbs, prune), else null
        ("hellinger_query", _list_f64),
        ("hellinger_query_rb", _list_f64),
        ("hellinger_all", _list_f64),
        ("hellinger_all_rb", _list_f64),
        ("final_marginals", _list_f64),  # all variables' states, bn.variables order
        ("final_marginals_rb", _list_f64),
        ("query_draws", pa.binary()),  # int8 bytes, one per draw
        ("stuck", pa.list_(pa.string())),  # free variables the chain could not move (SampleResult.trap.stuck)
        ("case_spec", pa.string()),  # JSON: the case's fingerprint (cases.case_fingerprint) the run was made on
    ]
)
"""Schema of a run file (one row)."""


class SweepMismatchError(RuntimeError):
    """The results folder holds runs made with other settings than the ones asked for."""


class ResultsFileError(RuntimeError):
    """A file of a results folder is unreadable, misnamed or misplaced; the message names it and what to do."""


_UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]|^\.")


def case_folder(case_id: str) -> str:
    """The folder name of a case's run files: the id, two ids never sharing one.

    Every character but ``A-Za-z0-9_.=+-`` (and a leading dot) is written as ``%XX``
    (its UTF-8 bytes), so ``"my/asia"`` and ``"my_asia"`` get two folders.

    Examples
    --------
    >>> case_folder("asia_ev0.gibbs"), case_folder("my/asia"), case_folder("my_asia")
    ('asia_ev0.gibbs', 'my%2Fasia', 'my_asia')
    """
    return _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), case_id)


def run_path(out: Path, case_id: str, run: int) -> Path:
    """``<out>/runs/<case folder>/run-<run:05d>.parquet`` (:func:`case_folder`)."""
    return Path(out) / "runs" / case_folder(case_id) / f"run-{run:05d}.parquet"


def _tmp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


_TMP_NAME = re.compile(r"\..+\.(\d+)\.tmp")
_RUN_NAME = re.compile(r"run-(\d{5,})\.parquet")


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
    """Write JSON (indented, sorted keys) atomically, as strict JSON.

    NaN is written as ``null``, an infinity as ``1e999`` / ``-1e999`` (which JSON
    readers, Python's among them, read as one): a bare ``NaN`` is not JSON.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_path(path)
    text = json.dumps(_strict(obj), indent=1, sort_keys=True, default=_json_default, allow_nan=False)
    text = text.replace(json.dumps(_POS_INF), "1e999").replace(json.dumps(_NEG_INF), "-1e999")
    try:
        tmp.write_text(text + "\n")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


_POS_INF, _NEG_INF = "\x00+inf\x00", "\x00-inf\x00"  # placeholders no real string holds


def _strict(value):
    """``value`` with NaN as None and infinities as placeholders (JSON has no NaN or Infinity)."""
    if isinstance(value, (float, np.floating)):
        if np.isnan(value):
            return None
        if np.isinf(value):
            return _POS_INF if value > 0 else _NEG_INF
        return float(value)
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, np.ndarray):
        return _strict(value.tolist())
    return value


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


def plain_json(obj):
    """``obj`` as JSON reads it back (tuples as lists, numpy scalars as Python ones): what a file will hold."""
    return json.loads(json.dumps(obj, default=_json_default))


def read_json(path: Path, safe_to_delete: str):
    """A JSON file of a results folder, or a :class:`ResultsFileError` naming it (truncated, not JSON).

    ``safe_to_delete`` says what deleting the file costs; it ends the message.
    """
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except (UnicodeDecodeError, ValueError) as exc:
        raise ResultsFileError(
            f"{path} is not valid JSON (truncated or overwritten: {exc}); {safe_to_delete}"
        ) from None


def write_run(out: Path, record: dict) -> Path:
    """Write one run's record (a dict with the fields of :data:`RUN_SCHEMA`) atomically."""
    row = {name: [record.get(name)] for name in RUN_SCHEMA.names}
    table = pa.Table.from_pydict(row, schema=RUN_SCHEMA)
    return write_table_atomic(table, run_path(out, record["case"], int(record["run"])))


def finished_runs(out: Path, case_id: str) -> set[int]:
    """Run indices of ``case_id`` whose files are complete (temporary files are not)."""
    folder = Path(out) / "runs" / case_folder(case_id)
    if not folder.is_dir():
        return set()
    done = set()
    for p in folder.glob("run-*.parquet"):
        m = _RUN_NAME.fullmatch(p.name)
        if m:
            done.add(int(m.group(1)))
    return done


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_tmp(out: Path) -> int:
    """Delete the temporary files a killed writer left in ``out`` and ``out/runs/*``; returns how many.

    A temporary file is ``.<name>.<pid>.tmp``; one whose writer is still running (a
    concurrent sweep into the same folder) is left alone.
    """
    n = 0
    out = Path(out)
    for p in [*out.glob(".*.tmp"), *out.glob("runs/*/.*.tmp")]:
        m = _TMP_NAME.fullmatch(p.name)
        if m and int(m.group(1)) != os.getpid() and _pid_alive(int(m.group(1))):
            continue
        p.unlink(missing_ok=True)
        n += 1
    return n


def _read_run_file(path: Path, columns=None) -> pa.Table:
    try:
        return pq.read_table(path, schema=RUN_SCHEMA, columns=columns)
    except (pa.ArrowException, OSError) as exc:
        raise ResultsFileError(
            f"{path} is not a readable run file ({exc}); deleting it is safe: the run is computed again "
            "when the sweep resumes"
        ) from None


def _run_files(out: Path):
    """``(folder, file)`` of every file under ``<out>/runs`` but hidden ones (temporary files); a stray is refused."""
    root = Path(out) / "runs"
    if not root.is_dir():
        return
    for folder in sorted(root.iterdir()):
        if folder.name.startswith("."):  # a file manager's (.DS_Store), never read as a run
            continue
        if not folder.is_dir():
            raise ResultsFileError(
                f"{folder} is not a run folder (runs/ holds one folder per case); move it out of {root}"
            )
        for p in sorted(folder.iterdir()):
            if p.name.startswith("."):  # temporary files of a writer, a file manager's
                continue
            if not (_RUN_NAME.fullmatch(p.name) and p.is_file()):
                raise ResultsFileError(
                    f"{p} is not a run file written by prunelab (they are named run-NNNNN.parquet; a copy?); "
                    f"move it out of {root}: it would be counted as a run"
                )
            yield folder, p


_CHECKED = ("case", "run", "root_seed", "n_draws", "t", "case_spec")


def check_placed(path: Path, expected: Path, holds: str) -> None:
    """Refuse a results file that is not where what it holds belongs (a copy, or a stray), naming both places.

    Each run has one place in a results folder, named by what it is (its case and
    index, or its run id), so a copied or renamed file, or two files of one run, can
    never be counted twice: the one not in its place is refused.

    Examples
    --------
    >>> from pathlib import Path
    >>> place = Path("out/runs/a/run-00001.parquet")
    >>> check_placed(place, place, "run 1")
    >>> check_placed(Path("out/runs/a/copy.parquet"), place, "run 1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prunelab.lab.experiments.store.ResultsFileError: out/runs/a/copy.parquet holds run 1, which belongs in ...
    """
    if Path(path) != Path(expected):
        raise ResultsFileError(f"{path} holds {holds}, which belongs in {expected}: a copy or a stray; delete it")


def check_run_files(out: Path, settings: dict) -> dict:
    """Check every run file under ``<out>/runs`` against its name, its folder and the sweep's settings.

    Parameters
    ----------
    out : path
    settings : dict
        As for :func:`check_sweep`: ``root_seed``, ``n_draws``, ``checkpoints`` and
        ``cases`` (id -> fingerprint). A run of any case must share the first three
        (they are one folder's tables); a run of a case in ``cases`` also its fingerprint.

    Returns
    -------
    dict
        ``case id -> fingerprint`` read from the run files (cases of other sweeps too).

    Raises
    ------
    ResultsFileError
        A file that is not a run file, or a run file in another case's folder or under
        another run's name (a copy), or unreadable: each named, with what to do.
    SweepMismatchError
        A run made with other settings: the file, what differs, and what to do.
    """
    found, mismatched = {}, []
    for _, path in _run_files(out):
        row = _read_run_file(path, columns=list(_CHECKED)).to_pylist()
        if len(row) != 1:
            raise ResultsFileError(f"{path} holds {len(row)} rows, a run file one; delete it (the run is redone)")
        row = row[0]
        check_placed(path, run_path(out, row["case"] or "?", row["run"] or 0),
                     f"run {row['run']} of case {row['case']!r}")
        made = {"root_seed": row["root_seed"], "n_draws": row["n_draws"], "checkpoints": row["t"]}
        diffs = [f"{k} {made[k]} here, {settings[k]} asked" for k in made if made[k] != settings[k]]
        spec = json.loads(row["case_spec"]) if row["case_spec"] else None
        wanted = settings["cases"].get(row["case"])
        if spec is not None and wanted is not None and spec != wanted:
            keys = sorted(k for k in set(spec) | set(wanted) if spec.get(k) != wanted.get(k))
            diffs.append(f"case {row['case']}: {', '.join(keys)}")
        if diffs:
            mismatched.append((path, diffs))
        if spec is not None:
            found.setdefault(row["case"], spec)
    if mismatched:
        path, diffs = mismatched[0]
        checkpoints = [d for d in diffs if d.startswith("checkpoints")]
        shown = [d for d in diffs if not d.startswith("checkpoints")] + (["checkpoints"] if checkpoints else [])
        raise SweepMismatchError(
            f"{out} holds runs made with other settings: {path.name} of {path.parent.name} has "
            f"{'; '.join(shown)} (and {len(mismatched) - 1} more run files differ); resume with the settings "
            "they were made with (the same --profile, --seed, cases), or choose another output folder "
            "or delete this one"
        )
    return found


def read_runs(out: Path, case_ids=None) -> pa.Table:
    """All run files under ``<out>/runs`` (or those of ``case_ids``), sorted by case and run.

    Raises
    ------
    ResultsFileError
        A stray, copied or unreadable file, named (see :func:`check_run_files`).
    """
    wanted = None if case_ids is None else {case_folder(c) for c in case_ids}
    tables = [_read_run_file(p) for folder, p in _run_files(out) if wanted is None or folder.name in wanted]
    if not tables:
        return RUN_SCHEMA.empty_table()
    table = pa.concat_tables(tables)
    return table.sort_by([("case", "ascending"), ("run", "ascending")])


SWEEP_SAFE = (
    "deleting it is safe: it records the sweep's settings, which every run file also carries "
    "and which are checked on resume"
)
"""What deleting a broken ``sweep.json`` costs (nothing): the end of the message that names it."""


def check_sweep(out: Path, settings: dict, on_disk: dict | None = None) -> None:
    """Record the sweep's settings in ``sweep.json``, or check that earlier runs used the same.

    ``settings`` holds ``root_seed``, ``n_draws``, ``checkpoints`` and ``cases``
    (id -> spec dict). Only finished runs lock a folder: the global settings must
    agree if any run file exists, and a case's spec if that case has run files;
    more runs or more cases are fine. Settings recorded by a sweep that finished no
    run (it crashed or was stopped at once) are simply replaced. ``on_disk`` (case id
    -> fingerprint, from :func:`check_run_files`) keeps the cases of other sweeps
    recorded when ``sweep.json`` was lost.

    Raises
    ------
    SweepMismatchError
        With the differing settings named; use another ``out`` folder or delete it.
    ResultsFileError
        ``sweep.json`` is not valid JSON (truncated): named, and that deleting it is safe.
    """
    path = Path(out) / "sweep.json"
    merged = dict(settings)
    merged["cases"] = {**(on_disk or {}), **settings["cases"]}
    if path.exists():
        old = read_json(path, SWEEP_SAFE)
        if not isinstance(old, dict) or not isinstance(old.get("cases", {}), dict):
            raise ResultsFileError(f"{path} is not a sweep record (a JSON object with 'cases'); {SWEEP_SAFE}")
        with_runs = {cid for cid in old.get("cases", {}) if finished_runs(out, cid)}
        diffs = []
        if with_runs:
            diffs = [k for k in ("root_seed", "n_draws", "checkpoints") if old.get(k) != settings[k]]
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
        merged["cases"] = {**(on_disk or {}), **{cid: old["cases"][cid] for cid in with_runs}, **settings["cases"]}
    write_json_atomic(plain_json(merged), path)
