"""The helpers that let the chapters run in plain Jupyter, and where data is found."""

import sys
import types

import numpy as np
import pytest

from prunelab import load_network
from prunelab.catalogue import data_dir, frozen_network_path
from prunelab.compiled import compile_network
from prunelab.lab.experiments import PAPER, PROFILES, results, select_cases
from prunelab.lab.notebook import draw_seed, glue, glue_float, glue_range, setup, watermark
from prunelab.samplers.prune.draws.api import seconds_per_uniform_draw


def test_glue_without_myst_nb_shows_the_value_only_when_asked(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # import myst_nb raises ImportError
    glue("hidden", 12345, display=False)
    assert capsys.readouterr().out == ""
    glue("shown", 67890)
    assert "67890" in capsys.readouterr().out


def test_watermark_lists_every_package_asked_for():
    text = watermark(["numpy", "prunelab", "surely-not-a-package"])
    lines = {key.strip(): value for key, value in (line.split(" : ", 1) for line in text.splitlines() if " : " in line)}
    assert lines["numpy"].strip() == np.__version__
    assert lines["surely-not-a-package"].strip() == "not installed"
    assert lines["Python version"].strip() == ".".join(map(str, sys.version_info[:3]))


def test_data_dir_finds_the_frozen_networks_and_obeys_the_environment(monkeypatch, tmp_path):
    assert frozen_network_path("grid-3x3").is_file()
    monkeypatch.setenv("PRUNELAB_DATA", str(tmp_path))
    assert data_dir() == tmp_path
    assert frozen_network_path("grid-3x3") == tmp_path / "networks" / "grid-3x3.uai"


def test_seconds_per_uniform_draw_rejects_a_bad_budget(rng):
    net = compile_network(load_network("deterministic_pair"))
    with pytest.raises(ValueError, match="rounds must be >= 1"):
        seconds_per_uniform_draw(rng, net, net.cpt > 0, rounds=0)
    with pytest.raises(ValueError, match="unknown|uniform"):
        seconds_per_uniform_draw(rng, net, net.cpt > 0, uniform="guess")


def test_setup_gives_the_chapter_generator_and_profile(monkeypatch, capsys):
    monkeypatch.setenv("PRUNELAB_PROFILE", "smoke")
    rng, profile = setup(seed=20170901, packages=["numpy", "surely-not-a-package"])
    assert profile == "smoke"
    assert rng.integers(2**32) == np.random.default_rng(20170901).integers(2**32)  # the seed given is tested
    line = capsys.readouterr().out
    assert f"numpy {np.__version__}" in line and "surely-not-a-package not installed" in line
    assert line.rstrip().endswith("profile 'smoke'")


def test_setup_defaults_to_the_paper_profile(monkeypatch, capsys):
    monkeypatch.delenv("PRUNELAB_PROFILE", raising=False)
    assert setup(seed=1).profile == "paper"


def test_setup_refuses_an_unknown_profile_by_name(monkeypatch):
    monkeypatch.setenv("PRUNELAB_PROFILE", "papr")
    with pytest.raises(ValueError, match=r"PRUNELAB_PROFILE='papr': unknown profile 'papr'; profiles are"):
        setup(seed=1)


def test_results_runs_the_cases_at_a_small_profile_and_reads_the_frozen_ones_at_paper():
    cases = [c.id for c in select_cases(["deterministic_pair"])][:1]
    now = results(PAPER, PROFILES["smoke"].only(cases))
    assert set(now["summary"]["case"]) == set(cases)
    assert now["provenance"]["profile"]["n_draws"] == PROFILES["smoke"].n_draws
    frozen = results(PAPER, PROFILES["paper"].only(cases))
    assert set(cases) < set(frozen["summary"]["case"])  # the frozen folder, every case
    assert frozen["provenance"]["profile"]["n_draws"] == PROFILES["paper"].n_draws


@pytest.mark.parametrize("in_kernel", [True, False])
def test_setup_asks_a_kernel_for_svg_figures(monkeypatch, capsys, in_kernel):
    import IPython
    import matplotlib_inline.backend_inline as inline

    calls = []
    monkeypatch.setattr(inline, "set_matplotlib_formats", lambda *formats: calls.append(formats))
    monkeypatch.setattr(IPython, "get_ipython", lambda: object() if in_kernel else None)
    monkeypatch.setenv("PRUNELAB_PROFILE", "smoke")
    setup(seed=1, packages=["numpy"])
    assert calls == ([("svg", "png")] if in_kernel else [])


@pytest.fixture
def glued(monkeypatch):
    """What the glue helpers hand to MyST-NB's glue, as ``(name, value, display)`` tuples."""
    calls = []
    fake = types.SimpleNamespace(glue=lambda name, value, display=True: calls.append((name, value, display)))
    monkeypatch.setitem(sys.modules, "myst_nb", fake)
    return calls


def test_glue_float_glues_a_plain_float_and_nan_for_none_without_showing_it(glued, capsys):
    glue_float("share", np.float64(0.25))
    glue_float("count", np.int64(3))
    glue_float("missing", None)
    (n1, v1, d1), (n2, v2, d2), (n3, v3, d3) = glued
    assert (n1, v1, type(v1), d1) == ("share", 0.25, float, False)
    assert (n2, v2, type(v2)) == ("count", 3.0, float)
    assert n3 == "missing" and type(v3) is float and np.isnan(v3) and not d3
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("low", "high", "fmt", "text"),
    [
        (1.04, 2.96, ".1f", "1.0–3.0"),
        (2.01, 2.04, ".1f", "2.0"),
        (1200, 35000, ",.0f", "1,200–35,000"),
        (3, 3, "d", "3"),
    ],
)
def test_glue_range_glues_one_number_when_both_ends_round_alike(glued, low, high, fmt, text):
    assert glue_range("r", low, high, fmt) == text
    assert glued == [("r", text, False)]


def test_glue_range_refuses_swapped_ends_before_gluing(glued):
    with pytest.raises(ValueError, match=r"glue_range\('speed'\): low 5 is above high 2"):
        glue_range("speed", 5, 2, "d")
    assert glued == []


def test_draw_seed_is_one_draw_of_the_chapter_generator():
    rng, same = np.random.default_rng(11), np.random.default_rng(11)  # equal seeds: the draws are compared
    seeds = [draw_seed(rng) for _ in range(3)]
    assert seeds == [int(same.integers(2**31 - 1)) for _ in range(3)]
    assert all(type(s) is int for s in seeds)
    assert rng.random() == same.random()  # one draw each, nothing more
    assert {draw_seed(rng, high=2) for _ in range(50)} == {0, 1}


def test_results_run_now_are_computed_once_and_handed_out_as_copies():
    smoke = PROFILES["smoke"].only(["deterministic_pair.prune"])
    first = results(PAPER, smoke)
    column = first["runs"].columns[0]
    first["runs"][column] = np.nan  # a section that scribbles on its copy
    second = results(PAPER, smoke)
    assert first["runs"][column].isna().all() and second["runs"][column].notna().all()
    assert second["provenance"] == results(PAPER, smoke)["provenance"]
