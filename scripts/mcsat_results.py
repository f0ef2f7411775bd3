#!/usr/bin/env python3
"""Freeze what SampleSAT costs MC-SAT: its bias on small networks, and the paper's benchmark (issue 15).

Regenerate (about 8 minutes on one core of a busy 2-core machine; ``--smoke`` in about one)::

    PYTHONPATH=. python scripts/mcsat_results.py            # writes data/results/mcsat/
    PYTHONPATH=. python scripts/mcsat_results.py --smoke    # a small run, written to /tmp/mcsat-smoke/

``bias.csv``, one row per (network, SampleSAT setting): the chain's long-run
distribution (visit frequencies of ``N_CHAINS`` chains of ``N_STEPS`` steps, seeds
spawned from ``SEED``) against the exact ``P(x | e)``: total variation, Hellinger,
the largest ratio ``visits / P`` and microseconds per step. The ``exact`` row
(MC-SAT with the exact uniform draw, that is prune sampling) is the sampling-noise
reference at the same length.

``benchmark.csv``, one row per (network, sampler): the paper's indicators for the
query variable, ``N_RUNS`` independent runs of ``T`` draws: AHD at ``T`` (Hellinger to
the exact marginal, mean over runs), sigma_T, alpha (``fit_alpha``, delta = 0.9),
seconds per draw and the time to sigma_t = 0.01.

``provenance.json``: command, package version, git commit, seed, date, machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import prunelab
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.indicators import AlphaFitError, fit_alpha, hellinger, log_checkpoints, sigma_t, time_to_sigma
from prunelab.samplers import mcsat
from prunelab.samplers.init import initial_state
from prunelab.theory import feasible_states

SEED = 20240915
OUT = Path(__file__).resolve().parents[1] / "data" / "results" / "mcsat"

FIRST_ROW = {"v_1_1": "T", "v_1_2": "T", "v_1_3": "T"}
BIAS_CASES = {
    "block_chain (n = 3)": ("block_chain", {"n": 3}, None),
    "blood_pressure | m_e": ("blood_pressure", {}, {"Measurement": "m_e"}),
    "grid-3x3 | first row T": ("grid-3x3", {}, FIRST_ROW),
    "asia | xray, no dysp": ("asia", {}, {"xray": "yes", "dysp": "no"}),
}
SETTINGS = {
    "exact": ("exact", {}),
    "Alchemy defaults (T = 0.8, late SA, 10 solutions)": ("samplesat", {}),
    "1 solution": ("samplesat", {"n_solutions": 1}),
    "100 solutions": ("samplesat", {"n_solutions": 100}),
    "T = 0.1": ("samplesat", {"temperature": 0.1}),
    "T = 5": ("samplesat", {"temperature": 5.0}),
    "mixed SA (p = 0.5), T = 0.1": ("samplesat", {"late_sa": False, "temperature": 0.1}),
    "mixed SA (p = 0.5), T = 0.8": ("samplesat", {"late_sa": False}),
}
BENCH_CASES = {
    "blood_pressure | m_e": ("blood_pressure", {}, {"Measurement": "m_e"}, "Lifestyle"),
    "grid-3x3 | first row T": ("grid-3x3", {}, FIRST_ROW, "v_3_3"),
    "asia | xray, no dysp": ("asia", {}, {"xray": "yes", "dysp": "no"}, "lung"),
}
SAMPLERS = {
    "prune": ("prune", {}),
    "gibbs": ("gibbs", {}),
    "metropolis": ("metropolis", {}),
    "mc-sat / SampleSAT": ("mc-sat", {"uniform": "samplesat"}),
}


def visit_distribution(draws: np.ndarray, states: np.ndarray, cardinality: np.ndarray) -> np.ndarray:
    """Share of ``draws`` (rows) in each of ``states`` (lexicographic rows)."""
    radix = np.cumprod(np.r_[1, cardinality[:0:-1]])[::-1]
    index = np.searchsorted(states @ radix, draws @ radix)
    return np.bincount(index, minlength=len(states)) / len(draws)


def bias_table(n_steps: int, n_chains: int) -> pd.DataFrame:
    rows = []
    seeds = iter(np.random.SeedSequence(SEED).spawn(len(BIAS_CASES) * len(SETTINGS) * n_chains))
    for case, (name, options, evidence) in BIAS_CASES.items():
        bn = prunelab.load_network(name, **options)
        net = compile_network(bn, evidence)
        states, p = feasible_states(bn, evidence)
        for setting, (uniform, sat) in SETTINGS.items():
            mcsat.run_chain(np.random.default_rng(0), net, states[0], 2, uniform, **sat)  # compile
            draws, seconds, flips = [], 0.0, []
            for _ in range(n_chains):
                rng = np.random.default_rng(next(seeds))
                x0 = initial_state(rng, net)
                tic = time.perf_counter()
                chain = mcsat.run_chain(rng, net, x0, n_steps, uniform, **sat)
                seconds += time.perf_counter() - tic
                draws.append(chain.draws)
                flips.append(chain.n_flips.mean())
            q = visit_distribution(np.concatenate(draws), states, net.cardinality)
            rows.append({
                "network": case, "setting": setting, "states": len(states), "steps": n_chains * n_steps,
                "total_variation": 0.5 * np.abs(q - p).sum(), "hellinger": float(hellinger(q, p)),
                "max_ratio": float((q / p).max()), "min_ratio": float((q / p).min()),
                "mean_flips": float(np.mean(flips)), "us_per_step": 1e6 * seconds / (n_chains * n_steps),
                **{k: v for k, v in {**mcsat.ALCHEMY_DEFAULTS._asdict(), **sat}.items()
                   if uniform == "samplesat"},
            })
            print(rows[-1]["network"], "|", setting, "| TV", round(rows[-1]["total_variation"], 4), flush=True)
    return pd.DataFrame(rows)


def benchmark_table(n_runs: int, n_draws: int) -> pd.DataFrame:
    rows = []
    checkpoints = log_checkpoints(n_draws)
    for case, (name, options, evidence, query) in BENCH_CASES.items():
        bn = prunelab.load_network(name, **options)
        exact = exact_marginals(bn, evidence)[query]
        for label, (sampler, kw) in SAMPLERS.items():
            prunelab.sample(bn, sampler, 10, evidence=evidence, seed=0, traps="off", **kw)  # compile
            result = prunelab.sample(bn, sampler, n_draws, n_chains=n_runs, evidence=evidence, seed=SEED,
                                     traps="record", **kw)
            estimates = result.running_marginals(query, checkpoints)
            sigma = sigma_t(estimates, state=0)
            seconds_per_draw = float(np.mean(result.sample_seconds) / n_draws)
            try:
                alpha = fit_alpha(checkpoints, sigma, delta=0.9).alpha
            except AlphaFitError:
                alpha = float("nan")
            rows.append({
                "network": case, "query": query, "sampler": label, "runs": n_runs, "draws": n_draws,
                "ahd_T": float(np.mean(hellinger(estimates[:, -1], exact))), "sigma_T": float(sigma[-1]),
                "alpha": alpha, "seconds_per_draw": seconds_per_draw,
                "seconds_to_sigma_0.01": time_to_sigma(alpha, seconds_per_draw).seconds,
                "trapped": result.trap.trapped, "exact_query_0": float(exact[0]),
                "mean_query_0": float(estimates[:, -1, 0].mean()),
            })
            print(case, "|", label, "| alpha", round(alpha, 3), flush=True)
    return pd.DataFrame(rows)


def provenance(args, wall: float) -> dict:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=OUT.parents[2], check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {
        "command": "PYTHONPATH=. python scripts/mcsat_results.py" + (" --smoke" if args.smoke else ""),
        "prunelab": prunelab.__version__, "git_commit": commit, "seed": SEED,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "wall_seconds": round(wall, 1),
        "machine": {"platform": platform.platform(), "python": sys.version.split()[0], "cpus": os.cpu_count()},
        "numpy": np.__version__,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a small run written to /tmp/mcsat-smoke/")
    args = parser.parse_args(argv)
    out = Path("/tmp/mcsat-smoke") if args.smoke else OUT
    out.mkdir(parents=True, exist_ok=True)
    tic = time.perf_counter()
    n_steps, n_chains, n_runs, n_draws = (20_000, 2, 5, 2_000) if args.smoke else (100_000, 4, 20, 20_000)
    bias = bias_table(n_steps, n_chains)
    bench = benchmark_table(n_runs, n_draws)
    for frame, file in ((bias, "bias.csv"), (bench, "benchmark.csv")):
        frame.to_csv(out / (file + ".tmp"), index=False)
        (out / (file + ".tmp")).replace(out / file)
    (out / "provenance.json").write_text(json.dumps(provenance(args, time.perf_counter() - tic), indent=2) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
