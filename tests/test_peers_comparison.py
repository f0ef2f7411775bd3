"""The package-level comparison (:mod:`prunelab.lab.peers.comparison`) and a missing pyAgrum.

The book's chapter runs :func:`~prunelab.lab.peers.comparison.compare_peers` from a plain
install, where the optional pyAgrum may be absent: a pyAgrum run must then come back
as ``"not installed"`` (a row of the table), never as an exception.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
import pytest

from tests.test_large import ahd_tolerance

from prunelab.lab import peers
from prunelab.lab.peers.comparison import COLUMNS, EVIDENCE_NETWORKS, add_ratios, compare_peers, load_case

BUDGET = 0.02
"""Seconds per run: enough for thousands of prunelab sweeps on the toy networks."""


@pytest.fixture
def no_pyagrum(monkeypatch):
    """pyAgrum not importable, as in an install without ``prunelab[peers]``."""
    monkeypatch.setitem(sys.modules, "pyagrum", None)  # `import pyagrum` now raises ImportError


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


# --------------------------------------------------------------------------- the table
def test_compare_peers_rows_columns_and_ratios():
    samplers = ["pgmpy-gibbs", "prunelab-gibbs", "prunelab-prune"]
    lines = []
    table = compare_peers(["deterministic_pair", "blood_pressure"], [BUDGET], samplers, seed=3, log=lines.append)
    assert list(table.columns) == COLUMNS
    assert list(table["case"]) == ["deterministic_pair"] * 3 + ["blood_pressure"] * 3
    assert list(table["sampler"]) == samplers * 2
    assert len(lines) == 6 and all("AHD" in line for line in lines)
    assert (table["status"] == "ok").all() and (table["budget_s"] == BUDGET).all() and (table["seed"] == 3).all()
    assert list(table["counterpart"]) == [peers.counterpart(s) for s in samplers] * 2
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


def test_compare_peers_rejects_bad_names_before_running(monkeypatch):
    from prunelab.lab import peers

    def no_run(*args, **kwargs):
        raise AssertionError("a sampler ran before the arguments were checked")

    monkeypatch.setattr(peers, "run_sampler", no_run)
    with pytest.raises(ValueError, match="unknown sampler"):
        compare_peers(["alarm"], [10.0], ["prunelab-gibbs", "no-such-sampler"])
    with pytest.raises(ValueError, match="unknown case"):
        compare_peers(["alarm", "alarm+x"], [10.0], ["prunelab-gibbs"])
    with pytest.raises(ValueError, match="at least one"):
        compare_peers([], [10.0])


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


# --------------------------------------------------------------------------- without pyAgrum
def test_pyagrum_missing_is_reported_not_raised(no_pyagrum):
    assert peers.pyagrum_available() is False
    bn, _, _ = load_case("deterministic_pair")
    for run in (peers.run_pyagrum_gibbs(bn, n_steps=100, seed=1), peers.pyagrum_default_gibbs(bn, seed=1)):
        assert run.status == "not installed" and "prunelab[peers]" in run.note
        assert run.marginals is None and math.isnan(run.steps_per_second)
    with pytest.raises(ImportError, match=r"prunelab\[peers\]"):
        peers.to_pyagrum(bn)


def test_compare_peers_without_pyagrum_keeps_a_row(no_pyagrum):
    table = compare_peers(["deterministic_pair"], [BUDGET], ["pyagrum-gibbs", "prunelab-gibbs"], seed=2)
    rows = table.set_index("sampler")
    agrum = rows.loc["pyagrum-gibbs"]
    assert agrum["status"] == "not installed" and "prunelab[peers]" in agrum["note"]
    assert np.isnan(agrum["steps_per_s"]) and np.isnan(agrum["ahd"]) and np.isnan(agrum["speed_ratio"])
    assert rows.loc["prunelab-gibbs", "status"] == "ok" and rows.loc["prunelab-gibbs", "n_steps"] > 0


def test_pyagrum_available_when_installed():
    pytest.importorskip("pyagrum")
    assert peers.pyagrum_available() is True
