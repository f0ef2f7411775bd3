"""Exact transition matrices of prune, Gibbs and Metropolis sampling on tiny networks.

On a network small enough to list its feasible states, every sampler here is a
finite Markov chain whose transition matrix can be computed exactly, and the
paper's claims checked to machine precision: prune sampling is reversible with
respect to ``P(x | e)`` and regular; Gibbs sampling on a deterministic network is
reducible (the paper's Example "Gibbs").

Prune sampling. From ``x``, every label ``l`` not in ``C_x`` survives with
probability ``c_l``, independently, and the next state is uniform on the set ``S``
of surviving states (feasible states agreeing with the evidence, all of whose
labels survive). So

.. math:: R(x \\to y) = \\sum_{S} \\Pr(S \\mid x) \\, \\frac{1\\{y \\in S\\}}{|S|}.

Enumerating the ``2^m`` pruning patterns of the ``m`` random labels is hopeless
beyond a couple of dozen labels; :func:`prune_transition_matrix` stays exact and
is far cheaper because

* only labels with ``0 < c < 1`` are random (``c = 0``: always pruned, and no
  feasible state uses it; ``c = 1``: always kept);
* a label that no feasible evidence-consistent state uses cannot change ``S``;
* labels used by exactly the same states act as one label, kept with probability
  ``prod c`` (all of them must survive);
* a dynamic programme over these label groups carries the distribution of ``S``
  itself, as ``{bitmask of surviving states: probability}``: a kept group leaves
  the mask, a pruned group removes its states (``mask &= ~uses``), equal masks are
  merged;
* one programme serves all rows: pruning around ``x`` is "unconditional" pruning
  (every label random) given ``x in S`` (see :func:`prune_transition_matrix`);
* with at most 64 feasible states a set is one ``uint64`` and a numba kernel runs
  the programme with a hash table; the pure-Python programme stays as the
  reference (``reference=True``), and for larger ``k``.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", sections "Prune
   sampling" (eq. (5)-(6), R_h and R; eq. (7) and the proof of detailed
   balance) and "Gibbs sampling"
   (Example 1).
.. [2] D. A. Levin and Y. Peres, *Markov Chains and Mixing Times*, 2nd ed., AMS,
   2017, ch. 1 (irreducibility, aperiodicity, reversibility, stationarity).

Modules
-------
===================  ===============================================================
module               job
===================  ===============================================================
``states``           the feasible states and their posterior, by listing them
``pruned_sets``      the distribution of the surviving set (the dynamic programme and
                     its numba kernels)
``matrices``         the transition matrices of prune, Gibbs, Metropolis and MC-SAT
``chains``           stationarity, detailed balance, classes, regularity, chi-square
``query_classes``    Gibbs's classes seen from a query, and the spread sigma_inf they
                     leave
``theorem_cases``    the networks on which the book checks the theorem exactly
===================  ===============================================================
"""

from .chains import (
    ChiSquare,
    communicating_classes,
    is_irreducible,
    is_regular,
    stationary_check,
    transition_chi_square,
)
from .matrices import (
    gibbs_transition_matrix,
    mcsat_transition_matrix,
    metropolis_transition_matrix,
    prune_transition_matrix,
)
from .pruned_sets import MAX_KERNEL_STATES, MAX_SETS_KERNEL, MAX_SETS_REFERENCE, UNMERGED_TAIL
from .query_classes import QueryClasses, query_classes
from .states import MAX_STATES, clause_states, enumerate_pruned_set, feasible_states
from .theorem_cases import THEOREM_CASES, TheoremCase

__all__ = [
    "MAX_KERNEL_STATES",
    "MAX_SETS_KERNEL",
    "MAX_SETS_REFERENCE",
    "MAX_STATES",
    "UNMERGED_TAIL",
    "feasible_states",
    "prune_transition_matrix",
    "gibbs_transition_matrix",
    "metropolis_transition_matrix",
    "stationary_check",
    "communicating_classes",
    "is_irreducible",
    "is_regular",
    "enumerate_pruned_set",
    "ChiSquare",
    "transition_chi_square",
    "clause_states",
    "mcsat_transition_matrix",
    "QueryClasses",
    "query_classes",
    "THEOREM_CASES",
    "TheoremCase",
]
