"""Read the SDD library's text export into flat arrays, with numba (circuits of tens of millions of nodes).

The file lists nodes bottom-up, children before parents::

    sdd <count>
    F <id>
    T <id>
    L <id> <vtree> <literal>
    D <id> <vtree> <k> <prime> <sub> ... (k pairs)

Node ids are renumbered in the order of the lines, so children come before
parents in the arrays too; lines starting with ``c`` are comments.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["FALSE", "TRUE", "LITERAL", "DECISION", "parse_sdd"]

FALSE, TRUE, LITERAL, DECISION = 0, 1, 2, 3
"""Node kinds in :attr:`prunelab.circuit.Circuit.kind`."""


@numba.njit(cache=True, nogil=True)
def _next_int(buf, pos):
    n = buf.shape[0]
    while pos < n and (buf[pos] == 32 or buf[pos] == 9):
        pos += 1
    sign = 1
    if pos < n and buf[pos] == 45:
        sign = -1
        pos += 1
    if pos >= n or buf[pos] < 48 or buf[pos] > 57:
        return 0, -1
    value = 0
    while pos < n and 48 <= buf[pos] <= 57:
        value = value * 10 + (buf[pos] - 48)
        pos += 1
    return sign * value, pos


@numba.njit(cache=True, nogil=True)
def _skip_line(buf, pos):
    n = buf.shape[0]
    while pos < n and buf[pos] != 10:
        pos += 1
    return pos + 1


@numba.njit(cache=True, nogil=True)
def _parse(buf, count_only, kind, literal, vtree, elem_ptr, prime, sub, ids):
    """One pass over the file: count nodes and elements, or fill the arrays. Returns (nodes, elements, error pos)."""
    n = buf.shape[0]
    pos = 0
    node = 0
    elements = 0
    while pos < n:
        ch = buf[pos]
        if ch == 99 or ch == 10 or ch == 115:  # 'c' comment, empty line, 'sdd' header
            pos = _skip_line(buf, pos)
            continue
        pos += 1
        file_id, pos = _next_int(buf, pos)
        if pos < 0 or (not count_only and (file_id < 0 or file_id >= ids.shape[0])):
            return node, elements, node
        if ch == 70 or ch == 84:  # F, T
            if not count_only:
                kind[node] = 0 if ch == 70 else 1
                ids[file_id] = node
                elem_ptr[node + 1] = elements
        elif ch == 76:  # L
            v, pos = _next_int(buf, pos)
            if pos < 0:
                return node, elements, node
            lit, pos = _next_int(buf, pos)
            if pos < 0:
                return node, elements, node
            if not count_only:
                kind[node] = 2
                vtree[node] = v
                literal[node] = lit
                ids[file_id] = node
                elem_ptr[node + 1] = elements
        elif ch == 68:  # D
            v, pos = _next_int(buf, pos)
            if pos < 0:
                return node, elements, node
            k, pos = _next_int(buf, pos)
            if pos < 0:
                return node, elements, node
            for _ in range(k):
                p, pos = _next_int(buf, pos)
                if pos < 0:
                    return node, elements, node
                s, pos = _next_int(buf, pos)
                if pos < 0:
                    return node, elements, node
                if not count_only:
                    if p < 0 or p >= ids.shape[0] or s < 0 or s >= ids.shape[0] or ids[p] < 0 or ids[s] < 0:
                        return node, elements, node
                    prime[elements] = ids[p]
                    sub[elements] = ids[s]
                elements += 1
            if not count_only:
                kind[node] = 3
                vtree[node] = v
                ids[file_id] = node
                elem_ptr[node + 1] = elements
        else:
            return node, elements, node
        node += 1
        pos = _skip_line(buf, pos)
    return node, elements, -1


def parse_sdd(path):
    """The nodes of an SDD file as arrays: ``(kind, literal, vtree, elem_ptr, prime, sub)``.

    The root is the last node. Raises ``ValueError`` naming the line's node number
    on a malformed file.
    """
    buf = np.fromfile(path, dtype=np.uint8)
    empty = np.zeros(1, dtype=np.int64)
    n_nodes, n_elements, bad = _parse(buf, True, empty.astype(np.int8), empty, empty, empty, empty, empty, empty)
    if bad >= 0 or n_nodes == 0:
        raise ValueError(f"{path}: malformed SDD file at node {bad}")
    kind = np.zeros(n_nodes, dtype=np.int8)
    literal = np.zeros(n_nodes, dtype=np.int64)
    vtree = np.full(n_nodes, -1, dtype=np.int64)
    elem_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    prime = np.zeros(n_elements, dtype=np.int64)
    sub = np.zeros(n_elements, dtype=np.int64)
    ids = np.full(n_nodes, -1, dtype=np.int64)
    _, _, bad = _parse(buf, False, kind, literal, vtree, elem_ptr, prime, sub, ids)
    if bad >= 0:
        raise ValueError(f"{path}: malformed SDD file at node {bad}")
    return kind, literal, vtree, elem_ptr, prime, sub
