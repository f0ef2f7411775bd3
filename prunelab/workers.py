"""Worker processes: how many to start, and ending them when the parent is told to stop.

:func:`worker_count` caps a requested number of workers at the number of tasks and
of usable cores (joblib would otherwise start every worker asked for: ``n_jobs=32``
for two chains started 32 processes), and says so when it caps.
:func:`sigterm_as_interrupt` turns a ``SIGTERM`` into a ``KeyboardInterrupt`` while a
sweep runs, so that the sweep's Ctrl-C path ends its loky workers too (killed
without it, the parent left them running for minutes).
:func:`sigint_blocked` starts worker processes with ``SIGINT`` blocked, so that a
terminal's Ctrl-C, which reaches every process of the group, stops only the parent,
even while a worker is still starting (it would otherwise print its own traceback).
"""

from __future__ import annotations

import contextlib
import numbers
import signal
import threading
import warnings

__all__ = ["Terminated", "checked_jobs", "sigint_blocked", "sigterm_as_interrupt", "usable_cores", "worker_count"]


def usable_cores() -> int:
    """Cores this process may use (affinity and container quotas counted, as joblib counts them)."""
    from joblib import cpu_count

    return max(1, int(cpu_count()))


def checked_jobs(n_jobs) -> int:
    """``n_jobs`` as joblib counts it (a non-zero integer; ``-1`` every usable core), or an error.

    Examples
    --------
    >>> checked_jobs(-1)
    -1
    >>> checked_jobs(0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs must be a non-zero integer (-1: every usable core), got 0
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be a non-zero integer, got a {type(n_jobs).__name__} ({n_jobs!r})")
    if n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer (-1: every usable core), got {n_jobs!r}")
    return int(n_jobs)


def worker_count(n_jobs: int, n_tasks: int, what: str = "tasks") -> int:
    """The number of workers to start for ``n_tasks`` tasks when ``n_jobs`` are asked for.

    ``n_jobs = -1`` means every usable core, ``-2`` all but one, and so on (joblib's
    convention); the result is at most ``n_tasks`` and the usable cores, and at least 1.
    A positive ``n_jobs`` that is lowered is reported by a ``UserWarning``.

    Parameters
    ----------
    n_jobs : int
        Non-zero.
    n_tasks : int
    what : str
        What the tasks are, for the message (``"runs"``, ``"chains"``).

    Returns
    -------
    int

    Examples
    --------
    >>> worker_count(1, 10)
    1
    >>> worker_count(-1, 1)
    1
    """
    cores = usable_cores()
    wanted = int(n_jobs) if n_jobs > 0 else max(1, cores + 1 + int(n_jobs))
    capped = max(1, min(wanted, cores, int(n_tasks)))
    if n_jobs > 0 and capped < wanted:
        warnings.warn(
            f"n_jobs={n_jobs} lowered to {capped} worker{'s' * (capped != 1)}: {n_tasks} {what} on "
            f"{cores} usable core{'s' * (cores != 1)}",
            UserWarning,
            stacklevel=3,
        )
    return capped


class Terminated(KeyboardInterrupt):
    """The process received ``SIGTERM`` (raised by :func:`sigterm_as_interrupt`)."""


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Within the block, ``SIGTERM`` raises :class:`Terminated` (a ``KeyboardInterrupt``).

    Only in the main thread and only where ``SIGTERM`` has its default action (a
    handler the caller installed is left alone); the previous handler is restored.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        raise Terminated("SIGTERM")

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def sigint_blocked():
    """Within the block, ``SIGINT`` is blocked in this thread; processes started here are born with it blocked.

    A terminal's Ctrl-C sends ``SIGINT`` to every process of the foreground group,
    the workers included. A worker that has not yet set ``SIGINT`` aside (it is still
    starting Python or importing) would end with a ``KeyboardInterrupt`` traceback of
    its own. A signal mask is inherited across ``fork`` and ``exec`` and Python does
    not clear it, so a worker started in this block never receives ``SIGINT``, from
    its first instruction on (the ``resource_tracker`` of :mod:`multiprocessing`
    starts its process the same way, and is started first here: its start unblocks
    ``SIGINT`` in the calling thread). Threads started here keep it blocked too. The
    parent leaves the block with its previous mask: a ``SIGINT`` that came meanwhile is
    then raised as ``KeyboardInterrupt``, at the block's end. Outside the main thread
    and where ``pthread_sigmask`` is missing (Windows), the block does nothing.

    Examples
    --------
    >>> import signal
    >>> with sigint_blocked():
    ...     blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    >>> blocked, signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    (True, False)
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    from multiprocessing import resource_tracker

    # the standard resource tracker, which loky starts with its first worker, ends its own start by unblocking
    # SIGINT (SIG_UNBLOCK, not the previous mask): started first, it leaves the mask alone
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
