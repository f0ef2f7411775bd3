"""prunelab's runner (:func:`run_prunelab`) as the one budget loop of the peers' comparison and of the frontier:
its chunk seeds, its ``uniform=`` and ``vtree=`` passed on to the sampler, and refusals."""

import numpy as np
import pytest

from prunelab import make_grid, sample
from prunelab.lab.peers.budget import peer_seed
from prunelab.lab.peers.prunelab import CHUNK_SALT, chunk_seed, run_prunelab


def test_chunk_seeds_keep_each_runner_s_former_seeds():
    assert chunk_seed(5, 3) == peer_seed(5, CHUNK_SALT["int"] + 3)  # the peers' comparison: an int per chunk
    root = np.random.SeedSequence(11, spawn_key=(2, 7))
    child = chunk_seed(root, 3)  # the frontier: the run's own sequence, its child 500 + salt
    assert child.entropy == 11 and child.spawn_key == (2, 7, 503)
    assert chunk_seed(root, 3).generate_state(4).tolist() == child.generate_state(4).tolist()


def test_a_fixed_run_draws_the_sampler_s_chain_with_its_uniform_and_vtree():
    """A run of ``n_steps`` is one call of :func:`prunelab.sample` seeded by chunk 0's seed: its marginals are
    that chain's frequencies, over the circuit of the vtree named."""
    bn = make_grid(6, 0.9, seed=1)
    evidence = {"v_6_6": "T"}
    x0 = sample(bn, "prune", 1, evidence=evidence, seed=2, traps="off").draws[0, 0]
    root = np.random.SeedSequence(9, spawn_key=(4,))
    run = run_prunelab(bn, evidence, "prunelab-prune", n_steps=400, seed=root, start=x0, uniform="circuit",
                       vtree="turned")
    draws = sample(bn, "prune", 400, evidence=evidence, init=x0, seed=chunk_seed(root, 0), uniform="circuit",
                   vtree="turned", traps="off").draws[0]
    assert run.status == "ok" and run.n_steps == 400
    for v, p in run.marginals.items():
        column = draws[:, bn.index(v)]
        np.testing.assert_array_equal(p, np.bincount(column, minlength=2) / 400)
    moves = int(np.any(draws[0] != x0)) + int(np.count_nonzero(np.any(draws[1:] != draws[:-1], axis=1)))
    assert run.move_rate == moves / 400


def test_options_a_sampler_does_not_take_are_refused():
    bn = make_grid(4, 0.9, seed=1)
    with pytest.raises(TypeError, match="uniform"):
        run_prunelab(bn, None, "prunelab-gibbs", n_steps=10, seed=1, uniform="circuit")
    with pytest.raises(ValueError, match="uniform='count' does not draw over"):
        run_prunelab(bn, None, "prunelab-prune", n_steps=10, seed=1, uniform="count", vtree="turned")
