"""Networks in and out: BIF and UAI files, and pgmpy models.

Errors on malformed files name the file and the line (and the token) at fault,
and come before anything larger than the file itself is allocated: a CPT's
declared size is checked against :data:`~prunelab.network.MAX_CPT_ENTRIES` and
against the numbers the file gives. Reading is linear in the file size.

==============  ============================================================
module          job
==============  ============================================================
``tokens``      the tokenizer and the strict numbers (errors name file:line)
``bif``         :func:`read_bif`
``uai``         :func:`read_uai`, :func:`write_uai` (names in a sidecar)
``pgmpy``       :func:`to_pgmpy`, :func:`from_pgmpy`
==============  ============================================================
"""

from .bif import read_bif
from .pgmpy import from_pgmpy, to_pgmpy
from .tokens import FileFormatError
from .uai import read_uai, write_uai

__all__ = ["FileFormatError", "read_bif", "read_uai", "write_uai", "from_pgmpy", "to_pgmpy"]
