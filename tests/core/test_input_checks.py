"""Inputs a user can get wrong, refused at once with a message that names what was given and what to do."""

from __future__ import annotations

import re
import sys
import types
import unicodedata

import numpy as np
import pytest

from prunelab import BayesianNetwork, EvidenceError, FileFormatError, NetworkError, load_network, read_bif, sample
from prunelab.exact import exact_marginals
from prunelab.indicators import hellinger
from prunelab.samplers import BUILT_IN, available_samplers, get_sampler, register_sampler
from prunelab.samplers.prune.ladder import check_betas
from tests.helpers import GOOD_BIF



def three_named_by_numbers() -> BayesianNetwork:
    return BayesianNetwork(states={"A": ["1", "2", "3"]}, parents={}, cpts={"A": [0.2, 0.3, 0.5]})


# ---------------------------------------------------------------- R: an integer that is a name too
def test_an_integer_state_that_is_also_another_states_name_is_refused():
    bn = three_named_by_numbers()
    with pytest.raises(EvidenceError, match=r"state 1 of variable 'A' is ambiguous: index 1 is state '2', but a "
                                            r"state is named '1'"):
        exact_marginals(bn, {"A": 1})
    with pytest.raises(EvidenceError, match="ambiguous"):
        sample(bn, "prune", 10, init={"A": 2})
    assert bn.state_index("A", "1") == 0 and bn.state_index("A", "2") == 1  # names are never ambiguous
    pair = load_network("deterministic_pair")  # states "0", "1": index and name agree
    assert pair.state_index("A", 1) == 1 and pair.state_index("A", np.int64(0)) == 0


# ---------------------------------------------------------------- M: one name, two Unicode spellings
def test_nfc_and_nfd_spellings_of_one_name_are_refused():
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    with pytest.raises(NetworkError, match="differ only in their Unicode normalization"):
        BayesianNetwork(states={nfc: ["0", "1"], nfd: ["0", "1"]}, parents={},
                        cpts={nfc: [0.5, 0.5], nfd: [0.5, 0.5]})
    with pytest.raises(NetworkError, match=r"variable 'A'.*state names .* differ only"):
        BayesianNetwork(states={"A": [nfc, nfd]}, parents={}, cpts={"A": [0.5, 0.5]})


# ---------------------------------------------------------------- K3: the sampler registry
def test_a_built_in_sampler_cannot_be_shadowed(monkeypatch):
    import prunelab.samplers as samplers

    monkeypatch.setattr(samplers, "_SAMPLERS", dict(samplers._SAMPLERS))
    for name in BUILT_IN:
        with pytest.raises(ValueError, match=re.escape(f"'{name}' is a built-in sampler")):
            register_sampler(name, "prunelab.samplers.gibbs")
    assert get_sampler("prune").__name__ == "prunelab.samplers.prune.sampler"


def test_a_sampler_module_that_cannot_be_imported_by_name_is_refused_when_registered(monkeypatch):
    import prunelab.samplers as samplers
    from prunelab.samplers import gibbs

    monkeypatch.setattr(samplers, "_SAMPLERS", dict(samplers._SAMPLERS))
    in_memory = types.ModuleType("my_gibbs_in_memory")
    in_memory.init, in_memory.step, in_memory.run_chain = gibbs.init, gibbs.step, gibbs.run_chain
    assert "my_gibbs_in_memory" not in sys.modules
    with pytest.raises(ValueError, match="'my_gibbs_in_memory' for sampler 'mine' cannot be imported by its name"):
        register_sampler("mine", in_memory)
    assert "mine" not in available_samplers()
    register_sampler("gibbs-module", gibbs)  # importable by name: fine
    assert get_sampler("gibbs-module") is gibbs


# ---------------------------------------------------------------- K1, O: sample()'s arguments
def test_an_unknown_sampler_option_is_refused_before_set_up_and_the_message_lists_the_options():
    with pytest.raises(TypeError, match=r"sampler 'mc-sat' has no option\(s\) \['temprature'\]; its options are "
                                        r"\['uniform', 'sa_probability', 'temperature'"):
        sample(load_network("asia"), "mc-sat", 10, temprature=0.5)


@pytest.mark.parametrize("bad", ["1GB", 1e9, True, None])
def test_max_bytes_must_be_an_integer(bad):
    with pytest.raises(TypeError, match=r"max_bytes must be an integer, got"):
        sample(load_network("asia"), "prune", 10, max_bytes=bad)


