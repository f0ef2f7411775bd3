"""Files in and out: BIF, UAI round trips, pgmpy conversion, and their errors."""

import gzip

import numpy as np
import pytest
from hypothesis import given, settings

from prunelab import (
    FileFormatError,
    NetworkError,
    from_pgmpy,
    load_network,
    read_bif,
    read_uai,
    to_pgmpy,
    write_uai,
)
from prunelab.catalogue import pgmpy_example_path

from .test_network import random_network

GOOD_BIF = """\
network toy {
}
variable A {
  type discrete [ 2 ] { a0, a1 };
}
variable B {
  type discrete [ 3 ] { b0, b1, b2 };
  property weight = 7 ;
}
probability ( A ) {
  table 0.25, 0.75;
}
probability ( B | A ) {
  (a0) 0.5, 0.25, 0.25;
  (a1) 0.0, 0.0, 1.0;
}
"""


def write(tmp_path, text, name="net.bif"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_bif_gives_named_states_and_cpts(tmp_path):
    bn = read_bif(write(tmp_path, GOOD_BIF))
    assert bn.variables == ("A", "B")
    assert bn.states["B"] == ("b0", "b1", "b2")
    np.testing.assert_array_equal(bn.cpts["B"], [[0.5, 0.25, 0.25], [0.0, 0.0, 1.0]])
    assert bn.name == "net"


def test_read_bif_gzip(tmp_path):
    path = tmp_path / "net.bif.gz"
    path.write_bytes(gzip.compress(GOOD_BIF.encode()))
    assert read_bif(path) == read_bif(write(tmp_path, GOOD_BIF))


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("(a1) 0.0, 0.0, 1.0;", "(a1) 0.0, 0.0;", r":15: 'B': row has 2 numbers, expected 3"),
        ("(a1) 0.0, 0.0, 1.0;", "(a2) 0.0, 0.0, 1.0;", r":15: 'B': unknown state 'a2' of parent 'A'"),
        ("(a1) 0.0, 0.0, 1.0;", "", r":13: 'B': no row for parent configuration \(A=a1\)"),
        ("table 0.25, 0.75;", "table 0.25, x;", r":11: expected a probability, found 'x'"),
        ("probability ( B | A )", "probability ( B | C )", r":13: probability block names undeclared variable 'C'"),
        ("[ 3 ] { b0, b1, b2 }", "[ 4 ] { b0, b1, b2 }", r":7: variable 'B' declares 4 states but lists 3"),
        ("variable A {", "varible A {", r":3: expected 'network', 'variable' or 'probability', found 'varible'"),
        ("type discrete [ 2 ]", "type continuous [ 2 ]", r":4: variable 'A': only discrete variables"),
    ],
)
def test_malformed_bif_names_file_and_line(tmp_path, old, new, message):
    assert old in GOOD_BIF
    path = write(tmp_path, GOOD_BIF.replace(old, new))
    with pytest.raises(FileFormatError, match=r"net\.bif" + message):
        read_bif(path)


def test_truncated_bif(tmp_path):
    path = write(tmp_path, GOOD_BIF[: GOOD_BIF.index("(a1)")])
    with pytest.raises(FileFormatError, match=r"net\.bif:\d+: unexpected end of file"):
        read_bif(path)


def test_invalid_network_in_bif_names_file(tmp_path):
    path = write(tmp_path, GOOD_BIF.replace("(a1) 0.0, 0.0, 1.0;", "(a1) 0.1, 0.0, 1.0;"))
    with pytest.raises(NetworkError, match=r"net\.bif: CPT of 'B' does not sum to 1 given A=a1"):
        read_bif(path)
    assert np.isclose(read_bif(path, normalize=True).cpts["B"][1, 0], 0.1 / 1.1)


@pytest.mark.parametrize("name", ["asia", "alarm", "win95pts"])
def test_bif_agrees_with_pgmpy_reader(tmp_path, name):
    from pgmpy.readwrite import BIFReader

    ours = read_bif(pgmpy_example_path(name))
    plain = tmp_path / f"{name}.bif"
    plain.write_bytes(gzip.decompress(pgmpy_example_path(name).read_bytes()))
    theirs = from_pgmpy(BIFReader(str(plain)).get_model())
    assert set(ours.variables) == set(theirs.variables)
    for v in ours.variables:
        assert ours.parents[v] == theirs.parents[v]
        assert ours.states[v] == theirs.states[v]
        np.testing.assert_array_equal(ours.cpts[v], theirs.cpts[v])


@pytest.mark.parametrize("name", ["deterministic_pair", "blood_pressure", "block_chain", "asia", "alarm", "win95pts", "grid-5x5"])
def test_uai_round_trip_gives_back_the_same_network(tmp_path, name):
    bn = load_network(name)
    path = write_uai(bn, tmp_path / f"{name}.uai")
    assert read_uai(path) == bn
    # without the names sidecar the structure and numbers still survive
    path.with_name(path.name + ".names.json").unlink()
    bare = read_uai(path)
    assert bare.variables == tuple(f"v{i}" for i in range(bn.n_variables))
    for v, w in zip(bn.variables, bare.variables):
        np.testing.assert_array_equal(bn.cpts[v], bare.cpts[w])


@settings(max_examples=30, deadline=None)
@given(random_network())
def test_uai_round_trip_property(tmp_path_factory, bn):
    path = write_uai(bn, tmp_path_factory.mktemp("uai") / "net.uai")
    assert read_uai(path) == bn


UAI = """BAYES
2
2 2
2
1 0
2 0 1

2
0.5 0.5
4
1 0
0 1
"""


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("BAYES", "MARKOV", r":1: expected the preamble 'BAYES', found 'MARKOV'"),
        ("2\n0.5 0.5", "3\n0.5 0.5", r":8: factor 0 declares 3 entries, its scope \[0\] needs 2"),
        ("2 0 1\n", "2 0 7\n", r":6: factor 1 names variable 7, but there are only 2"),
        ("1 0\n0 1\n", "1 0\n0 x\n", r":12: expected entry 3 of factor 1, found 'x'"),
        ("2 0 1\n", "2 1 0\n", r":6: factor 1 and factor 0 both have variable 0 last"),
        ("1 0\n0 1\n", "1 0\n0 1 0.3\n", r":12: unexpected extra token '0.3'"),
        ("1 0\n0 1\n", "1 0\n0\n", r":12: unexpected end of file, expected entry 3 of factor 1"),
    ],
)
def test_malformed_uai_names_file_and_line(tmp_path, old, new, message):
    assert old in UAI
    path = write(tmp_path, UAI.replace(old, new, 1), "net.uai")
    with pytest.raises(FileFormatError, match=r"net\.uai" + message):
        read_uai(path)


def test_uai_cycle_is_a_network_error(tmp_path):
    path = write(tmp_path, "BAYES\n2\n2 2\n2\n2 1 0\n2 0 1\n4\n1 0 0 1\n4\n1 0 0 1\n", "cyc.uai")
    with pytest.raises(NetworkError, match=r"cyc\.uai: the graph has a cycle"):
        read_uai(path)


@pytest.mark.parametrize("name", ["blood_pressure", "asia", "grid-3x3"])
def test_pgmpy_round_trip(name):
    bn = load_network(name)
    model = to_pgmpy(bn)
    assert model.check_model()
    assert from_pgmpy(model) == bn
