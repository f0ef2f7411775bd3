"""Prune sampling, the paper's algorithm, in one wing: the samplers, the pruning, the plans and every uniform draw.

One step from a state ``x`` prunes the CPT labels around ``x`` and draws the next state uniformly from the states
left, the pruned set ``S``. The wing, read top down (each module imports only the ones below it)::

    sampler        "prune": init / step / run_chain (the paper's Algorithm 1), numpy step and numba chain
    tempered       "prune-tempered": parallel tempering with prune moves
    ladder         its inverse temperatures, a rung's plan, the swaps between rungs
    with_gibbs     "prune+gibbs": blocks of prune steps and Gibbs sweeps
    auto           what a chain settles first: a draw's code and plan (draw_plan), and what uniform="auto" picks
    rao_blackwell  the pruned sets' marginals, summed at checkpoints (the Rao-Blackwell estimate)
    pruning        prune_around: the pruning step every draw shares (numpy and numba)
    plan           Pruning (the labels pruned at random: one field of every draw's plan); the counting plan
                   PrunePlan, its used labels, its sparse count and the chains' scratch arrays
    draws/         the uniform draws from S:
        registry          DRAWS: every draw by name, its integer code, its module and what it offers
        compiler          the counting plan's program: search order and elimination, compiled once
        search, counting, primitives, kernels, reference
                          enumerate and heuristic, count and backward sampling (numba), the numpy references
        api               count, list, draw and time the members of S (the public functions)
        circuit           uniform="circuit": one compiled circuit, weighed by each pruning
        circuit_per_step  uniform="circuit-per-step": the pruned network compiled at every step
        solver, cmsgen, unigen
                          uniform="cmsgen"/"unigen": external solution samplers given S as a CNF

A new uniform draw is one module in ``draws/`` (``plan``, ``draw``, ``run_chain``, optionally ``marginals``; its plan
carries a ``pruning``) and one entry in :data:`~prunelab.samplers.prune.draws.registry.DRAWS`, whose flags tell the
sampler, tempering, MC-SAT and the Rao-Blackwell sums whether to take it; ``tests/samplers/test_draws.py`` then
checks it on tiny networks. A new sampler built on prune steps is a module here, named in
:data:`prunelab.samplers.BUILT_IN`.
"""
