"""Weighted passes over a compiled circuit: count (log space), marginals, one weighted draw.

Each Boolean ``b`` has a weight for each of its values, given as logarithms
``log_true[b]`` and ``log_false[b]`` (``-inf`` for a weight of zero). The
*weighted model count* of a node is the sum over its models of the product of the
weights; a decision node at vtree node ``v`` with elements ``(p, s)`` counts

    ``WMC(n) = sum_(p, s) WMC(p) * gap(left(v), p) * WMC(s) * gap(right(v), s)``

where ``gap(u, p)`` is the product, over the Booleans under ``u`` that ``p`` does not
mention (those not under ``p``'s own vtree node), of ``w(true) + w(false)``: a
variable a node leaves free counts both its values. With ``S(u)`` the sum of
``log(w(true) + w(false))`` under vtree node ``u`` (one pass over the vtree),
``log gap(u, p) = S(u) - S(vtree(p))`` (``S`` of a constant is 0). All counts are
kept as logarithms, so nothing overflows: pruned sets of ``2**2000`` states are
counted as easily as small ones.

* :func:`upward_py` fills ``log WMC`` of every node, children first.
* :func:`outward_py` pushes the probability of *reaching* each node in the
  top-down draw from the root to the leaves (every reach probability lies in
  [0, 1], so linear space is safe) and returns, for every Boolean, the probability
  that it is true under the weights: for the state indicators with the CPT values
  as weights, the posterior marginals.
* :func:`draw_py` draws one model with probability proportional to its weight: at
  a decision node one element with probability ``WMC(element) / WMC(node)``, at a
  gap each free Boolean with probability ``w(true) / (w(true) + w(false))``. With
  weights 0 or 1 every model of weight one is equally likely: the exact uniform
  draw from a pruned set, up to the rounding of the logarithms (a relative error
  of about ``1e-15`` per choice).

Each pass is one Python function compiled twice, as in :mod:`prunelab.samplers.init`:
the ``_py`` version is the readable reference, the ``_nb`` version is numba; both
consume a ``numpy.random.Generator`` in the same order.

References
----------
.. [1] A. Darwiche, "A differential approach to inference in Bayesian networks",
   J. ACM 50 (2003) (upward and downward passes).
.. [2] A. Darwiche, "SDD: a new canonical representation of propositional
   knowledge bases", IJCAI 2011.
"""

from __future__ import annotations

import math

import numba

__all__ = [
    "vtree_log_sums_py", "vtree_log_sums_nb",
    "upward_py", "upward_nb",
    "outward_py", "outward_nb",
    "draw_py", "draw_nb",
    "reachable_nb",
    "decode_py", "decode_nb",
]


def _logaddexp(a, b):
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    if a > b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


def _vtree_log_sums(vt_left, vt_right, vt_boolean, post_order, log_true, log_false, out):
    """``out[u]``: sum of ``log(w(true) + w(false))`` over the Booleans under vtree node ``u``."""
    for k in range(post_order.shape[0]):
        u = post_order[k]
        if vt_left[u] < 0:
            b = vt_boolean[u]
            out[u] = logaddexp(log_true[b], log_false[b])
        else:
            out[u] = out[vt_left[u]] + out[vt_right[u]]


def _element_log(prime_log, sub_log, prime_sum, sub_sum, left_sum, right_sum):
    """``log`` of the count of an element whose prime and sub counts are not zero, gaps included.

    ``prime_log``, ``sub_log``: ``log WMC`` of the prime and the sub (not ``-inf``: the
    callers skip those elements before looking anything else up); ``prime_sum``,
    ``sub_sum``: ``S`` of their vtree nodes (0 for a constant); ``left_sum``,
    ``right_sum``: ``S`` of the decision node's two halves. Scalars only: a helper
    that takes arrays costs a reference count increment and decrement per call
    where numba 0.68 no longer prunes them, which made these inner loops twice as slow.
    """
    return prime_log + (left_sum - prime_sum) + sub_log + (right_sum - sub_sum)


def _upward(kind, literal, node_vtree, elem_ptr, prime, sub, vt_left, vt_right, sums, log_true, log_false, val):
    """``val[n] = log WMC(n)`` for every node, children before parents."""
    for n in range(kind.shape[0]):
        k = kind[n]
        if k == 0:
            val[n] = -math.inf
        elif k == 1:
            val[n] = 0.0
        elif k == 2:
            lit = literal[n]
            val[n] = log_true[lit] if lit > 0 else log_false[-lit]
        else:
            v = node_vtree[n]
            ls = sums[vt_left[v]]
            rs = sums[vt_right[v]]
            top = -math.inf
            total = 0.0
            for e in range(elem_ptr[n], elem_ptr[n + 1]):  # one pass: rescale when a larger term appears
                p = prime[e]
                s = sub[e]
                if val[p] == -math.inf or val[s] == -math.inf:
                    continue
                vp = node_vtree[p]
                vs = node_vtree[s]
                t = element_log(val[p], val[s], sums[vp] if vp >= 0 else 0.0, sums[vs] if vs >= 0 else 0.0, ls, rs)
                if t == -math.inf:
                    continue
                if t > top:
                    total = total * math.exp(top - t) + 1.0
                    top = t
                else:
                    total += math.exp(t - top)
            val[n] = -math.inf if top == -math.inf else top + math.log(total)


