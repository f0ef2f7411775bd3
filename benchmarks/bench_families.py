"""The families targets from the frozen results: files read, answers reproduced, exact reach and auto's choices.

Run::

    .venv/bin/python benchmarks/bench_families.py                       # data/results/families
    .venv/bin/python benchmarks/bench_families.py --results DIR --tsv times.tsv

It reads the tables of the ``families`` experiment
(``python -m prunelab run families --profile paper``; one exact run per instance and
method) and prints, against the targets of the benchmark families:

* the share of the development files (network and evidence files) read;
* every undisputed published answer reproduced or not, and by which methods
  (relative error within 1e-6 or the digits printed, whichever is larger; on
  ``log P`` under 1e-300), and every disputed one: which side ours is on, with the
  study's agreeing and answering runs;
* every instance answered exactly within the caps (600 s, 8 GiB), and per family the
  fastest exact method (of the junction tree, the circuit and the counter) beside the
  fastest published time (a reference for reach: 2021 hardware, not this machine),
  and the instances over 1 s published where ours is slower than twice that;
* the instances where ``auto`` is slower than 1.5 x (+ 2 s) the fastest of its
  three methods.

``--tsv`` writes one row per instance: each method's status and seconds (wall and
CPU), ``auto``'s method, the fastest method and the published time. Wall seconds
depend on the machine's load (the provenance records it); CPU seconds less so.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from prunelab.lab.experiments.families import FAMILIES_METHODS as METHODS
from prunelab.lab.experiments.literature import THREE, instance_times

ROOT = Path(__file__).resolve().parent.parent


def counts(column: pd.Series) -> dict:
    """How often each value occurs, as plain ints."""
    return {k: int(v) for k, v in column.value_counts().items()}


def report(folder: Path, tsv: Path | None = None, out=sys.stdout) -> pd.DataFrame:
    """Print the targets' figures from a results folder of the families experiment; the times table."""
    from prunelab.lab.experiments import load_folder

    tables = load_folder(folder)
    read, exact, prov = tables["instances"], tables["exact"], tables["provenance"]

    def say(*a):
        print(*a, file=out)

    start, end = prov["machine"].get("load_average_start"), prov["machine"].get("load_average")
    say(f"families results {folder.name}: {prov['n_runs']} runs planned, {len(prov['missing'])} missing; "
        f"sweep {prov['sweep_seconds'] / 60:.0f} min, load average at start {start}, at end {end}")

    # files read
    networks = read.groupby("network_file")["read_status"].apply(lambda s: (s == "ok").all())
    evidence = read[read["evidence_file"] != ""].groupby("evidence_file")["read_status"].apply(
        lambda s: (s == "ok").all())
    n_files, n_read = len(networks) + len(evidence), int(networks.sum() + evidence.sum())
    say(f"\nfiles read: {n_read} of {n_files} ({100 * n_read / n_files:.0f} %): {int(networks.sum())} of "
        f"{len(networks)} networks, {int(evidence.sum())} of {len(evidence)} evidence files")
    for _, r in read[read["read_status"] != "ok"].iterrows():
        say(f"  not read: {r['network_file']} {r['evidence_file']}: {r['read_error']}: {r['read_message'][:200]}")
    py = exact[exact["method"] == "pyagrum"]
    say(f"pyAgrum (loadBN, LazyPropagation) on {len(py)} instances: " + ", ".join(
        f"{family} {counts(g['status'])}" for family, g in py.groupby("family", sort=False)))
    for (family, error), g in py[py["status"] == "failed"].groupby(["family", "error"]):
        say(f"  {family}: {len(g)} {error}: {g['message'].iloc[0][:160]!r}")

    # reproduction
    ours = exact[exact["method"].isin(THREE + ("auto",)) & (exact["status"] == "answered")]
    published = read[read["published_answer"] != ""]
    undisputed = published[published["disputed"] == "no"]["instance"]
    say(f"\nundisputed published answers: {len(undisputed)}")
    bad = []
    for key in undisputed:
        rows = ours[ours["instance"] == key]
        if rows.empty or (rows["agreement"] != "reproduced").any():
            bad.append(key)
            for _, r in rows.iterrows():
                say(f"  {key} {r['method']}: {r['agreement']} (P = {r['p']:.10g}, published {r['published_answer']},"
                    f" relative error {r['rel_error']:.2e})")
            if rows.empty:
                say(f"  {key}: no exact method answered")
    reproduced = ours[ours["instance"].isin(undisputed) & (ours["agreement"] == "reproduced")]
    say(f"  reproduced by at least one method: {reproduced['instance'].nunique()} of {len(undisputed)}; by every "
        f"method that answered: {len(undisputed) - len(bad)}; answers by method: "
        + ", ".join(f"{m} {int((reproduced['method'] == m).sum())}" for m in THREE + ("auto",)))
    worst = ours[ours["instance"].isin(undisputed)]["rel_error"].max()
    say(f"  largest relative error on an undisputed row: {worst:.2e} (the published answers print 6 digits)")
    if bad:
        rows = ours[ours["instance"].isin(bad)]
        spread = rows.groupby("instance")["log_p"].agg(lambda x: x.max() - x.min()).max()
        within = rows.groupby("instance")["rel_error"].max()
        say(f"  of the {len(bad)} not reproduced: relative error {within.min():.1e} to {within.max():.1e}, "
            f"{int((within <= 1e-4).sum())} within the study's own agreement (1e-4), "
            f"{int((rows.groupby('instance')['p'].first() > rows.groupby('instance')['published_p'].first()).sum())} "
            f"with ours the larger; our methods agree among themselves to {spread:.1e} on log P")
    disputed = published[published["disputed"] == "yes"]
    say(f"\ndisputed published answers: {len(disputed)}")
    for _, d in disputed.iterrows():
        rows = ours[ours["instance"] == d["instance"]]
        if rows.empty:
            say(f"  {d['instance']}: no exact method answered")
            continue
        sides = sorted(set(rows["agreement"]))
        spread = rows["log_p"].max() - rows["log_p"].min()
        say(f"  {d['instance']}: ours P = {rows['p'].iloc[0]:.10g} ({', '.join(sides)}; methods "
            f"{len(rows)}, log P spread {spread:.1e}); published {d['published_answer']} by "
            f"{d['runs_agreeing']} of {d['runs_answered']} runs")

    # reach and speed
    times = instance_times(exact, read)
    say("\nper family: instances answered by an exact method within the caps, the fastest method and its seconds")
    for family, g in times.groupby("family", sort=False):
        answered = g[g["fastest"] != ""]
        fastest = counts(answered["fastest"])
        ratio = answered["fastest_s"] / answered["fastest_published_s"]
        say(f"  {family}: {len(answered)} of {len(g)} answered; fastest {fastest}; fastest seconds median "
            f"{answered['fastest_s'].median():.2f}, max {answered['fastest_s'].max():.2f}; published median "
            f"{g['fastest_published_s'].median():.2f}, max {g['fastest_published_s'].max():.2f}; ours / "
            f"published median {ratio.median():.1f}")
    say("\nreach per family: instances answered by each method (status counts where not all answered)")
    for family, g in times.groupby("family", sort=False):
        say(f"  {family} ({len(g)}): " + ", ".join(
            f"{m} {int((g[f'{m}_status'] == 'answered').sum())}" for m in METHODS))
    over1 = times["fastest_published_s"] > 1
    slow = times[over1 & ~(times["fastest_s"] <= 2 * times["fastest_published_s"])]
    slow_auto = times[over1 & ~((times["auto_status"] == "answered")
                                & (times["auto_s"] <= 2 * times["fastest_published_s"]))]
    say(f"  published > 1 s and ours slower than 2 x: fastest method {len(slow)}, auto {len(slow_auto)}, of "
        f"{int(over1.sum())}")
    for _, r in times[times["instance"].isin(set(slow["instance"]) | set(slow_auto["instance"]))].iterrows():
        say(f"    {r['instance']}: fastest {r['fastest_s']:.1f} s ({r['fastest'] or 'none'}), auto {r['auto_s']:.1f} s "
            f"({r['auto_used']}), published {r['fastest_published_s']:.2f} s")
    unanswered = times[times["fastest"] == ""]
    for _, r in unanswered.iterrows():
        say(f"  not answered: {r['instance']}: " + ", ".join(f"{m} {r[f'{m}_status']}" for m in THREE))
    over = times[times["auto_over"]]
    say(f"\nauto slower than 1.5 x (+ 2 s) the fastest of its three methods: {len(over)} of "
        f"{int((times['fastest'] != '').sum())}")
    for _, r in over.iterrows():
        say(f"  {r['instance']}: auto {r['auto_s']:.1f} s ({r['auto_status']}, {r['auto_used'] or 'method not said'})"
            f", fastest {r['fastest']} {r['fastest_s']:.1f} s; CPU {r['auto_cpu_s']:.2f} against "
            f"{r['fastest_cpu_s']:.2f}; load {r['load']:.1f}")
    undecided = times[times["auto_undecidable"]]
    say(f"  undecidable (auto slower than 1.5 x (+ 2 s) a method's time cap, where that method was stopped at it): "
        f"{len(undecided)}" + "".join(f"\n    {r['instance']}: auto {r['auto_s']:.1f} s, capped {r['capped']}"
                                      for _, r in undecided.iterrows()))
    over_cpu = times[times["auto_over_cpu"]]
    say(f"auto slower than 1.5 x (+ 2 s) the fastest of its three methods on CPU seconds: {len(over_cpu)}; "
        f"undecidable on CPU seconds: {int(times['auto_undecidable_cpu'].sum())}"
        + "".join(f"\n  {r['instance']}: auto {r['auto_cpu_s']:.2f} CPU s ({r['auto_used']}), fastest "
                  f"{r['fastest_cpu']} {r['fastest_cpu_s']:.2f} CPU s, load {r['load']:.1f}"
                  for _, r in over_cpu.iterrows()))
    say("  auto's methods per family: " + "; ".join(
        f"{family} {counts(g['auto_used'])}" for family, g in times.groupby("family", sort=False)))
    if tsv is not None:
        times.to_csv(tsv, sep="\t", index=False, float_format="%.3f")
        say(f"\ntimes per instance and method: {tsv}")
    return times


def main(argv=None) -> int:
    """Command line: print the report and optionally write the times table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=ROOT / "data" / "results" / "families")
    parser.add_argument("--tsv", type=Path, default=None, help="write the times per instance and method here")
    args = parser.parse_args(argv)
    report(args.results, args.tsv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
