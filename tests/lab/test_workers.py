"""Workers: never more than the tasks and the cores, and none left behind when the parent is terminated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from prunelab import load_network, sample, workers
from prunelab.lab.experiments import LARGE, PAPER, Profile, SweepInterrupted, sweep
from prunelab.lab.experiments.large import LargeProfile

ROOT = Path(__file__).resolve().parents[2]


def test_worker_count_is_capped_at_the_tasks_and_the_cores(monkeypatch):
    monkeypatch.setattr(workers, "usable_cores", lambda: 8)
    with pytest.warns(UserWarning, match=r"n_jobs=100000 lowered to 4 workers: 4 runs on 8 usable cores"):
        assert workers.worker_count(100_000, 4, "runs") == 4
    with pytest.warns(UserWarning, match=r"n_jobs=40 lowered to 8 workers: 1000 runs on 8 usable cores"):
        assert workers.worker_count(40, 1000, "runs") == 8
    # -1 (all cores) and numbers that need no lowering are taken silently
    assert workers.worker_count(-1, 3) == 3 and workers.worker_count(-1, 100) == 8
    assert workers.worker_count(-2, 100) == 7 and workers.worker_count(-20, 100) == 1
    assert workers.worker_count(8, 8) == 8 and workers.worker_count(1, 100) == 1


def test_sample_starts_no_more_workers_than_chains(monkeypatch):
    bn = load_network("blood_pressure")
    with pytest.warns(UserWarning, match=r"n_jobs=32 lowered to [12] workers?: 2 chains"):
        many = sample(bn, "gibbs", 200, n_chains=2, n_jobs=32, seed=4, traps="record")
    one = sample(bn, "gibbs", 200, n_chains=2, n_jobs=1, seed=4, traps="record")
    np.testing.assert_array_equal(many.draws, one.draws)


def test_paper_and_large_start_no_more_workers_than_runs(tmp_path):
    tiny = Profile("tiny", n_runs=3, n_draws=100, n_checkpoints=5, cases=("deterministic_pair.prune",))
    with pytest.warns(UserWarning, match=r"n_jobs=100000 lowered to [123] workers?: 3 runs to do"):
        report = sweep(PAPER, tiny, n_jobs=100_000, out=tmp_path / "a")
    assert report["n_done"] == 3 and report["n_workers"] <= 3
    large = LargeProfile("tiny", networks=("cancer",), budgets=(0.05,), samplers=("prunelab-prune",),
                         check_seconds=0.05, check_max_steps=500, grid_sides=(3,), grid_determinism=(0.5,))
    with pytest.warns(UserWarning, match=r"n_jobs=50 lowered to [12] workers?: 2 runs to do"):
        report = sweep(LARGE, large, out=tmp_path / "b", kinds=["network"], n_jobs=50)
    assert report["n_done"] == 2 and report["n_workers"] <= 2


def _children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    kids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.add(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(condition, what, limit=600.0):
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {limit:.0f} s")
        time.sleep(0.1)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.skipif(workers.usable_cores() < 2, reason="on one usable core --jobs 2 starts no worker")
def test_sigterm_ends_the_sweep_and_its_workers(tmp_path):
    out = tmp_path / "out"
    code = "import sys; from tests.gated_sweep import run_cli; sys.exit(run_cli(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PRUNELAB_TEST_GATE=str(tmp_path / "gate"))
    cmd = [sys.executable, "-c", code, "run", "paper", "--profile", "smoke", "--cases",
           "deterministic_pair.prune", "--jobs", "2", "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        # run 0 is written; run 1 is held at the gate in a worker, so a worker is busy when the signal comes
        _wait_for(lambda: list(out.glob("runs/run/*.json")) or proc.poll() is not None, "the first run file")
        family = _children(proc.pid)
        grandchildren = set().union(*(_children(p) for p in family)) if family else set()
        family |= grandchildren
        assert family, "no worker processes"
        os.kill(proc.pid, signal.SIGTERM)  # the parent only, as `kill PID` or a scheduler does
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 143, err.decode()
        text = err.decode()
        assert "Traceback" not in text and "terminated: 1 runs kept" in text, text
        _wait_for(lambda: not any(_alive(p) for p in family), "the end of every worker", limit=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for p in _children(proc.pid):
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_sigterm_handler_of_the_caller_is_left_alone():
    def mine(signum, frame):
        raise SystemExit(99)

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with workers.sigterm_as_interrupt():
            assert signal.getsignal(signal.SIGTERM) is mine
        with pytest.raises(SystemExit):
            os.kill(os.getpid(), signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, previous)
    with workers.sigterm_as_interrupt(), pytest.raises(workers.Terminated):
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert issubclass(workers.Terminated, KeyboardInterrupt) and issubclass(SweepInterrupted, KeyboardInterrupt)
