"""A sweep and exact counts on a 2-worker dask.distributed cluster: the serial numbers, the workers checked first."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from prunelab import load_network  # noqa: E402
from prunelab.lab.experiments import EXPERIMENTS, sweep  # noqa: E402
from prunelab.lab.experiments import cluster  # noqa: E402
from prunelab.lab.experiments.families import FamiliesProfile  # noqa: E402

# measured, not computed: wall and CPU seconds, memory, the load when a run started
MEASURED = re.compile(r"seconds|bytes|load")
# two small instances (one P(e), one P(goal = v)), the methods that answer them in a fraction of their 5 s cap
TINY = FamiliesProfile("cluster-test", instances=("fs-01", "or-50-5-1-40"),
                       methods=("junction_tree", "counter", "auto"), cap_seconds=5.0, grace_seconds=5.0)


@pytest.fixture(scope="module")
def local_cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as two_workers:  # any free port, never a busy 8787
        yield two_workers


def _records(out):
    records = {}
    for path in sorted((out / "runs").glob("*/*.json")):
        record = json.loads(path.read_text())
        records[record["id"]] = {k: v for k, v in record.items() if not MEASURED.search(k)}
    return records


def test_a_sweep_on_the_cluster_writes_the_serial_records_and_names_each_runs_host(local_cluster, tmp_path):
    pytest.importorskip("pyganak")
    serial = sweep(EXPERIMENTS["families"], TINY, out=tmp_path / "serial", command="serial")
    spread = sweep(EXPERIMENTS["families"], TINY, out=tmp_path / "cluster", command="cluster",
                   scheduler=local_cluster.scheduler_address)
    ours, theirs = _records(tmp_path / "serial"), _records(tmp_path / "cluster")
    assert len(ours) == 2 + 2 * 3 and ours == theirs
    assert {r["status"] for r in ours.values() if "status" in r} == {"answered"}
    assert spread["n_done"] == serial["n_done"] == 8 and spread["n_workers"] == 2
    workers = spread["machine"]["workers"]
    assert sorted(run for w in workers for run in w["runs"]) == sorted(ours)
    assert all(set(w) == {*cluster.HOST_KEYS, "runs"} for w in workers)
    assert "workers" not in serial["machine"]
    text = (tmp_path / "cluster" / "provenance.json").read_text()
    assert local_cluster.scheduler_address not in text and "tcp://" not in text and "inproc://" not in text
    # resumed on the cluster: nothing to do, nothing sent
    again = sweep(EXPERIMENTS["families"], TINY, out=tmp_path / "cluster", scheduler=local_cluster.scheduler_address)
    assert again["n_done"] == 0 and again["n_skipped"] == 8


def test_a_worker_with_other_code_or_libraries_or_that_cannot_fork_is_refused_by_host():
    ours = cluster.worker_environment(("pyganak",))
    assert cluster.environment_mismatch(ours, ours) is None
    host = {**ours["host"], "hostname": "node7"}
    older = {**ours, "prunelab": "0.0.1", "host": host}
    assert cluster.environment_mismatch(ours, older).startswith("the worker on node7 runs prunelab 0.0.1")
    edited = {**ours, "code": "0" * 40, "host": host}
    assert "runs code 0000" in cluster.environment_mismatch(ours, edited)
    numba = {**ours, "libraries": {**ours["libraries"], "numba": "0.59.0"}, "host": host}
    assert f"numba 0.59.0 (here {ours['libraries']['numba']})" in cluster.environment_mismatch(ours, numba)
    daemon = {**ours, "can_fork": False, "host": host}
    assert "DASK_DISTRIBUTED__WORKER__DAEMON=False" in cluster.environment_mismatch(ours, daemon)


def test_the_check_asks_the_real_workers(local_cluster):
    with distributed.Client(local_cluster.scheduler_address) as client:
        envs = cluster.check_workers(client)
    assert len(envs) == 2 and all(env["code"] == cluster.code_digest() for env in envs)


def test_counts_of_all_marginals_on_the_cluster_are_the_single_calls_digit_for_digit(local_cluster):
    pytest.importorskip("pyganak")
    from prunelab.circuit import count_inference
    from prunelab.compiled import compile_network

    bn = load_network("asia")
    evidence = {"dysp": "yes", "xray": "no"}
    net = compile_network(bn, evidence)
    free = [v for v in bn.variables if v not in evidence]
    log_p, post = count_inference(bn.variables, net, [bn.index(v) for v in free])
    log_q, spread = cluster.count_marginals(bn, evidence, local_cluster.scheduler_address, group_size=2)
    assert log_q == log_p and math.isfinite(log_p) and list(spread) == free
    assert all(np.array_equal(spread[v], post[v]) for v in free)


def test_counts_on_the_cluster_refuse_bad_input_before_any_task(local_cluster):
    bn = load_network("asia")
    with pytest.raises(ValueError, match="'dysp' is not a free variable"):
        cluster.count_marginals(bn, {"dysp": "yes"}, local_cluster.scheduler_address, variables=["dysp"])
    with pytest.raises(ValueError, match="group_size must be a positive integer, got 0"):
        cluster.count_marginals(bn, {}, local_cluster.scheduler_address, group_size=0)


def test_the_command_line_runs_on_the_scheduler_and_records_it_as_address(local_cluster, tmp_path, capsys):
    from prunelab.__main__ import main

    address = local_cluster.scheduler_address
    out = tmp_path / "families"
    assert main(["run", "families", "--profile", "smoke", "--kinds", "read", "--scheduler", address,
                 "--out", str(out), "--no-progress"]) == 0
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["n_done"] == 5 and provenance["n_workers"] == 2
    assert "--scheduler ADDRESS" in provenance["command"] and address not in json.dumps(provenance)
    assert sorted(run for w in provenance["machine"]["workers"] for run in w["runs"]) == sorted(_records(out))
    assert {r["read_status"] for r in _records(out).values()} == {"ok"}
    assert "5 runs done" in capsys.readouterr().out


def test_a_cluster_sweep_stopped_by_ctrl_c_keeps_its_records_and_resumes_to_the_serial_ones(local_cluster, tmp_path,
                                                                                           monkeypatch):
    pytest.importorskip("pyganak")
    from prunelab.lab.experiments import SweepInterrupted, framework

    write, calls = framework.store.write_json_atomic, []

    def stop_at_the_second_record(obj, path):
        calls.append(path)
        if len(calls) == 3:  # sweep.json, the first record, then Ctrl-C as the second arrives
            raise KeyboardInterrupt
        return write(obj, path)

    monkeypatch.setattr(framework.store, "write_json_atomic", stop_at_the_second_record)
    address = local_cluster.scheduler_address
    with pytest.raises(SweepInterrupted) as stopped:
        sweep(EXPERIMENTS["families"], TINY, out=tmp_path / "cluster", scheduler=address)
    assert stopped.value.n_written == 1 and len(_records(tmp_path / "cluster")) == 1
    monkeypatch.setattr(framework.store, "write_json_atomic", write)
    resumed = sweep(EXPERIMENTS["families"], TINY, out=tmp_path / "cluster", scheduler=address)
    assert resumed["n_skipped"] == 1 and resumed["n_done"] == 7
    sweep(EXPERIMENTS["families"], TINY, out=tmp_path / "serial")
    assert _records(tmp_path / "cluster") == _records(tmp_path / "serial")
    assert sorted(run for w in resumed["machine"]["workers"] for run in w["runs"]) == sorted(
        set(_records(tmp_path / "serial")) - {p.stem for p in calls[1:2]})  # this session's runs
