"""Tidy tables from the run files, the per-case summary, and the paper's tables beside ours.

:func:`paper_tables` turns the paper sweep's run records (:mod:`~.paper`) into

``curves.parquet``
    one row per (case, run, checkpoint ``t``), values as float32: ``estimate_<k>`` the running estimate
    of ``P(query = k)``, ``estimate_rb_<k>`` its Rao-Blackwellised version (Gibbs and
    prune; else null), ``hellinger_query`` (and ``_rb``) the Hellinger distance of the query
    marginal to the exact one, ``hellinger_all`` (and ``_rb``) the mean of that
    distance over all free variables. Averaging over runs gives the paper's AHD(t).
``runs.parquet``
    one row per (case, run): seconds, initialiser, final values, sampler statistics
    (``mean_<name>``, e.g. Metropolis ``mean_n_accepted``).
``final_marginals.parquet``
    one row per (case, variable, state): exact value, mean and standard deviation
    over runs of the final estimate (and Rao-Blackwellised mean).
``summary.parquet``
    one row per case: the alpha fits, time to sigma_t = 0.01, AHD at ``T``, ESS.

Columns of ``summary.parquet``
-----------------------------
``alpha``, ``beta``, ``delta_fixed``, ``residual_rms``
    :func:`~prunelab.indicators.fit_alpha` with the paper's fixed ``delta`` (0.9) on
    sigma_t of the query state's running estimate, ``t >= t_min`` (10);
    ``alpha_low``/``alpha_high`` a 95 % bootstrap interval over runs.
``alpha_free``, ``beta_free``, ``delta_free``
    The same with delta fitted. ``alpha_rb`` (Gibbs, prune): fixed-delta fit of the
    Rao-Blackwellised estimate. ``alpha_note``: why a fit is missing.
``alpha_iid``
    ``sqrt(p (1 - p))`` for the exact ``p``: the alpha of independent draws.
``seconds_per_draw``, ``init_seconds``
    Means over runs. ``cpu_seconds``: the case's total init + sampling time. ``seconds_per_draw_rb``: of the
    chains that recorded the Rao-Blackwell sums (Gibbs: the same; prune: a second chain of the same seed).
``draws_to_target``, ``seconds_to_target``
    :func:`~prunelab.indicators.time_to_sigma` from ``alpha`` (Table 3);
    ``_free`` from ``alpha_free``; ``_rb`` from ``alpha_rb`` at ``seconds_per_draw_rb``.
    ``t_below_target``: first checkpoint with sigma_t <= 0.01 (fit-free; null if
    never), ``seconds_below_target`` its cost.
``ahd_query``, ``ahd_all`` (and ``_rb``)
    AHD at ``T`` for the query and averaged over all free variables.
``rhat``, ``ess_bulk``, ``ess_tail``, ``ess_per_second``, ``constant_chains``
    :func:`~prunelab.diagnostics.convergence_summary` of the query-state indicator,
    the runs taken as chains; ``ess_from_alpha`` what alpha implies per run.
``trapped_runs``, ``query_stuck_runs``
    Runs stuck on some free variable, and on the query variable
    (``SampleResult.trap.stuck``: never changed although the evidence allows it,
    and no single-site move could change it).
``mark``, ``mark_reason``
    :func:`~prunelab.lab.mixing.mixing_verdict`: ``"†"`` not ergodic, ``"‡"`` the runs
    disagree, ``""`` they mix; Tables 2-3, the scorecard and the chapters show it beside
    alpha and time, which then describe a trap or a drift, not a convergence rate.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd

from prunelab.diagnostics import convergence_summary, ess_from_alpha
from prunelab.indicators import (
    AlphaFitError,
    bootstrap_alpha,
    first_checkpoint_below,
    fit_alpha,
    sigma_t,
    time_to_sigma,
)
from ..mixing import MARKS, mixing_verdict
from ..paper_numbers import PAPER_SAMPLERS, PAPER_ALPHA, PAPER_BENCHMARKS, PAPER_LABELS, PAPER_SECONDS
from .framework import run_seed_sequence
from .specs import CaseSpec, Profile, prepare_case

__all__ = [
    "by_benchmark", "estimator_table", "format_paper_tables", "forward_cases", "paper_table", "paper_tables",
    "printed_table", "summarise_case",
]

TABLES = ("curves", "runs", "final_marginals", "summary")
"""The consolidated tables, each ``<name>.parquet``."""

BOOTSTRAP_SPAWN = 2**32 - 2
"""The replicate of a case's seed series that draws the bootstrap of its alpha (no run has it)."""

