"""Prune sampling on large networks: frozen evidence, correctness at scale, the new peers, the experiment.

Chains on pathfinder and water with their frozen 25 % evidence are checked against
exact inference with the tolerance their ESS gives (the full table of every pgmpy
network is in the chapter "Prune sampling on large networks"). The experiment runs
here on the smoke profile's tiny networks only, so the file stays under a minute.
"""

from __future__ import annotations

from dataclasses import replace
import json

import numpy as np
import pytest

from prunelab import BayesianNetwork, exact_marginals, load_network, sample
from prunelab.__main__ import main
from prunelab.catalogue import data_dir
from prunelab.lab.experiments import LARGE, SweepMismatchError, large, load_folder, sweep
from prunelab.lab.experiments.large import (
    LARGE_PROFILES,
    LargeProfile,
    LargeRun,
    freeze_evidence,
    load_large,
    pgmpy_networks,
    plan_runs,
    simulate_large_run,
)
from prunelab.lab.experiments.large.measures import ess_check, longest_stay, off_figures
from prunelab.lab.peers import PEER_SAMPLERS, PYAGRUM_OTHER, run_pyagrum_other, run_sampler
from tests.helpers import ahd_tolerance


TINY = LargeProfile("tiny", networks=("cancer",), budgets=(0.05,), samplers=("prunelab-prune", "pyagrum-lbp"),
                    check_seconds=0.05, check_max_steps=2_000, mixing_chains=2, mixing_steps=300,
                    grid_sides=(3,), grid_determinism=(0.5,), grid_seconds=0.05)


def _rare_pair() -> BayesianNetwork:
    """``A`` is 1 with probability 1e-9 and ``B = A``; evidence ``B = 1`` forces ``A = 1``."""
    return BayesianNetwork(states={"A": ["0", "1"], "B": ["0", "1"]}, parents={"B": ["A"]},
                           cpts={"A": [1 - 1e-9, 1e-9], "B": [[1.0, 0.0], [0.0, 1.0]]}, name="rare_pair")


# ----------------------------------------------------------------------------- frozen evidence
def test_every_pgmpy_network_has_frozen_evidence_with_provenance():
    names = pgmpy_networks()
    assert {"cancer", "hailfinder", "link", "munin", "munin4", "pathfinder", "pigs", "barley"} <= set(names)
    for name in names:
        record = json.loads((data_dir() / "evidence" / f"{name}-25.json").read_text())
        assert {"command", "regenerate", "prunelab_version", "root_seed", "profile", "end_time", "evidence"} <= set(record)
        bn, evidence = load_large(name, True)
        assert len(evidence) == int(np.ceil(0.25 * bn.n_variables)), name


@pytest.mark.parametrize("name", ["cancer", "hailfinder", "pathfinder"])
def test_frozen_evidence_is_what_its_generator_gives(tmp_path, name):
    (written,) = freeze_evidence([name], folder=tmp_path)
    assert json.loads(written.read_text())["evidence"] == load_large(name, True)[1]
    assert freeze_evidence([name], folder=tmp_path) == []  # kept, not overwritten


# ----------------------------------------------------------------------------- correctness at scale
@pytest.mark.parametrize("name", ["pathfinder", "water"])
def test_prune_agrees_with_exact_within_its_ess(name):
    """Two chains with 25 % evidence: every free variable's most probable state within the
    Bonferroni bound of z = (p_hat - p) / sqrt(p (1 - p) / ESS)."""
    bn, evidence = load_large(name, True)
    exact = exact_marginals(bn, evidence)
    result = sample(bn, "prune", 4_000, n_chains=2, evidence=evidence, seed=13, traps="off")
    check = ess_check(result.draws.astype(np.int64), bn, exact)
    assert check["n_z_failed"] == 0, check
    assert 2.5 < check["z_bound"] < 4.5


def test_ess_check_flags_chains_stuck_in_the_wrong_state(rng):
    bn = load_network("deterministic_pair")
    exact = exact_marginals(bn)  # A and B uniform
    stuck = np.zeros((2, 500, 2), dtype=np.int64)  # both chains always at A = B = 0
    check = ess_check(stuck, bn, exact)
    assert check["n_z_failed"] == 2 and check["z_max"] == np.inf
    fair = rng.integers(0, 2, size=(2, 500, 1)).repeat(2, axis=2)
    assert ess_check(fair, bn, exact)["n_z_failed"] == 0


