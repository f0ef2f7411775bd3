"""The literature chapter's tables: kinds, reproduction counts, the exact methods' winners, the samplers' grid."""

from __future__ import annotations

import math
import time

import pandas as pd
import pytest

from prunelab import exact_marginals, load_network
from prunelab.planner import PLAN_RULES
from prunelab.lab.experiments.families import benchmark_instances
from prunelab.lab.experiments.guard import guarded
from prunelab.lab.experiments.literature import (KINDS, REACH_LABELS, exact_table, family_table, instance_times,
                                                 network_kind, refusal_kind,
                                                 sampler_grid, sampler_table)
from prunelab.lab.experiments.reach import REACH_SAMPLERS


def _run(instance, method, status, seconds, used="", agreement="", cap=600.0, cpu=None, network="or-50-5-1"):
    return {"instance": instance, "network": network, "family": "DQMR", "query": "P(e)", "method": method,
            "status": status, "seconds": seconds, "cpu_seconds": seconds if cpu is None else cpu,
            "cap_seconds": cap, "used": used or method, "agreement": agreement, "fastest_published_s": 1.0,
            "load_start": 2.0}


def test_every_development_network_has_a_kind_and_every_reach_sampler_a_label():
    kinds = {kind for _, kind in KINDS}
    assert {network_kind(i.network, i.family) for i in benchmark_instances()} == kinds
    assert network_kind("students_03", "2004-pgm") == "2004-pgm"  # an unknown prefix keeps its folder's name
    assert set(REACH_LABELS) == set(REACH_SAMPLERS)


def test_the_fastest_method_and_autos_margin_are_judged_on_wall_and_cpu_seconds():
    runs = [_run("a", "junction_tree", "answered", 10.0), _run("a", "counter", "answered", 1.0),
            _run("a", "circuit", "refused", 10.0, cap=10.0), _run("a", "auto", "answered", 3.4, used="counter"),
            _run("b", "junction_tree", "answered", 1.0), _run("b", "counter", "answered", 2.0),
            _run("b", "auto", "answered", 9.0, used="counter", cpu=1.0)]
    times = instance_times(pd.DataFrame(runs), pd.DataFrame({"instance": ["a"], "read_seconds": [0.5]}))
    a, b = times.set_index("instance").loc["a"], times.set_index("instance").loc["b"]
    assert (a["fastest"], a["fastest_s"], b["fastest"]) == ("counter", 1.0, "junction_tree")
    assert not a["auto_over"]  # 3.4 s <= 1.5 x 1 + 2 s: within the target's margin
    assert b["auto_over"] and not b["auto_over_cpu"]  # 9 s wall > 1.5 x 1 + 2, but 1 CPU second is not
    assert a["capped"] == "circuit" and not a["auto_undecidable"]  # (3.4 - 2) / 1.5 < the circuit's 10 s cap
    assert a["read_s"] == 0.5 and math.isnan(b["read_s"]) and a["pyagrum_status"] == "not run"
    row = exact_table(times).iloc[0]
    assert row["kind"] == "DQMR" and (row["fastest_counter"], row["fastest_junction_tree"]) == (1, 1)
    assert (row["answered_circuit"], row["auto_fastest"], row["auto_within"], row["auto_within_cpu"]) == (0, 1, 1, 2)
    assert row["fastest_s"] == 1.0 and row["published_s"] == 1.0


def test_an_answer_counts_as_reproduced_only_when_every_method_of_ours_agrees():
    keys = ["r", "split", "c", "m", "none", "fs"]
    read = pd.DataFrame({"instance": keys, "network": ["or-1"] * 5 + ["fs-01"],
                         "family": ["DQMR"] * 5 + ["2006-ijar"], "network_file": ["or-1.dne"] * 5 + ["fs-01.net"],
                         "evidence_file": ["r.inst", "s.inst", "c.inst", "m.inst", "", ""],
                         "read_status": ["ok"] * 5 + ["failed"], "n_variables": [100] * 5 + [10],
                         "query": ["P(e)"] * 4 + ["P(goal=v)"] * 2, "published_answer": ["0.5"] * 4 + ["0.1", ""],
                         "disputed": ["no", "no", "yes", "yes", "no", ""]})
    exact = pd.DataFrame([_run("r", "counter", "answered", 1, agreement="reproduced"),
                          _run("r", "junction_tree", "answered", 1, agreement="reproduced"),
                          _run("split", "counter", "answered", 1, agreement="reproduced"),
                          _run("split", "junction_tree", "answered", 1, agreement="not reproduced"),
                          _run("c", "counter", "answered", 1, agreement="consensus"),
                          _run("c", "circuit", "refused", 9),  # a refusal says nothing about the answer
                          _run("m", "counter", "answered", 1, agreement="minority"),
                          _run("m", "pyagrum", "answered", 1), _run("none", "counter", "timed out", 600)])
    table = family_table(read, exact).set_index("kind")
    dqmr, fs = table.loc["DQMR"], table.loc["friends and smokers"]
    assert list(table.index) == ["friends and smokers", "DQMR"]  # the order of KINDS
    assert (dqmr["undisputed"], dqmr["reproduced"], dqmr["disputed"], dqmr["consensus"], dqmr["minority"]) == (
        3, 1, 2, 1, 1)
    assert (dqmr["unanswered"], dqmr["pyagrum_run"], dqmr["pyagrum"], dqmr["p_e"], dqmr["p_goal"]) == (1, 1, 1, 4, 1)
    assert (dqmr["networks"], dqmr["files"], dqmr["files_read"]) == (1, 5, 5)  # one network file, four evidence
    assert (fs["files"], fs["files_read"], fs["undisputed"], fs["variables_max"]) == (1, 0, 0, 10)


