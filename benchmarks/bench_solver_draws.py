"""Bias and cost of prune sampling with solution-sampler draws (``uniform="cmsgen"``, ``"unigen"``).

Run::

    .venv/bin/python benchmarks/bench_solver_draws.py            # about 17 minutes on 2 loaded cores
    .venv/bin/python benchmarks/bench_solver_draws.py --quick    # about 3 minutes

Needs the extra ``solvers`` (``pip install -e '.[solvers]'``); a sampler whose
package is missing is left out with a note. Three tables, measured as SampleSAT's
bias was for MC-SAT (the ``mcsat`` experiment, ``prunelab.lab.experiments.mcsat``):

* **(a) per-step uniformity**: on fixed small pruned sets (the theory cases with
  nothing pruned, and one random pruning around a start), ``--draws`` draws of
  the sampler alone (``draw`` with the same pruning, fresh seeds); the chi-square
  p-value against uniform on ``S`` (listed by
  :func:`prunelab.samplers.prune.draws.api.enumerate_pruned_states`), the total variation
  from uniform, the largest and smallest ratio of a member's frequency to ``1/|S|``,
  and the total variation that draws from the exact uniform would show at that
  sample size (the mean of 200 multinomial replicates: the noise floor).
* **(b) chain bias**: ``--chains`` chains of ``--steps`` prune steps on each theory
  case; the total variation between the visit frequencies and ``P(x | e)``
  (:func:`prunelab.theory.feasible_states`), beside the exact draw's
  (``uniform="count"``, same seeds and lengths: the noise of chains that long).
  Then the error of P(sink = T) on 90 % 8 x 8 grids (``make_grid(8, 0.9, seed)``,
  :data:`GRID_SEEDS`)
  against :func:`prunelab.exact_marginals`, beside the exact draw's.
* **(c) cost per step**: ms per prune step (pruning, CNF, solver call, decoding)
  on 90 % grids of side 10, 20 and 30 (``make_grid(side, 0.9, seed=1)``, no
  evidence), over ``--cost-steps`` steps or ``--cost-seconds``, whichever ends first.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from scipy import stats

import prunelab
from prunelab import exact_marginals, make_grid
from prunelab.compiled import compile_network
from prunelab.samplers.prune import sampler as prune
from prunelab.samplers.init import initial_state
from prunelab.samplers.prune.draws.registry import pruned_draw
from prunelab.extras import MissingExtraError
from prunelab.samplers.prune.draws.solver import NO_MODEL
from prunelab.samplers.prune.draws.api import enumerate_pruned_states
from prunelab.theory import feasible_states

SAMPLERS = ("cmsgen", "unigen")
FIRST_ROW = {"v_1_1": "T", "v_1_2": "T", "v_1_3": "T"}
CASES = {
    "block_chain (n = 3)": ("block_chain", {"n": 3}, None),
    "blood_pressure | m_e": ("blood_pressure", {}, {"Measurement": "m_e"}),
    "grid-3x3 | first row T": ("grid-3x3", {}, FIRST_ROW),
    "asia | xray, no dysp": ("asia", {}, {"xray": "yes", "dysp": "no"}),
}
GRID_SEEDS = (1, 3, 4)
"""The first three seeds whose exact P(sink = T) is neither 0 nor 1 (seed 2 gives 1, seed 5 gives 0)."""
SEED = 20261126


def available() -> list[str]:
    """The samplers whose package is installed."""
    found = []
    for name in SAMPLERS:
        try:
            pruned_draw(name).plan(compile_network(prunelab.load_network("deterministic_pair")))
            found.append(name)
        except MissingExtraError as error:
            print(f"left out: {error}")
    return found


def _index(states: np.ndarray, cardinality: np.ndarray, draws: np.ndarray) -> np.ndarray:
    radix = np.cumprod(np.r_[1, cardinality[:0:-1]])[::-1]
    keys = states @ radix
    order = np.argsort(keys)
    found = order[np.searchsorted(keys[order], draws @ radix)]
    if not (keys[found] == draws @ radix).all():
        raise AssertionError("a draw is not a member of the listed states")
    return found


def per_step_table(samplers, n_draws: int) -> None:
    print(f"\n(a) per-step uniformity: {n_draws} draws of the sampler alone per pruned set")
    print(f"{'case':26} {'pruning':8} {'|S|':>5} {'sampler':7} {'chi2 p':>9} {'TV':>7} {'TV noise':>8} "
          f"{'max r':>6} {'min r':>6} {'ms':>6}")
    rng = np.random.default_rng(SEED)
    for case, (name, options, evidence) in CASES.items():
        net = compile_network(prunelab.load_network(name, **options), evidence)
        x = initial_state(np.random.default_rng(0), net)
        prunings = {"none": net.cpt > 0.0}
        first = pruned_draw(samplers[0]).plan(net)
        for seed in range(50):  # the first random pruning around x that leaves at least 3 states
            kept = prune.prune_around(np.random.default_rng(seed), net, x, first)
            if enumerate_pruned_states(net, kept).shape[0] >= 3:
                prunings["random"] = kept
                break
        for pruning, kept in prunings.items():
            members = enumerate_pruned_states(net, kept)
            k = members.shape[0]
            floor = np.mean([0.5 * np.abs(rng.multinomial(n_draws, np.full(k, 1 / k)) / n_draws - 1 / k).sum()
                             for _ in range(200)])
            for sampler in samplers:
                module = pruned_draw(sampler)
                plan = module.plan(net)
                tic = time.perf_counter()
                ys = np.array([module.draw(rng, net, x, kept, plan)[0] for _ in range(n_draws)])
                ms = 1e3 * (time.perf_counter() - tic) / n_draws
                freq = np.bincount(_index(members, net.cardinality, ys), minlength=k) / n_draws
                p = stats.chisquare(freq * n_draws).pvalue if k > 1 else 1.0
                tv = 0.5 * np.abs(freq - 1 / k).sum()
                print(f"{case:26} {pruning:8} {k:5d} {sampler:7} {p:9.2e} {tv:7.4f} {floor:8.4f} "
                      f"{freq.max() * k:6.2f} {freq.min() * k:6.2f} {ms:6.2f}", flush=True)


def _chains(net, sampler: str, n_chains: int, n_steps: int, seed_seq) -> tuple[np.ndarray, int, float]:
    prune.run_chain(np.random.default_rng(0), net, initial_state(np.random.default_rng(0), net), 2, sampler)
    draws, stuck, seconds = [], 0, 0.0  # (the plan is compiled above, outside the timing)
    for seed in seed_seq.spawn(n_chains):
        rng = np.random.default_rng(seed)
        x0 = initial_state(rng, net)
        tic = time.perf_counter()
        out = prune.run_chain(rng, net, x0, n_steps, sampler)
        seconds += time.perf_counter() - tic
        draws.append(out.draws)
        stuck += int(np.sum(out.size == NO_MODEL)) if sampler in SAMPLERS else 0
    return np.concatenate(draws), stuck, seconds


def chain_table(samplers, n_chains: int, n_steps: int) -> None:
    print(f"\n(b) chain bias: {n_chains} chains x {n_steps} steps; 'count' is the exact draw (noise gauge)")
    print(f"{'case':26} {'|X|':>5} {'draw':7} {'TV':>7} {'no model':>8} {'ms/step':>8}")
    for case, (name, options, evidence) in CASES.items():
        bn = prunelab.load_network(name, **options)
        net = compile_network(bn, evidence)
        states, p = feasible_states(bn, evidence)
        for sampler in ("count", *samplers):
            draws, stuck, seconds = _chains(net, sampler, n_chains, n_steps, np.random.SeedSequence(SEED))
            q = np.bincount(_index(states, net.cardinality, draws), minlength=len(states)) / len(draws)
            print(f"{case:26} {len(states):5d} {sampler:7} {0.5 * np.abs(q - p).sum():7.4f} {stuck:8d} "
                  f"{1e3 * seconds / len(draws):8.3f}", flush=True)


def sink_table(samplers, n_chains: int, n_steps: int) -> None:
    print(f"\n(b') P(sink = T) on 90 % 8 x 8 grids: {n_chains} chains x {n_steps} steps; "
          "se: standard error of the mean over the chains")
    print(f"{'grid seed':>10} {'exact':>8} {'draw':7} {'estimate':>9} {'error':>8} {'se':>7} {'no model':>8}")
    for grid_seed in GRID_SEEDS:
        bn = make_grid(8, 0.9, seed=grid_seed)
        net = compile_network(bn)
        exact = float(exact_marginals(bn)["v_8_8"][1])
        for sampler in ("count", *samplers):
            draws, stuck, _ = _chains(net, sampler, n_chains, n_steps, np.random.SeedSequence(SEED))
            per_chain = (draws[:, -1] == 1).reshape(n_chains, n_steps).mean(axis=1)
            estimate = float(per_chain.mean())
            se = float(per_chain.std(ddof=1) / np.sqrt(n_chains)) if n_chains > 1 else float("nan")
            print(f"{grid_seed:10d} {exact:8.4f} {sampler:7} {estimate:9.4f} {estimate - exact:+8.4f} {se:7.4f} "
                  f"{stuck:8d}", flush=True)


def cost_table(samplers, n_steps: int, max_seconds: float) -> None:
    print(f"\n(c) cost per prune step, 90 % grids, no evidence (at most {n_steps} steps or {max_seconds:.0f} s)")
    print(f"{'side':>5} {'booleans':>8} {'clauses':>8} {'draw':7} {'steps':>6} {'ms/step':>9} {'no model':>8}")
    for side in (10, 20, 30):
        net = compile_network(make_grid(side, 0.9, seed=1))
        for sampler in samplers:
            module = pruned_draw(sampler)
            tic = time.perf_counter()
            plan = module.plan(net)
            setup = time.perf_counter() - tic
            rng = np.random.default_rng(SEED)
            x = initial_state(rng, net)
            steps, stuck, start = 0, 0, time.perf_counter()
            while steps < n_steps and time.perf_counter() - start < max_seconds:
                out = prune.run_chain(rng, net, x, 1, sampler, plan=plan)
                x = out.draws[-1]
                stuck += int(out.size[0] == NO_MODEL)
                steps += 1
            ms = 1e3 * (time.perf_counter() - start) / steps
            enc = plan.cnf.encoding
            print(f"{side:5d} {enc.n_booleans:8d} {enc.n_clauses:8d} {sampler:7} {steps:6d} {ms:9.2f} {stuck:8d}"
                  f"   (plan {1e3 * setup:.0f} ms; the CNF is cached, so the first sampler pays for it)", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (about 3 minutes)")
    parser.add_argument("--draws", type=int, help="draws per pruned set in (a) (default 20000; quick 2000)")
    parser.add_argument("--chains", type=int, default=2, help="chains per case in (b)")
    parser.add_argument("--steps", type=int, help="steps per chain on the theory cases (default 30000; quick 3000)")
    parser.add_argument("--grid-chains", type=int, default=4, help="chains per grid in (b')")
    parser.add_argument("--grid-steps", type=int, help="steps per chain on the 8 x 8 grids (default 10000; quick 2000)")
    parser.add_argument("--cost-steps", type=int, default=200, help="most steps per cell in (c)")
    parser.add_argument("--cost-seconds", type=float, help="most seconds per cell in (c) (default 60; quick 10)")
    parser.add_argument("--only", choices=("a", "b", "sink", "c"), help="one table only")
    args = parser.parse_args(argv)
    draws = args.draws or (2000 if args.quick else 20_000)
    steps = args.steps or (3000 if args.quick else 30_000)
    grid_steps = args.grid_steps or (2000 if args.quick else 10_000)
    cost_seconds = args.cost_seconds or (10.0 if args.quick else 60.0)
    print(f"prunelab {prunelab.__version__}, Python {platform.python_version()}, {platform.machine()}")
    samplers = available()
    if not samplers:
        return
    if args.only in (None, "a"):
        per_step_table(samplers, draws)
    if args.only in (None, "b"):
        chain_table(samplers, args.chains, steps)
    if args.only in (None, "sink"):
        sink_table(samplers, args.grid_chains, grid_steps)
    if args.only in (None, "c"):
        cost_table(samplers, args.cost_steps, cost_seconds)


if __name__ == "__main__":
    main()
