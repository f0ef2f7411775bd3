"""Optional packages: whether one is installed, and a clear error naming the extra that installs it.

The core (``pip install prunelab``) needs only what ``import prunelab``, the samplers,
:func:`~prunelab.sample` and the junction tree use. Packages whose wheels exist on few
platforms, or that only part of the library uses, are *extras* of ``pyproject.toml``:

=========== ================================ ==========================================
extra       packages                         what needs them
=========== ================================ ==========================================
circuit     PySDD (imported as ``pysdd``)    compiled circuits past the junction tree
counter     pyganak                          exact answers by weighted model counting
solvers     pycmsgen, pyunigen               ``uniform="cmsgen"`` / ``"unigen"`` draws
experiments pandas, pyarrow, arviz, dask     the lab's sweeps, ``to_inference_data``
=========== ================================ ==========================================

:func:`require` imports such a package or raises :class:`MissingExtraError` with the
``pip install`` line; :func:`available` answers without importing it, for a caller that
chooses another method when a package is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["MissingExtraError", "require", "available"]


class MissingExtraError(ImportError):
    """An optional package is not installed; the message names the extra of ``prunelab`` that installs it."""


def require(package: str, extra: str, for_what: str) -> ModuleType:
    """Import the optional ``package``, or say which extra of ``prunelab`` installs it.

    Parameters
    ----------
    package : str
        The module to import (``"pysdd.sdd"``, ``"pyganak"``, ``"arviz"``).
    extra : str
        The extra of ``pyproject.toml`` that installs it.
    for_what : str
        What needs it, as the message's subject ("compiling a circuit").

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    MissingExtraError
        ``package`` cannot be imported; the message ends with ``pip install 'prunelab[extra]'``.

    Examples
    --------
    >>> from prunelab.extras import require
    >>> require("math", "none", "arithmetic").sqrt(4.0)
    2.0
    >>> require("no_such_package", "circuit", "compiling a circuit")
    Traceback (most recent call last):
    ...
    prunelab.extras.MissingExtraError: compiling a circuit needs the package no_such_package, which is not \
installed: pip install 'prunelab[circuit]'
    """
    try:
        return importlib.import_module(package)
    except ImportError as error:
        raise MissingExtraError(
            f"{for_what} needs the package {package}, which is not installed: pip install 'prunelab[{extra}]'"
        ) from error


def available(package: str) -> bool:
    """Whether ``package`` can be imported, without importing it (only its parent packages, if dotted).

    Examples
    --------
    >>> from prunelab.extras import available
    >>> available("math"), available("no_such_package")
    (True, False)
    """
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):  # a missing parent package; a module whose __spec__ is unset
        return False
