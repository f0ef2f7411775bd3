"""Rao-Blackwellised prune sampling: its extra cost per step, and what it buys at equal draws.

Run::

    .venv/bin/python benchmarks/bench_rao_blackwell.py                   # cost and ahd: about ten minutes
    .venv/bin/python benchmarks/bench_rao_blackwell.py --only networks   # about 15 minutes of CPU
    .venv/bin/python benchmarks/bench_rao_blackwell.py --quick           # all three, a few minutes

Three measurements:

* **cost**: on alarm, win95pts and the 8 x 8 grid, without and with 25 % evidence
  (the frozen sets, :func:`prunelab.load_evidence`; the grid's from
  ``random_evidence(bn, 0.25, seed=7)`` as ``bench_prune.py`` draws it), from a
  stationary start (a burn-in of ``--burn-in`` steps), ``run_chain`` with
  ``uniform="count"`` plain and with ``rb_checkpoints=[n]`` (the sums of every
  step's ``E[1{X_i = s} | S_t]``, copied out once), the same ``n`` steps and seed,
  best CPU time of ``--repeats``. Target: RB / plain at most 1.3.
* **AHD at equal draws**: ``--chains`` chains of ``--draws`` steps with
  ``uniform="auto"``, started as :func:`prunelab.sample` starts them (forward
  sampling, one seed per chain), each chain's average Hellinger distance over the
  free variables to the exact marginals at a few checkpoints, with the plain
  (empirical) and the Rao-Blackwell estimator of the *same* draws; the ratio of
  the means over chains. Target: at most 0.8 on alarm and win95pts with 25 %
  evidence.

Measured on a 2-core machine shared with other jobs (load average 5-7, so the
rates are noisy to about 10 %), numba 0.65, one thread, steps per CPU second::

    network   evidence     count/s      RB/s RB/plain    auto/s      RB/s RB/plain  med|S|  mean|S|
    alarm     none         129,784    98,765     1.31   127,483   101,959     1.25      18     45.2
    alarm     25%          290,048   210,200     1.38   277,793   222,386     1.25       6     9.82
    win95pts  none          60,396    49,753     1.21    57,539    49,487     1.16      22      109
    win95pts  25%          159,246   121,408     1.31   158,275   124,764     1.27       8     13.3
    grid-8x8  none          42,770    32,759     1.31    37,119    29,525     1.26      96      253
    grid-8x8  25%          256,782   157,924     1.63   248,995   155,821     1.60      18     38.8

    AHD at equal draws, 20 chains of 20 000 draws (RB/plain, +- standard error, at t = 100 / 584 / 3 419 / 20 000)
    alarm     25%    0.78  0.79  0.78  0.77   (+-0.04-0.05)
    win95pts  25%    0.76  0.75  0.72  0.73   (+-0.03-0.04)
    asia      none   0.73  0.70  0.77  0.70   (+-0.07-0.09)
    asia      25%    0.67  0.72  0.75  0.76   (+-0.08-0.11)

The AHD target (at most 0.8 at equal draws) holds on every case. The cost target
(at most 1.3 with counting) holds to within 0.01 on the four rows without evidence or
on win95pts, and is missed on alarm with evidence (1.38) and the grid with evidence
(1.63). The cause: with evidence the plain step is cheap (3-4 us; its
count is the program specialised to the labels that vary, which recomputes only the
entries those labels reach), while the Rao-Blackwell term needs the marginal of
*every* free variable, so its downward pass visits every elimination step's
reached rows - on the grid 48 steps over 1 278 table entries, about 1.7 us, as much
as the specialised count. The estimator still wins per second wherever the AHD
ratio is below the inverse square root of the cost ratio, since AHD falls like
``1 / sqrt(t)``: 0.73 < 1 / sqrt(1.31) = 0.87 on win95pts and 0.77 < 1 / sqrt(1.38)
= 0.85 on alarm, both with evidence.

* **networks**: the 24 pgmpy networks with their frozen 25 % evidence
  (:func:`prunelab.lab.experiments.large.load_large`) and the paper's benchmarks
  without evidence (the paper's three with 25 % evidence are the pgmpy ones), all
  with ``uniform="auto"``: the cost per step RB / plain as above; the AHD over the
  free variables at ``T`` draws (``--chains`` chains, ``T`` about ``--chain-seconds``
  of plain steps, between ``--min-draws`` and ``--draws``), mean over chains,
  RB / plain with its standard error; and over the last ``W`` steps, kept as
  consecutive ``rb_checkpoints`` (:meth:`prunelab.SampleResult.rao_blackwell_terms`),
  arviz's bulk ESS of the per-step RB terms and of the plain indicators, and the
  ratio of the Monte Carlo standard errors of their means (``sd / sqrt(ESS)``), for
  the three free variables whose exact marginal is least certain (medians). The ESS
  of each series is relative to its own variance, so the two ESS are close (median
  ratio 0.97): the terms vary less, not more slowly. The MCSE ratio is what the
  estimator buys per draw.

Measured with ``--only networks --seconds 0.3 --repeats 2 --chains 4 --chain-seconds 0.4
--draws 10000`` (29 minutes of wall time at load average 14 on 2 cores, a few minutes of
CPU; the defaults, 8 chains, take about twice the CPU)::

    network     ev    free   med|S|    steps/s  cost      T AHD RB/plain  +-se     W  ESS RB  ESS pl  MCSE
    alarm       25%     27        6    275,184  1.31  10000        0.781 0.077  4000    4783    4948  0.73
    andes       25%    167 3.35e+09     11,411  1.19   4523        0.788 0.078  4000    4161    4039  0.76
    asia        25%      6        2  2,563,901  1.65  10000        0.706 0.152  4000    4806    4876  0.72
    barley      25%     36       36      1,561  2.48   1000        0.944 0.098   999     448     424  0.89
    cancer      25%      3        2  3,487,395  1.60  10000        0.641 0.139  4000    5642    5297  0.72
    child       25%     15        3    459,204  1.06  10000        0.961 0.267  4000    1454    1998  0.82
    diabetes    25%    309 1.35e+05      1,551  1.30   1000        0.928 0.058   427      37      39  1.01
    earthquake  25%      3        1  3,057,662  0.84  10000        0.690 0.231  4000    5478    5400  0.72
    hailfinder  25%     42 3.07e+03     94,426  1.20  10000        0.994 0.081  4000       8      13  1.01
    hepar2      25%     52  4.1e+03    100,754  1.18  10000        0.926 0.294  4000    4776    4753  0.74
    insurance   25%     20        8    170,046  1.00  10000        0.901 0.099  4000    3803    3617  0.75
    link        25%    543 6.38e+21     20,424  1.75   6400        0.812 0.036  1091    1136    1168  0.76
    mildew      25%     26      270      3,026  1.03   1111        0.776 0.060  1110    1410    3527  0.55
    munin       25%    780 1.85e+18     11,614  1.68   4923        0.893 0.078   353     387     403  0.76
    munin1      25%    139 3.07e+03     47,417  1.35  10000        0.926 0.756  2016    1797    1982  0.78
    munin2      25%    752 6.68e+14     14,159  1.61   5615        0.840 0.035   372     521     446  0.75
    munin3      25%    780 1.11e+13     17,543  1.60   7740        0.810 0.019   357     374     363  0.78
    munin4      25%    778 5.07e+15      9,229  1.41   3603        0.832 0.061   354     301     350  0.81
    pathfinder  25%     81      256    230,958  1.55  10000        0.733 0.035  4000    4401    4631  0.77
    pigs        25%    330 4.34e+29     18,744  1.40   6308        0.949 0.338  1511    1521    1420  0.78
    sachs       25%      8        4    855,302  1.29  10000        0.894 0.124  4000    2257    2304  0.85
    survey      25%      4        2  2,849,723  1.57  10000        0.834 0.407  4000    4051    4100  0.77
    water       25%     24       12    144,328  1.13  10000        0.791 0.093  4000    3115    3289  0.84
    win95pts    25%     57        8    153,292  1.26  10000        0.726 0.074  4000    5399    5566  0.71
    asia        none     8        2  1,995,072  1.55  10000        0.663 0.206  4000    4589    4750  0.72
    alarm       none    37       18    125,614  1.24  10000        0.790 0.111  4000    4305    4623  0.74
    win95pts    none    76       24     55,605  1.18  10000        0.790 0.186  4000    5238    6780  0.68
    grid-3x3    none     9        3  1,451,733  1.72  10000        0.785 0.368  4000    4608    4755  0.73
    grid-5x5    none    25        7    387,367  1.72  10000        0.815 0.311  4000    4135    4216  0.77
    grid-8x8    none    64       96     36,067  1.27  10000        0.860 0.128  4000    1067     969  0.90

At equal draws the RB AHD is below the plain one on all 30 (ratio 0.64-0.99, median
0.81; at most 0.8 on 9 of the 24 pgmpy networks, among them alarm 0.78 and win95pts
0.73), and the MCSE ratio is 0.55-1.01 (median 0.76). The gain is smallest where the
chain mixes slowly (hailfinder 0.99 with an ESS of 8-13 in 4 x 4 000 steps, barley,
diabetes, pigs, child 0.93-0.96): there the error is the chain's, which averaging
each set does not reduce. The extra cost per step is 0.84-2.48 (median 1.33; at most
1.3 on 14 of 30); the small networks pay a fixed cost of the pass per step, barley
(|S| ~ 36 listed members, 1 600 steps/s) the most. Per second (AHD ~ 1 / sqrt(t):
the AHD ratio below 1 / sqrt(cost)) the estimator wins on 16 of the 30 and loses on
barley, diabetes, hailfinder, hepar2, link, munin-munin3, pigs, sachs, survey and the
3 x 3 and 5 x 5 grids.

Numba compilation is excluded (a warm-up first; kernels are cached on disk).
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

from prunelab import load_evidence, load_network, random_evidence, sample  # noqa: E402
from prunelab.compiled import compile_network  # noqa: E402
from prunelab.exact import exact_marginals  # noqa: E402
from prunelab.indicators import hellinger  # noqa: E402
from prunelab.samplers.prune import sampler as prune  # noqa: E402
from prunelab.samplers.init import initial_state  # noqa: E402

COST_NETWORKS = ("alarm", "win95pts", "grid-8x8")
AHD_CASES = (("alarm", True), ("win95pts", True), ("asia", False), ("asia", True))
COST_TARGET = 1.3
AHD_TARGET = 0.8
EVIDENCE_SEED = 7


def evidence_of(bn, name: str) -> dict:
    """The frozen 25 % evidence where the catalogue has it, else bench_prune's random draw."""
    try:
        return load_evidence(name)
    except FileNotFoundError:
        return random_evidence(bn, 0.25, seed=EVIDENCE_SEED)


