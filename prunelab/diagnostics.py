"""Diagnostics for sampler output: R-hat, bulk and tail ESS, ESS per second, traps.

The edge layer between the array API and ArviZ (0.x). A query is tracked by a scalar
per draw, typically the indicator ``1{x_query = state}`` of shape ``(chain, draw)``;
its mean is the estimate of ``P(query = state)`` and its ESS is the number of iid
draws that estimate is worth. :func:`ess_from_alpha` ties that to the paper's
rate-of-convergence constant alpha.

:func:`chain_disagreement` (numpy and scipy only, so :func:`prunelab.sample` can
call it without ArviZ) tests whether chains disagree beyond what their ESS allows;
:class:`SamplerTrappedWarning` is what :func:`prunelab.sample` warns with.

ArviZ is imported on first use (it is slow to import and pulls in matplotlib).
"""

from __future__ import annotations

import contextlib
import warnings
from typing import NamedTuple

import numpy as np

__all__ = [
    "ESS_MARGIN",
    "MIN_DRAWS",
    "MIN_EXPECTED_COUNT",
    "TRAP_FALSE_ALARM",
    "SamplerTrappedWarning",
    "TrapReport",
    "arviz_notice_ignored",
    "chain_disagreement",
    "convergence_summary",
    "ess_from_alpha",
    "to_inference_data",
]

TRAP_FALSE_ALARM = 1e-3
"""Family-wise false-alarm rate of the disagreement test of :func:`prunelab.sample`
(Bonferroni over every tested indicator of every free variable)."""


MIN_DRAWS = 100
"""Fewest draws per chain for which :func:`chain_disagreement` judges; shorter chains cannot
show their autocorrelation time (a slow but healthy sampler would look trapped)."""

ESS_MARGIN = 2.0
"""Factor by which :func:`chain_disagreement` allows the estimated ESS to be too large:
the estimate from finite chains is noisy and biased up, and the test is only as good as it."""

MIN_EXPECTED_COUNT = 5
"""Smallest effective count ``ESS * min(p, 1 - p)`` for which :func:`chain_disagreement` tests."""


class SamplerTrappedWarning(UserWarning):
    """The chains of :func:`prunelab.sample` look trapped; their marginals are not to be trusted.

    Raised as a warning (``warnings.warn``), so it can be filtered or caught by
    category::

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", prunelab.SamplerTrappedWarning)
            result = prunelab.sample(bn, "gibbs", 1000)

    The details are in ``result.trap`` (a :class:`TrapReport`).
    """


