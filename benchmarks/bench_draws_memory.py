"""Chains against independent numba oracles, in one process: the cost of storing the draws.

Run::

    .venv/bin/python benchmarks/bench_draws_memory.py               # at the machine's load
    .venv/bin/python benchmarks/bench_draws_memory.py --load 4      # with 4 busy processes started (and stopped) here
    .venv/bin/python benchmarks/bench_draws_memory.py --repeats 9 --gibbs-draws 200000

Two measurements, each repeated ``--repeats`` times, interleaved, in CPU seconds
(``time.process_time``: user and system time, so the page faults of a fresh
draws array count):

* Gibbs on ``--gibbs-network`` (alarm): :func:`prunelab.samplers.gibbs.run_chain`
  as :func:`prunelab.sample` calls it (its own draws array, allocated per call)
  against an oracle written here: the same systematic scan, but each candidate's
  weight recomputed from the family's CPT rows (no label bookkeeping), into one
  draws buffer reused across calls;
* prune sampling on asia and alarm: :func:`prunelab.samplers.prune.sampler.run_chain` (``uniform="auto"``,
  as :func:`prunelab.sample` runs it; its own draws array per call) against an oracle written here:
  the pruning (a label survives when ``u < c`` or when the current state uses
  it), then a depth-first search over the states that use only surviving labels
  with a reservoir draw among them, into one reused buffer; on asia also against
  the paper's exhaustive listing (``prune asia/listing``): the same pruning, then
  every state checked label by label, the survivors listed and one of them drawn.

The ratio is the oracle's seconds over the chain's, per repetition; the median is
printed, and the same with the chain's draws allocated in ``int64`` (as before
they were stored in :func:`~prunelab.compiled.draw_dtype`) for comparison.
Targets: Gibbs at least 2, prune on asia at least 3, at load 4 or more. The depth-first
oracle is the stricter yardstick: on asia its pruning alone (36 random numbers) is about
a third of its time, so no chain that draws the same pruning can be 3 times faster than it.
The oracles draw other random numbers than the samplers (they check speed, not
values). The load (``os.getloadavg``) is printed with every row.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba
import numpy as np

from prunelab import load_network
from prunelab.compiled import compile_network, draw_dtype
from prunelab.samplers import gibbs
from prunelab.samplers.prune import sampler as prune
from prunelab.samplers import chain as chain_module
from prunelab.samplers.init import initial_state


@numba.njit(cache=True, nogil=True)
def _entry(net_offset, parent_ptr, parent_index, parent_stride, x, j):
    """The label of variable ``j``'s CPT entry in state ``x``."""
    label = net_offset[j] + x[j]
    for k in range(parent_ptr[j], parent_ptr[j + 1]):
        label += x[parent_index[k]] * parent_stride[k]
    return label


@numba.njit(cache=True, nogil=True)
def gibbs_oracle_nb(rng, card, offset, parent_ptr, parent_index, parent_stride, cpt, family_ptr, family_var,
                    free, x, out):
    """``out.shape[0]`` systematic-scan sweeps from ``x``; weights from the CPT rows, nothing cached."""
    weights = np.empty(card.max())
    for t in range(out.shape[0]):
        for f in range(free.shape[0]):
            i = free[f]
            keep = x[i]
            total = 0.0
            for s in range(card[i]):
                x[i] = s
                w = 1.0
                for k in range(family_ptr[i], family_ptr[i + 1]):
                    w *= cpt[_entry(offset, parent_ptr, parent_index, parent_stride, x, family_var[k])]
                weights[s] = w
                total += w
            x[i] = keep
            u = rng.random() * total
            s = 0
            acc = weights[0]
            while acc < u and s < card[i] - 1:
                s += 1
                acc += weights[s]
            x[i] = s
        for j in range(x.shape[0]):
            out[t, j] = x[j]


@numba.njit(cache=True, nogil=True)
def _prune(rng, offset, parent_ptr, parent_index, parent_stride, cpt, x, kept):
    """The paper's pruning: keep each label with its probability, and the labels of ``x`` always."""
    for label in range(cpt.shape[0]):
        kept[label] = rng.random() < cpt[label]
    for j in range(x.shape[0]):
        kept[_entry(offset, parent_ptr, parent_index, parent_stride, x, j)] = True


@numba.njit(cache=True, nogil=True)
def prune_oracle_nb(rng, card, offset, parent_ptr, parent_index, parent_stride, cpt, x, out):
    """``out.shape[0]`` prune steps from ``x``: :func:`_prune`, then a reservoir draw over a depth-first search."""
    n = x.shape[0]
    kept = np.zeros(cpt.shape[0], dtype=np.bool_)
    y = np.zeros(n, dtype=np.int64)
    for t in range(out.shape[0]):
        _prune(rng, offset, parent_ptr, parent_index, parent_stride, cpt, x, kept)
        # depth-first over variables in topological order: a variable's label is checked when it is set
        found = 0
        depth = 0
        y[0] = -1
        while depth >= 0:
            y[depth] += 1
            if y[depth] >= card[depth]:
                depth -= 1
                continue
            if not kept[_entry(offset, parent_ptr, parent_index, parent_stride, y, depth)]:
                continue
            if depth == n - 1:
                found += 1
                if rng.random() * found < 1.0:
                    for j in range(n):
                        x[j] = y[j]
                continue
            depth += 1
            y[depth] = -1
        for j in range(n):
            out[t, j] = x[j]


