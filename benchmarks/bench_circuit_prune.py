"""Prune sampling with circuit draws on Sang-Beame-Kautz grids past the junction tree.

For each grid (ratio of deterministic nodes, side, seed), without evidence:
compile time and size of the circuit, exact P(sink = T) from it, prune steps per
second with circuit draws (numba chain, after a warm-up), and the sink estimate of
``--chains`` chains of ``--steps`` steps from forward-sampled starts, with its error
against the exact value. With ``--per-step``, the steps per second of
``uniform="circuit-per-step"`` (one compilation per step) instead of the chains.

One grid of 90 % 30 x 30 with the defaults takes about a minute on a 2-core machine.

    python benchmarks/bench_circuit_prune.py --grids 90:30:1 90:40:1 [--steps 5000 --chains 4]
    python benchmarks/bench_circuit_prune.py --grids 90:50:1 --per-step --steps 5
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _grid(spec: str) -> tuple[float, int, int]:
    try:
        ratio, side, seed = (int(part) for part in spec.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a grid is RATIO:SIDE:SEED, e.g. 90:30:1; got {spec!r}") from None
    if not (0 <= ratio <= 100 and side >= 2):
        raise argparse.ArgumentTypeError(f"ratio must lie in 0..100 and side be at least 2; got {spec!r}")
    return ratio / 100, side, seed


def run(ratio: float, side: int, seed: int, steps: int, chains: int, per_step: bool) -> dict:
    from prunelab import make_grid
    from prunelab.circuit import circuit_for, circuit_inference
    from prunelab.compiled import compile_network
    from prunelab.samplers.prune import sampler as prune
    from prunelab.samplers.init import initial_state

    bn = make_grid(side, ratio, seed=seed)
    net = compile_network(bn)
    sink = bn.variables[-1]
    row = {"ratio": ratio, "side": side, "seed": seed}
    rng = np.random.default_rng(seed)
    if per_step:
        x0 = initial_state(rng, net, "forward")
        prune.run_chain(rng, net, x0, 1, uniform="circuit-per-step")
        tic = time.perf_counter()
        out = prune.run_chain(rng, net, x0, steps, uniform="circuit-per-step")
        row["per_step_steps_per_s"] = steps / (time.perf_counter() - tic)
        row["sink_mean"] = float((out.draws[:, -1] == 1).mean())
        return row
    tic = time.perf_counter()
    circuit = circuit_for(net)
    row["compile_s"] = time.perf_counter() - tic
    row["size"] = circuit.size
    tic = time.perf_counter()
    _, marginals = circuit_inference(bn, net, circuit)
    row["inference_s"] = time.perf_counter() - tic
    row["p_sink"] = float(marginals[sink][1])
    x0 = initial_state(rng, net, "forward")
    prune.run_chain(rng, net, x0, 2, uniform="circuit")
    estimates = []
    seconds = 0.0
    for c in range(chains):
        chain_rng = np.random.default_rng([seed, c])
        x0 = initial_state(chain_rng, net, "forward")
        tic = time.perf_counter()
        out = prune.run_chain(chain_rng, net, x0, steps, uniform="circuit")
        seconds += time.perf_counter() - tic
        estimates.append(float((out.draws[:, -1] == 1).mean()))
    row["steps_per_s"] = chains * steps / seconds
    row["sink_estimate"] = float(np.mean(estimates))
    row["sink_error"] = abs(row["sink_estimate"] - row["p_sink"])
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grids", nargs="+", type=_grid, required=True, metavar="RATIO:SIDE:SEED")
    parser.add_argument("--steps", type=int, default=5000, help="steps per chain (default 5000)")
    parser.add_argument("--chains", type=int, default=4, help="chains (default 4)")
    parser.add_argument("--per-step", action="store_true", help="time uniform='circuit-per-step' instead")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.chains < 1:
        parser.error("--steps and --chains must be at least 1")
    rows = []
    for ratio, side, seed in args.grids:
        row = run(ratio, side, seed, args.steps, args.chains, args.per_step)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
