"""The compiled circuit: exact inference against the junction tree, and prune sampling's circuit draw.

Exact answers are compared on networks the junction tree handles (to 1e-9); the
uniform draw is checked three ways: ``|S|`` equal to the counting plan's on random
prunings, the draw's exact distribution (every branch of its random choices
followed) uniform on ``S`` to 1e-12, and a chi-square test of numba draws.
"""

import math

import numpy as np
import pytest
from scipy import stats

from prunelab import load_network, make_grid
from prunelab.circuit import (
    CircuitTooLargeError,
    circuit_for,
    circuit_inference,
    compile_circuit,
    log_count,
    passes_for,
)
from prunelab.circuit.passes import draw_nb, upward_py, vtree_log_sums_py
from prunelab.compiled import compile_network
from prunelab.exact import exact_marginals, log_probability_of_evidence, probability_of_evidence
from prunelab.network import EvidenceError
from prunelab.samplers.prune import sampler as prune, plan as prune_plans
from prunelab.samplers.prune.draws import circuit as prune_circuit
from prunelab.samplers.prune.draws.api import count_pruned_states, enumerate_pruned_states
from prunelab.samplers.prune.pruning import prune_around
from tests.helpers import CIRCUIT_CASES, LOG_EXACT, circuit_case_network, effective_sample_size, marginal_interval
from tests.helpers import multi_valued_network


@pytest.mark.parametrize(("name", "evidence"), CIRCUIT_CASES)
def test_circuit_marginals_equal_the_junction_tree(name, evidence):
    bn = circuit_case_network(name)
    net = compile_network(bn, evidence)
    log_p, marginals = circuit_inference(bn, net, compile_circuit(net))
    expected = exact_marginals(bn, evidence, method="junction_tree")
    assert expected.method == "junction_tree"
    assert list(marginals) == list(expected)
    for v, p in expected.items():
        np.testing.assert_allclose(marginals[v], p, rtol=0, atol=LOG_EXACT, err_msg=v)
    assert log_p == pytest.approx(log_probability_of_evidence(bn, evidence, method="junction_tree") if evidence
                                  else 0.0, abs=LOG_EXACT)


def test_exact_entry_points_take_the_circuit_and_say_so():
    bn = multi_valued_network()
    got = exact_marginals(bn, {"C": "c1"}, method="circuit")
    assert got.method == "circuit"
    want = exact_marginals(bn, {"C": "c1"})
    assert want.method == "junction_tree"
    for v in want:
        np.testing.assert_allclose(got[v], want[v], atol=LOG_EXACT)
    assert probability_of_evidence(bn, {"C": "c1"}, method="circuit") == pytest.approx(
        probability_of_evidence(bn, {"C": "c1"}), rel=1e-12)
    with pytest.raises(ValueError, match="unknown exact inference method 'tables'"):
        exact_marginals(bn, method="tables")


def test_impossible_evidence_is_refused_by_the_circuit_too():
    bn = multi_valued_network()
    evidence = {"A": "a1", "B": "b1"}  # P(B = b1 | A = a1) = 0
    assert log_probability_of_evidence(bn, evidence, method="circuit") == -math.inf
    assert probability_of_evidence(bn, evidence, method="circuit") == 0.0
    with pytest.raises(EvidenceError, match="impossible"):
        exact_marginals(bn, evidence, method="circuit")


def test_auto_falls_back_to_the_circuit_when_the_junction_tree_refuses(monkeypatch):
    import prunelab.elimination as elimination

    want = exact_marginals(make_grid(7, 0.9, seed=2), {"v_7_7": "T"})
    monkeypatch.setattr(elimination, "MAX_CLIQUE_ENTRIES", 4)
    bn = make_grid(7, 0.9, seed=2)  # a new object: junction trees are cached per network object
    with pytest.raises(ValueError, match="MAX_CLIQUE_ENTRIES"):
        exact_marginals(bn, {"v_7_7": "T"}, method="junction_tree")
    got = exact_marginals(bn, {"v_7_7": "T"})
    assert got.method == "circuit"
    for v in want:
        np.testing.assert_allclose(got[v], want[v], atol=LOG_EXACT)


