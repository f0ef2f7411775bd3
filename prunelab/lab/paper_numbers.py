"""Every transcription of the paper: Tables 1-3, Figure 2's pruning, the benchmark groups of its claims.

Transcribed by hand from the LaTeX source of the paper (``\\label{ROC-table}``,
``\\label{time-table}``, the block CPT of Table 1 and the TikZ source of Figure 2); these are
the only hand-typed numbers of the paper in the package. Rows
are the nine benchmarks under the ids used by :mod:`prunelab.lab.experiments`
(``asia_ev0``, ..., ``grid-8x8``), columns the three samplers.

The paper's setting: 100 runs of 25 000 draws each, PyMC's Gibbs and Metropolis (no version or step method named),
an Intel i5-5300 at 2.30 GHz under Windows 10.

References
----------
F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference technique
for discrete and deterministic Bayesian networks", Tables "Proportionality constants
of the ROC" and "Time consumption ... to achieve sigma_t^2 = 0.01".

Examples
--------
>>> from prunelab.lab.paper_numbers import PAPER_ALPHA, PAPER_SECONDS
>>> PAPER_ALPHA["grid-8x8"]["metropolis"]
0.4
>>> PAPER_SECONDS["win95pts_ev0"]["prune"]
49.85
"""

from __future__ import annotations


__all__ = [
    "FIGURE_2_STATE",
    "FIGURE_2_STRUCK",
    "FIGURE_2_SURVIVORS",
    "FIGURE_6_P",
    "LARGE_BENCHMARKS",
    "NETWORK_SIZES",
    "PAPER_ALPHA",
    "PAPER_BENCHMARKS",
    "PAPER_LABELS",
    "PAPER_SAMPLERS",
    "PAPER_SECONDS",
    "SMALL_AND_MEDIUM_BENCHMARKS",
    "TABLE_1",
]

PAPER_SAMPLERS = ("gibbs", "metropolis", "prune")
"""The three samplers the paper compares, in the column order of its tables (the one definition:
:mod:`prunelab.lab.experiments` and :mod:`prunelab.lab.plots` import it)."""

PAPER_BENCHMARKS = (
    "asia_ev0",
    "alarm_ev0",
    "win95pts_ev0",
    "asia_ev25",
    "alarm_ev25",
    "win95pts_ev25",
    "grid-3x3",
    "grid-5x5",
    "grid-8x8",
)
"""The paper's nine benchmarks, in the row order of both tables as printed; each is a key of
:data:`prunelab.lab.experiments.BENCHMARKS`, which says what network and evidence it is."""

PAPER_LABELS = {
    "asia_ev0": "Asia_ev0",
    "alarm_ev0": "Alarm_ev0",
    "win95pts_ev0": "Win95pts_ev0",
    "asia_ev25": "Asia_ev25",
    "alarm_ev25": "Alarm_ev25",
    "win95pts_ev25": "Win95pts_ev25",
    "grid-3x3": "Grid 3x3",
    "grid-5x5": "Grid 5x5",
    "grid-8x8": "Grid 8x8",
}
"""Row labels as printed."""

PAPER_ALPHA = {
    "asia_ev0": {"gibbs": 0.52, "metropolis": 0.51, "prune": 0.81},
    "alarm_ev0": {"gibbs": 0.43, "metropolis": 0.46, "prune": 0.79},
    "win95pts_ev0": {"gibbs": 0.48, "metropolis": 0.55, "prune": 0.59},
    "asia_ev25": {"gibbs": 0.47, "metropolis": 0.45, "prune": 0.77},
    "alarm_ev25": {"gibbs": 0.40, "metropolis": 0.37, "prune": 0.49},
    "win95pts_ev25": {"gibbs": 0.45, "metropolis": 0.48, "prune": 0.50},
    "grid-3x3": {"gibbs": 0.37, "metropolis": 0.38, "prune": 0.62},
    "grid-5x5": {"gibbs": 0.54, "metropolis": 0.49, "prune": 0.55},
    "grid-8x8": {"gibbs": 0.39, "metropolis": 0.40, "prune": 0.53},
}
"""Table 2: proportionality constants alpha of the rate of convergence."""