N_BOOT = 200
"""Bootstrap replicates for the alpha interval."""

_META = ["case", "benchmark", "network", "evidence", "sampler", "init"]


def _spec_from_dict(d: dict) -> CaseSpec:
    return CaseSpec(
        benchmark=d["benchmark"],
        network=d["network"],
        sampler=d["sampler"],
        evidence=d["evidence"],
        query=d["query"],
        init=d["init"],
        start=None if d["start"] is None else tuple(d["start"].items()),
        options=tuple(d["options"].items()),
    )


def _fit(t, sigma, delta, t_min):
    try:
        return fit_alpha(t, sigma, delta=delta, t_min=t_min), ""
    except (AlphaFitError, ValueError) as err:
        return None, f"{'free' if delta is None else 'fixed'}-delta fit: {err}"


def summarise_case(runs: pd.DataFrame, profile: Profile, exact_query: np.ndarray, root_seed: int) -> dict:
    """One row of ``summary.parquet`` from one case's run records (a DataFrame of run rows)."""
    first = runs.iloc[0]
    n_runs = len(runs)
    n_draws = int(first["n_draws"])
    t = np.asarray(first["t"], dtype=np.int64)
    n_states = int(first["n_states"])
    state = int(first["query_state"])
    estimate = np.stack(runs["estimate"].map(np.asarray).to_list()).reshape(n_runs, t.size, n_states)
    sigma = sigma_t(estimate, state)
    p = float(exact_query[state])
    row = {key: first[key] for key in _META}
    row.update(
        query=first["query"], query_state=state, n_states=n_states, n_runs=n_runs, n_draws=n_draws,
        exact_query=p, estimate_query=float(estimate[:, -1, state].mean()),
        alpha_iid=float(np.sqrt(p * (1 - p))),
    )
    notes = []
    fixed, note = _fit(t, sigma, profile.delta, profile.t_min)
    notes.append(note)
    free, note = _fit(t, sigma, None, profile.t_min)
    notes.append(note)
    low = high = np.nan
    if fixed is not None and n_runs >= 2:
        rng = np.random.default_rng(run_seed_sequence(row["case"], root_seed, replicate=BOOTSTRAP_SPAWN))
        try:
            ci = bootstrap_alpha(estimate, t, state, n_boot=N_BOOT, rng=rng, delta=profile.delta, t_min=profile.t_min)
            low, high = ci.low, ci.high
        except (AlphaFitError, ValueError) as err:
            notes.append(f"bootstrap: {err}")
    row.update(
        alpha=fixed.alpha if fixed else np.nan,
        alpha_low=low,
        alpha_high=high,
        beta=fixed.beta if fixed else np.nan,
        delta_fixed=profile.delta,
        residual_rms=fixed.residual_rms if fixed else np.nan,
        alpha_free=free.alpha if free else np.nan,
        beta_free=free.beta if free else np.nan,
        delta_free=free.delta if free else np.nan,
        t_min=profile.t_min,
    )
    rb = runs["estimate_rb"].notna().all()
    alpha_rb = np.nan
    if rb:
        estimate_rb = np.stack(runs["estimate_rb"].map(np.asarray).to_list()).reshape(n_runs, t.size, n_states)
        fit_rb, note = _fit(t, sigma_t(estimate_rb, state), profile.delta, profile.t_min)
        notes.append(note.replace("fit", "fit (Rao–Blackwell)"))
        alpha_rb = fit_rb.alpha if fit_rb else np.nan
    row["alpha_rb"] = alpha_rb
    row["alpha_note"] = "; ".join(n for n in notes if n)

    sample_seconds = runs["sample_seconds"].to_numpy(float)
    init_seconds = runs["init_seconds"].to_numpy(float)
    per_draw = float(sample_seconds.mean() / n_draws)
    init_mean = float(init_seconds.mean())
    seconds_rb = runs["sample_seconds_rb"].to_numpy(float) if "sample_seconds_rb" in runs else np.full(n_runs, np.nan)
    per_draw_rb = float(seconds_rb.mean() / n_draws) if rb and np.isfinite(seconds_rb).all() else np.nan
    row.update(
        seconds_per_draw=per_draw,
        seconds_per_draw_rb=per_draw_rb,
        init_seconds=init_mean,
        cpu_seconds=float(sample_seconds.sum() + init_seconds.sum()),
    )
    for suffix, alpha, cost_per_draw in (("", row["alpha"], per_draw), ("_free", row["alpha_free"], per_draw),
                                         ("_rb", alpha_rb, per_draw_rb)):
        if np.isnan(alpha) or np.isnan(cost_per_draw):
            row[f"draws_to_target{suffix}"] = row[f"seconds_to_target{suffix}"] = np.nan
        else:
            cost = time_to_sigma(alpha, cost_per_draw, init_mean, target=profile.target)
            row[f"draws_to_target{suffix}"] = cost.draws
            row[f"seconds_to_target{suffix}"] = cost.seconds
    below = first_checkpoint_below(t, sigma, target=profile.target, t_min=profile.t_min)
    row["t_below_target"] = np.nan if below is None else float(below)
    row["seconds_below_target"] = np.nan if below is None else init_mean + below * per_draw
    row["sigma_T"] = float(sigma[-1])
    for name in ("hellinger_query", "hellinger_all"):
        key = name.replace("hellinger", "ahd")
        row[key] = float(np.mean([h[-1] for h in runs[name]]))
        row[f"{key}_rb"] = float(np.mean([h[-1] for h in runs[f"{name}_rb"]])) if rb else np.nan

    indicator = np.stack([np.frombuffer(b, dtype=np.int8) for b in runs["query_draws"]]) == state
    if n_draws >= 4:
        diag = convergence_summary(indicator, seconds_per_chain=sample_seconds)
        row.update(
            rhat=diag["rhat"], ess_bulk=diag["ess_bulk"], ess_tail=diag["ess_tail"],
            ess_per_second=diag["ess_per_second"], constant_chains=diag["constant_chains"],
        )
    row["ess_from_alpha"] = (
        float(ess_from_alpha(n_draws, p, fixed.alpha)) if fixed is not None and 0 < p < 1 else np.nan
    )
    stuck = [list(s) if s is not None else [] for s in runs["stuck"]]
    row["trapped_runs"] = sum(bool(s) for s in stuck)
    row["query_stuck_runs"] = sum(first["query"] in s for s in stuck)
    row["mark"], row["mark_reason"] = mixing_verdict(row)
    return row


