"""The one checkpoint grid and the one checkpoint check, as every caller sees them."""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_network
from prunelab.checkpoints import checked_checkpoints, log_checkpoints
from prunelab.compiled import compile_network
from prunelab.indicators import running_marginals
from prunelab.samplers import gibbs
from prunelab.sampling import sample


def test_checked_checkpoints_accepts_integers_in_range():
    assert checked_checkpoints(np.array([3, 1, 10], dtype=np.int8), 10).tolist() == [3, 1, 10]
    assert checked_checkpoints([], 10).dtype == np.int64
    assert checked_checkpoints(np.int64(4), 10).tolist() == [4]


@pytest.mark.parametrize(
    "bad, error, message",
    [
        ([2.5], TypeError, "checkpoints must be integers, got dtype float64"),
        ([True], TypeError, "must be integers, got dtype bool"),
        ([[1, 2]], ValueError, r"1-D array of draw counts, got shape \(1, 2\)"),
        ([0, 5], ValueError, r"must lie in 1..10 \(the number of draws\), got 0..5"),
        ([11], ValueError, "must lie in 1..10"),
    ],
)
def test_checked_checkpoints_refuses_bad_counts(bad, error, message):
    with pytest.raises(error, match=message):
        checked_checkpoints(bad, 10)


def test_increasing_is_checked_only_when_asked():
    assert checked_checkpoints([5, 5], 10).tolist() == [5, 5]
    with pytest.raises(ValueError, match=r"rb_checkpoints must increase strictly within 1..10, got \[5, 5\]"):
        checked_checkpoints([5, 5], 10, name="rb_checkpoints", increasing=True)


def test_every_caller_gives_the_same_message(rng):
    """sample(), gibbs.run_chain, SampleResult.running_marginals and indicators.running_marginals share the check."""
    bn = load_network("deterministic_pair")
    net = compile_network(bn)
    with pytest.raises(ValueError, match="rb_checkpoints must increase strictly within 1..5"):
        sample(bn, "gibbs", 5, init=[1, 1], rb_checkpoints=[3, 2], traps="off")
    with pytest.raises(ValueError, match="rb_checkpoints must increase strictly within 1..5"):
        gibbs.run_chain(rng, net, [1, 1], 5, rb_checkpoints=[3, 2])
    result = sample(bn, "prune", 5, init=[1, 1], seed=0, traps="off")
    with pytest.raises(TypeError, match="checkpoints must be integers"):
        result.running_marginals("A", checkpoints=[2.0])
    with pytest.raises(ValueError, match="must lie in 1..5"):
        running_marginals(result.draws[:, :, 0], 2, [6])


def test_sample_result_reads_running_marginals_like_indicators():
    result = sample(load_network("asia"), "prune", 300, n_chains=2, seed=3)
    cps = log_checkpoints(300, 20)
    j = result.variables.index("lung")
    np.testing.assert_array_equal(result.running_marginals("lung", cps), running_marginals(result.draws[:, :, j], 2, cps))


def test_default_rao_blackwell_checkpoints_are_the_log_grid():
    result = sample(load_network("asia"), "gibbs", 50, seed=1, traps="off")
    assert result.rb_checkpoints.tolist() == list(range(1, 51))  # fewer draws than points: every draw