def test_the_size_cap_refuses_naming_the_size_reached():
    net = compile_network(make_grid(8, 0.5, seed=1))
    with pytest.raises(CircuitTooLargeError, match=r"stopped at [\d,]+ elements alive after .* \(caps: 50 elements"):
        compile_circuit(net, max_size=50, what="grid-8x8")


@pytest.mark.parametrize(("name", "evidence"), [("asia", {"dysp": "yes"}), ("grid-6", None), ("multi", None)])
def test_pruned_set_sizes_equal_the_counting_plan(name, evidence, rng):
    bn = circuit_case_network(name)
    net = compile_network(bn, evidence)
    plan = prune_circuit.plan(net)
    assert np.array_equal(plan.pruning.random_label, prune_plans.prune_plan(net).pruning.random_label)
    x0 = prunelab_start(bn, net, evidence, rng)
    states = prune.run_chain(rng, net, x0, 50, uniform="count").draws
    work = passes_for(plan.circuit)
    for x in states:
        kept = prune_around(rng, net, x, plan)
        work.log_true[plan.theta_boolean] = np.where(kept[plan.theta_label], 0.0, -math.inf)
        assert math.exp(log_count(plan.circuit, work)) == pytest.approx(count_pruned_states(net, kept), rel=1e-12)


def prunelab_start(bn, net, evidence, rng):
    from prunelab.samplers.init import initial_state

    return initial_state(rng, bn, "forward", evidence=evidence)


def _draw_distribution(circuit, work):
    """Every outcome of the top-down draw with its exact probability (all branches followed)."""
    vt = circuit.vtree
    kind, lit, nv = circuit.kind, circuit.literal, circuit.node_vtree

    def gap(half, child):
        lo, hi = vt.leaf_lo[half], vt.leaf_hi[half]
        skip = (vt.leaf_lo[nv[child]], vt.leaf_hi[nv[child]]) if child >= 0 and nv[child] >= 0 else (0, 0)
        out = [(1.0, {})]
        for k in range(lo, hi):
            if skip[0] <= k < skip[1]:
                continue
            b = int(vt.leaf_boolean[k])
            both = np.logaddexp(work.log_true[b], work.log_false[b])
            pt = math.exp(work.log_true[b] - both)
            out = [(p * q, {**a, b: val}) for p, a in out for q, val in ((pt, 1), (1 - pt, 0)) if q > 0]
        return out

    def node(n):
        if kind[n] == 2:
            return [(1.0, {abs(int(lit[n])): int(lit[n] > 0)})]
        if kind[n] != 3:
            return [(1.0, {})]
        v = nv[n]
        out = []
        for e in range(circuit.elem_ptr[n], circuit.elem_ptr[n + 1]):
            p, s = circuit.prime[e], circuit.sub[e]
            t = work.val[p] + work.val[s]
            if t == -math.inf:
                continue
            t += work.sums[vt.left[v]] - (work.sums[nv[p]] if nv[p] >= 0 else 0.0)
            t += work.sums[vt.right[v]] - (work.sums[nv[s]] if nv[s] >= 0 else 0.0)
            q = math.exp(t - work.val[n])
            left = [(a * b, {**x, **y}) for a, x in node(p) for b, y in gap(vt.left[v], p)]
            right = [(a * b, {**x, **y}) for a, x in node(s) for b, y in gap(vt.right[v], s)]
            out.extend((q * a * b, {**x, **y}) for a, x in left for b, y in right)
        return out

    root = circuit.n_nodes - 1
    return [(a * b, {**x, **y}) for a, x in node(root) for b, y in gap(vt.root, root)]


@pytest.mark.parametrize("vtree", ["dissection", "turned"])
@pytest.mark.parametrize(("name", "evidence"), [("deterministic_pair", None), ("asia", {"xray": "yes"}),
                                                 ("multi", None)])
