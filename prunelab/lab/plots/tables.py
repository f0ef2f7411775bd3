"""The paper's Tables 2 and 3 beside ours, for display: intervals, marks for non-ergodic cells, the best in bold.

The tables themselves are :func:`prunelab.lab.experiments.paper_table`'s; here they
only get their look (a :class:`pandas.io.formats.style.Styler`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["style_paper_table"]


def _marks(flags: pd.Series, flag_mark: str) -> list[str]:
    """Per row the mark to append: ``flag_mark`` for True, the string itself for a str, else ""."""
    out = []
    for f in flags:
        if isinstance(f, str):
            out.append(f)
        elif f is True or (isinstance(f, (bool, np.bool_)) and bool(f)):
            out.append(flag_mark)
        else:
            out.append("")
    return out


def style_paper_table(
    table: pd.DataFrame,
    intervals: pd.DataFrame | None = None,
    flags: pd.DataFrame | None = None,
    digits: int = 2,
    best: str | None = "min",
    flag_mark: str = "†",
    caption: str | None = None,
):
    """Table 2 or 3, ours beside the paper's, for display: intervals, marks, bold best.

    Parameters
    ----------
    table : DataFrame
        From :func:`prunelab.lab.experiments.paper_table`: index the benchmarks,
        columns ``(sampler, "ours" | "paper")``.
    intervals : DataFrame, optional
        Columns ``(sampler, "low" | "high")`` on the same index: shown after our value
        as ``[low, high]`` (e.g. the bootstrap interval of alpha).
    flags : DataFrame of bool or str, optional
        Columns ``sampler`` on the same index: True (or a non-empty mark such as
        ``"‡"``) where our number is not what the paper's measures (a non-ergodic
        sampler: alpha is then no convergence rate). Our value gets the mark
        (``flag_mark`` for True) and is greyed out.
    digits : int, default 2
        Significant decimals of the values.
    best : {"min", None}, default "min"
        Bold the smallest value per row, separately for ours (among unflagged
        values) and for the paper's, as the paper bolds its best sampler.
    flag_mark : str, default "†"
    caption : str, optional

    Returns
    -------
    pandas.io.formats.style.Styler
        Cells are strings ("-" for a missing value); ``.data`` holds them.

    Examples
    --------
    >>> cols = pd.MultiIndex.from_product([["gibbs", "prune"], ["ours", "paper"]])
    >>> table = pd.DataFrame([[0.5, 0.52, 0.8, 0.81]], index=["Asia_ev0"], columns=cols)
    >>> flags = pd.DataFrame({"gibbs": [True], "prune": [False]}, index=["Asia_ev0"])
    >>> styler = style_paper_table(table, flags=flags)
    >>> styler.data.loc["Asia_ev0"].tolist()
    ['0.50 †', '0.52', '0.80', '0.81']
    >>> "font-weight: bold" in styler.to_html()
    True
    >>> marks = pd.DataFrame({"gibbs": ["‡"], "prune": [""]}, index=["Asia_ev0"])
    >>> style_paper_table(table, flags=marks).data.loc["Asia_ev0", ("gibbs", "ours")]
    '0.50 ‡'
    """
    samplers = list(dict.fromkeys(table.columns.get_level_values(0)))
    fmt = f"{{:.{digits}f}}"

    def number(v):
        return "-" if not np.isfinite(v) else fmt.format(v)

    shown = pd.DataFrame(index=table.index, columns=table.columns, dtype=object)
    css = pd.DataFrame("", index=table.index, columns=table.columns)
    for sampler in samplers:
        for source in table[sampler].columns:
            values = table[(sampler, source)].to_numpy(float)
            cells = [number(v) for v in values]
            if source == "ours":
                if intervals is not None and (sampler, "low") in intervals:
                    low = intervals[(sampler, "low")].reindex(table.index).to_numpy(float)
                    high = intervals[(sampler, "high")].reindex(table.index).to_numpy(float)
                    cells = [
                        c if not (np.isfinite(lo) and np.isfinite(hi)) else f"{c} [{number(lo)}, {number(hi)}]"
                        for c, lo, hi in zip(cells, low, high)
                    ]
                if flags is not None and sampler in flags:
                    marks = _marks(flags[sampler].reindex(table.index), flag_mark)
                    cells = [f"{c} {m}" if m else c for c, m in zip(cells, marks)]
                    css[(sampler, source)] = ["color: #888888; font-style: italic" if m else "" for m in marks]
            shown[(sampler, source)] = cells
    if best == "min":
        for source in ("ours", "paper"):
            cols = [(m, source) for m in samplers if (m, source) in table]
            values = table[cols].to_numpy(float).copy()
            if source == "ours" and flags is not None:
                for j, (m, _) in enumerate(cols):
                    if m in flags:
                        flagged = [bool(k) for k in _marks(flags[m].reindex(table.index), flag_mark)]
                        values[np.array(flagged), j] = np.nan
            for i in range(len(table)):
                row = values[i]
                if np.isfinite(row).any():
                    j = int(np.nanargmin(row))
                    k = table.columns.get_loc(cols[j])
                    css.iloc[i, k] = "; ".join(filter(None, [css.iloc[i, k], "font-weight: bold"]))
    elif best is not None:
        raise ValueError(f"best must be 'min' or None, got {best!r}")
    styler = shown.style.apply(lambda _: css, axis=None)
    if caption:
        styler = styler.set_caption(caption)
    return styler
