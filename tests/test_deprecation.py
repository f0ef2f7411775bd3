"""Every renamed public name still works for one release, says what replaced it, and gives the same result.

The renames (issue 11, item 12): one word per idea. A sampler is a *sampler* (not a
"method"), a chain holds *draws* (not "samples"), the independent chains the
indicators average over are *chains*, and kernels compiled twice are ``*_py`` and
``*_nb``. Names stored in results files are not renamed.
"""

from __future__ import annotations

import numpy as np
import pytest

import prunelab
from prunelab import load_network, sample
from prunelab.deprecation import renamed_keyword
from prunelab.lab.experiments import PROFILES, Profile, get_profile, prepare_case, select_cases, simulate_run
from prunelab.indicators import TimeToSigma, time_to_sigma
from prunelab.samplers import available_samplers, get_sampler, register_sampler
from prunelab.samplers import init as init_module
from prunelab.samplers import prune
from prunelab.samplers import samplesat


def _deprecated(old: str, new: str):
    return pytest.warns(DeprecationWarning, match=rf"{old} is deprecated and will be removed in the next release; "
                                                  rf"use {new}")


def test_sample_keywords_method_and_n_samples():
    bn = load_network("deterministic_pair")
    expected = sample(bn, "prune", 20, n_chains=2, seed=3)
    with _deprecated(r"sample\(\.\.\., method=\)", "sampler="):
        by_method = sample(bn, method="prune", n_draws=20, n_chains=2, seed=3)
    with _deprecated(r"sample\(\.\.\., n_samples=\)", "n_draws="):
        by_n_samples = sample(bn, "prune", n_samples=20, n_chains=2, seed=3)
    np.testing.assert_array_equal(by_method.draws, expected.draws)
    np.testing.assert_array_equal(by_n_samples.draws, expected.draws)


def test_old_and_new_keyword_together_is_an_error():
    with pytest.raises(TypeError, match=r"sample\(\) got both n_draws= and its deprecated name n_samples="):
        sample(load_network("deterministic_pair"), "prune", 20, n_samples=20)
    with pytest.raises(TypeError, match="f.. got both new= and its deprecated name old="):
        renamed_keyword("f", "old", "new", 1, 2, None)


def test_sample_result_method_is_its_sampler():
    result = sample(load_network("deterministic_pair"), "gibbs", 5, seed=0, traps="off")
    assert result.sampler == "gibbs" and "sampler='gibbs'" in repr(result)
    with _deprecated(r"prunelab\.SampleResult\.method", r"prunelab\.SampleResult\.sampler"):
        assert result.method == "gibbs"


@pytest.mark.parametrize(("old", "new"), [("get_method", get_sampler), ("register_method", register_sampler),
                                          ("available_methods", available_samplers)])
def test_registry_functions_have_their_old_names(old, new):
    import prunelab.samplers as samplers

    with _deprecated(rf"prunelab\.samplers\.{old}", rf"prunelab\.samplers\.{new.__name__}"):
        assert getattr(samplers, old) is new


def test_profile_n_samples_is_n_draws():
    with _deprecated(r"Profile\(\.\.\., n_samples=\)", "n_draws="):
        profile = Profile("tiny", n_runs=2, n_samples=300)
    assert profile == Profile("tiny", 2, 300) and profile.n_draws == 300
    with _deprecated(r"prunelab\.lab\.experiments\.Profile\.n_samples", r"prunelab\.lab\.experiments\.Profile\.n_draws"):
        assert PROFILES["paper"].n_samples == 25_000
    assert profile.to_dict()["n_samples"] == 300  # the name stored in sweep.json and provenance.json
    with pytest.raises(TypeError, match="missing required argument: 'n_draws'"):
        Profile("tiny", 2)


def test_simulate_run_keyword_n_samples():
    prof = get_profile("smoke")
    (case,) = select_cases(["deterministic_pair.prune"])
    prepared = prepare_case(case, 7)
    args = (prof.checkpoints, 7, prepared["query_state"], prepared["start"])
    expected = simulate_run(case, 0, prof.n_draws, *args)
    with _deprecated(r"simulate_run\(\.\.\., n_samples=\)", "n_draws="):
        record = simulate_run(case, 0, None, *args, n_samples=prof.n_draws)
    assert record["query_draws"] == expected["query_draws"] and record["n_samples"] == prof.n_draws
    with pytest.raises(TypeError, match="missing required argument.*n_draws"):
        simulate_run(case, 0, None, *args)


def test_time_to_sigma_in_draws():
    with _deprecated(r"time_to_sigma\(\.\.\., seconds_per_sample=\)", "seconds_per_draw="):
        old = time_to_sigma(0.4, seconds_per_sample=1e-3)
    assert old == time_to_sigma(0.4, seconds_per_draw=1e-3) == TimeToSigma(draws=1600.0, seconds=1.6)
    with _deprecated(r"prunelab\.indicators\.TimeToSigma\.samples", r"prunelab\.indicators\.TimeToSigma\.draws"):
        assert old.samples == old.draws


@pytest.mark.parametrize(("module", "old", "new"), [
    (init_module, "hybrid_forward_kernel", "hybrid_forward_nb"),
    (samplesat, "samplesat_kernel", "samplesat_nb"),
    (samplesat, "samplesat_python", "samplesat_py"),
    (prune, "prune_chain_kernel", "prune_chain_nb"),
])
def test_kernels_are_named_py_and_nb(module, old, new):
    with _deprecated(rf"{module.__name__}\.{old}", rf"{module.__name__}\.{new}"):
        assert getattr(module, old) is getattr(module, new)


def test_unknown_names_are_still_attribute_errors():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        prunelab.samplers.no_such_name  # noqa: B018
