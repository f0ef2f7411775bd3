"""The scorecard's rows in one call, and its headline: per draw, which sampler is best where all three mix.

The book shows the scorecard twice: its counts and two findings up front ("Results at
a glance", ``notebooks/glance.md``) and the full table after the performance chapters
(``notebooks/scorecard.md``). Both pages compute the same rows with :func:`all_rows`,
and the first finding, stated case by case, comes from :func:`efficiency_where_all_mix`.

Examples
--------
>>> import pandas as pd
>>> summary = pd.DataFrame({
...     "benchmark": ["alarm_ev0"] * 3, "sampler": ["gibbs", "metropolis", "prune"], "init": "forward",
...     "exact_query": 0.3, "rhat": 1.0, "constant_chains": 0, "alpha": [2.0, 2.5, 0.8],
...     "ess_bulk": [100.0, 80.0, 700.0], "n_draws": 1000, "n_runs": 10})
>>> table = efficiency_where_all_mix(summary)
>>> table.loc["alarm_ev0", "best"], float(round(table.loc["alarm_ev0", "prune_over_gibbs"], 1))
('prune', 7.0)
"""

from __future__ import annotations

import pandas as pd

from prunelab.catalogue import load_network
from prunelab.exact import exact_marginals

from . import scorecard
from .mixing import mixing_verdict
from .paper_numbers import PAPER_BENCHMARKS, PAPER_SAMPLERS

__all__ = ["ROW_GROUPS", "all_rows", "efficiency_where_all_mix", "verdict_counts", "verdicts_by_group"]

ROW_GROUPS = {
    "networks and theory": ("fig1", "table1", "fig2", "claim_trap", "claim_theorem", "claim_q", "fig3", "fig4"),
    "Figure 5 (accuracy)": tuple(f"fig5{panel}" for panel in "abcdefghi"),
    "rates and times": ("fig6a", "fig6bc", "fig6d", "table2", "claim_roc", "table3", "claim_fast", "claim_slow"),
}
"""The scorecard's rows by kind, as the scorecard page groups them: the paper's networks,
theory and toy examples; the nine panels of its Figure 5; its rates of convergence and times."""


def all_rows(results: dict, tie: float = 0.1) -> list[scorecard.Row]:
    """Every row of the scorecard, in the page's order.

    Parameters
    ----------
    results : dict
        The experiment results of the paper's cases (``summary`` and ``curves``, as
        :func:`prunelab.lab.experiments.results` of ``PAPER`` returns them).
    tie : float, default 0.1
        Figure 5's relative tie band (:func:`prunelab.lab.scorecard.accuracy_rows`).

    Returns
    -------
    list of prunelab.lab.scorecard.Row
        Figures 1-2, the theory, Figures 3-6, Tables 1-3 and the claims.

    Examples
    --------
    >>> from prunelab.lab.experiments import PAPER, results
    >>> rows = all_rows(results(PAPER, "paper"))
    >>> len(rows), rows[0].key
    (25, 'fig1')
    """
    summary = results["summary"]
    exact_sink = float(exact_marginals(load_network("grid-8x8"))["v_8_8"][1])
    return (scorecard.network_rows() + scorecard.theory_rows() + scorecard.example_rows(summary)
            + scorecard.accuracy_rows(summary, PAPER_BENCHMARKS, tie=tie)
            + scorecard.figure6_rows(summary, results["curves"], exact_sink)
            + scorecard.alpha_rows(summary, PAPER_BENCHMARKS) + scorecard.time_rows(summary, results.get("runs")))


def verdict_counts(rows) -> pd.Series:
    """How many rows have each verdict, in the order of :data:`prunelab.lab.scorecard.VERDICTS`.

    Examples
    --------
    >>> row = scorecard.Row("k", "Figure 1", "", "", "reproduced")
    >>> verdict_counts([row, row]).to_dict()
    {'reproduced': 2, 'differs': 0, 'reversed': 0, 'not testable': 0}
    """
    return pd.Series([row.verdict for row in rows]).value_counts().reindex(scorecard.VERDICTS, fill_value=0)


