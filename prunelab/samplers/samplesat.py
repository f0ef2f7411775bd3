"""SampleSAT: a near-uniform draw from the solutions of a set of clauses, as MC-SAT runs it.

SampleSAT (Wei, Erenrich & Selman 2004) mixes WalkSAT moves, which head for a
solution, with simulated-annealing (SA) moves at a fixed temperature ``T``, which
wander between solutions. It is cheap, but its draw is only *near* uniform.
This module follows Alchemy's implementation (``MaxWalkSat::pickSS`` and
``MaxWalkSat::infer`` in ``src/infer/maxwalksat.h``; ``MCSAT::performMCSatStep``
in ``src/infer/mcsat.h``), the MC-SAT of Poon & Domingos, with its defaults (see
:data:`ALCHEMY_DEFAULTS`). One call, given the kept clauses:

1. **Random start.** Every free variable gets a uniformly random value (Alchemy
   calls ``init()``, a random assignment, at every MC-SAT step); evidence
   variables keep their values and never move.
2. **Flips.** Up to ``max_flips`` times: if the state is a solution (no kept
   clause unsatisfied), or with probability ``sa_probability`` unless
   ``late_sa``, an **SA move**: a free variable uniformly at random and a new
   value uniformly among its other values; with ``gain`` = clauses made
   satisfied minus clauses made unsatisfied, it is taken if ``gain >= 0`` and
   otherwise with probability ``exp(gain / T)``. Else a **WalkSAT move** (Alchemy's
   tabu variant): an unsatisfied kept clause uniformly at random; for each of its
   literals on a free variable a candidate move that makes the literal true; with
   probability ``noise`` one candidate uniformly at random, otherwise one with the
   largest gain (ties uniformly); candidates whose variable moved within the last
   ``tabu_length`` flips are left out unless they break nothing.
3. **Stop** after the ``n_solutions``-th flip that ends on a solution (a rejected
   SA move at a solution counts, as in Alchemy) and return that solution; if the
   budget runs out first, return the last solution visited.

Multi-valued variables. A literal ``X != v`` that is false has ``X = v``; the move
that makes it true sets ``X`` to another value drawn uniformly among the
``|X| - 1`` others, which is what Alchemy does for a variable written as a block
of mutually exclusive atoms (``calculateImprovement``: "1->0: choose to flip the
other randomly"). A literal ``X = v`` is made true by ``X := v``. Alchemy picks an
SA atom uniformly among all atoms, so a ``k``-valued block is ``k`` times as likely
as a binary atom; we pick the variable uniformly (the same for binary networks).

Costs count unsatisfied clauses (unit weights: Alchemy's SampleSAT mode). Each
variable may appear at most once in a clause (true of :func:`network_clauses`).

Randomness: one plain-Python function, compiled twice (numba and not), so the
reference and the fast path draw identically; ``rng.random()`` only.

References
----------
.. [1] W. Wei, J. Erenrich and B. Selman, "Towards efficient sampling: exploiting
   random walk strategies", AAAI 2004.
.. [2] H. Poon and P. Domingos, "Sound and efficient inference with probabilistic
   and deterministic dependencies", AAAI 2006.
.. [3] S. Kok et al., The Alchemy system (version 2), ``src/infer/inferenceargs.h``,
   ``maxwalksat.h``, ``mcsat.h``; read in github.com/PhDP/alchemy2 at commit
   0d456e1db4374afc46f307b053049f7ed3cd396c.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba.extending import register_jitable

from ..clauses import WeightedClauses

__all__ = [
    "ALCHEMY_DEFAULTS", "SampleSatOptions", "ClauseIndex", "clause_index", "SampleSatWork", "samplesat_workspace",
    "samplesat_nb", "samplesat_py",
]


class SampleSatOptions(NamedTuple):
    """SampleSAT's settings (defaults: :data:`ALCHEMY_DEFAULTS`).

    Attributes
    ----------
    sa_probability : float
        Probability of an SA move away from a solution (Alchemy ``-saRatio`` / 100).
    temperature : float
        SA temperature ``T`` (Alchemy ``-saTemperature`` / 100).
    noise : float
        Probability of a random pick in a WalkSAT move (Alchemy's fixed 50/100).
    tabu_length : int
        Flips before a variable may move again unless the move breaks nothing
        (``-tabuLength``).
    n_solutions : int
        Stop at the ``n``-th flip that ends on a solution (``-numSolutions``).
    max_flips : int
        Flip budget (``-mwsMaxSteps``; one try, ``-tries 1``).
    late_sa : bool
        SA moves only at a solution (``-lateSa``); ``sa_probability`` then plays no part.
    """

    sa_probability: float = 0.5
    temperature: float = 0.8
    noise: float = 0.5
    tabu_length: int = 10
    n_solutions: int = 10
    max_flips: int = 1_000_000
    late_sa: bool = True

    def checked(self) -> SampleSatOptions:
        """The options as numbers the kernel takes, or a ValueError naming the bad one."""
        for name in ("sa_probability", "noise", "temperature"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"SampleSAT option {name} must be a number, got {type(value).__name__} {value!r}")
        for name in ("sa_probability", "noise"):
            value = float(getattr(self, name))
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"SampleSAT option {name} must be in [0, 1], got {value}")
        if not float(self.temperature) > 0.0:
            raise ValueError(f"SampleSAT option temperature must be > 0, got {self.temperature}")
        if not isinstance(self.late_sa, (bool, np.bool_)):
            raise TypeError(f"SampleSAT option late_sa must be True or False, got {type(self.late_sa).__name__} "
                            f"{self.late_sa!r}")
        for name in ("tabu_length", "n_solutions", "max_flips"):
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or int(value) != value or value < (0 if name == "tabu_length" else 1):
                raise ValueError(f"SampleSAT option {name} must be an integer >= "
                                 f"{0 if name == 'tabu_length' else 1}, got {value!r}")
        return SampleSatOptions(float(self.sa_probability), float(self.temperature), float(self.noise),
                                int(self.tabu_length), int(self.n_solutions), int(self.max_flips),
                                bool(self.late_sa))


ALCHEMY_DEFAULTS = SampleSatOptions()
"""Alchemy 2's compiled-in defaults for MC-SAT's SampleSAT (``src/infer/inferenceargs.h``):
``assSaRatio = 50``, ``assSaTemp = 80`` (``T = 0.8``), ``assLateSa = true``,
``amwsNumSolutions = 10``, ``amwsTabuLength = 10``, ``amwsMaxSteps = 1000000``,
``amwsTries = 1``; WalkSAT noise ``numerator_ / denominator_ = 50 / 100``
(``maxwalksat.h``). Alchemy's printed help disagrees with its own code
(``-saTemperature [10]``, ``-lateSa [false]``, and in version 2 ``-saRatio [0]``);
these are the values the program runs with."""


class ClauseIndex(NamedTuple):
    """Where each variable occurs: CSR lists ``var_ptr``, ``var_clause``, ``var_literal``."""

    var_ptr: np.ndarray
    var_clause: np.ndarray
    var_literal: np.ndarray


def clause_index(clauses: WeightedClauses) -> ClauseIndex:
    """The clauses (and literal positions) of every variable, in clause order.

    Raises
    ------
    ValueError
        A variable occurs twice in one clause (the kernel's gain rule assumes not).
    """
    n = clauses.cardinality.shape[0]
    literal_clause = np.repeat(np.arange(clauses.n_clauses), np.diff(clauses.clause_ptr))
    order = np.lexsort((literal_clause, clauses.literal_var))
    var_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(clauses.literal_var, minlength=n), out=var_ptr[1:])
    var_clause = literal_clause[order].astype(np.int64)
    repeated = (np.diff(var_clause) == 0) & (np.diff(clauses.literal_var[order]) == 0)
    if repeated.any():
        c = int(var_clause[np.flatnonzero(repeated)[0]])
        raise ValueError(f"clause {c} mentions a variable twice; SampleSAT here needs one literal per variable")
    return ClauseIndex(var_ptr, var_clause, order.astype(np.int64))


class SampleSatWork(NamedTuple):
    """SampleSAT's scratch arrays (:func:`samplesat_workspace`), reused from call to call.

    Attributes
    ----------
    n_true : int64 (m,)
        True literals of every kept clause.
    unsat, unsat_pos : int64 (m,)
        The unsatisfied kept clauses (a list) and each clause's place in it.
    last_flip : int64 (n,)
        The flip at which each variable last moved (the tabu rule).
    best : int64 (n,)
        The last solution visited: the draw.
    cand_var, cand_value : int64 (longest clause,)
        A WalkSAT move's candidates.
    """

    n_true: np.ndarray
    unsat: np.ndarray
    unsat_pos: np.ndarray
    last_flip: np.ndarray
    best: np.ndarray
    cand_var: np.ndarray
    cand_value: np.ndarray


def samplesat_workspace(clauses: WeightedClauses) -> SampleSatWork:
    """Fresh scratch for :func:`samplesat_py` on ``clauses``.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses
    >>> work = samplesat_workspace(network_clauses(compile_network(load_network("deterministic_pair"))))
    >>> work.n_true.shape, work.best.shape
    ((4,), (2,))
    """
    m, n = clauses.n_clauses, clauses.cardinality.shape[0]
    longest = int(np.diff(clauses.clause_ptr).max(initial=1))
    return SampleSatWork(np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(n, np.int64),
                         np.zeros(n, np.int64), np.zeros(longest, np.int64), np.zeros(longest, np.int64))


@register_jitable
def _move_gain(i, b, y, kept, n_true, literal_value, literal_equal, var_ptr, var_clause, var_literal):
    """``(made - broken, broken)``: kept clauses made satisfied / unsatisfied by ``y[i] := b``."""
    made = 0
    broken = 0
    for k in range(var_ptr[i], var_ptr[i + 1]):
        c = var_clause[k]
        if not kept[c]:
            continue
        lit = var_literal[k]
        before = (y[i] == literal_value[lit]) == literal_equal[lit]
        after = (b == literal_value[lit]) == literal_equal[lit]
        if before == after:
            continue
        if after and n_true[c] == 0:
            made += 1
        elif before and n_true[c] == 1:
            broken += 1
    return made - broken, broken


@register_jitable
def _apply_move(i, b, y, kept, n_true, literal_value, literal_equal, var_ptr, var_clause, var_literal,
                unsat, unsat_pos, n_unsat):
    """Set ``y[i] = b``, update the true-literal counts and the unsatisfied list; returns its length."""
    for k in range(var_ptr[i], var_ptr[i + 1]):
        c = var_clause[k]
        if not kept[c]:
            continue
        lit = var_literal[k]
        before = (y[i] == literal_value[lit]) == literal_equal[lit]
        after = (b == literal_value[lit]) == literal_equal[lit]
        if before == after:
            continue
        if after:
            n_true[c] += 1
            if n_true[c] == 1:  # satisfied now: swap-remove from the list
                last = unsat[n_unsat - 1]
                unsat[unsat_pos[c]] = last
                unsat_pos[last] = unsat_pos[c]
                n_unsat -= 1
        else:
            n_true[c] -= 1
            if n_true[c] == 0:
                unsat[n_unsat] = c
                unsat_pos[c] = n_unsat
                n_unsat += 1
    y[i] = b
    return n_unsat


@register_jitable
def _other_value(u, current, card):
    """A value other than ``current``, uniform among the ``card - 1`` others, from ``u`` in [0, 1)."""
    r = min(int(u * (card - 1)), card - 2)
    return r if r < current else r + 1


def samplesat_py(rng, clauses, index, movable, is_movable, kept, y, options, work):
    """SampleSAT on the kept clauses from a random start; ``work.best`` gets the solution.

    Parameters
    ----------
    rng : numpy.random.Generator
        ``rng.random()`` only.
    clauses : WeightedClauses
        The clauses (their weights play no part: unit costs).
    index : ClauseIndex
        :func:`clause_index` of ``clauses``.
    movable : int64 (k,)
        The free variables with two or more values; ``is_movable``, bool (n,), marks them.
    kept : bool (m,)
        The clauses to satisfy.
    y : int64 (n,)
        Holds the evidence on entry; the walk's state.
    options : SampleSatOptions
        Checked (:meth:`SampleSatOptions.checked`).
    work : SampleSatWork
        Scratch (:func:`samplesat_workspace`); with no solution visited ``work.best`` is untouched.

    Returns
    -------
    flips, found : int
        Flips made and solutions visited.

    Written once, compiled with numba (:func:`samplesat_nb`).

    Examples
    --------
    Two clauses on the deterministic pair, ``not A(1)`` dropped: the only solution is ``(0, 0)``.

    >>> import numpy as np
    >>> from prunelab import load_network
    >>> from prunelab.compiled import compile_network
    >>> from prunelab.clauses import network_clauses
    >>> net = compile_network(load_network("deterministic_pair"))
    >>> clauses = network_clauses(net)
    >>> work = samplesat_workspace(clauses)
    >>> movable = np.array([0, 1])
    >>> kept = np.array([False, True, True, True])
    >>> samplesat_py(np.random.default_rng(1), clauses, clause_index(clauses), movable, movable >= 0, kept,
    ...              np.zeros(2, np.int64), ALCHEMY_DEFAULTS, work)[1], work.best.tolist()
    (10, [0, 0])
    """
    # every array and option is taken out of its tuple once, here (as prune's chain kernel does)
    cardinality = clauses.cardinality
    clause_ptr = clauses.clause_ptr
    literal_var = clauses.literal_var
    literal_value = clauses.literal_value
    literal_equal = clauses.literal_equal
    var_ptr = index.var_ptr
    var_clause = index.var_clause
    var_literal = index.var_literal
    sa_probability = options.sa_probability
    temperature = options.temperature
    noise = options.noise
    tabu_length = options.tabu_length
    n_solutions = options.n_solutions
    max_flips = options.max_flips
    late_sa = options.late_sa
    n_true = work.n_true
    unsat = work.unsat
    unsat_pos = work.unsat_pos
    last_flip = work.last_flip
    best = work.best
    cand_var = work.cand_var
    cand_value = work.cand_value
    for f in range(movable.shape[0]):
        i = movable[f]
        y[i] = min(int(rng.random() * cardinality[i]), cardinality[i] - 1)
    n_unsat = 0
    for c in range(kept.shape[0]):
        n_true[c] = 0
        if not kept[c]:
            continue
        for lit in range(clause_ptr[c], clause_ptr[c + 1]):
            if (y[literal_var[lit]] == literal_value[lit]) == literal_equal[lit]:
                n_true[c] += 1
        if n_true[c] == 0:
            unsat[n_unsat] = c
            unsat_pos[c] = n_unsat
            n_unsat += 1
    for f in range(movable.shape[0]):
        last_flip[movable[f]] = -(tabu_length + 1)
    n_movable = movable.shape[0]
    flips = 0
    found = 0
    while flips < max_flips and found < n_solutions:
        flips += 1
        if n_unsat == 0 or (not late_sa and rng.random() < sa_probability):
            if n_movable > 0:  # SA move
                i = movable[min(int(rng.random() * n_movable), n_movable - 1)]
                b = _other_value(rng.random(), y[i], cardinality[i])
                gain, broken = _move_gain(i, b, y, kept, n_true, literal_value, literal_equal,
                                          var_ptr, var_clause, var_literal)
                if gain >= 0 or rng.random() <= math.exp(gain / temperature):
                    n_unsat = _apply_move(i, b, y, kept, n_true, literal_value, literal_equal,
                                          var_ptr, var_clause, var_literal, unsat, unsat_pos, n_unsat)
                    last_flip[i] = flips
        else:  # WalkSAT move (tabu)
            c = unsat[min(int(rng.random() * n_unsat), n_unsat - 1)]
            noisy = rng.random() < noise
            n_cand = 0
            best_gain = -(1 << 62)
            for lit in range(clause_ptr[c], clause_ptr[c + 1]):
                i = literal_var[lit]
                if not is_movable[i]:  # evidence, or a single value
                    continue
                if literal_equal[lit]:
                    b = literal_value[lit]
                else:
                    b = _other_value(rng.random(), y[i], cardinality[i])
                gain, broken = _move_gain(i, b, y, kept, n_true, literal_value, literal_equal,
                                          var_ptr, var_clause, var_literal)
                if not (tabu_length < flips - last_flip[i] or broken == 0):
                    continue
                if not noisy:
                    if gain < best_gain:
                        continue
                    if gain > best_gain:
                        best_gain = gain
                        n_cand = 0
                cand_var[n_cand] = i
                cand_value[n_cand] = b
                n_cand += 1
            if n_cand > 0:
                j = 0 if n_cand == 1 else min(int(rng.random() * n_cand), n_cand - 1)
                i = cand_var[j]
                n_unsat = _apply_move(i, cand_value[j], y, kept, n_true, literal_value, literal_equal,
                                      var_ptr, var_clause, var_literal, unsat, unsat_pos, n_unsat)
                last_flip[i] = flips
        if n_unsat == 0:
            found += 1
            for k in range(y.shape[0]):
                best[k] = y[k]
    return flips, found


samplesat_nb = numba.njit(cache=True, nogil=True)(samplesat_py)
"""The numba build of :func:`samplesat_py` (the helpers are ``register_jitable``)."""
