"""The peer comparison as an experiment (:mod:`prunelab.lab.experiments.peers`) and a missing pyAgrum.

A tiny profile is swept through the framework (records, tables, provenance, resume);
the ratios are computed by the reader from the stored rows; bad names are refused
before anything runs; the frozen results have a row for every run of the ``paper``
plan. The chapter runs the experiment from a plain install, where the optional
pyAgrum may be absent: a pyAgrum run must then come back as ``"not installed"`` (a
row of the table), never as an exception.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pandas as pd
import pytest


from prunelab.lab import peers
from prunelab.lab.experiments import PROVENANCE_KEYS, load_folder, results, sweep
from prunelab.lab.experiments.framework import record_path, run_seed_sequence
from prunelab.lab.experiments.peers import (
    COLUMNS,
    EVIDENCE_NETWORKS,
    PEERS,
    PEERS_PROFILES,
    RATIO_COLUMNS,
    PeersProfile,
    PeersRun,
    add_ratios,
    comparison_table,
    load_case,
)
from tests.helpers import ahd_tolerance

BUDGET = 0.02
"""Seconds per run: enough for thousands of prunelab sweeps on the toy networks."""

TINY = PeersProfile("tiny", ("deterministic_pair", "blood_pressure"), (BUDGET,),
                    ("pgmpy-gibbs", "prunelab-gibbs", "prunelab-prune"), ("pyagrum-default", "pgmpy-random-start"))


@pytest.fixture
def no_pyagrum(monkeypatch):
    """pyAgrum not importable, as in an install without ``prunelab[peers]``."""
    monkeypatch.setitem(sys.modules, "pyagrum", None)  # `import pyagrum` now raises ImportError


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny profile swept once into a folder: (folder, provenance)."""
    out = tmp_path_factory.mktemp("peers-tiny")
    return out, sweep(PEERS, TINY, out=out, root_seed=11, command="test")


# --------------------------------------------------------------------------- cases
def test_load_case_with_and_without_evidence():
    bn, evidence, label = load_case("asia")
    assert bn.name == "asia" and evidence is None and label == "none"
    bn, evidence, label = load_case("asia+ev")
    assert bn.name == "asia" and label == "25%" and evidence and set(evidence) <= set(bn.variables)
    assert set(EVIDENCE_NETWORKS) == {"asia", "alarm", "win95pts"}


@pytest.mark.parametrize(("case", "match"), [("asia+foo", "unknown case"), ("grid-3x3+ev", "no frozen evidence")])
def test_load_case_rejects_bad_names(case, match):
    with pytest.raises(ValueError, match=match):
        load_case(case)


# --------------------------------------------------------------------------- the plan
def test_plan_has_one_run_per_case_budget_sampler_then_the_checks():
    runs = PEERS.plan(TINY)
    comparison = [r for r in runs if r.kind == "comparison"]
    assert [(r.case, r.sampler) for r in comparison] == [(c, s) for c in TINY.cases for s in TINY.samplers]
    checks = [(r.check, r.case) for r in runs if r.kind == "check"]
    assert checks == [("pyagrum-default", "deterministic_pair"), ("pyagrum-default", "block_chain"),
                      ("pyagrum-default", "blood_pressure"), ("pgmpy-random-start", "deterministic_pair"),
                      ("pgmpy-random-start", "blood_pressure")]  # a case named twice is run once
    assert len({r.id for r in runs}) == len(runs)
    paper = PEERS.plan(PEERS_PROFILES["paper"])
    assert sum(r.kind == "comparison" for r in paper) == 9 * 2 * 8
    assert sum(r.kind == "check" for r in paper) == 11 + 9 + 9 + 4


@pytest.mark.parametrize(("change", "match"), [
    ({"samplers": ("prunelab-gibbs", "no-such-sampler")}, "unknown sampler"),
    ({"cases": ("alarm", "alarm+x")}, "unknown case"),
    ({"checks": ("pgmpy-random-start", "no-such-check")}, "unknown check"),
    ({"budgets": (1.0, math.inf)}, "positive, finite"),
    ({"budgets": (0.0,)}, "positive, finite"),
    ({"cases": ()}, "at least one case"),
])
def test_plan_refuses_bad_names_before_running(change, match, monkeypatch, tmp_path):
    def no_run(*args, **kwargs):
        raise AssertionError("a sampler ran before the profile was checked")

    monkeypatch.setattr(peers, "run_sampler", no_run)
    bad = PeersProfile(**{**TINY.to_dict(), **change})
    with pytest.raises(ValueError, match=match):
        sweep(PEERS, bad, out=tmp_path)
    assert not (tmp_path / "runs").exists()


