"""``write_uai``: the tables in the UAI format's order, read back equal by us; pyAgrum's reader orders parents otherwise.

The UAI format lists each function's table in the order of its scope as written in
the preamble, the last variable varying fastest; a CPT's child is the last variable
of its scope. pyAgrum (3.x) reads, and writes, the parents of a CPT the other way
round: the first parent of the scope varies fastest after the child. Both agree on
tables with at most one parent, so the two sides differ only on a many-parent table.
pyAgrum's reader also rounds every number to single precision (float32).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from prunelab import NETWORKS, BayesianNetwork, load_network, probability_of_evidence, random_evidence, read_uai
from prunelab import write_uai


def _many_parents() -> BayesianNetwork:
    """``d`` with three parents of cardinalities 2, 3, 4 (and 3 states): every row of its table different."""
    rng = np.random.default_rng(20261202)
    states = {"a": ("a0", "a1"), "b": ("b0", "b1", "b2"), "c": ("c0", "c1", "c2", "c3"), "d": ("d0", "d1", "d2")}
    parents = {"a": (), "b": ("a",), "c": (), "d": ("a", "b", "c")}
    cpts = {}
    for v, ps in parents.items():
        table = rng.random((*(len(states[p]) for p in ps), len(states[v]))) + 0.1
        cpts[v] = table / table.sum(axis=-1, keepdims=True)
    return BayesianNetwork(states, parents, cpts, name="many_parents")


def _joint(bn: BayesianNetwork, cpt_of) -> np.ndarray:
    """The joint distribution by enumeration, with ``cpt_of(v)`` the table of ``v`` (parents..., child)."""
    cards = [len(bn.states[v]) for v in bn.variables]
    joint = np.ones(cards)
    for x in itertools.product(*map(range, cards)):
        for v in bn.variables:
            joint[x] *= cpt_of(v)[tuple(x[bn.index(p)] for p in (*bn.parents[v], v))]
    return joint


def _p_evidence(bn: BayesianNetwork, joint: np.ndarray, evidence: dict) -> float:
    index = tuple(bn.states[v].index(evidence[v]) if v in evidence else slice(None) for v in bn.variables)
    return float(joint[index].sum())


EVIDENCE = {"b": "b2", "d": "d1"}


@pytest.mark.parametrize("name", NETWORKS)
def test_write_then_read_gives_every_network_back(name, tmp_path):
    bn = load_network(name)
    back = read_uai(write_uai(bn, tmp_path / f"{name}.uai"))
    assert back == bn
    evidence = random_evidence(bn, 0.25, seed=np.random.SeedSequence(31))
    assert math.isclose(probability_of_evidence(back, evidence), probability_of_evidence(bn, evidence), rel_tol=1e-12)


def test_a_many_parent_table_is_written_in_scope_order_last_variable_fastest(tmp_path):
    bn = _many_parents()
    path = write_uai(bn, tmp_path / "many.uai", names=False)
    tokens = path.read_text().split()
    n = int(tokens[1])
    scopes, at = [], 3 + n
    for _ in range(int(tokens[2 + n])):
        size = int(tokens[at])
        scopes.append([int(t) for t in tokens[at + 1:at + 1 + size]])
        at += 1 + size
    d = bn.index("d")
    assert scopes[d] == [bn.index("a"), bn.index("b"), bn.index("c"), d]  # parents as listed, the child last
    for _ in range(d):  # the tables before d's
        at += 1 + int(tokens[at])
    assert int(tokens[at]) == 2 * 3 * 4 * 3
    values = [float(t) for t in tokens[at + 1:at + 1 + 72]]
    expected = [bn.cpts["d"][a, b, c, x] for a in range(2) for b in range(3) for c in range(4) for x in range(3)]
    assert values == expected  # the spec's order spelled out: a slowest, then b, c, and d fastest


def test_a_many_parent_network_reads_back_with_its_probability_of_evidence(tmp_path):
    bn = _many_parents()
    back = read_uai(write_uai(bn, tmp_path / "many.uai"))
    assert back == bn
    exact = _p_evidence(bn, _joint(bn, lambda v: bn.cpts[v]), EVIDENCE)
    assert math.isclose(probability_of_evidence(back, EVIDENCE), exact, rel_tol=1e-12)


def _pyagrum_read(path):
    gum = pytest.importorskip("pyagrum")
    return gum, gum.loadBN(str(path))


def _pyagrum_table(g, bn: BayesianNetwork, v: str) -> np.ndarray:
    """pyAgrum's CPT of ``v`` as an array (parents in ``bn``'s order..., child), read entry by entry."""
    scope = (*bn.parents[v], v)
    table = np.empty([len(bn.states[u]) for u in scope])
    cpt = g.cpt(str(bn.index(v)))
    for x in itertools.product(*map(range, table.shape)):
        table[x] = cpt[{str(bn.index(u)): k for u, k in zip(scope, x)}]
    return table


def _single(table: np.ndarray) -> np.ndarray:
    """``table`` rounded to single precision, as pyAgrum's UAI reader parses every number."""
    return table.astype(np.float32).astype(np.float64)