def test_longest_stay_and_off_figures():
    assert longest_stay(np.array([0, 0, 1, 1, 1, 0])) == 3
    assert longest_stay(np.array([2])) == 1
    exact = {"A": np.array([0.5, 0.5]), "B": np.array([0.9, 0.1])}
    figures = off_figures({"A": [0.5, 0.5], "B": [0.75, 0.25]}, exact)
    assert figures["n_off"] == 1 and figures["worst_variable"] == "B" and figures["n_free"] == 2
    assert figures["ahd"] == pytest.approx(figures["worst_hellinger"] / 2)


# ----------------------------------------------------------------------------- the new peers
def test_new_peers_are_registered():
    assert set(PYAGRUM_OTHER) <= set(PEER_SAMPLERS)
    with pytest.raises(ValueError, match="unknown pyAgrum sampler 'pyagrum-nope'"):
        run_pyagrum_other(load_network("asia"), None, "pyagrum-nope", n_steps=10)


def test_loopy_belief_propagation_is_exact_on_a_polytree():
    pytest.importorskip("pyagrum")
    bn, evidence = load_large("cancer", True)  # cancer is a polytree: loopy BP is exact
    run = run_sampler("pyagrum-lbp", bn, evidence, seconds=5.0, seed=1)
    assert run.status == "ok" and "epsilon" in run.note
    exact = exact_marginals(bn, evidence)
    for v in exact:
        np.testing.assert_allclose(run.marginals[v], exact[v], atol=1e-6)


@pytest.mark.parametrize("sampler", ["pyagrum-importance", "pyagrum-weighted"])
def test_importance_samplers_agree_with_exact(sampler):
    """20,000 weighted samples on asia with evidence: AHD well under 0.02 (about 0.003 expected)."""
    pytest.importorskip("pyagrum")
    bn = load_network("asia")
    evidence = {"xray": "yes", "smoke": "no"}
    run = run_sampler(sampler, bn, evidence, n_steps=20_000, seed=2)
    assert run.status == "ok" and run.n_steps == 20_000
    assert run.mean_hellinger(exact_marginals(bn, evidence)) < 0.02


def test_likelihood_weighting_that_never_meets_the_evidence_is_stopped():
    """pyAgrum redraws zero-weight samples past its time limit; the guard stops it and says why."""
    pytest.importorskip("pyagrum")
    run = large.run_peer_guarded("pyagrum-weighted", _rare_pair(), {"B": "1"}, 0.05, 1, timeout=4.0)
    assert run.status == "timed out" and "did not end" in run.note and run.marginals is None


def test_guarded_peer_gives_the_same_run_as_in_process():
    pytest.importorskip("pyagrum")
    bn, evidence = load_large("cancer", True)
    # the timeout only guards against a hang: a fresh interpreter importing pyAgrum on a loaded machine can take
    # longer than a minute, and the run would then come back "timed out"
    guarded = large.run_peer_guarded("pyagrum-weighted", bn, evidence, 0.05, 7, timeout=600.0)
    assert guarded.status == "ok" and set(guarded.marginals) == set(exact_marginals(bn, evidence))


# ----------------------------------------------------------------------------- the experiment
def test_runs_have_unique_ids_and_seeds_that_do_not_depend_on_the_plan():
    runs = plan_runs("paper")
    assert len({r.id for r in runs}) == len(runs)
    kinds = {r.kind for r in runs}
    assert kinds == {"network", "budget", "mixing", "grid"}
    assert sum(r.kind == "network" for r in runs) == 2 * len(pgmpy_networks())
    run = LargeRun("budget", "link", True, sampler="pyagrum-lbp", budget=10.0)
    assert run in runs
    assert (run.seed(5).generate_state(2) == LargeRun(**vars(run)).seed(5).generate_state(2)).all()
    assert (run.seed(5).generate_state(2) != run.seed(6).generate_state(2)).any()


def test_refusal_of_a_grid_too_wide_allocates_nothing_and_names_the_clique():
    import tracemalloc

    tracemalloc.start()
    try:  # treewidth, then two refusals before any table is allocated
        record = simulate_large_run(LargeRun("grid", "grid-26x26", False, side=26, determinism=0.5), "smoke")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 256 * 2**20, f"{peak / 2**20:.0f} MiB"
    assert "clique over" in record["exact_refused"] and "clique over" in record["setup_refused"]
    assert "steps" not in record and record["treewidth"] >= 26


