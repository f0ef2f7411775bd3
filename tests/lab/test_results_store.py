"""The results store checks what it reads: settings of every run file, stray and copied files, broken files.

Each test makes a tiny sweep (a few runs of a few hundred draws on a toy network),
damages its folder the way a user or a killed process might, and checks that the
next resume refuses with a message naming the file and what to do, or repairs what
is derived, and never mixes runs made with other settings.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from prunelab.lab.experiments import CaseSpec, Profile, SweepMismatchError, reproduce
from prunelab.lab.experiments import store

TINY = Profile("tiny", n_runs=3, n_draws=300, n_checkpoints=12)
CASE = "deterministic_pair.prune"


@pytest.fixture
def swept(tmp_path):
    """A folder holding a finished tiny sweep of one case."""
    out = tmp_path / "sweep"
    reproduce(TINY, cases=[CASE], n_jobs=1, out=out, progress=False)
    return out


def _summary(out):
    """The summary without its wall-clock columns (no two runs share them)."""
    summary = pd.read_parquet(out / "summary.parquet")
    return summary.drop(columns=[c for c in summary.columns if "second" in c])


def test_every_run_file_carries_its_settings(swept):
    raw = store.read_runs(swept).to_pandas()
    specs = {json.loads(s)["network_sha1"] for s in raw["case_spec"]}
    assert len(specs) == 1 and len(next(iter(specs))) == 40
    assert set(raw["root_seed"]) == {"20170901"} and set(raw["n_draws"]) == {TINY.n_draws}


def test_a_lost_sweep_json_does_not_let_other_settings_in(swept, monkeypatch):
    (swept / "sweep.json").unlink()
    provenance = (swept / "provenance.json").read_text()
    with pytest.raises(SweepMismatchError, match=r"root_seed 20170901 here, 5 asked.*--seed"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False, root_seed=5)
    longer = Profile("tiny", n_runs=3, n_draws=3000, n_checkpoints=12)
    with pytest.raises(SweepMismatchError, match=r"run-00000.parquet .*n_draws 300 here, 3000 asked"):
        reproduce(longer, cases=[CASE], n_jobs=1, out=swept, progress=False)
    assert (swept / "provenance.json").read_text() == provenance  # nothing rewritten
    assert len(store.read_runs(swept)) == TINY.n_runs
    # a run file made on another network than the case's today (a regenerated file) is refused too
    from prunelab.lab.experiments import runner

    def changed_network(case):
        return {**real_fingerprint(case), "network_sha1": "0" * 40}

    real_fingerprint = runner.case_fingerprint
    monkeypatch.setattr(runner, "case_fingerprint", changed_network)
    with pytest.raises(SweepMismatchError, match=f"case {CASE}: network_sha1"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
    monkeypatch.undo()
    # with its own settings the folder resumes, and sweep.json is written again
    assert reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)["n_done"] == 0
    assert json.loads((swept / "sweep.json").read_text())["root_seed"] == "20170901"


def test_a_sweep_of_other_cases_keeps_the_lost_cases_specs(swept):
    (swept / "sweep.json").unlink()
    reproduce(TINY, cases=["deterministic_pair.gibbs"], n_jobs=1, out=swept, progress=False)
    summary = pd.read_parquet(swept / "summary.parquet")
    assert set(summary["case"]) == {CASE, "deterministic_pair.gibbs"}


def test_a_copied_run_file_is_refused_by_name(swept):
    before = _summary(swept)
    folder = store.run_path(swept, CASE, 1).parent
    shutil.copy(folder / "run-00001.parquet", folder / "run-00001 (copy).parquet")
    with pytest.raises(store.ResultsFileError, match=r"run-00001 \(copy\)\.parquet is not a run file"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
    with pytest.raises(store.ResultsFileError, match="a copy"):
        store.read_runs(swept)
    (folder / "run-00001 (copy).parquet").unlink()
    reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
    pd.testing.assert_frame_equal(_summary(swept), before)


def test_a_run_file_in_a_stray_folder_or_under_another_name_is_refused(swept):
    source = store.run_path(swept, CASE, 0)
    stray = swept / "runs" / "backup" / "run-00000.parquet"
    stray.parent.mkdir()
    shutil.copy(source, stray)
    with pytest.raises(store.ResultsFileError, match=r"backup/run-00000.parquet holds run 0 of case .*a copy or a stray"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
    shutil.rmtree(stray.parent)
    renamed = source.with_name("run-00007.parquet")
    shutil.copy(source, renamed)
    with pytest.raises(store.ResultsFileError, match="run-00007.parquet holds run 0"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)


def test_case_folders_are_one_per_case_id(tmp_path):
    assert store.case_folder("my/asia.gibbs") != store.case_folder("my_asia.gibbs")
    assert store.case_folder("..") != ".." and not store.case_folder(".hidden").startswith(".")
    cases = [CaseSpec("my/pair", "deterministic_pair", "prune"), CaseSpec("my_pair", "deterministic_pair", "prune")]
    reproduce(TINY, cases=cases, n_jobs=1, out=tmp_path, progress=False)
    raw = store.read_runs(tmp_path).to_pandas()
    assert raw.groupby("case").size().to_dict() == {"my/pair.prune": TINY.n_runs, "my_pair.prune": TINY.n_runs}
    assert set(pd.read_parquet(tmp_path / "summary.parquet")["case"]) == {"my/pair.prune", "my_pair.prune"}


def test_a_truncated_sweep_json_is_named_and_safe_to_delete(swept):
    text = (swept / "sweep.json").read_text()
    (swept / "sweep.json").write_text(text[: len(text) // 2])
    with pytest.raises(store.ResultsFileError, match=r"sweep\.json is not valid JSON .*deleting it is safe"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
    (swept / "sweep.json").unlink()
    assert reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)["n_done"] == 0


def test_a_truncated_run_file_is_named_and_redone_once_deleted(swept):
    before = _summary(swept)
    path = store.run_path(swept, CASE, 2)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(store.ResultsFileError, match=r"run-00002.parquet is not a readable run file.*deleting it is safe"):
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
    path.unlink()
    assert reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)["n_done"] == 1
    pd.testing.assert_frame_equal(_summary(swept), before)


def test_a_corrupt_summary_is_rebuilt_from_the_run_files(swept):
    before = _summary(swept)
    (swept / "summary.parquet").write_bytes(b"not a parquet file")
    with pytest.warns(UserWarning, match=r"summary\.parquet is unreadable.*rebuilt"):
        assert reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)["n_done"] == 0
    pd.testing.assert_frame_equal(_summary(swept), before)


def test_temporary_files_of_a_killed_consolidation_are_cleaned(swept):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)  # a process that has ended
    left = [swept / f".summary.parquet.{dead_pid}.tmp", swept / f".provenance.json.{dead_pid}.tmp",
            store.run_path(swept, CASE, 0).with_name(f".run-00000.parquet.{dead_pid}.tmp")]
    for p in left:
        p.write_bytes(b"half a file")
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:  # a concurrent writer's temporary file is left alone
        busy = swept / f".curves.parquet.{live.pid}.tmp"
        busy.write_bytes(b"being written")
        reproduce(TINY, cases=[CASE], n_jobs=1, out=swept, progress=False)
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
    from prunelab.lab.experiments import LARGE, load_folder, sweep
    from prunelab.lab.experiments.large import LargeProfile

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
    from prunelab.lab.experiments import load_results

    (swept / "curves.parquet").write_bytes(b"PAR1 truncated")
    with pytest.raises(store.ResultsFileError, match=r"curves\.parquet is unreadable .*run the sweep's command again"):
        load_results("smoke", out=swept)
