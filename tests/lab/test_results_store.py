"""The results store checks what it reads: settings of every run record, stray and copied files, broken files.

Each test makes a tiny sweep (a few runs of a few hundred draws on a toy network),
damages its folder the way a user or a killed process might, and checks that the
next resume refuses with a message naming the file and what to do, or repairs what
is derived, and never mixes runs made with other settings.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from prunelab.lab.experiments import LARGE, PAPER, CaseSpec, Profile, SweepMismatchError, load_folder, store, sweep
from prunelab.lab.experiments.framework import record_path
from prunelab.lab.experiments.large import LargeProfile

CASE = "deterministic_pair.prune"
TINY = Profile("tiny", n_runs=3, n_draws=300, n_checkpoints=12, cases=(CASE,))


@pytest.fixture
def swept(tmp_path):
    """A folder holding a finished tiny sweep of one case."""
    out = tmp_path / "sweep"
    sweep(PAPER, TINY, out=out)
    return out


def _summary(out):
    """The summary without its wall-clock columns (no two runs share them)."""
    summary = pd.read_parquet(out / "summary.parquet")
    return summary.drop(columns=[c for c in summary.columns if "second" in c])


def _record(out, run: int):
    return record_path(out, f"run.{CASE}.{run:05d}")


def test_every_run_record_carries_its_settings(swept):
    made = [json.loads(_record(swept, r).read_text())["settings"] for r in range(TINY.n_runs)]
    assert all(m == made[0] for m in made) and made[0]["root_seed"] == "20170901"
    assert made[0]["profile"]["n_draws"] == TINY.n_draws
    (network,) = made[0]["profile"]["networks"]
    assert network.startswith(f"{CASE}:") and len(network.split(":")[1]) == 40


def test_a_lost_sweep_json_does_not_let_other_settings_in(swept):
    (swept / "sweep.json").unlink()
    provenance = (swept / "provenance.json").read_text()
    with pytest.raises(SweepMismatchError, match=r"run\.deterministic_pair\.prune\.00000\.json has other root_seed"):
        sweep(PAPER, TINY, out=swept, root_seed=5)
    with pytest.raises(SweepMismatchError, match=r"\.json has other profile"):
        sweep(PAPER, dataclasses.replace(TINY, n_draws=3000), out=swept)
    assert (swept / "provenance.json").read_text() == provenance  # nothing rewritten
    # with its own settings the folder resumes, and sweep.json is written again
    assert sweep(PAPER, TINY, out=swept)["n_done"] == 0
    assert json.loads((swept / "sweep.json").read_text())["root_seed"] == "20170901"


def test_a_copied_record_is_refused_by_name(swept):
    before = _summary(swept)
    source = _record(swept, 1)
    copy = source.with_name("run.deterministic_pair.prune.00001 (copy).json")
    shutil.copy(source, copy)
    with pytest.raises(store.ResultsFileError, match=r"00001 \(copy\)\.json holds run .*a copy or a stray"):
        sweep(PAPER, TINY, out=swept)
    copy.unlink()
    sweep(PAPER, TINY, out=swept)
    pd.testing.assert_frame_equal(_summary(swept), before)


def test_a_record_in_a_stray_folder_or_under_another_name_is_refused(swept):
    source = _record(swept, 0)
    stray = swept / "runs" / "backup" / source.name
    stray.parent.mkdir()
    shutil.copy(source, stray)
    with pytest.raises(store.ResultsFileError, match=r"backup/run\.deterministic_pair\.prune\.00000\.json holds run "
                                                     r"'run\.deterministic_pair\.prune\.00000', which belongs in "
                                                     r".*runs/run/run\.deterministic_pair\.prune\.00000\.json"):
        sweep(PAPER, TINY, out=swept)
    shutil.rmtree(stray.parent)
    shutil.copy(source, source.with_name("run.deterministic_pair.prune.00007.json"))
    with pytest.raises(store.ResultsFileError, match=r"00007\.json holds run 'run\.deterministic_pair\.prune\.00000'"):
        sweep(PAPER, TINY, out=swept)


def test_a_case_id_that_is_not_a_safe_file_name_is_refused_before_any_run(tmp_path):
    cases = (CaseSpec("my/pair", "deterministic_pair", "prune"),)
    with pytest.raises(ValueError, match=r"run id 'run\.my/pair\.prune\.00000' is not a safe file name"):
        sweep(PAPER, TINY.only(cases), out=tmp_path)
    assert not (tmp_path / "runs").exists()


def test_a_truncated_sweep_json_is_named_and_safe_to_delete(swept):
    text = (swept / "sweep.json").read_text()
    (swept / "sweep.json").write_text(text[: len(text) // 2])
    with pytest.raises(store.ResultsFileError, match=r"sweep\.json is not valid JSON .*deleting it is safe"):
        sweep(PAPER, TINY, out=swept)
    (swept / "sweep.json").unlink()
    assert sweep(PAPER, TINY, out=swept)["n_done"] == 0


def test_a_truncated_record_is_named_and_redone_once_deleted(swept):
    before = _summary(swept)
    path = _record(swept, 2)
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(store.ResultsFileError, match=r"00002\.json is not valid JSON.*deleting it is safe"):
        sweep(PAPER, TINY, out=swept)
    path.unlink()
    assert sweep(PAPER, TINY, out=swept)["n_done"] == 1
    pd.testing.assert_frame_equal(_summary(swept), before)


def test_a_corrupt_summary_is_rebuilt_from_the_records(swept):
    before = _summary(swept)
    (swept / "summary.parquet").write_bytes(b"not a parquet file")
    assert sweep(PAPER, TINY, out=swept)["n_done"] == 0
    pd.testing.assert_frame_equal(_summary(swept), before)


def test_temporary_files_of_a_killed_consolidation_are_cleaned(swept):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)  # a process that has ended
    record = _record(swept, 0)
    left = [swept / f".summary.parquet.{dead_pid}.tmp", swept / f".provenance.json.{dead_pid}.tmp",
            record.with_name(f".{record.name}.{dead_pid}.tmp")]
    for p in left:
        p.write_bytes(b"half a file")
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:  # a concurrent writer's temporary file is left alone
        busy = swept / f".curves.parquet.{live.pid}.tmp"
        busy.write_bytes(b"being written")
        sweep(PAPER, TINY, out=swept)
        assert not any(p.exists() for p in left)
        assert busy.exists()
    finally:
        live.communicate(b"")


def test_json_files_are_strict_json(tmp_path):
    path = store.write_json_atomic({"a": float("nan"), "b": [np.inf, -np.inf, 1.5], "c": "Infinity"}, tmp_path / "x.json")

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    assert json.loads(path.read_text(), parse_constant=refuse) == {"a": None, "b": [np.inf, -np.inf, 1.5],
                                                                   "c": "Infinity"}


def test_large_run_records_are_checked_on_resume(tmp_path):
    tiny = LargeProfile("tiny", networks=("cancer",), budgets=(0.05,), samplers=("prunelab-prune",),
                        check_seconds=0.05, check_max_steps=2_000, grid_sides=(3,), grid_determinism=(0.5,))
    sweep(LARGE, tiny, out=tmp_path, kinds=["network"], root_seed=4)
    records = sorted((tmp_path / "runs").glob("*/*.json"))
    assert len(records) == 2

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    for path in [*records, tmp_path / "sweep.json", tmp_path / "provenance.json"]:
        json.loads(path.read_text(), parse_constant=refuse)  # strict JSON: no bare NaN or Infinity
    assert json.loads(records[0].read_text())["settings"]["root_seed"] == "4"
    assert "settings" not in load_folder(tmp_path)["networks"].columns
    # a lost sweep.json: the records' own settings refuse another seed
    (tmp_path / "sweep.json").unlink()
    with pytest.raises(SweepMismatchError, match=r"network\.cancer\.ev0\.json has other root_seed"):
        sweep(LARGE, tiny, out=tmp_path, kinds=["network"], root_seed=5)
    # a truncated record or sweep.json is named, with what deleting it costs
    text = records[1].read_text()
    records[1].write_text(text[: len(text) // 2])
    with pytest.raises(store.ResultsFileError, match=r"network\.cancer\.ev25\.json is not valid JSON.*deleting it is safe"):
        sweep(LARGE, tiny, out=tmp_path, kinds=["network"], root_seed=4)
    records[1].unlink()
    (tmp_path / "sweep.json").write_text('{"profile": ')
    with pytest.raises(store.ResultsFileError, match=r"sweep\.json is not valid JSON.*deleting it is safe"):
        sweep(LARGE, tiny, out=tmp_path, kinds=["network"], root_seed=4)
    (tmp_path / "sweep.json").unlink()
    report = sweep(LARGE, tiny, out=tmp_path, kinds=["network"], root_seed=4)
    assert report["n_done"] == 1 and report["n_skipped"] == 1


def test_a_corrupt_table_is_named_when_loaded(swept):
    (swept / "curves.parquet").write_bytes(b"PAR1 truncated")
    with pytest.raises(store.ResultsFileError, match=r"curves\.parquet is unreadable .*run the sweep's command again"):
        load_folder(swept)
