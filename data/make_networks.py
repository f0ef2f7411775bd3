"""Freeze the book's generated networks and evidence sets into data/.

Run from the repository root:  .venv/bin/python data/make_networks.py

Writes data/networks/grid-{3x3,5x5,8x8}.uai (+ names sidecar) and
data/evidence/{asia,alarm,win95pts}-25.json, each with its provenance (command,
package version, seed, date). Rerunning with the same generator gives the same
files; once frozen, chapters read these files and never regenerate them.
"""

import datetime
import json
import platform
import sys
from pathlib import Path

import prunelab
from prunelab import load_network, make_grid, query_variable, random_evidence, write_uai

HERE = Path(__file__).resolve().parent
GRID_SEEDS = {3: 20173, 5: 20175, 8: 20178}
EVIDENCE_SEEDS = {"asia": 2501, "alarm": 2502, "win95pts": 2503}


def provenance(seed):
    return {
        "command": "python data/make_networks.py",
        "prunelab_version": prunelab.__version__,
        "seed": seed,
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
    }


def main():
    (HERE / "networks").mkdir(exist_ok=True)
    (HERE / "evidence").mkdir(exist_ok=True)
    for n, seed in GRID_SEEDS.items():
        bn = make_grid(n, determinism=0.5, seed=seed)
        path = write_uai(bn, HERE / "networks" / f"grid-{n}x{n}.uai")
        meta = provenance(seed) | {"generator": f"make_grid({n}, determinism=0.5, seed={seed})"}
        path.with_name(path.name + ".provenance.json").write_text(json.dumps(meta, indent=1) + "\n")
        print("wrote", path, file=sys.stderr)
    for name, seed in EVIDENCE_SEEDS.items():
        # Neither the query variable nor its parents are observed: its posterior is what
        # the chapters estimate, and a parent can fix it (win95pts' Problem1 copies PrtData).
        bn = load_network(name)
        query = query_variable(name)
        exclude = [query, *bn.parents[query]]
        ev = random_evidence(bn, fraction=0.25, seed=seed, exclude=exclude)
        record = provenance(seed) | {
            "generator": (
                f"random_evidence(load_network({name!r}), fraction=0.25, seed={seed}, exclude={exclude!r})"
            ),
            "network": name,
            "evidence": ev,
        }
        path = HERE / "evidence" / f"{name}-25.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
