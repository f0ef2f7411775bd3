"""Prune sampling set-up on every network pgmpy ships: set-up against exact inference.

Run::

    .venv/bin/python benchmarks/bench_large.py                 # every .bif.gz, about five minutes
    .venv/bin/python benchmarks/bench_large.py --networks link munin --seconds 2

For each network that pgmpy's wheel ships as ``.bif.gz``, without evidence and with
25 % evidence (``random_evidence(bn, 0.25, seed=7)``), one row:

* ``n``: variables; ``tw``: treewidth, the min-fill elimination width;
* ``exact s``: :func:`prunelab.exact.exact_marginals` on a freshly read network
  (junction-tree compilation included);
* ``plan s``, ``used s``, ``setup s``: the prune set-up,
  :func:`~prunelab.samplers.uniform.compile_uniform_plan` (elimination order and
  counting program) and :func:`~prunelab.samplers.uniform.used_labels`, and their
  sum; ``ratio`` is set-up over exact, the target is at most 2 (or a set-up under 1 s);
* ``steps/s``: ``run_chain`` with ``uniform="auto"`` for about ``--seconds``, from a
  feasible state drawn uniformly with the counting plan (the initialisers of
  :func:`prunelab.sample` are not timed here); ``mean|S|`` and ``drew``: the mean
  pruned-set size and the share of steps drawn by each uniform method.

A network whose tables exceed the caps of :mod:`prunelab.elimination` is refused
by both exact inference and prune sampling; the row shows how long the refusal took.
Numba compilation is excluded (a warm-up on asia first; kernels are cached on disk).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba
import numpy as np

from prunelab import load_network, random_evidence
from prunelab.catalogue import pgmpy_example_path
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, treewidth
from prunelab.io import read_bif
from prunelab.samplers import prune
from prunelab.samplers.uniform import (
    METHOD_NAMES,
    compile_uniform_plan,
    uniform_pruned_state,
    used_labels,
)

EVIDENCE_SEED = 7


def pgmpy_networks() -> list[str]:
    """Names of the ``.bif.gz`` networks in the installed pgmpy wheel."""
    folder = pgmpy_example_path("asia").parent
    return sorted(p.name[: -len(".bif.gz")] for p in Path(folder).glob("*.bif.gz"))


def timed(f, *args, **kwargs):
    tic = time.perf_counter()
    try:
        out = f(*args, **kwargs)
    except ValueError as error:
        return time.perf_counter() - tic, error
    return time.perf_counter() - tic, out


def run(net, plan, seconds: float):
    """Steps per second of ``run_chain`` (auto), mean |S|, and the share of each method."""
    rng = np.random.default_rng(1)
    x0, _, _ = uniform_pruned_state(rng, net, net.cpt > 0, method="count", plan=plan.uniform)
    tic = time.perf_counter()
    out = prune.run_chain(rng, net, x0, 1, plan=plan)
    once = time.perf_counter() - tic
    n = int(np.clip(seconds / max(once, 1e-6), 1, 100_000))
    tic = time.perf_counter()
    out = prune.run_chain(rng, net, out.draws[-1], n, plan=plan)
    rate = n / (time.perf_counter() - tic)
    shares = {METHOD_NAMES[m]: float(np.mean(out.method == m)) for m in np.unique(out.method)}
    drew = " ".join(f"{name}:{share:.2f}" for name, share in shares.items())
    return rate, float(out.size.mean()), drew


def row(name: str, with_evidence: bool, seconds: float) -> str:
    bn = read_bif(pgmpy_example_path(name))
    evidence = random_evidence(bn, 0.25, seed=EVIDENCE_SEED) if with_evidence else None
    label = "25%" if with_evidence else "none"
    head = f"{name:<11}{label:<6}{bn.n_variables:>6}{treewidth(bn, evidence):>4}"
    exact_s, exact = timed(exact_marginals, bn, evidence)
    net = compile_network(bn, evidence)
    plan_s, uniform = timed(compile_uniform_plan, net)
    if isinstance(uniform, ValueError):
        refused = "exact refused too" if isinstance(exact, ValueError) else f"exact {exact_s:.2f} s"
        return f"{head}  refused in {plan_s:.2f} s ({refused}): {str(uniform)[:110]}..."
    used_s, _ = timed(used_labels, net, net.cpt > 0, uniform)
    setup = plan_s + used_s
    plan = prune.compile_prune_plan(net)
    exact_txt = "refused" if isinstance(exact, ValueError) else f"{exact_s:.3f}"
    ratio = "" if isinstance(exact, ValueError) else f"{setup / exact_s:.2f}"
    rate, mean_size, drew = run(net, plan, seconds)
    return (f"{head}{exact_txt:>9}{plan_s:>8.3f}{used_s:>8.3f}{setup:>8.3f}{ratio:>7}"
            f"{rate:>10,.0f}{mean_size:>10.3g}  {drew}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="*", default=None, help="default: every pgmpy .bif.gz")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of the timed run")
    args = parser.parse_args(argv)
    print(f"prunelab large-network set-up benchmark: numba {numba.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.processor() or platform.machine()}")
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall-clock seconds)")
    warm = compile_network(load_network("asia"))
    run(warm, prune.compile_prune_plan(warm), 0.01)
    print(f"{'network':<11}{'ev':<6}{'n':>6}{'tw':>4}{'exact s':>9}{'plan s':>8}{'used s':>8}{'setup s':>8}"
          f"{'ratio':>7}{'steps/s':>10}{'mean|S|':>10}  drew")
    for name in args.networks or pgmpy_networks():
        for with_evidence in (False, True):
            print(row(name, with_evidence, args.seconds), flush=True)


if __name__ == "__main__":
    main()
