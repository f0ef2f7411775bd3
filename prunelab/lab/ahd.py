"""AHD(t) of the experiment runs as tables: the mean over runs of ``curves.parquet``'s Hellinger columns.

The array form of the same indicator is :func:`prunelab.indicators.mean_hellinger_over_chains`
(running estimates in, AHD at each checkpoint out); here the distances are already
in the tidy ``curves.parquet`` of :func:`prunelab.lab.experiments.results` of ``PAPER``, one row
per ``(case, run, t)``, and the functions group them. :mod:`prunelab.lab.plots.results`
draws what they return (Figure 5).

======================  ===========================================================
function                returns
======================  ===========================================================
:func:`ahd_table`       mean and quantiles over runs of AHD(t)
:func:`ahd_decay`       AHD(T) / AHD(T/10): still falling (~0.32) or stalled (~1)
======================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["ahd_decay", "ahd_table"]

_QUANTILES = (0.1, 0.9)
"""The default band over runs: the 10 % and 90 % quantiles (Figure 5's shading)."""


def ahd_table(
    curves: pd.DataFrame,
    column: str = "hellinger_query",
    quantiles: tuple[float, float] = _QUANTILES,
    init: str | None = "forward",
) -> pd.DataFrame:
    """AHD(t): mean over runs of a Hellinger column, with quantiles over runs.

    Parameters
    ----------
    curves : DataFrame
        ``curves.parquet`` of :func:`prunelab.lab.experiments.results` of ``PAPER``: one row per
        ``(case, run, t)`` with ``benchmark``, ``sampler``, ``init`` and ``column``.
    column : str, default "hellinger_query"
        ``"hellinger_query"`` (the query variable), ``"hellinger_all"`` (each run's mean
        over all free variables, :func:`prunelab.indicators.mean_hellinger_over_variables`)
        or their ``_rb`` versions; the table then averages over runs.
    quantiles : (float, float), default (0.1, 0.9)
        The band over runs.
    init : str or None, default "forward"
        Keep cases with this initialisation only (``None``: all).

    Returns
    -------
    DataFrame
        Columns ``benchmark, sampler, t, ahd, low, high, n_runs``; ``ahd`` is the
        paper's average Hellinger distance.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Average Hellinger distance".

    Examples
    --------
    >>> curves = pd.DataFrame({"benchmark": "b", "sampler": "gibbs", "init": "forward",
    ...                        "run": [0, 1, 0, 1], "t": [1, 1, 2, 2],
    ...                        "hellinger_query": [0.2, 0.4, 0.1, 0.1]})
    >>> ahd_table(curves)[["t", "ahd", "n_runs"]].round(3).values.tolist()
    [[1.0, 0.3, 2.0], [2.0, 0.1, 2.0]]
    """
    data = curves if init is None or "init" not in curves else curves[curves["init"] == init]
    grouped = data.groupby(["benchmark", "sampler", "t"], sort=True)[column]
    table = grouped.agg(
        ahd="mean",
        low=lambda v: float(np.quantile(v, quantiles[0])),
        high=lambda v: float(np.quantile(v, quantiles[1])),
        n_runs="size",
    )
    return table.reset_index()


def ahd_decay(
    curves: pd.DataFrame,
    columns: Sequence[str] = ("hellinger_query", "hellinger_all"),
    factor: float = 10.0,
    init: str | None = "forward",
) -> pd.DataFrame:
    """How much AHD(t) still falls at the end of the runs: ``AHD(T) / AHD(T / factor)``.

    A number for the slope of the last stretch of a Figure 5 curve. While the runs
    converge at the Monte Carlo rate the AHD falls like ``t^-1/2`` and the ratio is
    about ``factor^-1/2`` (0.32 for ``factor = 10``); a curve that has stalled (runs
    trapped away from the exact answer) gives about 1.

    Parameters
    ----------
    curves : DataFrame
        ``curves.parquet`` (see :func:`ahd_table`).
    columns : sequence of str
        Hellinger columns to use.
    factor : float, default 10
        ``T / factor`` is matched to the nearest checkpoint.
    init : str or None, default "forward"

    Returns
    -------
    DataFrame
        Index ``(benchmark, sampler)``, one column per entry of ``columns``.

    Examples
    --------
    >>> t = np.array([1, 10, 100, 1000])
    >>> curves = pd.DataFrame({"benchmark": "b", "sampler": np.repeat(["gibbs", "prune"], 4),
    ...                        "init": "forward", "run": 0, "t": np.tile(t, 2),
    ...                        "hellinger_query": np.r_[np.full(4, 0.2), 0.3 / np.sqrt(t)]})
    >>> ahd_decay(curves, ["hellinger_query"])["hellinger_query"].round(3).tolist()
    [1.0, 0.316]
    """
    out = {}
    for column in columns:
        table = ahd_table(curves, column, init=init).set_index(["benchmark", "sampler", "t"])["ahd"]
        ratios = {}
        for key, series in table.groupby(level=["benchmark", "sampler"]):
            t = series.index.get_level_values("t").to_numpy()
            last = t.max()
            earlier = t[np.argmin(np.abs(np.log(t) - np.log(last / factor)))]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratios[key] = float(series.to_numpy()[t == last][0] / series.to_numpy()[t == earlier][0])
        out[column] = pd.Series(ratios)
    result = pd.DataFrame(out)
    result.index = result.index.set_names(["benchmark", "sampler"])
    return result
