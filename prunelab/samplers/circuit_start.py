"""The exact start past the junction tree: a state drawn from the compiled circuit when the tree's tables do not fit.

:func:`prunelab.samplers.init.exact_posterior_state` draws a start from the
junction tree's tables when forward sampling cannot meet the evidence; where the
planner says they do not fit (:func:`prunelab.planner.draw_method`), it draws here instead.
"""

from __future__ import annotations

from ..circuit import CircuitTooLargeError, ImpossibleEvidenceError, circuit_for, inference, posterior_state
from ..compiled import compile_network
from ..network import BayesianNetwork, EvidenceError
from ..planner import ExactPlan

__all__ = ["circuit_posterior_state"]


def circuit_posterior_state(rng, bn: BayesianNetwork, evidence, max_restarts: int, plan: ExactPlan):
    """``x ~ P(x | e)`` drawn from the compiled circuit of ``(bn, evidence)``, capped at ``AUTO_COMPILE_SECONDS``.

    Parameters
    ----------
    rng : numpy.random.Generator
    bn : BayesianNetwork
    evidence : mapping
    max_restarts : int
        The forward-sampling tries made before, for the message.
    plan : prunelab.planner.ExactPlan
        The planner's plan, whose ``tried`` names the junction tree's refusal.

    Raises
    ------
    EvidenceError
        If ``P(e) = 0``, or if the circuit refuses too (the message names both refusals).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> bn = load_network("deterministic_pair")
    >>> plan = ExactPlan("circuit", "the junction tree's tables do not fit", ("junction_tree: (none)",))
    >>> circuit_posterior_state(np.random.default_rng(0), bn, {"B": "1"}, 10, plan).tolist()
    [1, 1]
    """
    named = ", ".join(f"{v}={s}" for v, s in bn.evidence_names(evidence).items())
    net = compile_network(bn, evidence)
    try:
        # the cap is read per call, from the module that defines it, so that a changed cap holds
        return posterior_state(rng, net, circuit_for(net, max_seconds=inference.AUTO_COMPILE_SECONDS))
    except ImpossibleEvidenceError:
        raise EvidenceError(f"evidence {{{named}}} is impossible in network {bn.name!r}: P(e) = 0") from None
    except CircuitTooLargeError as exc:
        raise EvidenceError(
            f"no state with P(x, e) > 0 found for the evidence {{{named}}} in {max_restarts} forward-sampling "
            f"tries: it may be impossible, and exact inference cannot tell (the junction tree refused: "
            f"{plan.tried[0].removeprefix('junction_tree: ')}; and {exc})"
        ) from None
