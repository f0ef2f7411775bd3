"""The results store's files: atomic writes, strict JSON, and the errors that name a bad file.

Every sweep (:func:`prunelab.lab.experiments.framework.sweep`) writes a results
folder through these: one JSON record per finished run (``runs/<kind>/<id>.json``),
``sweep.json`` (what the runs were made with, checked on resume), the parquet tables
and ``provenance.json``. ``runs/`` is the working store: a sweep that is killed
resumes from it without losing or redoing a finished run; it can be large (the paper
sweep's records keep each run's query draws, from which the ESS columns come), so
``data/results/.gitignore`` keeps every ``runs/`` out of git. The tables and
``provenance.json`` are small and are committed; they are all a chapter needs.
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
    "ResultsFileError",
    "SWEEP_SAFE",
    "SweepMismatchError",
    "check_placed",
    "plain_json",
    "read_json",
    "remove_stale_tmp",
    "write_atomic",
    "write_json_atomic",
    "write_table_atomic",
]

class SweepMismatchError(RuntimeError):
    """The results folder holds runs made with other settings than the ones asked for."""


class ResultsFileError(RuntimeError):
    """A file of a results folder is unreadable, misnamed or misplaced; the message names it and what to do."""


def _tmp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


_TMP_NAME = re.compile(r"\..+\.(\d+)\.tmp")


def write_atomic(path: Path, write) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then move it onto ``path``: absent or complete."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_path(path)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_table_atomic(table: pa.Table, path: Path, compression: str = "zstd") -> Path:
    """Write a parquet file so that it is either absent or complete (:func:`write_atomic`)."""
    return write_atomic(path, lambda tmp: pq.write_table(table, tmp, compression=compression))


def write_json_atomic(obj, path: Path) -> Path:
    """Write JSON (indented, sorted keys) atomically, as strict JSON.

    NaN is written as ``null``, an infinity as ``1e999`` / ``-1e999`` (which JSON
    readers, Python's among them, read as one): a bare ``NaN`` is not JSON.
    """
    text = json.dumps(_strict(obj), indent=1, sort_keys=True, default=_json_default, allow_nan=False)
    text = text.replace(json.dumps(_POS_INF), "1e999").replace(json.dumps(_NEG_INF), "-1e999")
    return write_atomic(path, lambda tmp: tmp.write_text(text + "\n"))


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


def check_placed(path: Path, expected: Path, holds: str) -> None:
    """Refuse a results file that is not where what it holds belongs (a copy, or a stray), naming both places.

    Each run has one place in a results folder, named by its run id, so a copied or
    renamed file, or two files of one run, can never be counted twice: the one not in
    its place is refused.

    Examples
    --------
    >>> from pathlib import Path
    >>> place = Path("out/runs/grid/grid.a.json")
    >>> check_placed(place, place, "run 'grid.a'")
    >>> check_placed(Path("out/runs/grid/copy.json"), place, "run 'grid.a'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prunelab.lab.experiments.store.ResultsFileError: out/runs/grid/copy.json holds run 'grid.a', which belongs in ...
    """
    if Path(path) != Path(expected):
        raise ResultsFileError(f"{path} holds {holds}, which belongs in {expected}: a copy or a stray; delete it")


SWEEP_SAFE = (
    "deleting it is safe: it records the sweep's settings, which every run record also carries "
    "and which are checked on resume"
)
"""What deleting a broken ``sweep.json`` costs (nothing): the end of the message that names it."""
