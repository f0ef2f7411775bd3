"""What every run of a case shares, and where a profile's results live.

The runner (:mod:`prunelab.lab.experiments.runner`) and the tables
(:mod:`prunelab.lab.experiments.tables`) both need a case's network, its exact
marginals, its query state and fixed start (:func:`prepare_case`), the fingerprint
that a resumed sweep checks (:func:`case_fingerprint`), and the results folder
(:func:`results_dir`); they import them from here. The network and the exact
marginals are cached once per process (workers reuse them across runs).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import numpy as np

from prunelab.catalogue import data_dir
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.samplers.init import initial_state, start_state_from
from .specs import DEFAULT_ROOT_SEED, FIXED_START_SPAWN, CaseSpec, case_key

__all__ = ["results_dir", "prepare_case", "case_fingerprint", "load_case_network", "case_exact_marginals"]


def results_dir(profile: str) -> Path:
    """Where :func:`~prunelab.lab.experiments.reproduce` writes by default: ``<data>/results/<profile>``.

    ``<data>`` is :func:`prunelab.catalogue.data_dir` (``$PRUNELAB_DATA`` when set,
    a checkout's ``data/``), except for an installed wheel, whose data folder lies
    inside ``site-packages``: results then go to the user's data folder,
    ``$XDG_DATA_HOME/prunelab`` (default ``~/.local/share/prunelab``), never into the
    installed package. :func:`~prunelab.lab.experiments.load_results` reads from here
    and, for a wheel, falls back on the results shipped with it.
    """
    base = data_dir()
    if _inside_package(base):
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "prunelab"
    return base / "results" / profile


def _inside_package(path: Path) -> bool:
    """Whether ``path`` is the data folder shipped inside the installed package (``prunelab/_data``)."""
    package = Path(__file__).resolve().parents[2]  # prunelab/lab/experiments/cases.py
    return Path(path).resolve() == package / "_data"


@functools.lru_cache(maxsize=32)
def load_case_network(case: CaseSpec):
    """``(bn, evidence)`` of a case, once per process (workers reuse it across runs)."""
    return case.load()


@functools.lru_cache(maxsize=32)
def case_exact_marginals(case: CaseSpec) -> dict:
    """The exact marginals of a case's free variables, once per process."""
    bn, evidence = load_case_network(case)
    return exact_marginals(bn, evidence)


def prepare_case(case: CaseSpec, root_seed: int = DEFAULT_ROOT_SEED) -> dict:
    """What every run of a case shares: exact marginals, query state, fixed start state.

    Returns
    -------
    dict
        ``exact`` (free variable -> exact marginal), ``query_state`` (the state of
        the query whose probability the alpha fits follow: the most probable one,
        the paper's "most common state"; ties go to the first), ``start`` (int64 state
        for ``init="fixed"``, else ``None``).
    """
    bn, evidence = load_case_network(case)
    exact = case_exact_marginals(case)
    query = case.query_variable
    if query not in exact:
        raise ValueError(
            f"case {case.id}: the query variable {query!r} is observed in the evidence "
            f"{case.evidence}; give the case another query (CaseSpec(..., query=...))"
        )
    start = None
    if case.init == "fixed":
        if case.start is not None:
            start = start_state_from(bn, compile_network(bn, evidence), dict(case.start))
        else:
            seed = np.random.SeedSequence(int(root_seed), spawn_key=(case_key(case), FIXED_START_SPAWN))
            start = initial_state(np.random.default_rng(seed), bn, "forward", evidence=evidence)
    return {"exact": exact, "query_state": int(np.argmax(exact[query])), "start": start}


def case_fingerprint(case: CaseSpec) -> dict:
    """What a case's runs were computed on: the spec, the evidence set, a hash of the network.

    Stored per case in ``sweep.json``; a resumed sweep refuses to mix runs made on a
    network or evidence set that has changed since (e.g. a regenerated grid).
    """
    bn, evidence = load_case_network(case)
    digest = hashlib.sha1()
    for v in bn.variables:
        digest.update(repr((v, tuple(bn.states[v]), tuple(bn.parents[v]))).encode())
        digest.update(np.ascontiguousarray(bn.cpts[v], dtype=np.float64).tobytes())
    return {**case.to_dict(), "evidence_set": dict(evidence or {}), "network_sha1": digest.hexdigest()}
