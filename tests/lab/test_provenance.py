"""Every record names the numba and llvmlite releases its kernels ran under."""

from __future__ import annotations

from importlib import metadata

import pytest

from prunelab.lab.experiments.provenance import KERNEL_LIBRARIES, LIBRARIES, library_versions, provenance_record


@pytest.mark.parametrize("name", ["numpy", "numba", "llvmlite"])
def test_a_frozen_input_records_the_kernel_libraries(name):
    record = provenance_record("networks", "python data/make_networks.py", root_seed=7, profile={"generator": "g"})
    assert record["libraries"][name] == metadata.version(name)


def test_a_sweep_records_the_kernel_libraries_first():
    assert LIBRARIES[:len(KERNEL_LIBRARIES)] == KERNEL_LIBRARIES
    versions = library_versions()
    assert versions["numba"] == metadata.version("numba") and versions["llvmlite"] == metadata.version("llvmlite")


def test_libraries_asked_for_come_after_the_kernel_ones():
    record = provenance_record("evidence", "python data/make_evidence.py", root_seed=1, profile={"generator": "g"},
                               libraries=("scipy",))
    assert list(record["libraries"]) == [*KERNEL_LIBRARIES, "scipy"]