# --------------------------------------------------------------------------- a tiny sweep
def test_tiny_sweep_writes_rows_checks_and_provenance(tiny):
    out, provenance = tiny
    assert tuple(provenance) == PROVENANCE_KEYS and provenance["experiment"] == "peers"
    assert provenance["missing"] == [] and provenance["n_done"] == len(PEERS.plan(TINY))
    assert provenance["rows"] == {"comparison": 6, "checks": 5}
    assert {"pyAgrum", "pymc", "pytensor"} <= set(provenance["libraries"])
    tables = load_folder(out)
    stored = tables["comparison"]
    assert not set(RATIO_COLUMNS) & set(stored.columns)  # the ratios are the reader's
    ids = [r.id for r in PEERS.plan(TINY)]
    assert set(stored["id"]) | set(tables["checks"]["id"]) == set(ids)
    # each run's seed comes from its id and the root seed
    assert [int(s) for s in stored["seed"]] == [int(run_seed_sequence(i, 11).generate_state(1)[0])
                                                 for i in stored["id"]]
    checks = tables["checks"].set_index("id")
    agrum = checks.loc[PeersRun("check", "deterministic_pair", check="pyagrum-default").id]
    assert agrum["check"] == "pyagrum default stopping rule"
    if peers.pyagrum_available():
        assert agrum["result"].startswith("stopped after") and 0.0 <= agrum["value"] <= 1.0
    else:
        assert agrum["result"] == "not installed"


def test_reader_orders_rows_and_computes_the_ratios(tiny):
    table = comparison_table(load_folder(tiny[0]))
    assert list(table.columns) == COLUMNS
    assert list(table["case"]) == ["deterministic_pair"] * 3 + ["blood_pressure"] * 3
    assert list(table["sampler"]) == list(TINY.samplers) * 2
    assert (table["status"] == "ok").all() and (table["budget_s"] == BUDGET).all()
    assert list(table["counterpart"]) == [peers.counterpart(s) for s in TINY.samplers] * 2
    for _, part in table.groupby("case"):
        rows = part.set_index("sampler")
        gibbs, pgmpy, prune = rows.loc["prunelab-gibbs"], rows.loc["pgmpy-gibbs"], rows.loc["prunelab-prune"]
        assert gibbs["speed_ratio"] == 1.0 and gibbs["ahd_ratio"] == 1.0
        assert pgmpy["counterpart_steps_per_s"] == gibbs["steps_per_s"]
        assert pgmpy["speed_ratio"] == pytest.approx(gibbs["steps_per_s"] / pgmpy["steps_per_s"], rel=1e-12)
        assert pgmpy["ahd_ratio"] == pytest.approx(pgmpy["ahd"] / gibbs["ahd"], rel=1e-12)
        assert (part["prune_ahd"] == prune["ahd"]).all()
    pair = table[table["case"] == "deterministic_pair"].set_index("sampler")
    assert bool(pair["deterministic"].iloc[0]) and pair.loc["prunelab-gibbs", "ahd"] > 0.5  # Gibbs is trapped
    # prune sampling is not trapped: its AHD is within what the run's length allows (see ahd_tolerance)
    assert pair.loc["prunelab-prune", "ahd"] < ahd_tolerance(pair.loc["prunelab-prune", "n_steps"])
    assert pair["n_free"].iloc[0] == 2 and pair["log2_states"].iloc[0] == 2.0  # 2 binary variables


def test_resumed_sweep_runs_only_the_missing_run(tiny, tmp_path):
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(tiny[0], out)
    gone = PeersRun("comparison", "blood_pressure", BUDGET, "prunelab-prune").id
    record_path(out, gone).unlink()
    again = sweep(PEERS, TINY, out=out, root_seed=11, command="test")
    assert again["n_done"] == 1 and again["n_skipped"] == len(PEERS.plan(TINY)) - 1
    assert again["previous_sessions"][-1]["command"] == "test"
    before = load_folder(tiny[0])["comparison"].set_index("id")
    after = load_folder(out)["comparison"].set_index("id")
    kept = before.index.drop(gone)
    pd.testing.assert_frame_equal(after.loc[kept], before.loc[kept])