def cpu_seconds(net, x0, n, repeats, rb: bool, uniform: str = "count") -> tuple[float, object]:
    """Best CPU seconds of ``n`` steps from ``x0`` (same seed each time)."""
    best, out = np.inf, None
    for _ in range(repeats):
        kw = {"rb_checkpoints": [n]} if rb else {}
        tic = time.process_time()
        out = prune.run_chain(np.random.default_rng(1), net, x0, n, uniform, **kw)
        best = min(best, time.process_time() - tic)
    return best, out


def cost_row(name: str, with_evidence: bool, seconds: float, repeats: int, burn_in: int) -> dict:
    bn = load_network(name)
    net = compile_network(bn, evidence_of(bn, name) if with_evidence else None)
    x0 = initial_state(np.random.default_rng(2), net, "forward")
    x0 = prune.run_chain(np.random.default_rng(3), net, x0, burn_in, "count").draws[-1]
    for uniform in ("count", "auto"):  # warm every path
        prune.run_chain(np.random.default_rng(0), net, x0, 5, uniform, rb_checkpoints=[5])
    n = 200
    while True:
        t, _ = cpu_seconds(net, x0, n, 1, False)
        if t > seconds / 4 or n > 10**7:
            break
        n *= 4
    n = max(int(n * seconds / max(t, 1e-9)), 100)
    row = {"network": name, "evidence": "25%" if with_evidence else "none", "steps": n}
    for uniform in ("count", "auto"):
        plain, out = cpu_seconds(net, x0, n, repeats, False, uniform)
        rb, out_rb = cpu_seconds(net, x0, n, repeats, True, uniform)
        assert np.array_equal(out.draws, out_rb.draws)
        row[uniform] = (n / plain, n / rb, rb / plain)
    row.update(mean_size=float(out.size.mean()), median_size=float(np.median(out.size)))
    return row


