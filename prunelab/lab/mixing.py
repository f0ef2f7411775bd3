"""The one "did not mix" verdict of a case: a mark and its reason.

:func:`mixing_verdict` is the only rule: the experiment summary stores its mark and
reason (``mark``, ``mark_reason`` of :func:`prunelab.lab.experiments.summarise_case`),
and the command-line tables, the scorecard and the chapters read them from there.

Marks (:data:`MARKS`):

- ``"†"`` not ergodic: some run's query indicator never changes, the query was stuck
  in some run (the trap check of :mod:`prunelab.traps`), or R-hat is infinite or
  undefined;
- ``"‡"`` the runs disagree: R-hat above :data:`RHAT_LIMIT`;
- ``""`` the runs mix, or the evidence fixes the query (nothing to estimate).

A marked case's alpha and time describe a trap or a slow drift, not a rate of
convergence.

References
----------
A. Vehtari, A. Gelman, D. Simpson, B. Carpenter and P.-C. Bürkner, "Rank-normalization,
folding, and localization: an improved R-hat for assessing convergence of MCMC",
Bayesian Analysis 16 (2021) (the 1.01 threshold).

Examples
--------
>>> from prunelab.lab.mixing import mixing_verdict
>>> mixing_verdict({"exact_query": 0.5, "rhat": 1.2, "constant_chains": 0})
MixingVerdict(mark='‡', reason='R-hat 1.2 > 1.01: the runs disagree')
"""

from __future__ import annotations

import math
from typing import NamedTuple

__all__ = ["MARKS", "RHAT_LIMIT", "MixingVerdict", "mixing_verdict"]

RHAT_LIMIT = 1.01
"""R-hat above which the runs of a case disagree (Vehtari et al. 2021)."""

MARKS = {
    "†": "not ergodic: a run never changes the query, the query is stuck in a run, or R-hat is infinite or undefined",
    "‡": f"the runs disagree: R-hat above {RHAT_LIMIT}",
}
"""Each mark and what it says (an unmarked case mixes)."""


class MixingVerdict(NamedTuple):
    """Whether a case's runs mix: a mark of :data:`MARKS` (``""`` when they do) and why."""

    mark: str
    reason: str


def _count(row, key) -> int:
    value = row.get(key, 0)
    return 0 if value is None or (isinstance(value, float) and math.isnan(value)) else int(value)


def mixing_verdict(row) -> MixingVerdict:
    """The mark of a case whose sampler is not shown to mix, and its reason.

    Parameters
    ----------
    row : mapping
        A case of the experiment summary, or diagnostics of one's own: ``exact_query``
        (the exact probability of the query state), ``rhat`` and ``constant_chains``
        (:func:`prunelab.diagnostics.convergence_summary` of the query indicator, the
        runs as chains; ``rhat`` absent counts as undefined), and optionally
        ``query_stuck_runs`` (runs whose query the trap check found stuck; absent: 0)
        and ``n_runs``.

    Returns
    -------
    MixingVerdict
        ``mark`` ``"†"``, ``"‡"`` or ``""`` (see the module notes), ``reason`` a short
        sentence (``""`` when unmarked and the query is free).

    Raises
    ------
    KeyError
        If ``row`` has no ``exact_query``.

    Examples
    --------
    >>> mixing_verdict({"exact_query": 0.5, "rhat": float("inf"), "constant_chains": 100, "n_runs": 100}).mark
    '†'
    >>> mixing_verdict({"exact_query": 1.0, "rhat": float("nan"), "constant_chains": 100})
    MixingVerdict(mark='', reason='the evidence fixes the query')
    >>> mixing_verdict({"exact_query": 0.3, "rhat": 1.001, "constant_chains": 0})
    MixingVerdict(mark='', reason='')
    """
    exact = float(row["exact_query"])
    if exact in (0.0, 1.0):
        return MixingVerdict("", "the evidence fixes the query")
    rhat = row.get("rhat", math.nan)
    rhat = math.nan if rhat is None else float(rhat)
    runs = row.get("n_runs")
    of = "" if runs is None else f" of {int(runs)}"
    reasons = []
    constant = _count(row, "constant_chains")
    if constant:
        reasons.append(f"{constant}{of} runs never change the query")
    stuck = _count(row, "query_stuck_runs")
    if stuck:
        reasons.append(f"the query is stuck in {stuck}{of} runs")
    if math.isinf(rhat):
        reasons.append("R-hat is infinite")
    elif math.isnan(rhat):
        reasons.append("R-hat is undefined")
    if reasons:
        return MixingVerdict("†", "; ".join(reasons))
    if rhat > RHAT_LIMIT:
        return MixingVerdict("‡", f"R-hat {rhat:.4g} > {RHAT_LIMIT}: the runs disagree")
    return MixingVerdict("", "")