def test_add_ratios_pairs_rows_of_the_same_case_and_budget():
    rows = []
    for budget, scale in ((1.0, 1.0), (10.0, 3.0)):
        for sampler, rate, ahd in (("pyagrum-gibbs", 100.0, 0.2), ("prunelab-gibbs", 5000.0, 0.1),
                                   ("prunelab-prune", 800.0, 0.01)):
            rows.append({c: math.nan for c in COLUMNS} | {
                "case": "asia", "budget_s": budget, "sampler": sampler,
                "counterpart": peers.counterpart(sampler), "steps_per_s": rate * scale, "ahd": ahd / scale,
            })
    rows.append({c: math.nan for c in COLUMNS} | {  # a peer whose counterpart is not in the table
        "case": "asia", "budget_s": 1.0, "sampler": "pymc-metropolis", "counterpart": "prunelab-metropolis",
        "steps_per_s": 10.0, "ahd": 0.3})
    table = add_ratios(pd.DataFrame(rows)).set_index(["budget_s", "sampler"])
    for budget in (1.0, 10.0):
        agrum = table.loc[(budget, "pyagrum-gibbs")]
        assert agrum["speed_ratio"] == pytest.approx(50.0) and agrum["ahd_ratio"] == pytest.approx(2.0)
        assert agrum["prune_ahd"] == pytest.approx(0.01 / (1.0 if budget == 1.0 else 3.0))
    metropolis = table.loc[(1.0, "pymc-metropolis")]
    assert np.isnan(metropolis["speed_ratio"]) and np.isnan(metropolis["ahd_ratio"])
    assert metropolis["prune_ahd"] == pytest.approx(0.01)


# --------------------------------------------------------------------------- the frozen results
def test_frozen_results_hold_every_run_of_the_paper_plan():
    frozen = results(PEERS, "paper")
    provenance = frozen["provenance"]
    assert set(provenance) == set(PROVENANCE_KEYS) and provenance["missing"] == []
    assert provenance["profile"] == json.loads(json.dumps(PEERS_PROFILES["paper"].to_dict()))
    planned = {r.id for r in PEERS.plan(PEERS_PROFILES["paper"])}
    assert set(frozen["comparison"]["id"]) | set(frozen["checks"]["id"]) == planned
    assert provenance["rows"] == {"comparison": len(frozen["comparison"]), "checks": len(frozen["checks"])}
    table = comparison_table(frozen)
    gibbs = table[(table["sampler"] == "prunelab-gibbs") & (table["status"] == "ok")]
    assert len(gibbs) and (gibbs["speed_ratio"] == 1.0).all()


# --------------------------------------------------------------------------- without pyAgrum
def test_pyagrum_missing_is_reported_not_raised(no_pyagrum):
    assert peers.pyagrum_available() is False
    bn, _, _ = load_case("deterministic_pair")
    for run in (peers.run_pyagrum_gibbs(bn, n_steps=100, seed=1), peers.pyagrum_default_gibbs(bn, seed=1)):
        assert run.status == "not installed" and "prunelab[peers]" in run.note
        assert run.marginals is None and math.isnan(run.steps_per_second)
    with pytest.raises(ImportError, match=r"prunelab\[peers\]"):
        peers.to_pyagrum(bn)


def test_comparison_without_pyagrum_keeps_a_row(no_pyagrum):
    record = PEERS.run(PeersRun("comparison", "deterministic_pair", BUDGET, "pyagrum-gibbs"), TINY, 2)
    assert record["status"] == "not installed" and "prunelab[peers]" in record["note"]
    assert np.isnan(record["steps_per_s"]) and np.isnan(record["ahd"])
    check = PEERS.run(PeersRun("check", "deterministic_pair", check="pyagrum-default"), TINY, 2)
    assert check["result"] == "not installed" and "prunelab[peers]" in check["detail"]


def test_pyagrum_available_when_installed():
    pytest.importorskip("pyagrum")
    assert peers.pyagrum_available() is True