def _curves(runs: pd.DataFrame, max_states: int) -> pd.DataFrame:
    pieces = []
    for _, r in runs.iterrows():
        t = np.asarray(r["t"], dtype=np.int64)
        k = int(r["n_states"])
        columns = {key: np.repeat(r[key], t.size) for key in _META}
        columns["run"] = np.full(t.size, int(r["run"]))
        columns["t"] = t
        for name in ("estimate", "estimate_rb"):
            values = np.full((t.size, max_states), np.nan)
            if r[name] is not None:
                values[:, :k] = np.asarray(r[name]).reshape(t.size, k)
            for s in range(max_states):
                columns[f"{name}_{s}"] = values[:, s]
        for name in ("hellinger_query", "hellinger_query_rb", "hellinger_all", "hellinger_all_rb"):
            columns[name] = np.asarray(r[name], dtype=float) if r[name] is not None else np.full(t.size, np.nan)
        pieces.append(pd.DataFrame(columns))
    curves = pd.concat(pieces, ignore_index=True)
    # float32 keeps the committed table small (about 1e-7 relative; the run files and
    # the summary use float64)
    floats = [c for c in curves.columns if curves[c].dtype == np.float64]
    return curves.astype({c: np.float32 for c in floats})


def _runs_table(runs: pd.DataFrame) -> pd.DataFrame:
    columns = ["run", "query", "query_state", "n_draws", "init_used", "init_seconds", "sample_seconds",
               "sample_seconds_rb"]
    table = runs[_META + columns].copy()
    table["seconds_per_draw"] = table["sample_seconds"] / table["n_draws"]
    state = runs["query_state"].to_numpy()
    k = runs["n_states"].to_numpy()
    table["estimate_final"] = [np.asarray(e)[-kk + s] for e, kk, s in zip(runs["estimate"], k, state)]
    table["estimate_rb_final"] = [
        np.nan if e is None else np.asarray(e)[-kk + s] for e, kk, s in zip(runs["estimate_rb"], k, state)
    ]
    for name in ("hellinger_query", "hellinger_query_rb", "hellinger_all", "hellinger_all_rb"):
        table[f"{name}_final"] = [np.nan if h is None else h[-1] for h in runs[name]]
    stats = pd.DataFrame([json.loads(s) if s else {} for s in runs["stats"]], index=runs.index)
    for name in stats.columns:
        table[f"mean_{name}"] = stats[name]
    table["spawn_key"] = runs["spawn_key"].map(lambda k: ",".join(map(str, k)))
    return table


