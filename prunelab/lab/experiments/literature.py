"""The literature's networks in tables: the families, their answers, the exact methods' reach and the samplers'.

The chapter on the literature's deterministic networks reads the frozen ``families``
and ``reach`` results through these functions; ``benchmarks/bench_families.py`` reads
:func:`instance_times` for its targets.

::

    from prunelab.lab.experiments import EXPERIMENTS, results
    from prunelab.lab.experiments.literature import exact_table, family_table, instance_times, sampler_table
    tables = results(EXPERIMENTS["families"], "paper")
    times = instance_times(tables["exact"], tables["instances"])
    family_table(tables["instances"], tables["exact"]), exact_table(times)
    sampler_table(results(EXPERIMENTS["reach"], "paper"))
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .families import FAMILIES_METHODS
from .reach import reach_table

__all__ = ["KINDS", "REACH_LABELS", "determinism_by_kind", "exact_table", "family_table", "instance_times",
           "network_kind", "refusal_kind", "sampler_grid", "sampler_table",
           "table_entries"]

THREE = FAMILIES_METHODS[:3]  # junction tree, circuit, counter
OURS = THREE + ("auto",)

KINDS = (("blockmap", "blockmap"), ("mastermind", "mastermind"), ("fs-", "friends and smokers"),
         ("4step", "plan recognition"), ("tire-", "plan recognition"), ("or-", "DQMR"))
"""``(prefix of the network's name, kind)``, in the order the tables list the kinds."""


def network_kind(network: str, family: str = "") -> str:
    """What a benchmark network models, from its name (:data:`KINDS`); ``family`` (its folder) if no prefix matches.

    Examples
    --------
    >>> network_kind("or-50-5-1"), network_kind("fs-04"), network_kind("students_03", "2004-pgm")
    ('DQMR', 'friends and smokers', '2004-pgm')
    """
    return next((kind for prefix, kind in KINDS if network.startswith(prefix)), family or network)


def _kinds(frame: pd.DataFrame) -> pd.Series:
    return pd.Series([network_kind(n, f) for n, f in zip(frame["network"], frame["family"])], index=frame.index)


def _order(table: pd.DataFrame) -> pd.DataFrame:
    rank = {kind: k for k, kind in enumerate(dict.fromkeys(kind for _, kind in KINDS))}
    return table.sort_values("kind", key=lambda s: s.map(lambda k: rank.get(k, len(rank)))).reset_index(drop=True)


def _capped(record) -> bool:
    """Whether a run was stopped by its time cap (not by a table or memory cap): a lower bound on its time."""
    if record["status"] == "timed out":
        return True
    return record["status"] == "refused" and float(record["seconds"]) >= 0.9 * float(record["cap_seconds"])


def instance_times(exact: pd.DataFrame, read: pd.DataFrame) -> pd.DataFrame:
    """One row per instance: each method's status, wall and CPU seconds, the fastest of the three, ``auto``'s miss.

    Parameters
    ----------
    exact, read : DataFrame
        The ``exact`` and ``instances`` tables of the families experiment.

    Returns
    -------
    DataFrame
        ``family, kind, instance, network, query, read_s``; per method of :data:`FAMILIES_METHODS`
        ``<m>_status, <m>_s, <m>_cpu_s``; ``auto_used``, ``auto_rule`` and ``auto_reason`` (the method
        ``auto`` used, the key of :data:`~prunelab.planner.PLAN_RULES` that chose it, and the planner's
        sentence), ``table_entries`` (:func:`table_entries` of the reason); ``fastest``,
        ``fastest_s`` (of the junction tree, the circuit and the counter, on wall seconds) and
        ``fastest_published_s``; ``auto_over``
        (``auto`` failed or took over 1.5 x the fastest + 2 s); ``capped`` (methods stopped at their time
        cap) and ``auto_undecidable`` (a capped method could still have beaten ``auto`` by that margin);
        the same on CPU seconds (``fastest_cpu``, ``fastest_cpu_s``, ``auto_over_cpu``,
        ``auto_undecidable_cpu``); ``load`` (mean load average at the runs' start).

    Examples
    --------
    >>> runs = [{"instance": "i", "network": "or-1", "family": "DQMR", "query": "P(e)", "method": m,
    ...          "status": "answered", "seconds": s, "cpu_seconds": s, "cap_seconds": 600.0, "used": m,
    ...          "fastest_published_s": 0.5, "load_start": 1.0} for m, s in (("junction_tree", 0.2),
    ...          ("circuit", 3.0), ("counter", 0.4), ("auto", 0.3))]
    >>> row = instance_times(pd.DataFrame(runs), pd.DataFrame({"instance": ["i"], "read_seconds": [0.1]})).iloc[0]
    >>> row["fastest"], bool(row["auto_over"]), row["pyagrum_status"]
    ('junction_tree', False, 'not run')
    """
    rows = []
    info = read.set_index("instance")["read_seconds"]
    for key, group in exact.groupby("instance", sort=False):
        by = group.set_index("method")
        first = group.iloc[0]
        row = {"family": first["family"], "kind": network_kind(first["network"], first["family"]), "instance": key,
               "network": first["network"], "query": first["query"], "read_s": float(info.get(key, math.nan))}
        for m in FAMILIES_METHODS:
            present = m in by.index
            row[f"{m}_status"] = by.loc[m, "status"] if present else "not run"
            row[f"{m}_s"] = float(by.loc[m, "seconds"]) if present else math.nan
            row[f"{m}_cpu_s"] = float(by.loc[m, "cpu_seconds"]) if present else math.nan
        row["auto_used"] = by.loc["auto", "used"] if "auto" in by.index else ""
        row["auto_rule"] = str(by.loc["auto"].get("rule", "")) if "auto" in by.index else ""
        row["auto_reason"] = str(by.loc["auto"].get("reason", "")) if "auto" in by.index else ""
        row["table_entries"] = table_entries(row["auto_reason"])
        answered = {m: row[f"{m}_s"] for m in THREE if row[f"{m}_status"] == "answered"}
        row["fastest"] = min(answered, key=answered.get) if answered else ""
        row["fastest_s"] = answered[row["fastest"]] if answered else math.nan
        row["fastest_published_s"] = float(first["fastest_published_s"])
        auto_ok = row["auto_status"] == "answered"
        row["auto_over"] = bool(answered) and (not auto_ok or row["auto_s"] > 1.5 * row["fastest_s"] + 2.0)
        # a method stopped at its time cap could still have been faster than auto by the target's margin
        row["capped"] = ",".join(m for m in THREE if m in by.index and _capped(by.loc[m]))
        need = (row["auto_s"] - 2.0) / 1.5 if auto_ok else math.inf
        row["auto_undecidable"] = any(need > float(by.loc[m, "cap_seconds"]) for m in row["capped"].split(",") if m)
        # the same on CPU seconds, which the load changes less (a capped run's CPU seconds are its lower bound)
        answered_cpu = {m: row[f"{m}_cpu_s"] for m in answered}
        row["fastest_cpu"] = min(answered_cpu, key=answered_cpu.get) if answered_cpu else ""
        row["fastest_cpu_s"] = answered_cpu[row["fastest_cpu"]] if answered_cpu else math.nan
        row["auto_over_cpu"] = bool(answered) and (not auto_ok or row["auto_cpu_s"] > 1.5 * row["fastest_cpu_s"] + 2.0)
        need_cpu = (row["auto_cpu_s"] - 2.0) / 1.5 if auto_ok else math.inf
        row["auto_undecidable_cpu"] = any(need_cpu > row[f"{m}_cpu_s"] for m in row["capped"].split(",") if m)
        row["load"] = float(group["load_start"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def _side(agreements: pd.Series) -> str:
    """One instance's agreement from its methods' (all must say the same, else ``"mixed"``)."""
    sides = set(agreements)
    return sides.pop() if len(sides) == 1 else ("mixed" if sides else "")


def family_table(read: pd.DataFrame, exact: pd.DataFrame) -> pd.DataFrame:
    """Per kind of network: its files read, its queries, its published answers reproduced or on which side.

    Parameters
    ----------
    read, exact : DataFrame
        The ``instances`` and ``exact`` tables of the families experiment.

    Returns
    -------
    DataFrame
        One row per kind (:data:`KINDS`): ``networks, instances, variables_min, variables_max``;
        ``p_e`` and ``p_goal`` (instances asking ``P(e)`` and ``P(goal = v)``); ``files`` and
        ``files_read`` (network and evidence files); ``undisputed`` published answers and
        ``reproduced`` (by every method of ours that answered, ``answers.agreement``);
        ``disputed``, ``consensus`` and ``minority`` (ours with the study's consensus or with
        its minority); ``unanswered`` (no method of ours answered); ``pyagrum`` (instances
        pyAgrum's junction tree answered, of those it was run on: ``pyagrum_run``).

    Examples
    --------
    >>> read = pd.DataFrame({"instance": ["a", "b"], "network": ["or-1", "or-1"], "family": ["DQMR"] * 2,
    ...     "network_file": ["or-1.dne"] * 2, "evidence_file": ["a.inst", "b.inst"], "read_status": ["ok"] * 2,
    ...     "n_variables": [5, 5], "query": ["P(e)"] * 2, "published_answer": ["0.5", "0"],
    ...     "disputed": ["no", "yes"]})
    >>> exact = pd.DataFrame({"instance": ["a", "b", "b"], "method": ["counter", "counter", "pyagrum"],
    ...     "status": ["answered", "answered", "failed"], "agreement": ["reproduced", "minority", ""]})
    >>> family_table(read, exact)[["kind", "files_read", "reproduced", "minority", "pyagrum"]].values.tolist()
    [['DQMR', 3, 1, 1, 0]]
    """
    ours = exact[exact["method"].isin(OURS) & exact["status"].eq("answered")]
    side = ours.groupby("instance")["agreement"].agg(_side)
    pyagrum = exact[exact["method"].eq("pyagrum")].set_index("instance")["status"]
    rows = []
    for kind, g in read.assign(kind=_kinds(read)).groupby("kind"):
        s = g["instance"].map(side).fillna("")
        published, disputed = g["published_answer"].ne(""), g["disputed"].eq("yes")
        networks = g.groupby("network_file")["read_status"].apply(lambda x: x.eq("ok").all())
        evidence = g[g["evidence_file"].ne("")].groupby("evidence_file")["read_status"].apply(
            lambda x: x.eq("ok").all())
        ran = g["instance"].isin(pyagrum.index)
        rows.append({"kind": kind, "networks": g["network"].nunique(), "instances": len(g),
                     "variables_min": int(g["n_variables"].min()), "variables_max": int(g["n_variables"].max()),
                     "p_e": int(g["query"].eq("P(e)").sum()), "p_goal": int(g["query"].ne("P(e)").sum()),
                     "files": len(networks) + len(evidence), "files_read": int(sum(networks) + sum(evidence)),
                     "undisputed": int((published & ~disputed).sum()),
                     "reproduced": int((published & ~disputed & s.eq("reproduced")).sum()),
                     "disputed": int(disputed.sum()), "consensus": int((disputed & s.eq("consensus")).sum()),
                     "minority": int((disputed & s.isin(["minority", "mixed"])).sum()),
                     "unanswered": int(s.eq("").sum()), "pyagrum_run": int(ran.sum()),
                     "pyagrum": int(g["instance"].map(pyagrum).eq("answered").sum())})
    return _order(pd.DataFrame(rows))


def table_entries(reason: str) -> float:
    """The junction tree's table entries a planner's reason names: ``inf`` where they do not fit, NaN if unnamed.

    Examples
    --------
    >>> table_entries("the junction tree is small: 2146 table entries")
    2146.0
    >>> table_entries("the junction tree's tables do not fit, and one weighted count answers the question")
    inf
    """
    found = re.search(r"([0-9.]+(?:e[+-]?[0-9]+)?) table entries", reason)
    if found:
        return float(found.group(1))
    return math.inf if "tables do not fit" in reason else math.nan


def exact_table(times: pd.DataFrame) -> pd.DataFrame:
    """Per kind of network: instances each exact method answered and won, ``auto``'s choices, ours beside published.

    Parameters
    ----------
    times : DataFrame
        :func:`instance_times`.

    Returns
    -------
    DataFrame
        One row per kind: ``instances``; ``answered_<m>`` and ``fastest_<m>`` for the junction tree,
        the circuit and the counter (wall seconds); ``auto_fastest`` (``auto`` used the fastest
        method), ``auto_within`` (``auto`` within 1.5 x the fastest + 2 s), ``auto_within_cpu`` (the
        same on CPU seconds); ``fastest_s`` and ``published_s`` (medians of our fastest and of the
        fastest published seconds, over the instances we answered).

    Examples
    --------
    >>> runs = [{"instance": "i", "network": "or-1", "family": "DQMR", "query": "P(e)", "method": m,
    ...          "status": "answered", "seconds": s, "cpu_seconds": s, "cap_seconds": 600.0, "used": used,
    ...          "fastest_published_s": 0.5, "load_start": 1.0} for m, s, used in (("junction_tree", 0.2,
    ...          "junction_tree"), ("counter", 0.4, "counter"), ("auto", 0.3, "junction_tree"))]
    >>> times = instance_times(pd.DataFrame(runs), pd.DataFrame({"instance": ["i"], "read_seconds": [0.1]}))
    >>> exact_table(times)[["kind", "fastest_junction_tree", "auto_fastest", "auto_within"]].values.tolist()
    [['DQMR', 1, 1, 1]]
    """
    rows = []
    for kind, g in times.groupby("kind"):
        answered = g[g["fastest"].ne("")]
        row = {"kind": kind, "instances": len(g)}
        row.update({f"answered_{m}": int(g[f"{m}_status"].eq("answered").sum()) for m in THREE})
        row.update({f"fastest_{m}": int(answered["fastest"].eq(m).sum()) for m in THREE})
        row.update(auto_fastest=int(answered["auto_used"].eq(answered["fastest"]).sum()),
                   auto_within=int((~answered["auto_over"]).sum()),
                   auto_within_cpu=int((~answered["auto_over_cpu"]).sum()),
                   fastest_s=float(answered["fastest_s"].median()),
                   published_s=float(answered["fastest_published_s"].median()))
        rows.append(row)
    return _order(pd.DataFrame(rows))


def refusal_kind(reason: str) -> str:
    """Why a sampler of the reach experiment gave no estimate, in a few words.

    Examples
    --------
    >>> refusal_kind("refused: TablesTooLargeError: the counting plan of prune sampling ... needs a clique")
    'tables too large'
    >>> refusal_kind("timed out: : stopped at its cap of 180 s")
    'stopped at its cap'
    """
    for needle, kind in (("TablesTooLargeError", "tables too large"), ("timed out", "stopped at its cap"),
                         ("no state with P(x, e) > 0", "no start state"), ("memory", "memory cap")):
        if needle in reason:
            return kind
    return "other" if reason else ""


def sampler_table(tables: dict) -> pd.DataFrame:
    """:func:`~.reach.reach_table` with each refusal's kind, and the AHD of the uniform guess beside each network.

    Parameters
    ----------
    tables : dict
        The reach experiment's results (``truth`` and ``budget``).

    Returns
    -------
    DataFrame
        The columns of :func:`~.reach.reach_table`, then ``refusal`` (:func:`refusal_kind`),
        ``uniform_ahd`` (the AHD over the counted variables of every marginal estimated as
        uniform: an estimate that ignores the network) and ``best`` (the smallest AHD of
        the network's samplers at that budget).

    Examples
    --------
    >>> truth = pd.DataFrame([{"network": "n", "status": "ok", "variables": ["A"], "marginals": [[1.0, 0.0]]}])
    >>> budget = pd.DataFrame([{"network": "n", "sampler": "s", "budget": 1.0, "status": "ok", "reason": "",
    ...     "n_steps": 9, "n_chains": 1, "variables": ["A"], "estimates": [[1.0, 0.0]], "trap_judged": False,
    ...     "trap_split": [], "trap_disagreeing": [], "never_moved": [], "never_moved_states": []}])
    >>> row = sampler_table({"truth": truth, "budget": budget}).iloc[0]
    >>> float(row["ahd"]), round(float(row["uniform_ahd"]), 4), row["refusal"]
    (0.0, 0.5412, '')
    """
    from prunelab.indicators import mean_hellinger_over_variables

    table = reach_table(tables)
    uniform = {}
    for _, t in tables["truth"][tables["truth"]["status"].eq("ok")].iterrows():
        exact = {v: np.asarray(m, float) for v, m in zip(t["variables"], t["marginals"])}
        uniform[t["network"]] = float(mean_hellinger_over_variables(
            {v: np.full(m.size, 1.0 / m.size) for v, m in exact.items()}, exact))
    table["refusal"] = table["reason"].map(refusal_kind)
    table["uniform_ahd"] = table["network"].map(uniform)
    table["best"] = table.groupby(["network", "budget"])["ahd"].transform("min")
    return table


def determinism_by_kind(read: pd.DataFrame) -> pd.Series:
    """Per kind, the share of deterministic CPT rows in its smallest network (fewest variables) of ``read``.

    Each network is read from ``data/benchmarks`` (:func:`prunelab.read_network`); the share is
    :func:`prunelab.smoothing.deterministic_row_share`.

    Examples
    --------
    >>> read = pd.DataFrame({"network": ["fs-01"], "family": ["2006-ijar"], "network_file": ["2006-ijar/fs-01.net"],
    ...                      "n_variables": [10]})
    >>> round(float(determinism_by_kind(read)["friends and smokers"]), 3)
    0.739
    """
    from prunelab import read_network
    from prunelab.smoothing import deterministic_row_share

    from .families import benchmarks_dir

    smallest = read.assign(kind=_kinds(read)).sort_values("n_variables").groupby("kind")["network_file"].first()
    return smallest.map(lambda path: deterministic_row_share(read_network(benchmarks_dir() / path)))


REACH_LABELS = {"gibbs-rb": "Gibbs (Rao–Blackwell)", "pyagrum-lbp": "pyAgrum loopy BP",
                "pyagrum-importance": "pyAgrum importance sampling", "mc-sat-samplesat": "MC-SAT, SampleSAT steps",
                "prune-per-step": "prune, per-step circuit", "prune-count": "prune, counting",
                "prune-count-rb": "prune, counting (Rao–Blackwell)", "prune-tempered": "tempered prune",
                "mc-sat": "MC-SAT, exact steps"}
"""Display names of the reach experiment's samplers (:data:`~.reach.REACH_SAMPLERS`)."""


def sampler_grid(table: pd.DataFrame) -> pd.DataFrame:
    """The samplers' AHD per network as text: one row per sampler and budget, one column per network.

    A cell is the AHD over the counted variables (``", trapped"`` where the trap check flagged the
    chains) or why the sampler gave none (:func:`refusal_kind`); the last row is the uniform guess.

    Examples
    --------
    >>> table = pd.DataFrame({"network": ["n", "n"], "sampler": ["gibbs-rb", "mc-sat"], "budget": [60.0, 60.0],
    ...     "ahd": [0.2, np.nan], "trapped": [True, None], "refusal": ["", "tables too large"],
    ...     "uniform_ahd": [0.3, 0.3]})
    >>> sampler_grid(table)["n"].tolist()
    ['0.200, trapped', 'tables too large', '0.300']
    """
    several = table["budget"].nunique() > 1
    rows = table.assign(
        row=[REACH_LABELS.get(s, s) + (f", {b:g} s" if several else "") for s, b in zip(table["sampler"],
                                                                                    table["budget"])],
        cell=[r["refusal"] if math.isnan(r["ahd"]) else f"{r['ahd']:.3f}" + (", trapped" if r["trapped"] else "")
              for _, r in table.iterrows()])
    rank = {s: k for k, s in enumerate(REACH_LABELS)}
    order = list(dict.fromkeys(rows.sort_values(["budget", "sampler"], key=lambda c: c.map(rank) if c.name ==
                                                "sampler" else c)["row"]))
    grid = rows.pivot(index="row", columns="network", values="cell").reindex(order)
    uniform = table.groupby("network")["uniform_ahd"].first()
    grid.loc["uniform guess"] = [f"{uniform[n]:.3f}" for n in grid.columns]
    grid.index.name, grid.columns.name = "sampler", None
    return grid.fillna("not run")

