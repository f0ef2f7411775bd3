"""The book's frozen inputs: the generated grids (``data/networks``) and the evidence sets of asia, alarm, win95pts.

Each file records its provenance in the keys of the one schema that apply to it
(:func:`~prunelab.lab.experiments.provenance.provenance_record`: command, version,
commit, seed, the generator's call as its ``profile``, date, machine, libraries). Rerunning
with the same generator gives the same networks and evidence; once frozen, the chapters
read these files and never regenerate them. The evidence of the other pgmpy networks is
:func:`prunelab.lab.experiments.large.freeze_evidence` (``python -m prunelab run large
--freeze-evidence``)::

    python data/make_networks.py            # = prunelab.lab.experiments.inputs.main()
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .provenance import provenance_record
from .store import write_atomic
from prunelab import make_grid, write_uai
from prunelab import load_network, query_variable, random_evidence
from prunelab.catalogue import data_dir

__all__ = ["EVIDENCE_SEEDS", "GRID_SEEDS", "REGENERATE", "freeze_book_evidence", "freeze_grids", "main"]

GRID_SEEDS = {3: 20173, 5: 20175, 8: 20178}
"""The seed of each ``grid-<n>x<n>`` (``make_grid(n, determinism=0.5, seed=...)``)."""

EVIDENCE_SEEDS = {"asia": 2501, "alarm": 2502, "win95pts": 2503}
"""The seed of each network's frozen 25 % evidence."""

REGENERATE = "python data/make_networks.py"
"""The command that writes these files again."""


def _write_json(record: dict, path: Path) -> None:
    """``record`` as indented JSON in its own key order (the evidence's order is the draw's), atomically."""
    write_atomic(path, lambda tmp: tmp.write_text(json.dumps(record, indent=1) + "\n"))


def freeze_grids(folder: Path) -> list[Path]:
    """Write ``grid-<n>x<n>.uai`` (with its names and provenance sidecars) for every :data:`GRID_SEEDS`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in freeze_grids(Path(tmp))]
    ['grid-3x3.uai', 'grid-5x5.uai', 'grid-8x8.uai']
    """
    Path(folder).mkdir(parents=True, exist_ok=True)
    written = []
    for n, seed in GRID_SEEDS.items():
        bn = make_grid(n, determinism=0.5, seed=seed)
        path = write_uai(bn, Path(folder) / f"grid-{n}x{n}.uai")
        record = provenance_record("networks", REGENERATE, root_seed=seed,
                                   profile={"generator": f"make_grid({n}, determinism=0.5, seed={seed})"})
        _write_json(record, path.with_name(path.name + ".provenance.json"))
        written.append(path)
    return written


def freeze_book_evidence(folder: Path) -> list[Path]:
    """Write ``<name>-25.json`` for every network of :data:`EVIDENCE_SEEDS`.

    Neither the query variable nor its parents are observed: its posterior is what
    the chapters estimate, and a parent can fix it (win95pts' Problem1 copies PrtData).
    """
    Path(folder).mkdir(parents=True, exist_ok=True)
    written = []
    for name, seed in EVIDENCE_SEEDS.items():
        bn = load_network(name)
        query = query_variable(name)
        exclude = [query, *bn.parents[query]]
        evidence = random_evidence(bn, fraction=0.25, seed=seed, exclude=exclude)
        generator = f"random_evidence(load_network({name!r}), fraction=0.25, seed={seed}, exclude={exclude!r})"
        record = {**provenance_record("evidence", REGENERATE, root_seed=seed, profile={"generator": generator}),
                  "network": name, "evidence": evidence}
        path = Path(folder) / f"{name}-25.json"
        _write_json(record, path)
        written.append(path)
    return written


def main(root: Path | None = None) -> None:
    """Write the grids into ``<root>/networks`` and the evidence into ``<root>/evidence`` (default: ``data/``)."""
    root = Path(root) if root is not None else data_dir()
    for path in [*freeze_grids(root / "networks"), *freeze_book_evidence(root / "evidence")]:
        print("wrote", path, file=sys.stderr)