def _final_marginals(runs: pd.DataFrame, spec: CaseSpec, exact: dict) -> pd.DataFrame:
    bn, _ = spec.load()
    finals = np.stack(runs["final_marginals"].map(np.asarray).to_list())
    rb = runs["final_marginals_rb"].notna().all()
    finals_rb = np.stack(runs["final_marginals_rb"].map(np.asarray).to_list()) if rb else None
    rows = []
    offset = 0
    for v in bn.variables:
        card = len(bn.states[v])
        for s in range(card):
            j = offset + s
            rows.append(
                {
                    "case": spec.id, "variable": v, "state": bn.states[v][s], "state_index": s,
                    "observed": v not in exact,
                    "exact": float(exact[v][s]) if v in exact else np.nan,
                    "mean": float(finals[:, j].mean()), "std": float(finals[:, j].std()),
                    "mean_rb": float(finals_rb[:, j].mean()) if rb else np.nan,
                }
            )
        offset += card
    return pd.DataFrame(rows)


def paper_tables(records: pd.DataFrame, settings: dict) -> dict[str, pd.DataFrame]:
    """The four tables of the paper sweep from its run records (:meth:`~.paper._Paper.derive`).

    Parameters
    ----------
    records : DataFrame
        One row per run record (:func:`~.paper.simulate_run`), as read back from JSON.
    settings : dict
        What the runs were made with (``sweep.json``): ``profile`` (its ``delta``,
        ``t_min`` and ``target`` make the indicators) and ``root_seed`` (the bootstrap's).

    Returns
    -------
    dict of str to DataFrame
        ``curves``, ``runs``, ``final_marginals``, ``summary``, sorted by case (and run,
        ``t``, variable, state).
    """
    made = settings["profile"]
    profile = Profile(made["name"], made["n_runs"], made["n_draws"], made["n_checkpoints"], t_min=made["t_min"],
                      delta=made["delta"], target=made["target"])
    root_seed = int(settings["root_seed"])
    runs = records.copy()
    runs["query_draws"] = runs["query_draws"].map(base64.b64decode)
    for name in ("init_seconds", "sample_seconds", "sample_seconds_rb"):
        runs[name] = runs[name].astype(float)
    runs = runs.sort_values(["case", "run"], kind="stable").reset_index(drop=True)
    max_states = int(runs["n_states"].max())
    summaries, finals = [], []
    for _, group in runs.groupby("case", sort=True):
        spec = _spec_from_dict(json.loads(group["case_spec"].iloc[0]))
        exact = prepare_case(spec, root_seed)["exact"]
        summaries.append(summarise_case(group, profile, exact[spec.query_variable], root_seed))
        finals.append(_final_marginals(group, spec, exact))
    tables = {
        "curves": _curves(runs, max_states),
        "runs": _runs_table(runs),
        "final_marginals": pd.concat(finals, ignore_index=True),
        "summary": pd.DataFrame(summaries),
    }
    for name, table in tables.items():
        sort = [c for c in ("case", "run", "t", "variable", "state_index") if c in table.columns]
        tables[name] = table.sort_values(sort, kind="stable").reset_index(drop=True)
    return tables


