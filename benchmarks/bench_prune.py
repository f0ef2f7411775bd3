"""Prune sampling figures: steps per second by uniform method, |S|, and the enormous first step.

Run::

    .venv/bin/python benchmarks/bench_prune.py            # about four minutes
    .venv/bin/python benchmarks/bench_prune.py --quick    # a few seconds per row

For each network, without and with 25 % evidence (``random_evidence(bn, 0.25,
seed=7)``):

* **first step**: from ``--starts`` random-forward states (the paper's initialiser,
  far from stationarity), the time of one ``run_chain(..., 1)`` call with
  ``uniform="auto"`` (Python call included) and its ``|S|``; the worst is printed.
  On win95pts ``|S|`` reaches 1e7-1e8 there; counting keeps it exact and fast.
* **stationary rate**: after a burn-in of ``--burn-in`` steps, ``run_chain`` for
  about ``--seconds`` per uniform method, ``--repeats`` times with the methods
  interleaved (median): steps per CPU second and per wall second, the target (no
  evidence), mean and largest ``|S|`` seen, the share of steps drawn by
  enumeration, and the time per step of ``"auto"`` over that of the best pure
  method (target: at most 1.05).

Numba compilation is excluded (a warm-up first; kernels are cached on disk).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

from prunelab import load_network, random_evidence  # noqa: E402
from prunelab.compiled import compile_network  # noqa: E402
from prunelab.samplers.prune import sampler as prune, plan as prune_plans  # noqa: E402
from prunelab.samplers.init import initial_state  # noqa: E402

TARGETS = {"alarm": 40_000, "win95pts": 15_000, "grid-8x8": 5_000}
"""Prune steps per second on one thread, stationary start, no evidence."""

NETWORKS = ("asia", "alarm", "win95pts", "grid-8x8")
UNIFORMS = ("auto", "count", "enumerate")
EVIDENCE_SEED = 7


def first_steps(net, n_starts: int, seed: int = 0):
    """Worst time and |S| of a first step from random-forward starts."""
    worst_time, sizes = 0.0, []
    rng = np.random.default_rng(seed)
    for _ in range(n_starts):
        x0 = initial_state(rng, net, "random_forward")
        tic = time.perf_counter()
        out = prune.run_chain(rng, net, x0, 1)
        worst_time = max(worst_time, time.perf_counter() - tic)
        sizes.append(out.size[0])
    return worst_time, np.array(sizes)


def calibrate(net, x0, uniform, seconds, seed=1):
    """Steps of one timed run of about ``seconds`` CPU seconds (after a warm-up)."""
    rng = np.random.default_rng(seed)
    prune.run_chain(rng, net, x0, 10, uniform)  # warm
    n = 200
    while True:  # calibrate n to about `seconds`
        tic = time.process_time()
        prune.run_chain(rng, net, x0, n, uniform)
        if time.process_time() - tic > seconds / 4 or n > 10**7:
            break
        n *= 4
    return max(int(n * seconds / max(time.process_time() - tic, 1e-9)), 100)


def rates(net, x0, uniforms, seconds, repeats, seed=1):
    """Median steps per CPU second (and wall) of every method, ``repeats`` runs interleaved (rotated order).

    The machine is shared: interleaving spreads a load burst over all methods, and the median discards it.
    """
    n = {u: calibrate(net, x0, u, seconds, seed) for u in uniforms}
    rng = np.random.default_rng(seed)
    cpu = {u: [] for u in uniforms}
    wall = {u: [] for u in uniforms}
    last = {}
    for r in range(repeats):
        for u in uniforms[r % len(uniforms):] + uniforms[:r % len(uniforms)]:
            tic_cpu, tic_wall = time.process_time(), time.perf_counter()
            last[u] = prune.run_chain(rng, net, x0, n[u], u)
            cpu[u].append(n[u] / (time.process_time() - tic_cpu))
            wall[u].append(n[u] / (time.perf_counter() - tic_wall))
    return {u: (float(np.median(cpu[u])), float(np.median(wall[u])), last[u]) for u in uniforms}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timings")
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per repeat")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--burn-in", type=int, default=5_000)
    parser.add_argument("--starts", type=int, default=20, help="random-forward first steps timed")
    parser.add_argument("--networks", nargs="*", default=list(NETWORKS))
    parser.add_argument("--uniform", nargs="*", default=list(UNIFORMS))
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.repeats, args.starts, args.burn_in = 0.3, 3, 5, 2_000

    print(f"prunelab prune benchmark: numba {numba.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.processor() or platform.machine()}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS')}")
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
              "(rates per CPU second; wall-clock rates for reference)")
    header = (f"{'network':<10}{'evidence':<10}{'uniform':<11}{'steps/s cpu':>12}{'(wall)':>10}"
              f"{'target':>9}{'ratio':>7}{'mean|S|':>10}{'max|S|':>10}{'enum':>6}")
    for name in args.networks:
        bn = load_network(name)
        for with_evidence in (False, True):
            evidence = random_evidence(bn, 0.25, seed=EVIDENCE_SEED) if with_evidence else None
            net = compile_network(bn, evidence)
            plan = prune_plans.prune_plan(net)
            label = "25%" if with_evidence else "none"
            prune.run_chain(np.random.default_rng(0), net, initial_state(np.random.default_rng(0), net), 2)
            worst, sizes = first_steps(net, args.starts)
            print(f"\n{name} evidence={label}: {net.n_labels} labels, {plan.pruning.random_label.size} random, "
                  f"count cost {plan.uniform.count_cost} (specialised: {plan.count.cost if plan.count else '-'}), "
                  f"auto search budget {plan.node_budget}")
            print(f"  first step from random forward ({args.starts} starts): worst {worst * 1e3:.2f} ms, "
                  f"|S| median {np.median(sizes):.3g}, max {sizes.max():.3g}")
            x0 = initial_state(np.random.default_rng(2), net, "forward")
            x0 = prune.run_chain(np.random.default_rng(3), net, x0, args.burn_in).draws[-1]
            print("  " + header)
            measured = rates(net, x0, list(args.uniform), args.seconds, args.repeats)
            pure = [measured[u][0] for u in measured if u != "auto"]
            for uniform, (cpu, wall, out) in measured.items():
                target = TARGETS.get(name) if not with_evidence else None
                target_s = f"{target:>9,}" if target else f"{'':>9}"
                ratio_s = f"{cpu / target:>6.1f}x" if target else f"{'':>7}"
                print(f"  {name:<10}{label:<10}{uniform:<11}{cpu:>12,.0f}{wall:>10,.0f}{target_s}{ratio_s}"
                      f"{out.size.mean():>10.3g}{out.size.max():>10.3g}{np.mean(out.uniform_code == 0):>6.2f}",
                      flush=True)
            if "auto" in measured and pure:
                print(f"  auto / best pure method (time per step): {max(pure) / measured['auto'][0]:.3f}")

if __name__ == "__main__":
    main()
