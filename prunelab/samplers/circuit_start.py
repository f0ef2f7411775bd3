"""The start past the junction tree: a state drawn from the compiled circuit, else a SAT solver's model.

:func:`prunelab.samplers.init.exact_posterior_state` draws a start from the
junction tree's tables when forward sampling cannot meet the evidence; where the
planner says they do not fit (:func:`prunelab.planner.draw_method`), it draws from the
circuit here (:func:`circuit_posterior_state`). Where the circuit refuses too (or is not
installed), exact inference can neither draw nor tell whether ``P(e) > 0``
(:class:`ExactStartRefusedError`), and :func:`~prunelab.samplers.init.initial_state`
asks CMSGen for one model of the network's support CNF (:func:`solver_start_state`): a
state with ``P(x, e) > 0``, not a draw from ``P(x | e)``; no model at all decides that the
evidence is impossible.
"""

from __future__ import annotations

import numpy as np

from ..circuit import CircuitTooLargeError, ImpossibleEvidenceError, circuit_for, inference, posterior_state
from ..compiled import compile_network
from ..evidence import impossible_evidence
from ..extras import MissingExtraError, require
from ..network import BayesianNetwork, EvidenceError
from ..planner import ExactPlan

__all__ = ["ExactStartRefusedError", "circuit_posterior_state", "solver_start_state"]


class ExactStartRefusedError(EvidenceError):
    """Exact inference cannot draw a start from ``P(x | e)``: the junction tree and the circuit refused."""


def circuit_posterior_state(rng, bn: BayesianNetwork, evidence, max_restarts: int, plan: ExactPlan,
                            max_seconds: float | None = None):
    """``x ~ P(x | e)`` drawn from the compiled circuit of ``(bn, evidence)``, its compilation capped.

    Parameters
    ----------
    rng : numpy.random.Generator
    bn : BayesianNetwork
    evidence : mapping
    max_restarts : int
        The forward-sampling tries made before, for the message.
    plan : prunelab.planner.ExactPlan
        The planner's plan, whose ``tried`` names the junction tree's refusal.
    max_seconds : float, optional
        The compile cap; default :data:`~prunelab.circuit.AUTO_COMPILE_SECONDS` (a circuit compiled before is
        used whatever the cap).

    Raises
    ------
    EvidenceError
        If ``P(e) = 0``.
    ExactStartRefusedError
        If the circuit refuses too, or is not installed (the message names both refusals).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> bn = load_network("deterministic_pair")
    >>> plan = ExactPlan("circuit", "draw: circuit", "the tables do not fit", ("junction_tree: (none)",))
    >>> circuit_posterior_state(np.random.default_rng(0), bn, {"B": "1"}, 10, plan).tolist()
    [1, 1]
    """
    net = compile_network(bn, evidence)
    try:
        # the cap is read per call, from the module that defines it, so that a changed cap holds
        cap = inference.AUTO_COMPILE_SECONDS if max_seconds is None else max_seconds
        return posterior_state(rng, net, circuit_for(net, max_seconds=cap))
    except ImpossibleEvidenceError:
        raise impossible_evidence(bn, evidence) from None
    except (CircuitTooLargeError, MissingExtraError) as exc:
        named = ", ".join(f"{v}={s}" for v, s in bn.evidence_names(evidence).items())
        raise ExactStartRefusedError(
            f"no state with P(x, e) > 0 found for the evidence {{{named}}} in {max_restarts} "
            f"forward-sampling tries: it may be impossible, and exact inference cannot tell (the junction tree "
            f"refused: {plan.tried[0].removeprefix('junction_tree: ')}; and {exc})"
        ) from None


def solver_start_state(rng, bn: BayesianNetwork, evidence, refused: ExactStartRefusedError) -> np.ndarray:
    """A state with ``P(x, e) > 0`` where exact inference refused: one CMSGen model of the support CNF.

    The CNF is prune's solver draws' (:func:`prunelab.samplers.prune.draws.solver.solver_cnf`: the circuit
    encoding, whose models are the states with ``P(x, e) > 0``), cached per (network, evidence). One
    ``rng.integers`` call seeds the solver, and the call is capped in conflicts
    (:data:`~prunelab.samplers.prune.draws.cmsgen.CONFL_LIMIT`), not seconds, so a seed gives one state on
    every machine. The state is a feasible start, not a draw from ``P(x | e)``.

    Raises
    ------
    EvidenceError
        If the CNF has no model (the evidence is impossible, named), or CMSGen found none within its limit
        (the message names the exact methods' refusals too).
    prunelab.extras.MissingExtraError
        ``pycmsgen`` is not installed (the message names the refusals and the extra that installs it).

    Examples
    --------
    >>> import numpy as np
    >>> import pytest; _ = pytest.importorskip("pycmsgen")  # the example needs the extra
    >>> from prunelab import load_network
    >>> refused = ExactStartRefusedError("(the exact methods' refusals)")
    >>> solver_start_state(np.random.default_rng(0), load_network("deterministic_pair"), {"B": "1"}, refused).tolist()
    [1, 1]
    """
    from .prune.draws.cmsgen import CONFL_LIMIT
    from .prune.draws.solver import EXTRA, decode_model, solver_cnf, solver_seed

    pycmsgen = require("pycmsgen", EXTRA, f"{refused}. A start state past them (a SAT solver's model)")
    net = compile_network(bn, evidence)
    cnf = solver_cnf(net)
    solver = pycmsgen.Solver(seed=solver_seed(rng), confl_limit=CONFL_LIMIT)
    solver.add_clauses(cnf.clauses)
    satisfiable, model = solver.solve()
    if satisfiable is None:
        raise EvidenceError(f"{refused}; and CMSGen found no model of the support CNF in {CONFL_LIMIT:,} conflicts")
    if not satisfiable:
        raise impossible_evidence(bn, evidence, " (its support CNF has no model: CMSGen)")
    return decode_model(cnf, net, np.maximum(net.evidence_value, 0), np.array(model, dtype=bool))
