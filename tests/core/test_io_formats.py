"""Hugin, Netica, GeNIe and BIFXML files in, and read_network: conventions, agreement with pyAgrum, hostile input."""

import gzip
import os
import re
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from prunelab import BayesianNetwork, FileFormatError, NetworkError, read_bif, read_network, read_uai, write_uai
from prunelab.catalogue import pgmpy_example_path
from prunelab.io import READERS, read_bifxml, read_dne, read_dsl, read_net, read_xdsl
from tests.helpers import GOOD_BIF

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import check_formats  # noqa: E402

# One network in every format: C has two parents of different sizes and a table in
# which every row differs, so any mistake in the order of its axes shows; D = C.
EXPECTED = BayesianNetwork(
    states={"A": ["a0", "a1"], "B": ["b0", "b1", "b2"], "C": ["c0", "c1"], "D": ["d0", "d1"]},
    parents={"A": [], "B": [], "C": ["A", "B"], "D": ["C"]},
    cpts={
        "A": [0.25, 0.75],
        "B": [0.5, 0.25, 0.25],
        "C": [[[1.0, 0.0], [0.5, 0.5], [0.25, 0.75]], [[0.0, 1.0], [0.125, 0.875], [0.75, 0.25]]],
        "D": [[1.0, 0.0], [0.0, 1.0]],
    },
)

NET = """\
% a hand-made Hugin file
net
{
    node_size = (80 40);
    HR_Desc = "a % not a comment; { ( ";
}

node A
{
    label = "A";
    states = ("a0" "a1");
}

discrete node B
{
    states = ("b0" "b1" "b2");   % a comment after the states
    position = (100 200);
}

node C
{
    states = (c0 c1);
}

node D
{
    states = ("d0" "d1");
}

potential (A)
{
    data = ( 0.25 0.75 );
}

potential (B)
{
    data = ( 0.5 0.25 0.25 );
}

potential (C | A B)
{
    data = ((( 1.0 0.0 )     %  A=a0 B=b0
             ( 0.5 0.5 )
             ( 0.25 0.75 ))
            (( 0.0 1.0 )
             ( 0.125 0.875 )
             ( 0.75 0.25 )));
}

potential (D | C)
{
    data = ( 1 0 0 1 );
}
"""

DNE = """\
// ~->[DNET-1]->~
// a hand-made Netica file

bnet toy {
autoupdate = TRUE;
comment = "a comment \\n\\
    over two lines, with a ; and a }";
visual V1 {
\tdefdispform = BELIEFBARS;
\t};

node C {
\tkind = NATURE;
\tdiscrete = TRUE;
\tchance = CHANCE;
\tstates = (c0, c1);
\tparents = (A, B);        // declared below
\tprobs =
\t\t// c0     c1          // A   B
\t\t(((1.0,   0.0),       // a0  b0
\t\t  (0.5,   0.5),       // a0  b1
\t\t  (0.25,  0.75)),     // a0  b2
\t\t ((0.0,   1.0),       // a1  b0
\t\t  (0.125, 0.875),     // a1  b1
\t\t  (0.75,  0.25)));    // a1  b2
\ttitle = "C";
\tvisual V1 {
\t\tcenter = (114, 36);
\t\t};
\t};

node A {
\tkind = NATURE;
\tdiscrete = TRUE;
\tstates = (a0, a1);
\tparents = ();
\tprobs = (0.25, 0.75);
\t};

node B {
\tkind = NATURE;
\tdiscrete = TRUE;
\tnumstates = 3;
\tstates = (b0, b1, b2);
\tparents = ();
\tprobs = (0.5, 0.25, 0.25);
\t};

node D {
\tkind = NATURE;
\tdiscrete = TRUE;
\tchance = DETERMIN;
\tstates = (d0, d1);
\tparents = (C);
\tfunctable = (d0, d1);
\t};
};
"""

DSL = """\
// a hand-made GeNIe text file
net toy
{
 HEADER =
  {
   ID = toy;
   NAME = "a toy; with { braces }";
  };
 node A
  {
   TYPE = CPT;
   HEADER = { ID = A; NAME = "A"; };
   PARENTS = ();
   DEFINITION =
    {
     NAMESTATES = (a0, a1);
     PROBABILITIES = (0.25, 0.75);
    };
  };
 submodel Sub1
  {
   node B
    {
     TYPE = CPT;
     HEADER = { ID = B; NAME = "B"; };
     PARENTS = ();
     DEFINITION = { NAMESTATES = (b0, b1, b2); PROBABILITIES = (0.5, 0.25, 0.25); };
    };
  };
 node C
  {
   TYPE = CPT;
   HEADER = { ID = C; NAME = "C"; };
   PARENTS = (A, B);
   DEFINITION =
    {
     NAMESTATES = (c0, c1);
     PROBABILITIES = (1.0, 0.0, 0.5, 0.5, 0.25, 0.75, 0.0, 1.0, 0.125, 0.875, 0.75, 0.25);
    };
   /* a block comment */
  };
 node D
  {
   TYPE = TRUTHTABLE;
   HEADER = { ID = D; NAME = "D"; };
   PARENTS = (C);
   DEFINITION = { NAMESTATES = (d0, d1); RESULTINGSTATES = (d0, d1); };
  };
};
"""

XDSL = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- a hand-made GeNIe file -->
<smile version="1.0" id="toy" numsamples="10000">
  <nodes>
    <cpt id="A">
      <state id="a0" />
      <state id="a1" />
      <probabilities>0.25 0.75</probabilities>
    </cpt>
    <cpt id="B">
      <state id="b0" />
      <state id="b1" />
      <state id="b2" />
      <probabilities>0.5 0.25 0.25</probabilities>
    </cpt>
    <cpt id="C">
      <state id="c0" />
      <state id="c1" />
      <parents>A B</parents>
      <probabilities>1 0 0.5 0.5 0.25 0.75
        0 1 0.125 0.875 0.75 0.25</probabilities>
    </cpt>
    <deterministic id="D">
      <state id="d0" />
      <state id="d1" />
      <parents>C</parents>
      <resultingstates>d0 d1</resultingstates>
    </deterministic>
  </nodes>
  <extensions>
    <genie version="1.0" app="hand" name="toy">
      <node id="A"><name>A &amp; friends</name></node>
    </genie>
  </extensions>
