"""Exact inference: all one-variable posteriors from one junction-tree calibration.

The ground truth that every sampler is measured against. Evidence is entered by
slicing each CPT at the observed states (multiplying by an indicator), so the
evidence variables drop out of the graph before it is triangulated; deterministic
zeros need no special care. The remaining moral graph is triangulated with the
cheapest elimination order :func:`prunelab.elimination.find_order` finds (greedy
min-fill, min-weight, min-degree, and more when those are costly), and the
elimination cliques, joined child -> parent along the elimination tree, form a
junction tree. An order whose tables exceed
:data:`~prunelab.elimination.MAX_CLIQUE_ENTRIES` (one table) or
:data:`~prunelab.elimination.MAX_TOTAL_ENTRIES` (all) is refused before anything
is allocated.
One upward pass (collect) gives P(e); one downward pass (distribute, Hugin-style
division with 0/0 = 0) gives the calibrated clique beliefs, from which every free
variable's posterior is read off its own clique. Messages are rescaled to a
maximum of 1 and the scales are kept on a log scale, so nothing underflows on
large networks or long evidence lists.

The compiled junction tree depends only on the network and on *which* variables
are observed, not on their values; it is cached per network object (weakly, so
networks are not kept alive) and per observed-variable set (:mod:`prunelab.junction_tree`).

Where the tables are large or exceed their caps, exact inference turns to the
network's determinism: a compiled circuit answers every posterior at once
(:mod:`prunelab.circuit`), and a weighted model counter answers ``P(e)`` with one
count and a named variable's posterior with ``k - 1`` more
(:mod:`prunelab.circuit.counting`). Which of the three runs is decided once, by
:mod:`prunelab.planner` (``method="auto"``); the answer says which method gave it and why.

References
----------
.. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press, 2009, ch. 9 (variable elimination, elimination orders,
   induced width) and ch. 10 (clique trees, sum-product message passing,
   calibration).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


from .elimination import HEURISTICS, evaluate_order, find_order, greedy_order
from .evidence import as_evidence, impossible_evidence
from .junction_tree import distribute, free_moral_graph
from .network import BayesianNetwork
from .planner import EXACT_METHODS, ExactPlan, plan_and_answer
from .workers import checked_jobs


__all__ = [
    "EXACT_METHODS",
    "ExactMarginals",
    "ORDER_CHOICES",
    "exact_marginals",
    "probability_of_evidence",
    "log_probability_of_evidence",
    "elimination_order",
    "induced_width",
    "treewidth",
]


def _observed_set(bn: BayesianNetwork, evidence: Mapping | None) -> frozenset[int]:
    return frozenset(bn.evidence_indices(as_evidence(evidence)))


ORDER_CHOICES = (*HEURISTICS, "best")
"""Values of ``heuristic=`` in :func:`elimination_order`; ``"best"`` is the order exact inference uses."""


def elimination_order(
    bn: BayesianNetwork, evidence: Mapping | None = None, heuristic: str = "min-fill"
) -> list[int]:
    """An elimination order of the unobserved variables.

    The graph is the moral graph of ``bn`` with the observed variables removed
    (their CPTs are sliced at the evidence, so they never need eliminating). A
    greedy heuristic eliminates, at each step, the variable with the smallest score
    and joins its neighbours (:func:`prunelab.elimination.greedy_order`).

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping of str to state, pandas Series, or None
        Checked by :func:`prunelab.evidence.as_evidence`: anything else is a ``TypeError``.
        Only the observed variables matter; the states are checked but unused.
    heuristic : {"min-fill", "min-weight", "min-degree", "best"}, default "min-fill"
        ``"min-fill"``: fewest added edges, ties by the smallest clique table.
        ``"min-weight"``: smallest clique table, ties by fewest added edges.
        ``"min-degree"``: fewest neighbours, ties by the smallest clique table.
        Remaining ties go to the lowest variable index (so the order is
        deterministic). ``"best"``: the cheapest order that
        :func:`prunelab.elimination.find_order` finds, the one exact inference uses.

    Returns
    -------
    list of int
        Indices into ``bn.variables`` of every unobserved variable, in elimination
        order.

    Raises
    ------
    EvidenceError
        If the evidence names an unknown variable or state.
    ValueError
        If ``heuristic`` is not one of :data:`ORDER_CHOICES`.

    See Also
    --------
    induced_width, treewidth

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, sec. 9.4.3 (greedy search for elimination orderings).

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.exact import elimination_order
    >>> bn = BayesianNetwork(
    ...     states={"A": ["0", "1"], "B": ["0", "1"], "C": ["0", "1"]},
    ...     parents={"B": ["A"], "C": ["B"]},
    ...     cpts={"A": [0.5, 0.5], "B": [[0.9, 0.1], [0.2, 0.8]], "C": [[1.0, 0.0], [0.0, 1.0]]},
    ... )
    >>> elimination_order(bn)
    [0, 1, 2]
    >>> elimination_order(bn, evidence={"B": "1"})
    [0, 2]
    """
    if heuristic not in ORDER_CHOICES:
        raise ValueError(f"unknown heuristic {heuristic!r}; choose one of {list(ORDER_CHOICES)}")
    adjacency = free_moral_graph(bn, _observed_set(bn, evidence))
    if heuristic == "best":
        return list(find_order(adjacency, bn.cardinalities).order)
    return greedy_order(adjacency, bn.cardinalities, heuristic)


def induced_width(
    bn: BayesianNetwork, order: Sequence[int], evidence: Mapping | None = None
) -> int:
    """Induced width of an elimination order: largest elimination clique minus one.

    Parameters
    ----------
    bn : BayesianNetwork
    order : sequence of int
        Indices into ``bn.variables``: every unobserved variable exactly once.
    evidence : mapping of str to state, pandas Series, or None
        Checked by :func:`prunelab.evidence.as_evidence`: anything else is a ``TypeError``.
        The observed variables, removed from the graph as in
        :func:`elimination_order`.

    Returns
    -------
    int
        ``max |{X} ∪ neighbours(X)| - 1`` over the elimination steps; 0 when no
        variable is left to eliminate.

    Raises
    ------
    ValueError
        If ``order`` is not a permutation of the unobserved variables.
    EvidenceError
        If the evidence names an unknown variable or state.

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, def. 9.6 (induced width) and sec. 9.4.

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.exact import induced_width
    >>> bn = BayesianNetwork(
    ...     states={"A": ["0", "1"], "B": ["0", "1"], "C": ["0", "1"]},
    ...     parents={"C": ["A", "B"]},
    ...     cpts={"A": [0.5, 0.5], "B": [0.5, 0.5], "C": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]},
    ... )
    >>> induced_width(bn, [0, 1, 2])
    2
    """
    observed = _observed_set(bn, evidence)
    adjacency = free_moral_graph(bn, observed)
    order = [int(v) for v in order]
    if sorted(order) != sorted(adjacency):
        names = [bn.variables[i] for i in sorted(adjacency)]
        raise ValueError(
            f"order must list every unobserved variable exactly once; got {order}, "
            f"unobserved variables are {sorted(adjacency)} ({names})"
        )
    return evaluate_order(adjacency, bn.cardinalities, order).width


def treewidth(
    bn: BayesianNetwork, evidence: Mapping | None = None, heuristic: str = "min-fill"
) -> int:
    """Width of the junction tree used for exact inference (a treewidth upper bound).

    The induced width of :func:`elimination_order`'s greedy order on the moral
    graph without the observed variables. Exact inference costs time and memory
    exponential in this number.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping of str to state, pandas Series, or None
        Checked by :func:`prunelab.evidence.as_evidence`: anything else is a ``TypeError``.
    heuristic : {"min-fill", "min-weight", "min-degree", "best"}, default "min-fill"

    Returns
    -------
    int
        The induced width; the true treewidth is at most this.

    Raises
    ------
    EvidenceError
        If the evidence names an unknown variable or state.

    See Also
    --------
    elimination_order, induced_width

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, def. 9.7 (treewidth) and sec. 9.4.

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.exact import treewidth
    >>> bn = BayesianNetwork(
    ...     states={"A": ["0", "1"], "B": ["0", "1"]},
    ...     parents={"B": ["A"]},
    ...     cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.0, 1.0]]},
    ... )
    >>> treewidth(bn)
    1
    """
    return induced_width(bn, elimination_order(bn, evidence, heuristic), evidence)


class ExactMarginals(dict):
    """Posteriors by variable name (a ``dict``), with ``log P(e)`` and how they were computed.

    Attributes
    ----------
    method : str
        The method that answered: ``"junction_tree"``, ``"circuit"`` or ``"counter"``.
    plan : prunelab.planner.ExactPlan
        The method, the reason it was chosen and what was tried before it.
    log_probability : float
        ``log P(e)``.
    """

    def __init__(self, marginals, plan: ExactPlan, log_probability: float):
        super().__init__(marginals)
        self.plan = plan
        self.method = plan.method
        self.log_probability = log_probability


def _chosen(bn: BayesianNetwork, evidence: Mapping, variables) -> list[int] | None:
    """Indices of the variables whose posteriors are asked for (``None``: every free one), checked by name."""
    if variables is None:
        return None
    if isinstance(variables, str) or not isinstance(variables, Sequence):
        raise TypeError(f"variables must be a sequence of variable names, not {type(variables).__name__}")
    index = {v: i for i, v in enumerate(bn.variables)}
    out: list[int] = []
    seen: set[int] = set()
    for v in variables:
        if v not in index:
            raise ValueError(f"variables: {v!r} is not a variable of network {bn.name!r}")
        if v in evidence:
            raise ValueError(f"variables: {v!r} is observed; its posterior is its evidence")
        if index[v] in seen:
            raise ValueError(f"variables: {v!r} is named twice")
        seen.add(index[v])
        out.append(index[v])
    return out


def exact_marginals(bn: BayesianNetwork, evidence: Mapping | None = None, *, method: str = "auto",
                    variables: Sequence[str] | None = None, n_jobs: int = 1,
                    progress: bool = False) -> ExactMarginals:
    """Exact posterior ``P(X | e)`` of every unobserved variable, or of those named.

    Three methods answer exactly (:mod:`prunelab.planner` says when each is chosen):
    one calibration of a junction tree (one upward and one downward pass) gives every
    posterior; past the junction tree's caps, one upward and one outward pass over a
    compiled circuit that exploits the network's determinism (:mod:`prunelab.circuit`);
    and a weighted model counter gives ``P(e)`` with one count and each ``k``-state
    variable's posterior with ``k - 1`` more (:mod:`prunelab.circuit.counting`).

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping of str to state, pandas Series, or None
        Checked by :func:`prunelab.evidence.as_evidence`: anything else is a ``TypeError``.
        Observed variables and their states (state names or state indices).
    method : {"auto", "junction_tree", "circuit", "counter"}, default "auto"
        ``"auto"``: the planner's choice (:func:`prunelab.planner.plan_and_answer`),
        from the junction tree's table sizes, the share of deterministic CPT entries
        and how many posteriors are asked for; where they are close, a short race
        with a split budget. A named method runs alone, with its own caps
        (``"counter"`` without ``variables``: every free variable, slow on large
        networks unless ``n_jobs`` spreads the counts).
    variables : sequence of str, optional
        The free variables whose posteriors to return, in this order; all of them
        if None; ``[]`` for none (``log_probability`` only).
    n_jobs : int, default 1
        Processes for the counter's counts, as joblib counts them (-1: every usable core).
    progress : bool, default False
        A progress bar over the counts, where the counter answers.

    Returns
    -------
    ExactMarginals
        A dict: for every variable not in ``evidence`` (or every one named in
        ``variables``, in that order), in ``bn.variables`` order, a float64 array
        over its states that sums to 1. Observed variables are omitted. Its
        attributes: ``method``, the method that answered; ``plan``, why it was
        chosen (:class:`prunelab.planner.ExactPlan`); ``log_probability``, ``log P(e)``.

    Raises
    ------
    EvidenceError
        If the evidence names an unknown variable or state (the message lists the
        valid names), or if it is impossible, ``P(e) = 0`` (the message names the
        evidence).
    prunelab.elimination.TablesTooLargeError
        (a ``ValueError``) With ``method="junction_tree"``: the junction tree would
        need a clique table larger than
        :data:`~prunelab.elimination.MAX_CLIQUE_ENTRIES`, or all its tables more
        than :data:`~prunelab.elimination.MAX_TOTAL_ENTRIES` entries.
    prunelab.circuit.CircuitTooLargeError
        (a ``ValueError``) The circuit, where it was tried last, outgrew its caps;
        the message names the size reached.
    prunelab.circuit.CountTooHardError
        (a ``ValueError``) The counts, where they were tried last, reached their caps;
        the message names how many were done (and the earlier refusals).
    ValueError
        ``variables`` names an unknown or observed variable, or one twice; ``n_jobs``
        is 0 (a ``TypeError`` if it is not an integer).

    See Also
    --------
    probability_of_evidence, prunelab.planner.plan_and_answer

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, sec. 9.3 (evidence as factor reduction), ch. 10 (clique trees,
       sum-product calibration; sec. 10.3 for the Hugin belief update).
    .. [2] M. Chavira and A. Darwiche, "On probabilistic inference by weighted
       model counting", Artificial Intelligence 172 (2008).

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.exact import exact_marginals
    >>> bn = BayesianNetwork(
    ...     states={"A": ["0", "1"], "B": ["0", "1"]},
    ...     parents={"B": ["A"]},
    ...     cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.0, 1.0]]},
    ... )
    >>> exact_marginals(bn)["B"]
    array([0.5, 0.5])
    >>> exact_marginals(bn, evidence={"B": "1"})
    {'A': array([0., 1.])}
    >>> answer = exact_marginals(bn, evidence={"B": "1"}, method="counter")
    >>> answer.method, round(float(answer.log_probability), 6)
    ('counter', -0.693147)
    >>> exact_marginals(bn).plan.reason
    'the junction tree is small: 6 table entries'
    """
    evidence = as_evidence(evidence)
    chosen = _chosen(bn, bn.evidence_names(evidence) if evidence else {}, variables)
    answer = plan_and_answer(bn, evidence, method, chosen, chosen != [], n_jobs=checked_jobs(n_jobs),
                             progress=progress)
    if answer.log_probability == -math.inf:
        raise impossible_evidence(bn, evidence)
    marginals = answer.marginals
    if answer.calibrated is not None:
        if chosen == []:
            marginals = {}
        else:
            tree, calibration = answer.calibrated
            by_index = dict(zip(tree.order, distribute(tree, calibration)))
            marginals = {bn.variables[i]: by_index[i] for i in sorted(by_index)}
    if chosen is not None:
        marginals = {bn.variables[i]: marginals[bn.variables[i]] for i in chosen}
    return ExactMarginals(marginals, answer.plan, float(answer.log_probability))


def log_probability_of_evidence(bn: BayesianNetwork, evidence: Mapping | None, *, method: str = "auto",
                                n_jobs: int = 1) -> float:
    """Exact ``log P(e)``; ``-inf`` for impossible evidence, 0.0 for none.

    Messages are rescaled during the upward pass, so this stays finite where
    ``P(e)`` itself would underflow.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping of str to state, pandas Series, or None
        Checked by :func:`prunelab.evidence.as_evidence`: anything else is a ``TypeError``.
    method : {"auto", "junction_tree", "circuit", "counter"}, default "auto"
        As in :func:`exact_marginals`; for ``P(e)`` the planner weighs the junction
        tree against one weighted count. ``exact_marginals(bn, evidence,
        variables=[])`` gives the same number with the plan that chose it.
    n_jobs : int, default 1
        As in :func:`exact_marginals`.

    Returns
    -------
    float

    Raises
    ------
    EvidenceError
        If the evidence names an unknown variable or state.
    prunelab.elimination.TablesTooLargeError
        (a ``ValueError``) With ``method="junction_tree"``, if the junction tree would
        need a clique table larger than :data:`~prunelab.elimination.MAX_CLIQUE_ENTRIES`,
        or all its tables more than :data:`~prunelab.elimination.MAX_TOTAL_ENTRIES` entries.

    See Also
    --------
    probability_of_evidence

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, sec. 9.3 and 10.2.

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.exact import log_probability_of_evidence
    >>> bn = BayesianNetwork(states={"A": ["0", "1"]}, parents={}, cpts={"A": [0.25, 0.75]})
    >>> float(round(log_probability_of_evidence(bn, {"A": "0"}), 6))
    -1.386294
    """
    evidence = as_evidence(evidence)
    if not evidence:
        return 0.0
    answer = plan_and_answer(bn, evidence, method, None, False, n_jobs=checked_jobs(n_jobs))
    return float(answer.log_probability)


def probability_of_evidence(bn: BayesianNetwork, evidence: Mapping | None, *, method: str = "auto",
                            n_jobs: int = 1) -> float:
    """Exact probability ``P(e)`` of the evidence.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping of str to state, pandas Series, or None
        Checked by :func:`prunelab.evidence.as_evidence`: anything else is a ``TypeError``.
        Observed variables and their states; empty or None gives 1.0.
    method : {"auto", "junction_tree", "circuit", "counter"}, default "auto"
        As in :func:`log_probability_of_evidence`.
    n_jobs : int, default 1
        As in :func:`exact_marginals`.

    Returns
    -------
    float
        ``P(e)``; exactly 0.0 for impossible evidence (deterministic zeros
        propagate exactly). Below the normal floats (about 1e-308) it is
        ``exp(log P(e))``: 0.0 under the smallest float, never a subnormal stuck
        by rounding. Use :func:`log_probability_of_evidence` when ``P(e)`` may
        underflow: it stays exact.

    Raises
    ------
    EvidenceError
        If the evidence names an unknown variable or state; the message lists the
        valid names.
    prunelab.elimination.TablesTooLargeError
        (a ``ValueError``) With ``method="junction_tree"``, if the junction tree would
        need a clique table larger than :data:`~prunelab.elimination.MAX_CLIQUE_ENTRIES`,
        or all its tables more than :data:`~prunelab.elimination.MAX_TOTAL_ENTRIES` entries.

    See Also
    --------
    exact_marginals, log_probability_of_evidence

    References
    ----------
    .. [1] D. Koller and N. Friedman, *Probabilistic Graphical Models*, MIT Press,
       2009, sec. 9.3 (P(e) as the sum of the reduced product) and ch. 10.

    Examples
    --------
    >>> from prunelab import BayesianNetwork
    >>> from prunelab.exact import probability_of_evidence
    >>> bn = BayesianNetwork(
    ...     states={"A": ["0", "1"], "B": ["0", "1"]},
    ...     parents={"B": ["A"]},
    ...     cpts={"A": [0.3, 0.7], "B": [[0.5, 0.5], [0.0, 1.0]]},
    ... )
    >>> probability_of_evidence(bn, {"B": "0"})
    0.15
    >>> probability_of_evidence(bn, {"A": "1", "B": "0"})
    0.0
    """
    evidence = as_evidence(evidence)
    if not evidence:
        return 1.0
    answer = plan_and_answer(bn, evidence, method, None, False, n_jobs=checked_jobs(n_jobs))
    return answer.calibrated[1].probability if answer.calibrated is not None else math.exp(answer.log_probability)