def forward_cases(summary: pd.DataFrame, cases=None) -> pd.DataFrame:
    """The forward-start cases of an experiment summary, indexed by case id.

    Parameters
    ----------
    summary : DataFrame
        ``summary.parquet`` (:func:`~prunelab.lab.experiments.results` of :data:`~.paper.PAPER`),
        with ``case``, ``init``, ``benchmark`` and ``sampler`` columns.
    cases : iterable of str, optional
        Keep only these case ids (those present).

    Returns
    -------
    DataFrame
        One row per (benchmark, sampler), in the summary's order.

    Raises
    ------
    ValueError
        If a (benchmark, sampler) has more than one forward-start case.

    Examples
    --------
    >>> summary = pd.DataFrame({"case": ["a.prune", "a.prune.fixed"], "benchmark": ["a", "a"],
    ...                         "sampler": ["prune", "prune"], "init": ["forward", "fixed"]})
    >>> forward_cases(summary).index.tolist()
    ['a.prune']
    """
    forward = summary[summary["init"] == "forward"]
    if cases is not None:
        forward = forward[forward["case"].isin(list(cases))]
    twice = forward[forward.duplicated(["benchmark", "sampler"], keep=False)]
    if len(twice):
        raise ValueError("the experiment summary has more than one forward-start case per benchmark and sampler: "
                         + ", ".join(sorted(twice["case"])))
    return forward.set_index("case")


def by_benchmark(cases: pd.DataFrame, column: str) -> pd.DataFrame:
    """One column of the forward-start cases laid out as the paper's Tables 2 and 3.

    Parameters
    ----------
    cases : DataFrame
        One row per case, with ``benchmark`` and ``sampler`` columns, one case per
        benchmark and sampler (:func:`forward_cases`).
    column : str

    Returns
    -------
    DataFrame
        Rows the nine benchmarks in the paper's order, labelled as printed
        (:data:`prunelab.lab.paper_numbers.PAPER_LABELS`), index name ``"network"``;
        columns the three samplers. A case missing from ``cases`` is NaN.

    Examples
    --------
    >>> cases = pd.DataFrame({"benchmark": ["grid-3x3"], "sampler": ["prune"], "alpha": [0.7]})
    >>> by_benchmark(cases, "alpha").loc["Grid 3x3"].tolist()
    [nan, nan, 0.7]
    """
    data = cases.pivot(index="benchmark", columns="sampler", values=column)
    data = data.reindex(index=list(PAPER_BENCHMARKS), columns=list(PAPER_SAMPLERS))
    data = data.set_axis([PAPER_LABELS[b] for b in PAPER_BENCHMARKS], axis=0)
    data.index.name, data.columns.name = "network", "sampler"
    return data