</smile>
"""

BIFXML = """\
<?xml version="1.0"?>
<!-- a hand-made BIFXML file -->
<BIF VERSION="0.3">
<NETWORK>
<NAME>toy</NAME>
<VARIABLE TYPE="nature">
  <NAME>A</NAME>
  <OUTCOME>a0</OUTCOME>
  <OUTCOME>a1</OUTCOME>
  <PROPERTY>position = (10, 20)</PROPERTY>
</VARIABLE>
<VARIABLE TYPE="nature">
  <NAME>B</NAME>
  <OUTCOME>b0</OUTCOME>
  <OUTCOME>b1</OUTCOME>
  <OUTCOME>b2</OUTCOME>
</VARIABLE>
<VARIABLE TYPE="nature">
  <NAME>C</NAME>
  <OUTCOME>c0</OUTCOME>
  <OUTCOME>c1</OUTCOME>
</VARIABLE>
<VARIABLE TYPE="nature">
  <NAME>D</NAME>
  <OUTCOME>d0</OUTCOME>
  <OUTCOME>d1</OUTCOME>
</VARIABLE>
<DEFINITION>
  <FOR>A</FOR>
  <TABLE>0.25 0.75</TABLE>
</DEFINITION>
<DEFINITION><FOR>B</FOR><TABLE>0.5 0.25 0.25</TABLE></DEFINITION>
<DEFINITION>
  <FOR>C</FOR>
  <GIVEN>A</GIVEN>
  <GIVEN>B</GIVEN>
  <TABLE>
    1 0 <!-- a0 b0 -->
    0.5 0.5
    0.25 0.75
    0 1
    0.125 0.875
    0.75 0.25
  </TABLE>
</DEFINITION>
<DEFINITION><FOR>D</FOR><GIVEN>C</GIVEN><TABLE>1 0 0 1</TABLE></DEFINITION>
</NETWORK>
</BIF>
"""

GOOD = {".net": NET, ".dne": DNE, ".dsl": DSL, ".xdsl": XDSL, ".xml": BIFXML}
READER = {".net": read_net, ".dne": read_dne, ".dsl": read_dsl, ".xdsl": read_xdsl, ".xml": read_bifxml}


def write(tmp_path, text, ext, stem="toy"):
    path = tmp_path / f"{stem}{ext}"
    path.write_text(text)
    return path


def line_of(text, needle):
    """The line (from 1) of the first occurrence of ``needle`` in ``text``."""
    assert needle in text, needle
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize("ext", list(GOOD))
def test_hand_made_file_gives_the_network(tmp_path, ext):
    bn = READER[ext](write(tmp_path, GOOD[ext], ext))
    assert bn == EXPECTED
    assert bn.name == "toy"
    assert read_network(write(tmp_path, GOOD[ext], ext.upper(), "upper")) == EXPECTED


@pytest.mark.parametrize("ext", list(GOOD))
def test_gzipped_file_reads_the_same(tmp_path, ext):
    path = tmp_path / f"toy{ext}.gz"
    path.write_bytes(gzip.compress(GOOD[ext].encode()))
    assert read_network(path) == EXPECTED
    assert read_network(path).name == "toy"


@pytest.mark.parametrize(
    "ext, old, new",
    [
        # Hugin: a flat table, commas, the parents in the other order (the table follows them)
        (".net", "data = ( 1 0 0 1 );", "data = ((1, 0), (0, 1));"),
        (".net", "potential (C | A B)\n{\n    data = ((( 1.0 0.0 )     %  A=a0 B=b0\n             ( 0.5 0.5 )\n"
                 "             ( 0.25 0.75 ))\n            (( 0.0 1.0 )\n             ( 0.125 0.875 )\n"
                 "             ( 0.75 0.25 )));",
         "potential (C | A B)\n{\n    data = (1.0 0.0 0.5 0.5 0.25 0.75 0.0 1.0 0.125 0.875 0.75 0.25);"),
        (".net", "potential (C | A B)\n{\n    data = ((( 1.0 0.0 )     %  A=a0 B=b0\n             ( 0.5 0.5 )\n"
                 "             ( 0.25 0.75 ))\n            (( 0.0 1.0 )\n             ( 0.125 0.875 )\n"
                 "             ( 0.75 0.25 )));",
         "potential (C | B A)\n{\n    data = (((1 0) (0 1)) ((0.5 0.5) (0.125 0.875)) ((0.25 0.75) (0.75 0.25)));"),
        # Netica: flat probs, one group per row, probs beside a functable (probs is read)
        (".dne", "functable = (d0, d1);", "probs = (1, 0, 0, 1);"),
        (".dne", "functable = (d0, d1);", "functable = (d1, d0);\n\tprobs = ((1, 0), (0, 1));"),
        (".dne", "(((1.0,   0.0),       // a0  b0\n\t\t  (0.5,   0.5),       // a0  b1\n\t\t  (0.25,  0.75)),     // a0  b2\n"
                 "\t\t ((0.0,   1.0),       // a1  b0\n\t\t  (0.125, 0.875),     // a1  b1\n\t\t  (0.75,  0.25)));",
         "(1.0, 0.0, 0.5, 0.5, 0.25, 0.75, 0.0, 1.0, 0.125, 0.875, 0.75, 0.25);"),
        # GeNIe: a CPT node where a truth table was, nested parentheses in a table
        (".dsl", "TYPE = TRUTHTABLE;", "TYPE = CPT;"),
        (".xdsl", "<deterministic id=\"D\">", "<cpt id=\"D\">"),
    ],
)
def test_equivalent_spellings_give_the_same_network(tmp_path, ext, old, new):
    text = GOOD[ext]
    assert old in text
    if (ext, new) == (".dsl", "TYPE = CPT;"):
        text = text.replace("RESULTINGSTATES = (d0, d1)", "PROBABILITIES = (1, 0, 0, 1)")
    if ext == ".xdsl":
        text = text.replace("<resultingstates>d0 d1</resultingstates>\n    </deterministic>",
                            "<probabilities>1 0 0 1</probabilities>\n    </cpt>")
    bn = READER[ext](write(tmp_path, text.replace(old, new), ext))
    expected_parents = ("B", "A") if "C | B A" in new else ("A", "B")
    assert bn.parents["C"] == expected_parents
    for v in EXPECTED.variables:
        order = [EXPECTED.parents[v].index(p) for p in bn.parents[v]] + [len(bn.parents[v])]
        np.testing.assert_array_equal(bn.cpts[v], np.transpose(EXPECTED.cpts[v], order))


def test_hugin_strings_keep_spaces_and_escaped_quotes(tmp_path):
    text = NET.replace('states = ("a0" "a1");', 'states = ("no way" "a \\"b\\" c");')
    bn = read_net(write(tmp_path, text, ".net"))
    assert bn.states["A"] == ("no way", 'a "b" c')


def test_netica_states_may_be_unnamed(tmp_path):
    text = DNE.replace("numstates = 3;\n\tstates = (b0, b1, b2);", "numstates = 3;")
    assert read_dne(write(tmp_path, text, ".dne")).states["B"] == ("0", "1", "2")


# ----------------------------------------------------------------- agreement with other readers

@pytest.mark.parametrize("ext", [".net", ".dsl", ".xml"])
def test_hand_made_files_agree_with_pyagrum(tmp_path, ext):
    gum = pytest.importorskip("pyagrum")
    # pyAgrum reads no 'discrete' prefix, no DSL submodel, and only the text before a comment in a TABLE
    text = GOOD[ext].replace("discrete node", "node").replace(" <!-- a0 b0 -->", "")
    text = text.replace(" submodel Sub1\n  {\n", "").replace("    };\n  };\n node C", "    };\n node C")
    text = text.replace("TRUTHTABLE", "CPT").replace("RESULTINGSTATES = (d0, d1)", "PROBABILITIES = (1, 0, 0, 1)")
    path = write(tmp_path, text, ".bifxml" if ext == ".xml" else ext)
    assert read_network(path) == EXPECTED
    theirs = gum.loadBN(str(path))
    for v in EXPECTED.variables:
        table = theirs.cpt(v)
        names = list(reversed(table.names))  # pyAgrum's array view: its last variable first
        axes = [*EXPECTED.parents[v], v]
        assert sorted(names) == sorted(axes)
        np.testing.assert_array_equal(np.transpose(table.toarray(), [names.index(a) for a in axes]), EXPECTED.cpts[v])


@pytest.mark.parametrize("ext, reader", [(".net", "NETReader"), (".xdsl", "XDSLReader"), (".xml", "XMLBIFReader")])
def test_hand_made_files_agree_with_pgmpy(tmp_path, ext, reader):
    """pgmpy's own readers (a second implementation of each convention) give the same tables."""
    import pgmpy.readwrite

    from prunelab import from_pgmpy

    text = GOOD[ext]
    if ext == ".net":  # pgmpy's parser takes neither comments nor a 'discrete' prefix
        text = re.sub(r'%[^\n"]*$', "", text, flags=re.MULTILINE).replace("discrete node", "node")
    if ext == ".xdsl":  # nor deterministic nodes, nor a line break between numbers
        text = _without_deterministic(text).replace("0.75\n        0 1", "0.75 0 1")
    path = write(tmp_path, text, ext)
    theirs = from_pgmpy(getattr(pgmpy.readwrite, reader)(str(path)).get_model())
    assert read_network(path) == theirs


