"""The exact start past the junction tree: a state drawn from the compiled circuit when the tree refuses.

:func:`prunelab.samplers.init.exact_posterior_state` draws a start from the
junction tree's tables when forward sampling cannot meet the evidence; where the
tree would not fit, it raises :class:`TreeRefused` inside and draws here instead.
"""

from __future__ import annotations

from ..compiled import compile_network
from ..network import BayesianNetwork, EvidenceError

__all__ = ["TreeRefused", "circuit_posterior_state"]


class TreeRefused(Exception):
    """The junction tree would not fit: ``args = (named evidence, the tree's refusal)``."""


def circuit_posterior_state(rng, bn: BayesianNetwork, evidence, max_restarts: int, refusal: TreeRefused):
    """``x ~ P(x | e)`` drawn from the compiled circuit of ``(bn, evidence)``, capped at ``AUTO_COMPILE_SECONDS``.

    Raises
    ------
    EvidenceError
        If ``P(e) = 0``, or if the circuit refuses too (the message names both refusals).

    Examples
    --------
    >>> import numpy as np
    >>> from prunelab import load_network
    >>> bn = load_network("deterministic_pair")
    >>> circuit_posterior_state(np.random.default_rng(0), bn, {"B": "1"}, 10, TreeRefused("B=1", "")).tolist()
    [1, 1]
    """
    from ..circuit import AUTO_COMPILE_SECONDS, CircuitTooLargeError, ImpossibleEvidenceError, circuit_for
    from ..circuit import posterior_state

    named, tree_refusal = refusal.args
    net = compile_network(bn, evidence)
    try:
        return posterior_state(rng, net, circuit_for(net, max_seconds=AUTO_COMPILE_SECONDS))
    except ImpossibleEvidenceError:
        raise EvidenceError(f"evidence {{{named}}} is impossible in network {bn.name!r}: P(e) = 0") from None
    except CircuitTooLargeError as exc:
        raise EvidenceError(
            f"no state with P(x, e) > 0 found for the evidence {{{named}}} in {max_restarts} forward-sampling "
            f"tries: it may be impossible, and exact inference cannot tell (the junction tree refused: "
            f"{tree_refusal}; and {exc})"
        ) from None