def _outward(kind, literal, node_vtree, elem_ptr, prime, sub, vt_left, vt_right, vt_boolean, vt_parent,
             post_order, vt_root, sums, log_true, log_false, val, reach, gap, p_true, p_false):
    """``p_true[b]``, ``p_false[b]``: probability that Boolean ``b`` is true (false) in a weighted draw.

    ``val`` comes from the upward pass. Both are accumulated, so that a probability
    close to 1 does not leave its complement to a subtraction.
    """
    n_nodes = kind.shape[0]
    root = n_nodes - 1
    for n in range(n_nodes):
        reach[n] = 0.0
    for u in range(gap.shape[0]):
        gap[u] = 0.0
    for b in range(p_true.shape[0]):
        p_true[b] = 0.0
        p_false[b] = 0.0
    reach[root] = 1.0
    gap[vt_root] += 1.0
    if node_vtree[root] >= 0:
        gap[node_vtree[root]] -= 1.0
    for n in range(n_nodes - 1, -1, -1):
        r = reach[n]
        if r == 0.0:
            continue
        k = kind[n]
        if k == 2:
            if literal[n] > 0:
                p_true[literal[n]] += r
            else:
                p_false[-literal[n]] += r
        elif k == 3:
            v = node_vtree[n]
            ls = sums[vt_left[v]]
            rs = sums[vt_right[v]]
            for e in range(elem_ptr[n], elem_ptr[n + 1]):
                p = prime[e]
                s = sub[e]
                if val[p] == -math.inf or val[s] == -math.inf:
                    continue
                vp = node_vtree[p]
                vs = node_vtree[s]
                t = element_log(val[p], val[s], sums[vp] if vp >= 0 else 0.0, sums[vs] if vs >= 0 else 0.0, ls, rs)
                if t == -math.inf:
                    continue
                w = r * math.exp(t - val[n])
                reach[p] += w
                reach[s] += w
                gap[vt_left[v]] += w
                if node_vtree[p] >= 0:
                    gap[node_vtree[p]] -= w
                gap[vt_right[v]] += w
                if node_vtree[s] >= 0:
                    gap[node_vtree[s]] -= w
    for k in range(post_order.shape[0] - 1, -1, -1):  # parents before children: gap[u] becomes a prefix sum
        u = post_order[k]
        if vt_parent[u] >= 0:
            gap[u] += gap[vt_parent[u]]
        if vt_left[u] < 0:
            b = vt_boolean[u]
            both = logaddexp(log_true[b], log_false[b])
            if gap[u] > 0.0:
                if log_true[b] > -math.inf:
                    p_true[b] += gap[u] * math.exp(log_true[b] - both)
                if log_false[b] > -math.inf:
                    p_false[b] += gap[u] * math.exp(log_false[b] - both)


def _draw_gap(rng, leaf_boolean, lo, hi, skip_lo, skip_hi, log_true, log_false, value):
    """Each Boolean of leaf ranks ``lo..hi-1`` outside ``skip_lo..skip_hi-1``, drawn by its weights."""
    for k in range(lo, hi):
        if skip_lo <= k < skip_hi:
            continue
        b = leaf_boolean[k]
        both = logaddexp(log_true[b], log_false[b])
        value[b] = 1 if rng.random() < math.exp(log_true[b] - both) else 0


