"""The exact-inference planner: which of junction tree, circuit and counter answers a question.

Exact inference has three methods, and each is the fastest somewhere:

* the **junction tree** (:mod:`prunelab.junction_tree`) costs its clique tables, known
  before any is allocated from the elimination order, and answers ``P(e)`` and every
  posterior at once; where the tables are small nothing is faster;
* the **compiled circuit** (:mod:`prunelab.circuit`) exploits the zeros and ones of the
  tables, costs a compilation no formula predicts, and then answers every posterior
  at once;
* the **weighted model counter** (:mod:`prunelab.circuit.counting`) exploits them
  too, keeps nothing, and answers one question per count: ``P(e)`` with one count, a
  ``k``-state variable's posterior with ``k - 1`` more.

:func:`plan_and_answer` decides before any long work, from what is cheap to know
first: the junction tree's tables (a symbolic search, cached with the tree), the
share of deterministic entries in the CPTs, and the question (``P(e)``, ``k`` named
posteriors, or all of them). Its rules, in order:

0. The elimination order is searched with a work cap (:data:`ORDER_SEARCH_WORK`):
   on a network far past the caps the greedy searches alone would take a minute
   to learn that the tables do not fit; past the cap they are taken not to.
1. The tables fit and are small (at most :data:`QUICK_TABLE_ENTRIES`, well under a
   second of work): the junction tree.
2. The tables fit but are not small, and the network has deterministic entries: a
   short race with a split budget. The method that exploits determinism for this
   question (the counter for ``P(e)`` and named posteriors, the circuit for all of
   them) runs first, capped at half the junction tree's predicted seconds plus
   :data:`TRY_SECONDS`; if it is not done by then, the junction tree answers. So the
   choice costs at most about 1.5 times the junction tree's time plus two seconds,
   and gains whatever determinism gives. The predicted seconds are of a core to
   itself; the rival's cap is wall-clock, so they are stretched by the share of a
   core the planner's own order search got (its wall over its CPU seconds,
   :attr:`PlanFacts.slowdown`): on a loaded machine the junction tree would take
   that much longer too, and a rival capped on the idle machine's figure loses
   races it wins on CPU time.
3. The tables do not fit: for ``P(e)`` and named posteriors the counter, with a
   circuit compiled beside it in a child of its own once the counts have gone
   :data:`BESIDE_AFTER_SECONDS`, capped so that the counter's answer costs at most
   half its time plus :data:`TRY_SECONDS` more than the counts alone, the planner's
   own time included, in wall and in CPU seconds (``_beside_budget``; stretched
   like a race's budget, and by the share of a core it takes from the counts where
   the cores are fewer than the processes): whichever answers first answers, and the
   other is stopped; where the circuit compiles
   in seconds and the counts take longer (a grid of few zeros, whose counts search
   long), it answers. For every posterior the circuit (capped at
   :data:`~prunelab.circuit.AUTO_COMPILE_SECONDS`) and, where it refuses, the counter
   for every free variable. The counter's cap is
   :data:`~prunelab.circuit.counting.MAX_COUNT_SECONDS` whenever it is the last method.

The answer carries an :class:`ExactPlan`: the method that answered, why, and what
was tried before it. Every caller of exact inference goes through here:
:func:`prunelab.exact.exact_marginals`, :func:`~prunelab.exact.probability_of_evidence`,
:func:`~prunelab.exact.log_probability_of_evidence`, and the exact start state of the
samplers (:func:`draw_method`: the junction tree's tables, else the circuit; the
counter draws no states, and a start past both is a SAT solver's model,
:func:`prunelab.samplers.circuit_start.solver_start_state`).

References
----------
.. [1] M. Chavira and A. Darwiche, "On probabilistic inference by weighted model
   counting", Artificial Intelligence 172 (2008): compilation and counting exploit
   determinism; the junction tree's cost is its tables whatever the zeros.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import signal
import time
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from .compiled import compile_network
from .elimination import OrderSearchTooLongError, TablesTooLargeError
from .extras import MissingExtraError, available
from .junction_tree import JunctionTree, calibrate, junction_tree
from .network import BayesianNetwork
from .workers import Terminated, usable_cores

__all__ = [
    "BESIDE_AFTER_SECONDS", "BESIDE_START_SECONDS", "EXACT_METHODS", "ExactPlan", "MEASURE_CPU_SECONDS",
    "ORDER_SEARCH_WORK", "PLAN_RULES", "PlanFacts", "QUICK_TABLE_ENTRIES", "SECONDS_PER_TABLE_ENTRY",
    "START_COMPILE_SECONDS", "TRY_SECONDS", "draw_method", "plan_and_answer",
]

EXACT_METHODS = ("auto", "junction_tree", "circuit", "counter")
"""Values of ``method=`` in exact inference; ``"auto"`` is the planner's choice."""

