"""Reading a network file by its extension: :func:`read_network`."""

from __future__ import annotations

from pathlib import Path

from ..network import BayesianNetwork
from .bif import read_bif
from .bifxml import read_bifxml
from .dne import read_dne
from .dsl import read_dsl
from .net import read_net
from .tokens import FileFormatError
from .uai import read_uai
from .xdsl import read_xdsl

__all__ = ["READERS", "read_network"]

READERS = {
    ".bif": read_bif,
    ".uai": read_uai,
    ".net": read_net,
    ".dne": read_dne,
    ".dsl": read_dsl,
    ".xdsl": read_xdsl,
    ".xml": read_bifxml,
    ".bifxml": read_bifxml,
    ".xmlbif": read_bifxml,
}
"""The reader of each extension (lower case); each also reads the file gzipped, ``<name><ext>.gz``."""


def read_network(path, normalize: bool = False, name: str | None = None) -> BayesianNetwork:
    """Read a network file with the reader its extension names.

    Parameters
    ----------
    path : str or Path
        A file ending in one of the extensions of :data:`READERS` (any case),
        optionally followed by ``.gz``.
    normalize : bool, default False
        Rescale each conditional distribution to sum to 1.
    name : str, optional
        The network's name; defaults to the file name without suffixes.

    Returns
    -------
    BayesianNetwork

    Raises
    ------
    FileFormatError
        An extension no reader has (the message lists those there are), or a
        malformed file (see each reader).
    NetworkError
        A well-formed file that describes an invalid network.
    OSError
        The file cannot be read.

    See Also
    --------
    read_bif, read_uai, read_net, read_dne, read_dsl, read_xdsl, read_bifxml

    Examples
    --------
    >>> from prunelab import read_network
    >>> from prunelab.catalogue import pgmpy_example_path
    >>> read_network(pgmpy_example_path("asia")).n_variables
    8
    >>> read_network("notes.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prunelab.io.tokens.FileFormatError: notes.txt: unknown network file extension '.txt'; supported: .bif, .uai, ...
    """
    path = Path(path)
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes.pop()
    extension = suffixes[-1] if suffixes else ""
    if extension not in READERS:
        shown = repr(extension) if extension else "(none)"
        raise FileFormatError(
            f"{path}: unknown network file extension {shown}; supported: {', '.join(READERS)} "
            "(each also gzipped, + .gz)"
        )
    return READERS[extension](path, normalize=normalize, name=name)
