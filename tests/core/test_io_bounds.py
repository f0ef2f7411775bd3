"""Readers with bounds (size caps, regular files only, short quotes of bad tokens) and UAI sidecars that cannot go stale."""

import gzip
import hashlib
import json
import tracemalloc
import os

import pytest

from prunelab import (
    BayesianNetwork, FileFormatError, NetworkError, load_network, read_bif, read_network, read_uai, write_uai,
)
from prunelab.io import tokens
from prunelab.io.tokens import MAX_FILE_BYTES
from tests.helpers import GOOD_BIF



# ---------------------------------------------------------------- UAI sidecars and .uai.gz
def test_a_sidecar_left_by_another_write_is_not_read_as_this_files_names(tmp_path):
    path = tmp_path / "net.uai"
    asia, pair = load_network("asia"), load_network("deterministic_pair")
    write_uai(asia, path)
    write_uai(pair, path, names=False)  # asia's sidecar would name the pair's tables
    assert not (tmp_path / "net.uai.names.json").exists()
    back = read_uai(path)
    assert back.variables == ("v0", "v1") and [list(back.cpts[v].ravel()) for v in back.variables] == [
        list(pair.cpts[v].ravel()) for v in pair.variables]


def test_a_sidecar_for_another_version_of_the_file_is_refused(tmp_path):
    path = tmp_path / "net.uai"
    write_uai(load_network("asia"), path)
    side = (tmp_path / "net.uai.names.json").read_bytes()
    write_uai(load_network("blood_pressure"), path)
    (tmp_path / "net.uai.names.json").write_bytes(side)  # e.g. copied back from elsewhere
    with pytest.raises(FileFormatError, match=r"net\.uai\.names\.json: this names sidecar was written for another"):
        read_uai(path)


def test_write_uai_gz_writes_gzip_that_read_uai_reads(tmp_path):
    bn = load_network("asia")
    path = write_uai(bn, tmp_path / "asia.uai.gz")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(path.read_bytes()).startswith(b"BAYES\n")
    assert read_uai(path) == bn
    assert sorted(p.name for p in tmp_path.iterdir()) == ["asia.uai.gz", "asia.uai.gz.names.json"]  # no .tmp left


@pytest.mark.parametrize("name", [5, None, b"asia", ("a",)])
def test_a_network_name_that_is_not_a_string_is_refused_when_made(name):
    with pytest.raises(NetworkError, match="name must be a string"):
        BayesianNetwork(states={"A": ["0", "1"]}, parents={}, cpts={"A": [0.5, 0.5]}, name=name)


# ---------------------------------------------------------------- bounds on what is read
def test_a_gzip_bomb_is_refused_before_it_is_unpacked(tmp_path, monkeypatch):
    monkeypatch.setattr(tokens, "MAX_FILE_BYTES", 1 << 20)  # the same code path as the 256 MiB cap, in 1 MiB
    path = tmp_path / "bomb.bif.gz"
    path.write_bytes(gzip.compress(b"network x {}\n" + b"9" * (2 << 20)))
    assert path.stat().st_size < 10_000
    with pytest.raises(FileFormatError, match=r"bomb\.bif\.gz: decompresses to more than MAX_FILE_BYTES = 1048576 bytes"):
        read_bif(path)
    plain = tmp_path / "big.uai"
    plain.write_bytes(b"BAYES\n" + b" " * (2 << 20))
    with pytest.raises(FileFormatError, match=r"big\.uai: 2097158 bytes, more than MAX_FILE_BYTES = 1048576"):
        read_uai(plain)
    assert MAX_FILE_BYTES == 256 * 2**20  # the real cap is untouched by the patch


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_not_read():
    with pytest.raises(FileFormatError, match=r"/dev/zero: not a regular file"):
        read_bif("/dev/zero")


