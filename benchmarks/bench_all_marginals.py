"""All marginals by counting, where neither the junction tree nor the circuit gives them.

Run::

    .venv/bin/python benchmarks/bench_all_marginals.py                    # the default instances, 2 processes
    .venv/bin/python benchmarks/bench_all_marginals.py --instances fs-13 tire-3.none --jobs 1
    .venv/bin/python benchmarks/bench_all_marginals.py --out /tmp/all.tsv

The instances are development instances of ``data/benchmarks`` where the frozen
``families`` experiment (``data/results/families``) has both the junction tree and the
circuit refusing, so that the weighted model counter is the only exact method left:
by default the largest network of each kind (plan recognition, mastermind, blockmap,
friends-and-smokers) and three of the noisy-OR networks, each with its first evidence
file. For each instance, two measurements:

* ``sample``: the posteriors of ``--sample`` free variables drawn at random (seeded) by
  :func:`prunelab.circuit.counting.count_inference` (capped at an hour), which gives the
  seconds per count (one count for ``P(e)``, then ``k - 1`` per variable of ``k`` states)
  and from them a prediction of all marginals: ``1 + sum(k - 1)`` counts over every free
  variable;
* ``all``: :func:`prunelab.exact.exact_marginals` with ``method="counter"`` and no
  ``variables``, as a user calls it, under the library's caps (600 s, 8 GiB of counting
  processes): every marginal, or the counter's refusal. It is not run where the
  prediction is over ``--skip-over`` seconds (default 1,800: three times the cap), where
  it could only end in the refusal at 600 s.

A row gives the free variables, the counts, the seconds (wall, and CPU of this process
and its counting processes together), the prediction, and whether the prediction held.
Wall seconds depend on the machine's load; each row records the load average. The
default set takes about half an hour on two cores (tire-3's sample alone about 4 minutes).
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import time

import numpy as np

from prunelab.circuit.counting import CountTooHardError, count_inference
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.lab.experiments.families import benchmark_instances, load_instance

DEFAULT = ("tire-3.none", "tire-1-evidence", "mastermind_05_08_03-0009", "mastermind_05_08_03-0000",
           "blockmap_10_02-0009", "blockmap_10_02-0000", "fs-13", "or-100-10-1.none", "or-100-20-1.none",
           "or-100-5-1.none")


def cpu() -> float:
    """CPU seconds of this process and of its reaped children (the counting processes)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(key: str, n_sample: int, jobs: int, seed: int, skip_over: float) -> dict:
    instance = {i.key: i for i in benchmark_instances()}[key]
    bn, evidence, _goal, _state, _ = load_instance(instance)
    net = compile_network(bn, evidence)
    free = [int(v) for v in net.free]
    card = net.cardinality
    all_counts = 1 + int(sum(int(card[v]) - 1 for v in free))
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(free, size=min(n_sample, len(free)), replace=False).tolist())
    sample_counts = 1 + int(sum(int(card[v]) - 1 for v in chosen))

    load = os.getloadavg()[0]
    tic, c0 = time.perf_counter(), cpu()
    count_inference(bn.variables, net, chosen, max_seconds=3600.0, n_jobs=jobs)
    sample_wall, sample_cpu = time.perf_counter() - tic, cpu() - c0
    per_count = sample_wall / sample_counts
    predicted = per_count * all_counts
    row = {"instance": key, "variables": len(bn.variables), "free": len(free), "counts": all_counts,
           "sample_variables": len(chosen), "sample_counts": sample_counts,
           "sample_wall": round(sample_wall, 2), "sample_cpu": round(sample_cpu, 2),
           "seconds_per_count": round(per_count, 4), "predicted_all": round(predicted, 1)}
    tail = {"jobs": jobs, "load": round(load, 2), "load_end": round(os.getloadavg()[0], 2)}

    tic, c0 = time.perf_counter(), cpu()
    if predicted > skip_over:
        return {**row, "all_status": "not run", "all_wall": "", "all_cpu": "", "predicted_over_measured": "",
                **tail, "message": f"predicted {predicted:.0f} s, over {skip_over:g} s"}
    try:
        marginals = exact_marginals(bn, evidence, method="counter", n_jobs=jobs)
        status, message = "answered", ""
        assert len(marginals) == len(free), (len(marginals), len(free))
    except CountTooHardError as error:
        status, message = "refused", str(error).split(";")[0][:120]
    all_wall, all_cpu = time.perf_counter() - tic, cpu() - c0
    tail["load_end"] = round(os.getloadavg()[0], 2)
    return {**row, "all_status": status, "all_wall": round(all_wall, 1), "all_cpu": round(all_cpu, 1),
            "predicted_over_measured": round(predicted / all_wall, 2) if status == "answered" else "",
            **tail, "message": message}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", nargs="+", default=list(DEFAULT))
    parser.add_argument("--sample", type=int, default=40, help="free variables counted to predict all (default 40)")
    parser.add_argument("--jobs", type=int, default=2, help="counting processes at once (default 2)")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--skip-over", type=float, default=1800.0,
                        help="predicted seconds above which the full call is not run (default 1800)")
    parser.add_argument("--out", help="also write the rows to this TSV file")
    args = parser.parse_args()
    rows = []
    for key in args.instances:
        row = measure(key, args.sample, args.jobs, args.seed, args.skip_over)
        rows.append(row)
        print("\t".join(f"{k}={v}" for k, v in row.items() if k != "message"), row["message"], sep="\t",
              flush=True)
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t")
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
