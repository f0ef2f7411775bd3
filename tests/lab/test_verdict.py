"""The book's verdict: the reach winner skips trapped chains, and the numbers agree with the lab's readers."""

from __future__ import annotations

import copy
import functools

import pandas as pd
import pytest

from prunelab.lab.headline import efficiency_where_all_mix
from prunelab.lab.verdict import NONE_MEASURED, frozen_results, reach_winners, verdict


@functools.lru_cache(maxsize=1)
def _frozen() -> dict:
    return frozen_results()


def _reach(rows) -> dict:
    """A reach folder of two networks, one variable each; rows: (network, sampler, status, estimate, split)."""
    truth = pd.DataFrame({"network": ["a", "b"], "variables": [["x"], ["x"]], "marginals": [[[0.5, 0.5]]] * 2,
                          "status": "ok", "count_seconds": [1.0, 2.0]})
    budget = pd.DataFrame([{
        "network": n, "sampler": s, "budget": 1.0, "status": st, "reason": "", "n_steps": 10, "n_chains": 2,
        "variables": ["x"], "estimates": [[p, 1 - p]], "trap_judged": True, "trap_split": ["x"] if split else [],
        "trap_disagreeing": [], "never_moved": [], "never_moved_states": []} for n, s, st, p, split in rows])
    return {"truth": truth, "budget": budget}


def test_reach_winner_skips_trapped_and_refused_runs():
    reach = _reach([("a", "gibbs-rb", "ok", 0.5, True),  # exact by luck, but its chains are trapped
                    ("a", "pyagrum-lbp", "ok", 0.6, False),
                    ("a", "prune-count", "refused", 0.5, False),
                    ("b", "gibbs-rb", "ok", 0.5, True)])  # only a trapped estimate: no winner
    winners = reach_winners(reach)
    assert winners["a"] == "pyagrum-lbp" and pd.isna(winners["b"])


def test_verdict_agrees_with_the_lab_readers_on_the_frozen_results():
    res = _frozen()
    v = verdict(res)
    mix = efficiency_where_all_mix(res["paper"]["summary"])
    assert v["n_all_mix"] == len(mix) and v["per_draw_high"] == mix["prune_over_gibbs"].max()
    assert 0 <= v["n_trapped"] <= v["n_benchmarks"] and v["prune_unmixed"] == 0  # prune mixes on every benchmark
    assert v["families_counted_past_jt"] <= v["families_jt_refused"] <= v["families_instances"]
    assert v["frontier_answered"] <= v["frontier_pairs"] and v["large_det"] <= v["large_pairs"]
    assert v["reach_winner"] == NONE_MEASURED or v["reach_wins"] <= v["reach_measured"] <= v["reach_networks"]
    assert all(type(x) in (int, float, str, bool) for x in v.values())  # glue prints plain numbers, not np.float64(…)


def test_no_untrapped_estimate_means_none_measured():
    res = copy.deepcopy(_frozen())
    res["reach"]["budget"]["status"] = "refused"
    v = verdict(res)
    assert v["reach_winner"] == NONE_MEASURED and v["reach_measured"] == 0 and v["reach_wins"] == 0


def test_a_missing_sampler_column_is_an_error_not_a_silent_zero():
    res = copy.deepcopy(_frozen())
    res["large"]["mixing"] = res["large"]["mixing"][res["large"]["mixing"]["sampler"] != "prune-tempered"]
    with pytest.raises(KeyError, match="prune-tempered"):
        verdict(res)
