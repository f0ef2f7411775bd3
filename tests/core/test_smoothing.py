"""Smoothed networks: no 0/1 entry left, rows renormalised, other entries kept in proportion."""

import numpy as np
import pytest

from prunelab import exact_marginals, load_network
from prunelab.smoothing import deterministic_row_share, smooth_network


def test_smoothing_the_pair_exactly():
    pair = load_network("deterministic_pair")
    smooth = smooth_network(pair, 0.01)
    np.testing.assert_allclose(smooth.cpts["B"], np.array([[0.99, 0.01], [0.01, 0.99]]))
    np.testing.assert_allclose(smooth.cpts["A"], pair.cpts["A"])  # 0.5 entries stay
    assert smooth.parents == pair.parents and smooth.states == pair.states


def test_three_state_row_is_renormalised():
    chain = load_network("block_chain", n=2)
    smooth = smooth_network(chain, 0.1)
    # (0.5, 0.5, 0, 0) -> (0.5, 0.5, 0.1, 0.1) / 1.2
    np.testing.assert_allclose(smooth.cpts["X2"][0], np.array([0.5, 0.5, 0.1, 0.1]) / 1.2)


@pytest.mark.parametrize("name", ["asia", "grid-3x3"])
def test_no_determinism_left_and_marginals_move_by_order_epsilon(name):
    bn = load_network(name)
    assert deterministic_row_share(bn) > 0
    smooth = smooth_network(bn, 1e-3)
    assert deterministic_row_share(smooth) == 0.0
    assert all(((c > 0) & (c < 1)).all() for c in smooth.cpts.values())
    before, after = exact_marginals(bn), exact_marginals(smooth)
    # each CPT entry moves by at most 2 epsilon; a marginal by at most 2 epsilon per variable
    bound = 2e-3 * bn.n_variables
    assert max(np.abs(before[v] - after[v]).max() for v in bn.variables) < bound


def test_deterministic_row_share_counts_rows():
    # pair: A's one row is not deterministic, B's two rows are
    assert deterministic_row_share(load_network("deterministic_pair")) == pytest.approx(2 / 3)


@pytest.mark.parametrize("epsilon", [0.0, 0.5, -1e-3, 1.0])
def test_bad_epsilon_is_refused(epsilon):
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 0.5\)"):
        smooth_network(load_network("deterministic_pair"), epsilon)
