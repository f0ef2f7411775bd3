"""The paper's sweep through the one framework: case specs, seeds, resuming, workers, provenance, the CLI.

The sweeps here are tiny (a few runs of a few hundred draws on the toy networks, asia
and the 3x3 grid) so the file stays well under a minute. "Same numbers" means equal
tables once the wall-clock columns, which no two runs share, are dropped.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import prunelab
from prunelab.__main__ import main
from prunelab.catalogue import data_dir
from prunelab.lab.experiments import (
    CASES,
    PAPER,
    PROVENANCE_KEYS,
    CaseSpec,
    Profile,
    SweepMismatchError,
    case_key,
    select_cases,
    sweep,
)
from prunelab.lab.experiments import framework, specs, store
from prunelab.lab.experiments.framework import consolidate, run_seed_sequence
from prunelab.lab.experiments.paper import PaperRun
from prunelab.workers import usable_cores
from tests.gated_sweep import HOLD_ENV, hold_site
from prunelab.lab.mixing import MARKS, mixing_verdict
from prunelab.lab.paper_numbers import PAPER_ALPHA, PAPER_BENCHMARKS, PAPER_SECONDS

TINY_CASES = ("deterministic_pair", "asia_ev0.gibbs", "grid-3x3.prune")
TINY = Profile("tiny", n_runs=3, n_draws=300, n_checkpoints=12, cases=TINY_CASES)
N_TINY_RUNS = 5 * TINY.n_runs

TIMING_COLUMNS = {
    "init_seconds", "sample_seconds", "seconds_per_draw", "cpu_seconds", "seconds_to_target",
    "seconds_to_target_free", "seconds_below_target", "ess_per_second",
    "sample_seconds_rb", "seconds_per_draw_rb", "seconds_to_target_rb",
}
TABLES = ("curves", "runs", "final_marginals", "summary")


def numbers(out) -> dict[str, pd.DataFrame]:
    """The consolidated tables without their wall-clock columns, plus the raw query draws."""
    tables = {}
    for name in TABLES:
        df = pd.read_parquet(out / f"{name}.parquet")
        tables[name] = df.drop(columns=[c for c in df.columns if c in TIMING_COLUMNS])
    raw = records(out)
    tables["draws"] = raw[["case", "run", "query_draws", "start_state", "spawn_key"]].reset_index(drop=True)
    return tables


def records(out) -> pd.DataFrame:
    """The run records of a paper sweep's folder, by case and run, the query draws decoded."""
    rows = [json.loads(p.read_text()) for p in sorted((Path(out) / "runs" / "run").glob("*.json"))]
    frame = pd.DataFrame(rows).sort_values(["case", "run"]).reset_index(drop=True)
    frame["query_draws"] = frame["query_draws"].map(base64.b64decode)
    return frame


