"""PyMC's step methods on a network, and the bug of its ``proportional`` proposal.

:func:`run_pymc` runs ``CategoricalGibbsMetropolis`` (uniform or proportional
proposal) or ``Metropolis`` on :func:`~prunelab.lab.peers.convert.to_pymc`'s model, one
chain continued chunk by chunk (:func:`~prunelab.lab.peers.budget.fill_budget`).
:func:`pymc_categorical_frequencies` reproduces the ``proportional`` proposal's bug
on a single ``Categorical``; :func:`metropolized_gibbs_as_coded` and
:func:`metropolized_gibbs_liu` are the kernel as PyMC codes it and as Liu meant it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np

from prunelab.network import BayesianNetwork
from .budget import ChainTally, check_budget, fill_budget, peer_seed
from .capture import crash_note, quiet_loggers, recording_warnings, unique_messages
from .convert import import_pymc, to_pymc
from .run import PeerRun, cache_key, chain_start

__all__ = [
    "PYMC_STEPS",
    "metropolized_gibbs_as_coded",
    "metropolized_gibbs_liu",
    "pymc_categorical_draws",
    "pymc_categorical_frequencies",
    "run_pymc",
]

PYMC_STEPS = {
    "pymc-cgm-uniform": "uniform",
    "pymc-cgm-proportional": "proportional",
    "pymc-metropolis": "metropolis",
}
"""PyMC sampler name -> step method: ``CategoricalGibbsMetropolis``'s proposal, or ``Metropolis``."""


def _pymc_step(model, kind: str):
    pm = import_pymc()

    with model:
        if kind == "metropolis":
            return pm.Metropolis(model.free_RVs)
        return pm.CategoricalGibbsMetropolis(model.free_RVs, proposal=kind)


def _pymc_draws(model, step, bn, x0, n_draws, seed) -> tuple[np.ndarray, float]:
    """(draws (n_draws, n_variables) in network order, PyMC's ``sampling_time``) from ``x0``."""
    pm = import_pymc()

    free = [v.name for v in model.free_RVs]
    with model:
        idata = pm.sample(draws=int(n_draws), tune=0, step=step, chains=1, cores=1, random_seed=seed,
                          initvals={v: np.int64(x0[bn.index(v)]) for v in free},
                          progressbar=False, compute_convergence_checks=False)
    posterior = idata.posterior
    draws = np.tile(np.asarray(x0, dtype=np.int64), (int(n_draws), 1))
    for v in free:
        draws[:, bn.index(v)] = np.asarray(posterior[v].values[0], dtype=np.int64)
    return draws, float(posterior.attrs["sampling_time"])


