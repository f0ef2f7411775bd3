"""Diagnostics for sampler output: R-hat, bulk and tail ESS, ESS per second.

The edge layer between the array API and ArviZ (0.x). A query is tracked by a scalar
per draw, typically the indicator ``1{x_query = state}`` of shape ``(chain, draw)``;
its mean is the estimate of ``P(query = state)`` and its ESS is the number of iid
draws that estimate is worth. :func:`ess_from_alpha` ties that to the paper's
rate-of-convergence constant alpha.

The trap check of :func:`prunelab.sample` (chains that disagree beyond their ESS,
single-site traps) needs no ArviZ and lives in :mod:`prunelab.traps`. The chains of
a :class:`~prunelab.SampleResult` as ArviZ data, for its own plots and summaries:
:meth:`prunelab.SampleResult.to_inference_data`.

ArviZ is imported on first use (it is slow to import and pulls in matplotlib).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from .extras import require

__all__ = [
    "arviz_notice_ignored",
    "convergence_summary",
    "ess_from_alpha",
]

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
    """ArviZ, imported without its notice, or :class:`~prunelab.extras.MissingExtraError` naming the extra."""
    with arviz_notice_ignored():
        return require("arviz", "experiments", "computing R-hat and ESS")


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

        ``rhat`` is ArviZ's rank R-hat, the larger of the bulk R-hat (split R-hat of
        the rank-normalised draws) and the tail R-hat (the same of the draws folded
        about their median, ``|x - median|``). Draws with exactly two distinct values,
        such as an indicator, are the exception: there ``rhat`` is the bulk R-hat.
        Folding two values about any point but their midpoint only relabels them, so
        the tail R-hat equals the bulk R-hat (ranks reversed at most, which leaves
        split R-hat unchanged); when the median is the midpoint (exactly half the
        draws at each value) every folded draw is the same and the tail R-hat is
        0/0, undefined. The bulk R-hat is then the value the tail R-hat has for
        every other split of the draws, and no division warning is raised.

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

    Half the draws at each value: the tail R-hat is undefined, the bulk R-hat is reported.

    >>> half = rng.permutation(np.repeat([0, 1], 2000)).reshape(4, 1000)
    >>> bool(abs(convergence_summary(half)["rhat"] - 1) < 0.01)
    True
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
        low, high = values.min(), values.max()
        two_valued = bool(((values == low) | (values == high)).all())
        summary.update(
            rhat=float(az.rhat(values, method="z_scale" if two_valued else "rank")),  # z_scale: the bulk R-hat
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
