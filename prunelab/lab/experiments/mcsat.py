"""What SampleSAT costs MC-SAT: its bias on small networks, and the paper's indicators beside the other samplers.

Two kinds of run, each a flat record (:func:`prunelab.lab.experiments.framework.sweep`):

``bias``
    one (network, SampleSAT setting): the long-run visit frequencies of
    :attr:`McsatProfile.bias_chains` chains of :attr:`McsatProfile.bias_steps` steps
    against the exact ``P(x | e)``: total variation, Hellinger distance, the largest
    and smallest ratio ``visits / P``, flips and microseconds per step, and the
    SampleSAT settings. The ``exact`` setting (MC-SAT with the exact uniform draw,
    that is prune sampling) is the sampling-noise reference at the same length;
``benchmark``
    one (network, sampler): the paper's indicators for the query variable over
    :attr:`McsatProfile.runs` independent runs of :attr:`McsatProfile.draws` draws:
    AHD at ``T``, sigma_T, alpha (delta = 0.9), seconds per draw, the time to
    sigma_t = 0.01 and the trap check.

::

    from prunelab.lab.experiments import EXPERIMENTS, results
    tables = results(EXPERIMENTS["mcsat"], "smoke")       # tables["bias"], tables["benchmark"]

or ``python -m prunelab run mcsat --profile paper`` (about 8 minutes on one core).
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass

import numpy as np

from .framework import run_seed_sequence
from prunelab import load_network
from prunelab.compiled import compile_network
from prunelab.indicators import hellinger
from prunelab.samplers import mcsat
from prunelab.samplers.init import initial_state
from prunelab import sample
from prunelab.exact import exact_marginals
from prunelab.indicators import AlphaFitError, fit_alpha, log_checkpoints, sigma_t, time_to_sigma

__all__ = ["BENCH_CASES", "BIAS_CASES", "MCSAT", "MCSAT_PROFILES", "SAMPLERS", "SETTINGS", "McsatProfile", "McsatRun"]

FIRST_ROW = {"v_1_1": "T", "v_1_2": "T", "v_1_3": "T"}
BIAS_CASES = {
    "block_chain (n = 3)": ("block_chain", {"n": 3}, None),
    "blood_pressure | m_e": ("blood_pressure", {}, {"Measurement": "m_e"}),
    "grid-3x3 | first row T": ("grid-3x3", {}, FIRST_ROW),
    "asia | xray, no dysp": ("asia", {}, {"xray": "yes", "dysp": "no"}),
}
"""The bias runs' networks: ``label: (network, options, evidence)``."""

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
"""The uniform draws of the bias runs: ``label: (uniform, SampleSAT options)``."""

BENCH_CASES = {
    "blood_pressure | m_e": ("blood_pressure", {}, {"Measurement": "m_e"}, "Lifestyle"),
    "grid-3x3 | first row T": ("grid-3x3", {}, FIRST_ROW, "v_3_3"),
    "asia | xray, no dysp": ("asia", {}, {"xray": "yes", "dysp": "no"}, "lung"),
}
"""The benchmark runs' networks: ``label: (network, options, evidence, query variable)``."""

SAMPLERS = {
    "prune": ("prune", {}),
    "gibbs": ("gibbs", {}),
    "metropolis": ("metropolis", {}),
    "mc-sat / SampleSAT": ("mc-sat", {"uniform": "samplesat"}),
}
"""The benchmark runs' samplers: ``label: (registered sampler, options)``."""


@dataclass(frozen=True)
class McsatProfile:
    """How much the MC-SAT experiment runs: steps and chains of a bias run, runs and draws of a benchmark run."""

    name: str
    bias_steps: int
    bias_chains: int
    runs: int
    draws: int

    def to_dict(self) -> dict:
        """The spec as plain JSON-ready values."""
        return asdict(self)


MCSAT_PROFILES = {
    "paper": McsatProfile("paper", bias_steps=100_000, bias_chains=4, runs=20, draws=20_000),
    "smoke": McsatProfile("smoke", bias_steps=2_000, bias_chains=2, runs=4, draws=500),
}
"""``paper``: about 8 minutes on one core; ``smoke``: seconds, for the book's smoke build and the tests."""


def _slug(label: str) -> str:
    """A label as part of a file name: ``"asia | xray, no dysp"`` -> ``"asia-xray-no-dysp"``."""
    return re.sub(r"[^A-Za-z0-9.=+]+", "-", label).strip("-")


@dataclass(frozen=True)
class McsatRun:
    """One run of the MC-SAT experiment.

    A bias run has a ``network`` label of :data:`BIAS_CASES` and a ``setting`` of
    :data:`SETTINGS`; a benchmark run a ``network`` of :data:`BENCH_CASES` and a
    sampler label of :data:`SAMPLERS` as its ``setting``.

    Examples
    --------
    >>> McsatRun("bias", "asia | xray, no dysp", "T = 0.1").id
    'bias.asia-xray-no-dysp.T-=-0.1'
    """

    kind: str
    network: str
    setting: str

    @property
    def id(self) -> str:
        """``<kind>.<network slug>.<setting slug>``."""
        return f"{self.kind}.{_slug(self.network)}.{_slug(self.setting)}"


