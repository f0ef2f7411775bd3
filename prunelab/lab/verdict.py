"""The book's answer, from its frozen results: when to use prune sampling, and what to use instead.

The Preface, "Results at a glance" and the closing chapter (``notebooks/when_to_use_prune.md``)
state the verdict; :func:`verdict` computes every number behind it from the five frozen
experiments, reusing the lab's readers (:func:`~prunelab.lab.headline.efficiency_where_all_mix`,
:func:`~prunelab.lab.experiments.large.network_table`,
:func:`~prunelab.lab.experiments.reach.reach_table`), and the closing chapter's decision table glues them,
row by row.

Examples
--------
>>> v = verdict(frozen_results())
>>> v["n_benchmarks"], v["prune_unmixed"]
(9, 0)
"""

from __future__ import annotations

import pandas as pd

from .experiments import FAMILIES, FRONTIER, LARGE, PAPER, REACH, forward_cases, results
from .experiments.large import common_budget, network_table
from .experiments.reach import reach_table
from .headline import efficiency_where_all_mix
from .paper_numbers import PAPER_BENCHMARKS
from .peers import sampler_info

__all__ = ["NONE_MEASURED", "count_all_seconds", "frozen_results", "reach_winners", "verdict"]

NONE_MEASURED = "none measured"
"""What the reach row names when no sampler gave an untrapped estimate on most networks it measured."""


def frozen_results() -> dict:
    """The frozen results of the five experiments the verdict reads, by name (``paper``, ``large``, ...).

    Examples
    --------
    >>> sorted(frozen_results())
    ['families', 'frontier', 'large', 'paper', 'reach']
    """
    return {e.name: results(e, "paper") for e in (PAPER, LARGE, FRONTIER, FAMILIES, REACH)}


def _first_stage(reach: dict) -> pd.DataFrame:
    table = reach_table(reach)
    return table[table["budget"].eq(table["budget"].min())]


def count_all_seconds(reach: dict) -> pd.Series:
    """Per network of the reach experiment: predicted seconds, on one core, to count every free variable's marginal.

    The truth run counted a sample of the free variables (``P(e)`` once, then ``k - 1`` counts per variable)
    in ``count_seconds``; every free variable is taken to cost what the sampled ones cost on average, set-up
    included (so the figure errs high). Networks whose truth was not counted are left out.

    Parameters
    ----------
    reach : dict
        The reach results (``truth`` and ``budget``).

    Examples
    --------
    >>> truth = pd.DataFrame({"network": ["n"], "status": ["ok"], "variables": [["a", "b"]], "n_variables": [10],
    ...                       "n_observed": [2], "count_seconds": [3.0]})
    >>> count_all_seconds({"truth": truth}).to_dict()
    {'n': 12.0}
    """
    t = reach["truth"][reach["truth"]["status"].eq("ok")]
    per_variable = t["count_seconds"] / t["variables"].map(len)
    free = t["n_variables"] - t["n_observed"]
    return pd.Series((per_variable * free).to_numpy(), index=pd.Index(t["network"], name="network"),
                     name="count_all_seconds").sort_index()


def reach_winners(reach: dict) -> pd.Series:
    """Per network of the reach experiment: the sampler of the lowest AHD among untrapped estimates (or None).

    Read at the shortest budget, the stage every sampler ran (the longer one holds only the best three).

    Parameters
    ----------
    reach : dict
        The reach results (``truth`` and ``budget``).

    Examples
    --------
    >>> reach_winners(frozen_results()["reach"]).index.name
    'network'
    """
    table = _first_stage(reach)
    fair = table[table["status"].eq("ok") & table["ahd"].notna() & ~table["trapped"].eq(True)]
    best = fair.loc[fair.groupby("network")["ahd"].idxmin()].set_index("network")["sampler"]
    return best.reindex(sorted(table["network"].unique())).rename_axis("network")