QUICK_TABLE_ENTRIES = 2.0**22
"""Junction-tree tables (entries in all) at or below which the tree answers without a race (about 0.2 s)."""

SECONDS_PER_TABLE_ENTRY = 1e-7
"""Predicted seconds of one calibration per table entry (measured on a 2-core x86_64 machine at load 6:
2-5e-8 s for tables of 1e7 entries, 1.8-2.5e-7 s for 1.5e8, where memory bandwidth binds)."""

TRY_SECONDS = 2.0
"""What a race gives the rival of the junction tree beyond half the tree's predicted seconds."""

BESIDE_AFTER_SECONDS = 0.5
"""Where the tables do not fit (rule 3), how long the counts go before a circuit starts beside them."""

BESIDE_START_SECONDS = 0.5
"""What the circuit's process may cost outside its cap: its fork, its stop, the network encoded again."""

MEASURE_CPU_SECONDS = 0.05
"""Least CPU seconds of the order search from which its wall over CPU seconds is taken as the slowdown."""

ORDER_SEARCH_WORK = 1e8
"""Cap on the work of the planner's elimination-order search (about 1 s; pgmpy's networks need at most 3.7e6):
a network whose greedy searches pass it is far past the tables' caps (a relational network of 6,252
variables spent 52 s in min-fill alone to learn that)."""


START_COMPILE_SECONDS = 10.0
"""Compile cap of the circuit a sampler's start is drawn from past the junction tree when a SAT solver can take
over (:func:`prunelab.samplers.init.initial_state`): a posterior draw saves a start nothing a chain needs, and a
circuit that refuses at :data:`~prunelab.circuit.AUTO_COMPILE_SECONDS` held every chain of the reach experiment
on mastermind_05_08_03-0014 past its 150 s of set-up, where the solver's model takes 0.2 s."""


PLAN_RULES = {
    "named": "the method was asked for by name",
    "small tables": "the junction tree's tables are small (rule 1)",
    "no determinism": "the tables fit and no CPT entry is 0 or 1: nothing for a rival to exploit",
    "rival not installed": "the tables fit and the method that exploits determinism is not installed",
    "race: counter": "the counter won the race against the junction tree (rule 2)",
    "race: circuit": "the circuit won the race against the junction tree (rule 2)",
    "race: junction tree": "the junction tree won the race (rule 2)",
    "tables do not fit: counter": "the tables do not fit and the counter answers the question (rule 3)",
    "tables do not fit: circuit": "the tables do not fit and a circuit answers (rule 3)",
    "beside the counts: circuit": "the tables do not fit and a circuit compiled beside the counts answered first "
                                  "(rule 3)",
    "past the circuit: counter": "neither the tables nor a circuit fit: the counter answers every posterior (rule 3)",
    "draw: tables": "an exact state is drawn from the junction tree's tables",
    "draw: circuit": "an exact state is drawn from a circuit: the tables do not fit",
}
"""The rules that choose a method, by the key :attr:`ExactPlan.rule` carries: the same key wherever the same rule
chose, whatever the load (the reason's sentence names the network's figures)."""


class PlanFacts(NamedTuple):
    """What the planner knew before it chose.

    Attributes
    ----------
    free : int
        Unobserved variables.
    counts : int
        Weighted counts the counter needs for the question (``1 + sum(k - 1)``).
    table_entries : float
        Entries of all the junction tree's tables (``inf`` where the order search refused).
    largest_table : float
        Entries of its largest table.
    fits : bool
        Whether the tables fit the caps of :mod:`prunelab.elimination`.
    deterministic_share : float
        Share of the CPT entries that are 0 or 1.
    slowdown : float
        Wall over CPU seconds of the order search (at least 1; 1 where it took under
        :data:`MEASURE_CPU_SECONDS` of CPU, or the tree was cached): how much longer than
        on a core of its own this process runs now. A race's budget is stretched by it.
    """

    free: int
    counts: int
    table_entries: float
    largest_table: float
    fits: bool
    deterministic_share: float
    slowdown: float = 1.0