def _draw(rng, kind, literal, node_vtree, elem_ptr, prime, sub, vt_left, vt_right, vt_root, leaf_lo, leaf_hi,
          leaf_boolean, sums, log_true, log_false, val, stack, value):
    """One model drawn with probability proportional to its weight, into ``value`` (0/1 per Boolean).

    Random numbers: the root's gap (in leaf order), then for every decision node
    popped from a stack (depth first, prime before sub) one ``rng.random()`` for
    its element and then that element's gaps (prime side, then sub side).
    Returns False if the count is zero (nothing drawn).
    """
    root = kind.shape[0] - 1
    if val[root] == -math.inf:
        return False
    rv = node_vtree[root]
    if rv >= 0:
        draw_gap(rng, leaf_boolean, leaf_lo[vt_root], leaf_hi[vt_root], leaf_lo[rv], leaf_hi[rv],
                 log_true, log_false, value)
    else:
        draw_gap(rng, leaf_boolean, leaf_lo[vt_root], leaf_hi[vt_root], 0, 0, log_true, log_false, value)
    stack[0] = root
    top = 1
    while top > 0:
        top -= 1
        n = stack[top]
        k = kind[n]
        if k == 2:
            lit = literal[n]
            if lit > 0:
                value[lit] = 1
            else:
                value[-lit] = 0
            continue
        if k != 3:
            continue
        v = node_vtree[n]
        ls = sums[vt_left[v]]
        rs = sums[vt_right[v]]
        u = rng.random()
        chosen = -1
        acc = 0.0
        last = -1
        for e in range(elem_ptr[n], elem_ptr[n + 1]):
            p = prime[e]
            s = sub[e]
            if val[p] == -math.inf or val[s] == -math.inf:
                continue
            vp = node_vtree[p]
            vs = node_vtree[s]
            t = element_log(val[p], val[s], sums[vp] if vp >= 0 else 0.0, sums[vs] if vs >= 0 else 0.0, ls, rs)
            if t == -math.inf:
                continue
            last = e
            acc += math.exp(t - val[n])
            if u < acc:
                chosen = e
                break
        if chosen < 0:
            chosen = last  # rounding: the cumulative sum ended a hair below 1
        p = prime[chosen]
        s = sub[chosen]
        for side in range(2):
            child = p if side == 0 else s
            half = vt_left[v] if side == 0 else vt_right[v]
            cv = node_vtree[child]
            if cv >= 0:
                draw_gap(rng, leaf_boolean, leaf_lo[half], leaf_hi[half], leaf_lo[cv], leaf_hi[cv],
                         log_true, log_false, value)
            else:
                draw_gap(rng, leaf_boolean, leaf_lo[half], leaf_hi[half], 0, 0, log_true, log_false, value)
        stack[top] = s
        stack[top + 1] = p
        top += 2
    return True


def _reachable(kind, literal, elem_ptr, prime, sub, sat, reach, literal_reached):
    """Which positive literals some model uses: satisfiable nodes up, reachable ones down (Boolean semiring).

    ``literal_reached[b]`` is set for every Boolean ``b`` whose positive literal
    node lies on a path of satisfiable elements from the root.
    """
    n_nodes = kind.shape[0]
    for n in range(n_nodes):
        k = kind[n]
        if k == 0:
            sat[n] = False
        elif k != 3:
            sat[n] = True
        else:
            ok = False
            for e in range(elem_ptr[n], elem_ptr[n + 1]):
                if sat[prime[e]] and sat[sub[e]]:
                    ok = True
                    break
            sat[n] = ok
        reach[n] = False
    reach[n_nodes - 1] = sat[n_nodes - 1]
    for n in range(n_nodes - 1, -1, -1):
        if not reach[n]:
            continue
        if kind[n] == 2 and literal[n] > 0:
            literal_reached[literal[n]] = True
        elif kind[n] == 3:
            for e in range(elem_ptr[n], elem_ptr[n + 1]):
                if sat[prime[e]] and sat[sub[e]]:
                    reach[prime[e]] = True
                    reach[sub[e]] = True


def _decode(state_ptr, state_boolean, cardinality, free, value, y):
    """The network state of a drawn model, into ``y``: each free variable from its state indicators."""
    for k in range(free.shape[0]):
        i = free[k]
        lo = state_ptr[i]
        if cardinality[i] == 2:
            y[i] = value[state_boolean[lo]]
        else:
            for v in range(cardinality[i]):
                if value[state_boolean[lo + v]] == 1:
                    y[i] = v


# The small helpers are compiled once and called by both versions of each pass; the passes
# themselves are plain functions (the ``_py`` references) compiled again by numba (``_nb``).
logaddexp = numba.njit(cache=True, nogil=True)(_logaddexp)
element_log = numba.njit(cache=True, nogil=True)(_element_log)
draw_gap = numba.njit(cache=True, nogil=True)(_draw_gap)

vtree_log_sums_py = _vtree_log_sums
upward_py = _upward
outward_py = _outward
draw_py = _draw
decode_py = _decode

vtree_log_sums_nb = numba.njit(cache=True, nogil=True)(_vtree_log_sums)
upward_nb = numba.njit(cache=True, nogil=True)(_upward)
outward_nb = numba.njit(cache=True, nogil=True)(_outward)
draw_nb = numba.njit(cache=True, nogil=True)(_draw)
reachable_nb = numba.njit(cache=True, nogil=True)(_reachable)
decode_nb = numba.njit(cache=True, nogil=True)(_decode)
