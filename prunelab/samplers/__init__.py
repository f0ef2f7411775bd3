"""Pure MCMC kernels on a :class:`~prunelab.compiled.CompiledNetwork`, and their registry.

Every sampler module ``m`` follows one interface, so :func:`prunelab.sample` can
run any of them the same way:

``m.init(net, x0) -> State``
    ``State`` is a small ``NamedTuple`` with at least the field ``x``: the full
    state as ``int64`` state indices in topological order, evidence set.
``m.step(rng, net, state, **options) -> (State, Info)``
    One draw (one sweep) of the readable numpy reference. ``Info`` is a small
    ``NamedTuple``; its scalar fields are per-draw statistics (e.g.
    ``n_accepted``), and a field ``conditionals`` (float, one entry per state of
    every variable) is the Rao-Blackwell term of the draw.
``m.run_chain(rng, net, x0, n_draws, **options) -> ChainOutput``
    The numba fast path. It consumes ``rng`` in exactly the same order as
    ``n_draws`` calls of ``step``, so both paths give identical draws for the same
    seed. ``ChainOutput`` is a ``NamedTuple`` with ``draws`` (``(n_draws, n)``
    ints) and, optionally, per-draw statistics (arrays of length ``n_draws``
    named like the ``Info`` fields), and ``rb_checkpoints``/``rb_sums`` for
    samplers with ``RAO_BLACKWELL = True``.

``SINGLE_SITE = True`` (optional) declares that a draw only moves one variable at a
time (Gibbs, Metropolis); :func:`prunelab.sample` then also reports variables that
no such move could change (see ``SampleResult.trap``).

What Gibbs and Metropolis share (the state that is just ``x``, ``init``) is written
once in :mod:`prunelab.samplers.chain`; the start of every ``run_chain``
(:func:`~prunelab.samplers.chain.start_chain`) in :mod:`prunelab.samplers.init`; the
inverse-CDF draw in :mod:`prunelab.inverse_cdf`. Prune sampling, the paper's
algorithm, is a wing of its own, :mod:`prunelab.samplers.prune` (its map is there):
three samplers (``"prune"``, ``"prune-tempered"``, ``"prune+gibbs"``) and every
uniform draw from a pruned set, named once in
:data:`prunelab.samplers.prune.draws.registry.DRAWS`. ``tests/samplers/test_sampler_contract.py``
checks the interface for every name of :func:`available_samplers`, so a sampler added
here is tested without a test file of its own.

Samplers are looked up by name with :func:`get_sampler`; ``"gibbs"``,
``"metropolis"``, ``"prune"``, ``"prune-tempered"`` (:mod:`prunelab.samplers.prune.tempered`),
``"prune+gibbs"`` (:mod:`prunelab.samplers.prune.with_gibbs`) and ``"mc-sat"`` are
known, and :func:`register_sampler` adds more.
Modules are imported on first use.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType


__all__ = ["register_sampler", "get_sampler", "available_samplers", "BUILT_IN", "REQUIRED_ATTRIBUTES"]

REQUIRED_ATTRIBUTES = ("init", "step", "run_chain")
"""What a sampler module must define."""

BUILT_IN: dict[str, str] = {
    "gibbs": "prunelab.samplers.gibbs",
    "metropolis": "prunelab.samplers.metropolis",
    "prune": "prunelab.samplers.prune.sampler",
    "prune-tempered": "prunelab.samplers.prune.tempered",
    "prune+gibbs": "prunelab.samplers.prune.with_gibbs",
    "mc-sat": "prunelab.samplers.mcsat",
}
"""The samplers that come with the package, by name; :func:`register_sampler` does not replace them."""

_SAMPLERS: dict[str, str | ModuleType] = dict(BUILT_IN)


def register_sampler(name: str, module: ModuleType | str) -> None:
    """Make a sampler module available to :func:`prunelab.sample` under ``name``.

    Parameters
    ----------
    name : str
        The sampler's name in ``sample(bn, name, ...)``.
    module : module or str
        The module, or its importable dotted name (imported on first use). Every
        chain imports it by name (in a worker, or here), so a module must be
        importable by its ``__name__``, and a name must be found on ``sys.path``.

    Raises
    ------
    ValueError
        ``name`` is a built-in sampler (``"gibbs"``, ``"prune"`` ...: they cannot be
        shadowed), the module cannot be imported by its name, or lacks
        ``init``/``step``/``run_chain``. Registering a name again replaces it.

    Examples
    --------
    >>> from prunelab.samplers import register_sampler, get_sampler
    >>> register_sampler("gibbs-again", "prunelab.samplers.gibbs")
    >>> get_sampler("gibbs-again").__name__
    'prunelab.samplers.gibbs'
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"a sampler's name must be a non-empty string, got {name!r}")
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a built-in sampler; register yours under another name")
    if isinstance(module, ModuleType):
        _check_module(name, module)
        try:
            importable = importlib.import_module(module.__name__) is module
        except ImportError:
            importable = False
        if not importable:
            raise ValueError(
                f"sampler module {module.__name__!r} for sampler {name!r} cannot be imported by its name, and every "
                "chain (in this process or a worker) imports its sampler by name; put it in an importable module "
                "(a file on sys.path, not __main__ or a module built in memory) and register that"
            )
    elif isinstance(module, str):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package that does not import, or a bad name
            found = False
        if not found:
            raise ValueError(f"sampler {name!r}: no module {module!r} can be imported (check the dotted name)")
    else:
        raise TypeError(f"module must be a module or a dotted name, got {type(module).__name__}")
    _SAMPLERS[name] = module


def get_sampler(name: str) -> ModuleType:
    """The sampler module registered under ``name``, imported if needed.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones), or a registered module
        that cannot be imported or lacks ``init``/``step``/``run_chain``.

    Examples
    --------
    >>> from prunelab.samplers import get_sampler
    >>> get_sampler("metropolis").__name__
    'prunelab.samplers.metropolis'
    """
    try:
        module = _SAMPLERS[name]
    except KeyError:
        raise ValueError(f"unknown sampler {name!r}; known samplers are {sorted(_SAMPLERS)}") from None
    if isinstance(module, str):
        try:
            module = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            raise ValueError(
                f"sampler {name!r} is registered as {module!r}, which cannot be imported: {exc}"
            ) from None
        _check_module(name, module)
        _SAMPLERS[name] = module
    return module


def available_samplers() -> list[str]:
    """Names of the registered samplers whose modules import.

    Examples
    --------
    >>> from prunelab.samplers import available_samplers
    >>> {"gibbs", "metropolis"} <= set(available_samplers())
    True
    """
    names = []
    for name in sorted(_SAMPLERS):
        try:
            get_sampler(name)
        except ValueError:
            continue
        names.append(name)
    return names


def _check_module(name: str, module: ModuleType) -> None:
    missing = [a for a in REQUIRED_ATTRIBUTES if not callable(getattr(module, a, None))]
    if missing:
        raise ValueError(f"sampler module {module.__name__!r} for sampler {name!r} lacks {missing}")