def test_mixing_runs_give_the_same_numbers_in_a_worker(tmp_path):
    from joblib import Parallel, delayed

    run = LargeRun("mixing", "hailfinder", True, sampler="prune+gibbs")
    here = simulate_large_run(run, TINY, root_seed=3)
    (there,) = Parallel(n_jobs=2)(delayed(simulate_large_run)(r, TINY, 3) for r in [run])
    for key in ("estimate", "stay_probability", "longest_stay", "hellinger", "start_values"):
        assert here[key] == there[key] or (np.allclose(here[key], there[key], equal_nan=True)), key
    assert here["n_chains"] == 2 and here["steps_per_chain"] == 300


def test_sweep_writes_tables_resumes_and_refuses_other_settings(tmp_path):
    report = sweep(LARGE, TINY, out=tmp_path, kinds=["network", "budget", "grid"])
    assert report["n_done"] == 2 + 2 + 1 and report["n_skipped"] == 0
    results = load_folder(tmp_path)
    assert set(results) == {"networks", "budget", "grids", "provenance"}
    networks = results["networks"].set_index("id")
    assert networks.loc["network.cancer.ev25", "n_z_failed"] == 0
    assert networks.loc["network.cancer.ev25", "n_free"] == 3
    budget = results["budget"].set_index("sampler")
    assert (budget["status"] == "ok").all()
    # accuracy within what the run's own length allows (a budget in seconds gives fewer steps on a loaded machine)
    assert (budget["ahd"] < ahd_tolerance(budget["n_steps"])).all(), budget[["ahd", "n_steps"]]
    assert {"command", "git", "root_seed", "machine", "libraries", "regenerate"} <= set(report)
    again = sweep(LARGE, TINY, out=tmp_path, kinds=["network", "budget", "grid"])
    assert again["n_done"] == 0 and again["n_skipped"] == 5
    assert len(again["previous_sessions"]) == 1
    with pytest.raises(SweepMismatchError, match="other settings"):
        sweep(LARGE, TINY, out=tmp_path, root_seed=1)


def test_extend_adds_a_samplers_runs_and_keeps_the_others(tmp_path):
    first = replace(TINY, samplers=("prunelab-prune",))
    sweep(LARGE, first, out=tmp_path, kinds=["budget"])
    made = {p.name: p.read_bytes() for p in (tmp_path / "runs" / "budget").glob("*.json")}
    wider = replace(TINY, samplers=("prunelab-prune", "prunelab-prune-rb"))
    with pytest.raises(SweepMismatchError, match="--extend"):
        sweep(LARGE, wider, out=tmp_path, kinds=["budget"])
    report = sweep(LARGE, wider, out=tmp_path, kinds=["budget"], extend=True)
    assert report["n_done"] == 1 and report["n_skipped"] == 1 and report["missing"] == [
        r.id for r in LARGE.plan(wider) if r.kind != "budget"]
    assert all((tmp_path / "runs" / "budget" / name).read_bytes() == data for name, data in made.items())
    budget = load_folder(tmp_path)["budget"].set_index("sampler")
    assert sorted(budget.index) == ["prunelab-prune", "prunelab-prune-rb"]
    assert len(report["previous_sessions"]) == 1
    other = replace(TINY, samplers=("prunelab-prune-rb",), check_seconds=TINY.check_seconds + 1)
    with pytest.raises(SweepMismatchError, match="other settings"):  # drops a sampler and changes a setting
        sweep(LARGE, other, out=tmp_path, kinds=["budget"], extend=True)


def test_cli_runs_the_smoke_mixing_study(tmp_path, capsys):
    assert main(["run", "large", "--profile", "smoke", "--out", str(tmp_path), "--kinds", "mixing"]) == 0
    assert f"{len(large.MIXING_VARIANTS)} runs done" in capsys.readouterr().out
    mixing = load_folder(tmp_path)["mixing"].set_index("sampler")
    assert list(mixing.index) == sorted(large.MIXING_VARIANTS)
    assert (mixing["n_chains"] * mixing["steps_per_chain"]).nunique() == 1  # every variant draws as many
    assert (mixing.loc[["prune-restarts", "prune-exact-restarts"], "n_chains"] == 10 * LARGE_PROFILES["smoke"].mixing_chains).all()


def test_unknown_profile_is_refused():
    with pytest.raises(KeyError, match="unknown large profile 'huge'"):
        sweep(LARGE, "huge")
