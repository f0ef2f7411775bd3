"""The counter's and the compiler's child processes: caps checked before any fork, children that die with their parent.

Ganak and the SDD library cannot be interrupted, so counts and compilations run in
forked children (:mod:`~prunelab.circuit.counting`, :mod:`~prunelab.circuit.compiler`)
that the parent stops at its caps. Three things make that safe:

* :func:`checked_seconds` and :func:`checked_amount` refuse a cap of the wrong type,
  a non-finite one (``nan`` compares false with everything, so it turned a cap off)
  or a negative one, naming the parameter, before anything forks. A cap of 0 is a
  cap: it refuses at the first check, before any count or apply is accepted.
* :func:`enter_child`, the first thing a child does, asks Linux to kill it when its
  parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``: a ``SIGTERM`` or ``kill -9`` of
  the parent runs no ``finally``, and the children ran on for minutes), and leaves at
  once if the parent died before that. The signal follows the *thread* that forked;
  here that thread waits for its children and stops them before it returns, so it
  outlives them. Elsewhere, and as a second line on Linux, the children check
  ``os.getppid()`` between counts and applies.
* :func:`enter_child` also gives the child caps of its own, in case the parent is
  stopped (``SIGSTOP``) or cannot watch it: CPU seconds (``RLIMIT_CPU``: the wall
  cap plus a second; a child's CPU time is at most its wall time, so the parent's cap
  comes first whenever it is watching) and address space (``RLIMIT_AS``: what the
  child inherited plus its own share, so that the address space numba and LLVM
  reserved in the parent is not counted against it), and no core file.
"""

from __future__ import annotations

import math
import numbers
import os
import signal
import sys

__all__ = ["checked_amount", "checked_seconds", "enter_child", "parent_gone", "process_bytes"]

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def checked_seconds(name: str, value) -> float:
    """``value`` as a time cap in seconds: a real number, finite and not negative; else an error naming ``name``.

    Examples
    --------
    >>> checked_seconds("max_seconds", 3)
    3.0
    >>> checked_seconds("max_seconds", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: max_seconds must be a finite number of seconds, 0 or more, got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds, got a {type(value).__name__} ({value!r})")
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of seconds, 0 or more, got {value!r}")
    return value


def checked_amount(name: str, value, unit: str) -> int:
    """``value`` as a cap in ``unit`` (bytes, elements): an integer, not negative; else an error naming ``name``.

    Examples
    --------
    >>> checked_amount("max_size", 10, "elements")
    10
    >>> checked_amount("max_size", "10", "elements")
    Traceback (most recent call last):
    ...
    TypeError: max_size must be an integer number of elements, got a str ('10')
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer number of {unit}, got a {type(value).__name__} ({value!r})")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more {unit}, got {value!r}")
    return int(value)


def process_bytes(pid: int | str = "self", field: int = 1) -> int:
    """A process's resident memory (``field=1``) or address space (``field=0``) in bytes, from Linux ``/proc``.

    0 where it cannot be read (another system, a process that has ended).

    Examples
    --------
    >>> import os
    >>> 0 < process_bytes(os.getpid()) <= process_bytes(field=0)
    True
    """
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def enter_child(parent: int, *, cpu_seconds: float, extra_bytes: int) -> None:
    """Called first in a forked child: die with ``parent``, and cap this process's CPU time and address space.

    Parameters
    ----------
    parent : int
        The parent's process id (``os.getpid()`` read before the fork).
    cpu_seconds : float
        ``RLIMIT_CPU``: the process is killed past ``ceil(cpu_seconds) + 1`` CPU seconds.
    extra_bytes : int
        ``RLIMIT_AS``: the address space may grow by this much past what the fork left
        it (where ``/proc`` tells that size).
    """
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl: the getppid checks remain
            pass
    if parent_gone(parent):  # it died before the prctl: no signal will come
        os._exit(1)
    try:
        import resource
    except ImportError:  # pragma: no cover - forking platforms have it
        return
    _lower(resource, resource.RLIMIT_CORE, 0)
    _lower(resource, resource.RLIMIT_CPU, math.ceil(cpu_seconds) + 1)
    size = process_bytes(field=0)
    if size and hasattr(resource, "RLIMIT_AS"):
        _lower(resource, resource.RLIMIT_AS, size + extra_bytes)


def _lower(resource, which: int, limit: int) -> None:
    """Lower a limit (soft and hard) to ``limit``; one already lower is kept."""
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY and soft < limit:
        return
    try:
        resource.setrlimit(which, (limit, limit))
    except (ValueError, OSError):  # pragma: no cover - a platform that refuses: the parent's caps remain
        pass


def parent_gone(parent: int) -> bool:
    """Whether the process that forked this one has died (this one was handed to another parent)."""
    return os.getppid() != parent
