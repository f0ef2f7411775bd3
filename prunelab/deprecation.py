"""Old public names kept for one release: they still work and say what replaced them.

A module lists its renamed attributes and hands them to :func:`module_getattr`::

    __getattr__ = module_getattr(__name__, {"OLD_NAME": "NEW_NAME"})

Reading ``module.OLD_NAME`` then gives ``module.NEW_NAME`` with a
:class:`DeprecationWarning` that names both. A renamed keyword argument goes through
:func:`renamed_keyword`.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping

__all__ = ["module_getattr", "renamed_keyword", "warn_renamed"]


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
        Old attribute name to the new one, both in ``module``.

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
            warn_renamed(f"{module}.{name}", f"{module}.{renamed[name]}")
            return getattr(sys.modules[module], renamed[name])
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
