"""Optional packages: the core works without them, and a missing one is refused naming its extra."""

import sys

import numpy as np
import pytest

import prunelab
from prunelab import exact_marginals, load_network, sample
from prunelab.circuit import compile_circuit, count_inference
from prunelab.compiled import compile_network
from prunelab.extras import MissingExtraError, available, require

# what each extra installs, by import name (pyproject.toml's [project.optional-dependencies])
OPTIONAL = {"pysdd": "circuit", "pyganak": "counter", "pycmsgen": "solvers", "pyunigen": "solvers",
            "arviz": "experiments"}


@pytest.fixture
def hidden(monkeypatch):
    """Hide the given top-level packages and their submodules: importing them raises ImportError."""
    def hide(*names):
        for name in names:
            for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
                monkeypatch.delitem(sys.modules, loaded)
            monkeypatch.setitem(sys.modules, name, None)
    return hide


def test_require_names_the_extra_and_available_says_false(hidden):
    hidden("pyganak")
    assert not available("pyganak")
    with pytest.raises(MissingExtraError, match=r"^exact counting needs the package pyganak, which is not installed: "
                                                r"pip install 'prunelab\[counter\]'$") as info:
        require("pyganak", "counter", "exact counting")
    assert isinstance(info.value, ImportError)


def test_available_does_not_import(monkeypatch):
    monkeypatch.delitem(sys.modules, "json.tool", raising=False)
    assert available("json.tool")
    assert "json.tool" not in sys.modules
    assert not available("no_such_package.sub")


def test_compiling_a_circuit_without_pysdd_names_the_circuit_extra(hidden):
    hidden("pysdd")
    net = compile_network(load_network("deterministic_pair"))
    with pytest.raises(MissingExtraError, match=r"compiling a circuit needs the package pysdd.sdd.*"
                                                r"pip install 'prunelab\[circuit\]'"):
        compile_circuit(net)


def test_counting_without_pyganak_is_refused_in_the_calling_process(hidden):
    hidden("pyganak")
    bn = load_network("asia")
    with pytest.raises(MissingExtraError, match=r"pip install 'prunelab\[counter\]'"):
        count_inference(bn.variables, compile_network(bn, {"dysp": "yes"}), None)
    with pytest.raises(MissingExtraError, match=r"pip install 'prunelab\[counter\]'"):
        exact_marginals(load_network("asia"), {"dysp": "yes"}, method="counter")


@pytest.mark.parametrize("network", ["asia", "alarm"])
def test_the_core_works_without_any_optional_package(hidden, network):
    hidden(*OPTIONAL)
    bn = load_network(network)
    evidence = {"dysp": "yes"} if network == "asia" else {"HRBP": "HIGH"}
    exact = exact_marginals(bn, evidence)
    result = sample(bn, "prune", 400, evidence=evidence, n_chains=2, seed=1, progress=False)
    marginals = result.marginals()
    assert set(marginals) == set(exact)
    for name, p in exact.items():
        assert np.isclose(p.sum(), 1.0)
        assert np.isclose(marginals[name].sum(), 1.0)
    assert prunelab.__version__
