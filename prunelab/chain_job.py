"""One chain of :func:`prunelab.sample`: its initial state and its draws, in a worker process or in-process.

A job carries everything by value (the network, the evidence by name, the seeds),
and the sampler module by name, so that it runs the same in a loky worker as here.
Numba compilation is kept out of the timed regions: the initialiser's kernel and
the sampler's ``run_chain`` are called once on a throw-away generator first.
"""

from __future__ import annotations

import importlib
import time

import numpy as np

from .compiled import CompiledNetwork, draw_dtype
from .samplers.init import hybrid_forward_nb, initial_state

__all__ = ["run_chain_job"]


def _warm_initialiser(net: CompiledNetwork) -> None:
    """Compile (or load from the cache) the init kernel outside the timed region."""
    scratch = np.zeros(net.n_variables, dtype=np.int64)
    hybrid_forward_nb(
        np.random.default_rng(0), net.cardinality, net.parent_ptr, net.parent_index, net.parent_stride,
        net.cpt_offset, net.cpt, net.evidence_value, 0.5, 1, scratch,
    )


def _reference_chain(module, rng, net, x0, n_draws, rb_checkpoints, options):
    """``n_draws`` calls of ``module.step``, collected like ``run_chain`` output."""
    state = module.init(net, x0)
    draws = np.empty((n_draws, net.n_variables), dtype=draw_dtype(net.cardinality))
    stats: dict[str, list] = {}
    running = None
    rb_sums = None
    if rb_checkpoints is not None:
        rb_sums = np.zeros((rb_checkpoints.size, int(np.sum(net.cardinality))))
    next_cp = 0
    for t in range(n_draws):
        state, info = module.step(rng, net, state, **options)
        draws[t] = state.x
        for name, value in info._asdict().items():
            if name == "conditionals":
                if rb_sums is None:
                    continue
                running = value.copy() if running is None else running + value
                while next_cp < rb_checkpoints.size and rb_checkpoints[next_cp] == t + 1:
                    rb_sums[next_cp] = running
                    next_cp += 1
            elif np.ndim(value) == 0:
                stats.setdefault(name, []).append(value)
    out = {"draws": draws, **{k: np.asarray(v) for k, v in stats.items()}}
    if rb_sums is not None:
        out["rb_checkpoints"] = rb_checkpoints
        out["rb_sums"] = rb_sums
    return out


def _start_state(rng, bn, net, evidence, start, p, max_restarts):
    """``(x0, seconds, initialiser)``: drawn by the initialiser named ``start``, or ``start`` itself."""
    if not isinstance(start, str):
        return np.asarray(start, dtype=np.int64), 0.0, "given"
    _warm_initialiser(net)
    tic = time.perf_counter()
    x0, info = initial_state(rng, bn, start, p=p, evidence=evidence, max_restarts=max_restarts, return_info=True,
                             compiled=net)
    return x0, time.perf_counter() - tic, info.init


def _chain(module, rng, net, x0, n_draws, backend, rb_checkpoints, options):
    """``(chain output as a dict, seconds)``: the numba ``run_chain`` (compiled first) or the ``step`` loop."""
    if backend == "numba":
        rb_kw = {} if rb_checkpoints is None else {"rb_checkpoints": rb_checkpoints}
        warm_kw = {} if rb_checkpoints is None else {"rb_checkpoints": np.ones(1, dtype=np.int64)}
        module.run_chain(np.random.default_rng(0), net, x0, 1, **warm_kw, **options)
        tic = time.perf_counter()
        output = module.run_chain(rng, net, x0, n_draws, **rb_kw, **options)._asdict()
        return output, time.perf_counter() - tic
    tic = time.perf_counter()
    output = _reference_chain(module, rng, net, x0, n_draws, rb_checkpoints, options)
    return output, time.perf_counter() - tic


def run_chain_job(module_name, bn, net, evidence, start, p, max_restarts, seeds, n_draws, backend, rb_checkpoints,
                  options) -> dict:
    """One chain of :func:`prunelab.sample`: its initial state, then ``n_draws`` draws.

    Parameters
    ----------
    module_name : str
        The sampler module (imported here: a worker imports it by name).
    bn, net, evidence
        The network, compiled with the evidence (by :func:`prunelab.sample`, once for all its chains:
        not compiled again here), and the evidence by name.
    start : str or int array
        An initialiser's name, or the start state itself.
    p, max_restarts
        Of the initialiser.
    seeds : (SeedSequence, SeedSequence)
        Of the initial state and of the chain.
    n_draws, backend, rb_checkpoints, options
        As :func:`prunelab.sample` passes them.

    Returns
    -------
    dict
        ``output`` (the chain output as a dict, draws in the smallest integer type),
        ``x0``, ``init_seconds``, ``sample_seconds``, ``init_used``.
    """
    module = importlib.import_module(module_name)
    init_seed, run_seed = seeds
    x0, init_seconds, init_used = _start_state(np.random.default_rng(init_seed), bn, net, evidence, start, p,
                                                 max_restarts)
    output, sample_seconds = _chain(module, np.random.default_rng(run_seed), net, x0, n_draws, backend,
                                    rb_checkpoints, options)
    # the built-in samplers' buffers are of this type already (start_chain); a registered one's may not be
    output["draws"] = np.asarray(output["draws"]).astype(draw_dtype(net.cardinality), copy=False)
    return {
        "output": output,
        "x0": x0,
        "init_seconds": init_seconds,
        "sample_seconds": sample_seconds,
        "init_used": init_used,
    }
