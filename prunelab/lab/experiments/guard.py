"""One run in a forked child, stopped at a wall-clock cap or a memory cap over the child and its processes.

The literature-families experiment (:mod:`~prunelab.lab.experiments.families`) runs
each exact method this way, so that a method without a time cap of its own (the
junction tree, ``auto``, pyAgrum) is stopped like the others, and a run past its
caps is a refusal record, not a lost sweep.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time

from prunelab.circuit.processes import process_bytes

__all__ = ["REFUSALS", "clipped_message", "guarded"]

REFUSALS = ("TablesTooLargeError", "CircuitTooLargeError", "CountTooHardError")
"""Exceptions that are a method's refusal at its caps (any other exception is a failure)."""


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return out


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def clipped_message(text: str, keep: int = 300) -> str:
    """``text``, or past ``2 * keep`` characters its first and last ``keep`` joined by `` … ``.

    The head says what failed and the tail often why (an ``EvidenceError`` lists the
    valid names, then names the cause), so both are kept.

    Examples
    --------
    >>> clipped_message("abcdef", keep=3), clipped_message("abc-middle-xyz", keep=3)
    ('abcdef', 'abc … xyz')
    """
    return text if len(text) <= 2 * keep else f"{text[:keep]} … {text[-keep:]}"


def _guard_child(fn, writer) -> None:
    import resource

    tic = time.perf_counter()
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 - handed to the parent, which records it
        kind = "refused" if type(exc).__name__ in REFUSALS else "failed"
        message = (type(exc).__name__, clipped_message(str(exc)))
        value = None
    else:
        kind, message = "answered", ("", "")
    seconds = time.perf_counter() - tic
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    writer.send((kind, value, message, seconds, peak))
    writer.close()


def guarded(fn, timeout: float, max_bytes: int) -> dict:
    """``fn()`` in a forked child, stopped after ``timeout`` seconds or past ``max_bytes`` of resident memory.

    Returns
    -------
    dict
        ``status`` (``"answered"``, ``"refused"`` for an exception of :data:`REFUSALS`,
        ``"failed"`` for another, ``"timed out"``, ``"memory cap"``), ``value`` (what ``fn``
        returned, or None), ``error`` (exception class) and ``message``, ``wall_seconds``
        (of ``fn`` in the child, or until it was stopped), ``cpu_seconds`` (the child's and its
        descendants'), ``peak_bytes`` (the child's own peak, or the largest resident memory
        seen of it and its descendants where it was stopped).

    Examples
    --------
    >>> guarded(lambda: 6 * 7, timeout=60, max_bytes=2**33)["value"]
    42
    >>> guarded(lambda: time.sleep(5), timeout=0, max_bytes=2**33)["status"]
    'timed out'
    """
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    cpu = _children_cpu()
    start = time.perf_counter()
    child = ctx.Process(target=_guard_child, args=(fn, writer), daemon=False)
    child.start()
    writer.close()
    peak, result = 0, None
    try:
        while True:
            seconds = time.perf_counter() - start
            peak = max(peak, sum(process_bytes(p) for p in _descendants(child.pid)))
            if seconds > timeout or peak > max_bytes:
                status = "timed out" if seconds > timeout else "memory cap"
                cap = f"{timeout:g} s" if seconds > timeout else f"{max_bytes / 2**30:g} GiB"
                result = {"status": status, "value": None, "error": "",
                          # the seconds and bytes measured are in their own fields: the message is the same
                          # on every machine and worker (a sweep on a cluster equals the serial one)
                          "message": f"stopped at its cap of {cap}",
                          "wall_seconds": seconds, "peak_bytes": peak}
                break
            if reader.poll(min(0.1, max(timeout - seconds, 0.0) + 0.001)):
                try:
                    kind, value, (error, message), seconds, own_peak = reader.recv()
                except EOFError:
                    child.join()
                    result = {"status": "failed", "value": None, "error": "ChildExited",
                              "message": f"the method's process exited with code {child.exitcode} (out of memory?)",
                              "wall_seconds": time.perf_counter() - start, "peak_bytes": peak}
                else:
                    result = {"status": kind, "value": value, "error": error, "message": message,
                              "wall_seconds": seconds, "peak_bytes": max(own_peak, 0)}
                break
    finally:
        if child.is_alive() and (result is None or result["status"] in ("timed out", "memory cap")):
            for p in reversed(_descendants(child.pid)):
                try:
                    os.kill(p, 9)
                except OSError:
                    pass
        child.join()
        reader.close()
    result["cpu_seconds"] = _children_cpu() - cpu
    return result
