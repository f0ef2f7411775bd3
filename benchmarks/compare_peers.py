"""prunelab side by side with pgmpy, pyAgrum and PyMC: speed and accuracy per wall-clock budget.

One command prints the whole comparison and writes tidy tables with provenance::

    .venv/bin/python benchmarks/compare_peers.py                 # budgets 1 s and 10 s, ~1 h
    .venv/bin/python benchmarks/compare_peers.py --budgets 0.5 2 --cases asia asia+ev
    .venv/bin/python benchmarks/compare_peers.py --quick         # CI smoke: tiny budgets

For every case (network, evidence) and budget, each sampler of
:data:`prunelab.lab.peers.PEER_SAMPLERS` runs one chain from the same feasible start
(pyAgrum draws its own) and is scored by its sweeps (or steps) per second and by
the average Hellinger distance (AHD: mean over free variables) of its estimate to
the exact marginals. Each figure is printed beside its prunelab counterpart's from
the same run, as a ratio (``speed x``: counterpart / peer; ``AHD x``: peer /
counterpart). The runs and ratios are :func:`prunelab.lab.peers.comparison.compare_peers`;
this command adds the side checks, the targets, provenance and the files.

Outputs (in ``--out``, default ``data/peers``; ``data/peers/quick`` with ``--quick``):

``comparison.parquet``, ``comparison.csv``
    One row per case, budget and sampler (columns
    :data:`prunelab.lab.peers.comparison.COLUMNS`).
``checks.csv``
    Behaviours checked on the side: pyAgrum's default stopping rule, pgmpy from its
    default random start, PyMC's default initial point, PyMC's ``proportional``
    proposal on a single ``Categorical``.
``targets.csv``
    The issue's targets, each with the numbers that decide it.
``provenance.json``
    Command, versions, seed, date, machine and its load.
``comparison.txt``
    What the command prints: the three tables as text.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
import warnings
from datetime import datetime, UTC
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from prunelab.lab import peers
from prunelab.exact import exact_marginals
from prunelab.lab.peers.comparison import add_ratios, compare_peers, load_case

ROOT = Path(__file__).resolve().parents[1]

ALL_CASES = (
    "asia", "asia+ev", "alarm", "alarm+ev", "win95pts", "win95pts+ev", "grid-3x3", "grid-5x5", "grid-8x8",
)
"""``name`` is the network without evidence, ``name+ev`` with its frozen 25 % evidence."""

QUICK_CASES = ("asia", "asia+ev", "grid-3x3")
DEFAULT_BUDGETS = (1.0, 10.0)
QUICK_BUDGETS = (0.1,)
DEFAULT_SEED = 20170607

GIBBS_PEERS = ("pgmpy-gibbs", "pyagrum-gibbs", "pymc-cgm-uniform", "pymc-cgm-proportional")
"""The peers' Gibbs samplers, for the determinism target."""

SPEED_TARGETS = {"pyagrum-gibbs": 50.0, "pgmpy-gibbs": 100.0}
"""prunelab Gibbs sweeps/s over the peer's, required on alarm and win95pts."""

PRUNE_AHD_TARGET = 0.01
PEER_AHD_FLOOR = 0.05
TARGET_BUDGET = 10.0