def test_pyagrum_reads_genie_xdsl_parents_in_reverse(tmp_path):
    """Why read_xdsl does not follow pyAgrum: pyAgrum reads GeNIe's table of C with A fastest."""
    gum = pytest.importorskip("pyagrum")
    text = _without_deterministic(XDSL).replace("A &amp; friends", "A")  # pyAgrum renames nodes to <name>
    net = gum.loadBN(str(write(tmp_path, text, ".xdsl")))  # kept: the table below is a view into it
    names = list(reversed(net.cpt("C").names))
    table = np.transpose(net.cpt("C").toarray(), [names.index(a) for a in ("A", "B", "C")])
    assert table[0, 1].tolist() == [0.25, 0.75]  # the third row of the file: pyAgrum counts A fastest
    assert EXPECTED.cpts["C"][0, 1].tolist() == [0.5, 0.5]  # GeNIe (and read_xdsl): the second row
    assert read_xdsl(write(tmp_path, XDSL, ".xdsl")) == EXPECTED


def _without_deterministic(xdsl):
    """The hand-made ``.xdsl`` with D as a ``<cpt>`` (pgmpy and pyAgrum read no ``<deterministic>`` node)."""
    return xdsl.replace('<deterministic id="D">', '<cpt id="D">').replace(
        "<resultingstates>d0 d1</resultingstates>\n    </deterministic>",
        "<probabilities>1 0 0 1</probabilities>\n    </cpt>")


@pytest.mark.parametrize("name", ["asia", "alarm", "barley"])
@pytest.mark.parametrize("fmt", ["net", "dsl", "xdsl", "bifxml", "uai", "bif"])
def test_pgmpy_networks_written_by_pyagrum(tmp_path, name, fmt):
    """barley: 67 states in one variable, a CPT of 40,320 entries. The tolerance is what pyAgrum prints."""
    gum = pytest.importorskip("pyagrum")

    from prunelab.lab.peers.convert import to_pyagrum

    bn = read_bif(pgmpy_example_path(name), name=name, normalize=True)
    result = check_formats.check_one(gum, to_pyagrum, read_network, bn, fmt, tmp_path)
    assert not isinstance(result, str), result


# ----------------------------------------------------------------- read_network

def test_read_network_chooses_by_extension(tmp_path):
    bif = pgmpy_example_path("asia")
    assert read_network(bif) == read_bif(bif)
    uai = write_uai(EXPECTED, tmp_path / "toy.uai")
    assert read_network(uai) == read_uai(uai) == EXPECTED
    plain = tmp_path / "asia.BIF"
    plain.write_bytes(gzip.decompress(bif.read_bytes()))
    assert read_network(plain) == read_bif(bif)
    assert set(READERS) == {".bif", ".uai", ".net", ".dne", ".dsl", ".xdsl", ".xml", ".bifxml", ".xmlbif"}


@pytest.mark.parametrize("name", ["toy.txt", "toy", "toy.gz", "toy.net.zip", "toy.hugin"])
def test_read_network_refuses_an_unknown_extension_naming_the_known(tmp_path, name):
    path = write(tmp_path, NET, "", name)
    with pytest.raises(FileFormatError, match=r"unknown network file extension .*; supported: \.bif, \.uai, \.net, "
                                              r"\.dne, \.dsl, \.xdsl, \.xml, \.bifxml, \.xmlbif"):
        read_network(path)


# ----------------------------------------------------------------- hostile input

