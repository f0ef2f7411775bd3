"""Single-thread throughput of the sampling kernels, against the project's targets.

Run::

    .venv/bin/python benchmarks/bench_samplers.py            # about a minute
    .venv/bin/python benchmarks/bench_samplers.py --quick    # a few seconds per row

For each network (no evidence) the chain first burns in from a forward-sampled
state, so timings are from a stationary start; then the numba ``run_chain`` runs
for about ``--seconds`` (best of ``--repeats``), and the numpy reference ``step``
loop for a short stretch. One draw is one sweep (Gibbs, Metropolis) or one step
(prune). Printed: draws per CPU second (and per wall-clock second), target, ratio
to target, numba-vs-numpy speedup; "gibbs+rb" also records the Rao-Blackwell sums
at ``sample``'s default checkpoints. Prune rows appear when :mod:`prunelab.samplers.prune.sampler` is importable.
Numba compilation is excluded (a warm-up call first; kernels are cached on disk).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

from prunelab import load_network  # noqa: E402
from prunelab.compiled import compile_network  # noqa: E402
from prunelab.samplers import get_sampler  # noqa: E402
from prunelab.samplers.init import initial_state  # noqa: E402
from prunelab.checkpoints import log_checkpoints  # noqa: E402
from prunelab.sampling import DEFAULT_N_CHECKPOINTS  # noqa: E402

TARGETS = {
    ("gibbs", "alarm"): 300_000,
    ("gibbs", "win95pts"): 150_000,
    ("metropolis", "alarm"): 100_000,
    ("prune", "alarm"): 40_000,
    ("prune", "win95pts"): 15_000,
    ("prune", "grid-8x8"): 5_000,
}
"""Draws per second on one thread (the project's speed targets)."""

NETWORKS = ("alarm", "win95pts", "grid-8x8")
BURN_IN = 2_000


def no_options(n_draws: int) -> dict:
    return {}


def rb_options(n_draws: int) -> dict:
    """Gibbs with the default Rao-Blackwell checkpoints of ``sample``."""
    return {"rb_checkpoints": log_checkpoints(n_draws, DEFAULT_N_CHECKPOINTS)}


def time_numba(module, net, x0, seconds, repeats, options_for=no_options):
    """Best draws/s of ``run_chain`` over ``repeats`` runs of about ``seconds`` each.

    Returns ``(wall, cpu)``: draws per wall-clock second and per CPU second of this
    process. The kernels are single-threaded, so on an idle machine the two agree;
    on a shared one the CPU figure is the fair single-thread measure.
    """
    module.run_chain(np.random.default_rng(0), net, x0, 10, **options_for(10))  # compile / load cache
    n, elapsed = 10, 0.0
    while elapsed < 0.05:  # calibrate
        n *= 4
        tic = time.perf_counter()
        module.run_chain(np.random.default_rng(1), net, x0, n, **options_for(n))
        elapsed = time.perf_counter() - tic
    n = max(10, int(n * seconds / elapsed))
    best_wall = best_cpu = np.inf
    for r in range(repeats):
        options = options_for(n)
        tic, cpu = time.perf_counter(), time.process_time()
        module.run_chain(np.random.default_rng(2 + r), net, x0, n, **options)
        best_wall = min(best_wall, time.perf_counter() - tic)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return n / best_wall, n / max(best_cpu, 1e-9)


def time_numpy(module, net, x0, seconds, **options):
    """Draws per CPU second of the reference ``step`` loop, for about ``seconds``."""
    rng = np.random.default_rng(3)
    state = module.init(net, x0)
    count, tic = 0, time.process_time()
    while True:
        state, _ = module.step(rng, net, state, **options)
        count += 1
        elapsed = time.process_time() - tic
        if elapsed > seconds and count >= 3:
            return count / elapsed


def stationary_start(module, net, x0, n_burn, **options):
    out = module.run_chain(np.random.default_rng(4), net, x0, n_burn, **options)
    return np.asarray(out.draws[-1], dtype=np.int64)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timings (about 0.2 s per row)")
    parser.add_argument("--seconds", type=float, default=1.0, help="numba timing per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--numpy-seconds", type=float, default=1.0)
    parser.add_argument("--networks", nargs="*", default=list(NETWORKS))
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.repeats, args.numpy_seconds = 0.2, 1, 0.3

    samplers = ["gibbs", "metropolis", "prune"]
    print(f"prunelab sampler benchmark: numba {numba.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.processor() or platform.machine()}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS')}")
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
              "(ratio and speedup use CPU time; wall-clock rates shown for reference)")
    header = (f"{'sampler':<12}{'network':<10}{'numba/s (cpu)':>15}{'(wall)':>10}{'target':>10}{'ratio':>8}"
              f"{'numpy/s (cpu)':>15}{'speedup':>9}")
    print(header)
    print("-" * len(header))
    for name in args.networks:
        bn = load_network(name)
        net = compile_network(bn)
        x_forward = initial_state(np.random.default_rng(0), bn)
        for sampler in samplers:
            module = get_sampler(sampler)
            variants = [(sampler, no_options)]
            if sampler == "gibbs":
                variants.append(("gibbs+rb", rb_options))
            x0 = stationary_start(module, net, x_forward, BURN_IN if sampler != "prune" else BURN_IN // 10)
            for label, options_for in variants:
                wall, cpu = time_numba(module, net, x0, args.seconds, args.repeats, options_for)
                slow = time_numpy(module, net, x0, args.numpy_seconds) if options_for is no_options else None
                target = TARGETS.get((sampler, name)) if label == sampler else None
                ratio = f"{cpu / target:7.2f}x" if target else f"{'':>8}"
                target_s = f"{target:>10,}" if target else f"{'':>10}"
                slow_s = f"{slow:>15,.0f}" if slow else f"{'':>15}"
                speed_s = f"{cpu / slow:>8.0f}x" if slow else f"{'':>9}"
                print(f"{label:<12}{name:<10}{cpu:>15,.0f}{wall:>10,.0f}{target_s}{ratio}{slow_s}{speed_s}", flush=True)


if __name__ == "__main__":
    main()
