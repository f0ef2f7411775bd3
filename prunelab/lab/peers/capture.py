"""A peer's side effects, contained: its warnings and log records, numpy's global generator, its crashes.

A peer runs inside :func:`recording_warnings` (its runtime and user warnings become
the run's ``warnings``, deprecations pass on to the usual filters) and
:func:`quiet_loggers`; a peer that draws from numpy's *global* generator (pgmpy)
runs inside :func:`numpy_global_seed`, which gives the state back afterwards; an
exception it raises becomes the run's note through :func:`crash_note`.
"""

from __future__ import annotations

import logging
import warnings
from contextlib import contextmanager

import numpy as np

__all__ = ["crash_note", "numpy_global_seed", "quiet_loggers", "recording_warnings", "unique_messages"]


@contextmanager
def recording_warnings(sink: list[str]):
    """Record runtime/user warnings into ``sink``; pass deprecation warnings on.

    Parameters
    ----------
    sink : list of str
        Receives ``"<Category>: <message>"`` for every other warning raised in the block.

    Examples
    --------
    >>> import warnings
    >>> sink = []
    >>> with recording_warnings(sink):
    ...     warnings.warn("a peer's remark", RuntimeWarning)
    >>> sink
    ["RuntimeWarning: a peer's remark"]
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, module=_module_of(w.filename))
        else:
            sink.append(f"{w.category.__name__}: {w.message}")


def _module_of(filename: str) -> str:
    """Dotted module name of a file under site-packages (so warning filters by module still apply)."""
    path = filename.replace("\\", "/")
    tail = path.split("site-packages/")[-1] if "site-packages/" in path else path.rsplit("/", 1)[-1]
    return tail.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


@contextmanager
def quiet_loggers(*names: str, level: int = logging.ERROR):
    """Raise the level of the loggers ``names`` to ``level`` inside the block, restore it after."""
    loggers = [logging.getLogger(n) for n in names]
    before = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(level)
    try:
        yield
    finally:
        for lg, lvl in zip(loggers, before):
            lg.setLevel(lvl)


@contextmanager
def numpy_global_seed(seed: int):
    """Seed numpy's global generator (``np.random.seed``) for the block; restore its state after.

    For a peer that draws from the global generator and takes no generator of its
    own: its draws follow from ``seed``, and the caller's global stream is left as
    it was, even if the block raises.

    Examples
    --------
    >>> before = np.random.get_state()[1].copy()
    >>> with numpy_global_seed(5):
    ...     first = np.random.random()
    >>> bool((np.random.get_state()[1] == before).all())
    True
    """
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def unique_messages(messages: list[str], limit: int = 5) -> tuple[str, ...]:
    """The first ``limit`` distinct messages in order, each with its count when repeated.

    Examples
    --------
    >>> unique_messages(["a", "b", "a"])
    ('a (x2)', 'b')
    """
    seen: dict[str, int] = {}
    for m in messages:
        seen[m] = seen.get(m, 0) + 1
    return tuple(f"{m} (x{k})" if k > 1 else m for m, k in list(seen.items())[:limit])


def crash_note(exc: BaseException) -> str:
    """``"<ExceptionType>: <first line of its message>"``, at most 300 characters.

    Examples
    --------
    >>> crash_note(ValueError("probabilities contain NaN\\nmore"))
    'ValueError: probabilities contain NaN'
    """
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:300]