class ExactPlan(NamedTuple):
    """The method that answered, and why.

    Attributes
    ----------
    method : str
        ``"junction_tree"``, ``"circuit"`` or ``"counter"``.
    rule : str
        The rule that chose it: a key of :data:`PLAN_RULES`.
    reason : str
        One sentence: the rule with the network's figures (table entries, counts); nothing measured, so the same
        question on the same network gets the same sentence on any machine.
    tried : tuple of str
        The methods tried before it, each with how it stopped (``"counter: not done within its budget of 3.1 s
        (3.1 s)"``).
    facts : PlanFacts or None
        What was known before choosing (``None`` when the method was named).
    race_budget : float or None
        Wall-clock seconds a race gave the rival of the junction tree (half the tree's predicted seconds times
        :attr:`PlanFacts.slowdown`, plus :data:`TRY_SECONDS`), or past the tables the circuit beside the counts
        (``_beside_budget``); ``None`` where no race was run.
    """

    method: str
    rule: str
    reason: str
    tried: tuple[str, ...] = ()
    facts: PlanFacts | None = None
    race_budget: float | None = None


class _Answer(NamedTuple):
    plan: ExactPlan
    log_probability: float
    marginals: dict | None  # None: read them off the calibrated tree
    calibrated: tuple | None  # (tree, calibration) when the junction tree answered


def _tree(bn: BayesianNetwork, observed: frozenset[int]) -> tuple[JunctionTree | None, ValueError | None]:
    try:
        return junction_tree(bn, observed, ORDER_SEARCH_WORK), None
    except (TablesTooLargeError, OrderSearchTooLongError) as refusal:
        return None, refusal


def _slowdown(wall: float, cpu: float) -> float:
    """Wall over CPU seconds, at least 1; 1 where ``cpu`` is under :data:`MEASURE_CPU_SECONDS` (too short to tell).

    Examples
    --------
    >>> _slowdown(3.0, 1.0), _slowdown(0.5, 1.0), _slowdown(0.5, 0.001)
    (3.0, 1.0, 1.0)
    """
    return max(1.0, wall / cpu) if cpu >= MEASURE_CPU_SECONDS else 1.0


def _entries(tree: JunctionTree) -> tuple[float, float]:
    sizes = [float(np.prod(s)) if s else 1.0 for s in tree.shapes]
    return math.fsum(sizes), max(sizes, default=0.0)


def _deterministic_share(net) -> float:
    cpt = net.cpt
    return float(np.count_nonzero((cpt == 0.0) | (cpt == 1.0)) / cpt.size) if cpt.size else 0.0


def _junction_tree_answer(bn, evidence, plan: ExactPlan) -> _Answer:
    tree, calibration = calibrate(bn, evidence)
    return _Answer(plan, calibration.log_probability, None, (tree, calibration))


