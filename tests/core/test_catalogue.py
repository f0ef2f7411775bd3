"""The catalogue, the grid generator and the evidence sets."""

import math

import numpy as np
import pytest

from prunelab import NETWORKS, exact_marginals, load_evidence, load_network, make_grid, query_variable, random_evidence
from prunelab.catalogue import BLOCK_CPT, frozen_network_path
from prunelab.evidence import forward_sample


@pytest.mark.parametrize("name", NETWORKS)
def test_every_catalogue_name_loads(name):
    bn = load_network(name)
    assert bn.name == name
    assert len(bn.variables) == len(bn.states) == len(bn.cpts)
    if name != "block_chain":
        assert query_variable(name) in bn.variables


def test_sizes_match_the_paper():
    # The paper: Asia 8 nodes, Alarm 37 nodes, Win95pts 76 nodes.
    assert [load_network(n).n_variables for n in ("asia", "alarm", "win95pts")] == [8, 37, 76]
    assert [load_network(f"grid-{k}x{k}").n_variables for k in (3, 5, 8)] == [9, 25, 64]


def test_unknown_name_lists_catalogue():
    with pytest.raises(KeyError, match=r"unknown network 'asai'.*'asia'"):
        load_network("asai")
    with pytest.raises(TypeError, match="takes no options"):
        load_network("asia", n=3)


def test_toy_networks_are_the_papers():
    pair = load_network("deterministic_pair")
    np.testing.assert_array_equal(pair.cpts["B"], np.eye(2))
    chain = load_network("block_chain", n=4)
    assert chain.variables == ("X1", "X2", "X3", "X4")
    np.testing.assert_array_equal(chain.cpts["X3"], BLOCK_CPT)
    np.testing.assert_array_equal(chain.cpts["X1"], np.full(4, 0.25))
    bp = load_network("blood_pressure")
    assert bp.variables == ("Kidney", "Lifestyle", "BloodPressure", "Sports", "Measurement")
    # Figure 2: P(b_e | k_g, l_b) = 0.8 and P(b_n | k_g, l_g) = 0.9
    assert bp.cpts["BloodPressure"][1, 0, 1] == 0.8
    assert bp.cpts["BloodPressure"][1, 1, 0] == 0.9
    with pytest.raises(ValueError, match="n >= 2"):
        load_network("block_chain", n=1)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_grid_follows_sang_beame_kautz(n):
    bn = make_grid(n, determinism=0.5, seed=11)
    assert bn.parents["v_1_1"] == ()
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            expected = tuple(p for p, ok in ((f"v_{i}_{j-1}", j > 1), (f"v_{i-1}_{j}", i > 1)) if ok)
            assert bn.parents[f"v_{i}_{j}"] == expected
    assert bn.variables[-1] == f"v_{n}_{n}"


def test_grid_determinism_is_per_node_and_non_constant():
    # with determinism=1 every non-source node is a non-constant Boolean function
    bn = make_grid(6, determinism=1.0, seed=5)
    assert not np.isin(bn.cpts["v_1_1"], [0.0, 1.0]).all()
    for v in bn.variables[1:]:
        p_true = bn.cpts[v][..., 1].ravel()
        assert set(np.unique(p_true)) == {0.0, 1.0}, v
    # with determinism=0 no row is deterministic (uniform draws hit 0 or 1 with probability 0)
    bn0 = make_grid(6, determinism=0.0, seed=5)
    assert all(not np.isin(bn0.cpts[v], [0.0, 1.0]).any() for v in bn0.variables)


def test_grid_fraction_of_deterministic_nodes_is_binomial():
    # 20 grids of 8x8 = 20 * 63 non-source nodes; each deterministic with p = 0.5;
    # the count's standard deviation is sqrt(1260 * 0.25) ~ 17.7, so 5 sd ~ 89.
    count = 0
    for seed in range(20):
        bn = make_grid(8, seed=seed)
        count += sum(np.isin(bn.cpts[v], [0.0, 1.0]).all() for v in bn.variables[1:])
    assert abs(count - 630) < 5 * math.sqrt(1260 * 0.25)


def test_grid_is_reproducible_from_its_seed_and_frozen():
    assert make_grid(4, seed=3) == make_grid(4, seed=3)
    assert make_grid(4, seed=3) != make_grid(4, seed=4)
    assert frozen_network_path("grid-8x8").exists()
    assert (frozen_network_path("grid-8x8").parent / "grid-8x8.uai.provenance.json").exists()


def test_grid_rejects_bad_arguments():
    with pytest.raises(ValueError, match="positive integer"):
        make_grid(0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        make_grid(3, determinism=1.5)


@pytest.mark.parametrize("name", ["asia", "alarm", "win95pts", "grid-5x5"])
def test_random_evidence_is_possible_and_sized(name):
    bn = load_network(name)
    for seed in range(5):
        ev = random_evidence(bn, 0.25, seed=seed)
        assert len(ev) == math.ceil(0.25 * bn.n_variables)
        bn.evidence_indices(ev)  # valid names
        assert list(ev) == [v for v in bn.variables if v in ev]
    assert random_evidence(bn, 0.25, seed=1) == random_evidence(bn, 0.25, seed=1)


def test_forward_sample_never_hits_a_zero_entry(rng):
    bn = load_network("grid-8x8")
    assert all(np.isfinite(bn.log_probability(forward_sample(bn, rng))) for _ in range(200))


@pytest.mark.parametrize("name", ["asia", "alarm", "win95pts"])
def test_frozen_evidence_sets_load(name):
    ev = load_evidence(name)
    bn = load_network(name)
    assert len(ev) == math.ceil(0.25 * bn.n_variables)
    bn.evidence_indices(ev)
    with pytest.raises(FileNotFoundError, match="no frozen evidence"):
        load_evidence(name, 0.5)


def test_random_evidence_never_observes_an_excluded_variable():
    bn = load_network("asia")
    for seed in range(30):
        ev = random_evidence(bn, 0.5, seed=seed, exclude=["dysp", "either"])
        assert len(ev) == 4 and not {"dysp", "either"} & set(ev)
    with pytest.raises(ValueError, match="only 2 are not excluded"):
        random_evidence(bn, 0.5, seed=0, exclude=["asia", "tub", "smoke", "lung", "bronc", "either"])
    with pytest.raises(KeyError, match="unknown variable 'dyspnoea'"):
        random_evidence(bn, 0.25, seed=0, exclude=["dyspnoea"])


@pytest.mark.parametrize("name", ["asia", "alarm", "win95pts"])
def test_frozen_evidence_leaves_the_query_variable_and_its_parents_free(name):
    bn, query = load_network(name), query_variable(name)
    assert not {query, *bn.parents[query]} & set(load_evidence(name))
    posterior = exact_marginals(bn, load_evidence(name))[query]
    assert posterior.max() < 1.0  # the evidence does not fix the query