# (extension, old, new, error, message, needle: the line the message names; None for the end of the file)
HOSTILE = [
    # Hugin
    (".net", "potential (C | A B)", "potential (C | A E)", FileFormatError,
     r"potential names undeclared node 'E'", "potential (C | A E)"),
    (".net", "potential (C | A B)", "potential (C | A A)", FileFormatError,
     r"potential of 'C' lists parent 'A' twice", "potential (C | A A)"),
    (".net", "( 0.5 0.5 )", "( 0.5 0.6 )", NetworkError,
     r"CPT of 'C' does not sum to 1 given A=a0, B=b1: sum is 1.1", "potential (C"),
    (".net", "( 0.5 0.5 )", "( 1.5 -0.5 )", FileFormatError,
     r"'C': expected a probability, found the negative number '-0.5'", "-0.5"),
    (".net", "node D\n{", "node C\n{", FileFormatError, r"node 'C' declared twice \(first at line \d+\)", "node C\n{\n    states = (\"d0\""),
    (".net", '("b0" "b1" "b2")', '("b0" "b1" "b0")', FileFormatError, r"node 'B' lists state 'b0' twice", '"b0")'),
    (".net", "potential (A)\n{\n    data = ( 0.25 0.75 );", "potential (A | D)\n{\n    data = ((0.25 0.75) (1 0));",
     NetworkError, r"the graph has a cycle: C -> D -> A -> C", "potential (C | A B)"),
    (".net", "( 0.5 0.25 0.25 )", "( 0.5 0.5 )", FileFormatError, r"'B': the table has 2 entries, expected 3", "( 0.5 0.5 )"),
    (".net", "( 0.5 0.5 )", "( 0.5 0.25 0.25 )", FileFormatError,
     r"'C': the group A=a0, B=b1 has more than 2 entries", "0.25 0.25 )\n"),
    (".net", "( 0.25 0.75 ))", "( 0.25 0.75 )( 0.25 0.75 ))", FileFormatError,
     r"'C': the group A=a0 has more than 3 entries", "( 0.25 0.75 )( 0.25"),
    (".net", "data = ( 1 0 0 1 );", "data = ( 1 0 (0 1) );", FileFormatError,
     r"'D': a group nested deeper than the first entry", "(0 1)"),
    (".net", "0.25 0.75 );", "nan 0.75 );", FileFormatError, r"'A': expected a probability, found 'nan'", "nan"),
    (".net", "node D\n{", "utility D\n{", FileFormatError, r"only discrete chance nodes are supported, found utility",
     "utility D"),
    (".net", "potential (D | C)\n{\n    data = ( 1 0 0 1 );\n}\n", "", FileFormatError,
     r"no probability table for variable\(s\) \['D'\]", False),
    (".net", '("d0" "d1")', '("d0" "d1)', FileFormatError, r"a string that is never closed", '"d1)'),
    (".net", "data = ( 1 0 0 1 );", "model_nodes = ();", FileFormatError,
     r"potential of 'D' is given by an expression", "potential (D"),
    # Netica
    (".dne", "parents = (A, B);", "parents = (A, E);", FileFormatError, r"node 'C' has unknown parent 'E'", "E);"),
    (".dne", "(0.5,   0.5),", "(0.5,   0.6),", NetworkError,
     r"CPT of 'C' does not sum to 1 given A=a0, B=b1", "parents = (A, B)"),
    (".dne", "(0.5,   0.5),", "(1.5,   -0.5),", FileFormatError,
     r"'C': expected a probability, found the negative number '-0.5'", "-0.5"),
    (".dne", "node D {", "node A {", FileFormatError, r"node 'A' declared twice \(first at line \d+\)", "node A {\n\tkind = NATURE;\n\tdiscrete = TRUE;\n\tchance = DETERMIN"),
    (".dne", "states = (b0, b1, b2);", "states = (b0, b1, b1);", FileFormatError, r"node 'B' lists state 'b1' twice",
     "b1);"),
    (".dne", "parents = ();\n\tprobs = (0.25, 0.75);", "parents = (D);\n\tprobs = ((0.25, 0.75), (1, 0));",
     NetworkError, r"the graph has a cycle: D -> A -> C -> D", "parents = (C)"),
    (".dne", "probs = (0.5, 0.25, 0.25);", "probs = (0.5, 0.5);", FileFormatError,
     r"'B': the table has 2 entries, expected 3", "0.5);"),
    (".dne", "numstates = 3;", "numstates = 4;", FileFormatError, r"node 'B' has numstates = 4 but lists 3 states",
     "(b0, b1, b2)"),
    (".dne", "functable = (d0, d1);", "functable = (d0, d2);", FileFormatError,
     r"'D': unknown state 'd2' of 'D'", "d2)"),
    (".dne", "kind = NATURE;\n\tdiscrete = TRUE;\n\tchance = DETERMIN;", "kind = DECISION;\n\tdiscrete = TRUE;",
     FileFormatError, r"node 'D' is kind = DECISION; only nature \(chance\) nodes are supported", "DECISION"),
    (".dne", "functable = (d0, d1);", "title = \"no table\";", FileFormatError,
     r"node 'D' has neither 'probs' nor 'functable'", "node D"),
    # GeNIe text
    (".dsl", "PARENTS = (A, B);", "PARENTS = (A, E);", FileFormatError, r"node 'C' has unknown parent 'E'", "E);"),
    (".dsl", "0.5, 0.5, 0.25", "0.5, 0.6, 0.25", NetworkError, r"CPT of 'C' does not sum to 1 given A=a0, B=b1",
     "PARENTS = (A, B)"),
    (".dsl", "0.5, 0.5, 0.25", "1.5, -0.5, 0.25", FileFormatError,
     r"'C': expected a probability, found the negative number '-0.5'", "-0.5"),
    (".dsl", " node D", " node A", FileFormatError, r"node 'A' declared twice \(first at line \d+\)", "node A\n  {\n   TYPE = TRUTHTABLE"),
    (".dsl", "(b0, b1, b2)", "(b0, b1, b0)", FileFormatError, r"node 'B' lists state 'b0' twice", "b0); PROB"),
    (".dsl", "PARENTS = ();\n   DEFINITION =\n    {\n     NAMESTATES = (a0, a1);\n     PROBABILITIES = (0.25, 0.75);",
     "PARENTS = (D);\n   DEFINITION =\n    {\n     NAMESTATES = (a0, a1);\n     PROBABILITIES = (0.25, 0.75, 1, 0);",
     NetworkError, r"the graph has a cycle: C -> D -> A -> C", "PARENTS = (A, B)"),
    (".dsl", "0.75, 0.25);", "0.75);", FileFormatError, r"'C': the table has 11 entries, expected 12",
     "0.875, 0.75);"),
    (".dsl", "TYPE = TRUTHTABLE;", "TYPE = NOISY_MAX;", FileFormatError,
     r"node 'D' has TYPE = NOISY_MAX; only CPT and TRUTHTABLE nodes are supported", "NOISY_MAX"),
    # GeNIe XML
    (".xdsl", "<parents>A B</parents>", "<parents>A E</parents>", FileFormatError,
     r"<parents>: 'C' has unknown parent 'E'", "<parents>A E"),
    (".xdsl", "1 0 0.5 0.5", "1 0 0.5 0.6", NetworkError, r"CPT of 'C' does not sum to 1 given A=a0, B=b1",
     "<parents>A B"),
    (".xdsl", "0 1 0.125 0.875", "0 1 0.125 -0.875", FileFormatError,
     r"<probabilities>: 'C': expected a probability, found the negative number '-0.875'", "0 1 0.125"),
    (".xdsl", '<deterministic id="D">', '<deterministic id="A">', FileFormatError,
     r"<deterministic id='A'>: node 'A' declared twice \(first at line \d+\)", '<deterministic id="A">'),
    (".xdsl", '<state id="b2" />', '<state id="b1" />', FileFormatError,
     r"<state id='b1'>: node 'B' lists state 'b1' twice", '<state id="b1" />\n      <prob'),
    (".xdsl", "      <probabilities>0.25 0.75</probabilities>", "      <parents>D</parents>\n      "
     "<probabilities>0.25 0.75 1 0</probabilities>", NetworkError, r"the graph has a cycle: C -> D -> A -> C",
     "<parents>A B"),
    (".xdsl", "0.75 0.25</probabilities>", "0.75</probabilities>", FileFormatError,
     r"<probabilities>: 'C': 11 numbers, expected 12", "<probabilities>1 0 0.5"),
    (".xdsl", "<resultingstates>d0 d1</resultingstates>", "<resultingstates>d0 d2</resultingstates>",
     FileFormatError, r"<resultingstates>: 'D': unknown state 'd2'", "<resultingstates>"),
    (".xdsl", '<cpt id="B">\n      <state id="b0" />\n      <state id="b1" />\n      <state id="b2" />\n'
     '      <probabilities>0.5 0.25 0.25</probabilities>\n    </cpt>',
     '<noisymax id="B">\n      <state id="b0" />\n      <state id="b1" />\n      <state id="b2" />\n'
     '    </noisymax>', FileFormatError,
     r"<noisymax id='B'>: noisy-MAX nodes are not supported", '<noisymax'),
    # BIFXML
    (".xml", "<GIVEN>B</GIVEN>", "<GIVEN>E</GIVEN>", FileFormatError, r"<GIVEN>: 'C' has unknown parent 'E'",
     "<GIVEN>E"),
    (".xml", "0.5 0.5\n", "0.5 0.6\n", NetworkError, r"CPT of 'C' does not sum to 1 given A=a0, B=b1",
     "<DEFINITION>\n  <FOR>C"),
    (".xml", "0.125 0.875", "0.125 -0.875", FileFormatError,
     r"<TABLE>: 'C': expected a probability, found the negative number '-0.875'", "0.125 -0.875"),
    (".xml", "<NAME>D</NAME>", "<NAME>A</NAME>", FileFormatError,
     r"<VARIABLE>: variable 'A' declared twice \(first at line \d+\)", "<VARIABLE TYPE=\"nature\">\n  <NAME>A</NAME>\n  <OUTCOME>d0"),
    (".xml", "<OUTCOME>c1</OUTCOME>", "<OUTCOME>c0</OUTCOME>", FileFormatError,
     r"<OUTCOME>: variable 'C' lists outcome 'c0' twice", "<OUTCOME>c0</OUTCOME>\n</VAR"),
    (".xml", "<FOR>A</FOR>\n  <TABLE>0.25 0.75</TABLE>", "<FOR>A</FOR>\n  <GIVEN>D</GIVEN>\n  <TABLE>0.25 0.75 1 0</TABLE>",
     NetworkError, r"the graph has a cycle: C -> D -> A -> C", "<DEFINITION>\n  <FOR>C"),
    (".xml", "<TABLE>1 0 0 1</TABLE>", "<TABLE>1 0 0</TABLE>", FileFormatError, r"<TABLE>: 'D': 3 numbers, expected 4",
     "<TABLE>1 0 0<"),
    (".xml", "<FOR>D</FOR>", "<FOR>E</FOR>", FileFormatError, r"<FOR>: definition for undeclared variable 'E'",
     "<FOR>E"),
    (".xml", '<VARIABLE TYPE="nature">\n  <NAME>D', '<VARIABLE TYPE="decision">\n  <NAME>D', FileFormatError,
     r"<VARIABLE>: variable 'D' has TYPE='decision'; only nature variables are supported", 'TYPE="decision"'),
    (".xml", "</NETWORK>", "</NETWRK>", FileFormatError, r"not well-formed XML \(mismatched tag\)", "</NETWRK>"),
]