def plan_and_answer(bn: BayesianNetwork, evidence: Mapping, method: str, variables: Sequence[int] | None,
                    posteriors: bool, *, n_jobs: int = 1, progress: bool = False) -> _Answer:
    """Choose the method (or take the one named), run it, and return the answer with its :class:`ExactPlan`.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : mapping
        Checked evidence (:func:`prunelab.evidence.as_evidence`), by name.
    method : {"auto", "junction_tree", "circuit", "counter"}
    variables : sequence of int or None
        Indices of the posteriors asked for; ``None``: every free variable.
    posteriors : bool
        ``False``: ``P(e)`` only (``variables`` is ignored).
    n_jobs : int, default 1
        Processes for the counter's counts.
    progress : bool, default False
        A progress bar over the counts.

    Returns
    -------
    ``(plan, log P(e), marginals or None, (tree, calibration) or None)``; marginals are
    ``None`` when the junction tree answered (read them off its calibration), ``{}``
    when the evidence is impossible.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.planner import plan_and_answer
    >>> answer = plan_and_answer(load_network("asia"), {"dysp": "yes"}, "auto", None, True)
    >>> answer.plan.method, answer.plan.rule, answer.plan.reason
    ('junction_tree', 'small tables', 'the junction tree is small: 38 table entries')
    """
    cpu_start = time.process_time()
    if method not in EXACT_METHODS:
        raise ValueError(f"unknown exact inference method {method!r}; choose one of {list(EXACT_METHODS)}")
    if method == "junction_tree":
        return _junction_tree_answer(bn, evidence, ExactPlan("junction_tree", "named", "asked for by name"))
    observed = frozenset(bn.evidence_indices(evidence))
    if method == "circuit":
        return _circuit_answer(bn, evidence, ExactPlan("circuit", "named", "asked for by name"), None)
    net = compile_network(bn, evidence)
    asked = _asked(net, variables, posteriors)
    if method == "counter":
        plan = ExactPlan("counter", "named", "asked for by name")
        return _count_answer(bn, net, asked, plan, None, n_jobs, progress)

    wall, cpu = time.perf_counter(), time.process_time()
    tree, refusal = _tree(bn, observed)
    slowdown = _slowdown(time.perf_counter() - wall, time.process_time() - cpu)
    entries, largest = _entries(tree) if tree is not None else (math.inf, math.inf)
    card = net.cardinality
    counts = 1 + sum(int(card[i]) - 1 for i in (asked or ()))
    facts = PlanFacts(int(net.free.size), counts, entries, largest, tree is not None, _deterministic_share(net),
                      slowdown)
    all_posteriors = posteriors and variables is None
    have = {"circuit": available("pysdd"), "counter": available("pyganak")}
    # the method that exploits determinism for this question: one count per state, or one compilation
    preferred = ("circuit", "counter") if all_posteriors else ("counter", "circuit")

    if tree is not None:
        predicted = entries * SECONDS_PER_TABLE_ENTRY
        plan = ExactPlan("junction_tree", "small tables", f"the junction tree is small: {entries:.4g} table entries",
                         (), facts)
        rival = preferred[0] if have[preferred[0]] else None
        if rival is None or entries <= QUICK_TABLE_ENTRIES or facts.deterministic_share == 0.0 or facts.free == 0:
            if entries > QUICK_TABLE_ENTRIES:
                rule, why = (("no determinism", "no deterministic entries to exploit")
                             if facts.deterministic_share == 0.0
                             else ("rival not installed", f"the {preferred[0]} is not installed"))
                plan = plan._replace(rule=rule, reason=f"{why}: the junction tree ({entries:.4g} table entries)")
            return _junction_tree_answer(bn, evidence, plan)
        budget = 0.5 * predicted * slowdown + TRY_SECONDS
        reason = (f"the {rival} won a race against the junction tree ({entries:.4g} table entries, predicted "
                  f"{predicted:.3g} s on a core of its own; {facts.deterministic_share:.0%} of the CPT entries 0 "
                  f"or 1)")
        won = ExactPlan(rival, f"race: {rival}", reason, (), facts, budget)
        from .circuit import CircuitTooLargeError, CountTooHardError

        start = time.perf_counter()
        try:
            if rival == "circuit":
                return _circuit_answer(bn, evidence, won, net, budget)
            return _count_answer(bn, net, asked, won, budget, n_jobs, progress)
        except (CircuitTooLargeError, CountTooHardError):
            spent = time.perf_counter() - start
            plan = ExactPlan("junction_tree", "race: junction tree",
                             f"it won a race against the {rival} ({entries:.4g} table entries)",
                             (f"{rival}: not done within its budget of {budget:.3g} s ({spent:.3g} s)",), facts,
                             budget)
            return _junction_tree_answer(bn, evidence, plan)

    from .circuit import AUTO_COMPILE_SECONDS, CircuitTooLargeError
    from .circuit.counting import MAX_COUNT_SECONDS

    tried = (f"junction_tree: {refusal}",)
    if not any(have.values()):
        raise MissingExtraError(f"{refusal}. Past the junction tree, exact inference compiles a circuit or counts "
                                f"models: pip install 'prunelab[circuit,counter]'") from refusal
    if not all_posteriors and have["counter"]:
        answers = "one weighted count answers" if counts == 1 else f"{counts} weighted counts answer"
        plan = ExactPlan("counter", "tables do not fit: counter",
                         f"the junction tree's tables do not fit, and {answers} the question", tried, facts)
        if not have["circuit"] or "fork" not in mp.get_all_start_methods():
            return _count_answer(bn, net, asked, plan, MAX_COUNT_SECONDS, n_jobs, progress, before=tried)
        return _counts_beside_circuit(bn, net, asked, plan, n_jobs, progress, time.process_time() - cpu_start)
    if have["circuit"]:
        why = "a circuit answers every posterior at once" if all_posteriors else "the counter is not installed"
        plan = ExactPlan("circuit", "tables do not fit: circuit", f"the junction tree's tables do not fit, and {why}",
                         tried, facts)
        if not have["counter"]:
            return _circuit_answer(bn, evidence, plan, net)
        try:
            return _circuit_answer(bn, evidence, plan, net, AUTO_COMPILE_SECONDS)
        except CircuitTooLargeError as exc:
            tried = (*tried, f"circuit: {exc}")
    plan = ExactPlan("counter", "past the circuit: counter",
                     f"neither the junction tree nor a circuit answers: {counts} weighted counts answer every "
                     f"posterior", tried, facts)
    return _count_answer(bn, net, asked, plan, MAX_COUNT_SECONDS, n_jobs, progress, before=tried)