def run_pymc(bn: BayesianNetwork, evidence: Mapping | None = None, sampler: str = "pymc-cgm-uniform", *,
             n_steps: int | None = None, seconds: float | None = None, seed=None, start=None,
             cache: dict | None = None) -> PeerRun:
    """A PyMC step method on :func:`to_pymc`'s model: ``pm.sample(chains=1, tune=0)``.

    Parameters
    ----------
    sampler : {"pymc-cgm-uniform", "pymc-cgm-proportional", "pymc-metropolis"}
    n_steps, seconds : exactly one of them
        Draws, or a budget filled by pilot-measured chunks that continue the chain
        from its last draw (see :func:`~prunelab.lab.peers.budget.fill_budget`); ``seconds`` adds up PyMC's
        own ``sampling_time`` of the counted chunks.
    start : array_like of int, optional
        Passed as ``initvals`` (default :func:`~prunelab.lab.peers.run.start_state`). PyMC's own initial
        point (each variable's mode given its parents' modes) can be infeasible.
    cache : dict, optional
        Keeps the compiled model and step between calls on the same network,
        evidence and sampler (e.g. across budgets); ``setup_seconds`` is then
        the compile time of the first call.

    Notes
    -----
    Compiling the step (in ``setup_seconds``) is not timed: ``pm.Metropolis`` builds
    one step method, and compiles one ``logp`` difference, per variable.
    """
    if sampler not in PYMC_STEPS:
        raise ValueError(f"unknown PyMC sampler {sampler!r}; known: {list(PYMC_STEPS)}")
    check_budget(n_steps, seconds)
    x0 = chain_start(bn, evidence, start, seed)
    sink: list[str] = []
    key = cache_key("pymc", bn, evidence, sampler)
    if cache is not None and key in cache:
        model, step, setup = cache[key]
    else:
        t0 = time.perf_counter()
        try:
            import_pymc()  # import-time deprecations go to the usual filters, not the sink
        except ImportError as exc:  # an optional extra, as pyAgrum
            return PeerRun(sampler, "not installed", note=str(exc))

        try:
            with recording_warnings(sink), quiet_loggers("pymc", "pytensor"):
                model = to_pymc(bn, evidence)
                step = _pymc_step(model, PYMC_STEPS[sampler])
        except Exception as exc:  # noqa: BLE001
            return PeerRun(sampler, "not built", setup_seconds=time.perf_counter() - t0, note=crash_note(exc),
                           warnings=unique_messages(sink))
        setup = time.perf_counter() - t0
        if cache is not None:
            cache[key] = (model, step, setup)
    tally = ChainTally(bn, evidence, x0)

    def draw(n, start_from, salt):
        return _pymc_draws(model, step, bn, start_from, n, peer_seed(seed, 100 + salt))

    try:
        with recording_warnings(sink), quiet_loggers("pymc", "pytensor"):
            setup += fill_budget(draw, tally, n_steps, seconds, pilot_start=5)
    except Exception as exc:  # noqa: BLE001 - a crash is reported, not raised
        return PeerRun(sampler, "crashed", setup_seconds=setup, note=crash_note(exc), warnings=unique_messages(sink))
    return PeerRun(sampler, "ok", tally.n_steps, tally.seconds, setup, tally.marginals(), tally.move_rate,
                   warnings=unique_messages(sink))


# --------------------------------------------------------------------------- PyMC's proportional proposal
def pymc_categorical_draws(p, n_draws: int = 5000, proposal: str = "proportional", seed: int = 0,
                           initval: int | None = None) -> np.ndarray:
    """Draws of ``CategoricalGibbsMetropolis`` on a single ``pm.Categorical("x", p)``.

    Returns
    -------
    numpy.ndarray of int64, shape (n_draws,)

    See Also
    --------
    pymc_categorical_frequencies
    """
    pm = import_pymc()

    p = np.asarray(p, dtype=np.float64)
    with quiet_loggers("pymc"), pm.Model():
        x = pm.Categorical("x", p=p)
        step = pm.CategoricalGibbsMetropolis([x], proposal=proposal)
        idata = pm.sample(draws=int(n_draws), tune=0, step=step, chains=1, cores=1, random_seed=seed,
                          initvals=None if initval is None else {"x": np.int64(initval)},
                          progressbar=False, compute_convergence_checks=False)
    return np.asarray(idata.posterior["x"].values[0], dtype=np.int64)