def assert_same_numbers(a, b):
    left, right = numbers(a), numbers(b)
    for name in left:
        pd.testing.assert_frame_equal(left[name], right[name], check_exact=True, obj=name)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted in-process sweep everything else is compared with."""
    out = tmp_path_factory.mktemp("reference")
    report = sweep(PAPER, TINY, out=out, n_jobs=1, command="pytest reference")
    return out, report


# ----------------------------------------------------------------------------- specs and seeds


def test_default_cases_are_eleven_benchmarks_times_three_samplers():
    assert len(CASES) == 33
    assert {c.sampler for c in CASES} == {"gibbs", "metropolis", "prune"}
    assert len({c.benchmark for c in CASES}) == 11
    assert set(PAPER_BENCHMARKS) <= {c.benchmark for c in CASES}
    assert len({c.id for c in CASES}) == 33


def test_each_list_of_names_has_one_home():
    import prunelab.lab.experiments as experiments
    import prunelab.lab.paper_numbers as paper_numbers
    import prunelab.lab.plots as plots
    from prunelab.samplers import init

    assert experiments.PAPER_SAMPLERS is paper_numbers.PAPER_SAMPLERS is plots.PAPER_SAMPLERS
    assert list(experiments.BENCHMARKS)[2:] == list(PAPER_BENCHMARKS)  # the two toy networks, then the paper's rows
    assert specs.CASE_INITS == (*init.INITS, "fixed")


def test_select_cases_by_pattern_and_errors():
    assert [c.id for c in select_cases(["asia_ev0"])] == ["asia_ev0.gibbs", "asia_ev0.metropolis", "asia_ev0.prune"]
    assert len(select_cases(["*.prune"])) == 11
    fixed = select_cases(["grid-3x3.prune"], init="fixed")
    assert [c.id for c in fixed] == ["grid-3x3.prune.fixed"]
    with pytest.raises(ValueError, match="matches nothing"):
        select_cases(["asai*"])
    with pytest.raises(ValueError, match="init must be"):
        CaseSpec("x", "asia", "gibbs", init="backward")


def test_a_runs_seed_is_replicate_r_of_its_cases_series():
    seed = PaperRun(CaseSpec("asia_ev0", "asia", "gibbs"), 3)
    a = run_seed_sequence("asia_ev0.gibbs", 7, replicate=seed.index)
    assert a.spawn_key == (case_key("asia_ev0.gibbs"), 3)  # the seeds the frozen paper results were drawn with
    child = run_seed_sequence("asia_ev0.gibbs", 7).spawn(4)[3]
    assert (a.generate_state(4) == child.generate_state(4)).all()
    assert not (run_seed_sequence("asia_ev0.gibbs", 7, replicate=4).generate_state(4) == a.generate_state(4)).all()
    assert not (run_seed_sequence("asia_ev0.gibbs", 8, replicate=3).generate_state(4) == a.generate_state(4)).all()
    with pytest.raises(ValueError, match="run index"):
        PaperRun(CaseSpec("asia_ev0", "asia", "gibbs"), specs.FIXED_START_SPAWN)


# ----------------------------------------------------------------------------- the sweep


def test_reference_sweep_writes_tidy_tables(reference):
    out, report = reference
    assert report["n_done"] == N_TINY_RUNS and report["n_skipped"] == 0
    curves = pd.read_parquet(out / "curves.parquet")
    assert len(curves) == N_TINY_RUNS * TINY.checkpoints.size
    assert {"case", "network", "evidence", "sampler", "run", "t", "estimate_0", "hellinger_query", "hellinger_all",
            "estimate_rb_0", "hellinger_all_rb"} <= set(curves.columns)
    # the running estimates are distributions; Rao-Blackwell columns for Gibbs and prune, not Metropolis
    k = curves[["estimate_0", "estimate_1"]].sum(axis=1)
    np.testing.assert_allclose(k, 1.0)
    assert curves.loc[curves.sampler == "metropolis", "estimate_rb_0"].isna().all()
    assert curves.loc[curves.sampler != "metropolis", "estimate_rb_0"].notna().all()
    summary = pd.read_parquet(out / "summary.parquet").set_index("case")
    assert len(summary) == 5
    assert {"alpha", "alpha_free", "seconds_to_target", "ahd_query", "ahd_all", "ess_bulk"} <= set(summary.columns)
    # Gibbs on the deterministic pair never leaves its start: every run is constant
    assert summary.loc["deterministic_pair.gibbs", "constant_chains"] == TINY.n_runs
    # the run records are kept for resumption and ESS, but out of git
    assert len(list((out / "runs" / "run").glob("run.*.json"))) == N_TINY_RUNS


def test_killed_sweep_resumes_without_losing_or_redoing_runs(reference, tmp_path, monkeypatch):
    written = []
    run = PAPER.run

    def kill_after_four(run_, profile, root_seed):
        if len(written) == 4:
            raise KeyboardInterrupt("simulated kill")
        written.append(run_.id)
        return run(run_, profile, root_seed)

    monkeypatch.setattr(PAPER, "run", kill_after_four)
    with pytest.raises(framework.SweepInterrupted):
        sweep(PAPER, TINY, out=tmp_path, n_jobs=1)
    monkeypatch.undo()
    assert sorted(p.stem for p in (tmp_path / "runs" / "run").glob("*.json")) == sorted(written)
    assert not (tmp_path / "summary.parquet").exists()
    # a writer killed mid-file leaves only a temporary file, never a half record
    stale = framework.record_path(tmp_path, "run.grid-3x3.prune.00002")
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(ended.stdout)  # its writer is gone (a live writer's temporary file is left alone)
    stale.with_name(f".{stale.name}.{dead_pid}.tmp").write_text("half a record")

    report = sweep(PAPER, TINY, out=tmp_path, n_jobs=-1)  # every usable core: workers where there are two
    assert report["n_skipped"] == 4 and report["n_done"] == N_TINY_RUNS - 4
    assert not list((tmp_path / "runs").glob("*/.*.tmp"))
    assert_same_numbers(reference[0], tmp_path)
    # a third start finds everything done and only consolidates
    assert sweep(PAPER, TINY, out=tmp_path, n_jobs=1)["n_done"] == 0
    assert_same_numbers(reference[0], tmp_path)


def test_resuming_with_other_settings_is_refused(tmp_path):
    one = TINY.only(["deterministic_pair.prune"])
    sweep(PAPER, one, out=tmp_path)
    with pytest.raises(SweepMismatchError, match="profile"):
        sweep(PAPER, dataclasses.replace(one, n_draws=400), out=tmp_path)
    with pytest.raises(SweepMismatchError, match="root_seed"):
        sweep(PAPER, one, out=tmp_path, root_seed=1)
    # more cases are more runs of the same settings: refused, unless asked to extend
    more = TINY.only(["deterministic_pair.prune", "deterministic_pair.gibbs"])
    with pytest.raises(SweepMismatchError, match="--extend"):
        sweep(PAPER, more, out=tmp_path)
    assert sweep(PAPER, more, out=tmp_path, extend=True)["n_done"] == TINY.n_runs
    # runs made on a network that has changed since (another hash in their settings) are not mixed with new ones
    record = framework.record_path(tmp_path, "run.deterministic_pair.prune.00001")
    made = json.loads(record.read_text())
    assert made["settings"]["profile"]["networks"] == one.to_dict()["networks"]  # the settings it was made with
    made["settings"]["profile"]["networks"] = ["deterministic_pair.prune:" + "0" * 40]
    record.write_text(json.dumps(made))
    with pytest.raises(SweepMismatchError, match=r"run.deterministic_pair.prune.00001.json has other profile"):
        sweep(PAPER, more, out=tmp_path, extend=True)


def test_fixed_init_starts_every_run_from_one_state(tmp_path):
    sweep(PAPER, dataclasses.replace(TINY.only(["asia_ev0.metropolis"]), init="fixed"), out=tmp_path)
    raw = records(tmp_path)
    assert set(raw["case"]) == {"asia_ev0.metropolis.fixed"}
    starts = {tuple(s) for s in raw["start_state"]}
    assert len(starts) == 1
    assert set(raw["init_used"]) == {"given"}


def test_an_explicit_start_state_is_used_by_every_run(tmp_path):
    case = CaseSpec("deterministic_pair", "deterministic_pair", "gibbs", init="fixed", start=(("A", "1"), ("B", "1")))
    sweep(PAPER, TINY.only([case]), out=tmp_path)
    raw = records(tmp_path)
    assert [list(s) for s in raw["start_state"]] == [[1, 1]] * TINY.n_runs
    # Gibbs cannot leave (1, 1) on the deterministic pair: P(A = 0) is estimated as 0 throughout
    curves = pd.read_parquet(tmp_path / "curves.parquet")
    assert (curves["estimate_0"] == 0).all()


# ----------------------------------------------------------------------------- provenance and CLI


def test_provenance_has_the_required_fields(reference):
    out, _ = reference
    prov = json.loads((out / "provenance.json").read_text())
    assert tuple(prov) == tuple(sorted(PROVENANCE_KEYS))  # the one schema (written with sorted keys)
    assert prov["experiment"] == "paper" and prov["missing"] == [] and prov["n_runs"] == prov["n_done"]
    assert prov["regenerate"] == f"python -m prunelab run paper --profile {TINY.name} --jobs 1"
    assert prov["rows"]["runs"] == prov["n_runs"] and prov["runs_wall_seconds"] > 0
    assert set(prov["profile"]["cases"]) == set(pd.read_parquet(out / "runs.parquet")["case"])  # the cases it ran
    assert [n.split(":")[0] for n in prov["profile"]["networks"]] == prov["profile"]["cases"]
    assert prov["command"] == "pytest reference"
    assert prov["out"] == out.name  # the folder's name, never a machine path
    assert "commit" in prov["git"]
    assert prov["profile"]["n_runs"] == TINY.n_runs and prov["profile"]["n_draws"] == TINY.n_draws
    assert prov["profile"]["checkpoints"] == TINY.checkpoints.tolist()
    assert {"platform", "cpu_count"} <= set(prov["machine"])
    assert {"numpy", "numba", "pandas", "joblib", "dask", "distributed"} <= set(prov["libraries"])
    assert prov["sweep_seconds"] > 0


def test_frozen_provenance_names_its_folder_not_a_machine_path():
    frozen = sorted((data_dir() / "results").glob("*/provenance.json"))
    assert len(frozen) >= 5
    for path in frozen:
        out = json.loads(path.read_text())["out"]
        assert out and "/" not in out and "\\" not in out, (path, out)


def test_tables_command_prints_ours_beside_the_papers(reference, capsys):
    out, _ = reference
    assert main(["tables", "--profile", "smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    summary = pd.read_parquet(out / "summary.parquet").set_index("case")
    ours = summary.loc["asia_ev0.gibbs"]
    row = next(line for line in text.splitlines() if line.startswith("Asia_ev0"))
    assert f"{ours['alpha']:.2f}" in row and f"{PAPER_ALPHA['asia_ev0']['gibbs']:.2f}" in row
    assert "Table 2" in text
    seconds_row = [line for line in text.splitlines() if line.startswith("Grid 8x8")][-1]
    assert f"{PAPER_SECONDS['grid-8x8']['prune']:.3g}" in seconds_row


def test_frozen_paper_results_are_what_the_sweep_is_set_to_make():
    settings = json.loads((data_dir() / "results" / "paper" / "sweep.json").read_text())
    paper = PAPER.profiles["paper"]
    assert settings == store.plain_json({"profile": paper.to_dict(), "root_seed": str(framework.DEFAULT_ROOT_SEED)})
    prov = json.loads((data_dir() / "results" / "paper" / "provenance.json").read_text())
    assert prov["regenerate"].startswith("python -m prunelab run paper --profile paper")
    assert prov["profile"] == settings["profile"] and prov["rows"]["runs"] == 33 * paper.n_runs


def test_cli_run_paper_prints_the_wall_time(tmp_path, capsys):
    args = ["run", "paper", "--profile", "smoke", "--cases", "deterministic_pair.metropolis", "--jobs", "1",
            "--out", str(tmp_path), "--no-progress"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "wall time" in text and "4 runs done" in text
    prov = json.loads((tmp_path / "provenance.json").read_text())
    assert prov["command"].startswith("python -m prunelab run paper --profile smoke")
    assert prov["n_done"] == 4 and prov["profile"]["cases"] == ["deterministic_pair.metropolis"]


def test_paper_only_options_are_refused_for_another_experiment(tmp_path, capsys):
    assert main(["run", "mcsat", "--profile", "smoke", "--cases", "x", "--out", str(tmp_path)]) == 1
    assert "--cases is an option of 'run paper', not of 'run mcsat'" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


# ----------------------------------------------------------------------------- bad arguments, traps, signals


def test_a_bad_seed_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "sweep"
    with pytest.raises(SystemExit):
        main(["run", "paper", "--profile", "smoke", "--cases", "deterministic_pair.prune", "--seed", "-1",
              "--jobs", "1", "--out", str(out), "--no-progress"])
    assert "must be >= 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "paper", "--profile", "smoke", "--jobs", "0", "--out", str(out)])
    for bad, error in ((-1, ValueError), (np.random.default_rng(1), TypeError), (1.5, TypeError)):
        with pytest.raises(error, match="root_seed"):
            sweep(PAPER, TINY.only(["deterministic_pair.prune"]), out=out, root_seed=bad)
    assert not out.exists()


def test_a_folder_without_finished_runs_is_never_locked(tmp_path):
    # settings recorded by a sweep that died before its first run (e.g. an old crash)
    store.write_json_atomic({"root_seed": "999", "profile": {"name": "old"}}, tmp_path / "sweep.json")
    one = TINY.only(["deterministic_pair.prune"])
    report = sweep(PAPER, one, out=tmp_path)
    assert report["n_done"] == TINY.n_runs
    assert json.loads((tmp_path / "sweep.json").read_text())["root_seed"] == str(report["root_seed"])
    # once runs exist the folder is locked as before
    with pytest.raises(SweepMismatchError, match="root_seed"):
        sweep(PAPER, one, out=tmp_path, root_seed=1)


def test_trapped_runs_are_recorded_and_the_stored_mark_shown_in_the_tables(reference, capsys):
    out, _ = reference
    raw = records(out).set_index("case")
    assert {tuple(s) for s in raw.loc["deterministic_pair.gibbs", "stuck"]} == {("A", "B")}
    assert all(len(s) == 0 for s in raw.loc["deterministic_pair.prune", "stuck"])
    summary = pd.read_parquet(out / "summary.parquet").set_index("case")
    assert summary.loc["deterministic_pair.gibbs", "query_stuck_runs"] == TINY.n_runs
    marks = summary["mark"].to_dict()
    assert marks["deterministic_pair.gibbs"] == "†"
    assert "stuck in" in summary.loc["deterministic_pair.gibbs", "mark_reason"]
    assert marks["deterministic_pair.prune"] == ""
    assert all(summary.loc[c, "mark"] == mixing_verdict(summary.loc[c]).mark for c in summary.index)
    # Tables 2-3: our alpha and time carry the case's stored mark, the others do not
    assert main(["tables", "--profile", "smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    for label, case in (("Asia_ev0", "asia_ev0.gibbs"), ("Grid 3x3", "grid-3x3.prune")):
        alpha, mark = summary.loc[case, "alpha"], summary.loc[case, "mark"]
        line = next(line for line in text.splitlines() if line.startswith(label))
        assert f"{alpha:.2f} {mark}".strip() in line
        assert mark != "" or not any(f"{alpha:.2f} {m}" in line for m in MARKS)
        assert (mark == "") or f"{mark} {MARKS[mark]}" in text


def test_an_installed_wheel_writes_results_to_the_user_data_folder(monkeypatch, tmp_path):
    shipped = Path(prunelab.__file__).resolve().parent / "_data"
    monkeypatch.setattr(framework, "data_dir", lambda: shipped)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert framework.results_dir("paper-smoke") == tmp_path / "prunelab" / "results" / "paper-smoke"
    monkeypatch.setattr(framework, "data_dir", lambda: tmp_path / "checkout-data")
    assert framework.results_dir("paper-smoke") == tmp_path / "checkout-data" / "results" / "paper-smoke"


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return [sys.executable, "-m", "prunelab", *args], env


def test_cases_into_a_closed_pipe_ends_quietly():
    read, write = os.pipe()
    os.close(read)  # like `| head -1` that has already gone
    cmd, env = _cli("cases")
    try:
        done = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, env=env, timeout=600)  # generous: a start-up on a loaded machine, never a race
    finally:
        os.close(write)
    assert done.stderr == b""
    assert done.returncode == 1


def _gated_cli(gate, *args):
    """A CLI sweep whose runs after the first wait for ``gate`` (see tests/gated_sweep.py)."""
    cmd, env = _cli(*args)
    code = "import sys; from tests.gated_sweep import run_cli; sys.exit(run_cli(sys.argv[1:]))"
    return [cmd[0], "-c", code, *args], dict(env, PRUNELAB_TEST_GATE=str(gate))


def _wait_for(condition, what, limit=600.0):
    """Poll ``condition()`` until it holds; fail after a generous ``limit`` (never a race: the other side waits)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {limit:.0f} s")
        time.sleep(0.1)


