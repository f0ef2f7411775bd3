"""Ace evidence files (``.inst``): read, bounded, refused by name; met with the benchmark networks they go with."""

import gzip
from pathlib import Path

import pytest

from prunelab import EvidenceError, FileFormatError, read_instantiation, read_network
from prunelab.exact import probability_of_evidence
from prunelab.io import tokens

DATA = Path(__file__).parent / "data"

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def write(tmp_path, text: str, name: str = "e.inst") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------- published answers
@pytest.mark.parametrize(("network", "evidence", "answer", "rel"), [
    ("or-50-10-3.dne", "or-50-10-3-40.inst", 2.69472e-07, 2e-6),  # published to 6 digits
    ("fs-01.net", "fs-01.inst", 0.5, 0.0),
])
def test_an_evidence_file_met_with_its_network_gives_the_published_p_of_e(network, evidence, answer, rel):
    bn = read_network(DATA / network)
    e = read_instantiation(DATA / evidence)
    assert len(e) == {"or-50-10-3-40.inst": 64, "fs-01.inst": 7}[evidence]
    assert probability_of_evidence(bn, e, method="junction_tree") == pytest.approx(answer, rel=rel, abs=0)


def test_the_dqmr_file_is_read_in_order_with_its_states():
    e = read_instantiation(DATA / "or-50-10-3-40.inst")
    assert list(e.items())[:3] == [("c_3", "true"), ("c_23", "true"), ("c_49", "true")]
    assert set(e.values()) == {"true", "false"}


def test_an_ace_file_without_inst_is_no_evidence():
    assert read_instantiation(DATA / "blockmap_05_01-0000.inst") == {}


def test_a_gzipped_file_is_read(tmp_path):
    path = tmp_path / "e.inst.gz"
    path.write_bytes(gzip.compress((HEAD + '<instantiation><inst id="A" value="a1"/></instantiation>').encode()))
    assert read_instantiation(path) == {"A": "a1"}


# ---------------------------------------------------------------- meeting a network
def test_an_unknown_variable_is_refused_by_name_when_the_evidence_meets_the_network(tmp_path):
    bn = read_network(DATA / "fs-01.net")
    e = read_instantiation(write(tmp_path, '<instantiation><inst id="smokesIo9I" value="true"/></instantiation>'))
    with pytest.raises(EvidenceError, match=r"evidence names unknown variable 'smokesIo9I'; variables are"):
        probability_of_evidence(bn, e, method="junction_tree")


def test_an_unknown_state_is_refused_by_name_when_the_evidence_meets_the_network(tmp_path):
    bn = read_network(DATA / "fs-01.net")
    e = read_instantiation(write(tmp_path, '<instantiation><inst id="wclause3Io1I" value="TRUE"/></instantiation>'))
    with pytest.raises(EvidenceError, match=r"unknown state 'TRUE' of variable 'wclause3Io1I'; states are "
                                            r"\['false', 'true'\]"):
        probability_of_evidence(bn, e, method="junction_tree")


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize(("body", "message"), [
    ('<inst id="A" value="a"/>\n<inst id="A" value="a"/>', r"e\.inst:3: <inst id='A'>: variable 'A' given twice "
                                                         r"\(first at line 2\)"),
    ('<inst id="A" value="a"/>\n<inst value="b"/>', r"e\.inst:3: <inst>: an <inst> without an id"),
    ('<inst id="" value="b"/>', r"e\.inst:2: <inst id=''>: an <inst> without an id"),
    ('<inst id="A"/>', r"e\.inst:2: <inst id='A'>: variable 'A' has no value"),
    ('<inst id="A" value=""/>', r"e\.inst:2: <inst id='A'>: variable 'A' has no value"),
    ('<evidence id="A" value="a"/>', r"e\.inst:2: <evidence id='A'>: expected an <inst id=\.\.\. value=\.\.\.>"),
])
def test_a_bad_inst_is_refused_naming_the_file_line_and_element(tmp_path, body, message):
    path = write(tmp_path, f"<instantiation>\n{body}\n</instantiation>\n")
    with pytest.raises(FileFormatError, match=message):
        read_instantiation(path)


def test_another_document_element_is_refused(tmp_path):
    with pytest.raises(FileFormatError, match=r"e\.inst:2: <smile>: expected the document element <instantiation>"):
        read_instantiation(write(tmp_path, HEAD + "<smile/>"))


def test_an_entity_is_refused_unexpanded(tmp_path):
    text = HEAD + '<!DOCTYPE i [<!ENTITY a "aaaa">]>\n<instantiation><inst id="A" value="&a;"/></instantiation>'
    with pytest.raises(FileFormatError, match=r"e\.inst:2: .*is refused"):
        read_instantiation(write(tmp_path, text))


def test_xml_that_is_not_well_formed_is_refused_with_its_line(tmp_path):
    with pytest.raises(FileFormatError, match=r"e\.inst:3: not well-formed XML"):
        read_instantiation(write(tmp_path, '<instantiation>\n<inst id="A" value="a"/>\n<inst id="B"\n'))


def test_a_file_over_the_cap_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(tokens, "MAX_FILE_BYTES", 100)
    path = write(tmp_path, '<instantiation>' + '<inst id="A" value="a"/>' * 10 + '</instantiation>')
    with pytest.raises(FileFormatError, match=r"e\.inst: 271 bytes, more than MAX_FILE_BYTES = 100"):
        read_instantiation(path)