def visit_distribution(draws: np.ndarray, states: np.ndarray, cardinality: np.ndarray) -> np.ndarray:
    """Share of ``draws`` (rows) in each of ``states`` (lexicographic rows).

    Examples
    --------
    >>> visit_distribution(np.array([[0, 1], [0, 1], [1, 0]]), np.array([[0, 1], [1, 0]]), np.array([2, 2])).tolist()
    [0.6666666666666666, 0.3333333333333333]
    """
    radix = np.cumprod(np.r_[1, cardinality[:0:-1]])[::-1]
    index = np.searchsorted(states @ radix, draws @ radix)
    return np.bincount(index, minlength=len(states)) / len(draws)


def _bias_run(run: McsatRun, prof: McsatProfile, root_seed: int) -> dict:

    from prunelab.theory import feasible_states  # here, not at the top: theory imports scipy.stats (3 s measured)

    name, options, evidence = BIAS_CASES[run.network]
    uniform, sat = SETTINGS[run.setting]
    bn = load_network(name, **options)
    net = compile_network(bn, evidence)
    states, p = feasible_states(bn, evidence)
    mcsat.run_chain(np.random.default_rng(0), net, states[0], 2, uniform, **sat)  # compiled before the clock
    draws, seconds, flips = [], 0.0, []
    for chain_seed in run_seed_sequence(run.id, root_seed).spawn(prof.bias_chains):
        rng = np.random.default_rng(chain_seed)
        x0 = initial_state(rng, net)
        tic = time.perf_counter()
        chain = mcsat.run_chain(rng, net, x0, prof.bias_steps, uniform, **sat)
        seconds += time.perf_counter() - tic
        draws.append(chain.draws)
        flips.append(chain.n_flips.mean())
    q = visit_distribution(np.concatenate(draws), states, net.cardinality)
    n_steps = prof.bias_chains * prof.bias_steps
    return {
        "states": len(states), "steps": n_steps, "total_variation": float(0.5 * np.abs(q - p).sum()),
        "hellinger": float(hellinger(q, p)), "max_ratio": float((q / p).max()), "min_ratio": float((q / p).min()),
        "mean_flips": float(np.mean(flips)), "us_per_step": 1e6 * seconds / n_steps,
        **{k: v for k, v in {**mcsat.ALCHEMY_DEFAULTS._asdict(), **sat}.items() if uniform == "samplesat"},
    }


def _benchmark_run(run: McsatRun, prof: McsatProfile, root_seed: int) -> dict:

    name, options, evidence, query = BENCH_CASES[run.network]
    sampler, kw = SAMPLERS[run.setting]
    bn = load_network(name, **options)
    exact = exact_marginals(bn, evidence)[query]
    checkpoints = log_checkpoints(prof.draws)
    sample(bn, sampler, 10, evidence=evidence, seed=0, traps="off", **kw)  # compiled before the clock
    result = sample(bn, sampler, prof.draws, n_chains=prof.runs, evidence=evidence,
                    seed=run_seed_sequence(run.id, root_seed), traps="record", **kw)
    estimates = result.running_marginals(query, checkpoints)
    sigma = sigma_t(estimates, state=0)
    seconds_per_draw = float(np.mean(result.sample_seconds) / prof.draws)
    try:
        alpha = fit_alpha(checkpoints, sigma, delta=0.9).alpha
    except AlphaFitError:
        alpha = float("nan")
    return {
        "query": query, "runs": prof.runs, "draws": prof.draws,
        "ahd_T": float(np.mean(hellinger(estimates[:, -1], exact))), "sigma_T": float(sigma[-1]),
        "alpha": alpha, "seconds_per_draw": seconds_per_draw,
        "seconds_to_sigma_0.01": time_to_sigma(alpha, seconds_per_draw).seconds,
        "trapped": bool(result.trap.trapped), "exact_query_0": float(exact[0]),
        "mean_query_0": float(estimates[:, -1, 0].mean()),
    }


class _Mcsat:
    """The experiment (:class:`prunelab.lab.experiments.framework.Experiment`)."""

    name = "mcsat"
    profiles = MCSAT_PROFILES
    tables = {"bias": "bias", "benchmark": "benchmark"}
    libraries = ()

    def plan(self, profile) -> tuple[McsatRun, ...]:
        """Every bias run, then every benchmark run, in the order of the tables above."""
        return (*(McsatRun("bias", n, s) for n in BIAS_CASES for s in SETTINGS),
                *(McsatRun("benchmark", n, s) for n in BENCH_CASES for s in SAMPLERS))

    def run(self, run: McsatRun, profile: McsatProfile, root_seed: int) -> dict:
        """One run's record; its chains' seeds are spawned from the run's id."""
        tic = time.perf_counter()
        body = _bias_run if run.kind == "bias" else _benchmark_run
        label = "setting" if run.kind == "bias" else "sampler"
        record = {"id": run.id, "network": run.network, label: run.setting, **body(run, profile, root_seed)}
        record["wall_seconds"] = time.perf_counter() - tic
        return record


MCSAT = _Mcsat()
"""The MC-SAT experiment."""