# --------------------------------------------------------------------------- checks on the side
def side_checks(cases, seed: int, log=print) -> pd.DataFrame:
    """pyAgrum's default stopping rule, pgmpy's random start, PyMC's initial point, PyMC's proposal."""
    rows = []

    def add(check, case, result, value=math.nan, detail=""):
        rows.append({"check": check, "case": case, "result": result, "value": value, "detail": detail})
        log(f"  {check:34s} {case:18s} {result:28s} {value if not isinstance(value, float) else round(value, 4)}"
            f"  {detail[:90]}")

    for name in ("deterministic_pair", "block_chain", *cases):
        bn, evidence, _ = load_case(name)
        exact = exact_marginals(bn, evidence)
        run = peers.pyagrum_default_gibbs(bn, evidence, seed=seed)
        if run.status != "ok":
            add("pyagrum default stopping rule", name, run.status, detail=run.note)
            continue
        add("pyagrum default stopping rule", name, f"stopped after {run.n_steps} it.", run.mean_hellinger(exact),
            f"AHD after its own stop; {run.note}")
    for name in cases:
        bn, evidence, _ = load_case(name)
        run = peers.pgmpy_random_start(bn, evidence, seed=seed)
        add("pgmpy from its random start", name, run.status, detail=run.note)
    for name in cases:
        bn, evidence, _ = load_case(name)
        t0 = time.perf_counter()
        model = peers.to_pymc(bn, evidence)
        logp = float(model.compile_logp()(model.initial_point()))
        add("pymc default initial point", name, "feasible" if np.isfinite(logp) else "infeasible (logp = -inf)",
            logp, f"compile {time.perf_counter() - t0:.1f}s")
    for p in ([0.5, 0.5], [0.6, 0.3, 0.1]):
        _, as_coded = peers.metropolized_gibbs_as_coded(p)
        for proposal in ("proportional", "uniform"):
            with warnings.catch_warnings(record=True) as caught:  # the divide-by-zero is part of the finding
                warnings.simplefilter("always")
                freq = peers.pymc_categorical_frequencies(p, n_draws=5000, proposal=proposal, seed=seed % 2**31)
            seen = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
            chi2 = float(5000 * np.sum((freq - p) ** 2 / np.asarray(p)))
            add(f"pymc Categorical {proposal}", f"p={p}", "frequencies " + np.array2string(freq, precision=3),
                chi2, f"Pearson chi2 vs p over 5000 draws; as-coded stationary {np.round(as_coded, 3).tolist()}"
                + (f"; warnings: {seen}" if seen else ""))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- targets
def evaluate_targets(table: pd.DataFrame) -> pd.DataFrame:
    """The issue's targets, decided from the table (same run)."""
    rows = []
    for peer, needed in SPEED_TARGETS.items():
        for network in ("alarm", "win95pts"):
            sub = table[(table["network"] == network) & (table["sampler"] == peer)]
            if sub.empty:
                continue
            built = sub[sub["status"] == "ok"]
            if built.empty:
                rows.append({"target": f"prunelab gibbs >= {needed:g}x {peer} sweeps/s", "case": network,
                             "holds": "n/a", "value": math.nan, "detail": f"{peer}: {sub['note'].iloc[0]}"})
                continue
            for _, r in built.iterrows():
                rows.append({"target": f"prunelab gibbs >= {needed:g}x {peer} sweeps/s",
                             "case": f"{r['case']} @ {r['budget_s']:g}s", "holds": bool(r["speed_ratio"] >= needed),
                             "value": r["speed_ratio"],
                             "detail": f"{r['counterpart_steps_per_s']:.0f} vs {r['steps_per_s']:.1f} sweeps/s"})
    budget = TARGET_BUDGET if (table["budget_s"] == TARGET_BUDGET).any() else table["budget_s"].max()
    at = table[table["budget_s"] == budget]
    for case, sub in at.groupby("case", sort=False):
        if not sub["deterministic"].iloc[0]:
            continue
        prune = sub[sub["sampler"] == "prunelab-prune"]["ahd"]
        prune_ahd = float(prune.iloc[0]) if len(prune) else math.nan
        peer_rows = sub[sub["sampler"].isin(GIBBS_PEERS)]
        ok_peers = peer_rows[peer_rows["status"] == "ok"]
        above = bool((ok_peers["ahd"] > PEER_AHD_FLOOR).all()) if len(ok_peers) else True
        detail = "; ".join(
            f"{r['sampler']}: " + (f"{r['ahd']:.4f}" if r["status"] == "ok" else r["status"])
            for _, r in peer_rows.iterrows())
        rows.append({"target": f"prune AHD <= {PRUNE_AHD_TARGET} in {budget:g}s, peers' Gibbs > {PEER_AHD_FLOOR}",
                     "case": case, "holds": bool(prune_ahd <= PRUNE_AHD_TARGET and above), "value": prune_ahd,
                     "detail": f"prune {prune_ahd:.4f}; "
                               f"prune part {'holds' if prune_ahd <= PRUNE_AHD_TARGET else 'fails'},"
                               f" peers part {'holds' if above else 'fails'}; {detail}"})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- provenance and printing
