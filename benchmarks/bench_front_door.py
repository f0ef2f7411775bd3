"""The front door at scale: construction, compilation, sampler set-up and exact inference on chains and trees.

Run::

    .venv/bin/python benchmarks/bench_front_door.py                     # 16k, 64k, 256k nodes
    .venv/bin/python benchmarks/bench_front_door.py --sizes 1000 4000   # smaller
    .venv/bin/python benchmarks/bench_front_door.py --shapes chain --steps construct prune

For each shape (a chain ``X0 -> X1 -> ...``, and a binary tree, each node the parent
of nodes ``2i + 1`` and ``2i + 2``) of binary variables and each size ``n``, the CPU
seconds (``time.process_time``) of:

* ``construct``: ``BayesianNetwork(states, parents, cpts)`` from plain dicts;
* ``compile``: :func:`prunelab.compiled.compile_network`;
* ``prune``: ``sample(bn, "prune", 1)``: all of prune sampling's set-up and one step;
* ``gibbs``: ``sample(bn, "gibbs", 1)``;
* ``exact``: :func:`prunelab.exact.exact_marginals` (the junction tree, built afresh).

Then the log-log slope of each column between the smallest and the largest size
(``log(t_large / t_small) / log(n_large / n_small)``): 1 for linear time, 2 for
quadratic. Targets: every slope at most 1.15 from 16k to 256k; on the 64k chain
construction at most 1 s and ``prune`` at most 3 s. Each figure is the least of
``--repeats`` measurements (3), each in a forked child of a warmed-up process, so no
repeat finds a plan cached by another. Numba compilation is kept out
(a warm-up on a small network first). Load (``os.getloadavg``) is printed beside
every row: on a shared machine, read the figures with it.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

from prunelab import BayesianNetwork, sample
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals

STEPS = ("construct", "compile", "prune", "gibbs", "exact")


def network_dicts(shape: str, n: int) -> tuple[dict, dict, dict]:
    """``(states, parents, cpts)`` of a chain or binary tree of ``n`` binary variables, with positive CPTs."""
    names = [f"X{i}" for i in range(n)]
    states = {v: ["0", "1"] for v in names}
    parents = {}
    cpts = {}
    root = np.array([0.4, 0.6])
    child = np.array([[0.7, 0.3], [0.2, 0.8]])
    for i, v in enumerate(names):
        if i == 0:
            parents[v], cpts[v] = [], root
        else:
            parent = i - 1 if shape == "chain" else (i - 1) // 2
            parents[v], cpts[v] = [names[parent]], child
    return states, parents, cpts


def cpu(f, *args, **kwargs) -> tuple[float, object]:
    tic = time.process_time()
    out = f(*args, **kwargs)
    return time.process_time() - tic, out


def measure(shape: str, n: int, steps) -> dict[str, float]:
    states, parents, cpts = network_dicts(shape, n)
    seconds, bn = cpu(BayesianNetwork, states, parents, cpts, name=f"{shape}-{n}")
    out = {"construct": seconds}
    if "compile" in steps:
        out["compile"] = cpu(compile_network, bn)[0]
    if "prune" in steps:
        out["prune"] = cpu(sample, bn, "prune", 1, seed=0, traps="off")[0]
    if "gibbs" in steps:
        out["gibbs"] = cpu(sample, bn, "gibbs", 1, seed=0, traps="off")[0]
    if "exact" in steps:
        out["exact"] = cpu(exact_marginals, bn)[0]
    return out


def fresh(shape: str, n: int, steps) -> dict[str, float]:
    """:func:`measure` in a forked child: a repeat finds no plan an earlier one cached (the kernels are loaded)."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(measure, (shape, n, steps))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16_384, 65_536, 262_144])
    parser.add_argument("--shapes", nargs="+", default=["chain", "tree"], choices=["chain", "tree"])
    parser.add_argument("--steps", nargs="+", default=list(STEPS), choices=STEPS)
    parser.add_argument("--repeats", type=int, default=3,
                        help="measure each size this many times and keep each step's least CPU seconds (one run "
                             "per size swung a slope by 0.2 at load 3)")
    args = parser.parse_args()
    steps = [s for s in STEPS if s in args.steps or s == "construct"]
    measure("chain", 64, steps)  # numba kernels compiled (or loaded) outside the timings
    header = f"{'shape':6} {'n':>8} " + " ".join(f"{s:>10}" for s in steps) + "   load"
    print("CPU seconds;", header, sep="\n")
    for shape in args.shapes:
        rows = []
        for n in args.sizes:
            runs = [fresh(shape, n, steps) for _ in range(args.repeats)]
            row = {s: min(run[s] for run in runs) for s in steps}
            rows.append(row)
            load = os.getloadavg()[0]
            print(f"{shape:6} {n:>8} " + " ".join(f"{row[s]:>10.3f}" for s in steps) + f"   {load:.2f}",
                  flush=True)
        if len(args.sizes) > 1:
            ratio = math.log(args.sizes[-1] / args.sizes[0])
            slopes = [math.log(max(rows[-1][s], 1e-3) / max(rows[0][s], 1e-3)) / ratio for s in steps]
            print(f"{shape:6} {'slope':>8} " + " ".join(f"{x:>10.2f}" for x in slopes), flush=True)


if __name__ == "__main__":
    main()