def verdicts_by_group(rows, groups=None) -> pd.DataFrame:
    """How many rows of each group have each verdict: one row per group, one column per verdict.

    Parameters
    ----------
    rows : sequence of prunelab.lab.scorecard.Row
    groups : mapping of str to sequence of str, optional
        Group name to the keys of its rows; :data:`ROW_GROUPS` by default. Every row
        must be in exactly one group.

    Returns
    -------
    pandas.DataFrame
        Index the groups in order, columns :data:`prunelab.lab.scorecard.VERDICTS`.

    Examples
    --------
    >>> rows = [scorecard.Row("a", "", "", "", "reproduced"), scorecard.Row("b", "", "", "", "reversed")]
    >>> verdicts_by_group(rows, {"one": ["a"], "two": ["b"]}).loc["two"].to_dict()
    {'reproduced': 0, 'differs': 0, 'reversed': 1, 'not testable': 0}
    """
    groups = ROW_GROUPS if groups is None else groups
    keys = [key for members in groups.values() for key in members]
    if sorted(keys) != sorted(row.key for row in rows):
        raise ValueError(f"the groups do not hold every row exactly once: {sorted(set(keys) ^ {r.key for r in rows})}")
    verdict = {row.key: row.verdict for row in rows}
    return pd.DataFrame([verdict_counts([scorecard.Row(k, "", "", "", verdict[k]) for k in members])
                         for members in groups.values()], index=list(groups)).astype(int)


def efficiency_where_all_mix(summary: pd.DataFrame) -> pd.DataFrame:
    """Per draw, the three samplers side by side on each benchmark where all three mix.

    A benchmark counts when its forward-start cases of Gibbs, Metropolis and prune
    sampling are all present, none carries a mark of :mod:`prunelab.lab.mixing` (the
    summary's ``mark``, or the rule applied to ``rhat`` and ``constant_chains`` where the
    summary has none) and the evidence does not fix the query.

    Parameters
    ----------
    summary : pandas.DataFrame
        The experiment summary (columns ``benchmark``, ``sampler``, ``init``,
        ``exact_query``, ``mark`` (or ``rhat`` and ``constant_chains``), ``alpha``, ``ess_bulk``,
        ``n_draws``, ``n_runs``).

    Returns
    -------
    pandas.DataFrame
        One row per such benchmark, in the paper's order: ``alpha_<sampler>`` and
        ``ess_per_draw_<sampler>`` (bulk ESS over all draws of all runs) for the three
        samplers, ``best`` (the sampler of the smallest α), ``alpha_spread`` (largest α
        over smallest, minus one) and ``prune_over_gibbs`` (the ratio of ESS per draw).

    Examples
    --------
    On the frozen summary of the paper's sweep:

    >>> from prunelab.lab.experiments import PAPER, results
    >>> efficiency_where_all_mix(results(PAPER, "paper")["summary"])["best"].to_dict()
    {'alarm_ev0': 'prune', 'asia_ev25': 'metropolis', 'alarm_ev25': 'prune'}
    """
    cases = summary[summary["init"] == "forward"] if "init" in summary.columns else summary
    cases = cases.set_index(["benchmark", "sampler"])
    rows = {}
    for benchmark in PAPER_BENCHMARKS:
        keys = [(benchmark, m) for m in PAPER_SAMPLERS]
        if not all(k in cases.index for k in keys):
            continue
        block = cases.loc[keys].droplevel("benchmark")
        marks = block["mark"] if "mark" in block else [mixing_verdict(r).mark for _, r in block.iterrows()]
        if any(marks) or block["exact_query"].isin([0.0, 1.0]).any():
            continue
        ess = block["ess_bulk"] / (block["n_draws"] * block["n_runs"])
        row = {f"alpha_{m}": block.loc[m, "alpha"] for m in PAPER_SAMPLERS}
        row |= {f"ess_per_draw_{m}": ess[m] for m in PAPER_SAMPLERS}
        row["best"] = block["alpha"].idxmin()
        row["alpha_spread"] = block["alpha"].max() / block["alpha"].min() - 1
        row["prune_over_gibbs"] = ess["prune"] / ess["gibbs"]
        rows[benchmark] = row
    return pd.DataFrame.from_dict(rows, orient="index")
