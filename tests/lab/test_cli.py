"""The command line as a user meets it: one clear line for their mistakes, public names, extras that are missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from prunelab import load_network
from prunelab.__main__ import EXPERIMENT_LINES, main
from prunelab.catalogue import data_dir
from prunelab.lab import experiments, peers
from prunelab.lab.experiments import EXPERIMENTS, PROVENANCE_KEYS, load_folder
from prunelab.lab.experiments.large import networks

ROOT = Path(__file__).resolve().parents[2]
SMOKE_ONE = ["paper", "--profile", "smoke", "--cases", "deterministic_pair.prune", "--no-progress"]


def _run(*args, prelude: str = "", **kwargs):
    """``python -m prunelab ARGS`` in a subprocess (after ``prelude``), with this checkout on the path."""
    code = f"import sys\n{prelude}\nfrom prunelab.__main__ import main\nsys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          timeout=600, **kwargs)


def test_a_user_error_is_one_line_without_a_traceback(tmp_path, capsys):
    assert main(["run", "paper", "--cases", "asai*", "--out", str(tmp_path / "a"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("python -m prunelab: error: case pattern 'asai*' matches nothing")
    assert main(["tables", "--profile", "quick", "--out", str(tmp_path / "none")]) == 1
    assert capsys.readouterr().err.startswith(f"python -m prunelab: error: no results in {tmp_path / 'none'}")


def test_a_lost_sweep_json_and_another_seed_are_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "smoke"
    assert main(["run", *SMOKE_ONE, "--jobs", "1", "--out", str(out)]) == 0
    provenance = (out / "provenance.json").read_text()
    (out / "sweep.json").unlink()
    capsys.readouterr()
    assert main(["run", *SMOKE_ONE, "--jobs", "1", "--out", str(out), "--seed", "5"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has other root_seed" in err[0] and "--seed" in err[0]
    assert (out / "provenance.json").read_text() == provenance
    # Tables: the label is the profile the results were made with, whatever --profile says
    assert main(["tables", "--profile", "paper", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("profile smoke: 4 runs x 500 draws")


@pytest.mark.parametrize(("args", "message"), [
    (["run", "paper", "--jobs", "x"], "argument --jobs: must be an integer, got 'x'"),
    (["run", "paper", "--seed", "1.5"], "argument --seed: must be an integer, got '1.5'"),
    (["run", "large", "--jobs", "two"], "argument --jobs: must be an integer, got 'two'"),
    (["run", "paper", "--out", ""], "argument --out: must name a folder, got an empty string"),
    (["run", "large", "--out", " "], "argument --out: must name a folder, got an empty string"),
    (["tables", "--out", ""], "argument --out: must name a folder, got an empty string"),
])
def test_argparse_names_the_public_option(args, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "_jobs" not in err and "_non_negative" not in err


def test_an_out_that_is_a_file_is_refused(tmp_path, capsys):
    file = tmp_path / "results.txt"
    file.write_text("mine")
    with pytest.raises(SystemExit):
        main(["run", *SMOKE_ONE, "--out", str(file)])
    assert f"{file} is a file, not a folder" in capsys.readouterr().err
    assert file.read_text() == "mine"


def test_freeze_evidence_writes_into_out(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(networks, "pgmpy_networks", lambda: ["cancer"])
    shipped = data_dir() / "evidence" / "cancer-25.json"
    before = shipped.read_text() if shipped.exists() else None
    assert main(["run", "large", "--freeze-evidence", "--out", str(tmp_path)]) == 0
    written = tmp_path / "cancer-25.json"
    assert capsys.readouterr().out.strip() == f"wrote {written}"
    assert json.loads(written.read_text())["root_seed"] == str(networks.evidence_seed("cancer"))
    assert (shipped.read_text() if shipped.exists() else None) == before


def test_jobs_beyond_the_runs_are_lowered_with_one_line(tmp_path):
    done = _run("run", *SMOKE_ONE, "--jobs", "100000", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("python -m prunelab: UserWarning: n_jobs=100000 lowered to")
    assert "4 runs to do" in lines[0]


def test_without_the_experiments_extra_help_works_and_commands_say_what_to_install():
    missing = "sys.modules['pandas'] = None  # as if the experiments extra were not installed"
    done = _run("--help", prelude=missing)
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "tables" in text and "pip install 'prunelab[experiments]'" in text
    done = _run("run", "paper", "--profile", "smoke", prelude=missing)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("python -m prunelab: error: run needs the experiments extra "
                                   "(pandas is not installed): pip install 'prunelab[experiments]'")


def test_without_pymc_a_peer_run_says_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymc", None)
    run = peers.run_sampler("pymc-cgm-uniform", load_network("blood_pressure"), n_steps=10, seed=0)
    assert run.status == "not installed" and "pip install 'prunelab[peers]'" in run.note
    assert "core" not in peers.__doc__.split("PyMC are optional")[0][-200:]
    assert "pyAgrum and PyMC are optional extras" in peers.__doc__


# ----------------------------------------------------------------------------- run peers
def test_run_peers_writes_the_checks_with_the_one_provenance(tmp_path, capsys):
    plan = EXPERIMENTS["peers"].plan(EXPERIMENTS["peers"].profiles["smoke"])
    checks = [r for r in plan if r.kind == "check"]
    out = tmp_path / "peers"
    assert main(["run", "peers", "--profile", "smoke", "--kinds", "check", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"peers smoke: {len(checks)} runs done, 0 already on disk")
    tables = load_folder(out)
    assert set(tables) == {"checks", "provenance"} and sorted(tables["checks"]["id"]) == sorted(r.id for r in checks)
    provenance = tables["provenance"]
    assert set(provenance) == set(PROVENANCE_KEYS)
    assert provenance["command"] == f"python -m prunelab run peers --profile smoke --kinds check --out {out}"
    assert provenance["missing"] == [r.id for r in plan if r.kind == "comparison"]  # not asked for


def test_run_peers_refuses_an_unknown_profile_in_one_line(tmp_path, capsys):
    assert main(["run", "peers", "--profile", "huge", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown peers profile 'huge'" in err[0]


# ----------------------------------------------------------------------------- version, help, progress
def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"prunelab {version('prunelab')}\n"
    done = _run("--version", prelude="sys.modules['pandas'] = None  # without the experiments extra")
    assert (done.returncode, done.stdout) == (0, f"prunelab {version('prunelab')}\n"), done.stderr


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["tables", "--help"]])
def test_help_is_plain_words_with_examples(args, capsys):
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for markup in ("``", ":func:", ":mod:", ":data:", "::"):
        assert markup not in text, f"reST markup {markup!r} in the help of {args}"
    if args == ["--help"]:
        assert "examples:\n  python -m prunelab run paper --profile smoke" in text
        assert "\n    reproduce" not in text and "\n    large" not in text  # one command runs every experiment
        assert "--version" in text
    if args == ["run", "--help"]:
        assert set(EXPERIMENT_LINES) == set(EXPERIMENTS)  # one line for each experiment, and no other
        for name, experiment in EXPERIMENTS.items():  # every experiment described, its profiles listed
            assert f"\n  {name:<10}{EXPERIMENT_LINES[name]}\n" in text
            assert f"{name}: {', '.join(sorted(experiment.profiles))}" in " ".join(text.split())
    if args[0] == "run":
        assert "--no-progress" in text


@pytest.mark.parametrize("flag", [[], ["--no-progress"]])
def test_run_passes_no_progress_to_the_sweep(flag, tmp_path, monkeypatch):
    seen = {}

    def sweep(experiment, profile, **kwargs):
        seen.update(kwargs)
        return {"n_done": 0, "n_skipped": 0, "sweep_seconds": 0.0}

    monkeypatch.setattr(experiments, "sweep", sweep)
    assert main(["run", "peers", "--profile", "smoke", "--out", str(tmp_path / "o"), *flag]) == 0
    assert seen["progress"] is (not flag)
