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
from tests.helpers import GOOD_BIF, random_network



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
        ("(a1) 0.0, 0.0, 1.0;", "", r":13: 'B': no row given A=a1; 1 of 2 rows given"),
        ("table 0.25, 0.75;", "table 0.25, x;", r":11: 'A': expected a probability, found 'x'"),
        ("probability ( B | A )", "probability ( B | C )", r":13: probability block names undeclared variable 'C'"),
        ("[ 3 ] { b0, b1, b2 }", "[ 4 ] { b0, b1, b2 }", r":7: variable 'B' declares 4 states but lists 3"),
        ("variable A {", "varible A {", r":3: expected 'network', 'variable' or 'probability', found 'varible'"),
        ("type discrete [ 2 ]", "type continuous [ 2 ]", r":4: variable 'A': only discrete variables"),
        # numbers: plain non-negative decimals only, never NaN standing in for a missing row
        ("(a0) 0.5,", "(a0) nan,", r":14: 'B': expected a probability, found 'nan'$"),
        ("(a0) 0.5,", "(a0) 1e400,", r":14: 'B': expected a probability, found '1e400', too large for a float"),
        ("(a0) 0.5, 0.25, 0.25", "(a0) 1.5, -0.25, -0.25", r":14: 'B': expected a probability, found the negative number '-0.25'"),
        ("(a0) 0.5,", "(a0) 0.5_0,", r":14: 'B': expected a probability, found '0.5_0'"),
        ("table 0.25, 0.75;", "table 0.25, 0.75", r":12: 'A': expected a probability, found '}'"),
        # rows given twice, or in two ways
        ("(a1) 0.0, 0.0, 1.0;", "(a0) 0.0, 0.0, 1.0;\n  (a1) 0.0, 0.0, 1.0;",
         r":15: 'B': second row given A=a0 \(first at line 14\)"),
        ("(a0) 0.5, 0.25, 0.25;", "table 0.5, 0.5, 0.25, 0.25, 0.25, 0.25;\n  (a0) 0.5, 0.25, 0.25;",
         r":15: 'B': a 'table' line and other rows; give one or the other"),
        ("table 0.25, 0.75;", "table 0.25, 0.75; table 0.25, 0.75;", r":11: 'A': a 'table' line and other rows"),
        ("(a1) 0.0, 0.0, 1.0;", "default 0.0, 0.0, 1.0; default 0.0, 0.0, 1.0;", r":15: 'B': a second 'default' row"),
        ("probability ( B | A )", "probability ( B | B )", r":13: probability block of 'B' lists itself as a parent"),
        ("probability ( B | A )", "probability ( B | A, A )", r":13: probability block of 'B' lists parent 'A' twice"),
        ("probability ( B | A )", "probability ( A )", r":13: second probability block for 'A' \(first at line 10\)"),
        # declarations
        ("{ b0, b1, b2 }", "{ b0, b0, b2 }", r":7: variable 'B' lists state 'b0' twice"),
        ("{ a0, a1 }", "{ a0, a0 }", r":4: variable 'A' lists state 'a0' twice"),
        ("[ 2 ]", "[ \u00b2 ]", r":4: variable 'A': expected a state count, found '\u00b2'"),
        ("[ 2 ]", "[ \u0662 ]", r":4: variable 'A': expected a state count, found '\u0662'"),
        ("[ 2 ]", "[ -2 ]", r":4: variable 'A': expected a state count, found '-2'"),
        ("[ 2 ]", "[ 99999999999999999999 ]", r":4: variable 'A' declares 99999999999999999999 states but lists 2"),
        ("[ 3 ] { b0, b1, b2 };", "[ 0 ] { };", r":7: variable 'B' declares 0 states; a variable needs at least one"),
        ("type discrete [ 2 ] { a0, a1 };", "type discrete [ 2 ] { a0, a1 }; type discrete [ 2 ] { a0, a1 };",
         r":4: variable 'A' has a second 'type' line"),
        ("variable A {", "variable B {", r":6: variable 'B' declared twice \(first at line 3\)"),
        ("  (a1) 0.0, 0.0, 1.0;\n}\n", "  (a1) 0.0, 0.0, 1.0;\n}\n/* not closed\n", r":17: expected 'network', 'variable' or 'probability', found '/\*'"),
    ],
)
def test_malformed_bif_names_file_and_line(tmp_path, old, new, message):
    assert old in GOOD_BIF
    path = write(tmp_path, GOOD_BIF.replace(old, new))
    with pytest.raises(FileFormatError, match=r"net\.bif" + message):
        read_bif(path)