def ahd_row(name: str, with_evidence: bool, n_chains: int, n_draws: int, seed: int) -> dict:
    bn = load_network(name)
    evidence = evidence_of(bn, name) if with_evidence else None
    exact = exact_marginals(bn, evidence)
    cps = np.unique(np.geomspace(100, n_draws, 4).astype(np.int64))
    result = sample(bn, "prune", n_draws, n_chains=n_chains, evidence=evidence, seed=seed, uniform="auto",
                    rb_checkpoints=cps, traps="off")
    ahd = {}
    for estimator in ("empirical", "rao_blackwell"):
        h = np.zeros((n_chains, cps.size))
        for v, p in exact.items():
            h += hellinger(result.running_marginals(v, cps, estimator), p)
        ahd[estimator] = h / len(exact)  # (chain, checkpoint)
    plain, rb = ahd["empirical"].mean(axis=0), ahd["rao_blackwell"].mean(axis=0)
    # standard error of the ratio of means over independent chains (delta method)
    se = (rb / plain) * np.sqrt((ahd["rao_blackwell"].std(axis=0, ddof=1) / rb) ** 2
                                + (ahd["empirical"].std(axis=0, ddof=1) / plain) ** 2) / np.sqrt(n_chains)
    return {"network": name, "evidence": "25%" if with_evidence else "none", "t": cps, "plain": plain, "rb": rb,
            "ratio": rb / plain, "se": se, "median_size": float(np.median(result.stats["size"]))}


