"""Rate of convergence: sigma_t, the spread of the running estimates, and the fit of its constant alpha."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import optimize

from ..checkpoints import checked_checkpoints

__all__ = ["DELTA_BOUNDS", "AlphaFit", "AlphaFitError", "AlphaInterval", "bootstrap_alpha", "fit_alpha", "sigma_t"]


#: Bounds on delta in the free fit of ``alpha (1 + beta t^-delta)``. The transient of a
#: running mean started away from equilibrium decays like ``1/t`` in ``g(t)`` (delta = 1;
#: the paper picks 0.9). Below 1/2 the correction decays so slowly over a few decades of
#: ``t`` that it trades off against alpha: on iid draws with no transient at all, a
#: lower bound of 0.05 let the fitted alpha wander by +-50%, a lower bound of 1/2 kept
#: it within the scatter of sigma_t itself.
DELTA_BOUNDS = (0.5, 5.0)
#: Number of delta values tried (log-spaced within the bounds) for the free fit's start.
_DELTA_GRID_SIZE = 41


class AlphaFitError(RuntimeError):
    """The fit of ``g(t) = alpha (1 + beta t^-delta)`` failed or gave no usable alpha."""


class AlphaFit(NamedTuple):
    """Result of :func:`fit_alpha`.

    ``g(t) = sigma_t sqrt(t)`` was fitted by ``alpha (1 + beta t^-delta)`` on the
    ``n_points`` checkpoints with ``t >= t_min``; ``residual_rms`` is the root mean
    square of ``g - fit`` over those points (in units of ``g``).
    """

    alpha: float
    beta: float
    delta: float
    t_min: float
    n_points: int
    residual_rms: float


class AlphaInterval(NamedTuple):
    """Result of :func:`bootstrap_alpha`: the point estimate, a percentile interval, the bootstrap alphas."""

    alpha: float
    low: float
    high: float
    samples: np.ndarray


def _select_state(estimates, state) -> np.ndarray:
    """(chains, n_checkpoints) running estimates of P(query = state)."""
    estimates = np.asarray(estimates, dtype=float)
    if estimates.ndim == 3:
        if state is None:
            raise ValueError("state is required for (chains, n_checkpoints, n_states) estimates")
        return estimates[:, :, int(state)]
    if estimates.ndim == 2:
        if state is not None:
            raise ValueError("2-D estimates are already for one state; pass state=None")
        return estimates
    raise ValueError(f"estimates must be 2-D or 3-D, got shape {estimates.shape}")


def sigma_t(estimates, state=None) -> np.ndarray:
    """Standard deviation across chains (the paper's runs) of the running estimate of ``P(query = state)``.

    .. math:: \\sigma_t = \\sqrt{\\langle y_t^2\\rangle - \\langle y_t\\rangle^2}, \\quad
              \\langle y_t\\rangle = \\frac{1}{N}\\sum_{s=1}^N y_s^{(t)}

    with ``y_s^(t)`` the estimate of chain ``s`` after ``t`` draws: the population
    standard deviation (``ddof=0``) over the ``N`` chains. The paper writes this as
    :math:`\\sigma_t^2` but calls it, and uses it as, the standard deviation
    (it falls like :math:`t^{-1/2}`); that is what is returned.

    Parameters
    ----------
    estimates : array_like
        Either ``(chains, n_checkpoints, n_states)`` running estimates (from
        :func:`running_marginals`), with ``state`` naming the column, or
        ``(chains, n_checkpoints)`` estimates of one probability, with ``state=None``.
    state : int, optional
        State of the query variable whose probability is tracked.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_checkpoints,)``.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators",
    subsection "Rate of convergence".

    Examples
    --------
    >>> est = np.array([[[0.2, 0.8]], [[0.4, 0.6]]])
    >>> sigma_t(est, state=1).round(12).tolist()
    [0.1]
    """
    return _select_state(estimates, state).std(axis=0, ddof=0)


def _checked_curve(t, sigma, t_min):
    t = np.asarray(t, dtype=float)
    sigma = np.asarray(sigma, dtype=float)
    if t.ndim != 1 or t.shape != sigma.shape[:1]:
        raise ValueError(f"t must be 1-D and match sigma's first axis: {t.shape} vs {sigma.shape}")
    if not (np.isfinite(t).all() and np.isfinite(sigma).all()):
        raise ValueError("t and sigma must be finite")
    if (t <= 0).any() or (sigma < 0).any():
        raise ValueError("t must be positive and sigma non-negative")
    keep = t >= t_min
    return t[keep], sigma[keep] * np.sqrt(t[keep])[(...,) + (None,) * (sigma.ndim - 1)]


def _linear_in_power(t, g, delta):
    """Least squares of g (points, ...) on [1, t^-delta]: (alpha, beta, residual_rms) arrays."""
    design = np.column_stack([np.ones_like(t), t**-delta])
    flat = g.reshape(g.shape[0], -1)
    coef, *_ = np.linalg.lstsq(design, flat, rcond=None)
    rms = np.sqrt(np.mean((flat - design @ coef) ** 2, axis=0))
    intercept, slope = coef
    with np.errstate(divide="ignore", invalid="ignore"):
        beta = slope / intercept
    shape = g.shape[1:]
    return intercept.reshape(shape), beta.reshape(shape), rms.reshape(shape)


def _check_alpha(alpha, what):
    # this message (and fit_alpha's) is stored in the results' alpha_note: its words stay as they were
    if not np.all(np.isfinite(alpha)) or np.any(alpha <= 0):
        raise AlphaFitError(
            f"{what} gave alpha = {alpha}; alpha must be positive and finite. sigma_t that is "
            "zero (runs that do not differ) or that grows with t has no O(t^-1/2) constant; "
            "check the sampler, t_min and delta"
        )


def _free_fit(t, g, delta_bounds):
    lo, hi = delta_bounds
    # Start from the best fixed-delta linear fit on a grid: robust and cheap.
    grid = np.geomspace(lo, hi, _DELTA_GRID_SIZE)
    fits = [_linear_in_power(t, g, d) for d in grid]
    best = int(np.argmin([rms for _, _, rms in fits]))
    alpha0, beta0, _ = fits[best]
    alpha0 = max(float(alpha0), 1e-3 * float(np.mean(g)))  # g > 0 somewhere (checked)
    beta0 = float(beta0) if np.isfinite(beta0) else 0.0
    delta0 = float(np.clip(grid[best], lo * (1 + 1e-6), hi * (1 - 1e-6)))
    log_t = np.log(t)

    def residuals(params):
        alpha, beta, delta = params
        return alpha * (1.0 + beta * t**-delta) - g

    def jacobian(params):
        alpha, beta, delta = params
        power = t**-delta
        return np.column_stack([1.0 + beta * power, alpha * power, -alpha * beta * power * log_t])

    result = optimize.least_squares(
        residuals,
        x0=[alpha0, beta0, delta0],
        jac=jacobian,
        bounds=([0.0, -np.inf, lo], [np.inf, np.inf, hi]),
        x_scale="jac",
    )
    if not result.success or not np.all(np.isfinite(result.x)) or result.active_mask[0] != 0:
        raise AlphaFitError(
            f"the free fit of alpha (1 + beta t^-delta) did not converge to a positive alpha "
            f"(alpha = {result.x[0]:.3g}; {result.message}); pass a fixed delta (the paper "
            "uses 0.9) for the linear construction"
        )
    alpha, beta, delta = (float(v) for v in result.x)
    return alpha, beta, delta, float(np.sqrt(np.mean(result.fun**2)))


def fit_alpha(t, sigma, delta=None, t_min=10, *, delta_bounds=DELTA_BOUNDS) -> AlphaFit:
    """Fit the rate-of-convergence constant alpha from sigma_t.

    The paper models :math:`g(t) = \\sigma_t \\sqrt{t} = \\alpha (1 + \\beta t^{-\\delta})`
    and ignores the transient at small ``t`` (``t < t_min``); alpha is the limit of
    :math:`\\sigma_t\\sqrt{t}` as :math:`t \\to \\infty`.

    * ``delta=None`` (free fit): alpha, beta and delta by bounded nonlinear least
      squares (:func:`scipy.optimize.least_squares`, ``delta`` within
      ``delta_bounds``), started from the best fixed-delta fit on a log grid of
      delta. If ``beta`` is near 0 (no transient, e.g. iid draws) delta is not
      identified and its value, often on a bound, means nothing, but alpha still is.
    * ``delta`` given (the paper's construction, it uses 0.9): ``g`` is a straight line
      in :math:`t^{-\\delta}`; ordinary least squares gives the intercept alpha and
      the slope ``alpha * beta``.

    Parameters
    ----------
    t : array_like
        Sample counts (checkpoints), 1-D.
    sigma : array_like
        sigma_t at those counts, from :func:`sigma_t`.
    delta : float, optional
        Fixed exponent; ``None`` fits it.
    t_min : float, default 10
        Only points with ``t >= t_min`` are used (the paper drops :math:`10^0`-:math:`10^1`).
    delta_bounds : (float, float), default (0.5, 5.0)
        Bounds on delta in the free fit (see :data:`DELTA_BOUNDS` for the reason
        for the lower bound).

    Returns
    -------
    AlphaFit
        ``(alpha, beta, delta, t_min, n_points, residual_rms)``.

    Raises
    ------
    AlphaFitError
        If the free fit does not converge, or alpha comes out non-positive or not
        finite (e.g. sigma_t identically zero). No fallback is taken silently.
    ValueError
        On bad input, or too few points (fewer than 4 for the free fit, 2 for a
        fixed delta).

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators",
    subsection "Rate of convergence" and Table "Proportionality constants of the ROC".
    A. B. Owen, "Monte Carlo theory, methods and examples" (2013), for the
    :math:`O(t^{-1/2})` rate.

    Examples
    --------
    >>> t = np.geomspace(10, 10_000, 30)
    >>> sigma = 0.4 * (1 + 2.0 * t**-0.9) / np.sqrt(t)
    >>> fit = fit_alpha(t, sigma, delta=0.9)
    >>> round(fit.alpha, 6), round(fit.beta, 6)
    (0.4, 2.0)
    """
    if np.ndim(sigma) != 1:
        raise ValueError(f"sigma must be 1-D, got shape {np.shape(sigma)}")
    t_used, g = _checked_curve(t, sigma, t_min)
    n_points = int(t_used.size)
    if n_points and not (g > 0).any():
        raise AlphaFitError(
            f"sigma_t is zero at every t >= {t_min}: the runs do not differ (a deterministic "
            "or trapped sampler, or identical seeds); alpha is undefined"
        )
    if delta is None:
        if n_points < 4:
            raise ValueError(f"the free fit needs at least 4 points with t >= {t_min}, got {n_points}")
        lo, hi = (float(b) for b in delta_bounds)
        if not 0 < lo < hi:
            raise ValueError(f"delta_bounds must satisfy 0 < low < high, got {delta_bounds}")
        alpha, beta, delta_fit, rms = _free_fit(t_used, g, (lo, hi))
        _check_alpha(alpha, "the free fit")
        return AlphaFit(alpha, beta, delta_fit, t_min, n_points, rms)
    delta = float(delta)
    if not delta > 0:
        raise ValueError(f"delta must be positive, got {delta}")
    if n_points < 2:
        raise ValueError(f"a fixed-delta fit needs at least 2 points with t >= {t_min}, got {n_points}")
    alpha, beta, rms = (float(v) for v in _linear_in_power(t_used, g, delta))
    _check_alpha(alpha, f"the linear fit with delta = {delta}")
    return AlphaFit(alpha, beta, delta, t_min, n_points, rms)


def _per_chain_estimates(data, checkpoints, state):
    """(chains, n_checkpoints) running estimates of one probability, for bootstrap_alpha."""
    data = np.asarray(data)
    checkpoints = np.asarray(checkpoints)
    if data.ndim == 3:
        if data.shape[1] != checkpoints.size:
            raise ValueError(
                f"3-D input must be running estimates at the {checkpoints.size} checkpoints, "
                f"got shape {data.shape}"
            )
        return _select_state(data, state)
    if data.ndim == 2:
        values = (data == state) if state is not None else data.astype(float)
        cps = checked_checkpoints(checkpoints, data.shape[1])
        return np.cumsum(values, axis=1, dtype=np.float64)[:, cps - 1] / cps
    raise ValueError(f"expected 2-D draws or 3-D running estimates, got shape {data.shape}")


def bootstrap_alpha(
    estimates_or_indicator,
    checkpoints,
    state=None,
    n_boot: int = 200,
    *,
    rng: np.random.Generator,
    delta=None,
    t_min=10,
    level: float = 0.95,
) -> AlphaInterval:
    """Bootstrap interval for alpha: resample chains with replacement, refit.

    Each replicate draws as many chain indices with replacement, recomputes
    :func:`sigma_t` over the chosen chains at every checkpoint, and refits with
    :func:`fit_alpha`. Chains (the paper's runs) are independent, so they are the
    resampling unit; the draws within a chain are never split.

    Parameters
    ----------
    estimates_or_indicator : array_like
        One of

        * running estimates ``(chains, len(checkpoints), n_states)`` from
          :func:`running_marginals`, with ``state`` naming the column;
        * per-draw values ``(chains, T)``: with ``state`` given, integer draws ``x``
          (the indicator ``x == state`` is taken); with ``state=None``, values
          ``y`` used as they are (an indicator, or a Rao-Blackwellised probability).
    checkpoints : array_like of int
        The sample counts ``t`` of the running estimates (for 2-D input: where to
        evaluate the running means, ``1 <= t <= T``).
    state : int, optional
        The query state, see above.
    n_boot : int, default 200
        Number of bootstrap replicates.
    rng : numpy.random.Generator
        Source of randomness (keyword-only, required).
    delta, t_min
        Passed to :func:`fit_alpha`.
    level : float, default 0.95
        Coverage of the percentile interval.

    Returns
    -------
    AlphaInterval
        ``alpha`` fitted on all chains, ``low`` and ``high`` the percentile interval,
        ``samples`` the ``n_boot`` bootstrap alphas.

    Raises
    ------
    AlphaFitError
        If the fit fails on the full data or on any replicate (not skipped: a
        replicate that cannot be fitted says the interval would be unreliable).

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators"
    (alpha from 100 runs). B. Efron and R. J. Tibshirani, "An Introduction to the
    Bootstrap" (1993), percentile intervals.

    Examples
    --------
    >>> from prunelab.checkpoints import log_checkpoints
    >>> rng = np.random.default_rng(1)
    >>> y = rng.random((100, 2000)) < 0.3          # iid indicator, alpha = sqrt(0.21)
    >>> ci = bootstrap_alpha(y, log_checkpoints(2000, 30), n_boot=100, rng=rng, delta=0.9)
    >>> bool(ci.low < np.sqrt(0.21) < ci.high)
    True
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    n_boot = int(n_boot)
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    y = _per_chain_estimates(estimates_or_indicator, checkpoints, state)
    t = np.asarray(checkpoints, dtype=float)
    point = fit_alpha(t, y.std(axis=0), delta=delta, t_min=t_min).alpha
    n_chains = y.shape[0]
    picks = rng.integers(0, n_chains, size=(n_boot, n_chains))
    sigmas = y[picks].std(axis=1)  # (n_boot, n_checkpoints)
    if delta is None:
        samples = np.array([fit_alpha(t, s, t_min=t_min).alpha for s in sigmas])
    else:  # one least-squares solve for all replicates
        t_used, g = _checked_curve(t, sigmas.T, t_min)
        if t_used.size < 2:
            raise ValueError(f"a fixed-delta fit needs at least 2 points with t >= {t_min}")
        samples, _, _ = _linear_in_power(t_used, g, float(delta))
        _check_alpha(samples, f"a bootstrap replicate with delta = {delta}")
    low, high = np.quantile(samples, [(1 - level) / 2, (1 + level) / 2])
    return AlphaInterval(float(point), float(low), float(high), samples)
