"""Networks in and out: BIF, UAI, Hugin, Netica, GeNIe and BIFXML files, and pgmpy models.

Errors on malformed files name the file and the line (and the token) at fault,
and come before anything larger than the file itself is allocated: a CPT's
declared size is checked against :data:`~prunelab.network.MAX_CPT_ENTRIES`, the
tables' total against :data:`~prunelab.io.assemble.MAX_NETWORK_ENTRIES` (a BIF
``default`` row or a deterministic table fills a table from a few bytes), and each
against the numbers the file gives, before the table is allocated. Reading is
linear in the file size.

==============  ============================================================
module          job
==============  ============================================================
``tokens``      reading a file (size capped), the BIF/UAI tokenizer, strict numbers
``bif``         :func:`read_bif`
``uai``         :func:`read_uai`, :func:`write_uai` (names in a sidecar)
``lexer``       the tokenizer and nested tables of the Hugin, Netica, GeNIe text
``xmltree``     a guarded XML tree (no DTD, no entity) of the elements read, with line numbers
``assemble``    parent checks, deterministic tables, the network with file:line
``net``         :func:`read_net` (Hugin)
``dne``         :func:`read_dne` (Netica)
``dsl``         :func:`read_dsl` (GeNIe, text)
``xdsl``        :func:`read_xdsl` (GeNIe, XML)
``bifxml``      :func:`read_bifxml`
``inst``        :func:`read_instantiation` (Ace evidence files)
``dispatch``    :func:`read_network`: the reader chosen by the file's extension
``pgmpy``       :func:`to_pgmpy`, :func:`from_pgmpy`
==============  ============================================================

Every file is read whole, at most :data:`~prunelab.io.tokens.MAX_FILE_BYTES`
(counted after gunzipping a ``.gz``); a device or pipe is refused unread. On one
shared 2-core machine, ``mildew`` (280,000-entry CPTs) written by pyAgrum reads at
8.6 MB/s as ``.net``, 4.2 as ``.dsl``, 2.3 as ``.xdsl``, 3.7 as BIFXML and 5.0 as
BIF; ``scripts/check_formats.py`` checks every reader against pyAgrum's writers.
"""

from .assemble import MAX_NETWORK_ENTRIES
from .bif import read_bif
from .bifxml import read_bifxml
from .dispatch import READERS, read_network
from .dne import read_dne
from .dsl import read_dsl
from .inst import read_instantiation
from .net import read_net
from .pgmpy import from_pgmpy, to_pgmpy
from .tokens import MAX_FILE_BYTES, FileFormatError
from .uai import read_uai, write_uai
from .xdsl import read_xdsl

__all__ = [
    "FileFormatError",
    "MAX_FILE_BYTES",
    "MAX_NETWORK_ENTRIES",
    "READERS",
    "read_bif",
    "read_bifxml",
    "read_dne",
    "read_dsl",
    "read_instantiation",
    "read_net",
    "read_network",
    "read_uai",
    "read_xdsl",
    "write_uai",
    "from_pgmpy",
    "to_pgmpy",
]