def pymc_categorical_frequencies(p, n_draws: int = 5000, proposal: str = "proportional", seed: int = 0) -> np.ndarray:
    """Share of each category among PyMC's draws of one ``Categorical(p)``: should be ``p``.

    A minimal reproduction, without any network, of what we found in
    ``CategoricalGibbsMetropolis(proposal="proportional")`` on pymc 5.28.5: the
    chain does not target ``p``. For ``p = [0.5, 0.5]`` it never moves; for
    ``p = [0.6, 0.3, 0.1]`` it samples about ``[0.48, 0.41, 0.11]``.
    ``proposal="uniform"`` gives ``p``. Standalone::

        import numpy as np, pymc as pm

        for p in ([0.5, 0.5], [0.6, 0.3, 0.1]):
            for proposal in ("proportional", "uniform"):
                with pm.Model():
                    x = pm.Categorical("x", p=np.array(p))
                    step = pm.CategoricalGibbsMetropolis([x], proposal=proposal)
                    idata = pm.sample(draws=5000, tune=0, step=step, chains=1, cores=1,
                                      random_seed=0, progressbar=False,
                                      compute_convergence_checks=False)
                draws = idata.posterior["x"].values.ravel()
                print(p, proposal, np.bincount(draws, minlength=len(p)) / draws.size)

    The cause, in ``CategoricalGibbsMetropolis.metropolis_proportional``: the
    proposal is Liu's (1996) Metropolized Gibbs sampler, ``j != i`` with
    probability ``p_j / (1 - p_i)``, to be accepted with ``(1 - p_i) / (1 - p_j)``.
    The code renormalises ``probs`` in place before computing the ratio, so it
    uses ``1 - p_j / (1 - p_i)`` instead of ``1 - p_j``. With two categories that
    denominator is 0, the ratio is infinite, and ``not np.isfinite`` rejects every
    proposal; with three it converges to :func:`metropolized_gibbs_as_coded`'s
    stationary distribution. Keeping ``p_j`` before renormalising fixes it. When
    the current category has probability 1 (a deterministic conditional), the
    renormalisation divides by zero and ``rng.choice`` raises "Probabilities
    contain NaN".

    Returns
    -------
    numpy.ndarray
        Frequencies of the categories (length ``len(p)``).
    """
    draws = pymc_categorical_draws(p, n_draws, proposal, seed)
    return np.bincount(draws, minlength=len(p)) / draws.size


def _metropolized_gibbs(p, as_coded: bool) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=np.float64)
    k = p.size
    transition = np.zeros((k, k))
    for i in range(k):
        q = p.copy()
        q[i] = 0.0
        q /= 1.0 - p[i]
        for j in range(k):
            if j == i:
                continue
            denominator = 1.0 - (q[j] if as_coded else p[j])
            ratio = (1.0 - p[i]) / denominator if denominator > 0 else math.inf
            transition[i, j] = q[j] * (min(1.0, ratio) if math.isfinite(ratio) else 0.0)
        transition[i, i] = 1.0 - transition[i].sum()
    values, vectors = np.linalg.eig(transition.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    return transition, stationary / stationary.sum()


def metropolized_gibbs_as_coded(p) -> tuple[np.ndarray, np.ndarray]:
    """Transition matrix and stationary distribution of PyMC 5.28.5's ``proportional`` step.

    The kernel as the code computes it (acceptance ``(1 - p_i) / (1 - q_j)`` with
    ``q`` the renormalised proposal, and an infinite ratio rejected). Its
    stationary distribution is not ``p``: for ``[0.6, 0.3, 0.1]`` it is about
    ``[0.480, 0.408, 0.112]``; for two categories the kernel is the identity.

    Examples
    --------
    >>> _, s = metropolized_gibbs_as_coded([0.6, 0.3, 0.1])
    >>> s.round(3).tolist()
    [0.48, 0.408, 0.112]
    >>> metropolized_gibbs_as_coded([0.5, 0.5])[0].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _metropolized_gibbs(p, as_coded=True)


def metropolized_gibbs_liu(p) -> tuple[np.ndarray, np.ndarray]:
    """Transition matrix and stationary distribution of Liu's (1996) Metropolized Gibbs sampler.

    The kernel ``CategoricalGibbsMetropolis(proposal="proportional")`` means to
    implement; its stationary distribution is ``p``.

    Examples
    --------
    >>> _, s = metropolized_gibbs_liu([0.6, 0.3, 0.1])
    >>> s.round(12).tolist()
    [0.6, 0.3, 0.1]
    """
    return _metropolized_gibbs(p, as_coded=False)
