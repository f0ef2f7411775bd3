"""SampleResult.to_inference_data(): the chains in ArviZ's data model, value for value."""

import dataclasses
import sys

import numpy as np
import pytest

from prunelab import load_network, sample
from prunelab.diagnostics import arviz_notice_ignored
from prunelab.extras import MissingExtraError

with arviz_notice_ignored():
    import arviz as az

EVIDENCE = {"dysp": "yes", "xray": "no"}


@pytest.fixture(scope="module")
def prune_asia():
    return sample(load_network("asia"), "prune", 400, n_chains=3, evidence=EVIDENCE, seed=7)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8])
def test_the_posterior_holds_the_draws_with_their_state_names(prune_asia, dtype):
    result = dataclasses.replace(prune_asia, draws=prune_asia.draws.astype(dtype))
    idata = result.to_inference_data()
    assert list(idata.posterior.data_vars) == list(result.free_variables)
    for v in result.free_variables:
        values = idata.posterior[v]
        assert values.dims == ("chain", "draw") and values.shape == (3, 400)
        assert np.issubdtype(values.dtype, np.integer)
        np.testing.assert_array_equal(values.values, result.draws[:, :, result.variables.index(v)])
        assert values.attrs["states"] == list(result.states[v])
    assert idata.posterior.attrs["sampler"] == "prune"
    assert idata.posterior.attrs["sampling_time"] == pytest.approx(result.sample_seconds.sum())


def test_summary_and_ess_round_trip(prune_asia):
    idata = prune_asia.to_inference_data()
    summary = az.summary(idata, kind="stats")
    marginals = prune_asia.marginals()
    for v in prune_asia.free_variables:  # two states each: the mean index is P(v = states[1])
        assert summary.loc[v, "mean"] == pytest.approx(marginals[v][1], abs=5e-4)  # summary rounds to 3 digits
    ess = az.ess(idata)
    column = prune_asia.variables.index("lung")
    assert float(ess["lung"]) == pytest.approx(float(az.ess(prune_asia.draws[:, :, column].astype(float))))
    assert 0 < float(ess["lung"]) <= 3 * 400 * 1.5


def test_sample_stats_hold_the_pruned_set_sizes_and_the_evidence_is_constant_data(prune_asia):
    idata = prune_asia.to_inference_data()
    np.testing.assert_array_equal(idata.sample_stats["pruned_set_size"].values, prune_asia.stats["size"])
    assert idata.sample_stats["pruned_set_size"].dims == ("chain", "draw")
    assert "size" not in idata.sample_stats
    for v, state in EVIDENCE.items():
        assert int(idata.constant_data[v]) == prune_asia.states[v].index(state)
        assert idata.constant_data[v].attrs == {"state": state, "states": list(prune_asia.states[v])}


def test_metropolis_acceptance_per_draw_averages_to_the_chains_rate():
    result = sample(load_network("asia"), "metropolis", 300, n_chains=2, seed=3, traps="record")
    idata = result.to_inference_data()
    rate = idata.sample_stats["acceptance_rate"]
    assert rate.dims == ("chain", "draw")
    np.testing.assert_allclose(rate.mean("draw").values, result.acceptance_rate)
    assert "constant_data" not in idata.groups()


def test_gibbs_has_no_sample_stats():
    idata = sample(load_network("asia"), "gibbs", 50, n_chains=2, seed=3, traps="record").to_inference_data()
    assert idata.groups() == ["posterior"]


def test_without_arviz_the_error_names_the_experiments_extra(prune_asia, monkeypatch):
    monkeypatch.setitem(sys.modules, "arviz", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'prunelab\[experiments\]'"):
        prune_asia.to_inference_data()