def network_cases() -> list[tuple[str, str, object]]:
    """``(label, evidence label, loader)`` of the 24 pgmpy networks (frozen 25 %) and the rest of the paper's nine.

    The paper's asia, alarm and win95pts with 25 % evidence are the pgmpy networks
    with the same frozen sets, so they appear once.
    """
    from prunelab.lab.experiments.specs import load_case_network
    from prunelab.lab.experiments.large.networks import load_large, pgmpy_networks
    from prunelab.lab.experiments.specs import BENCHMARKS, CaseSpec
    from prunelab.lab.paper_numbers import PAPER_BENCHMARKS

    cases = [(name, "25%", functools.partial(load_large, name, True)) for name in pgmpy_networks()]
    for benchmark in PAPER_BENCHMARKS:
        network, evidence = BENCHMARKS[benchmark]
        if evidence is None:
            spec = CaseSpec(benchmark, network, "prune", evidence)
            cases.append((network, "none", functools.partial(load_case_network, spec)))
    return cases


def ess_pair(result, exact: dict, n_variables: int) -> tuple[float, float, float, list[str]]:
    """Medians over a few variables: bulk ESS of the RB terms and of the indicators, and their MCSE ratio.

    arviz's bulk ESS of the per-step RB terms and of the draws' indicators, and
    the ratio of the Monte Carlo standard errors of their means (``sd / sqrt(ESS)``,
    RB over plain).

    The ESS of each series is relative to its own variance, and the terms vary
    less than the indicators: the standard-error ratio is what the estimator buys.
    The variables: the ``n_variables`` free ones whose exact marginal is least
    certain (largest entropy), each followed through its most probable state; the
    window is the run of consecutive ``rb_checkpoints`` at the end of the chains
    (:meth:`~prunelab.SampleResult.rao_blackwell_terms`).
    """
    from prunelab.diagnostics import convergence_summary

    entropy = {v: float(-(p[p > 0] * np.log(p[p > 0])).sum()) for v, p in exact.items()}
    chosen = sorted((v for v in entropy if exact[v].max() < 0.999), key=entropy.get, reverse=True)[:n_variables]
    rb, plain, mcse = [], [], []
    for v in chosen:
        s = int(np.argmax(exact[v]))
        steps, terms = result.rao_blackwell_terms(v)
        indicator = result.draws[:, steps - 1, result.variables.index(v)] == s
        rb.append(convergence_summary(terms[:, :, s])["ess_bulk"])
        plain.append(convergence_summary(indicator)["ess_bulk"])
        mcse.append((terms[:, :, s].std() / np.sqrt(rb[-1])) / (indicator.std() / np.sqrt(plain[-1])))
    if not chosen:
        return np.nan, np.nan, np.nan, chosen
    return float(np.nanmedian(rb)), float(np.nanmedian(plain)), float(np.nanmedian(mcse)), chosen