class TrapReport(NamedTuple):
    """Signs that chains are trapped, as :func:`prunelab.sample` found them (:func:`prunelab.traps.trap_report`).

    Attributes
    ----------
    stuck : tuple of str
        For single-site samplers (``SINGLE_SITE = True``: Gibbs, Metropolis), the
        free variables that never changed in any chain (nor from the start state),
        although the evidence allows another of their states (a state with
        ``P(x, e) > 0`` and another value was found), and that no single-site move
        could change from any state the chains visited
        (:func:`prunelab.samplers.init.single_site_frozen`). For Gibbs and
        Metropolis this is a trap, not bad luck: their moves had probability zero.
    disagreeing : tuple of str
        Free variables whose chains disagree beyond what their ESS allows:
        :func:`chain_disagreement` below ``threshold`` for one of their states.
    p_values : dict of str to float
        Per free variable, the smallest p-value of :func:`chain_disagreement` over
        its states, over every chain (those in which the variable never moved
        count with their constant mean: a chain held in one state is the plainest
        disagreement there is).
    threshold : float
        :data:`TRAP_FALSE_ALARM` divided by the number of tests.
    split : tuple of str
        For every sampler, the free variables that one chain held at a state for
        at least :data:`MIN_DRAWS` consecutive draws and a tenth of its draws
        (:data:`prunelab.traps.HELD_SHARE`), a state that another chain
        never visited (:func:`prunelab.traps.held_apart`): chains held at
        different constant values (R-hat infinite), or a chain that left, once, a
        state the others never saw (R-hat large); or that every chain held at one
        same state for all its draws although exact inference gives the other
        states a tenth of the probability or more.
        Exact zeros trap single-site samplers this way, near-zero entries (a label
        kept with probability ``c`` close to 0) prune sampling and MC-SAT.
    """

    stuck: tuple[str, ...] = ()
    disagreeing: tuple[str, ...] = ()
    p_values: dict = {}
    threshold: float = float("nan")
    split: tuple[str, ...] = ()

    @property
    def trapped(self) -> bool:
        """Whether any variable is stuck, split or disagreeing."""
        return bool(self.stuck or self.disagreeing or self.split)

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable flagged, each once: stuck, then split, then disagreeing."""
        return tuple(dict.fromkeys((*self.stuck, *self.split, *self.disagreeing)))

    def message(self, sampler: str, n_chains: int) -> str:
        """The text of the :class:`SamplerTrappedWarning`."""
        parts = []
        if self.stuck:
            parts.append(
                f"free variable(s) {list(self.stuck)} never changed in any of the {n_chains} chain(s), although "
                "the evidence allows other states and no single-site move could change them from the states visited"
            )
        if self.split:
            parts.append(
                f"chains were held apart on {list(self.split)} (one chain stayed a tenth of its draws or more, in one "
                "stay, in a state that another never visited, or all stayed in a state whose exact probability is "
                "0.9 or less): zero or near-zero entries keep the sampler from moving between those states"
            )
        if self.disagreeing:
            parts.append(
                f"the chains disagree on {list(self.disagreeing)} beyond what their ESS allows "
                f"(homogeneity test of the chain means, p < {self.threshold:.2g})"
            )
        return (
            f"{sampler} chains look trapped: " + "; ".join(parts)
            + ". Their marginals are not to be trusted (see result.trap): run longer chains, or a sampler that "
            "moves between these states (prune sampling for exact zeros, prune-tempered for near-zero entries)."
        )

# ArviZ 0.x warns once a day on import that 1.0 will be a refactor (a date stamp in
# the user's cache directory decides, so a fresh machine or a new day shows it). It is
# a notice about the future of the library, not about our use of it; on a book page it
# would be stderr output, and with the tests' ``filterwarnings = error`` an error.
_ARVIZ_IMPORT_NOTICE = r"\s*ArviZ is undergoing a major refactor"


@contextlib.contextmanager
def arviz_notice_ignored():
    """Ignore ArviZ's once-a-day import notice, and nothing else, inside the block.

    ArviZ 0.x prints a ``FutureWarning`` about its coming 1.0 refactor on the first
    import of each day (per user cache directory). Import ArviZ, or a library that
    imports it such as PyMC, inside this block so that the notice never reaches a
    page or a log, whatever the day or the machine. Every other warning still shows.

    Examples
    --------
    >>> with arviz_notice_ignored():
    ...     import arviz
    >>> arviz.__name__
    'arviz'
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_ARVIZ_IMPORT_NOTICE, category=FutureWarning)
        yield


def _arviz():
    try:
        with arviz_notice_ignored():
            import arviz
    except ImportError as exc:
        raise ImportError(
            f"R-hat, ESS and InferenceData need ArviZ, which is not installed ({exc}); "
            "pip install 'prunelab[experiments]'"
        ) from None
    return arviz


def _as_chains(indicator, min_draws: int = 1) -> np.ndarray:
    values = np.asarray(indicator, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"indicator must have shape (chain, draw), got {values.shape}")
    if values.shape[1] < min_draws:
        raise ValueError("need at least 4 draws per chain (split R-hat halves each chain)")
    if not np.isfinite(values).all():
        raise ValueError("indicator values must be finite")
    return values