def printed_table(which: str = "alpha") -> pd.DataFrame:
    """The paper's Table 2 (``which="alpha"``) or Table 3 (``"seconds"``) in :func:`by_benchmark`'s layout.

    Examples
    --------
    >>> float(printed_table("seconds").loc["Grid 8x8", "prune"])
    105.17
    """
    printed = {"alpha": PAPER_ALPHA, "seconds": PAPER_SECONDS}.get(which)
    if printed is None:
        raise ValueError(f"which must be 'alpha' or 'seconds', got {which!r}")
    cases = pd.DataFrame([{"benchmark": b, "sampler": m, which: printed[b][m]}
                          for b in PAPER_BENCHMARKS for m in PAPER_SAMPLERS])
    return by_benchmark(cases, which)


def paper_table(summary: pd.DataFrame, which: str = "alpha", column: str | None = None) -> pd.DataFrame:
    """Our Table 2 (``which="alpha"``) or Table 3 (``"seconds"``) beside the paper's.

    Parameters
    ----------
    summary : DataFrame
        ``summary.parquet``; forward-initialised cases are used.
    which : {"alpha", "seconds"}
    column : str, optional
        Our column to show; default ``"alpha"`` (fixed delta) resp. ``"seconds_to_target"``.

    Returns
    -------
    DataFrame
        :func:`by_benchmark`'s layout with columns ``(sampler, "ours"|"paper")``.
        Missing cases are ``NaN``.

    Examples
    --------
    >>> from prunelab.lab.experiments import PAPER, results
    >>> table = paper_table(results(PAPER, "paper")["summary"])
    >>> table.columns[:2].tolist(), float(table.loc["Asia_ev0", ("prune", "paper")])
    ([('gibbs', 'ours'), ('gibbs', 'paper')], 0.81)
    """
    printed = printed_table(which)
    column = column or {"alpha": "alpha", "seconds": "seconds_to_target"}[which]
    ours = by_benchmark(forward_cases(summary), column).astype(float)
    table = pd.concat({"ours": ours, "paper": printed}, axis=1, names=["source", "sampler"])
    table = table.swaplevel(axis=1)[[(m, source) for m in PAPER_SAMPLERS for source in ("ours", "paper")]]
    table.columns = pd.MultiIndex.from_tuples(table.columns, names=["sampler", "source"])
    return table


ESTIMATOR_COLUMNS = {"alpha": ("alpha", "alpha_rb"), "seconds": ("seconds_to_target", "seconds_to_target_rb")}
"""The summary columns of Tables 2 and 3 for the plain and the Rao-Blackwell estimator."""


def estimator_table(summary: pd.DataFrame, which: str = "alpha", sampler: str = "prune") -> pd.DataFrame:
    """Table 2 (``which="alpha"``) or Table 3 (``"seconds"``) of one sampler with both estimators, and the paper's.

    The paper computed alpha and the time of Gibbs with the Rao-Blackwell estimator
    (its eq. (3)) and those of prune sampling with the plain one; this table puts
    one sampler's two estimators side by side. The Rao-Blackwell time is that of
    the chains that recorded the sums (``seconds_to_target_rb``).

    Parameters
    ----------
    summary : DataFrame
        ``summary.parquet``; forward-initialised cases are used.
    which : {"alpha", "seconds"}
    sampler : str
        One of the paper's samplers with a Rao-Blackwell estimate (``"gibbs"``, ``"prune"``).

    Returns
    -------
    DataFrame
        Index: the paper's row labels; columns ``"plain"``, ``"rao_blackwell"``,
        ``"ratio"`` (Rao-Blackwell over plain) and ``"paper"`` (as printed). Missing
        cases are ``NaN``.

    Raises
    ------
    ValueError
        An unknown ``which``, or a ``sampler`` the paper's tables do not have.

    Examples
    --------
    >>> import pandas as pd
    >>> from prunelab.lab.experiments import estimator_table
    >>> summary = pd.DataFrame({"benchmark": ["asia_ev0"], "sampler": ["prune"], "init": ["forward"],
    ...                         "alpha": [0.5], "alpha_rb": [0.4]})
    >>> estimator_table(summary, "alpha").loc["Asia_ev0"].round(2).tolist()
    [0.5, 0.4, 0.8, 0.81]
    """
    if which not in ESTIMATOR_COLUMNS:
        raise ValueError(f"which must be 'alpha' or 'seconds', got {which!r}")
    if sampler not in PAPER_SAMPLERS:
        raise ValueError(f"sampler must be one of the paper's {PAPER_SAMPLERS}, got {sampler!r}")
    printed = PAPER_ALPHA if which == "alpha" else PAPER_SECONDS
    forward = summary[summary["init"] == "forward"].set_index(["benchmark", "sampler"])
    data = {}
    for name, column in zip(("plain", "rao_blackwell"), ESTIMATOR_COLUMNS[which]):
        values = forward[column] if column in forward else pd.Series(dtype=float)
        data[name] = [float(values.get((b, sampler), np.nan)) for b in PAPER_BENCHMARKS]
    table = pd.DataFrame(data, index=pd.Index([PAPER_LABELS[b] for b in PAPER_BENCHMARKS], name="network"))
    table["ratio"] = table["rao_blackwell"] / table["plain"]
    table["paper"] = [printed[b][sampler] for b in PAPER_BENCHMARKS]
    return table


