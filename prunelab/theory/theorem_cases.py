"""The networks on which the book checks the convergence theorem with exact matrices.

:data:`THEOREM_CASES` is the one list: the prune sampling chapter checks regularity,
reversibility and stationarity of prune sampling's matrix on them, the MC-SAT chapter
compares MC-SAT's matrix with prune sampling's on them, and the scorecard's theorem row
is computed on them.

Examples
--------
>>> from prunelab.theory.theorem_cases import THEOREM_CASES
>>> [case.label for case in THEOREM_CASES][:3]
['deterministic_pair', 'block_chain (n = 3)', 'blood_pressure']
>>> bn, evidence = THEOREM_CASES[3].load()
>>> evidence
{'Measurement': 'm_e'}
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["THEOREM_CASES", "TheoremCase"]


class TheoremCase(NamedTuple):
    """A catalogue network, its options and evidence: one exact check of the theorem."""

    network: str
    """A name of :func:`prunelab.load_network`."""
    options: tuple = ()
    """Its keyword options, as ``(name, value)`` pairs."""
    evidence: tuple = ()
    """The evidence, as ``(variable, state)`` pairs (empty: none)."""

    @property
    def label(self) -> str:
        """The network's name, its options and evidence, as a table row says it."""
        label = self.network + "".join(f" ({k} = {v})" for k, v in self.options)
        if self.evidence:
            label += " | " + ", ".join(f"{k} = {v}" for k, v in self.evidence)
        return label

    def load(self):
        """``(network, evidence dict or None)``."""
        from prunelab.catalogue import load_network

        return load_network(self.network, **dict(self.options)), (dict(self.evidence) or None)


_FIRST_ROW = tuple((v, "T") for v in ("v_1_1", "v_1_2", "v_1_3"))

THEOREM_CASES = (
    TheoremCase("deterministic_pair"),
    TheoremCase("block_chain", (("n", 3),)),
    TheoremCase("blood_pressure"),
    TheoremCase("blood_pressure", evidence=(("Measurement", "m_e"),)),
    TheoremCase("grid-3x3"),
    TheoremCase("grid-3x3", evidence=_FIRST_ROW),
)
"""The paper's two toy networks, BloodPressure with and without evidence, and the 3x3 grid
without evidence and with its first row observed true: 2 to 64 feasible states."""