def test_pyagrum_reads_tables_of_at_most_one_parent_as_written_in_single_precision(tmp_path):
    bn = load_network("alarm")
    gum, g = _pyagrum_read(write_uai(bn, tmp_path / "alarm.uai", names=False))
    few = [v for v in bn.variables if len(bn.parents[v]) <= 1]
    assert len(few) > 10
    for v in few:
        np.testing.assert_array_equal(_pyagrum_table(g, bn, v), _single(bn.cpts[v]), err_msg=v)


def test_pyagrum_reads_a_many_parent_table_with_its_parents_reversed(tmp_path):
    # pyAgrum's UAI reader takes the first parent of a scope as the fastest after the child, against the
    # format (last variable fastest): its table is ours with the parent axes in the reverse order. Our
    # reader and writer follow the format (the test above spells its order out); the published P(e) of
    # friends-and-smokers fs-04 (2^-16) is what ours gives, and pyAgrum gives 1.0133e-06 from our file.
    bn = _many_parents()
    gum, g = _pyagrum_read(write_uai(bn, tmp_path / "many.uai", names=False))
    d = bn.cpts["d"]
    flat = d.ravel()  # the file's table, in the format's order
    # pyAgrum: row index a + 2 b + 6 c (first parent fastest), child fastest within a row
    as_pyagrum_reads = np.empty_like(d)
    for a, b, c in itertools.product(range(2), range(3), range(4)):
        row = a + 2 * b + 6 * c
        as_pyagrum_reads[a, b, c] = flat[3 * row:3 * row + 3]
    np.testing.assert_array_equal(_pyagrum_table(g, bn, "d"), _single(as_pyagrum_reads))
    assert not np.allclose(as_pyagrum_reads, d)
    ie = gum.LazyPropagation(g)
    ie.setEvidence({str(bn.index(v)): bn.states[v].index(s) for v, s in EVIDENCE.items()})
    ie.makeInference()
    misread = _p_evidence(bn, _joint(bn, lambda v: _single(as_pyagrum_reads if v == "d" else bn.cpts[v])),
                          EVIDENCE)
    assert math.isclose(ie.evidenceProbability(), misread, rel_tol=1e-9)
    assert not math.isclose(misread, probability_of_evidence(bn, EVIDENCE), rel_tol=1e-3)


@pytest.mark.parametrize("suffix", [".uai.gz", ".uai.GZ"])
def test_a_gz_suffix_in_any_case_is_written_gzipped_and_read_back(tmp_path, suffix):
    """The writer and the reader decide by one rule (the reader gunzips ``.GZ`` too)."""
    bn = load_network("asia")
    path = write_uai(bn, tmp_path / f"asia{suffix}")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    back = read_uai(path)
    assert back.variables == bn.variables
    for v in bn.variables:
        np.testing.assert_array_equal(back.cpts[v], bn.cpts[v])