def _beside_budget(facts: PlanFacts, n_jobs: int, spent: float) -> float:
    """Wall seconds for the circuit beside the counts (0 where there is no time for one).

    With ``s = spent``, ``r =`` :data:`BESIDE_START_SECONDS` and ``d =``
    :data:`BESIDE_AFTER_SECONDS`, a circuit started after the counts have gone ``d``
    seconds and stopped at ``b`` seconds of CPU, or when counts of ``t`` seconds
    finish, costs at most ``s + r + min(max(t - d, 0), b)`` beyond them; that is
    within the target's ``t / 2 +`` :data:`TRY_SECONDS` for every ``t`` exactly when
    ``b <= 2 (TRY_SECONDS - s - r) + d``. That CPU budget is stretched by the slowdown
    and by the processes per usable core (the counts' and the circuit's).
    """
    cores = usable_cores()
    counting = min(facts.counts, n_jobs if n_jobs > 0 else max(1, cores + 1 + n_jobs))
    cpu = max(0.0, 2.0 * (TRY_SECONDS - spent - BESIDE_START_SECONDS) + BESIDE_AFTER_SECONDS)
    return cpu * facts.slowdown * max(1.0, (counting + 1) / cores)


def _counts_beside_circuit(bn, net, asked, plan: ExactPlan, n_jobs: int, progress: bool, spent: float) -> _Answer:
    """Rule 3's counts, with a circuit compiled beside them in a forked child: the first to answer answers.

    ``spent`` is the planner's CPU seconds before (its order search): they shorten the circuit's budget.
    """
    from .circuit.counting import MAX_COUNT_SECONDS, Rival, RivalAnswered

    budget = _beside_budget(plan.facts, n_jobs, spent)
    if budget == 0.0:
        none = f"circuit: no time for one beside the counts (the planner spent {spent:.3g} s before)"
        return _count_answer(bn, net, asked, plan._replace(tried=(*plan.tried, none), race_budget=0.0),
                             MAX_COUNT_SECONDS, n_jobs, progress, before=plan.tried)
    ctx, started = mp.get_context("fork"), []

    def start_circuit():
        reader, writer = ctx.Pipe(duplex=False)
        # not a daemon: the compiler starts a process of its own; it dies with this one (enter_child)
        child = ctx.Process(target=_circuit_beside, args=(bn, net, budget, writer, os.getpid()))
        child.start()
        writer.close()
        started.append((child, reader))
        return reader

    rival, start = Rival(start_circuit, BESIDE_AFTER_SECONDS), time.perf_counter()
    try:
        answer = _count_answer(bn, net, asked, plan, MAX_COUNT_SECONDS, n_jobs, progress, before=plan.tried,
                               rival=rival)
    except RivalAnswered as first:
        _, log_p, marginals = first.answer
        won = ExactPlan("circuit", "beside the counts: circuit",
                        "the junction tree's tables do not fit, and a circuit compiled beside the counts answered "
                        "first", (*plan.tried, f"counter: stopped when the circuit answered "
                                               f"({time.perf_counter() - start:.3g} s)"), plan.facts, budget)
        return _Answer(won, log_p, marginals, None)
    finally:
        for child, reader in started:
            _stop(child)
            reader.close()
    said, seconds = rival.said, time.perf_counter() - start
    beside = (f"circuit: not started, the counts were done within {BESIDE_AFTER_SECONDS:g} s" if not started else
              f"circuit: {said[1]}" if said is not None and said[0] != "gone" else
              f"circuit: stopped when the counts were done ({seconds:.3g} s)" if said is None else
              f"circuit: its process ended without an answer (exit code {started[0][0].exitcode})")
    return answer._replace(plan=answer.plan._replace(tried=(*answer.plan.tried, beside), race_budget=budget))


_STOP_SECONDS = 2.0  # how long the circuit's process gets to stop its compiler and end before it is killed


