"""Numba kernels compile once and are found again in the on-disk cache by every later process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import numpy as np
from prunelab import load_network
from prunelab.compiled import compile_network
from prunelab.samplers.init import hybrid_forward_nb, initial_state
initial_state(np.random.default_rng(0), compile_network(load_network("asia")), "forward")  # only the cache counts are read
print(sum(hybrid_forward_nb.stats.cache_hits.values()), sum(hybrid_forward_nb.stats.cache_misses.values()))
"""


def test_the_hybrid_forward_kernel_is_loaded_from_the_cache_by_a_second_process(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}

    def run() -> tuple[int, int]:
        out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=tmp_path, capture_output=True, text=True,
                             check=True)
        hits, misses = out.stdout.split()
        return int(hits), int(misses)

    assert run() == (0, 1)  # compiled and written
    written = sorted(p.name for p in tmp_path.rglob("*hybrid_forward*"))
    assert run() == (1, 0)  # a closure would be compiled again here, and cached again
    assert sorted(p.name for p in tmp_path.rglob("*hybrid_forward*")) == written
