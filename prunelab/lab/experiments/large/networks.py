"""The pgmpy networks of the large-network experiment and their frozen 25 % evidence."""

from __future__ import annotations

import functools
import zlib
from pathlib import Path

from prunelab.catalogue import data_dir, load_evidence, pgmpy_example_path
from prunelab.evidence import random_evidence
from prunelab.io import read_bif
from prunelab.network import BayesianNetwork
from .. import store
from ..provenance import provenance_record

__all__ = ["EVIDENCE_FRACTION", "evidence_seed", "freeze_evidence", "load_large", "pgmpy_networks"]

EVIDENCE_FRACTION = 0.25
"""The book's rule: a quarter of the variables observed, set from one forward sample."""


def pgmpy_networks() -> tuple[str, ...]:
    """Names of the ``.bif.gz`` networks the installed pgmpy wheel ships, sorted.

    Examples
    --------
    >>> {"asia", "munin", "link"} <= set(pgmpy_networks())
    True
    """
    folder = pgmpy_example_path("asia").parent
    return tuple(sorted(p.name[: -len(".bif.gz")] for p in Path(folder).glob("*.bif.gz")))


def evidence_seed(name: str) -> int:
    """Seed of a network's frozen evidence set: the CRC-32 of its name (stable, recorded in the file)."""
    return zlib.crc32(f"evidence:{name}".encode())


@functools.lru_cache(maxsize=64)
def load_large(name: str, evidence: bool) -> tuple[BayesianNetwork, dict | None]:
    """A pgmpy network (rows rescaled to sum to 1) and, if ``evidence``, its frozen 25 % evidence.

    Raises
    ------
    FileNotFoundError
        No frozen evidence file for ``name``: ``python -m prunelab run large --freeze-evidence`` writes it.
    """
    bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)
    return bn, (load_evidence(name, EVIDENCE_FRACTION) if evidence else None)


def freeze_evidence(names=None, folder=None, overwrite: bool = False) -> list[Path]:
    """Write ``<data>/evidence/<name>-25.json`` for every pgmpy network that lacks one.

    The evidence is ``random_evidence(bn, 0.25, seed=evidence_seed(name))`` on the
    network with rows rescaled (as :func:`load_large` reads it); the file records
    its provenance in the one schema's keys
    (:func:`~prunelab.lab.experiments.provenance.provenance_record`) like
    ``data/make_networks.py`` does. Files already there (asia, alarm and win95pts,
    frozen by ``data/make_networks.py`` with the query variable excluded) are kept
    unless ``overwrite``.

    Returns
    -------
    list of Path
        The files written.
    """
    folder = Path(folder) if folder is not None else data_dir() / "evidence"
    written = []
    for name in pgmpy_networks() if names is None else names:
        path = folder / f"{name}-{round(100 * EVIDENCE_FRACTION)}.json"
        if path.exists() and not overwrite:
            continue
        bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)
        seed = evidence_seed(name)
        generator = (f"random_evidence(read_bif(pgmpy_example_path({name!r}), normalize=True), "
                     f"fraction={EVIDENCE_FRACTION}, seed={seed})")
        record = {**provenance_record("evidence", "python -m prunelab run large --freeze-evidence", root_seed=seed,
                                      profile={"generator": generator}),
                  "network": name, "evidence": random_evidence(bn, EVIDENCE_FRACTION, seed=seed)}
        store.write_json_atomic(record, path)
        written.append(path)
    return written
