"""The lab's samplers come from the registry of ``prunelab.samplers``, and prune's uniform draws from one function."""

from __future__ import annotations

import numpy as np
import pytest

from prunelab import load_network
from prunelab.lab.peers import PEER_SAMPLERS, run_sampler, sampler_info
from prunelab.lab.peers.prunelab import run_prunelab
from prunelab.lab.registry import own_name, own_samplers, rao_blackwell_mode
from prunelab.samplers import available_samplers, get_sampler


def test_every_registered_sampler_is_a_peer_and_a_rao_blackwell_one_twice():
    own = {s.name: s for s in own_samplers()}
    assert {s.sampler for s in own.values()} == set(available_samplers())
    with_rb = {s.sampler for s in own.values() if s.rao_blackwell}
    assert with_rb == {s for s in available_samplers() if any(rao_blackwell_mode(s, {}))}
    assert with_rb >= {"gibbs", "prune", "prune-tempered"} and "metropolis" not in with_rb
    for name, s in own.items():  # the peers' table holds each, with what runs under the name
        info = sampler_info(name)
        assert (info.library, info.sampler, info.rao_blackwell, info.step_unit) == (
            "prunelab", s.sampler, s.rao_blackwell, "sweep" if getattr(get_sampler(s.sampler), "SINGLE_SITE", False)
            else "step")
        assert own_name(s.sampler, s.rao_blackwell) == name
    assert [n for n in PEER_SAMPLERS if PEER_SAMPLERS[n].library == "prunelab"] == list(own)


def test_a_name_is_looked_up_never_cut_apart():
    with pytest.raises(ValueError, match="no peer name for sampler 'metropolis' with a Rao-Blackwell estimate"):
        own_name("metropolis", rao_blackwell=True)
    with pytest.raises(ValueError, match="no peer name for sampler 'hmc'"):
        own_name("hmc")
    bn = load_network("deterministic_pair")
    with pytest.raises(ValueError, match="'pgmpy-gibbs' is pgmpy's sampler, not one of prunelab's"):
        run_prunelab(bn, None, "pgmpy-gibbs", n_steps=10, seed=1)
    with pytest.raises(ValueError, match="unknown sampler 'prunelab-hmc'"):
        run_prunelab(bn, None, "prunelab-hmc", n_steps=10, seed=1)


def test_a_rao_blackwell_peer_estimates_by_the_sums_and_the_plain_one_by_the_draws():
    bn = load_network("asia")
    plain = run_sampler(own_name("prune"), bn, n_steps=200, seed=3)
    sums = run_sampler(own_name("prune", rao_blackwell=True), bn, n_steps=200, seed=3)
    assert plain.status == sums.status == "ok" and plain.n_steps == sums.n_steps == 200
    counts = np.concatenate(list(plain.marginals.values())) * 200  # frequencies of 200 draws: whole counts
    np.testing.assert_allclose(counts, np.round(counts), rtol=0, atol=1e-9)
    averaged = np.concatenate(list(sums.marginals.values())) * 200  # averages of exact pruned-set marginals
    assert np.abs(averaged - np.round(averaged)).max() > 0.1