PAPER_SECONDS = {
    "asia_ev0": {"gibbs": 2.72, "metropolis": 1.31, "prune": 0.53},
    "alarm_ev0": {"gibbs": 12.27, "metropolis": 3.94, "prune": 3.56},
    "win95pts_ev0": {"gibbs": 36.38, "metropolis": 21.32, "prune": 49.85},
    "asia_ev25": {"gibbs": 2.56, "metropolis": 1.05, "prune": 0.41},
    "alarm_ev25": {"gibbs": 9.92, "metropolis": 3.07, "prune": 2.83},
    "win95pts_ev25": {"gibbs": 29.65, "metropolis": 16.03, "prune": 40.03},
    "grid-3x3": {"gibbs": 1.67, "metropolis": 1.76, "prune": 0.73},
    "grid-5x5": {"gibbs": 12.13, "metropolis": 4.70, "prune": 2.42},
    "grid-8x8": {"gibbs": 20.50, "metropolis": 8.83, "prune": 105.17},
}
"""Table 3: seconds to reach sigma_t = 0.01 (including the initial state)."""

TABLE_1 = ((0.5, 0.5, 0.0, 0.0), (0.5, 0.5, 0.0, 0.0), (0.0, 0.0, 0.5, 0.5), (0.0, 0.0, 0.5, 0.5))
"""Table 1: the block CPT ``P(X_i | X_{i-1})`` as printed, ``X_{i-1}`` in columns (0.5 inside the blocks
{0, 1} and {2, 3}, 0 across)."""

SMALL_AND_MEDIUM_BENCHMARKS = ("asia_ev0", "asia_ev25", "alarm_ev0", "alarm_ev25", "grid-3x3", "grid-5x5")
"""The benchmarks on which the paper finds prune sampling the fastest (its Table 3 and conclusion: "small and
medium BNs")."""

LARGE_BENCHMARKS = ("win95pts_ev0", "win95pts_ev25", "grid-8x8")
"""The benchmarks on which the paper finds prune sampling slow (its Table 3 and conclusion: "large BNs")."""

FIGURE_2_STATE = {"Kidney": "k_g", "Lifestyle": "l_b", "BloodPressure": "b_e", "Sports": "s_y",
                  "Measurement": "m_e"}
"""The paper's Figure 2: the boldfaced state of BloodPressure that it prunes around."""

FIGURE_2_STRUCK = (
    ("Kidney", "k_b", ()),
    ("BloodPressure", "b_n", (("Kidney", "k_b"), ("Lifestyle", "l_b"))),
    ("BloodPressure", "b_n", (("Kidney", "k_b"), ("Lifestyle", "l_g"))),
    ("BloodPressure", "b_n", (("Kidney", "k_g"), ("Lifestyle", "l_b"))),
    ("BloodPressure", "b_e", (("Kidney", "k_g"), ("Lifestyle", "l_g"))),
    ("Sports", "s_n", (("Lifestyle", "l_g"),)),
    ("Sports", "s_y", (("Lifestyle", "l_g"),)),
    ("Measurement", "m_n", (("BloodPressure", "b_e"),)),
    ("Measurement", "m_e", (("BloodPressure", "b_n"),)),
)
"""The paper's Figure 2: every crossed-out entry, ``(variable, state, parents' states)``,
transcribed from the figure's LaTeX source."""

FIGURE_2_SURVIVORS = frozenset({("k_g", "l_b", "b_e", "s_y", "m_e"), ("k_g", "l_b", "b_e", "s_n", "m_e")})
"""The paper's Figure 2 caption: the two feasible states of the pruned network."""

FIGURE_6_P = 0.81
"""The paper's Figure 6 (a): 100 Metropolis runs on its 8x8 grid approximate ``P(X_8,8 = T) ≈ 0.81``."""

NETWORK_SIZES = {"asia": (8, 18), "alarm": (37, 509), "win95pts": (76, 574)}
"""The real-world networks as its section "Results" describes them: ``(nodes, parameters)``, the
parameters counted free (every CPT entry but one per row)."""
