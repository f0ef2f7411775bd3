"""AHD(t) tables of the experiment runs (:mod:`prunelab.lab.ahd`): means and quantiles over runs, decay ratios."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from prunelab.lab.ahd import ahd_decay, ahd_table
from tests.helpers import EXACT, fake_curves


def test_ahd_table_is_the_mean_and_quantiles_over_runs(rng):
    curves = fake_curves(rng, benchmarks=("b1",), samplers=("gibbs",), n_runs=7)
    table = ahd_table(curves, "hellinger_query", quantiles=(0.1, 0.9))
    for _, row in table.iterrows():
        values = curves.loc[curves["t"] == row["t"], "hellinger_query"].to_numpy()
        assert row["ahd"] == pytest.approx(values.mean(), abs=EXACT)
        assert row["low"] == pytest.approx(np.quantile(values, 0.1), abs=EXACT)
        assert row["high"] == pytest.approx(np.quantile(values, 0.9), abs=EXACT)
        assert row["n_runs"] == 7


def test_ahd_table_ignores_fixed_start_cases(rng):
    curves = fake_curves(rng, benchmarks=("b1",), samplers=("gibbs",))
    fixed = curves.assign(init="fixed", hellinger_query=9.0)
    table = ahd_table(pd.concat([curves, fixed]), "hellinger_query")
    assert table["ahd"].max() < 1


def test_ahd_decay_reads_monte_carlo_rate_and_stall(rng):
    curves = fake_curves(rng, benchmarks=("b1",), stalled={("b1", "gibbs")}, t_max=10_000)
    ratios = ahd_decay(curves, ["hellinger_query"])["hellinger_query"]
    assert ratios[("b1", "gibbs")] == pytest.approx(1.0, abs=EXACT)
    t = np.sort(curves["t"].unique())
    earlier = t[np.argmin(np.abs(np.log(t) - np.log(t[-1] / 10)))]
    expected = np.sqrt(earlier / t[-1])  # c / sqrt(t) in every run
    assert ratios[("b1", "prune")] == pytest.approx(expected, rel=1e-12)
