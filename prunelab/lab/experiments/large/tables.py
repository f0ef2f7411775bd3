"""The chapter's tables of the large-network experiment, from the results of :func:`~.sweep.run_large`."""

from __future__ import annotations

import numpy as np

__all__ = ["common_budget", "growth_fit", "network_table"]


def common_budget(runs) -> float:
    """The longest budget every network ran (longer ones ran on :data:`LONG_BUDGET_NETWORKS` only).

    Parameters
    ----------
    runs : pandas.DataFrame
        The ``budget`` table (columns ``budget`` and ``network``).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"budget": [1.0, 1.0, 10.0, 10.0, 60.0], "network": ["a", "b", "a", "b", "a"]})
    >>> common_budget(runs)
    10.0
    """
    networks_at = runs.groupby("budget")["network"].nunique()
    return float(networks_at[networks_at == networks_at.max()].index.max())


def network_table(results: dict, budget: float | None = None):
    """One row per network: size, treewidth, determinism, set-up, speed, ``|S|``, ESS check, AHD per sampler.

    Set-up and speed columns are given without evidence (``_ev0``) and with the
    frozen 25 % evidence (``_ev25``); the ESS check and the AHD columns
    (``ahd_<sampler>``, at ``budget`` seconds, default :func:`common_budget`) are
    with evidence. A sampler that gave no estimate has its status instead
    (``status_<sampler>``) and a NaN AHD.

    Examples
    --------
    >>> from prunelab.lab.experiments import LARGE, results
    >>> table = network_table(results(LARGE, "paper"))
    >>> table.index[:4].tolist(), int(table.loc["asia", "n_variables"])
    (['cancer', 'earthquake', 'survey', 'asia'], 8)
    """
    import pandas as pd

    nets = results["networks"]
    keep = ["n_variables", "n_arcs", "max_states", "deterministic_share", "treewidth", "exact_seconds",
            "setup_seconds", "setup_ratio", "setup_refused", "steps_per_second", "mean_size", "init_seconds",
            "check_steps", "n_z_failed", "check_ahd", "check_n_off", "rhat_max", "z_failed", "n_free"]
    keep = [c for c in keep if c in nets]
    wide = []
    for ev, suffix in ((False, "_ev0"), (True, "_ev25")):
        part = nets[nets["evidence"] == ev].set_index("network")[keep]
        wide.append(part.add_suffix(suffix))
    table = pd.concat(wide, axis=1)
    table = table.rename(columns={"n_variables_ev0": "n_variables", "n_arcs_ev0": "n_arcs",
                                  "max_states_ev0": "max_states", "deterministic_share_ev0": "deterministic_share"})
    table = table.drop(columns=[c for c in table if c.endswith("_ev25") and c.replace("_ev25", "") in
                                ("n_variables", "n_arcs", "max_states", "deterministic_share")])
    if "budget" in results:
        runs = results["budget"]
        budget = common_budget(runs) if budget is None else budget
        at = runs[runs["budget"] == budget]
        for sampler, rows in at.groupby("sampler", sort=False):
            rows = rows.set_index("network")
            table[f"ahd_{sampler}"] = rows["ahd"] if "ahd" in rows else np.nan
            table[f"off_{sampler}"] = rows["n_off"] if "n_off" in rows else np.nan
            table[f"status_{sampler}"] = rows["status"]
    return table.sort_values("n_variables", kind="stable")


def growth_fit(grids) -> dict:
    """Least-squares lines ``log2(seconds) = a + b * side`` per determinism, for set-up and for one step.

    Returns
    -------
    dict
        ``{determinism: {"setup": (a, b), "step": (a, b)}}`` over the grids that ran
        (refusals excluded); ``b`` is the doubling rate per unit of side.

    Examples
    --------
    Set-up and step time doubling with each unit of side (the refused grid left out):

    >>> import pandas as pd
    >>> grids = pd.DataFrame({"determinism": 0.9, "side": [10, 11, 12, 40], "setup_refused": ["", "", "", "cap"],
    ...                       "setup_seconds": [1.0, 2.0, 4.0, 1e9], "steps_per_second": [1024.0, 512.0, 256.0, 1.0]})
    >>> {name: tuple(round(v, 6) for v in line) for name, line in growth_fit(grids)[0.9].items()}
    {'setup': (-10.0, 1.0), 'step': (-20.0, 1.0)}
    """
    fits = {}
    for d, rows in grids[grids["setup_refused"] == ""].groupby("determinism"):
        fit = {}
        for name, seconds in (("setup", rows["setup_seconds"]), ("step", 1.0 / rows.get("steps_per_second"))):
            ok = np.isfinite(seconds.to_numpy(float)) & (seconds.to_numpy(float) > 0)
            if ok.sum() >= 2:
                b, a = np.polyfit(rows["side"].to_numpy(float)[ok], np.log2(seconds.to_numpy(float)[ok]), 1)
                fit[name] = (float(a), float(b))
        fits[float(d)] = fit
    return fits