@pytest.mark.skipif(usable_cores() < 2, reason="needs 2 usable cores: on one, --jobs 2 runs in this process "
                    "and no worker starts to be held")
def test_ctrl_c_prints_one_line_and_the_sweep_resumes(tmp_path):
    # every run but the first waits for a gate that never opens: the sweep cannot end before the signal; and the
    # first worker to start is held inside Python's start-up, so Ctrl-C comes while a worker is provably starting
    # (the moment that once printed its KeyboardInterrupt traceback under load)
    out_dir, hold = tmp_path / "out", tmp_path / "hold"
    cmd, env = _gated_cli(tmp_path / "gate", "run", "paper", "--profile", "smoke", "--cases",
                          "deterministic_pair.prune", "--jobs", "2", "--out", str(out_dir), "--no-progress")
    held_env = dict(env, PYTHONPATH=os.pathsep.join([str(hold_site(hold)), env["PYTHONPATH"]]), **{HOLD_ENV: str(hold)})
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=held_env, start_new_session=True)
    try:
        _wait_for(lambda: ((hold / "held").exists() and list((out_dir / "runs").glob("run/*.json")))
                  or proc.poll() is not None, "a held worker and the first run file")
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
        (hold / "release").touch()  # a held worker that survived the signal goes on starting, and is stopped
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if line.strip()]
    ours = [line for line in lines if line.startswith("interrupted: ")]
    assert len(ours) == 1 and "run the same command again to resume" in ours[0]
    assert len(lines) == 1, text  # the workers are shut down cleanly: no leaked-semaphore note either
    kept = int(ours[0].split()[1])
    assert kept == len(list((out_dir / "runs").glob("run/*.json"))) == 1
    assert not list((out_dir / "runs").glob("*/.*.tmp"))
    # the same command, ungated, resumes: the three missing runs are made and the first is kept
    (tmp_path / "gate").touch()
    done = subprocess.run(cmd, capture_output=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    assert "3 runs done, 1 already on disk" in done.stdout.decode()


# ---- the `run` experiments' records: one file per run id, each with its settings ----

@dataclasses.dataclass(frozen=True)
class _ToyProfile:
    name: str = "toy"
    n_runs: int = 3

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class _ToyRun:
    id: str
    kind: str = "toy"


class _Toy:
    """An experiment of a few instant runs: a record is the run's id and one number from its seed."""

    name = "toy"
    profiles = {"toy": _ToyProfile()}
    tables = {"toy": "toys"}
    libraries = ()

    def plan(self, profile):
        return tuple(_ToyRun(f"toy.r{k}") for k in range(profile.n_runs))

    def run(self, run, profile, root_seed):
        return {"id": run.id, "value": int(run_seed_sequence(run.id, root_seed).generate_state(1)[0])}


def test_a_copied_record_is_refused_by_name_not_counted_twice(tmp_path):
    sweep(_Toy(), "toy", out=tmp_path)
    first = tmp_path / "runs" / "toy" / "toy.r0.json"
    copy = tmp_path / "runs" / "toy" / "copy of record.json"
    copy.write_text(first.read_text())
    with pytest.raises(store.ResultsFileError, match=r"copy of record.json holds run 'toy.r0', which belongs in "
                                                     r".*toy.r0.json: a copy or a stray; delete it"):
        sweep(_Toy(), "toy", out=tmp_path)
    with pytest.raises(store.ResultsFileError, match=r"copy of record.json holds run 'toy.r0'"):
        consolidate(_Toy(), tmp_path)
    copy.unlink()
    assert len(consolidate(_Toy(), tmp_path)["toys"]) == 3


def test_a_record_without_settings_is_refused_by_name(tmp_path):
    sweep(_Toy(), "toy", out=tmp_path)
    record = tmp_path / "runs" / "toy" / "toy.r1.json"
    made = json.loads(record.read_text())
    made.pop("settings")
    record.write_text(json.dumps(made))
    for other in ("sweep.json", "runs/toy/toy.r0.json", "runs/toy/toy.r2.json"):  # only that record is left
        (tmp_path / other).unlink()
    with pytest.raises(store.ResultsFileError, match=r"toy.r1.json has no settings .* cannot be checked against "
                                                     r"this sweep's; deleting it is safe"):
        sweep(_Toy(), "toy", out=tmp_path, root_seed=5)
