"""The published answers of the literature's benchmarks beside ours: how close counts as reproduced.

``data/benchmarks/answers.tsv`` gives, per instance, the published answer as printed, how many of
the study's solver runs agreed on it and whether it is disputed
(:attr:`~prunelab.lab.experiments.families.Instance.published`). :func:`agreement` compares an
answer of ours with that row; the families experiment records it beside every exact run.
"""

from __future__ import annotations

import math

__all__ = ["STUDY_AGREEMENT", "TARGET_RELATIVE", "TINY", "agreement"]

STUDY_AGREEMENT = 1e-4
"""Relative difference within which the study's solver runs count as agreeing (``answers.tsv``)."""

TARGET_RELATIVE = 1e-6
"""Relative error of a reproduced answer (or absolute on ``log P`` where the answer is under :data:`TINY`)."""

TINY = 1e-300
"""Published answers under this are compared on ``log P``."""


def _printed_precision(answer: str) -> float:
    """Half a unit of the last digit printed in a published answer, relative to it (0 for an answer of 0).

    Examples
    --------
    >>> round(_printed_precision("2.64312e-06") * 1e6, 3)
    1.892
    """
    mantissa, _, exponent = answer.lower().partition("e")
    if float(mantissa) == 0:
        return 0.0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** -decimals / abs(float(mantissa))  # the exponent cancels


def agreement(log_p: float, published: tuple) -> dict:
    """Our answer beside the published one: errors and whether it is reproduced or with which side it agrees.

    Parameters
    ----------
    log_p : float
        Our answer, ``log P`` (``-inf`` for 0; NaN where the method gave none).
    published : tuple
        The row of :attr:`Instance.published` (empty where there is none).

    Returns
    -------
    dict
        ``published_p``; ``rel_error`` (``|P - P_pub| / P_pub``; 0 where both are 0,
        inf where only the published one is), ``log_error`` (``|log P - log P_pub|``);
        ``agrees`` (relative error within :data:`TARGET_RELATIVE` or half a unit of the
        last digit printed, whichever is larger; where the published answer is under
        :data:`TINY`, the same on ``log P``; disputed rows within the study's own rule,
        :data:`STUDY_AGREEMENT`); ``agreement``: ``"reproduced"`` or ``"not
        reproduced"`` for undisputed rows, ``"consensus"`` or ``"minority"`` for disputed
        ones, ``""`` without an answer or a published row.

    Examples
    --------
    >>> agreement(math.log(0.4), ("P(goal)", "0.4", "12", "12", "no", "0.29"))["agreement"]
    'reproduced'
    >>> agreement(math.log(2.6e-13), ("P(e)", "0", "7", "12", "yes", "0.59"))["agreement"]
    'minority'
    """
    if not published:
        return {"published_p": math.nan, "rel_error": math.nan, "log_error": math.nan, "agrees": None,
                "agreement": ""}
    _, answer, _, _, disputed, _ = published
    ref = float(answer)
    if math.isnan(log_p):
        return {"published_p": ref, "rel_error": math.nan, "log_error": math.nan, "agrees": None, "agreement": ""}
    p = math.exp(log_p)
    if ref > 0 or float(answer.lower().partition("e")[0]) > 0:
        mantissa, _, exponent = answer.lower().partition("e")  # log P_pub from the text: exact under the floats
        log_ref = math.log(float(mantissa)) + int(exponent or 0) * math.log(10.0)
        rel, log_error = abs(p - ref) / ref if ref > 0 else math.inf, abs(log_p - log_ref)
    else:
        rel = log_error = 0.0 if log_p == -math.inf else math.inf
    tiny = ref < TINY and log_error < math.inf
    if disputed == "yes":
        agrees = log_error <= STUDY_AGREEMENT if tiny else rel <= STUDY_AGREEMENT
        label = "consensus" if agrees else "minority"
    else:
        tolerance = max(TARGET_RELATIVE, _printed_precision(answer))
        agrees = log_error <= tolerance if tiny else rel <= tolerance
        label = "reproduced" if agrees else "not reproduced"
    return {"published_p": ref, "rel_error": rel, "log_error": log_error, "agrees": bool(agrees), "agreement": label}
