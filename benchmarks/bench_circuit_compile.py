"""Compiling SBK grids into decision diagrams: size and time for the dissection vtree.

Run::

    .venv/bin/python benchmarks/bench_circuit_compile.py                 # the default table (minutes)
    .venv/bin/python benchmarks/bench_circuit_compile.py --cases 0.9:20,30 --seeds 1 2 3
    .venv/bin/python benchmarks/bench_circuit_compile.py --bisection bfs --timeout 60
    .venv/bin/python benchmarks/bench_circuit_compile.py --conjoin clause --vtree elimination

Each case is a grid ``make_grid(side, ratio, seed=seed)`` with no evidence,
encoded (:func:`prunelab.circuit.encode_network`), given the dissection vtree
(:func:`prunelab.circuit.dissection_vtree`; ``--vtree elimination`` for
:func:`prunelab.circuit.vtree.elimination_vtree`) and compiled
(:func:`prunelab.circuit.compile_cnf`) in a fresh subprocess whose compile cap is
``--timeout`` seconds. A row gives the Booleans, the diagram's size (elements),
the wall seconds of vtree plus compilation, the CPU seconds they took (the
compiler's child process included: on a shared machine wall time mostly measures
the load), and ``P(sink = T)`` from the circuit;
a case that hits the timeout or the compiler's caps prints its cause instead.
Wall times depend on the machine's load; sizes do not (the build is deterministic).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_CASES = ("0.9:20,30,36,40", "0.75:20,26", "0.5:16,20")


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the compiler runs in a forked child)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one(ratio: float, side: int, seed: int, bisection: str, minimize: bool, max_seconds: float,
        conjoin: str = "family", vtree: str = "dissection") -> dict:
    """Compile one grid; the row's fields."""
    from prunelab import make_grid
    from prunelab.circuit import circuit_inference, compile_cnf, dissection_vtree, encode_network
    from prunelab.circuit.compiler import CircuitTooLargeError
    from prunelab.circuit.vtree import elimination_vtree
    from prunelab.compiled import compile_network

    bn = make_grid(side, ratio, seed=seed)
    net = compile_network(bn)
    start, cpu = time.perf_counter(), _cpu()
    enc = encode_network(net)
    vt = dissection_vtree(net, enc, bisection=bisection) if vtree == "dissection" else elimination_vtree(net, enc)
    vtree_seconds = time.perf_counter() - start
    try:
        circuit = compile_cnf(enc, vt, minimize=minimize, max_seconds=max_seconds, conjoin=conjoin, started=start)
    except CircuitTooLargeError as err:
        return {"booleans": enc.n_booleans, "error": str(err), "cpu": _cpu() - cpu}
    seconds = time.perf_counter() - start
    cpu = _cpu() - cpu
    _, marginals = circuit_inference(bn, net, circuit)
    return {"booleans": enc.n_booleans, "size": circuit.size, "seconds": seconds, "cpu": cpu,
            "vtree_seconds": vtree_seconds, "sink": float(marginals[bn.variables[-1]][1])}


def parse_cases(specs) -> list[tuple[float, int]]:
    """``"0.9:20,30"`` -> ``[(0.9, 20), (0.9, 30)]``."""
    out = []
    for spec in specs:
        ratio, sides = spec.split(":")
        out.extend((float(ratio), int(s)) for s in sides.split(","))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES), help="ratio:side,side,...")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--bisection", default="spectral", choices=("spectral", "bfs"))
    parser.add_argument("--minimize", action="store_true", help="dynamic vtree minimisation")
    parser.add_argument("--conjoin", default="family", choices=("family", "clause"))
    parser.add_argument("--vtree", default="dissection", choices=("dissection", "elimination"))
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds before a case is killed")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        ratio, side, seed = float(args.one[0]), int(args.one[1]), int(args.one[2])
        print(json.dumps(one(ratio, side, seed, args.bisection, args.minimize, args.timeout, args.conjoin, args.vtree)))
        return
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))  # this checkout's prunelab
    print(f"bisection={args.bisection} minimize={args.minimize} conjoin={args.conjoin} vtree={args.vtree} "
          f"timeout={args.timeout:g}s")
    print(f"{'ratio':>5} {'side':>4} {'seed':>4} {'booleans':>8} {'size':>12} {'seconds':>8} {'cpu':>8} "
          f"{'P(sink)':>12}")
    for ratio, side in parse_cases(args.cases):
        for seed in args.seeds:
            cmd = [sys.executable, __file__, "--one", str(ratio), str(side), str(seed),
                   "--bisection", args.bisection, "--timeout", str(args.timeout), "--conjoin", args.conjoin,
                   "--vtree", args.vtree]
            if args.minimize:
                cmd.append("--minimize")
            head = f"{ratio:>5g} {side:>4} {seed:>4}"
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout + 30, env=env)
            except subprocess.TimeoutExpired:
                print(f"{head} {'':>8} {'killed after':>12} {args.timeout + 30:>8.0f}", flush=True)
                continue
            if done.returncode != 0:
                print(f"{head} failed: {done.stderr.strip().splitlines()[-1:]}", flush=True)
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            if "error" in row:
                print(f"{head} {row['booleans']:>8} refused: {row['error']}", flush=True)
                continue
            print(f"{head} {row['booleans']:>8} {row['size']:>12,} {row['seconds']:>8.2f} {row['cpu']:>8.2f} "
                  f"{row['sink']:>12.9f}", flush=True)


if __name__ == "__main__":
    main()