def _total_seconds(seconds, n_chains: int) -> float:
    seconds = np.asarray(seconds, dtype=float)
    if seconds.ndim == 0:
        seconds = np.full(n_chains, float(seconds))
    if seconds.shape != (n_chains,):
        raise ValueError(f"seconds must be a scalar or one value per chain ({n_chains}), got {seconds.shape}")
    if (seconds < 0).any() or not np.isfinite(seconds).all():
        raise ValueError("seconds must be finite and non-negative")
    return float(seconds.sum())


def to_inference_data(indicator, seconds=None, name: str = "query"):
    """Wrap a ``(chain, draw)`` array as an ArviZ InferenceData posterior group.

    Parameters
    ----------
    indicator : array_like
        Per-draw values of shape ``(chain, draw)``, e.g. ``draws[:, :, j] == state``;
        stored as float.
    seconds : float or array_like, optional
        Sampling seconds per chain (a scalar means the same for every chain). Stored
        in the posterior attributes as ``sampling_time`` (the total over chains, in
        CPU seconds, not wall time) and ``sampling_time_per_chain``.
    name : str, default "query"
        Variable name in the posterior group.

    Returns
    -------
    arviz.InferenceData

    References
    ----------
    Phillipson, Parie and Weikamp, "Prune Sampling: a MCMC inference technique for
    discrete and deterministic Bayesian networks" (2019): 100 runs per method are
    the chains here.

    Examples
    --------
    >>> idata = to_inference_data(np.zeros((2, 10)), seconds=[0.5, 0.7])
    >>> idata.posterior["query"].shape, idata.posterior.attrs["sampling_time"]
    ((2, 10), 1.2)
    """
    values = _as_chains(indicator)
    attrs = {}
    if seconds is not None:
        attrs["sampling_time"] = _total_seconds(seconds, values.shape[0])
        per_chain = np.broadcast_to(np.asarray(seconds, dtype=float), (values.shape[0],))
        attrs["sampling_time_per_chain"] = per_chain.tolist()
    return _arviz().from_dict(posterior={name: values}, posterior_attrs=attrs)


def convergence_summary(indicator, seconds_per_chain=None) -> dict:
    """Rank-normalised split R-hat, bulk and tail ESS, and ESS per second.

    Parameters
    ----------
    indicator : array_like
        Per-draw values of shape ``(chain, draw)``, e.g. ``1{x_query = state}``.
    seconds_per_chain : float or array_like, optional
        Sampling seconds of each chain (scalar: the same for all). When given,
        ``ess_per_second = ess_bulk / total`` with ``total`` summed over chains: the
        cost in CPU seconds, whatever the parallelism.

    Returns
    -------
    dict
        ``rhat``, ``ess_bulk``, ``ess_tail`` (floats), ``n_draws`` (chains times draws),
        ``constant_chains`` (how many chains never change value) and, with seconds,
        ``ess_per_second``.

        Degenerate chains are reported, not hidden:

        * every chain constant at the same value: ``rhat``, ``ess_bulk`` and
          ``ess_tail`` are ``nan``. There is no variation to compare, so nothing is
          known about mixing: a sampler trapped in one state (not ergodic) looks
          exactly like this. ArviZ itself gives ``nan`` R-hat here but an ESS equal
          to the number of draws, which would read as perfect mixing.
        * every chain constant but not all at the same value (runs trapped in
          different states): ``rhat`` is ``inf`` (no within-chain variance, some
          between-chain variance) and the ESS values are ``nan``. ArviZ would return
          a huge finite R-hat from its rank jitter, with a division warning.

        Check with :func:`numpy.isnan` / :func:`numpy.isinf`, or ``constant_chains``.

    References
    ----------
    Vehtari, Gelman, Simpson, Carpenter and Buerkner, "Rank-normalization, folding,
    and localization: an improved R-hat for assessing convergence of MCMC",
    Bayesian Analysis 16(2), 2021. Phillipson, Parie and Weikamp (2019) for the
    time-consumption indicator that ESS per second complements.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> summary = convergence_summary(rng.random((4, 1000)) < 0.3, seconds_per_chain=0.5)
    >>> bool(summary["rhat"] < 1.01), summary["n_draws"]
    (True, 4000)
    """
    values = _as_chains(indicator, min_draws=4)
    n_chains = values.shape[0]
    constant = np.ptp(values, axis=1) == 0
    summary = {"n_draws": int(values.size), "constant_chains": int(constant.sum())}
    if constant.all():
        if np.ptp(values[:, 0]) == 0:
            rhat = np.nan  # no variation anywhere: undefined
        else:
            rhat = np.inf  # no within-chain variation, some between chains
        summary.update(rhat=rhat, ess_bulk=np.nan, ess_tail=np.nan)
    else:
        az = _arviz()
        summary.update(
            rhat=float(az.rhat(values, method="rank")),
            ess_bulk=float(az.ess(values, method="bulk")),
            ess_tail=float(az.ess(values, method="tail")),
        )
    if seconds_per_chain is not None:
        total = _total_seconds(seconds_per_chain, n_chains)
        summary["ess_per_second"] = summary["ess_bulk"] / total if total > 0 else np.inf
    return summary