def test_an_unknown_variable_in_init_is_a_value_error_that_suggests_the_name():
    with pytest.raises(ValueError, match=r"unknown variable\(s\) \['Asia'\] \('Asia': did you mean 'asia'\?\)"):
        sample(load_network("asia"), "prune", 10, init={"Asia": "yes"})


@pytest.mark.parametrize("options,message", [
    ({"uniform": "samplesat", "late_sa": "no"}, "late_sa must be True or False, got str 'no'"),
    ({"uniform": "samplesat", "noise": "0.5"}, "noise must be a number, got str '0.5'"),
    ({"uniform": "samplesat", "max_flips": "10"}, "max_flips must be an integer"),
    ({"noise": 0.2}, r"option\(s\) \['noise'\] have no effect with uniform='exact'"),
    ({"uniform": "exact", "late_sa": False, "n_solutions": 3}, r"\['n_solutions', 'late_sa'\] have no effect"),
])
def test_samplesat_options_are_checked_and_not_ignored_under_the_exact_step(options, message):
    with pytest.raises((TypeError, ValueError), match=message):
        sample(load_network("deterministic_pair"), "mc-sat", 5, seed=0, **options)


def test_samplesat_options_at_their_defaults_pass_under_the_exact_step():
    sample(load_network("deterministic_pair"), "mc-sat", 5, seed=0, late_sa=True, noise=0.5)


@pytest.mark.parametrize("betas", [[True, 0.5], [1, False], np.array([True, False]), ["1", "0.5"]])
def test_betas_that_are_bools_or_strings_are_refused(betas):
    with pytest.raises(ValueError, match="betas must be a sequence of numbers"):
        check_betas(betas)
    with pytest.raises(ValueError, match="betas must be a sequence of numbers"):
        sample(load_network("deterministic_pair"), "prune-tempered", 5, seed=0, betas=betas)


# ---------------------------------------------------------------- Q: numbers in files, counts for probabilities
@pytest.mark.parametrize("token", ["1e-400", "0.1e-330", "1E-999"])
def test_a_number_that_underflows_to_zero_in_a_file_is_refused(tmp_path, token):
    path = tmp_path / "net.bif"
    path.write_text(GOOD_BIF.replace("(a0) 0.5, 0.25, 0.25;", f"(a0) 0.5, 0.5, {token};"))
    with pytest.raises(FileFormatError, match=rf"net\.bif:\d+: .*found '{token}', below the smallest float"):
        read_bif(path, normalize=True)


def test_zero_written_as_zero_and_tiny_positive_numbers_are_read(tmp_path):
    path = tmp_path / "net.bif"
    path.write_text(GOOD_BIF.replace("(a0) 0.5, 0.25, 0.25;", "(a0) 0.5, 0.5, 0e5;")
                    .replace("(a1) 0.0, 0.0, 1.0;", "(a1) 1e-310, 0.000, 1.0;"))
    bn = read_bif(path, normalize=True)
    assert bn.cpts["B"][0, 2] == 0.0 and bn.cpts["B"][1, 0] > 0.0 and bn.cpts["B"][1, 1] == 0.0


def test_hellinger_refuses_counts():
    with pytest.raises(ValueError, match=r"p sums to 4, not 1: hellinger compares probability vectors"):
        hellinger([2, 2], [0.5, 0.5])
    with pytest.raises(ValueError, match=r"q sums to 0.9"):
        hellinger([[0.5, 0.5]], [[0.5, 0.4]])
    assert hellinger([0.5, 0.5], [0.5, 0.5 + 1e-9]) < 1e-4  # rounding is not a count


# ---------------------------------------------------------------- S: tables only where they are needed
def test_samplesat_needs_no_counting_tables_and_the_cap_message_names_variables_and_samplers():
    from prunelab import make_grid
    from prunelab.elimination import TablesTooLargeError

    bn = make_grid(22)  # its counting plan needs 6.8e8 table entries, over MAX_TOTAL_ENTRIES
    result = sample(bn, "mc-sat", 2, seed=0, uniform="samplesat", traps="off")
    assert result.draws.shape == (1, 2, bn.n_variables)
    with pytest.raises(TablesTooLargeError) as info:
        sample(bn, "mc-sat", 2, seed=0, traps="off")  # uniform="exact" counts: refused
    message = str(info.value)
    assert "needs a clique over" in message and "['v_" in message  # the clique, by the variables' names
    assert "sampler 'gibbs' or 'metropolis', or 'mc-sat' with uniform='samplesat'" in message
    assert "method" not in message and "[0," not in message
