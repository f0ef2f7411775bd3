"""The helpers every chapter of the book uses, so that it runs unchanged in plain Jupyter.

The chapters are built by Jupyter Book, which pastes computed numbers into the prose
with MyST-NB's ``glue``, and they end with a record of the versions that made them.
A teacher who downloads a chapter's ``.ipynb`` has ``prunelab`` but not the book
tool chain, so the chapters call these functions instead:

- :func:`setup` is a chapter's first line: the book profile, the chapter's one
  random generator, quiet progress bars, figures as SVG and a line of versions;
- a chapter reads its experiment's results with
  :func:`prunelab.lab.experiments.results`: the frozen ones at the paper's scale, or
  computed on the spot at a smaller profile;
- :func:`glue` is MyST-NB's ``glue`` when MyST-NB is installed, and otherwise only
  shows the value (when asked to), since plain Jupyter has no prose to paste into;
  :func:`glue_float` and :func:`glue_range` glue a number, or a range of numbers, for
  the prose without showing it;
- :func:`draw_seed` gives a peer library or a run an integer seed drawn from the
  chapter's one generator;
- :func:`watermark` reports the date, Python, the machine and package versions from
  the standard library alone.
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
import warnings
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import NamedTuple

import numpy as np

from .experiments.specs import PROFILES

__all__ = [
    "Chapter",
    "PROFILE_VARIABLE",
    "draw_seed",
    "glue",
    "glue_float",
    "glue_range",
    "setup",
    "watermark",
]

PROFILE_VARIABLE = "PRUNELAB_PROFILE"
"""The environment variable that names the book's profile (``make book`` sets it)."""

DEFAULT_PROFILE = "paper"


class Chapter(NamedTuple):
    """What a chapter's first cell makes (see :func:`setup`)."""

    rng: np.random.Generator
    """The chapter's one generator: every random number in the chapter comes from it."""
    profile: str
    """The book profile: ``"paper"`` (the paper's scale) or a smaller one, such as ``"smoke"``."""


def setup(seed: int, packages: Iterable[str] = ("prunelab", "numpy", "pandas")) -> Chapter:
    """Start a chapter: its profile, its random generator, and a line of versions.

    Parameters
    ----------
    seed : int
        The chapter's seed; the chapter draws every random number from
        ``numpy.random.default_rng(seed)``.
    packages : iterable of str
        Distributions whose versions the printed line names.

    Returns
    -------
    Chapter
        ``(rng, profile)``. The profile comes from the ``PRUNELAB_PROFILE``
        environment variable (default ``"paper"``) and must name one of
        :data:`prunelab.lab.experiments.PROFILES`.

    Notes
    -----
    In a Jupyter kernel without ``ipywidgets``, ``tqdm.auto`` warns "IProgress not
    found" when first imported, and pgmpy imports it. The chapters show no progress
    bars, so it is imported here once with that one warning ignored: nothing reaches
    the page's stderr. In a Jupyter kernel figures are then shown as SVG, with a PNG
    beside it for viewers without SVG, so that they stay sharp when enlarged.

    Examples
    --------
    >>> rng, profile = setup(seed=1, packages=["numpy"])  # doctest: +ELLIPSIS
    numpy ...; profile '...'
    >>> float(rng.random()) == float(np.random.default_rng(1).random())
    True
    """
    profile = os.environ.get(PROFILE_VARIABLE, DEFAULT_PROFILE)
    if profile not in PROFILES:
        raise ValueError(f"{PROFILE_VARIABLE}={profile!r}: unknown profile {profile!r}; "
                         f"profiles are {sorted(PROFILES)}")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found")
        import tqdm.auto  # noqa: F401
    _vector_figures()
    print(", ".join(f"{name} {_version_of(name)}" for name in packages) + f"; profile {profile!r}")
    return Chapter(np.random.default_rng(seed), profile)


def _vector_figures() -> None:
    """In a Jupyter kernel, show figures as SVG (sharp on a slide), with a PNG beside it.

    Outside IPython (a script, a doctest) nothing changes.
    """
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:
        return
    if get_ipython() is not None:
        set_matplotlib_formats("svg", "png")


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
    Without MyST-NB (plain Jupyter: a chapter's download), the value is shown when
    ``display`` is true, and a matplotlib figure always: the book shows a glued figure
    with its ``{glue:figure}`` caption, the download where the figure is made.

    Examples
    --------
    >>> glue("answer", 42, display=False)
    """
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        from matplotlib.figure import Figure

        if display or isinstance(value, Figure):
            from IPython.display import display as show

            show(value)
        return
    myst_glue(name, value, display=display)


def glue_float(name: str, value) -> None:
    """Glue ``value`` as a plain Python float for the prose, without showing it.

    Parameters
    ----------
    name : str
        The key the prose refers to, as in ``{glue:text}`name:.2f```.
    value : real number or None
        A Python or numpy number; ``None`` (a figure that could not be computed,
        such as the maximum of nothing) is glued as NaN, which the prose shows as
        ``nan``.

    Notes
    -----
    MyST-NB formats the text of a glued value's ``repr``: a numpy scalar's,
    ``np.float64(0.5)``, is no number to a format spec such as ``:.2f``, and reads
    as code without one; a float's, ``0.5``, is.

    Examples
    --------
    >>> glue_float("share", np.float64(0.25))
    >>> glue_float("largest_of_nothing", None)
    """
    glue(name, float(value) if value is not None else float("nan"), display=False)


def glue_range(name: str, low, high, fmt: str) -> str:
    """Glue ``"low–high"`` formatted with ``fmt``, or one number when both round alike.

    Parameters
    ----------
    name : str
        The key the prose refers to, as in ``{glue:text}`name```.
    low, high : real number
        The ends of the range (NaN ends are formatted as ``nan``).
    fmt : str
        A format spec, as in ``format(low, fmt)``: ``".1f"``, ``",.0f"``.

    Returns
    -------
    str
        The text glued, not shown.

    Raises
    ------
    ValueError
        If ``low > high``: the ends are swapped, and the prose would read backwards.

    Examples
    --------
    >>> glue_range("ratio", 1.04, 2.96, ".1f")
    '1.0–3.0'
    >>> glue_range("ratio", 2.01, 2.04, ".1f")
    '2.0'
    """
    if low > high:
        raise ValueError(f"glue_range({name!r}): low {low!r} is above high {high!r}")
    low_text, high_text = format(low, fmt), format(high, fmt)
    text = low_text if low_text == high_text else f"{low_text}–{high_text}"
    glue(name, text, display=False)
    return text


def draw_seed(rng: np.random.Generator, high: int = 2**31 - 1) -> int:
    """A fresh integer seed in ``[0, high)`` drawn from the chapter's generator.

    For code that takes an integer seed rather than a generator (a peer library,
    :func:`prunelab.sample`), so that every random number of a chapter still comes
    from the one ``rng`` of :func:`setup`.

    Parameters
    ----------
    rng : numpy.random.Generator
        The chapter's generator; one ``rng.integers(high)`` is drawn from it.
    high : int, default ``2**31 - 1``
        Exclusive upper bound. The default fits every library the book runs (a
        C ``int`` seed, as pyAgrum's).

    Returns
    -------
    int

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> draw_seed(rng) == int(np.random.default_rng(7).integers(2**31 - 1))
    True
    """
    return int(rng.integers(high))


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