def test_the_draw_is_exactly_uniform_on_every_pruned_set(name, evidence, vtree, rng):
    """For every pruning of the random labels, the draw's distribution is 1/|S| on S (so the transition
    matrix equals the theory's exact prune matrix, a convex combination of these rows, to 1e-12), over the
    dissection vtree and over the turned one (which differs from it on asia and multi)."""
    bn = circuit_case_network(name)
    net = compile_network(bn, evidence)
    plan = prune_circuit.plan(net, vtree)
    assert plan.circuit.vtree_name == vtree
    c = plan.circuit
    vt = c.vtree
    work = passes_for(c)
    enc = c.encoding
    patterns = min(2 ** plan.pruning.random_label.size, 64)
    for code in rng.choice(2 ** plan.pruning.random_label.size, size=patterns, replace=False):
        kept = plan.pruning.base_kept.copy()
        kept[plan.pruning.random_label] = [(int(code) >> j) & 1 == 1 for j in range(plan.pruning.random_label.size)]
        members = {tuple(s) for s in enumerate_pruned_states(net, kept)}
        work.log_true[plan.theta_boolean] = np.where(kept[plan.theta_label], 0.0, -math.inf)
        vtree_log_sums_py(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
        upward_py(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, work.sums,
                  work.log_true, work.log_false, work.val)
        drawn: dict[tuple, float] = {}
        for p, assignment in _draw_distribution(c, work):
            y = net.evidence_value.copy()
            for i in net.free:
                bits = enc.state_boolean[enc.state_ptr[i]:enc.state_ptr[i + 1]]
                y[i] = assignment[bits[0]] if len(bits) == 1 else [assignment[b] for b in bits].index(1)
            drawn[tuple(y)] = drawn.get(tuple(y), 0.0) + p
        assert set(drawn) == members
        if not members:
            continue
        np.testing.assert_allclose(list(drawn.values()), 1 / len(members), rtol=0, atol=1e-12)


def _decoded(net, enc, assignment) -> tuple:
    y = net.evidence_value.copy()
    for i in net.free:
        bits = enc.state_boolean[enc.state_ptr[i]:enc.state_ptr[i + 1]]
        y[i] = assignment[bits[0]] if len(bits) == 1 else [assignment[b] for b in bits].index(1)
    return tuple(y.tolist())


@pytest.mark.parametrize("vtree", ["dissection", "turned"])
@pytest.mark.parametrize(("name", "evidence"), [("grid-4", None), ("grid-3x3", {"v_2_2": "F", "v_3_1": "F",
                                                                                "v_3_2": "T"})])
def test_the_circuit_chain_has_the_exact_prune_transition_matrix(name, evidence, vtree):
    """The transition matrix of prune sampling with circuit draws, assembled exactly - every pruning of the
    random labels with its probability, times the draw's distribution on its pruned set with all branches
    followed - equals the theory's exact prune matrix to 1e-12, over either vtree.

    Pruning around ``x`` is the pruning of every random label conditioned on ``x``'s labels surviving, of
    probability ``P(x, e)``; so ``P(x, e) R(x -> y) = sum_S P(S) 1{x in S} D_S(y)`` (see
    :func:`prunelab.theory.prune_transition_matrix`), one draw distribution ``D_S`` per pruning."""
    import itertools

    from prunelab.compiled import state_labels
    from prunelab.theory import prune_transition_matrix

    bn = make_grid(4, 0.9, seed=1) if name == "grid-4" else load_network(name)
    net = compile_network(bn, evidence)
    states, expected = prune_transition_matrix(net)
    plan = prune_circuit.plan(net, vtree)
    c, vt, enc = plan.circuit, plan.circuit.vtree, plan.circuit.encoding
    assert c.vtree_name == vtree
    index = {tuple(x): a for a, x in enumerate(states.tolist())}
    label_sets = [set(state_labels(net, x).tolist()) for x in states]
    work = passes_for(c)
    joint = np.zeros_like(expected)
    for pattern in itertools.product((False, True), repeat=plan.pruning.random_label.size):
        kept = plan.pruning.base_kept.copy()
        kept[plan.pruning.random_label] = pattern
        p_pruning = float(np.prod(np.where(pattern, plan.pruning.random_c, 1 - plan.pruning.random_c)))
        members = [a for a, labels in enumerate(label_sets) if all(kept[sorted(labels)])]
        if not members:
            continue
        work.log_true[plan.theta_boolean] = np.where(kept[plan.theta_label], 0.0, -math.inf)
        vtree_log_sums_py(vt.left, vt.right, vt.boolean, vt.post_order, work.log_true, work.log_false, work.sums)
        upward_py(c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, work.sums,
                  work.log_true, work.log_false, work.val)
        for q, assignment in _draw_distribution(c, work):
            joint[members, index[_decoded(net, enc, assignment)]] += p_pruning * q
    p_state = np.array([np.prod(net.cpt[state_labels(net, x)]) for x in states])
    np.testing.assert_allclose(joint / p_state[:, None], expected, rtol=0, atol=1e-12)


def test_numba_draws_are_uniform_chi_square(rng):
    """200 x |S| draws from one fixed pruned set of grid-6 (|S| > 20): chi-square at level 1e-6."""
    bn = circuit_case_network("grid-6")
    net = compile_network(bn)
    plan = prune_circuit.plan(net)
    x0 = prunelab_start(bn, net, None, rng)
    for x in prune.run_chain(rng, net, x0, 200, uniform="count").draws:
        kept = prune_around(rng, net, x, plan)
        members = enumerate_pruned_states(net, kept)
        if len(members) > 20:
            break
    else:
        pytest.fail("no pruned set with more than 20 members in 200 steps")
    c, vt = plan.circuit, plan.circuit.vtree
    work = passes_for(c)
    work.log_true[plan.theta_boolean] = np.where(kept[plan.theta_label], 0.0, -math.inf)
    log_count(c, work)
    index = {tuple(s): k for k, s in enumerate(members)}
    counts = np.zeros(len(members))
    y = net.evidence_value.copy()
    enc = c.encoding
    for _ in range(200 * len(members)):
        draw_nb(rng, c.kind, c.literal, c.node_vtree, c.elem_ptr, c.prime, c.sub, vt.left, vt.right, vt.root,
                vt.leaf_lo, vt.leaf_hi, vt.leaf_boolean, work.sums, work.log_true, work.log_false, work.val,
                work.stack, work.value)
        for i in net.free:
            y[i] = work.value[enc.state_boolean[enc.state_ptr[i]]]
        counts[index[tuple(y)]] += 1
    assert stats.chisquare(counts).pvalue > 1e-6


@pytest.mark.parametrize(("name", "evidence"), [("asia", {"dysp": "yes"}), ("multi", {"C": "c0"})])
def test_reference_and_numba_chains_draw_identically(name, evidence, rng):
    bn = circuit_case_network(name)
    net = compile_network(bn, evidence)
    x0 = prunelab_start(bn, net, evidence, rng)
    seed = int(rng.integers(2**31))
    out = prune.run_chain(np.random.default_rng(seed), net, x0, 60, uniform="circuit")
    state = prune.init(net, x0)
    ref = np.random.default_rng(seed)
    for t in range(60):
        state, info = prune.step(ref, net, state, uniform="circuit")
        assert np.array_equal(state.x, out.draws[t])
        assert info.size == pytest.approx(out.size[t], rel=1e-12)
        assert info.uniform_name == "circuit"


def test_the_circuit_draw_alone_gives_the_next_state():
    bn = circuit_case_network("deterministic_pair")
    net = compile_network(bn)
    plan = prune_circuit.plan(net)
    kept = plan.pruning.base_kept.copy()
    kept[plan.pruning.random_label] = False  # only x's own labels survive: S = {x}
    x = np.array([1, 1])
    kept[[1, 5]] = True
    y, size = prune_circuit.draw(np.random.default_rng(0), net, x, kept, plan)
    assert y.tolist() == [1, 1] and size == pytest.approx(1.0)


def test_prune_with_circuit_draws_agrees_with_exact_marginals():
    """4 chains x 3,000 steps on a 6 x 6 grid with evidence: every state's frequency in the exact marginal's
    ``marginal_interval`` (Z_TOLERANCE standard errors from the chains' ESS; visit counts for rare states)."""
    from prunelab.samplers.init import initial_state

    bn = circuit_case_network("grid-6")
    evidence = {"v_6_6": "T"}
    net = compile_network(bn, evidence)
    exact = exact_marginals(bn, evidence)
    draws = []
    for c in range(4):
        rng = np.random.default_rng([c, 23])
        draws.append(prune.run_chain(rng, net, initial_state(rng, net, "forward"), 3000, uniform="circuit").draws)
    draws = np.array(draws)
    failures = []
    for i, variable in enumerate(bn.variables):
        if variable in evidence:
            continue
        ess = effective_sample_size(draws[:, :, i], 2)
        p = exact[variable][1]
        low, high = marginal_interval(p, ess, draws.shape[0] * draws.shape[1])  # rare states: by visit counts
        if not low <= (draws[:, :, i] == 1).mean() <= high:
            failures.append((variable, p, (draws[:, :, i] == 1).mean(), ess))
    assert not failures


def test_circuits_are_shared_by_content():
    net = compile_network(load_network("asia"), {"dysp": "yes"})
    assert circuit_for(net) is circuit_for(compile_network(load_network("asia"), {"dysp": "yes"}))


@pytest.mark.parametrize(("name", "evidence"), [("asia", {"dysp": "yes"}), ("grid-6", None), ("multi", {"C": "c2"})])
def test_per_step_compilation_counts_and_draws_members_of_the_pruned_set(name, evidence, rng):
    from prunelab.samplers.prune.draws import circuit_per_step as prune_circuit_per_step

    bn = circuit_case_network(name)
    net = compile_network(bn, evidence)
    plan = prune_circuit_per_step.plan(net)
    x = prunelab_start(bn, net, evidence, rng)
    for _ in range(25):
        kept = prune_around(rng, net, x, plan)
        members = {tuple(s) for s in enumerate_pruned_states(net, kept)}
        y, size = prune_circuit_per_step.draw(rng, net, x, kept, plan)
        assert size == pytest.approx(len(members), rel=1e-12)
        assert tuple(y) in members
        x = y


def test_per_step_chains_agree_with_exact_marginals():
    """4 chains x 250 steps on a 6 x 6 grid with evidence, each compiling its pruned set (tolerance as above)."""
    from prunelab.samplers.init import initial_state

    bn = circuit_case_network("grid-6")
    evidence = {"v_6_6": "T"}
    net = compile_network(bn, evidence)
    exact = exact_marginals(bn, evidence)
    draws = []
    for c in range(4):
        rng = np.random.default_rng([c, 29])
        x0 = initial_state(rng, net, "forward")
        draws.append(prune.run_chain(rng, net, x0, 250, uniform="circuit-per-step").draws)
    draws = np.array(draws)
    for i, variable in enumerate(bn.variables):
        if variable in evidence:
            continue
        ess = effective_sample_size(draws[:, :, i], 2)
        p = exact[variable][1]
        low, high = marginal_interval(p, ess, draws.shape[0] * draws.shape[1])  # rare states: by visit counts
        assert low <= (draws[:, :, i] == 1).mean() <= high, variable


def test_dynamic_minimisation_reads_back_the_vtree_it_changed():
    """With minimize=True the SDD library rotates and swaps the vtree; the diagram is read with the new one."""
    from prunelab.circuit import dissection_vtree, encode_network

    bn = make_grid(8, 0.75, seed=3)
    net = compile_network(bn)
    circuit = compile_circuit(net, minimize=True)
    original = dissection_vtree(net, encode_network(net))
    assert not np.array_equal(circuit.vtree.left, original.left)
    _, marginals = circuit_inference(bn, net, circuit)
    for v, p in exact_marginals(bn).items():
        np.testing.assert_allclose(marginals[v], p, atol=LOG_EXACT)
