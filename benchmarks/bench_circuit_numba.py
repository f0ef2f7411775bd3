"""Circuit prune steps per CPU second on one grid, under one or several Python environments (numba releases).

The rate of ``uniform="circuit"`` prune steps depends on the numba and llvmlite
releases that compile its kernels, so each row names them. CPU seconds
(``time.process_time``) of one chain of ``--steps`` steps after a warm-up, on a
Sang-Beame-Kautz grid (:func:`prunelab.make_grid`) without evidence, or with the
frontier's scattered evidence (``--evidence scattered``, which needs the
``experiments`` extra); the draws' SHA-256 shows that every release draws the same
chain for the seed.

With ``--pythons``, each interpreter runs this script in turn, ``--rounds`` times,
interleaved (the machine's load drifts), each with a numba cache of its own; the
last line gives each interpreter's median and their ratio to the first.

    python benchmarks/bench_circuit_numba.py --grid 90:30:1 --steps 2000
    python benchmarks/bench_circuit_numba.py --grid 90:40:2 --steps 200 \\
        --pythons venv-a/bin/python venv-b/bin/python --rounds 3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np


def _grid(spec: str) -> tuple[int, int, int]:
    try:
        percent, side, seed = (int(part) for part in spec.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a grid is PERCENT:SIDE:SEED, e.g. 90:30:1; got {spec!r}") from None
    if not (0 <= percent <= 100 and side >= 2):
        raise argparse.ArgumentTypeError(f"percent must lie in 0..100 and side be at least 2; got {spec!r}")
    return percent, side, seed


def run(percent: int, side: int, seed: int, steps: int, evidence: str) -> dict:
    """One chain's CPU rate under this interpreter's numba, with the releases and the draws' hash."""
    from importlib import metadata

    from prunelab import make_grid
    from prunelab.compiled import compile_network
    from prunelab.samplers.prune import sampler as prune
    from prunelab.samplers.init import initial_state

    if evidence == "none":
        bn, observed = make_grid(side, percent / 100, seed=seed), {}
    else:
        from prunelab.lab.experiments.frontier import grid_case

        bn, observed = grid_case(percent, side, seed, evidence)
    net = compile_network(bn, observed)
    rng = np.random.default_rng(seed)
    x0 = initial_state(rng, bn, "forward", evidence=observed)
    prune.run_chain(np.random.default_rng(0), net, x0, 2, uniform="circuit")  # compile the circuit and the kernels
    rng = np.random.default_rng(seed)
    cpu, wall = time.process_time(), time.perf_counter()
    out = prune.run_chain(rng, net, x0, steps, uniform="circuit")
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"grid": f"{percent}:{side}:{seed}", "evidence": evidence, "steps": steps,
            "numba": metadata.version("numba"), "llvmlite": metadata.version("llvmlite"),
            "steps_per_cpu_s": steps / cpu, "steps_per_s": steps / wall, "load": os.getloadavg()[0],
            "draws_sha256": hashlib.sha256(np.ascontiguousarray(out.draws).tobytes()).hexdigest()[:16]}


def interleave(pythons: list[str], rounds: int, args: list[str]) -> list[dict]:
    """``rounds`` rounds of this script under each of ``pythons`` in turn; the rows, with the interpreter."""
    rows = []
    with tempfile.TemporaryDirectory() as caches:
        for _ in range(rounds):
            for k, python in enumerate(pythons):
                env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(caches) / str(k))}
                done = subprocess.run([python, __file__, *args], env=env, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"{python} failed:\n{done.stderr[-2000:]}")
                row = {**json.loads(done.stdout.strip().splitlines()[-1]), "python": python}
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=_grid, required=True, metavar="PERCENT:SIDE:SEED")
    parser.add_argument("--steps", type=int, default=1000, help="steps of the timed chain (default 1000)")
    parser.add_argument("--evidence", choices=("none", "scattered"), default="none")
    parser.add_argument("--pythons", nargs="+", metavar="PYTHON", help="interpreters to interleave")
    parser.add_argument("--rounds", type=int, default=3, help="rounds with --pythons (default 3)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.rounds < 1:
        parser.error("--steps and --rounds must be at least 1")
    if not args.pythons:
        print(json.dumps(run(*args.grid, args.steps, args.evidence)), flush=True)
        return
    child = ["--grid", ":".join(map(str, args.grid)), "--steps", str(args.steps), "--evidence", args.evidence]
    rows = interleave(args.pythons, args.rounds, child)
    medians = {p: statistics.median(r["steps_per_cpu_s"] for r in rows if r["python"] == p) for p in args.pythons}
    first = medians[args.pythons[0]]
    print(json.dumps({"median_steps_per_cpu_s": medians, "ratio_to_first": {p: m / first for p, m in medians.items()},
                      "same_draws": len({r["draws_sha256"] for r in rows}) == 1}))


if __name__ == "__main__":
    main()