@numba.njit(cache=True, nogil=True)
def prune_listing_oracle_nb(rng, card, offset, parent_ptr, parent_index, parent_stride, cpt, evidence, x, out):
    """``out.shape[0]`` prune steps from ``x`` as the paper lists ``S``: every full state checked, then one drawn.

    The pruning of :func:`_prune`; then an odometer over every state that agrees with the evidence,
    all ``n`` labels of each checked, the survivors listed, and one picked by ``rng.integers``.
    """
    n = x.shape[0]
    total = 1
    for j in range(n):
        if evidence[j] < 0:
            total *= card[j]
    kept = np.zeros(cpt.shape[0], dtype=np.bool_)
    listed = np.empty((total, n), dtype=out.dtype)
    y = np.zeros(n, dtype=np.int64)
    for t in range(out.shape[0]):
        _prune(rng, offset, parent_ptr, parent_index, parent_stride, cpt, x, kept)
        for j in range(n):
            y[j] = evidence[j] if evidence[j] >= 0 else 0
        found = 0
        for _ in range(total):
            ok = True
            for j in range(n):
                if not kept[_entry(offset, parent_ptr, parent_index, parent_stride, y, j)]:
                    ok = False
                    break
            if ok:
                for j in range(n):
                    listed[found, j] = y[j]
                found += 1
            for j in range(n - 1, -1, -1):  # the next state: the last free variable counts fastest
                if evidence[j] >= 0:
                    continue
                y[j] += 1
                if y[j] < card[j]:
                    break
                y[j] = 0
        r = rng.integers(0, found)
        for j in range(n):
            x[j] = listed[r, j]
            out[t, j] = x[j]


def cpu(f, *args, **kwargs) -> float:
    tic = time.process_time()
    f(*args, **kwargs)
    return time.process_time() - tic


class int64_draws:
    """Within the block, ``start_chain`` allocates ``int64`` draws, as every sampler did before."""

    def __enter__(self):
        self._saved = chain_module.draw_dtype
        chain_module.draw_dtype = lambda cardinality: np.int64

    def __exit__(self, *exc):
        chain_module.draw_dtype = self._saved


def compare(name: str, chain, oracle, repeats: int) -> None:
    """Median over ``repeats`` of oracle seconds / chain seconds, chain with its draws as now and in int64."""
    with int64_draws():
        chain()
    chain(), oracle()  # compiled (or loaded from the cache) outside the clock
    rows = []
    for _ in range(repeats):
        s_chain = cpu(chain)
        with int64_draws():
            s_wide = cpu(chain)
        s_oracle = cpu(oracle)
        rows.append((s_chain, s_wide, s_oracle))
    rows = np.array(rows)
    ratio, wide = rows[:, 2] / rows[:, 0], rows[:, 2] / rows[:, 1]
    s_chain, s_wide, s_oracle = np.median(rows, axis=0)
    print(f"{name:18} chain {s_chain:6.3f} s (int64 draws {s_wide:6.3f} s)  oracle {s_oracle:6.3f} s  "
          f"oracle/chain median {np.median(ratio):5.2f} (min {ratio.min():.2f}, max {ratio.max():.2f}; "
          f"int64 draws {np.median(wide):.2f})  load {os.getloadavg()[0]:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gibbs-network", default="alarm")
    parser.add_argument("--gibbs-draws", type=int, default=100_000)
    parser.add_argument("--prune-draws", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--load", type=int, default=0, help="busy processes to start for the measurement")
    args = parser.parse_args()
    busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.load)]
    try:
        if busy:
            time.sleep(5)  # let the load average rise
        print(f"numba {numba.__version__}, numpy {np.__version__}; load {os.getloadavg()[0]:.2f} "
              f"with {args.load} busy processes started here")

        net = compile_network(load_network(args.gibbs_network))
        x0 = initial_state(np.random.default_rng(0), net)
        buffer = np.empty((args.gibbs_draws, net.n_variables), dtype=draw_dtype(net.cardinality))
        print(f"gibbs on {args.gibbs_network}: {args.gibbs_draws} sweeps of {net.n_variables} variables, draws "
              f"{np.dtype(gibbs.run_chain(np.random.default_rng(0), net, x0, 1).draws.dtype)}")
        compare(f"gibbs {args.gibbs_network}"[:12],
                lambda: gibbs.run_chain(np.random.default_rng(1), net, x0, args.gibbs_draws),
                lambda: gibbs_oracle_nb(np.random.default_rng(1), net.cardinality, net.cpt_offset, net.parent_ptr,
                                        net.parent_index, net.parent_stride, net.cpt, net.family_ptr,
                                        net.family_var, net.free, x0.copy(), buffer),
                args.repeats)

        for name, n_draws in (("asia", args.prune_draws), ("alarm", args.prune_draws // 20)):
            net = compile_network(load_network(name))
            x0 = initial_state(np.random.default_rng(0), net)
            buffer = np.empty((n_draws, net.n_variables), dtype=draw_dtype(net.cardinality))
            compare(f"prune {name}",
                    lambda net=net, x0=x0, n_draws=n_draws: prune.run_chain(np.random.default_rng(1), net, x0, n_draws),
                    lambda net=net, x0=x0, buffer=buffer: prune_oracle_nb(
                        np.random.default_rng(1), net.cardinality, net.cpt_offset, net.parent_ptr, net.parent_index,
                        net.parent_stride, net.cpt, x0.copy(), buffer),
                    args.repeats)
            if name == "asia":
                compare("prune asia/listing",
                        lambda net=net, x0=x0, n_draws=n_draws: prune.run_chain(np.random.default_rng(1), net, x0,
                                                                                 n_draws),
                        lambda net=net, x0=x0, buffer=buffer: prune_listing_oracle_nb(
                            np.random.default_rng(1), net.cardinality, net.cpt_offset, net.parent_ptr,
                            net.parent_index, net.parent_stride, net.cpt, net.evidence_value, x0.copy(), buffer),
                        args.repeats)
    finally:
        for p in busy:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
