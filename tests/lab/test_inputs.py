"""The frozen inputs (generated grids, evidence sets): regenerated identically, provenance in the one schema."""

from __future__ import annotations

import json

import pytest

from prunelab import load_evidence
from prunelab.catalogue import data_dir
from prunelab.lab.experiments import PROVENANCE_KEYS
from prunelab.lab.experiments.inputs import EVIDENCE_SEEDS, GRID_SEEDS, freeze_book_evidence, freeze_grids
from prunelab.lab.experiments.provenance import provenance_record

APPLY = ("experiment", "command", "regenerate", "prunelab_version", "git", "root_seed", "profile", "end_time",
         "machine", "libraries")
"""The keys of the one schema that apply to a file made at once (no runs, no sessions)."""


def _frozen_records():
    return [*sorted((data_dir() / "networks").glob("*.provenance.json")), *sorted((data_dir() / "evidence").glob("*.json"))]


def test_provenance_record_has_the_schemas_keys_in_its_order():
    record = provenance_record("networks", "python data/make_networks.py", root_seed=7, profile={"generator": "g"},
                               command="ran")
    assert tuple(record) == APPLY and [k for k in PROVENANCE_KEYS if k in record] == list(record)
    assert record["command"] == "ran" and record["root_seed"] == "7" and record["profile"] == {"generator": "g"}


@pytest.mark.parametrize("path", _frozen_records(), ids=lambda p: p.name)
def test_every_frozen_input_records_the_schemas_keys(path):
    record = json.loads(path.read_text())
    assert set(APPLY) <= set(record), sorted(set(APPLY) - set(record))
    assert set(record) - set(APPLY) <= {"network", "evidence"}
    assert str(int(record["root_seed"])) == record["root_seed"] and "generator" in record["profile"]


def test_grids_regenerate_byte_identical(tmp_path):
    written = freeze_grids(tmp_path)
    assert [p.name for p in written] == [f"grid-{n}x{n}.uai" for n in GRID_SEEDS]
    for path in written:
        frozen = data_dir() / "networks" / path.name
        assert path.read_bytes() == frozen.read_bytes(), path.name
        new = json.loads(path.with_name(path.name + ".provenance.json").read_text())
        old = json.loads(frozen.with_name(frozen.name + ".provenance.json").read_text())
        assert (new["root_seed"], new["profile"]) == (old["root_seed"], old["profile"])


def test_book_evidence_regenerates_identically_in_order(tmp_path):
    for path in freeze_book_evidence(tmp_path):
        new, old = json.loads(path.read_text()), json.loads((data_dir() / "evidence" / path.name).read_text())
        assert list(new["evidence"].items()) == list(old["evidence"].items()), path.name
        assert (new["root_seed"], new["profile"], new["network"]) == (old["root_seed"], old["profile"], old["network"])
    assert set(EVIDENCE_SEEDS) == {"asia", "alarm", "win95pts"}
    assert load_evidence("asia") == json.loads((tmp_path / "asia-25.json").read_text())["evidence"]
