"""The paper's performance indicators: Hellinger distance, AHD(t), sigma_t, alpha, time to sigma.

Everything here works on plain arrays (numpy and scipy only; no pandas, no plotting).
The sampler layer hands over ``draws`` of shape ``(chain, draw, variable)``; for one
query variable ``x = draws[:, :, j]`` has shape ``(chains, T)`` and values in
``range(n_states)``. A Rao-Blackwellised sampler may instead give, per draw, a
probability vector: shape ``(chains, T, n_states)``. The chains are the paper's
independent *runs* (an experiment's run is one chain: :mod:`prunelab.lab.experiments`).

The pipeline of the paper's section "Performance indicators" is::

    checkpoints = log_checkpoints(T)
    estimates = running_marginals(x, n_states, checkpoints)   # (chains, n_checkpoints, n_states)
    ahd = mean_hellinger_over_chains(estimates, exact)        # accuracy, AHD(t)
    sigma = sigma_t(estimates, state=s)                       # spread across chains
    fit = fit_alpha(checkpoints, sigma, delta=0.9)            # rate of convergence, alpha
    cost = time_to_sigma(fit.alpha, seconds_per_draw)         # time to sigma_t = 0.01

Notes on the paper's notation, followed here in the sense it clearly intends:

* it writes :math:`\\sigma_t^2 = \\langle y_t^2\\rangle - \\langle y_t\\rangle^2` and calls it
  "the standard deviation", and later :math:`\\sigma_t^2 \\propto 1/\\sqrt{t}` and
  :math:`\\sigma_t^2 = \\alpha/\\sqrt{t}`; the quantity that falls like :math:`t^{-1/2}`
  (and whose target is 0.01) is the standard deviation :math:`\\sigma_t`, so that is what
  :func:`sigma_t` returns;
* :math:`y_s^{(t)}` is read as the running estimate of chain (run) ``s`` after ``t`` draws (the
  mean of its first ``t`` indicators), not the ``t``-th draw alone, whose spread would not
  shrink with ``t``.

==================  ===============================================================
module              job
==================  ===============================================================
``accuracy``        :func:`hellinger`, :func:`running_marginals`, the two AHDs
``convergence``     :func:`sigma_t`, :func:`fit_alpha`, :func:`bootstrap_alpha`
``cost``            :func:`time_to_sigma`, :func:`first_checkpoint_below`
==================  ===============================================================
"""

from ..checkpoints import log_checkpoints
from .accuracy import hellinger, mean_hellinger_over_chains, mean_hellinger_over_variables, running_marginals
from .convergence import DELTA_BOUNDS, AlphaFit, AlphaFitError, AlphaInterval, bootstrap_alpha, fit_alpha, sigma_t
from .cost import TimeToSigma, first_checkpoint_below, time_to_sigma

__all__ = [
    "AlphaFit",
    "AlphaFitError",
    "AlphaInterval",
    "DELTA_BOUNDS",
    "TimeToSigma",
    "bootstrap_alpha",
    "first_checkpoint_below",
    "fit_alpha",
    "hellinger",
    "log_checkpoints",
    "mean_hellinger_over_chains",
    "mean_hellinger_over_variables",
    "running_marginals",
    "sigma_t",
    "time_to_sigma",
]