def verdict(res: dict) -> dict:
    """Every number of the book's verdict.

    Parameters
    ----------
    res : dict
        :func:`frozen_results` (or the same keys at another profile).

    Returns
    -------
    dict
        Plain Python numbers (and names), by key. The paper's sweep: ``n_benchmarks``,
        ``n_trapped`` (benchmarks where Gibbs and Metropolis both carry a mark of
        :mod:`prunelab.lab.mixing`), ``prune_unmixed``, ``rhat_max`` (their largest finite R̂
        there); where all three mix, ``n_all_mix``, ``per_draw_low``/``_high`` (prune's ESS per
        draw over Gibbs's), ``per_second_low``/``_high`` (prune's seconds to σₜ = 0.01 over
        Gibbs's).
        The pgmpy networks: ``large_pairs``, ``large_exact_refused``, ``large_exact_max`` (seconds),
        ``large_budget``, ``large_long_budget``, ``large_det``, ``large_prune_wins`` (the best of
        prune's variants has the lowest AHD), ``temper_lower`` of ``temper_networks`` (tempered
        prune below plain at the longest budget), ``mix_plain_h``, ``mix_plain_rhat``,
        ``mix_tempered_h``, ``mix_tempered_rhat`` (on the sticky root of ``mix_network``).
        The grids past the junction tree: ``frontier_pairs``, ``frontier_answered``,
        ``frontier_exact_max`` (the fastest exact method's slowest answer), ``frontier_budget``.
        The literature's instances: ``families_instances``, ``families_counted``,
        ``families_jt_refused``, ``families_counted_past_jt``, ``families_missing`` (runs not done).
        Where only samplers give every marginal: ``reach_networks``, ``reach_measured`` (networks
        with an untrapped estimate), ``reach_winner`` (the sampler that won most of them, or
        :data:`NONE_MEASURED`), ``reach_wins``, ``reach_winner_ahd`` (its largest AHD where it won),
        ``reach_budget`` (the seconds of that stage, the shortest), ``reach_long_budget`` (the longest
        stage's), ``reach_count_max`` (the counter's seconds for the truth), ``reach_count_all_fits``
        (networks where counting every marginal is predicted within ``reach_long_budget`` on one core,
        :func:`count_all_seconds`), ``reach_count_all_low``/``_high`` (its smallest and largest prediction).

    Examples
    --------
    >>> v = verdict(frozen_results())
    >>> v["prune_unmixed"], v["per_draw_low"] > 1, v["frontier_answered"] == v["frontier_pairs"]
    (0, True, True)
    """
    v = {}
    summary = forward_cases(res["paper"]["summary"]).set_index(["benchmark", "sampler"])
    marked = {b for b in PAPER_BENCHMARKS if all(summary.loc[(b, s), "mark"] for s in ("gibbs", "metropolis"))}
    v |= {"n_benchmarks": len(PAPER_BENCHMARKS), "n_trapped": len(marked),
          "prune_unmixed": sum(bool(summary.loc[(b, "prune"), "mark"]) for b in PAPER_BENCHMARKS)}
    rhat = pd.Series([summary.loc[(b, s), "rhat"] for b in marked for s in ("gibbs", "metropolis")])
    v["rhat_max"] = float(rhat[rhat < float("inf")].max())
    mix = efficiency_where_all_mix(res["paper"]["summary"])
    seconds = summary["seconds_to_target"]
    per_second = pd.Series({b: seconds[(b, "prune")] / seconds[(b, "gibbs")] for b in mix.index})
    v |= {"n_all_mix": len(mix), "per_draw_low": mix["prune_over_gibbs"].min(),
          "per_draw_high": mix["prune_over_gibbs"].max(),
          "per_second_low": per_second.min(), "per_second_high": per_second.max()}

    nets, runs = res["large"]["networks"], res["large"]["budget"]
    v |= {"large_pairs": len(nets), "large_exact_refused": int(nets["exact_refused"].ne("").sum()),
          "large_exact_max": float(nets["exact_seconds"].max()), "large_budget": common_budget(runs)}
    table = network_table(res["large"])
    at = runs[runs["budget"] == v["large_budget"]].pivot(index="network", columns="sampler", values="ahd")
    kin = [s for s in at if sampler_info(s).library == "prunelab" and sampler_info(s).counterpart == "prunelab-prune"]
    det = at.loc[at.index.intersection(table.index[table["deterministic_share"] > 0])]
    v |= {"large_det": len(det),
          "large_prune_wins": int((det[kin].min(axis=1) < det.drop(columns=kin).min(axis=1)).sum())}
    longest = runs[runs["budget"] == runs["budget"].max()].pivot(index="network", columns="sampler", values="ahd")
    plain, hot = longest["prunelab-prune"], longest[["prunelab-prune-tempered", "prunelab-prune-tempered-rb"]]
    ratio = hot.min(axis=1).div(plain).dropna()
    mixing = res["large"]["mixing"].set_index("sampler")
    v |= {"temper_networks": len(ratio), "temper_lower": int((ratio < 1).sum()),
          "large_long_budget": float(runs["budget"].max()), "mix_network": mixing["network"].iloc[0],
          "mix_plain_h": float(mixing.loc["prune", "hellinger"]), "mix_plain_rhat": float(mixing.loc["prune", "rhat"]),
          "mix_tempered_h": float(mixing.loc["prune-tempered", "hellinger"]),
          "mix_tempered_rhat": float(mixing.loc["prune-tempered", "rhat"])}

    grids, counted = res["frontier"]["compile"], res["frontier"]["count"]
    grids = grids.merge(counted[["grid", "evidence", "count_status", "count_seconds"]], on=["grid", "evidence"])
    circuit = grids["compile_seconds"] + grids["inference_seconds"]
    fastest = pd.concat([grids["jt_seconds"].where(grids["jt_status"].eq("ok")),
                         circuit.where(grids["circuit_status"].eq("ok")),
                         grids["count_seconds"].where(grids["count_status"].eq("ok"))], axis=1).min(axis=1)
    v |= {"frontier_pairs": len(grids), "frontier_answered": int(fastest.notna().sum()),
          "frontier_exact_max": float(fastest.max()),
          "frontier_budget": float(res["frontier"]["budget"]["budget"].max())}

    exact = res["families"]["exact"].pivot_table(index="instance", columns="method", values="status", aggfunc="first")
    counts, jt = exact["counter"].eq("answered"), exact["junction_tree"].eq("answered")
    v |= {"families_instances": len(exact), "families_counted": int(counts.sum()),
          "families_jt_refused": int((exact["junction_tree"].notna() & ~jt).sum()),
          "families_counted_past_jt": int((counts & exact["junction_tree"].notna() & ~jt).sum()),
          "families_missing": len(res["families"]["provenance"].get("missing", []))}

    winners = reach_winners(res["reach"])
    tally = winners.value_counts()
    top = tally.index[0] if len(tally) and (len(tally) == 1 or tally.iloc[0] > tally.iloc[1]) else None
    rt = _first_stage(res["reach"]).set_index(["network", "sampler"])["ahd"]
    won = [rt[(n, s)] for n, s in winners.dropna().items() if s == top]
    v |= {"reach_networks": len(winners), "reach_measured": int(winners.notna().sum()),
          "reach_winner": top or NONE_MEASURED, "reach_wins": int(tally.get(top, 0)),
          "reach_winner_ahd": float(max(won)) if won else float("nan"),
          "reach_budget": float(res["reach"]["budget"]["budget"].min()),
          "reach_long_budget": float(res["reach"]["budget"]["budget"].max()),
          "reach_count_max": float(res["reach"]["truth"]["count_seconds"].max())}
    every = count_all_seconds(res["reach"])
    v |= {"reach_count_all_fits": int((every <= v["reach_long_budget"]).sum()),
          "reach_count_all_low": float(every.min()), "reach_count_all_high": float(every.max())}
    return {k: x.item() if hasattr(x, "item") else x for k, x in v.items()}  # plain numbers: glue prints them