def test_malformed_bif_errors_at_any_chunk_size(tmp_path, monkeypatch):
    """Tokenizing a chunk at a time (cut at line breaks outside comments) changes nothing."""
    import prunelab.io

    commented = (
        GOOD_BIF.replace("variable B {", "/* a comment\n over lines; { ( */ variable B { // see /* here\n")
        .replace("{ b0, b1, b2 }", "{ b0,\n b1, b2 }")
        .replace("probability ( B | A ) {\n  (a0) 0.5,", "probability ( B\n | A ) {\n  (a0) 0.5,\n")
    )
    good = write(tmp_path, commented + "// the end")
    bad = write(tmp_path, commented.replace("(a1) 0.0, 0.0, 1.0;", "(a1) 0.0, 0.0, x;"), "bad.bif")
    twice = write(tmp_path, commented.replace("(a1) 0.0, 0.0, 1.0;", "(a0\n) 0.0, 0.0, 1.0;"), "twice.bif")
    expected = read_bif(good)
    assert expected == read_bif(write(tmp_path, GOOD_BIF, "plain.bif"))
    for chunk in range(1, len(commented) + 1, 3):
        monkeypatch.setattr(prunelab.io.tokens, "_CHUNK", chunk)
        assert read_bif(good) == expected
        with pytest.raises(FileFormatError, match=r"bad\.bif:20: 'B': expected a probability, found 'x'"):
            read_bif(bad)
        with pytest.raises(FileFormatError, match=r"twice\.bif:20: 'B': second row given A=a0 \(first at line 18\)"):
            read_bif(twice)


def test_bif_accepts_a_byte_order_mark(tmp_path):
    path = tmp_path / "bom.bif"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD_BIF.encode())
    assert read_bif(path) == read_bif(write(tmp_path, GOOD_BIF))


def test_repeated_rows_and_default(tmp_path):
    bn = read_bif(write(tmp_path, GOOD_BIF.replace("(a1) 0.0, 0.0, 1.0;", "default 0.0, 0.0, 1.0;")))
    np.testing.assert_array_equal(bn.cpts["B"], [[0.5, 0.25, 0.25], [0.0, 0.0, 1.0]])


def many_parents(k, rows=1):
    """A child of ``k`` binary parents with only ``rows`` rows written."""
    text = "".join(f"variable P{i} {{ type discrete [ 2 ] {{ t, f }}; }}\n" for i in range(k))
    text += "variable C { type discrete [ 2 ] { t, f }; }\n"
    text += "".join(f"probability ( P{i} ) {{ table 0.5, 0.5; }}\n" for i in range(k))
    text += "probability ( C | " + ", ".join(f"P{i}" for i in range(k)) + " ) {\n"
    for r in range(rows):
        text += "  (" + ", ".join("tf"[(r >> i) & 1] for i in range(k)) + ") 0.5, 0.5;\n"
    return text + "}\n"


@pytest.mark.parametrize("k", [28, 40])
def test_cpt_above_the_cap_is_refused_before_allocation(tmp_path, k):
    import tracemalloc

    from prunelab.network import MAX_CPT_ENTRIES

    path = write(tmp_path, many_parents(k))
    tracemalloc.start()
    try:
        with pytest.raises(
            FileFormatError,
            match=rf"net\.bif:{2 * k + 2}: CPT of 'C' would have {2 ** (k + 1)} entries \(shape \(2, .*\)\), "
            rf"more than MAX_CPT_ENTRIES = {MAX_CPT_ENTRIES}",
        ):
            read_bif(path)
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()


def test_short_table_is_refused_before_allocation(tmp_path):
    import tracemalloc

    # 2**21 entries (16 MB) declared under the cap; 3 rows present
    path = write(tmp_path, many_parents(20, rows=3))
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError, match=r"net\.bif:42: 'C': no row given P0=t, P1=t, .*, P18=t, P19=f; 3 of 1048576 rows given"):
            read_bif(path)
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()
    full = read_bif(write(tmp_path, many_parents(4, rows=16)))
    assert full.cpts["C"].shape == (2,) * 5


@pytest.mark.parametrize(
    "text, error, message",
    [
        ("", FileFormatError, r"net\.bif: no variable declared"),
        ("// nothing here\n/* or here */\n", FileFormatError, r"net\.bif: no variable declared"),
        (GOOD_BIF.replace("probability ( A ) {\n  table 0.25, 0.75;\n}\n", ""), FileFormatError,
         r"net\.bif: no probability block for variable\(s\) \['A'\]"),
        (GOOD_BIF.replace("probability ( A ) {", "probability ( A | B ) {").replace("table 0.25, 0.75;", "default 0.5, 0.5;"),
         NetworkError, r"net\.bif: the graph has a cycle: (A -> B -> A|B -> A -> B)"),
        (GOOD_BIF.replace("table 0.25, 0.75", "table 1e308, 1e308"), NetworkError,
         r"net\.bif: CPT of 'A' cannot be normalized given \(no parents\)"),
    ],
)
def test_bif_that_is_no_network(tmp_path, text, error, message):
    with pytest.raises(error, match=message):
        read_bif(write(tmp_path, text), normalize=True)


@pytest.mark.parametrize(
    "content, message",
    [
        (GOOD_BIF.encode(), r"not a readable gzip file \(Not a gzipped file"),
        (gzip.compress(GOOD_BIF.encode())[:40], r"not a readable gzip file \(Compressed file ended"),
        (b"\x1f\x8b\x08\x00" + bytes(20), r"not a readable gzip file"),
        (gzip.compress(b"\xff\xfe"), r"not UTF-8 text"),
    ],
)
def test_bad_gzip_names_the_file(tmp_path, content, message):
    path = tmp_path / "net.bif.gz"
    path.write_bytes(content)
    with pytest.raises(FileFormatError, match=r"net\.bif\.gz: " + message):
        read_bif(path)


