"""Prune sampling on every network pgmpy ships: set-up against exact inference, initialisation, steps.

Run::

    .venv/bin/python benchmarks/bench_large.py                 # every .bif.gz, with and without evidence
    .venv/bin/python benchmarks/bench_large.py --quick         # 25 % evidence only, short runs (a few minutes)
    .venv/bin/python benchmarks/bench_large.py --networks link munin --seconds 2

For each network that pgmpy's wheel ships as ``.bif.gz``
(:func:`prunelab.lab.experiments.large.pgmpy_networks`), read with its rows rescaled, without
evidence and with its frozen 25 % evidence (``data/evidence/<name>-25.json``, the
evidence of the large-network experiment, :func:`~prunelab.lab.experiments.large.load_large`),
one row:

* ``n``: variables; ``tw``: treewidth, the min-fill elimination width;
* ``exact s``: :func:`prunelab.exact.exact_marginals` on a freshly read network
  (junction-tree compilation included);
* ``plan s``: :func:`~prunelab.samplers.prune.draws.compiler.compile_uniform_plan` alone
  (elimination order and counting program); ``setup s``: all of the prune set-up,
  :func:`~prunelab.samplers.prune.plan.compile_prune_plan` (that plan, used labels, the
  specialised counting program); ``ratio`` is set-up over exact, the target is at
  most 2 (or a set-up under 1 s);
* ``init s``, ``init``: :func:`~prunelab.samplers.init.initial_state` (forward, the
  default of :func:`prunelab.sample`) on the network, and how it found the state
  (``forward`` or ``exact`` after the restart budget);
* ``steps/s``: ``run_chain`` with ``uniform="auto"`` for about ``--seconds`` of CPU
  time, from a feasible state drawn uniformly with the counting plan (target: at
  least 1,000 with evidence); ``mean|S|`` and ``drew``: the mean pruned-set size
  and the share of steps drawn by each uniform method.

A network whose tables exceed the caps of :mod:`prunelab.elimination` is refused
by both exact inference and prune sampling; the row shows how long the refusal took.
Numba compilation is excluded (a warm-up on asia first; kernels are cached on disk).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba
import numpy as np

from prunelab import load_network
from prunelab.catalogue import pgmpy_example_path
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, treewidth
from prunelab.lab.experiments.large import load_large, pgmpy_networks
from prunelab.io import read_bif
from prunelab.samplers.prune import sampler as prune, plan as prune_plans
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.draws.registry import UNIFORM_NAMES
from prunelab.samplers.prune.draws.compiler import compile_uniform_plan
from prunelab.samplers.prune.draws.api import uniform_pruned_state


def timed(f, *args, **kwargs):
    tic = time.perf_counter()
    try:
        out = f(*args, **kwargs)
    except ValueError as error:
        return time.perf_counter() - tic, error
    return time.perf_counter() - tic, out


def run(net, plan, seconds: float):
    """Steps per CPU second of ``run_chain`` (auto), mean |S|, and the share of each method."""
    rng = np.random.default_rng(1)
    x0, _, _ = uniform_pruned_state(rng, net, net.cpt > 0, uniform="count", plan=plan.uniform)
    tic = time.process_time()
    out = prune.run_chain(rng, net, x0, 20, plan=plan)
    once = (time.process_time() - tic) / 20
    n = int(np.clip(seconds / max(once, 1e-7), 20, 2_000_000))
    tic = time.process_time()
    out = prune.run_chain(rng, net, out.draws[-1], n, plan=plan)
    rate = n / max(time.process_time() - tic, 1e-9)
    shares = {UNIFORM_NAMES[m]: float(np.mean(out.uniform_code == m)) for m in np.unique(out.uniform_code)}
    drew = " ".join(f"{name}:{share:.2f}" for name, share in shares.items())
    return rate, float(out.size.mean()), drew


def row(name: str, with_evidence: bool, seconds: float) -> str:
    bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)  # a fresh object: exact compiles anew
    evidence = load_large(name, True)[1] if with_evidence else None
    label = "25%" if with_evidence else "none"
    head = f"{name:<11}{label:<6}{bn.n_variables:>6}{treewidth(bn, evidence):>4}"
    exact_s, exact = timed(exact_marginals, bn, evidence)
    net = compile_network(bn, evidence)
    plan_s, uniform = timed(compile_uniform_plan, net)
    if isinstance(uniform, ValueError):
        refused = "exact refused too" if isinstance(exact, ValueError) else f"exact {exact_s:.2f} s"
        return f"{head}  refused in {plan_s:.2f} s ({refused}): {str(uniform)[:110]}..."
    setup, plan = timed(prune_plans.compile_prune_plan, net)  # compiles its own uniform plan: all of the set-up
    exact_txt = "refused" if isinstance(exact, ValueError) else f"{exact_s:.3f}"
    ratio = "" if isinstance(exact, ValueError) else f"{setup / exact_s:.2f}"
    init_s, (_, info) = timed(initial_state, np.random.default_rng(0), bn, evidence=evidence, return_info=True)
    rate, mean_size, drew = run(net, plan, seconds)
    return (f"{head}{exact_txt:>9}{plan_s:>8.3f}{setup:>8.3f}{ratio:>7}{init_s:>8.3f} {info.init:<8}"
            f"{rate:>10,.0f}{mean_size:>10.3g}  {drew}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="*", default=None, help="default: every pgmpy .bif.gz")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU time of the timed run")
    parser.add_argument("--quick", action="store_true", help="25 %% evidence only, 0.3 s runs")
    args = parser.parse_args(argv)
    evidence_rows = (True,) if args.quick else (False, True)
    seconds = 0.3 if args.quick else args.seconds
    print(f"prunelab large-network benchmark: numba {numba.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.processor() or platform.machine()}")
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (seconds are wall clock, "
              "steps/s per CPU second)")
    warm = compile_network(load_network("asia"))
    run(warm, prune_plans.compile_prune_plan(warm), 0.01)
    print(f"{'network':<11}{'ev':<6}{'n':>6}{'tw':>4}{'exact s':>9}{'plan s':>8}{'setup s':>8}"
          f"{'ratio':>7}{'init s':>8} {'init':<8}{'steps/s':>10}{'mean|S|':>10}  drew")
    for name in args.networks or pgmpy_networks():
        for with_evidence in evidence_rows:
            print(row(name, with_evidence, seconds), flush=True)


if __name__ == "__main__":
    main()
