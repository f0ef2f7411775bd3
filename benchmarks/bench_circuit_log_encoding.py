"""Log against one-hot encoding of multi-valued variables: circuit size and compile time on pgmpy networks.

The library encodes a ``k``-state variable one-hot (``k`` Booleans, "exactly one"
clauses), because exact marginals read each state's posterior off its own
Boolean. A *log* encoding uses ``ceil(log2 k)`` Booleans (the state's binary
code) and excludes the codes past ``k - 1``; a row's condition is then a
conjunction of bit literals. It serves ``P(e)`` and whole-state draws, not
per-state marginals, so it lives here, as a measurement: for each (network,
evidence) both encodings are compiled for the dissection vtree with the same cap,
and ``log P(e)`` from each is compared with the junction tree's.

    python benchmarks/bench_circuit_log_encoding.py [--max-seconds 30] [networks ...]
"""

from __future__ import annotations

import argparse
import math
import resource
import time

import numpy as np


def log_encode(net):
    """The CNF of ``net`` with log-encoded multi-valued variables (same Booleans layout as the library's)."""
    from prunelab.circuit.encoding import CircuitEncoding

    card, ev = net.cardinality, net.evidence_value
    state_ptr = np.zeros(net.n_variables + 1, dtype=np.int64)
    state_boolean: list[int] = []
    owner, clauses, bits = [-1], [], {}
    for i in range(net.n_variables):
        if ev[i] < 0:
            k = max(1, math.ceil(math.log2(card[i])))
            bits[i] = list(range(len(owner), len(owner) + k))
            state_boolean.extend(bits[i])
            owner.extend([i] * k)
            for code in range(int(card[i]), 2**k):  # codes past the last state
                clauses.append([-b if (code >> t) & 1 else b for t, b in enumerate(bits[i])])
        state_ptr[i + 1] = len(state_boolean)
    theta_label = [-1] * len(owner)
    log_constant = 0.0
    for i in range(net.n_variables):
        family = [*net.parent_index[net.parent_ptr[i]:net.parent_ptr[i + 1]].tolist(), i]
        for r, values in enumerate(np.ndindex(*(int(card[j]) for j in family))):
            c = float(net.cpt[int(net.cpt_offset[i]) + r])
            if c == 1.0 or any(ev[j] >= 0 and ev[j] != v for j, v in zip(family, values)):
                continue
            condition = [b if (v >> t) & 1 else -b for j, v in zip(family, values) if ev[j] < 0
                         for t, b in enumerate(bits[j])]
            if c == 0.0:
                clauses.append([-lit for lit in condition])
            elif not condition:
                log_constant += math.log(c)
            else:
                theta = len(owner)
                owner.append([j for j in family if ev[j] < 0][-1])
                theta_label.append(int(net.cpt_offset[i]) + r)
                clauses.extend([-theta, lit] for lit in condition)
                clauses.append([*(-lit for lit in condition), theta])
    ptr = np.zeros(len(clauses) + 1, dtype=np.int64)
    np.cumsum([len(c) for c in clauses], out=ptr[1:])
    literal = np.fromiter((v for c in clauses for v in c), dtype=np.int64, count=int(ptr[-1]))
    return CircuitEncoding(len(owner) - 1, ptr, literal, np.asarray(theta_label, dtype=np.int64),
                           np.asarray(owner, dtype=np.int64), state_ptr, np.asarray(state_boolean, dtype=np.int64),
                           log_constant, np.zeros(0, dtype=np.int64))


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv=None) -> None:
    """Print one row per (network, evidence, encoding)."""
    from prunelab.circuit import CircuitTooLargeError, compile_cnf, encode_network, exact_weights, log_count
    from prunelab.circuit import passes_for
    from prunelab.circuit.vtree import dissection_vtree
    from prunelab.compiled import compile_network
    from prunelab.exact import log_probability_of_evidence
    from prunelab.experiments.large import load_large, pgmpy_networks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="*", help="default: every network pgmpy ships")
    parser.add_argument("--max-seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    for name in args.networks or list(pgmpy_networks()):
        for with_evidence in (False, True):
            bn, evidence = load_large(name, with_evidence)
            net = compile_network(bn, evidence)
            exact = log_probability_of_evidence(bn, evidence)
            for label, encode in (("one-hot", encode_network), ("log", log_encode)):
                tic, cpu = time.perf_counter(), _cpu()
                enc = encode(net)
                head = f"{name:11} {with_evidence!s:5} {label:7} {enc.n_booleans:7} Booleans {enc.n_clauses:7} clauses"
                try:
                    circuit = compile_cnf(enc, dissection_vtree(net, enc), max_seconds=args.max_seconds,
                                          started=tic, what=name)
                except CircuitTooLargeError as err:
                    print(f"{head} refused: {err}", flush=True)
                    continue
                wall, cpu = time.perf_counter() - tic, _cpu() - cpu
                work = passes_for(circuit)
                exact_weights(circuit, net, work)
                error = abs(log_count(circuit, work) + enc.log_constant - exact)
                print(f"{head} {circuit.size:9,} elements {wall:6.2f} s ({cpu:6.2f} s CPU) "
                      f"|log P(e) - junction tree| {error:.1e}", flush=True)


if __name__ == "__main__":
    main()