def test_a_fifo_is_not_read(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    fifo = tmp_path / "net.uai"
    os.mkfifo(fifo)
    with pytest.raises(FileFormatError, match="not a regular file"):
        read_uai(fifo)  # opening a pipe with no writer would block: refused before


@pytest.mark.parametrize("reader,text", [
    (read_bif, GOOD_BIF.replace("table 0.25, 0.75;", "table 0.25, 0." + "7" * 100_000 + "x;")),
    (read_uai, "BAYES\n1\n2\n1\n1 0\n2\n0.5 " + "q" * 100_000 + "\n"),
    (read_bif, "network x {}\n" + "v" * 100_000 + " {}\n"),
])
def test_an_error_quotes_a_short_excerpt_of_a_long_bad_token(tmp_path, reader, text):
    path = tmp_path / ("net.bif" if reader is read_bif else "net.uai")
    path.write_text(text)
    with pytest.raises(FileFormatError) as info:
        reader(path)
    message = str(info.value)
    assert len(message) < 400 and "characters)" in message and str(path) in message


def test_a_short_token_is_quoted_whole(tmp_path):
    path = tmp_path / "net.uai"
    path.write_text("BAYES\n1\n2\n1\n1 0\n2\n0.5 abc\n")
    with pytest.raises(FileFormatError, match=r"net\.uai:7: .*'abc'$"):
        read_uai(path)


def test_uai_sidecar_records_the_files_hash(tmp_path):
    path = write_uai(load_network("deterministic_pair"), tmp_path / "pair.uai")
    meta = json.loads((tmp_path / "pair.uai.names.json").read_text())
    assert meta["uai_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_semicolon_inside_a_quoted_property_is_part_of_the_property(tmp_path):
    path = tmp_path / "net.bif"
    path.write_text(GOOD_BIF.replace("property weight = 7 ;", 'property label = "systolic; mmHg" ;')
                    .replace("network toy {\n}", 'network toy {\n  property note = "a; b; {c}" ;\n}'))
    bn = read_bif(path)
    assert bn.states["B"] == ("b0", "b1", "b2") and bn.cpts["B"][1].tolist() == [0.0, 0.0, 1.0]


# ---------------------------------------------------------------- the network's tables capped as a whole
def _amplifying_bif(children: int) -> str:
    """Two 14-state parents and ``children`` binary children filled by one ``default`` row each (392 entries each)."""
    states = ", ".join(f"s{j}" for j in range(14))
    lines = ["network amp {}"] + [f"variable P{i} {{ type discrete [ 14 ] {{ {states} }}; }}" for i in range(2)]
    lines += [f"variable X{k} {{ type discrete [ 2 ] {{ a, b }}; }}" for k in range(children)]
    lines += [f"probability ( P{i} ) {{ table {', '.join(['0.0625'] * 12 + ['0.125'] * 2)}; }}" for i in range(2)]
    lines += [f"probability ( X{k} | P0, P1 ) {{ default 0.5, 0.5; }}" for k in range(children)]
    return "\n".join(lines) + "\n"


def test_default_rows_past_the_networks_cap_are_refused_before_their_table(tmp_path, monkeypatch):
    from prunelab.io import assemble

    monkeypatch.setattr(assemble, "MAX_NETWORK_ENTRIES", 1000)  # 28 + 2 * 392 = 812 fit, a third child does not
    path = tmp_path / "amp.bif"
    path.write_text(_amplifying_bif(2))
    assert read_bif(path).n_variables == 4
    path.write_text(_amplifying_bif(3))
    with pytest.raises(FileFormatError, match=r"amp\.bif:11: the CPT of 'X2' \(392 entries\) brings the network's "
                                              r"tables to 1,204 entries, more than MAX_NETWORK_ENTRIES = 1000"):
        read_bif(path)


@pytest.mark.parametrize("ext", [".dne", ".dsl", ".xdsl"])
def test_deterministic_tables_past_the_networks_cap_are_refused_before_their_table(tmp_path, monkeypatch, ext):
    """A deterministic child of two 30-state parents with 300 states: 900 codes in the file, 270,000 entries."""
    from prunelab.io import assemble

    monkeypatch.setattr(assemble, "MAX_NETWORK_ENTRIES", 100_000)
    parent = [f"p{j}" for j in range(30)]
    child = [f"c{j}" for j in range(300)]
    codes = [child[j % 300] for j in range(900)]
    uniform = " ".join([str(1 / 30)] * 29 + [str(1 - 29 / 30)])
    if ext == ".dne":
        text = "bnet amp {\n" + "".join(
            f"node P{i} {{ states = ({', '.join(parent)}); probs = ({uniform.replace(' ', ', ')}); }};\n"
            for i in range(2)) + (f"node X {{ states = ({', '.join(child)}); parents = (P0, P1);\n"
                                  f"  functable = ({', '.join(codes)}); }};\n}};\n")
        line = 4
    elif ext == ".dsl":
        text = "net amp {\n" + "".join(
            f"node P{i} {{ TYPE = CPT; DEFINITION = {{ NAMESTATES = ({', '.join(parent)}); "
            f"PROBABILITIES = ({uniform.replace(' ', ', ')}); }}; }};\n" for i in range(2)) + (
            f"node X {{ TYPE = TRUTHTABLE; PARENTS = (P0, P1);\n  DEFINITION = {{ NAMESTATES = ({', '.join(child)}); "
            f"RESULTINGSTATES = ({', '.join(codes)}); }}; }};\n}};\n")
        line = 4
    else:
        states = lambda names: "".join(f'<state id="{s}"/>' for s in names)  # noqa: E731
        text = ('<smile id="amp"><nodes>\n' + "".join(
            f'<cpt id="P{i}">{states(parent)}<probabilities>{uniform}</probabilities></cpt>\n' for i in range(2))
            + f'<deterministic id="X">{states(child)}\n<parents>P0 P1</parents><resultingstates>{" ".join(codes)}'
              "</resultingstates></deterministic>\n</nodes></smile>\n")
        line = 4
    path = tmp_path / f"amp{ext}"
    path.write_text(text)
    with pytest.raises(FileFormatError, match=rf"amp\{ext}:{line}: .*the CPT of 'X' \(270,000 entries\) brings the "
                                              r"network's tables to 270,060 entries, more than MAX_NETWORK_ENTRIES"):
        read_network(path)
    monkeypatch.setattr(assemble, "MAX_NETWORK_ENTRIES", 300_000)
    bn = read_network(path)
    assert bn.cpts["X"].shape == (30, 30, 300) and bn.cpts["X"][3, 5, (3 * 30 + 5) % 300] == 1.0


def test_numstates_past_the_cpt_cap_is_refused_before_any_state_is_named(tmp_path):
    path = tmp_path / "numstates.dne"
    path.write_text("bnet n {\nnode A { kind = NATURE; discrete = TRUE; numstates = 1000000000000; parents = (); "
                    "probs = (1); };\n};\n")
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError, match=r"numstates\.dne:2: .*CPT of 'A' would have 1000000000000 entries"):
            read_network(path)
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()


def test_numstates_is_checked_against_the_table_before_any_state_is_named(tmp_path):
    """Three million states and a table of one number: refused for the table, without naming three million states."""
    path = tmp_path / "numstates.dne"
    path.write_text("bnet n {\nnode A { numstates = 3000000; parents = (); probs = (1); };\n};\n")
    tracemalloc.start()
    try:
        with pytest.raises(FileFormatError, match=r"numstates\.dne:2: 'A': the table has 1 entries, expected 3000000"):
            read_network(path)
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()


def test_numbered_states_name_functable_codes(tmp_path):
    path = tmp_path / "numbered.dne"
    path.write_text("bnet n {\nnode A { numstates = 3; probs = (0.5, 0.25, 0.25); };\n"
                    "node B { numstates = 2; parents = (A); functable = (1, 0, 1); };\n};\n")
    bn = read_network(path)
    assert bn.states["B"] == ("0", "1") and bn.cpts["B"].tolist() == [[0, 1], [1, 0], [0, 1]]
    path.write_text(path.read_text().replace("(1, 0, 1)", "(1, 0, 01)"))
    with pytest.raises(FileFormatError, match=r"numbered\.dne:3: 'B': unknown state '01' of 'B'; states are "
                                              r"\['0', '1'\]"):
        read_network(path)
