"""Whether exact inference's ``auto`` is within 1.5 times (+ 2 s) of the fastest of its three methods.

For each network and question, ``auto`` runs first (:func:`prunelab.exact.exact_marginals`
with ``method="auto"``), then each named method that ``auto`` did not choose runs in a
forked child capped at ``(t_auto - 2) / 1.5`` wall seconds: only a method that
finishes within that cap could make ``auto`` miss the target, so no method is ever
run longer than needed to decide. A row gives the question, ``auto``'s method,
seconds and reason, each rival's seconds (or ``>cap``), and ``ok`` or ``MISS``.

Networks: pgmpy's 24 (with no evidence and with the frozen 25 % evidence of the
large experiment), the paper's nine (the catalogue), and SBK grids
(``sbk:PERCENT:SIDE:SEED``). Questions: ``pe`` (``P(e)``, with evidence only),
``one`` (the query variable's, or the last variable's, posterior) and ``all``.

Run::

    python benchmarks/bench_planner.py                      # everything above but the grids (tens of minutes)
    python benchmarks/bench_planner.py --networks asia alarm sbk:50:20:1 --questions one all
    python benchmarks/bench_planner.py --out /tmp/planner.tsv

Wall seconds depend on the machine's load; the row records the load average.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time

from prunelab import NETWORKS, load_network, make_grid
from prunelab.catalogue import load_evidence, query_variable
from prunelab.exact import exact_marginals
from prunelab.lab.experiments.large.networks import load_large, pgmpy_networks

SLACK_SECONDS, FACTOR = 2.0, 1.5


def _cases(names):
    for name in names:
        if name.startswith("sbk:"):
            _, percent, side, seed = name.split(":")
            bn = make_grid(int(side), int(percent) / 100, seed=int(seed))
            yield name, bn, {}, bn.variables[-1]
        elif name in NETWORKS:
            bn = load_network(name)
            yield name, bn, {}, query_variable(name)
            try:
                evidence = load_evidence(name)
            except FileNotFoundError:  # the networks of the paper that have no frozen evidence
                evidence = None
            if evidence:
                yield f"{name}+e", bn, dict(evidence), query_variable(name)
        else:
            for with_evidence in (False, True):
                bn, evidence = load_large(name, with_evidence)
                yield (f"{name}+e" if with_evidence else name), bn, dict(evidence or {}), bn.variables[-1]


def _ask(bn, evidence, question, goal, method):
    if goal in evidence:  # the query variable observed: the last free variable instead
        goal = [v for v in bn.variables if v not in evidence][-1]
    variables = {"pe": [], "one": [goal], "all": None}[question]
    return exact_marginals(bn, evidence, method=method, variables=variables)


def _child(bn, evidence, question, goal, method, writer):
    start = time.perf_counter()
    try:
        _ask(bn, evidence, question, goal, method)
        writer.send(("ok", time.perf_counter() - start))
    except Exception as err:  # noqa: BLE001 - a refusal is a result here
        writer.send(("refused", f"{type(err).__name__}"))


def _capped(bn, evidence, question, goal, method, cap):
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    # not a daemon: the counter and the compiler start processes of their own
    child = ctx.Process(target=_child, args=(bn, evidence, question, goal, method, writer))
    child.start()
    writer.close()
    try:
        if reader.poll(cap):
            return reader.recv()
        return ("cap", cap)
    finally:
        if child.is_alive():
            child.kill()
        child.join()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--networks", nargs="*", help="network names (default: the paper's nine and pgmpy's 24)")
    parser.add_argument("--questions", nargs="*", default=["pe", "one", "all"], choices=["pe", "one", "all"])
    parser.add_argument("--out", help="also write the rows to this TSV file")
    args = parser.parse_args(argv)
    names = args.networks or [*NETWORKS, *pgmpy_networks()]
    header = "case\tquestion\tauto_method\tauto_s\tjunction_tree\tcircuit\tcounter\tverdict\tload\treason"
    print(header, flush=True)
    rows, misses = [header], 0
    for case, bn, evidence, goal in _cases(names):
        for question in args.questions:
            if question == "pe" and not evidence:
                continue
            load = os.getloadavg()[0]
            start = time.perf_counter()
            try:
                got = _ask(bn, evidence, question, goal, "auto")
            except Exception as err:  # noqa: BLE001
                seconds = time.perf_counter() - start
                row = f"{case}\t{question}\trefused\t{seconds:.2f}\t\t\t\tREFUSED\t{load:.1f}\t{err}"
                print(row, flush=True)
                rows.append(row)
                continue
            t_auto = time.perf_counter() - start
            cap = (t_auto - SLACK_SECONDS) / FACTOR
            cells, verdict = {}, "ok"
            for method in ("junction_tree", "circuit", "counter"):
                if method == got.method:
                    cells[method] = f"{t_auto:.2f}*"
                elif cap <= 0:
                    cells[method] = "-"
                else:
                    status, value = _capped(bn, evidence, question, goal, method, cap)
                    cells[method] = f"{value:.2f}" if status == "ok" else (f">{cap:.2f}" if status == "cap" else value)
                    if status == "ok" and FACTOR * value + SLACK_SECONDS < t_auto:
                        verdict = "MISS"
            misses += verdict == "MISS"
            row = (f"{case}\t{question}\t{got.method}\t{t_auto:.2f}\t{cells['junction_tree']}\t{cells['circuit']}\t"
                   f"{cells['counter']}\t{verdict}\t{load:.1f}\t{got.plan.reason}")
            print(row, flush=True)
            rows.append(row)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(rows) + "\n")
    print(f"# {misses} misses in {len(rows) - 1} rows", file=sys.stderr)
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
