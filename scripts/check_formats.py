"""Our readers against pyAgrum's writers: every network pgmpy ships, in every format pyAgrum writes.

Run::

    .venv/bin/python scripts/check_formats.py             # all 24 networks, about 70 s
    .venv/bin/python scripts/check_formats.py asia alarm  # some of them

Each network is read from pgmpy's BIF (rows rescaled, as the large-network
experiment reads it), handed to pyAgrum by :func:`prunelab.lab.peers.convert.to_pyagrum`
(the tables as float64, not through pyAgrum's BIF reader), written by
``gum.saveBN`` as ``.net``, ``.dsl``, ``.xdsl``, ``.bifxml``, ``.bif`` and
``.uai``, and read back by :func:`prunelab.read_network`. The check: the same
variables, states and parents (as sets: writers reorder parents) and every CPT,
axes matched by name, equal to the precision the writer prints: pyAgrum prints
17 significant digits in ``.net`` and ``.bif`` (compared to 1e-12) and 6 in
``.dsl``, ``.xdsl``, ``.bifxml`` and ``.uai`` (read with ``normalize=True``,
compared to a relative 1e-5: half a unit in the sixth digit, 5e-6, plus the
row's rescaling). UAI files carry no names: variables are matched by position.

pyAgrum 3.3 writes a table with the first listed parent fastest in ``.xdsl`` and
``.uai`` (GeNIe and the UAI format list it slowest, see
:func:`prunelab.io.read_xdsl`; pyAgrum reads its files back the same way, and
reads GeNIe's and our own files with the parents swapped), so for those two the
expected table is the original with its parent axes reversed and relabelled in
the listed order: what GeNIe, or a UAI reader, reads from that file.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

FORMATS = {"net": 1e-12, "bif": 1e-12, "dsl": None, "xdsl": None, "bifxml": None, "uai": None}
"""Absolute tolerance per format; None: 6 printed digits, relative 1e-5 after rescaling rows."""

RELATIVE = 1e-5

REVERSED = ("xdsl", "uai")
"""Formats whose tables pyAgrum writes with the first listed parent fastest (GeNIe and UAI: slowest)."""


def identifier_states(bn):
    """``bn`` with every state renamed to a plain identifier (``<5`` -> ``_5``), or None if none needed it.

    pyAgrum writes state names unquoted in ``.net`` and unescaped in XML, so a
    name like ``<5`` or ``>=7.5`` gives a file no reader accepts (pyAgrum's own
    included); the check is run a second time on the renamed network.
    """
    import re

    from prunelab import BayesianNetwork

    renamed = {}
    for v in bn.variables:
        names = [re.sub(r"\W", "_", s) for s in bn.states[v]]
        names = [n if re.match(r"[A-Za-z]", n) else f"s{n}" for n in names]
        names = [n if names.count(n) == 1 else f"{n}_{i}" for i, n in enumerate(names)]
        renamed[v] = names
    if all(tuple(renamed[v]) == bn.states[v] for v in bn.variables):
        return None
    return BayesianNetwork(renamed, bn.parents, bn.cpts, name=bn.name)


def expected_cpt(bn, v, parents, fmt):
    """``bn``'s CPT of ``v`` with its parent axes in the order ``parents`` (as read from ``fmt``)."""
    order = [bn.parents[v].index(p) for p in parents] + [len(parents)]
    table = np.transpose(bn.cpts[v], order)
    if fmt in REVERSED and len(parents) > 1:  # pyAgrum wrote the first listed parent fastest
        k = len(parents)
        flat = np.transpose(table, list(range(k))[::-1] + [k]).ravel()
        table = flat.reshape(table.shape)
    return table


