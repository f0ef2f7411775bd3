"""The paper's numbers (``prunelab.lab.paper_numbers``) against its LaTeX source.

The source is not in the repository; ``tests/conftest.py`` collects this file only where it
exists (``../shared/paper/prune-sampling.tex`` beside the checkout, or ``$PRUNELAB_PAPER_TEX``).
"""

from __future__ import annotations

import pytest

from prunelab.lab.paper_numbers import PAPER_ALPHA, PAPER_LABELS, PAPER_SECONDS
from tests.conftest import PAPER_TEX


@pytest.mark.parametrize(("table", "label"), [(PAPER_ALPHA, "ROC-table"), (PAPER_SECONDS, "time-table")])
def test_paper_numbers_match_the_latex_source(table, label):
    text = PAPER_TEX.read_text()
    block = text[: text.index(f"\\label{{{label}}}")]
    block = block[block.rindex("\\begin{tabular}"):]
    for bench, name in PAPER_LABELS.items():
        name = name.replace("_", "\\_")
        line = next(line for line in block.splitlines() if line.strip().startswith(name))
        cells = [c.replace("\\textbf{", "").replace("}", "").replace("\\\\", "").strip() for c in line.split("&")[1:]]
        assert [float(c) for c in cells] == [table[bench][m] for m in ("gibbs", "metropolis", "prune")]