def _stop(child) -> None:
    """End the circuit's process: ``SIGTERM`` first, then a kill if it has not ended.

    On ``SIGTERM`` it stops its compiler and waits for it, so that the compiler's CPU
    time counts in this process's children's, as the counting processes' does.
    """
    if child.is_alive():
        child.terminate()
        child.join(_STOP_SECONDS)
        if child.is_alive():
            child.kill()
    child.join()


def _circuit_beside(bn, net, budget: float, writer, parent: int) -> None:
    """The child of :func:`_counts_beside_circuit`: compile within ``budget`` seconds, send the answer or why not."""
    from .circuit import CircuitTooLargeError, ImpossibleEvidenceError, inference
    from .circuit.compiler import MAX_CIRCUIT_SIZE, child_extra_bytes
    from .circuit.processes import enter_child

    def stopped(signum, frame):
        raise Terminated("SIGTERM")

    signal.signal(signal.SIGTERM, stopped)  # the compiler's supervisor stops and waits for its child on the way out
    enter_child(parent, cpu_seconds=budget, extra_bytes=child_extra_bytes(MAX_CIRCUIT_SIZE))
    try:
        circuit = inference.compile_circuit(net, bn.variables, max_seconds=budget, race=False,
                                            what=f"network {bn.name!r}")
        writer.send(("answer", *inference.circuit_inference(bn, net, circuit)))
    except ImpossibleEvidenceError:
        writer.send(("answer", -math.inf, {}))
    except CircuitTooLargeError as exc:
        writer.send(("refused", str(exc)))
    except Exception as exc:  # noqa: BLE001 - the counts go on; the plan records why the circuit did not answer
        writer.send(("failed", f"failed: {type(exc).__name__}: {exc}"))
    except Terminated:  # the counts were done first
        pass
    finally:
        writer.close()


def _asked(net, variables, posteriors: bool) -> list[int] | None:
    if not posteriors:
        return None
    return list(variables) if variables is not None else net.free.tolist()


def _circuit_answer(bn, evidence, plan: ExactPlan, net, cap: float | None = None) -> _Answer:
    from .circuit import ImpossibleEvidenceError, inference

    net = compile_network(bn, evidence) if net is None else net
    cap = inference.MAX_COMPILE_SECONDS if cap is None else cap
    try:
        circuit = inference.circuit_for(net, max_seconds=cap, race=True)  # answers do not depend on the vtree
    except ImpossibleEvidenceError:
        return _Answer(plan, -math.inf, {}, None)
    log_p, marginals = inference.circuit_inference(bn, net, circuit)
    return _Answer(plan, log_p, marginals, None)


def _count_answer(bn, net, asked, plan: ExactPlan, cap: float | None, n_jobs: int, progress: bool,
                  before: tuple[str, ...] = (), rival=None) -> _Answer:
    from .circuit import CountTooHardError, ImpossibleEvidenceError, counting

    cap = counting.MAX_COUNT_SECONDS if cap is None else cap
    try:
        log_p, marginals = counting.count_inference(bn.variables, net, asked, max_seconds=cap, n_jobs=n_jobs,
                                                    progress=progress, what=f"network {bn.name!r}", rival=rival)
    except ImpossibleEvidenceError:
        return _Answer(plan, -math.inf, {}, None)
    except CountTooHardError as exc:
        if not before:
            raise
        raise CountTooHardError("; ".join((*before, f"counter: {exc}"))) from None
    return _Answer(plan, log_p, marginals, None)


def draw_method(bn: BayesianNetwork, evidence: Mapping) -> ExactPlan:
    """How an exact posterior state is drawn: from the junction tree's tables where they fit, else a circuit.

    The counter draws no states (one would need a count per variable and state), so a
    network past both is refused by the circuit's cap; a sampler's start then takes one
    model of the support CNF from a SAT solver instead (feasible, not a posterior draw:
    :func:`prunelab.samplers.circuit_start.solver_start_state`).

    Examples
    --------
    >>> from prunelab import load_network
    >>> draw_method(load_network("asia"), {}).method
    'junction_tree'
    """
    tree, refusal = _tree(bn, frozenset(bn.evidence_indices(evidence)))
    if tree is not None:
        return ExactPlan("junction_tree", "draw: tables", f"the junction tree's tables fit ({_entries(tree)[0]:.4g} "
                                                          f"entries)")
    return ExactPlan("circuit", "draw: circuit", "the junction tree's tables do not fit",
                     (f"junction_tree: {refusal}",))