def test_missing_file_or_directory_is_an_os_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.bif"):
        read_bif(tmp_path / "nope.bif")
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        read_bif(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"nope\.uai"):
        read_uai(tmp_path / "nope.uai")


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
        (UAI, "", r":1: empty file, expected the preamble 'BAYES'"),
        ("2 2\n", "0 2\n", r":3: variable 0 has cardinality 0; a variable needs at least one state"),
        ("2 2\n", "\u00b2 2\n", r":3: expected the cardinality of variable 0 \(a non-negative integer\), found '\u00b2'"),
        ("2 2\n", "\u0662 2\n", r":3: expected the cardinality of variable 0 \(a non-negative integer\), found '\u0662'"),
        ("2 2\n", "2 -2\n", r":3: expected the cardinality of variable 1 \(a non-negative integer\), found '-2'"),
        ("0.5 0.5", "nan 0.5", r":9: expected entry 0 of factor 0, found 'nan'"),
        ("0.5 0.5", "1.5 -0.5", r":9: expected entry 1 of factor 0, found the negative number '-0.5'"),
        ("0.5 0.5", "0.5 1e999", r":9: expected entry 1 of factor 0, found '1e999', too large for a float"),
        ("2 0 1\n", "3 0 0 1\n", r":6: factor 1 lists variable 0 twice"),
        ("2\n0.5 0.5", "99999999999999\n0.5 0.5", r":8: factor 0 declares 99999999999999 entries, its scope \[0\] needs 2"),
        ("2 2\n", "4294967296 2\n", r":8: factor 0: CPT of 'v0' would have 4294967296 entries \(shape \(4294967296,\)\), "
         r"more than MAX_CPT_ENTRIES = 16777216"),
        (UAI, "BAYES\n1000000000000\n2 2\n", r":3: unexpected end of file, expected the cardinality of variable 2"),
        ("2\n1 0\n", "3\n1 0\n", r":4: a BAYES file has one factor per variable: 3 factors for 2 variables"),
    ],
)
def test_malformed_uai_names_file_and_line(tmp_path, old, new, message):
    assert old in UAI
    path = write(tmp_path, UAI.replace(old, new, 1), "net.uai")
    with pytest.raises(FileFormatError, match=r"net\.uai" + message):
        read_uai(path)


def test_huge_declared_cardinalities_allocate_nothing(tmp_path):
    import tracemalloc

    # a 200-byte file declaring 100 variables of 16.7 million states each
    text = "BAYES\n100\n" + " ".join(["16777216"] * 100) + "\n100\n" + "".join(f"1 {i}\n" for i in range(100))
    path = write(tmp_path, text + "16777216\n0.5 0.5\n", "net.uai")
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError, match=r"net\.uai:\d+: unexpected end of file, expected entry 2 of factor 0"):
            read_uai(path)
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "sidecar, message",
    [
        ("{", r"not a JSON file \(Expecting property name"),
        (b"\xff", r"not a JSON file"),
        ("[]", r"expected an object with a 'variables' list and a 'states' object"),
        ({"variables": ["x", "y"]}, r"expected an object with a 'variables' list and a 'states' object"),
        ({"variables": ["x"], "states": {"x": ["0", "1"]}}, r"1 variable names for the 2 variables of .*net\.uai"),
        ({"variables": ["x", "x"], "states": {"x": ["0", "1"]}}, r"variable name 'x' given twice"),
        ({"variables": [1, 2], "states": {"1": ["0", "1"], "2": ["0", "1"]}}, r"variable name 1 is not a string"),
        ({"variables": ["x", "y"], "states": {"x": ["0", "1"]}}, r"no list of state names \(strings\) for variable 'y'"),
        ({"variables": ["x", "y"], "states": {"x": [0, 1], "y": ["0", "1"]}}, r"no list of state names \(strings\) for variable 'x'"),
        ({"variables": ["x", "y"], "states": {"x": ["0"], "y": ["0", "1"]}}, r"variable 'x' has 1 state names, but 2 states in"),
        ({"variables": ["x", "y"], "states": {"x": ["0", "0"], "y": ["0", "1"]}}, r"variable 'x' has repeated state names"),
        ({"name": 3, "variables": ["x", "y"], "states": {"x": ["0", "1"], "y": ["0", "1"]}}, r"'name' must be a string, found 3"),
    ],
)
def test_broken_names_sidecar_names_the_sidecar(tmp_path, sidecar, message):
    import json

    path = write(tmp_path, UAI, "net.uai")
    side = tmp_path / "net.uai.names.json"
    if isinstance(sidecar, bytes):
        side.write_bytes(sidecar)
    else:
        side.write_text(sidecar if isinstance(sidecar, str) else json.dumps(sidecar))
    with pytest.raises(FileFormatError, match=r"net\.uai\.names\.json: " + message):
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
