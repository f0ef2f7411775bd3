"""Per-step cost of the counting plan and of the circuit, for ``uniform="auto"``'s choice between them.

For each network (pgmpy networks by name, Sang-Beame-Kautz grids as ``sbk:RATIO:SIDE:SEED``), with and without
25 % evidence (``random_evidence(bn, 0.25, seed=7)``): the counting plan's work per step
(:attr:`~prunelab.samplers.prune.plan.PrunePlan.count_units`), the circuit's size (elements) and compile time,
and the stationary prune steps per CPU second with ``uniform="count"`` and ``uniform="circuit"`` (median of
``--repeats`` interleaved runs of about ``--seconds`` each, from an exact posterior draw and a burn-in; numba
compilation excluded), with nanoseconds per count unit and per circuit element. The rule of ``"auto"``
(:data:`~prunelab.samplers.prune.auto.CIRCUIT_UNITS_PER_ELEMENT`) is set from these figures; the last
column says what it picks.

Run::

    python benchmarks/bench_auto_circuit.py --networks asia alarm win95pts sbk:90:20:1 sbk:75:16:1
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from prunelab import load_network, make_grid, random_evidence  # noqa: E402
from prunelab.catalogue import pgmpy_example_path  # noqa: E402
from prunelab.circuit import circuit_for  # noqa: E402
from prunelab.circuit.inference import posterior_state  # noqa: E402
from prunelab.compiled import compile_network  # noqa: E402
from prunelab.elimination import TablesTooLargeError  # noqa: E402
from prunelab.io import read_bif  # noqa: E402
from prunelab.samplers.prune import plan as prune_plans  # noqa: E402
from prunelab.samplers.prune import sampler as prune  # noqa: E402
from prunelab.samplers.prune.auto import auto_choice  # noqa: E402

EVIDENCE_SEED = 7


def network(spec: str):
    """A network from its name: ``sbk:RATIO:SIDE:SEED`` or a catalogue/pgmpy name."""
    if spec.startswith("sbk:"):
        _, ratio, side, seed = spec.split(":")
        return make_grid(int(side), int(ratio) / 100, seed=int(seed))
    try:
        return load_network(spec)
    except (KeyError, ValueError):
        return read_bif(pgmpy_example_path(spec))


def ns_per_step(net, x0, uniform, seconds, repeats, seed=1):
    """Median CPU nanoseconds per stationary step over ``repeats`` runs (interleaving is the caller's)."""
    rng = np.random.default_rng(seed)
    prune.run_chain(rng, net, x0, 5, uniform)  # warm
    n = 20
    while True:
        tic = time.process_time()
        prune.run_chain(rng, net, x0, n, uniform)
        spent = time.process_time() - tic
        if spent > seconds / 4 or n > 10**7:
            break
        n *= 4
    n = max(int(n * seconds / max(spent, 1e-9)), 20)
    times = []
    for _ in range(repeats):
        tic = time.process_time()
        prune.run_chain(rng, net, x0, n, uniform)
        times.append((time.process_time() - tic) / n)
    return times


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="*", default=["asia", "alarm", "win95pts"])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--burn-in", type=int, default=2_000)
    parser.add_argument("--evidence", choices=["both", "none", "25"], default="both")
    args = parser.parse_args(argv)
    print(f"{'network':<16}{'ev':<5}{'count units':>12}{'size':>10}{'compile s':>10}{'count ns':>11}"
          f"{'circuit ns':>11}{'ns/unit':>8}{'ns/elem':>8}{'circ/count':>11}{'auto':>9}", flush=True)
    for spec in args.networks:
        bn = network(spec)
        for with_evidence in {"both": (False, True), "none": (False,), "25": (True,)}[args.evidence]:
            evidence = random_evidence(bn, 0.25, seed=EVIDENCE_SEED) if with_evidence else None
            net = compile_network(bn, evidence)
            label = "25%" if with_evidence else "none"
            try:
                plan = prune_plans.prune_plan(net)
                units = plan.count_units
            except TablesTooLargeError:
                plan, units = None, None
            tic = time.perf_counter()
            circuit = circuit_for(net)
            compile_s = time.perf_counter() - tic
            rng = np.random.default_rng(2)
            x0 = posterior_state(rng, net, circuit)  # an exact draw from P(x | e): a stationary start
            x0 = prune.run_chain(rng, net, x0, args.burn_in, "circuit").draws[-1]
            t_count, t_circuit = [], []
            for _ in range(args.repeats):  # interleaved
                if plan is not None:
                    t_count += ns_per_step(net, x0, "count", args.seconds, 1)
                t_circuit += ns_per_step(net, x0, "circuit", args.seconds, 1)
            c_ns = np.median(t_count) * 1e9 if t_count else np.nan
            k_ns = np.median(t_circuit) * 1e9
            choice = auto_choice(net)
            print(f"{spec:<16}{label:<5}{units if units is not None else 'refused':>12}{circuit.size:>10}"
                  f"{compile_s:>10.2f}{c_ns:>11.0f}{k_ns:>11.0f}"
                  f"{c_ns / units if units else np.nan:>8.2f}{k_ns / circuit.size:>8.2f}"
                  f"{k_ns / c_ns:>11.2f}{choice:>9}", flush=True)


if __name__ == "__main__":
    main()