def format_paper_tables(summary: pd.DataFrame, alpha_column: str = "alpha") -> str:
    """Tables 2 and 3 as text, ours beside the paper's (for ``python -m prunelab tables``).

    ``alpha_column`` is ``"alpha"`` (the paper's construction, delta = 0.9) or
    ``"alpha_free"`` (delta fitted); Table 3 uses the matching time to sigma_t = 0.01.
    Our cells carry the case's mark (:mod:`prunelab.lab.mixing`).
    """
    seconds_column = {"alpha": "seconds_to_target", "alpha_free": "seconds_to_target_free"}.get(alpha_column)
    if seconds_column is None:
        raise ValueError(f"alpha_column must be 'alpha' or 'alpha_free', got {alpha_column!r}")
    alpha = paper_table(summary, "alpha", alpha_column)
    seconds = paper_table(summary, "seconds", seconds_column)
    marks = by_benchmark(forward_cases(summary), "mark").astype(object).fillna("")  # "" where a case is missing
    lines = [
        f"Table 2: alpha, the rate-of-convergence constant (ours: {alpha_column}; paper: as printed)",
        _marked(alpha, marks, "{:.2f}"),
        "",
        f"Table 3: seconds to sigma_t = 0.01 (ours: {seconds_column}; paper: as printed, i5-5300, PyMC)",
        _marked(seconds, marks, "{:.3g}"),
    ]
    for which, title in (("alpha", "Table 2, prune sampling: alpha with the plain and the Rao-Blackwell estimator"),
                         ("seconds", "Table 3, prune sampling: seconds to sigma_t = 0.01, each estimator at its "
                                     "own cost per draw")):
        both = estimator_table(summary, which, "prune")
        if both["rao_blackwell"].notna().any():
            lines += ["", title, both.to_string(float_format="{:.3g}".format, na_rep="-")]
    shown = sorted(set(marks.to_numpy().ravel()) - {""})
    if shown:
        lines += [""] + [f"{mark} {MARKS[mark]}" for mark in shown]
        lines += ["Marked: alpha and time describe a trap or a drift, not a rate of convergence."]
    return "\n".join(lines)


def _marked(table: pd.DataFrame, marks: pd.DataFrame, fmt: str) -> str:
    """``table`` as text, our cells followed by their case's mark."""
    text = table.copy().astype(object)
    for label in table.index:
        for sampler, source in table.columns:
            x = table.loc[label, (sampler, source)]
            cell = "-" if pd.isna(x) else fmt.format(x)
            if source == "ours" and marks.loc[label, sampler]:
                cell += " " + marks.loc[label, sampler]
            text.loc[label, (sampler, source)] = cell
    return text.to_string()