@pytest.mark.parametrize("ext, old, new, error, message, needle", HOSTILE)
def test_hostile_file_names_file_line_and_culprit(tmp_path, ext, old, new, error, message, needle):
    text = GOOD[ext]
    assert old in text
    bad = text.replace(old, new, 1)
    line = r"\d+" if needle is False else line_of(bad, needle)
    where = "" if needle is False else f":{line}"
    with pytest.raises(error, match=rf"toy\{ext}{where}: {message}"):
        read_network(write(tmp_path, bad, ext))


@pytest.mark.parametrize("ext", list(GOOD))
def test_truncated_file(tmp_path, ext):
    text = GOOD[ext]
    cut = text[: len(text) * 2 // 3]
    with pytest.raises(FileFormatError, match=rf"toy\{ext}:\d+: (unexpected end of file|not well-formed XML)"):
        read_network(write(tmp_path, cut, ext))


@pytest.mark.parametrize("ext", list(GOOD))
def test_empty_file(tmp_path, ext):
    with pytest.raises(FileFormatError, match=rf"toy\{ext}(:\d+)?: "):
        read_network(write(tmp_path, "", ext))


@pytest.mark.parametrize("ext", [*GOOD, ".bif", ".uai"])
def test_binary_garbage(tmp_path, ext):
    path = tmp_path / f"toy{ext}"
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(FileFormatError, match=rf"toy\{ext}(:\d+)?: (not UTF-8 text \(.*position 128|not well-formed)"):
        read_network(path)


@pytest.mark.parametrize("ext", list(GOOD))
def test_cpt_above_the_cap_is_refused_before_allocation(tmp_path, ext):
    """A 31-state A and a C with 6 parents of 31 states: 31**6 * 2 > MAX_CPT_ENTRIES, in a file of a few kB."""
    from prunelab.network import MAX_CPT_ENTRIES

    many = [f"s{i}" for i in range(31)]
    states = {"X": many, **{f"P{i}": many for i in range(6)}}
    text = {".net": NET, ".dne": DNE, ".dsl": DSL, ".xdsl": XDSL, ".xml": BIFXML}[ext]
    big = _with_wide_child(ext, text, states)
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError, match=rf"toy\{ext}:\d+: .*CPT of 'X' would have {2 * 31**6} entries "
                                                  rf".*more than MAX_CPT_ENTRIES = {MAX_CPT_ENTRIES}"):
            read_network(write(tmp_path, big, ext))
        assert tracemalloc.get_traced_memory()[1] < 2**22
    finally:
        tracemalloc.stop()