def compare(bn, ours, fmt, names):
    """The largest error of ``ours`` against ``bn`` (names mapped by ``names``), or a message on a mismatch."""
    if set(ours.variables) != set(names.values()):
        return f"variables differ: {sorted(set(names.values()) ^ set(ours.variables))[:5]}"
    worst = 0.0
    for v in bn.variables:
        w = names[v]
        if fmt != "uai" and ours.states[w] != bn.states[v]:
            return f"states of {v!r} differ: {ours.states[w]} vs {bn.states[v]}"
        if len(ours.states[w]) != len(bn.states[v]):
            return f"state count of {v!r} differs"
        back = {names[p]: p for p in bn.parents[v]}
        if set(ours.parents[w]) != set(back):
            return f"parents of {v!r} differ: {ours.parents[w]} vs {bn.parents[v]}"
        want = expected_cpt(bn, v, [back[p] for p in ours.parents[w]], fmt)
        got = ours.cpts[w]
        tolerance = FORMATS[fmt]
        error = np.abs(got - want)
        if tolerance is None:
            bad = error > RELATIVE * np.abs(want)
            worst = max(worst, float(np.max(error / np.maximum(np.abs(want), 1e-300), initial=0.0)))
        else:
            bad = error > tolerance
            worst = max(worst, float(error.max(initial=0.0)))
        if bad.any():
            return f"CPT of {v!r} differs by {float(error.max()):.3g}"
    return worst


def main(names=None):
    import pyagrum as gum

    from prunelab import read_bif, read_network
    from prunelab.catalogue import pgmpy_example_path
    from prunelab.lab.experiments.large.networks import pgmpy_networks
    from prunelab.lab.peers.convert import to_pyagrum

    names = names or pgmpy_networks()
    folder = Path(tempfile.mkdtemp(prefix="formats-"))
    agree = total = agree_renamed = 0
    renamed = []
    worst = {fmt: 0.0 for fmt in FORMATS}
    failures = []
    started = time.perf_counter()
    print(f"pyAgrum {gum.__version__}; {len(names)} networks x {len(FORMATS)} formats")
    for name in names:
        bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)
        row = []
        for fmt in FORMATS:
            total += 1
            result = check_one(gum, to_pyagrum, read_network, bn, fmt, folder)
            if isinstance(result, str) and (plain := identifier_states(bn)) is not None:
                retry = check_one(gum, to_pyagrum, read_network, plain, fmt, folder)
                renamed.append((name, fmt, result, retry if isinstance(retry, str) else "agree"))
                result = retry if isinstance(retry, str) else retry
                if not isinstance(retry, str):
                    agree_renamed += 1
                    row.append("ok-renamed")
                    continue
            if isinstance(result, str):
                failures.append((name, fmt, result))
                row.append("FAIL")
            else:
                agree += 1
                worst[fmt] = max(worst[fmt], result)
                row.append("ok")
        print(f"{name:12s} " + " ".join(f"{fmt}:{r}" for fmt, r in zip(FORMATS, row)), flush=True)
    print(f"\n{agree} of {total} network x format pairs agree as written, {agree_renamed} more once states are "
          f"renamed to identifiers ({time.perf_counter() - started:.0f} s)")
    print("largest error per format (absolute for net/bif, relative otherwise): "
          + ", ".join(f"{fmt} {w:.2g}" for fmt, w in worst.items()))
    for name, fmt, first, retry in renamed:
        print(f"  {name}.{fmt} as written: {first[:200]}\n      renamed: {retry[:200]}")
    for name, fmt, message in failures:
        print(f"  {name}.{fmt}: {message[:300]}")
    return agree, agree_renamed, total, failures


def check_one(gum, to_pyagrum, read_network, bn, fmt, folder):
    """Write ``bn`` with pyAgrum as ``fmt``, read it back; the largest error, or a message saying what failed."""
    net = to_pyagrum(bn)
    path = folder / f"{bn.name}.{fmt}"
    try:
        gum.saveBN(net, str(path))
    except Exception as exc:  # pyAgrum's own errors  # noqa: BLE001
        return f"pyAgrum cannot write it: {exc}".replace("\n", " ")
    try:
        ours = read_network(path, normalize=FORMATS[fmt] is None)
    except Exception as exc:  # noqa: BLE001  (reported, not hidden: the run lists every failure)
        return f"{type(exc).__name__}: {exc}"
    mapping = {v: (f"v{net.idFromName(v)}" if fmt == "uai" else v) for v in bn.variables}
    return compare(bn, ours, fmt, mapping)


if __name__ == "__main__":
    main(sys.argv[1:] or None)
