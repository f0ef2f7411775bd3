"""Checkpoints: the draw counts ``t`` at which running estimates are read.

One grid and one check serve the whole package: :func:`log_checkpoints` makes the
log-spaced grid that the indicators, the experiment profiles and the Rao-Blackwell
sums of :func:`prunelab.sample` use by default, and :func:`checked_checkpoints`
refuses, with a message that names the argument, counts that are not integers or
lie outside ``1..n_draws`` (and, where the caller needs it, counts that do not
increase).

Examples
--------
>>> from prunelab.checkpoints import checked_checkpoints, log_checkpoints
>>> log_checkpoints(1000, 4).tolist()
[1, 10, 100, 1000]
>>> checked_checkpoints([10, 1000], 1000).tolist()
[10, 1000]
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_checkpoints", "checked_checkpoints"]


def log_checkpoints(n_draws: int, n_points: int = 50) -> np.ndarray:
    """Log-spaced draw counts ``t`` from 1 to ``n_draws`` inclusive.

    Parameters
    ----------
    n_draws : int
        Number of draws per run, ``T`` (at least 1).
    n_points : int, default 50
        Number of log-spaced points asked for (at least 2). Rounding to integers
        merges points at small ``t``, so fewer may be returned.

    Returns
    -------
    numpy.ndarray of int64
        Sorted, unique; the first is 1 and the last is ``n_draws``.

    References
    ----------
    Phillipson, Parie and Weikamp (2019), section "Performance indicators": AHD(t)
    and sigma_t are shown on a log axis of ``t``, ``1 <= t <= 25000``.

    Examples
    --------
    >>> log_checkpoints(1000, n_points=4).tolist()
    [1, 10, 100, 1000]
    >>> log_checkpoints(5, n_points=50).tolist()
    [1, 2, 3, 4, 5]
    """
    n_draws = int(n_draws)
    n_points = int(n_points)
    if n_draws < 1:
        raise ValueError(f"n_draws must be at least 1, got {n_draws}")
    if n_points < 2:
        raise ValueError(f"n_points must be at least 2, got {n_points}")
    points = np.rint(np.geomspace(1, n_draws, n_points)).astype(np.int64)
    points[0], points[-1] = 1, n_draws
    return np.unique(points)


def checked_checkpoints(checkpoints, n_draws: int, *, name: str = "checkpoints",
                        increasing: bool = False) -> np.ndarray:
    """``checkpoints`` as int64 draw counts in ``1..n_draws``, or a clear error.

    Parameters
    ----------
    checkpoints : array_like of int
        Draw counts, 1-D (a single count is taken as one checkpoint); may be empty.
    n_draws : int
        The number of draws they refer to.
    name : str, default "checkpoints"
        The argument's name in the messages (e.g. ``"rb_checkpoints"``).
    increasing : bool, default False
        Also require strictly increasing counts (kernels that record as they go).

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    TypeError
        Counts that are not integers (``2.5`` is not rounded).
    ValueError
        Not 1-D, outside ``1..n_draws``, or (``increasing``) not strictly increasing.

    Examples
    --------
    >>> checked_checkpoints(7, 10).tolist()
    [7]
    >>> checked_checkpoints([5, 5], 10, name="rb_checkpoints", increasing=True)
    Traceback (most recent call last):
    ...
    ValueError: rb_checkpoints must increase strictly within 1..10, got [5, 5]
    """
    cps = np.asarray(checkpoints)
    if cps.ndim == 0:
        cps = cps.reshape(1)
    if cps.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of draw counts, got shape {cps.shape}")
    if cps.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.issubdtype(cps.dtype, np.integer):
        raise TypeError(f"{name} must be integers, got dtype {cps.dtype}")
    cps = cps.astype(np.int64)
    if cps.min() < 1 or cps.max() > n_draws:
        raise ValueError(f"{name} must lie in 1..{n_draws} (the number of draws), got {cps.min()}..{cps.max()}")
    if increasing and np.any(np.diff(cps) <= 0):
        shown = cps.tolist()[:10]
        raise ValueError(f"{name} must increase strictly within 1..{n_draws}, got {shown}")
    return cps