def _with_wide_child(ext, text, states):
    """``text`` with six 31-state roots P0..P5 (declared, tables omitted) and a binary X whose parents they are."""
    roots = [f"P{i}" for i in range(6)]
    names = states["X"]
    if ext == ".net":
        decl = "".join(f"node {p} {{ states = ({' '.join(names)}); }}\n" for p in roots)
        return decl + "node X { states = (x0 x1); }\npotential (X | " + " ".join(roots) + ") { data = (0.5 0.5); }\n"
    if ext == ".dne":
        nodes = "".join(f"node {p} {{ states = ({', '.join(names)}); }};\n" for p in roots)
        return ("bnet big {\nnode X { states = (x0, x1); parents = (" + ", ".join(roots)
                + "); probs = (0.5, 0.5); };\n" + nodes + "};\n")
    if ext == ".dsl":
        nodes = "".join(f"node {p} {{ TYPE = CPT; DEFINITION = {{ NAMESTATES = ({', '.join(names)}); }}; }};\n"
                        for p in roots)
        return ("net big {\nnode X { TYPE = CPT; PARENTS = (" + ", ".join(roots)
                + "); DEFINITION = { NAMESTATES = (x0, x1); PROBABILITIES = (0.5, 0.5); }; };\n" + nodes + "};\n")
    state_xml = "".join(f'<state id="{s}"/>' for s in names)
    if ext == ".xdsl":
        nodes = "".join(f'<cpt id="{p}">{state_xml}</cpt>\n' for p in roots)
        return (f'<smile id="big"><nodes>\n<cpt id="X"><state id="x0"/><state id="x1"/>'
                f'<parents>{" ".join(roots)}</parents>\n<probabilities>0.5 0.5</probabilities></cpt>\n{nodes}'
                "</nodes></smile>")
    outcomes = "".join(f"<OUTCOME>{s}</OUTCOME>" for s in names)
    variables = "".join(f'<VARIABLE TYPE="nature"><NAME>{p}</NAME>{outcomes}</VARIABLE>\n' for p in roots)
    given = "".join(f"<GIVEN>{p}</GIVEN>" for p in roots)
    return (f'<BIF VERSION="0.3"><NETWORK>{variables}<VARIABLE TYPE="nature"><NAME>X</NAME><OUTCOME>x0</OUTCOME>'
            f"<OUTCOME>x1</OUTCOME></VARIABLE>\n<DEFINITION><FOR>X</FOR>{given}<TABLE>0.5 0.5</TABLE></DEFINITION>"
            "</NETWORK></BIF>")


@pytest.mark.parametrize("ext", [*GOOD, ".bif", ".uai"])
def test_gzip_bomb_is_refused_holding_little(tmp_path, monkeypatch, ext):
    import prunelab.io.tokens

    monkeypatch.setattr(prunelab.io.tokens, "MAX_FILE_BYTES", 2**20)
    path = tmp_path / f"bomb{ext}.gz"
    path.write_bytes(gzip.compress(b" " * 2**25, compresslevel=9))  # 32 MiB of spaces in 32 kB
    assert path.stat().st_size < 2**16
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError, match=rf"bomb\{ext}\.gz: decompresses to more than MAX_FILE_BYTES = 1048576"):
            read_network(path)
        assert tracemalloc.get_traced_memory()[1] < 2**22
    finally:
        tracemalloc.stop()


def test_file_above_the_size_cap_is_refused_unread(tmp_path, monkeypatch):
    import prunelab.io.tokens

    monkeypatch.setattr(prunelab.io.tokens, "MAX_FILE_BYTES", 2**16)
    path = write(tmp_path, NET + "%" * 2**16, ".net")
    with pytest.raises(FileFormatError, match=rf"toy\.net: {path.stat().st_size} bytes, more than MAX_FILE_BYTES = 65536"):
        read_network(path)


@pytest.mark.parametrize("ext", [*GOOD, ".bif", ".uai"])
def test_device_and_pipe_are_refused_unread(tmp_path, ext):
    zero = tmp_path / f"zero{ext}"
    zero.symlink_to("/dev/zero")
    with pytest.raises(FileFormatError, match=rf"zero\{ext}: not a regular file"):
        read_network(zero)
    pipe = tmp_path / f"pipe{ext}"
    os.mkfifo(pipe)  # no writer: opening it for reading would wait forever
    with pytest.raises(FileFormatError, match=rf"pipe\{ext}: not a regular file"):
        read_network(pipe)


@pytest.mark.parametrize("ext", [".xdsl", ".xml"])
@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE smile [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>',
    '<!DOCTYPE smile SYSTEM "file:///etc/passwd">',
])
def test_xml_with_a_dtd_or_entity_is_refused(tmp_path, ext, doctype):
    text = GOOD[ext].replace("?>\n", "?>\n" + doctype + "\n", 1)
    with pytest.raises(FileFormatError, match=rf"toy\{ext}:2: a DTD or entity is refused \(none is read\)"):
        read_network(write(tmp_path, text, ext))


def test_xml_entity_hidden_from_the_text_check_is_refused_by_the_parser(tmp_path):
    """A UTF-16 file hides ``<!DOCTYPE`` from the byte search; expat's handler still refuses it."""
    text = XDSL.replace('encoding="UTF-8"', 'encoding="UTF-16"').replace(
        "?>\n", '?>\n<!DOCTYPE smile [<!ENTITY a "x">]>\n', 1)
    path = tmp_path / "toy.xdsl"
    path.write_bytes(text.encode("utf-16"))
    with pytest.raises(FileFormatError, match=r"toy\.xdsl:2: a DTD or entity is refused"):
        read_network(path)


