"""Uniform draws from the set of states that survive a pruning: every ``uniform=`` of prune sampling.

After pruning (:mod:`prunelab.samplers.prune.pruning`) every CPT label is either kept
or pruned. The pruned set ``S`` is the set of full states that agree with the
evidence and whose ``n`` labels are all kept. Prune sampling needs one state drawn
*exactly* uniformly from ``S``. Every way is named once, in
:data:`~prunelab.samplers.prune.draws.registry.DRAWS`; the circuit draws
(:mod:`.circuit`, :mod:`.circuit_per_step`) and the solution samplers (:mod:`.cmsgen`,
:mod:`.unigen`) are modules of their own, described there. The four below share the
counting plan (:class:`~prunelab.samplers.prune.plan.PrunePlan`, its program compiled
by :mod:`.compiler`) and are drawn by prune's own numba chain:

``"enumerate"`` (the paper's way)
    Depth-first search over the free variables in topological order. A value of
    variable ``v`` is tried only if its own label is kept (its parents are already
    assigned), every observed child whose parents are now all assigned has its
    label kept, and every later free child whose parents are now all assigned has
    at least one kept value (forward checking). The search counts ``S`` and keeps
    its first :data:`~.compiler.MEMBER_CAPACITY` members; an index ``r`` is drawn uniformly
    from ``{0, ..., |S|-1}`` and the ``r``-th member (lexicographic in the search
    order) is taken from that buffer, or found by a second search that stops there.
    Memory ``O(n)``, time proportional to the size of the search tree, so at least
    to ``|S|`` times the depth.

``"count"``
    Variable elimination on 0/1 indicator factors: one factor per CPT, its kept
    mask sliced at the evidence, over the CPT's free variables. Summing out the
    free variables in an elimination order (the cheapest by multiply-adds that
    :func:`prunelab.elimination.find_order` finds, compiled once per network and
    evidence, and refused before anything is allocated if its tables exceed the
    caps of :mod:`prunelab.elimination`) gives ``|S|`` without listing it; the combined
    table of every elimination step is kept, and one member of ``S`` is drawn by backward sampling (forward-filter,
    backward-sample) through those tables: variables are drawn in reverse
    elimination order, each with probability proportional to the number of
    members of ``S`` that extend the values drawn so far. The cost grows with the
    width of the elimination order, not with ``|S|``. The program is compiled
    into flat arrays: for every step its inputs and, unrolled from their strides
    over the step's combined scope, the position of every input entry (what a
    mixed-radix counter would visit), so a step is one tight loop. Steps too
    large to unroll (:data:`~.compiler.GATHER_STEP_LIMIT`, :data:`~.compiler.GATHER_LIMIT`) run that
    counter instead: the same products in the same order, no index memory.

Used labels. :func:`~prunelab.samplers.prune.plan.used_labels` finds, for every label at once, whether some
member of ``S`` uses it: an upward and a downward pass over the same program in
the boolean semiring (the support of every factor's marginal), about the cost of
two counts. Prune sampling's set-up uses it to skip labels no feasible state uses.

``"heuristic"`` (the paper's approximate method; **biased**)
    Build a multiset ``V`` of ``n_candidates`` states by random forward sampling
    in the pruned network (uniform over the allowed values of each variable in
    topological order, restarting a candidate on a dead end, at most
    ``max_restarts`` times), then draw uniformly from the *distinct* members of
    ``V``. States that random forward sampling reaches easily are over-represented
    when ``V`` misses part of ``S``, so the draw is not uniform and the chain does
    not in general leave ``P`` invariant. Provided for the paper's comparison only;
    never the default. If no candidate completes, the current state is returned.

``"auto"`` (default)
    Run the search with a budget of tried values (compiled from the cost of one
    counting pass, :attr:`~.compiler.UniformPlan.node_budget`); if it finishes, draw by
    enumeration, otherwise draw by counting. Both draw exactly uniformly from the
    same ``S``, and which of them draws is decided by the pruning alone (the
    search's size), before any random number of the draw is used; so, given the
    pruning, the next state is uniform on ``S`` whichever method ran, and the
    mixture is exactly uniform. On the benchmark networks the elimination orders
    are narrow and counting costs a few microseconds, so ``"auto"`` nearly always
    counts; the search pays off when the treewidth is large and ``S`` small.

Exactness of the counts. Counts are float64 and every table entry is an integer;
all arithmetic is exact while the numbers stay below ``2**53`` (about ``9e15``
states; win95pts has at most ``2**76`` states in all, but pruned sets seen in
practice are below ``1e9``). Each backward-sampling choice then draws an integer
``r`` uniformly below the (exact) row total with ``Generator.integers`` and picks
the value whose cumulative count first exceeds ``r``, so the draw is exactly
uniform. Should a row total reach ``2**53`` the choice falls back to
``Generator.random() * total``, uniform up to float rounding.

Randomness. The numba kernels and the numpy references consume the
``numpy.random.Generator`` in the same order (numba replicates NumPy's
``random()`` and ``integers()``), so both give identical draws for the same seed.

References
----------
.. [1] F. Phillipson, J. Parie and R. Weikamp, "Prune sampling: a MCMC inference
   technique for discrete and deterministic Bayesian networks", sections
   "Prune sampling" and "Practical implementation".
.. [2] R. Dechter, "Bucket elimination: a unifying framework for reasoning",
   Artificial Intelligence 113 (1999); D. Koller and N. Friedman, *Probabilistic
   Graphical Models*, MIT Press, 2009, sec. 9.3-9.4 and 12.1 (variable
   elimination, forward-filter / backward-sample).
"""
