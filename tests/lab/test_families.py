"""The families experiment: the literature's deterministic benchmarks read from their own files and answered exactly."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from prunelab import read_network
from prunelab.lab.experiments import EXPERIMENTS, PROVENANCE_KEYS, load_folder, sweep
from prunelab.lab.experiments.answers import agreement
from prunelab.lab.experiments.families import (FAMILIES, FAMILIES_METHODS, FamiliesRun, Instance,
                                               benchmark_instances, benchmarks_dir, declared_nodes, load_instance)

SMOKE = FAMILIES.profiles["smoke"]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    out = tmp_path_factory.mktemp("families-smoke")
    report = sweep(FAMILIES, "smoke", out=out, command="test")
    return report, load_folder(out)


def test_every_published_row_is_an_instance_whose_files_are_in_the_repository():
    instances = benchmark_instances()
    published = [i for i in instances if i.published]
    assert len(published) == 283 and len(instances) == 298  # 15 DQMR networks have no published row
    folder = benchmarks_dir()
    for i in instances:
        assert (folder / i.network_file).is_file()
        assert not i.evidence_file or (folder / i.network_file).with_name(i.evidence_file).is_file()
    assert len({i.key for i in instances}) == len(instances)
    assert (folder / "LICENSE.source").read_text().startswith("MIT License")


def test_the_goal_is_the_last_node_the_file_declares_not_the_networks_last_variable():
    instance = next(i for i in benchmark_instances() if i.key == "blockmap_05_01-0000")
    path = benchmarks_dir() / instance.network_file
    bn = read_network(path)
    assert declared_nodes(path)[-1] == "connectedIB1pA3I" != bn.variables[-1]  # read_network orders its own way
    bn, evidence, goal, state, _ = load_instance(instance)
    assert evidence == {} and (goal, state) == ("connectedIB1pA3I", "true")


def test_a_file_whose_nodes_cannot_be_matched_is_refused(tmp_path):
    (tmp_path / "fam").mkdir()
    (tmp_path / "fam" / "pair.net").write_text('node a { states = ("f" "t"); }\n   node  b { states = ("f" "t"); }\n'
                                               '% node c\npotential (a) { data = (0.5 0.5); }\n'
                                               'potential (b | a) { data = ((1 0) (0 1)); }\n')
    assert declared_nodes(tmp_path / "fam" / "pair.net") == ["a", "b"]
    bn, evidence, goal, state, _ = load_instance(Instance("fam", "pair", "fam/pair.net", ""), folder=tmp_path)
    assert (goal, state) == ("b", "f")  # no state "true": the first state
    (tmp_path / "fam" / "pair.net").write_text('node a { states = ("f" "t"); label = "x\nnode c"; }\n'
                                               'potential (a) { data = (0.5 0.5); }\n')  # a label's line
    with pytest.raises(ValueError, match="pair.net: the nodes declared"):
        load_instance(Instance("fam", "pair", "fam/pair.net", ""), folder=tmp_path)


def test_agreement_names_the_side_of_a_disputed_row_and_compares_tiny_answers_on_log_p():
    row = ("P(e)", "2.64312e-06", "11", "12", "no", "0.59")
    assert agreement(math.log(2.643121e-06), row)["agreement"] == "reproduced"  # within the printed digits
    assert agreement(math.log(2.6432e-06), row)["agreement"] == "not reproduced"
    tiny = ("P(e)", "1.2345678e-320", "6", "12", "no", "1")  # under the floats' normal range: on log P
    log_tiny = math.log(1.2345678) - 320 * math.log(10)
    assert agreement(log_tiny + 1e-7, tiny)["agreement"] == "reproduced"
    assert agreement(log_tiny + 1e-5, tiny)["agreement"] == "not reproduced"
    assert agreement(-math.inf, tiny)["agreement"] == "not reproduced"
    zero = ("P(e)", "0", "7", "12", "yes", "0.59")
    assert agreement(-math.inf, zero)["agreement"] == "consensus"
    assert agreement(math.log(1e-13), zero)["agreement"] == "minority"
    assert agreement(math.nan, zero)["agreement"] == "" and agreement(0.0, ())["agreement"] == ""


def test_unknown_instances_are_refused_by_name_and_run_ids_are_unique():
    with pytest.raises(KeyError, match="unknown benchmark instance.*'or-1-1-1'"):
        FAMILIES.plan(replace(SMOKE, instances=("or-1-1-1",)))
    runs = FAMILIES.plan(FAMILIES.profiles["paper"])
    assert len({r.id for r in runs}) == len(runs) == 298 * (1 + len(FAMILIES_METHODS))
    assert FamiliesRun("exact", "fs-01", "auto").id == "exact.fs-01.auto" and EXPERIMENTS["families"] is FAMILIES


def test_smoke_reads_every_file_and_reproduces_every_published_answer(smoke):
    report, tables = smoke
    assert tuple(report) == PROVENANCE_KEYS and report["experiment"] == "families" and not report["missing"]
    read, exact = tables["instances"], tables["exact"]
    assert sorted(read["instance"]) == sorted(SMOKE.instances) and (read["read_status"] == "ok").all()
    assert set(read["query"]) == {"P(e)", "P(goal=v)"}
    answered = exact[exact["status"] == "answered"]
    assert set(answered["method"]) >= {"junction_tree", "counter", "auto"}
    for _, row in answered.iterrows():
        if row["disputed"] == "no":
            assert row["agreement"] == "reproduced", (row["instance"], row["method"], row["p"])
        else:  # every disputed row of the smoke profile: ours is the consensus
            assert row["agreement"] == "consensus", (row["instance"], row["method"], row["p"])
    # every exact method answers each small P(e) instance with one value
    small = answered[answered["instance"].isin(["fs-04", "or-50-5-1-40"]) & (answered["method"] != "pyagrum")]
    assert len(small) == 8 and small.groupby("instance")["log_p"].agg(lambda s: s.max() - s.min()).max() < 1e-9
    pyagrum = exact[exact["method"] == "pyagrum"].set_index("instance")
    assert pyagrum.loc["or-50-5-1-40", "status"] == "failed" and "dne" in pyagrum.loc["or-50-5-1-40", "message"]
    assert "/" not in pyagrum.loc["fs-01", "message"].split("data/benchmarks")[0]  # no machine path


def test_a_zero_second_cap_gives_a_refusal_record_for_every_method(tmp_path):
    zero = replace(SMOKE, name="zero", instances=("fs-01", "or-50-5-1-40"), cap_seconds=0.0, grace_seconds=60.0)
    sweep(FAMILIES, zero, out=tmp_path, command="test")
    exact = load_folder(tmp_path)["exact"]
    assert len(exact) == 2 * len(FAMILIES_METHODS) and exact["log_p"].isna().all()
    by_method = exact.groupby("method")
    assert set(by_method.get_group("circuit")["error"]) == {"CircuitTooLargeError"}
    assert set(by_method.get_group("counter")["error"]) == {"CountTooHardError"}
    assert (exact[exact["method"].isin(["circuit", "counter"])]["status"] == "refused").all()
    for method in ("junction_tree", "auto", "pyagrum"):  # no time cap of their own: the guard stops them
        assert set(by_method.get_group(method)["status"]) == {"timed out"}
        assert by_method.get_group(method)["message"].str.contains("cap of 0 s").all()