def test_errors_hold_at_every_position_of_a_cut(tmp_path):
    """Every prefix of every hand-made file is refused with a FileFormatError or NetworkError, never another error."""
    for ext, text in GOOD.items():
        for cut in range(0, len(text.rstrip()) - 1, 7):  # the last ';' of a block is optional
            path = write(tmp_path, text[:cut], ext)
            with pytest.raises((FileFormatError, NetworkError)):
                read_network(path)


@pytest.mark.parametrize("ext, text, message", [
    (".net", "net { HR = " + "(" * 5000 + ")" * 5000 + "; }", r"toy\.net:1: parentheses or braces nested more than "
     r"MAX_NESTING = 100 deep"),
    (".dsl", "net toy {\n" + "submodel S {\n" * 5000 + "};\n" * 5000 + "};", r"toy\.dsl:102: submodels nested more "
     r"than MAX_NESTING = 100 deep"),
    (".dne", "bnet toy { node A { states = (a0); probs = " + "(" * 5000 + "1" + ")" * 5000 + "; }; };",
     r"toy\.dne:1: parentheses or braces nested more than MAX_NESTING = 100 deep"),
])
def test_deep_nesting_is_refused_not_recursed(tmp_path, ext, text, message):
    with pytest.raises(FileFormatError, match=message):
        read_network(write(tmp_path, text, ext))


# ---------------------------------------------------------------- line ends: \r, \r\n and \n each end a line
@pytest.mark.parametrize("end", ["\r", "\r\n"])
@pytest.mark.parametrize("ext", list(GOOD))
def test_every_line_end_gives_the_same_network(tmp_path, ext, end):
    """CR-only (classic Mac) and CRLF files: a line comment ends at the line's end, not at the next ``\\n``."""
    assert READER[ext](write(tmp_path, GOOD[ext].replace("\n", end), ext)) == EXPECTED


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_a_comment_in_a_cr_only_file_does_not_swallow_the_rest(tmp_path, end):
    net = ('node A { states = ("a0" "a1"); }\rpotential (A) { data = (0.3 0.7); }\r% second part\r'
           'node B { states = ("b0" "b1"); }\rpotential (B | A) { data = ((1 0) (0 1)); }\r').replace("\r", end)
    bif = ("network n {}\rvariable A { type discrete [ 2 ] { a0, a1 }; }\rprobability ( A ) { table 0.3, 0.7; }\r"
           "// second part\rvariable B { type discrete [ 2 ] { b0, b1 }; }\r"
           "probability ( B | A ) { (a0) 1, 0; (a1) 0, 1; }\r").replace("\r", end)
    assert read_network(write(tmp_path, net, ".net")).variables == ("A", "B")
    assert read_network(write(tmp_path, bif, ".bif")).variables == ("A", "B")


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_a_uai_comment_in_a_cr_only_file_does_not_swallow_the_rest(tmp_path, end):
    bn = BayesianNetwork(states={"A": ["0", "1"], "B": ["0", "1"]}, parents={"A": [], "B": ["A"]},
                         cpts={"A": [0.25, 0.75], "B": [[1, 0], [0.5, 0.5]]})
    path = write_uai(bn, tmp_path / "pair.uai", names=False)
    text = path.read_text().replace("\n", " # a comment\n", 3).replace("\n", end)
    path.write_text(text)
    back = read_uai(path)
    assert [back.cpts[v].tolist() for v in back.variables] == [bn.cpts[v].tolist() for v in bn.variables]


@pytest.mark.parametrize("end", ["\r", "\r\n"])
@pytest.mark.parametrize("ext, old, new, error, message, needle", HOSTILE)
def test_hostile_file_names_the_same_line_whatever_its_line_ends(tmp_path, ext, old, new, error, message, needle,
                                                                   end):
    bad = GOOD[ext].replace(old, new, 1)
    where = "" if needle is False else f":{line_of(bad, needle)}"
    with pytest.raises(error, match=rf"toy\{ext}{where}: {message}"):
        read_network(write(tmp_path, bad.replace("\n", end), ext))


@pytest.mark.parametrize("end", ["\n", "\r", "\r\n"])
def test_bif_errors_name_the_line_whatever_its_line_ends(tmp_path, end):
    bad = GOOD_BIF.replace("(a1) 0.0, 0.0, 1.0;", "(a1) 0.0, 0.0, x;")
    with pytest.raises(FileFormatError, match=rf"toy\.bif:{line_of(bad, 'x;')}: 'B': expected a probability"):
        read_bif(write(tmp_path, bad.replace("\n", end), ".bif"))


# ---------------------------------------------------------------- the .gz suffix in any case
@pytest.mark.parametrize("suffix", [".GZ", ".Gz"])
@pytest.mark.parametrize("ext", [*GOOD, ".bif"])
def test_a_gz_suffix_in_any_case_is_gunzipped(tmp_path, ext, suffix):
    text = GOOD_BIF if ext == ".bif" else GOOD[ext]
    path = tmp_path / f"toy{ext.upper()}{suffix}"
    path.write_bytes(gzip.compress(text.encode()))
    assert read_network(path) == read_network(write(tmp_path, text, ext))


# ---------------------------------------------------------------- files that report no size (procfs, sysfs)
def _reporting_no_size(monkeypatch):
    """``os.fstat`` as procfs answers it: a regular file of size 0, whatever it holds."""
    real = os.fstat

    def fstat(fd):
        info = real(fd)
        return os.stat_result((info.st_mode, *info[1:6], 0, *info[7:]))

    monkeypatch.setattr(os, "fstat", fstat)


@pytest.mark.parametrize("ext", list(GOOD))
def test_a_file_that_reports_size_0_is_read_whole(tmp_path, monkeypatch, ext):
    path = write(tmp_path, GOOD[ext], ext)
    _reporting_no_size(monkeypatch)
    assert READER[ext](path) == EXPECTED


def test_a_file_that_reports_size_0_is_still_capped(tmp_path, monkeypatch):
    import prunelab.io.tokens

    path = write(tmp_path, NET, ".net")
    monkeypatch.setattr(prunelab.io.tokens, "MAX_FILE_BYTES", 100)
    _reporting_no_size(monkeypatch)
    with pytest.raises(FileFormatError, match=r"toy\.net: more than MAX_FILE_BYTES = 100 bytes \(its size was "
                                              r"reported as 0\)"):
        read_net(path)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no procfs")
