"""Reading networks: BIF parse throughput, peak memory, and linear-time construction.

Run::

    .venv/bin/python benchmarks/bench_io.py            # about a minute and a half
    .venv/bin/python benchmarks/bench_io.py --quick    # chains of 2k and 8k nodes only

Chain BIFs (``X0 -> X1 -> ...``, two states, a row per parent state) of 2k, 8k and
32k nodes and one of about 50 MB are written to a temporary folder. Each file is
read by :func:`prunelab.read_bif` in a fresh subprocess, which reports

* **parse**: wall seconds of ``read_bif`` (and CPU seconds, steadier on a shared
  machine) and the throughput in MB of file per wall second;
* **peak**: the rise of the process's peak resident memory (``VmHWM``) over its
  resident memory before the call, in MB, and that per MB of file;
* **build**: CPU seconds of ``BayesianNetwork(...)`` alone, from the parsed
  states, parents and CPTs.

Construction is linear if the build time grows like the node count: the ratio
of build CPU seconds per node, 32k over 2k nodes, is printed (about 1 when linear;
a quadratic build gives 16) and must stay under ``LINEAR_RATIO``. Before the
build was made linear, chains of 2k/4k/8k nodes took 0.16/0.64/2.8 s.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

NODES = (2_000, 8_000, 32_000)
TARGET_MB = 50
LINEAR_RATIO = 3.0
"""Largest accepted ratio of build seconds per node, 32k nodes over 2k (quadratic: 16)."""


def chain_bif(n: int) -> str:
    """A chain of ``n`` binary nodes, every CPT written as rows."""
    parts = [f"network chain{n} {{\n}}\n"]
    for i in range(n):
        parts.append(f"variable X{i} {{\n  type discrete [ 2 ] {{ s0, s1 }};\n}}\n")
    parts.append("probability ( X0 ) {\n  table 0.25, 0.75;\n}\n")
    for i in range(1, n):
        parts.append(
            f"probability ( X{i} | X{i - 1} ) {{\n  (s0) 0.125, 0.875;\n  (s1) 0.625, 0.375;\n}}\n"
        )
    return "".join(parts)


CHILD = r"""
import json, sys, time
from prunelab import BayesianNetwork, read_bif

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) / 1024
before = rss("VmRSS")
tic, cpu = time.perf_counter(), time.process_time()
bn = read_bif(sys.argv[1])
parse, parse_cpu = time.perf_counter() - tic, time.process_time() - cpu
peak = rss("VmHWM") - before
cpu = time.process_time()
BayesianNetwork(states=dict(bn.states), parents=dict(bn.parents), cpts=dict(bn.cpts))
build = time.process_time() - cpu
print(json.dumps({"n": bn.n_variables, "parse": parse, "parse_cpu": parse_cpu, "peak_mb": peak, "build": build}))
"""


def measure(path: Path) -> dict:
    """Figures of one file, from a fresh interpreter (so the peak is this file's)."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], check=True, capture_output=True, text=True)
    row = json.loads(out.stdout)
    row["mb"] = path.stat().st_size / 1e6
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="chains of 2k and 8k nodes only")
    args = parser.parse_args()
    sizes = list(NODES[:2] if args.quick else NODES)
    if not args.quick:
        per_node = len(chain_bif(1000)) / 1000
        sizes.append(int(TARGET_MB * 1e6 / per_node))
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or 'cpu'}")
    print(
        f"{'nodes':>8} {'MB':>7} {'parse s':>8} {'cpu s':>7} {'MB/s':>6} {'peak MB':>8} {'peak/MB':>8} "
        f"{'build s':>8} {'build us/node':>13}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"chain{n}.bif"
            path.write_text(chain_bif(n))
            row = measure(path)
            path.unlink()
            rows.append(row)
            print(
                f"{row['n']:>8} {row['mb']:>7.2f} {row['parse']:>8.2f} {row['parse_cpu']:>7.2f} "
                f"{row['mb'] / row['parse']:>6.2f} "
                f"{row['peak_mb']:>8.0f} {row['peak_mb'] / row['mb']:>8.1f} {row['build']:>8.3f} "
                f"{1e6 * row['build'] / row['n']:>13.1f}"
            )
    small, large = rows[0], rows[min(2, len(rows) - 1)]
    ratio = (large["build"] / large["n"]) / (small["build"] / small["n"])
    verdict = "linear" if ratio <= LINEAR_RATIO else "NOT linear"
    print(f"build CPU seconds per node, {large['n']} over {small['n']} nodes: "
          f"{ratio:.2f} ({verdict}; limit {LINEAR_RATIO})")
    return 0 if ratio <= LINEAR_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
