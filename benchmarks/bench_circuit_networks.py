"""Compile every network pgmpy ships into a circuit, with and without its frozen 25 % evidence.

For each (network, evidence): the junction tree's time, the circuit's compile time
(wall and CPU: on a shared machine the wall time mostly measures the load) and
size (or its refusal, with the size reached), the time of one inference pass
over the circuit, and the largest difference between the two answers.

Each case runs in its own process with a wall-clock limit (``--timeout``), so a
single long apply inside the SDD library cannot hold the table up; the circuit's
own cap is ``--max-seconds``, counted from the start of
:func:`~prunelab.circuit.compile_circuit` (encoding and vtree included) and a hard
stop (the compiler runs in a child process it kills), so a refusal comes within
a few hundredths of a second of it; the default, 9.5 s, puts every refusal under
10 s. About 10 minutes for all 48 cases on a 2-core machine.

    python benchmarks/bench_circuit_networks.py [--networks alarm win95pts] [--max-seconds 9.5]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import time

import numpy as np


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the compiler runs in a forked child)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _case(name: str, with_evidence: bool, max_seconds: float, queue) -> None:
    from prunelab.circuit import CircuitTooLargeError, circuit_inference, compile_circuit
    from prunelab.compiled import compile_network
    from prunelab.exact import exact_marginals
    from prunelab.lab.experiments.large import load_large

    bn, evidence = load_large(name, with_evidence)
    row = {"network": name, "evidence": with_evidence, "variables": bn.n_variables}
    tic = time.perf_counter()
    try:
        jt = exact_marginals(bn, evidence, method="junction_tree")
        row["jt_s"] = time.perf_counter() - tic
    except ValueError as exc:
        jt = None
        row["jt_s"] = float("nan")
        row["jt"] = str(exc)[:80]
    net = compile_network(bn, evidence)
    tic, cpu = time.perf_counter(), _cpu()
    try:
        circuit = compile_circuit(net, bn.variables, max_seconds=max_seconds, what=name)
    except CircuitTooLargeError as exc:
        row["compile_s"] = time.perf_counter() - tic
        row["compile_cpu_s"] = _cpu() - cpu
        row["circuit"] = str(exc)
        queue.put(row)
        return
    row["compile_s"] = time.perf_counter() - tic
    row["compile_cpu_s"] = _cpu() - cpu
    row["size"] = circuit.size
    row["booleans"] = circuit.encoding.n_booleans
    tic = time.perf_counter()
    _, marginals = circuit_inference(bn, net, circuit)
    row["pass_s"] = time.perf_counter() - tic
    if jt is not None:
        row["max_diff"] = max(float(np.abs(jt[v] - marginals[v]).max()) for v in jt)
    queue.put(row)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="*", help="default: every network pgmpy ships")
    parser.add_argument("--max-seconds", type=float, default=9.5, help="the circuit's compile cap (default 9.5)")
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock limit of one case (default 60)")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    if args.max_seconds <= 0 or args.timeout <= 0:
        parser.error("--max-seconds and --timeout must be positive")
    from prunelab.lab.experiments.large import pgmpy_networks

    names = args.networks or list(pgmpy_networks())
    rows = []
    ctx = mp.get_context("spawn")
    for name in names:
        for with_evidence in (False, True):
            queue = ctx.Queue()
            proc = ctx.Process(target=_case, args=(name, with_evidence, args.max_seconds, queue))
            tic = time.perf_counter()
            proc.start()
            proc.join(args.timeout)
            if proc.is_alive():
                proc.kill()
                proc.join()
                row = {"network": name, "evidence": with_evidence,
                       "circuit": f"killed after {time.perf_counter() - tic:.0f} s (the case's wall-clock limit)"}
            else:
                row = queue.get() if not queue.empty() else {"network": name, "evidence": with_evidence,
                                                              "circuit": f"exit code {proc.exitcode}"}
            rows.append(row)
            print(json.dumps(row), flush=True)
    ok = [r for r in rows if "size" in r]
    print(f"compiled {len(ok)} of {len(rows)}; largest difference to the junction tree "
          f"{max((r.get('max_diff', 0.0) for r in ok), default=float('nan')):.2e}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
