"""The trap check of ``sample``, the same for every sampler: near-zero entries trap prune sampling and MC-SAT.

A label with ``c = 2e-6`` survives a pruning with probability ``2e-6``: prune
sampling moves between the states that need it about once in ``5e5`` steps, as
Gibbs is held by an exact zero. Warning false-alarm rates on chains that mix are
measured in ``benchmarks/bench_traps.py`` (0 in 10,000 runs), not here.
"""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import BayesianNetwork, SamplerTrappedWarning, load_evidence, sample
from prunelab.catalogue import pgmpy_example_path
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals
from prunelab.io import read_bif
from prunelab.traps import held_apart, trap_report, trap_seed


def near_zero_pair() -> BayesianNetwork:
    """P(A | B = b1) = [0.25, 0.75, 0]: a0 and a1 each need a near-zero entry of B's table."""
    return BayesianNetwork(
        states={"A": ["a0", "a1", "a2"], "B": ["b0", "b1"]}, parents={"A": [], "B": ["A"]},
        cpts={"A": [.2, .3, .5], "B": [[1 - 1e-6, 1e-6], [1 - 2e-6, 2e-6], [1, 0]]},
    )


@pytest.mark.parametrize("sampler", ["prune", "mc-sat"])
def test_near_zero_entries_trap_prune_and_mcsat_and_the_warning_names_the_variable(sampler):
    bn = near_zero_pair()
    with pytest.warns(SamplerTrappedWarning, match=rf"{sampler} chains look trapped.*held apart on \['A'\]"):
        result = sample(bn, sampler, 5000, n_chains=4, evidence={"B": "b1"}, seed=2)
    assert result.trap.split == ("A",) and result.trap.trapped and result.trap.variables == ("A",)
    # the chains never moved A, and the pooled answer is wrong: what the warning is for
    assert np.all(result.n_changes[:, 0] == 0)
    assert len(set(result.draws[:, 0, 0].tolist())) == 2
    assert result.rhat()["A"] == np.inf


def test_tempering_frees_the_near_zero_pair():
    """prune-tempered moves A and agrees with the exact answer.

    16 independent chains: the mean of their means is t-distributed with 15 degrees
    of freedom around the truth, ``P(|t_15| > 6.5) < 1e-5``.
    """
    bn = near_zero_pair()
    result = sample(bn, "prune-tempered", 2000, n_chains=16, evidence={"B": "b1"}, seed=2)  # no warning (error)
    assert not result.trap.trapped and np.all(result.n_changes[:, 0] > 50)
    exact = exact_marginals(bn, {"B": "b1"})["A"]
    chain_means = (result.draws[:, :, 0] == 0).mean(axis=1)
    assert abs(chain_means.mean() - exact[0]) < 6.5 * chain_means.std(ddof=1) / np.sqrt(result.n_chains)


def test_a_chain_that_leaves_once_a_state_the_others_never_see_is_flagged():
    # munin1 with its frozen evidence: a chain starts with R_LNLW_MED_PATHO at a state the
    # posterior gives ~1e-4, stays there 750 draws, leaves once; the others never see it
    bn = read_bif(pgmpy_example_path("munin1"), name="munin1", normalize=True)
    evidence = load_evidence("munin1")
    with pytest.warns(SamplerTrappedWarning, match=r"held apart on \['R_LNLW_MED_PATHO'\]"):
        result = sample(bn, "prune", 3000, n_chains=4, evidence=evidence, seed=1)
    column = result.draws[:, :, bn.index("R_LNLW_MED_PATHO")]
    assert result.n_changes[:, bn.index("R_LNLW_MED_PATHO")].tolist() == [1, 0, 0, 0]
    exact = exact_marginals(bn, evidence)["R_LNLW_MED_PATHO"]
    assert (column[0] == column[0, 0]).mean() > 0.2 and exact[column[0, 0]] < 1e-3


def test_held_apart_on_forced_columns(rng):
    mixing = rng.integers(0, 3, size=(4, 400))
    assert not held_apart(mixing, mixing[:, 0], 3)
    # one chain held at 2 from the start while the others mix between 0 and 1 only
    held = mixing % 2
    held[3] = 2
    assert held_apart(held, held[:, 0], 3)
    assert not held_apart(held[:, :98], held[:, 0], 3)  # 99 values with the start: too short to judge
    # a rare state that every chain visits is not a split, however long one chain stays
    rare = np.zeros((4, 400), dtype=int)
    rare[:, 5] = 1
    rare[0, 100:300] = 1
    assert not held_apart(rare, rare[:, 0], 2)
    rare[1, 5] = 0
    assert held_apart(rare, rare[:, 0], 2)


def test_a_chain_that_never_moves_counts_in_the_disagreement_test(rng):
    """Three chains mix A in {0, 1}; the fourth sits at 0 throughout: the chain means disagree."""
    bn = BayesianNetwork(states={"A": ["0", "1"]}, parents={}, cpts={"A": [0.5, 0.5]})
    draws = rng.integers(0, 2, size=(4, 500, 1)).astype(np.int8)
    draws[3] = 0
    starts = draws[:, 0, :].astype(np.int64)
    report = trap_report(bn, compile_network(bn), draws, starts, trap_seed(np.random.SeedSequence(0)), False)
    assert report.split == () and report.disagreeing == ("A",) and report.p_values["A"] < 1e-30
    healthy = trap_report(bn, compile_network(bn), draws[:3], starts[:3], trap_seed(np.random.SeedSequence(0)), False)
    assert not healthy.trapped and healthy.p_values["A"] > healthy.threshold


@pytest.mark.parametrize("sampler", ["prune", "mc-sat"])
def test_chains_that_all_start_in_one_state_of_probability_three_quarters_are_flagged(sampler):
    """Every chain at a1 (exact 0.75): they agree, only because none can leave; a third of forward starts do this."""
    bn = near_zero_pair()
    with pytest.warns(SamplerTrappedWarning, match=r"held apart on \['A'\]"):
        result = sample(bn, sampler, 1000, n_chains=4, evidence={"B": "b1"}, init={"A": "a1"}, seed=3)
    assert result.trap.split == ("A",) and np.all(result.draws[:, :, 0] == 1)


def test_a_variable_every_chain_holds_at_a_nearly_certain_state_is_not_flagged():
    """P(A = a2) = 0.95: four chains held at a2 for 500 draws are no sign of a trap."""
    bn = BayesianNetwork(states={"A": ["a0", "a1", "a2"]}, parents={}, cpts={"A": [0.02, 0.03, 0.95]})
    draws = np.full((4, 500, 1), 2, dtype=np.int8)
    report = trap_report(bn, compile_network(bn), draws, np.full((4, 1), 2), trap_seed(np.random.SeedSequence(0)),
                         False)
    assert not report.trapped  # 0.05 elsewhere: below HELD_SHARE, a short run may miss it
    report = trap_report(bn, compile_network(bn), draws[:, :98], np.full((4, 1), 2),
                         trap_seed(np.random.SeedSequence(0)), False)
    assert not report.trapped