def network_row(label: str, evidence_label: str, load, args) -> dict:
    """Cost per step (RB / plain), AHD at equal draws and ESS of one network with ``uniform="auto"``."""
    tic = time.perf_counter()
    bn, evidence = load()
    exact = exact_marginals(bn, evidence)
    net = compile_network(bn, evidence)
    x0 = initial_state(np.random.default_rng(2), bn, evidence=evidence)  # the network: exact fallback
    prune.run_chain(np.random.default_rng(0), net, x0, 3, "auto", rb_checkpoints=[3])  # warm, plan compiled
    x0 = prune.run_chain(np.random.default_rng(3), net, x0, max(args.burn_in // 10, 100), "auto").draws[-1]
    n = 50
    while True:
        t, _ = cpu_seconds(net, x0, n, 1, False, "auto")
        if t > args.seconds / 4 or n > 10**7:
            break
        n *= 4
    rate = n / max(t, 1e-9)
    n = max(int(rate * args.seconds), 50)
    plain, out = cpu_seconds(net, x0, n, args.repeats, False, "auto")
    with_rb, out_rb = cpu_seconds(net, x0, n, args.repeats, True, "auto")
    assert np.array_equal(out.draws, out_rb.draws)
    n_draws = int(np.clip(rate * args.chain_seconds, args.min_draws, args.draws))
    card = int(net.cardinality.sum())
    window = int(np.clip(8_000_000 // (card * args.chains), 100, min(n_draws - 1, 4_000)))
    log_cps = np.unique(np.geomspace(min(100, n_draws), n_draws - window, 3).astype(np.int64))
    cps = np.unique(np.concatenate([log_cps, np.arange(n_draws - window, n_draws + 1)]))
    result = sample(bn, "prune", n_draws, n_chains=args.chains, evidence=evidence, seed=args.seed, uniform="auto",
                    rb_checkpoints=cps, traps="off", n_jobs=1, progress=False)
    last = [n_draws]
    ahd = {}
    for estimator in ("empirical", "rao_blackwell"):
        h = np.zeros(args.chains)
        for v, p in exact.items():
            h += hellinger(result.running_marginals(v, last, estimator)[:, 0], p)
        ahd[estimator] = h / len(exact)
    ratio = ahd["rao_blackwell"].mean() / ahd["empirical"].mean()
    se = ratio * np.sqrt((ahd["rao_blackwell"].std(ddof=1) / ahd["rao_blackwell"].mean()) ** 2
                         + (ahd["empirical"].std(ddof=1) / ahd["empirical"].mean()) ** 2) / np.sqrt(args.chains)
    ess_rb, ess_plain, mcse_ratio, chosen = ess_pair(result, exact, args.ess_variables)
    return {"network": label, "evidence": evidence_label, "n_free": len(exact), "median_size": float(np.median(
            out.size)), "cost": with_rb / plain, "steps_per_second": n / plain, "draws": n_draws, "window": window,
            "ahd_plain": float(ahd["empirical"].mean()), "ahd_rb": float(ahd["rao_blackwell"].mean()),
            "ahd_ratio": float(ratio), "ahd_se": float(se), "ess_rb": ess_rb, "ess_plain": ess_plain,
            "ess_ratio": ess_rb / ess_plain, "mcse_ratio": mcse_ratio, "ess_variables": len(chosen),
            "wall": time.perf_counter() - tic}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timings, fewer draws")
    parser.add_argument("--seconds", type=float, default=2.0, help="timing per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--burn-in", type=int, default=5_000)
    parser.add_argument("--chains", type=int, default=20)
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2017)
    parser.add_argument("--only", choices=("cost", "ahd", "networks"), action="append",
                        help="run only this measurement (repeatable); default: all three")
    parser.add_argument("--chain-seconds", type=float, default=1.5,
                        help="networks: draws per chain are about this many seconds of plain steps")
    parser.add_argument("--min-draws", type=int, default=1_000, help="networks: at least this many draws per chain")
    parser.add_argument("--ess-variables", type=int, default=3, help="networks: variables whose ESS is compared")
    parser.add_argument("--network", action="append", help="networks: only these (repeatable)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.repeats, args.burn_in, args.draws = 0.3, 1, 1_000, 2_000
        args.chain_seconds, args.min_draws = 0.2, 500
    only = set(args.only or ("cost", "ahd", "networks"))

    print(f"prunelab Rao-Blackwell prune benchmark: numba {numba.__version__}, numpy {np.__version__}, "
          f"python {platform.python_version()}, {platform.processor() or platform.machine()}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS')}")
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (rates per CPU second)")
    if "cost" in only:
        print(f"\ncost per step, stationary start (target RB/plain <= {COST_TARGET} with uniform='count')")
        print(f"  {'network':<10}{'evidence':<10}{'count/s':>10}{'RB/s':>10}{'RB/plain':>9}"
              f"{'auto/s':>10}{'RB/s':>10}{'RB/plain':>9}{'med|S|':>8}{'mean|S|':>9}")
        for name in COST_NETWORKS:
            for with_evidence in (False, True):
                r = cost_row(name, with_evidence, args.seconds, args.repeats, args.burn_in)
                flag = "" if r["count"][2] <= COST_TARGET else "  (over target)"
                (cp, cr, cq), (ap, ar, aq) = r["count"], r["auto"]
                print(f"  {r['network']:<10}{r['evidence']:<10}{cp:>10,.0f}{cr:>10,.0f}{cq:>9.2f}{ap:>10,.0f}"
                      f"{ar:>10,.0f}{aq:>9.2f}{r['median_size']:>8.3g}{r['mean_size']:>9.3g}{flag}", flush=True)
    if "ahd" in only:
        print(f"\nAHD at equal draws, {args.chains} chains, forward starts, uniform='auto' "
              f"(target RB/plain <= {AHD_TARGET} on alarm, win95pts with 25 % evidence)")
        print(f"  {'network':<10}{'evidence':<10}{'t':>8}{'AHD plain':>11}{'AHD RB':>10}{'RB/plain':>10}"
              f"{'+-se':>7}{'med|S|':>8}")
        for name, with_evidence in AHD_CASES:
            r = ahd_row(name, with_evidence, args.chains, args.draws, args.seed)
            for k, t in enumerate(r["t"]):
                print(f"  {r['network']:<10}{r['evidence']:<10}{t:>8}{r['plain'][k]:>11.4f}{r['rb'][k]:>10.4f}"
                      f"{r['ratio'][k]:>10.3f}{r['se'][k]:>7.3f}{r['median_size']:>8.3g}", flush=True)
    if "networks" in only:
        chains = args.chains if args.chains != 20 else 8
        args.chains = 4 if args.quick else chains
        print(f"\nper network, uniform='auto', forward starts: cost per step RB/plain (best CPU of {args.repeats}), "
              f"AHD at T draws ({args.chains} chains, mean over chains, RB/plain +- se), arviz bulk ESS of the "
              f"per-step RB terms / of the indicators over the last W steps and the ratio of the standard errors "
              f"of their means (MCSE, RB/plain; medians over the {args.ess_variables} least certain variables)")
        print(f"  {'network':<12}{'ev':<6}{'free':>5}{'med|S|':>9}{'steps/s':>10}{'cost':>6}{'T':>7}"
              f"{'AHD plain':>11}{'AHD RB':>9}{'RB/plain':>9}{'+-se':>6}{'W':>6}{'ESS RB':>8}{'ESS pl':>8}"
              f"{'ratio':>7}{'MCSE':>6}{'wall':>6}")
        cases = [c for c in network_cases() if args.network is None or c[0] in args.network]
        for label, evidence_label, load in cases:
            r = network_row(label, evidence_label, load, args)
            print(f"  {r['network']:<12}{r['evidence']:<6}{r['n_free']:>5}{r['median_size']:>9.3g}"
                  f"{r['steps_per_second']:>10,.0f}{r['cost']:>6.2f}{r['draws']:>7}{r['ahd_plain']:>11.4f}"
                  f"{r['ahd_rb']:>9.4f}{r['ahd_ratio']:>9.3f}{r['ahd_se']:>6.3f}{r['window']:>6}"
                  f"{r['ess_rb']:>8.0f}{r['ess_plain']:>8.0f}{r['ess_ratio']:>7.2f}{r['mcse_ratio']:>6.2f}"
                  f"{r['wall']:>6.0f}", flush=True)


if __name__ == "__main__":
    main()