def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover
        pass
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):  # pragma: no cover
        return ""


def provenance(argv, seed, budgets, cases, samplers, started, load_start, seconds) -> dict:
    evidence = {case: load_case(case)[1] for case in cases if "+" in case}
    return {
        "command": " ".join(["benchmarks/compare_peers.py", *argv]),
        "seed": seed,
        "budgets_s": list(budgets),
        "cases": list(cases),
        "samplers": list(samplers),
        "evidence": evidence,
        "started_utc": started,
        "wall_seconds": round(seconds, 1),
        "git_commit": _git("rev-parse", "HEAD") or "unknown",
        "git_uncommitted_changes": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "versions": {p: _version(p) for p in
                     ("prunelab", "numpy", "numba", "pgmpy", "pyAgrum", "pymc", "pytensor", "arviz", "pandas")},
        "python": sys.version.split()[0],
        "machine": {
            "node": platform.node(), "platform": platform.platform(), "cpu": _cpu_model(),
            "cpu_count": os.cpu_count(), "load_1_5_15_start": load_start,
            "load_1_5_15_end": list(os.getloadavg()),
        },
        "timing": "seconds = each sampler's own sampling time; setup (build, compile, pilot) excluded; "
                  "one chain per cell; PyMC/prunelab fill the budget by pilot-measured chunks",
    }


def format_comparison(table: pd.DataFrame) -> str:
    shown = table.assign(
        rate=table["steps_per_s"].map(lambda x: "" if not np.isfinite(x) else f"{x:,.0f}"),
        speed_x=table["speed_ratio"].map(lambda x: "" if not np.isfinite(x) else f"{x:,.1f}"),
        AHD=table["ahd"].map(lambda x: "" if not np.isfinite(x) else f"{x:.4f}"),
        AHD_x=table["ahd_ratio"].map(lambda x: "" if not np.isfinite(x) else f"{x:,.1f}"),
        secs=table["seconds"].map(lambda x: "" if not np.isfinite(x) else f"{x:.2f}"),
        status_note=[s if s == "ok" else (n if n.startswith(s) else f"{s}: {n}")[:56]
                     for s, n in zip(table["status"], table["note"])],
    )
    cols = ["case", "budget_s", "sampler", "secs", "rate", "step_unit", "speed_x", "AHD", "AHD_x", "status_note"]
    return shown[cols].to_string(index=False)


def format_report(table, checks, targets, prov) -> str:
    """The printed comparison: table, side checks, targets and machine, as plain text."""
    machine = prov["machine"]
    parts = [
        "== comparison (speed_x = prunelab counterpart / peer sweeps per s; AHD_x = peer / counterpart AHD)",
        format_comparison(table),
        "== side checks",
        checks.to_string(index=False) if len(checks) else "(skipped)",
        "== targets",
        targets.to_string(index=False) if len(targets) else "(none decidable with these cases)",
        f"== machine: {machine['cpu']} x{machine['cpu_count']}, load (1, 5, 15 min) at start "
        f"{[round(x, 2) for x in machine['load_1_5_15_start']]}, "
        f"at end {[round(x, 2) for x in machine['load_1_5_15_end']]}",
        f"== {prov['command']} (seed {prov['seed']}, {prov['started_utc']}, {prov['wall_seconds']} s)",
    ]
    return "\n".join(parts) + "\n"


def write_outputs(out: Path, table, checks, targets, prov) -> None:
    out.mkdir(parents=True, exist_ok=True)
    table.to_parquet(out / "comparison.parquet", index=False)
    table.to_csv(out / "comparison.csv", index=False)
    checks.to_csv(out / "checks.csv", index=False)
    targets.to_csv(out / "targets.csv", index=False)
    (out / "provenance.json").write_text(json.dumps(prov, indent=2) + "\n")
    (out / "comparison.txt").write_text(format_report(table, checks, targets, prov))


