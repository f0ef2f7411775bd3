"""Whether the dissection vtree survives rounding noise: the same vtree when the graph's weights move by 1e-13.

Run::

    .venv/bin/python benchmarks/bench_vtree_stability.py                  # 90 % and 75 % grids, sides 10 and 20
    .venv/bin/python benchmarks/bench_vtree_stability.py --grids 90:10:1 90:20:3 --noise 1e-15 --repeats 5

The dissection (:func:`prunelab.circuit.dissection_vtree`) is meant to be a function
of the network: the same vtree, so the same circuit and the same circuit draws for a
seed, on every machine. Machines differ in the last bits of floating-point results,
so this multiplies every edge weight of the dissection's graph
(:func:`prunelab.circuit.vtree._weighted_graph`) by ``1 + noise * N(0, 1)`` and builds the
vtree again, ``--repeats`` times per grid. A row gives the grid, how many of the
noisy vtrees differ from the plain one, and the first bisection that differs (its
index in the order the dissection makes them, and the size of the part it cut).
The exit code is 1 if any vtree changed: a dissection that does not depend on
rounding changes none.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from prunelab import make_grid
from prunelab.circuit import encode_network
from prunelab.circuit import vtree as vtree_module
from prunelab.compiled import compile_network

DEFAULT_GRIDS = ("90:10:1", "90:10:2", "90:20:1", "90:20:3", "75:10:1", "75:20:1")


def _dissect(net, enc, noise: float, rng) -> tuple[tuple, list]:
    """The vtree's arrays and every bisection made (part size, left half), with the weights moved by ``noise``."""
    weighted, bisect, cuts = vtree_module._weighted_graph, vtree_module._spectral_bisect, []

    def noisy(net_, free):
        weight = weighted(net_, free)
        for a in weight:
            for b in list(weight[a]):
                if a < b:
                    weight[a][b] = weight[b][a] = weight[a][b] * (1.0 + noise * rng.standard_normal())
        return weight

    def recorded(nodes, weight, turn=False):
        left, right = bisect(nodes, weight, turn)
        cuts.append((len(nodes), tuple(sorted(left))))
        return left, right

    vtree_module._weighted_graph, vtree_module._spectral_bisect = noisy, recorded
    try:
        vt = vtree_module.dissection_vtree(net, enc)
    finally:
        vtree_module._weighted_graph, vtree_module._spectral_bisect = weighted, bisect
    return (vt.left.tolist(), vt.right.tolist(), vt.boolean.tolist()), cuts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grids", nargs="*", default=list(DEFAULT_GRIDS), help="PERCENT:SIDE:SEED, no evidence")
    parser.add_argument("--noise", type=float, default=1e-13, help="relative noise on each edge weight")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print("grid\tchanged\tfirst differing bisection\tpart size")
    changed_any = False
    for spec in args.grids:
        percent, side, seed = (int(x) for x in spec.split(":"))
        net = compile_network(make_grid(side, percent / 100, seed=seed), {})
        enc = encode_network(net)
        plain, plain_cuts = _dissect(net, enc, 0.0, rng)
        changed, first = 0, None
        for _ in range(args.repeats):
            noisy, cuts = _dissect(net, enc, args.noise, rng)
            if noisy != plain:
                changed += 1
                at = next((k for k, (p, q) in enumerate(zip(plain_cuts, cuts)) if p != q), None)
                if first is None and at is not None:
                    first = (at, plain_cuts[at][0])
        changed_any |= changed > 0
        where = f"{first[0]}\t{first[1]}" if first else "-\t-"
        print(f"{spec}\t{changed} of {args.repeats}\t{where}", flush=True)
    return 1 if changed_any else 0


if __name__ == "__main__":
    sys.exit(main())
