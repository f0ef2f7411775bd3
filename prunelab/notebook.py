"""Two helpers that let the book's chapters run unchanged in plain Jupyter.

The chapters are built by Jupyter Book, which pastes computed numbers into the prose
with MyST-NB's ``glue``, and they end with a record of the versions that made them.
A teacher who downloads a chapter's ``.ipynb`` has ``prunelab`` but not the book
tool chain, so the chapters call these two functions instead:

- :func:`glue` is MyST-NB's ``glue`` when MyST-NB is installed, and otherwise only
  shows the value (when asked to), since plain Jupyter has no prose to paste into;
- :func:`watermark` reports the date, Python, the machine and package versions from
  the standard library alone.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version

__all__ = ["glue", "watermark"]


def glue(name: str, value, display: bool = True) -> None:
    """Store ``value`` under ``name`` for the book's ``{glue}`` roles.

    Parameters
    ----------
    name : str
        The key the prose refers to, as in ``{glue:text}`name```.
    value : object
        A number, string, figure or IPython display object.
    display : bool, default True
        Also show the value in the cell's output.

    Notes
    -----
    Without MyST-NB (plain Jupyter), the value is shown when ``display`` is true and
    nothing else happens.

    Examples
    --------
    >>> glue("answer", 42, display=False)
    """
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        if display:
            from IPython.display import display as show

            show(value)
        return
    myst_glue(name, value, display=display)


def _version_of(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def watermark(packages: Iterable[str] = ("prunelab", "numpy")) -> str:
    """The date, Python, machine and package versions, one per line.

    Parameters
    ----------
    packages : iterable of str
        Distribution names, as ``pip`` knows them.

    Returns
    -------
    str
        Aligned ``key : value`` lines; a package that is missing says so.

    Examples
    --------
    >>> text = watermark(["numpy", "no-such-package"])
    >>> "Python version" in text and "no-such-package : not installed" in text
    True
    """
    system = [
        ("Last updated", datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("Python implementation", platform.python_implementation()),
        ("Python version", platform.python_version()),
        ("Compiler", platform.python_compiler()),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Machine", platform.machine()),
        ("CPU cores", str(os.cpu_count())),
        ("Architecture", f"{sys.maxsize.bit_length() + 1}bit"),
    ]
    installed = [(name, _version_of(name)) for name in packages]

    def block(rows):
        width = max(len(key) for key, _ in rows)
        return "\n".join(f"{key:<{width}} : {value}" for key, value in rows)

    return block(system) + "\n\n" + block(installed)