@pytest.mark.parametrize(("ext", "message"), [
    (".bif", r"x\.bif:1: expected 'network', 'variable' or 'probability', found 'Name:'"),
    (".net", r"x\.net:1: expected 'net', 'node' or 'potential', found 'Name:'"),
    (".xdsl", r"x\.xdsl:1: not well-formed XML \(syntax error\)"),
])
def test_a_proc_file_is_read_and_refused_for_what_it_holds(tmp_path, ext, message):
    path = tmp_path / f"x{ext}"
    path.symlink_to("/proc/self/status")
    with pytest.raises(FileFormatError, match=message):
        read_network(path)


# ---------------------------------------------------------------- long tokens are quoted in part
LONG = 1_000_000


@pytest.mark.parametrize(("ext", "old", "new"), [
    (".net", "node D", "Z" * LONG + "\nnode D"),
    (".dne", "states = (c0, c1);", "states = (c0, c1) " + "Z" * LONG + ";"),
    (".dsl", "NAMESTATES = (c0, c1);", "NAMESTATES = (c0, c1) " + "Z" * LONG + ";"),
    (".xdsl", "<parents>A B</parents>", "<parents>A " + "Q" * LONG + "</parents>"),
    (".xdsl", "0.5 0.25 0.25", "0.5 0.25 " + "7" * LONG),
    (".xdsl", '<state id="b2" />', f'<state id="{"b" * LONG}" /><state id="{"b" * LONG}" />'),
    (".xml", "<GIVEN>B</GIVEN>", "<GIVEN>" + "Q" * LONG + "</GIVEN>"),
    (".xml", "<FOR>D</FOR>", "<FOR>" + "D" * LONG + "</FOR>"),
])
def test_a_long_token_is_quoted_in_part(tmp_path, ext, old, new):
    with pytest.raises((FileFormatError, NetworkError)) as caught:
        read_network(write(tmp_path, GOOD[ext].replace(old, new, 1), ext))
    assert len(str(caught.value)) < 500 and re.search(r"\.\.\. \(1,000,0\d\d characters\)", str(caught.value))


# ---------------------------------------------------------------- a DTD only where it is one
@pytest.mark.parametrize("ext", [".xdsl", ".xml"])
@pytest.mark.parametrize("aside", ["<!-- see <!DOCTYPE docs -->", "<!-- <!ENTITY a 'b'> -->"])
def test_doctype_or_entity_in_a_comment_is_no_dtd(tmp_path, ext, aside):
    assert READER[ext](write(tmp_path, GOOD[ext].replace("?>\n", f"?>\n{aside}\n", 1), ext)) == EXPECTED


def test_doctype_in_cdata_is_no_dtd(tmp_path):
    text = BIFXML.replace("<PROPERTY>position = (10, 20)</PROPERTY>", "<PROPERTY><![CDATA[<!DOCTYPE x>]]></PROPERTY>")
    assert read_bifxml(write(tmp_path, text, ".xml")) == EXPECTED


# ---------------------------------------------------------------- XML: only what is read is built
def _peak_of(read, path) -> int:
    """Python's peak allocation (tracemalloc) while ``read(path)`` runs, above what was held before."""
    tracemalloc.start()
    try:
        read(path)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("ext", [".xdsl", ".xml"])
def test_an_unread_subtree_costs_no_memory(tmp_path, ext):
    """A MiB of empty elements where the reader reads nothing: held at about 1x the file, not 70x."""
    filler = "<a/>" * (2**20 // 4)
    if ext == ".xdsl":
        text = XDSL.replace("<extensions>", "<extensions>" + filler)
    else:
        text = BIFXML.replace("<PROPERTY>position = (10, 20)</PROPERTY>", f"<PROPERTY>{filler}</PROPERTY>")
    path = write(tmp_path, text, ext)
    assert READER[ext](path) == EXPECTED
    assert _peak_of(READER[ext], path) < 3 * path.stat().st_size


def test_a_large_table_is_held_as_floats_not_words(tmp_path):
    """200,000 numbers in a 1 MB file: about 8x the file (its bytes, its text, float64 tables 1.6x the file, the
    network's copy), not a list of (word, line) pairs (40x)."""
    parents = "".join(f'<cpt id="P{i}">' + "".join(f'<state id="s{j}"/>' for j in range(10))
                      + f'<probabilities>{" ".join(["0.1"] * 10)}</probabilities></cpt>\n' for i in range(5))
    rows = "\n".join(" ".join(["0.25", "0.75"] * 10) for _ in range(10_000))
    text = (f'<smile id="big"><nodes>\n{parents}<cpt id="C"><state id="c0"/><state id="c1"/>'
            f"<parents>P0 P1 P2 P3 P4</parents><probabilities>{rows}</probabilities></cpt>\n</nodes></smile>\n")
    path = write(tmp_path, text, ".xdsl")
    assert read_xdsl(path).cpts["C"].shape == (10,) * 5 + (2,)
    assert _peak_of(read_xdsl, path) < 10 * path.stat().st_size


@pytest.mark.parametrize("ext", [".xdsl", ".xml"])
def test_elements_nested_past_the_cap_are_refused_not_held(tmp_path, ext):
    deep = "<a>" * 5000 + "</a>" * 5000
    if ext == ".xdsl":
        text = XDSL.replace("<extensions>", "<extensions>\n" + deep)
    else:
        text = BIFXML.replace("<PROPERTY>position = (10, 20)</PROPERTY>", f"<PROPERTY>\n{deep}</PROPERTY>")
    with pytest.raises(FileFormatError, match=rf"toy\{ext}:{line_of(text, deep)}: elements nested more than "
                                              "MAX_NESTING = 100 deep"):
        READER[ext](write(tmp_path, text, ext))


def test_an_unknown_node_is_refused_as_it_starts(tmp_path):
    text = XDSL.replace("<nodes>", "<nodes>\n<equation id='E'>" + "<x/>" * 100_000 + "</equation>")
    path = write(tmp_path, text, ".xdsl")
    with pytest.raises(FileFormatError, match=r"toy\.xdsl:5: <equation id='E'>: equation nodes are not supported"):
        read_xdsl(path)
    assert _peak_of(lambda p: pytest.raises(FileFormatError, read_xdsl, p), path) < 3 * path.stat().st_size
