"""What a peer says while it runs: its warnings and log records captured, a crash turned into a note."""

from __future__ import annotations

import logging
import warnings
from contextlib import contextmanager

@contextmanager
def _recording_warnings(sink: list[str]):
    """Record runtime/user warnings into ``sink``; pass deprecation warnings on."""
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
def _quiet_loggers(*names: str, level: int = logging.ERROR):
    loggers = [logging.getLogger(n) for n in names]
    before = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(level)
    try:
        yield
    finally:
        for lg, lvl in zip(loggers, before):
            lg.setLevel(lvl)


def _unique(messages: list[str], limit: int = 5) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    for m in messages:
        seen[m] = seen.get(m, 0) + 1
    return tuple(f"{m} (x{k})" if k > 1 else m for m, k in list(seen.items())[:limit])


def _crash_note(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first}"[:300]
