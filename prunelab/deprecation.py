"""Old public names kept for one release: they still work and say what replaced them.

A module lists its renamed attributes and hands them to :func:`module_getattr`::

    __getattr__ = module_getattr(__name__, {"OLD_NAME": "NEW_NAME"})

Reading ``module.OLD_NAME`` then gives ``module.NEW_NAME`` with a
:class:`DeprecationWarning` that names both; a new name with dots
(``"prunelab.indicators.mean_hellinger_over_variables"``) is the full path of a
name that lives in another module. A renamed keyword argument goes through
:func:`renamed_keyword`, a renamed attribute of a class through
:func:`renamed_attribute`.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping

__all__ = ["module_getattr", "renamed_attribute", "renamed_keyword", "warn_renamed"]


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (removed in the next release)."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}",
                  DeprecationWarning, stacklevel=stacklevel)


def module_getattr(module: str, renamed: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` that serves each old name of ``renamed`` as its new name, with a warning.

    Parameters
    ----------
    module : str
        The module's ``__name__``.
    renamed : mapping of str to str
        Old attribute name to the new one: a name in ``module``, or the full dotted
        path of a name in another module.

    Returns
    -------
    callable
        To assign to the module's ``__getattr__``.

    Examples
    --------
    >>> import warnings
    >>> from prunelab import paper_numbers
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     old = paper_numbers.BENCHMARKS
    >>> old == paper_numbers.PAPER_BENCHMARKS, caught[0].category.__name__
    (True, 'DeprecationWarning')
    """

    def __getattr__(name: str):
        if name in renamed:
            home, _, new = renamed[name].rpartition(".")
            home = home or module
            warn_renamed(f"{module}.{name}", f"{home}.{new}")
            return getattr(importlib.import_module(home), new)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def renamed_keyword(function: str, old: str, new: str, old_value, new_value, default):
    """The value of keyword ``new``, taken from ``old`` (with a warning) if only that was given.

    ``default`` is the value ``new`` has when not given; giving both is a TypeError.

    Examples
    --------
    >>> renamed_keyword("f", "n_samples", "n_draws", None, 5, None)
    5
    """
    if old_value is None:
        return new_value
    if new_value is not default:
        raise TypeError(f"{function}() got both {new}= and its deprecated name {old}=; give {new}= only")
    warn_renamed(f"{function}(..., {old}=)", f"{new}=", stacklevel=4)
    return old_value


def renamed_attribute(owner: str, old: str, new: str) -> property:
    """A read-only property ``old`` of a class that gives attribute ``new``, with a warning.

    Parameters
    ----------
    owner : str
        The class, as named in the warning (``"prunelab.SampleResult"``).
    old, new : str
        The deprecated attribute and the one that replaces it.

    Examples
    --------
    >>> import warnings
    >>> class Run:
    ...     n_draws = 5
    ...     n_samples = renamed_attribute("Run", "n_samples", "n_draws")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = Run().n_samples
    >>> value, str(caught[0].message)
    (5, 'Run.n_samples is deprecated and will be removed in the next release; use Run.n_draws')
    """

    def getter(self):
        warn_renamed(f"{owner}.{old}", f"{owner}.{new}")
        return getattr(self, new)

    return property(getter, doc=f"Deprecated name of :attr:`{new}`.")