def _merge_with_earlier(out: Path, table, checks, prov, cases):
    """Rows of ``cases`` replace those in ``out``'s tables; earlier provenance is kept."""
    earlier = pd.read_parquet(out / "comparison.parquet")
    table = pd.concat([earlier[~earlier["case"].isin(cases)], table], ignore_index=True)
    order = {c: i for i, c in enumerate(ALL_CASES)}
    table = table.sort_values("case", key=lambda c: c.map(lambda x: order.get(x, len(order))), kind="stable")
    if (out / "checks.csv").exists():
        old_checks = pd.read_csv(out / "checks.csv")
        if len(checks):
            keys = set(zip(checks["check"], checks["case"]))
            old_checks = old_checks[[k not in keys for k in zip(old_checks["check"], old_checks["case"])]]
        checks = pd.concat([old_checks, checks], ignore_index=True)
    if (out / "provenance.json").exists():
        previous = json.loads((out / "provenance.json").read_text())
        runs = previous.pop("earlier_runs", [])
        prov["earlier_runs"] = [*runs, previous]
        prov["note"] = (f"rows of {list(cases)} come from this run; the other rows from earlier_runs "
                        "(ratios always compare rows of the same run)")
    return table.reset_index(drop=True), checks, prov


def _budget(text: str) -> float:
    """A budget in seconds: a positive, finite number (``inf`` would run no step and report "ok")."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of seconds, got {text!r}")
    return value


def _out_folder(text: str) -> Path:
    """The output folder: not empty, not an existing file (checked before an hour of sampling, not after)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder, got an empty string")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder")
    existing = next((p for p in [path, *path.parents] if p.exists()), None)
    if existing is not None and (not existing.is_dir() or not os.access(existing, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write into {existing}")
    return path


def run(argv=None, log=print) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    """Parse ``argv``, run everything, print the tables, write them; returns them too."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budgets", type=_budget, nargs="+", help=f"seconds per run (default {DEFAULT_BUDGETS})")
    parser.add_argument("--cases", nargs="+", help=f"networks, name+ev for the frozen evidence (default {ALL_CASES})")
    parser.add_argument("--samplers", nargs="+", choices=list(peers.PEER_SAMPLERS), help="default: all")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true", help=f"cases {QUICK_CASES}, budgets {QUICK_BUDGETS}")
    parser.add_argument("--no-checks", action="store_true", help="skip the side checks")
    parser.add_argument("--out", type=_out_folder,
                        help="output folder (default data/peers, data/peers/quick with --quick)")
    parser.add_argument("--update", action="store_true",
                        help="rerun only --cases and replace their rows in the tables already in --out "
                             "(provenance keeps the earlier runs under 'earlier_runs')")
    args = parser.parse_args(argv)
    argv = sys.argv[1:] if argv is None else list(argv)
    budgets = args.budgets or (QUICK_BUDGETS if args.quick else DEFAULT_BUDGETS)
    cases = args.cases or (QUICK_CASES if args.quick else ALL_CASES)
    samplers = args.samplers or list(peers.PEER_SAMPLERS)
    out = args.out or (ROOT / "data" / "peers" / ("quick" if args.quick else ""))
    started = datetime.now(UTC).isoformat(timespec="seconds")
    load_start = list(os.getloadavg())
    t0 = time.perf_counter()
    log(f"== peers: budgets {list(budgets)} s, cases {list(cases)}, seed {args.seed}, load {load_start}")
    table = compare_peers(cases, budgets, samplers, args.seed, log=log)
    log("== side checks")
    checks = pd.DataFrame(columns=["check", "case", "result", "value", "detail"]) if args.no_checks \
        else side_checks(cases, args.seed, log)
    prov = provenance(argv, args.seed, budgets, cases, samplers, started, load_start, time.perf_counter() - t0)
    if args.update and (out / "comparison.parquet").exists():
        table, checks, prov = _merge_with_earlier(out, table, checks, prov, cases)
        table = add_ratios(table)  # the merged rows' ratios, each from rows of the same run
    targets = evaluate_targets(table)
    write_outputs(out, table, checks, targets, prov)
    log(format_report(table, checks, targets, prov))
    log(f"== written to {out}")
    return table, checks, targets, prov


if __name__ == "__main__":
    run()
