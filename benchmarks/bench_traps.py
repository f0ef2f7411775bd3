"""False-alarm rate of :func:`prunelab.sample`'s trap check on chains that mix.

Run::

    .venv/bin/python benchmarks/bench_traps.py             # 1,000 seeded runs per case, a few minutes
    .venv/bin/python benchmarks/bench_traps.py --runs 100  # a quick look

Each case is a sampler on a network where its chains mix (prune sampling on
networks whose zeros are exact and whose other entries are not close to 0, Gibbs
and MC-SAT where no zero or near-zero entry separates states), 4 chains, seeds
``0 .. runs - 1``. A run is a false alarm when ``result.trap.trapped`` (any split,
disagreeing or stuck variable). The target is at most 1 in 1,000 runs
(:data:`prunelab.traps.TRAP_FALSE_ALARM` is the disagreement test's
family-wise level); the printed count is over every run of every case.
The alarms are also printed (case, seed, variables), so each can be looked at.
Rows of chains that have not mixed yet (:data:`SLOW`) are printed after, not counted.

Measured (2026-11-26, 2 shared cores, about 11 minutes): 0 false alarms in 10,000
runs (10 cases of 1,000; a 95 % upper bound of 3e-4); block_chain at 200 draws, not
counted, warns in 4 of 1,000 runs (disagreement test; split R-hat up to 1.25 there).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from prunelab import load_evidence, load_network, sample  # noqa: E402

CASES = (
    # (sampler, network, evidence?, draws per chain)
    ("prune", "asia", True, 100),
    ("prune", "asia", True, 1000),
    ("prune", "alarm", True, 200),
    ("prune", "alarm", False, 1000),
    ("prune", "blood_pressure", False, 500),
    ("prune", "grid-3x3", False, 100),
    ("prune", "block_chain", False, 2000),
    ("gibbs", "blood_pressure", False, 500),
    ("mc-sat", "blood_pressure", False, 300),
    ("prune-tempered", "asia", True, 300),
)
SLOW = (("prune", "block_chain", False, 200),)
"""Shown apart, not counted: prune's block indicator on block_chain has an autocorrelation time of about
35 steps, so 200 draws are about 6 of them per chain (R-hat up to 1.25): chains that have not mixed yet,
where a warning is right."""

TARGET = 1e-3
"""Largest acceptable share of healthy runs that warn."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="seeded runs per case")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, {args.runs} runs per case, 4 chains")
    total_runs = total_alarms = 0
    for counted, (sampler, name, with_evidence, n_draws) in [(True, c) for c in CASES] + [(False, c) for c in SLOW]:
        bn = load_network(name)
        evidence = load_evidence(name) if with_evidence else None
        sample(bn, sampler, 10, n_chains=2, evidence=evidence, seed=0, traps="off")  # compile first
        tic = time.perf_counter()
        alarms = []
        for seed in range(args.runs):
            trap = sample(bn, sampler, n_draws, n_chains=4, evidence=evidence, seed=seed, traps="record").trap
            if trap.trapped:
                alarms.append((seed, trap.variables))
        seconds = time.perf_counter() - tic
        if counted:
            total_runs += args.runs
            total_alarms += len(alarms)
        label = f"{sampler} on {name}{' (evidence)' if with_evidence else ''}, {n_draws} draws"
        label += "" if counted else " (not mixed yet: not counted)"
        print(f"{label:<72} {len(alarms):>3} alarm(s) in {args.runs} runs ({seconds:.0f} s) {alarms}")
    rate = total_alarms / total_runs
    verdict = "ok" if rate <= TARGET else "ABOVE TARGET"
    print(f"total: {total_alarms} false alarm(s) in {total_runs} runs = {rate:.2e} (target <= {TARGET:g}): {verdict}")


if __name__ == "__main__":
    main()