def ess_from_alpha(t, p, alpha):
    """Effective sample size implied by the paper's rate-of-convergence constant alpha.

    A run of ``t`` draws estimates ``p = P(query = state)`` with standard deviation
    ``sigma_t = alpha / sqrt(t)``; iid draws would give ``sqrt(p (1 - p) / n)``.
    Equating, a run is worth

    .. math:: \\mathrm{ESS} = t \\, \\frac{p (1 - p)}{\\alpha^2}

    iid draws. For iid draws ``alpha = sqrt(p (1 - p))`` and ``ESS = t``; the paper's
    alphas are to be read against ``sqrt(p (1 - p))``.

    Parameters
    ----------
    t : float or array_like
        Draws per run.
    p : float or array_like
        The probability estimated, in ``[0, 1]``.
    alpha : float or array_like
        Rate-of-convergence constant, positive (from
        :func:`prunelab.indicators.fit_alpha`).

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators",
    subsection "Rate of convergence". A. B. Owen, "Monte Carlo theory, methods and
    examples" (2013), for effective sample size.

    Examples
    --------
    >>> ess_from_alpha(10_000, 0.5, 0.5)
    10000.0
    >>> ess_from_alpha(10_000, 0.5, 1.0)
    2500.0
    """
    t = np.asarray(t, dtype=float)
    p = np.asarray(p, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    if ((p < 0) | (p > 1)).any():
        raise ValueError("p must lie in [0, 1]")
    if (alpha <= 0).any():
        raise ValueError("alpha must be positive")
    ess = t * p * (1 - p) / alpha**2
    return float(ess) if ess.ndim == 0 else ess


def _within_chain_tau(values: np.ndarray) -> float:
    """Autocorrelation time from the within-chain autocovariances (Geyer's initial monotone sequence).

    Each chain is centred on its own mean and the autocovariances are averaged over
    chains, so differences *between* chains do not enter (they are what is tested).
    At least 1. Chains that never change contribute nothing.
    """
    n_chains, n_draws = values.shape
    centred = values - values.mean(axis=1, keepdims=True)
    size = 1 << int(2 * n_draws - 1).bit_length()
    spectrum = np.fft.rfft(centred, n=size, axis=1)
    acov = np.fft.irfft(spectrum * np.conjugate(spectrum), n=size, axis=1)[:, :n_draws].mean(axis=0) / n_draws
    rho = acov / acov[0]
    pairs = rho[: 2 * (n_draws // 2)].reshape(-1, 2).sum(axis=1)
    positive = np.flatnonzero(pairs <= 0.0)
    pairs = pairs[: positive[0] if positive.size else pairs.size]
    pairs = np.minimum.accumulate(pairs)
    return max(-1.0 + 2.0 * float(pairs.sum()), 1.0)


def chain_disagreement(indicator) -> float:
    """p-value of "all chains sample the same distribution", given the ESS of their own moves.

    For a 0/1 indicator ``y`` (e.g. ``1{x_i = s}``) of ``M`` chains of ``N`` draws,
    with pooled mean ``p``: if the chains sample one stationary distribution, each
    chain mean ``m_c`` has variance ``p (1 - p) / ESS`` with ``ESS = N / tau``, so

    .. math:: Q = \\sum_c \\frac{(m_c - p)^2 \\, \\mathrm{ESS}}{p (1 - p)}

    is approximately chi-square with ``M - 1`` degrees of freedom (the homogeneity
    test of the chain means, each worth its ESS rather than its ``N`` draws). The
    p-value is ``P(chi2_{M-1} >= Q)``.

    ``tau`` is the autocorrelation time of the chains' *own* fluctuations: each chain
    is centred on its own mean, the autocovariances are averaged over chains and
    summed with Geyer's initial monotone sequence (at least 1). Chains that never
    change add nothing to it; if no chain changes the p-value is 1: chains that each
    sit still in a different state are not evidence by themselves (a slow sampler
    looks the same over a short run; structural traps are found otherwise, see
    :class:`TrapReport`). What the test catches is chains that move within their own
    part of the space but not to the part the other chains see (block-shaped
    determinism, metastable modes).

    The estimate of ``tau`` from finite chains is noisy and tends to be low, and an
    ESS too large by a factor ``r`` multiplies ``Q`` by ``r``; so the ESS is divided
    by :data:`ESS_MARGIN` (2) first, and chains shorter than :data:`MIN_DRAWS` (100)
    are not judged. The chi-square law needs enough expected counts in both cells;
    as for Pearson's test, the p-value is only computed when
    ``ESS * min(p, 1 - p) >=`` :data:`MIN_EXPECTED_COUNT` (5). Otherwise it is 1: a
    short run, or a rare state, is not judged.

    Parameters
    ----------
    indicator : array_like (chain, draw)
        At least two chains of at least two draws; values 0 or 1.

    Returns
    -------
    float
        The p-value; 1.0 when the pooled mean is 0 or 1, no chain ever changes, or
        there are too few draws or effective draws to judge.

    References
    ----------
    A. Gelman and D. B. Rubin, "Inference from iterative simulation using multiple
    sequences", Statistical Science 7(4), 1992 (chain means against within-chain
    variability); C. J. Geyer, "Practical Markov chain Monte Carlo", Statistical
    Science 7(4), 1992 (initial monotone sequence estimator of the autocorrelation time).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> bool(chain_disagreement(rng.random((4, 1000)) < 0.3) > 0.001)
    True
    >>> moving = (rng.random((1, 200)) < 0.5).astype(float)  # one chain moves between 0 and 1
    >>> chain_disagreement(np.vstack([moving, np.zeros((1, 200))])) < 1e-6
    True
    """
    from scipy import stats

    values = np.asarray(indicator, dtype=float)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"need an array (chain, draw) with at least 2 chains of 2 draws, got shape {values.shape}")
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError("indicator values must be 0 or 1")
    n_chains, n_draws = values.shape
    p = float(values.mean())
    if p in (0.0, 1.0) or not np.any(np.diff(values, axis=1)):
        return 1.0
    if n_draws < MIN_DRAWS:
        return 1.0
    ess = n_draws / _within_chain_tau(values) / ESS_MARGIN
    if ess * min(p, 1.0 - p) < MIN_EXPECTED_COUNT:
        return 1.0  # too few effective draws in one of the two states for the chi-square law
    q = float(((values.mean(axis=1) - p) ** 2).sum()) * ess / (p * (1.0 - p))
    return float(stats.chi2.sf(q, n_chains - 1))