def test_autos_rule_comes_from_its_record_and_the_guards_own_refusals_are_classified():
    asia = exact_marginals(load_network("asia"), {"dysp": "yes"})
    assert asia.plan.rule == "small tables" and asia.plan.rule in PLAN_RULES
    runs = [_run("i", m, "answered", s) for m, s in (("junction_tree", 0.2), ("circuit", 3.0), ("counter", 0.4))]
    runs.append(dict(_run("i", "auto", "answered", 0.3, used="junction_tree"), rule=asia.plan.rule,
                     reason=asia.plan.reason))
    row = instance_times(pd.DataFrame(runs), pd.DataFrame({"instance": ["i"], "read_seconds": [0.1]})).iloc[0]
    assert (row["auto_rule"], row["auto_reason"]) == ("small tables", asia.plan.reason)
    out = guarded(lambda: time.sleep(5), timeout=0, max_bytes=2**33)
    assert refusal_kind(f"{out['status']}: {out['error']}: {out['message']}") == "stopped at its cap"
    assert refusal_kind("failed: EvidenceError: no state with P(x, e) > 0 found for the evidence {a=1}") == (
        "no start state")
    assert refusal_kind("") == "" and refusal_kind("failed: ValueError: odd") == "other"


def _reach(budgets=(60.0,)):
    truth = pd.DataFrame([{"network": "n", "status": "ok", "variables": ["A", "B"],
                           "marginals": [[1.0, 0.0], [0.5, 0.5]]}])
    rows = []
    for budget in budgets:
        for sampler, status, estimates in (("gibbs-rb", "ok", [[1.0, 0.0], [0.5, 0.5]]),
                                           ("mc-sat", "refused", [])):
            rows.append({"id": f"budget.n.{sampler}.{budget:g}s", "network": "n", "sampler": sampler,
                         "budget": budget, "status": status, "n_steps": 10 * (status == "ok"), "n_chains": 2,
                         "reason": "" if status == "ok" else "refused: TablesTooLargeError: a clique of 30",
                         "variables": ["A", "B"], "estimates": estimates, "trap_judged": status == "ok",
                         "trap_split": ["B"] if budget > 60 else [], "trap_disagreeing": [], "never_moved": [],
                         "never_moved_states": []})
    return {"truth": truth, "budget": pd.DataFrame(rows)}


def test_the_sampler_grid_shows_the_uniform_guess_refusals_and_each_budget():
    table = sampler_table(_reach())
    gibbs = table.set_index("sampler").loc["gibbs-rb"]
    # the uniform guess: H((1/2, 1/2), (1, 0)) = sqrt(1 - sqrt(1/2)) on A, 0 on B
    assert gibbs["uniform_ahd"] == pytest.approx(math.sqrt(1 - math.sqrt(0.5)) / 2, abs=1e-12)
    assert gibbs["ahd"] == 0.0 and gibbs["best"] == 0.0 and not gibbs["trapped"]
    assert table.set_index("sampler").loc["mc-sat", "refusal"] == "tables too large"
    grid = sampler_grid(table)
    assert grid["n"].tolist() == ["0.000", "tables too large", f"{gibbs['uniform_ahd']:.3f}"]
    grid = sampler_grid(sampler_table(_reach((600.0, 60.0))))
    assert list(grid.index) == ["Gibbs (Rao–Blackwell), 60 s", "MC-SAT, exact steps, 60 s",
                                "Gibbs (Rao–Blackwell), 600 s", "MC-SAT, exact steps, 600 s", "uniform guess"]
    assert grid.loc["Gibbs (Rao–Blackwell), 600 s", "n"] == "0.000, trapped"  # B split at 600 s

