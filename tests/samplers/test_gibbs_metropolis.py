"""Gibbs and Metropolis kernels: reference vs numba, exact sweep kernels, exact marginals, traps.

Tolerances
----------
``Z_MULTI`` bounds the standardised error of a pooled MCMC estimate. Its standard
error comes from *independent chains* (batch means with one batch per chain): the
chains use independent seeds, so their means ``m_c`` are i.i.d. and
``(mean(m) - p) / (sd(m) / sqrt(C))`` is approximately Student-t with ``C - 1``
degrees of freedom, whatever the autocorrelation inside a chain (alarm's
PVSAT/SAO2 block mixes over ~10^4 sweeps, which per-chain ESS estimates at this
length miss). With ``C = 16`` chains, ``P(|t_15| > 6.5) < 1e-5``, so with ~150
estimates per case a false alarm has probability < 2e-3 - and the seeds are fixed,
so the outcome is deterministic. The standard error is floored at the i.i.d. value
``sqrt(p (1 - p) / N)``, which only loosens the test.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from prunelab import BayesianNetwork, load_evidence, load_network, random_evidence
from prunelab.compiled import compile_network, state_labels
from prunelab.exact import exact_marginals
from prunelab.samplers import gibbs, metropolis
from prunelab.samplers.init import initial_state
from prunelab.samplers.chain import InfeasibleStateError
from prunelab.traps import SamplerTrappedWarning
from prunelab.sampling import sample
from tests.helpers import Z_MULTI, pooled_errors

SAMPLERS = {"gibbs": gibbs, "metropolis": metropolis}


CHI2_P_MIN = 1e-4
"""Smallest acceptable chi-square p-value at the fixed seed for exact-kernel tests."""


# ------------------------------------------------------------------ helpers
def all_states(bn: BayesianNetwork) -> np.ndarray:
    return np.array(list(itertools.product(*[range(c) for c in bn.cardinalities])), dtype=np.int64)


def joint(bn: BayesianNetwork, evidence=None) -> tuple[np.ndarray, np.ndarray]:
    """Every full state and its unnormalised P(x, e), by brute force."""
    states = all_states(bn)
    probs = np.exp([bn.log_probability(x) for x in states])
    for i, s in bn.evidence_indices(evidence).items():
        probs[states[:, i] != s] = 0.0
    return states, probs


def brute_force_marginals(bn: BayesianNetwork, evidence=None) -> dict[str, np.ndarray]:
    states, probs = joint(bn, evidence)
    observed = bn.evidence_indices(evidence)
    return {
        v: np.bincount(states[:, i], weights=probs, minlength=bn.cardinalities[i]) / probs.sum()
        for i, v in enumerate(bn.variables)
        if i not in observed
    }


def draws_probability_positive(net, draws: np.ndarray) -> np.ndarray:
    """Per draw: does P(x, e) > 0 hold (all CPT entries positive, evidence respected)?"""
    draws = np.asarray(draws, dtype=np.int64).reshape(-1, net.n_variables)
    labels = state_labels(net, draws)
    observed = net.evidence_value >= 0
    agrees = np.all(draws[:, observed] == net.evidence_value[observed], axis=1)
    return np.all(net.cpt[labels] > 0.0, axis=1) & agrees


def random_positive_network(seed: int) -> BayesianNetwork:
    """Six variables, mixed cardinalities, strictly positive CPTs (so both chains are ergodic)."""
    rng = np.random.default_rng(seed)
    card = {"A": 2, "B": 3, "C": 2, "D": 4, "E": 2, "F": 3}
    parents = {"A": [], "B": ["A"], "C": ["A"], "D": ["B", "C"], "E": ["D"], "F": ["C", "E"]}
    cpts = {}
    for v, ps in parents.items():
        shape = tuple(card[p] for p in ps) + (card[v],)
        cpts[v] = rng.dirichlet(np.full(card[v], 2.0), size=shape[:-1]).reshape(shape) + 0.02
    states = {v: [str(s) for s in range(c)] for v, c in card.items()}
    return BayesianNetwork(states=states, parents=parents, cpts=cpts, name="random6", normalize=True)


def tiny_network() -> BayesianNetwork:
    """A(2), B(3) -> C(2) -> D(2), with a zero in C's CPT; D is observed in the kernel test."""
    return BayesianNetwork(
        states={"A": ["0", "1"], "B": ["0", "1", "2"], "C": ["0", "1"], "D": ["0", "1"]},
        parents={"A": [], "B": [], "C": ["A", "B"], "D": ["C"]},
        cpts={
            "A": [0.4, 0.6],
            "B": [0.3, 0.3, 0.4],
            "C": [[[0.7, 0.3], [0.2, 0.8], [1.0, 0.0]], [[0.5, 0.5], [0.9, 0.1], [0.35, 0.65]]],
            "D": [[0.8, 0.2], [0.25, 0.75]],
        },
        name="tiny",
    )


def exact_sweep_kernel(bn: BayesianNetwork, evidence, sampler: str) -> tuple[np.ndarray, dict]:
    """Transition matrix of one systematic sweep over the feasible states, by enumeration.

    The sweep is the product K_1 K_2 ... K_m of single-site kernels over the free
    variables in topological order. Gibbs: K_i(x -> y) = pi(y) / sum_s pi(x_i = s)
    for y differing from x at most at i. Metropolis: a move to each of the
    |X_i| - 1 other states w.p. min(1, pi(y)/pi(x)) / (|X_i| - 1), the rest stays.
    """
    states, probs = joint(bn, evidence)
    keep = probs > 0
    states, probs = states[keep], probs[keep]
    index = {tuple(x): k for k, x in enumerate(states)}
    m = len(states)
    sweep = np.eye(m)
    observed = bn.evidence_indices(evidence)
    for i in range(bn.n_variables):
        if i in observed:
            continue
        site = np.zeros((m, m))
        for a, x in enumerate(states):
            neighbours = []
            for s in range(bn.cardinalities[i]):
                y = x.copy()
                y[i] = s
                neighbours.append(index.get(tuple(y)))  # None: probability zero
            weights = np.array([probs[b] if b is not None else 0.0 for b in neighbours])
            if sampler == "gibbs":
                for b, w in zip(neighbours, weights):
                    if b is not None:
                        site[a, b] += w / weights.sum()
            else:
                others = bn.cardinalities[i] - 1
                for s, (b, w) in enumerate(zip(neighbours, weights)):
                    if s != x[i] and b is not None:
                        site[a, b] += min(1.0, w / probs[a]) / others
                site[a, a] += 1.0 - site[a].sum()
        sweep = sweep @ site
    return sweep, index


# ------------------------------------------------------------------ numba == numpy
REFERENCE_CASES = [
    ("asia", lambda bn: load_evidence("asia")),
    ("alarm", lambda bn: load_evidence("alarm")),
    ("grid-8x8", lambda bn: random_evidence(bn, 0.25, seed=7)),
    ("blood_pressure", lambda bn: {"Measurement": "m_e"}),
    ("block_chain", lambda bn: {"X5": "2"}),
]


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("name,make_evidence", REFERENCE_CASES, ids=[c[0] for c in REFERENCE_CASES])
def test_numba_path_equals_numpy_reference(sampler, name, make_evidence, rng):
    module = SAMPLERS[sampler]
    bn = load_network(name)
    evidence = make_evidence(bn)
    net = compile_network(bn, evidence)
    x0 = initial_state(rng, bn, "random_forward", evidence=evidence)
    n_draws = 150
    fast_rng, slow_rng = np.random.default_rng(11), np.random.default_rng(11)  # equal seeds: the paths are compared
    fast = module.run_chain(fast_rng, net, x0, n_draws)
    state = module.init(net, x0)
    slow, infos = [], []
    for _ in range(n_draws):
        state, info = module.step(slow_rng, net, state)
        slow.append(state.x)
        infos.append(info)
    np.testing.assert_array_equal(fast.draws, np.array(slow))
    assert fast_rng.random() == slow_rng.random()  # both consumed the same numbers
    assert len(np.unique(fast.draws, axis=0)) > 1  # the comparison is not vacuous
    if sampler == "metropolis":
        np.testing.assert_array_equal(fast.n_accepted, [i.n_accepted for i in infos])


def test_gibbs_rao_blackwell_sums_equal_reference(rng):
    bn = load_network("alarm")
    evidence = load_evidence("alarm")
    net = compile_network(bn, evidence)
    x0 = initial_state(rng, bn, evidence=evidence)
    checkpoints = np.array([1, 2, 7, 50, 100])
    # equal seeds: the kernel's sums and the numpy steps are compared
    fast = gibbs.run_chain(np.random.default_rng(5), net, x0, 100, rb_checkpoints=checkpoints)
    slow_rng, state, running, sums = np.random.default_rng(5), gibbs.init(net, x0), 0.0, []
    for t in range(1, 101):
        state, info = gibbs.step(slow_rng, net, state)
        running = running + info.conditionals
        if t in checkpoints:
            sums.append(running)
    np.testing.assert_allclose(fast.rb_sums, np.array(sums), rtol=1e-13, atol=0)
    offsets = gibbs.state_offsets(net)
    per_variable = np.add.reduceat(fast.rb_sums, offsets[:-1], axis=1)
    np.testing.assert_allclose(per_variable, np.broadcast_to(checkpoints[:, None], per_variable.shape))


# ------------------------------------------------------------------ forced decisions
class ScriptedRandom:
    """Stands in for a Generator in the numpy reference: returns the given uniforms in turn."""

    def __init__(self, values):
        self.values = list(values)

    def random(self):
        return self.values.pop(0)


def one_variable(probabilities) -> BayesianNetwork:
    k = len(probabilities)
    return BayesianNetwork(states={"A": [str(s) for s in range(k)]}, parents={}, cpts={"A": probabilities})


@pytest.mark.parametrize(
    "probabilities,u,expected",
    [
        ([0.0, 0.2, 0.8], 0.0, 1),  # u = 0 never picks the zero-weight state 0
        ([0.0, 0.2, 0.8], 0.19999, 1),
        ([0.0, 0.2, 0.8], 0.2, 2),  # a boundary goes to the next state (cumulative > u)
        ([0.0, 0.2, 0.8], 1.0 - 2.0**-53, 2),
        ([0.5, 0.5, 0.0], 1.0 - 2.0**-53, 1),  # never the trailing zero
        ([0.5, 0.5, 0.0], 1.0, 1),  # even if u * total rounds up to total
    ],
)
def test_gibbs_inverse_cdf_decisions(probabilities, u, expected):
    net = compile_network(one_variable(probabilities))
    start = int(np.argmax(probabilities))
    state, info = gibbs.step(ScriptedRandom([u]), net, gibbs.init(net, [start]))
    assert state.x.tolist() == [expected]
    np.testing.assert_allclose(info.conditionals, probabilities)


@pytest.mark.parametrize(
    "u_propose,u_accept,expected",
    [
        (0.0, 0.49, 1),  # j = 0 >= x = 0, so propose 1; ratio 0.5 > 0.49: accept
        (0.0, 0.5, 0),  # u * P(x) = 0.25 is not < P(x') = 0.25: reject
        (0.4, 0.0, 0),  # j = 1 -> propose 2, probability zero: reject even at u = 0
        (1.0 - 2.0**-53, 0.0, 3),  # j = 2 -> propose 3
        (1.0, 0.0, 3),  # j = 3 would be out of range: clamped to 2 -> propose 3
    ],
)
def test_metropolis_decisions(u_propose, u_accept, expected):
    net = compile_network(one_variable([0.5, 0.25, 0.0, 0.25]))
    state, info = metropolis.step(ScriptedRandom([u_propose, u_accept]), net, metropolis.init(net, [0]))
    assert state.x.tolist() == [expected]
    assert info.n_accepted == int(expected != 0)


def test_single_state_variables_use_one_uniform_in_gibbs_and_none_in_metropolis():
    bn = BayesianNetwork(
        states={"A": ["only"], "B": ["0", "1"]},
        parents={"B": ["A"]},
        cpts={"A": [1.0], "B": [[0.5, 0.5]]},
    )
    net = compile_network(bn)
    gibbs.step(ScriptedRandom([0.3, 0.7]), net, gibbs.init(net, [0, 0]))  # exactly two uniforms
    scripted = ScriptedRandom([0.0, 0.1, 0.99])
    metropolis.step(scripted, net, metropolis.init(net, [0, 0]))
    assert scripted.values == [0.99]
    with pytest.raises(IndexError):
        gibbs.step(ScriptedRandom([0.3]), net, gibbs.init(net, [0, 0]))


def test_gibbs_refuses_an_infeasible_state(rng):
    net = compile_network(load_network("deterministic_pair"))
    with pytest.raises(InfeasibleStateError, match="probability zero"):
        gibbs.init(net, [0, 1])
    # Bypassing the check, the sweep meets a site where every candidate has weight 0:
    # B = A and C = A observed as B=0, C=1 leave no state for A.
    copy = [[1.0, 0.0], [0.0, 1.0]]
    bn = BayesianNetwork(
        states={v: ["0", "1"] for v in "ABC"},
        parents={"B": ["A"], "C": ["A"]},
        cpts={"A": [0.5, 0.5], "B": copy, "C": copy},
    )
    impossible = compile_network(bn, {"B": "0", "C": "1"})
    with pytest.raises(InfeasibleStateError, match="weight zero"):
        gibbs.step(rng, impossible, gibbs.GibbsState(np.array([0, 0, 1])))
    with pytest.raises(InfeasibleStateError, match="probability zero"):
        gibbs.run_chain(rng, impossible, np.array([0, 0, 1]), 1)
    # The numba kernel itself reports the dead site (A, index 0) instead of drawing.
    x = np.array([0, 0, 1])
    net = impossible
    dead = gibbs._gibbs_chain_nb(
        rng, net.cardinality, net.cpt, net.family_ptr, net.family_var,
        net.family_stride, net.free, gibbs.state_offsets(net), x, state_labels(net, x), 1,
        np.zeros((1, 3), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 6)),
    )
    assert dead == 0


# ------------------------------------------------------------------ exact transition kernel
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("evidence", [None, {"D": "1"}], ids=["prior", "D=1"])
def test_sweep_transition_matches_exact_kernel(sampler, evidence, rng):
    """Count x -> y over one long chain; by the Markov property each row is multinomial."""
    bn = tiny_network()
    net = compile_network(bn, evidence)
    kernel, index = exact_sweep_kernel(bn, evidence, sampler)
    x0 = np.array([1, 2, 1, 1])  # C=1 with A=1, B=2; feasible under both evidences
    out = SAMPLERS[sampler].run_chain(rng, net, x0, 60_000)
    path = [index[tuple(x0)]] + [index[tuple(x)] for x in out.draws]  # KeyError = a P = 0 state
    counts = np.zeros_like(kernel)
    np.add.at(counts, (path[:-1], path[1:]), 1)
    assert np.all(counts[kernel == 0.0] == 0)  # impossible moves never happen
    statistic, dof = 0.0, 0
    for a in range(kernel.shape[0]):
        visits = counts[a].sum()
        if visits == 0:
            continue
        expected = kernel[a] * visits
        cells = kernel[a] > 0
        small = cells & (expected < 5.0)  # pool sparse cells into one bin
        obs = list(counts[a][cells & ~small]) + ([counts[a][small].sum()] if small.any() else [])
        exp = list(expected[cells & ~small]) + ([expected[small].sum()] if small.any() else [])
        obs, exp = np.array(obs), np.array(exp)
        if len(obs) < 2:
            continue
        statistic += ((obs - exp) ** 2 / exp).sum()
        dof += len(obs) - 1
    assert dof > 20
    p_value = stats.chi2.sf(statistic, dof)
    assert p_value > CHI2_P_MIN, f"chi2 = {statistic:.1f} on {dof} dof, p = {p_value:.2e}"


# ------------------------------------------------------------------ exact marginals
def _agreement_cases():
    alarm = load_network("alarm")
    positive = random_positive_network(3)
    return [
        ("blood_pressure|m_e", load_network("blood_pressure"), {"Measurement": "m_e"}, 4_000),
        ("random6", positive, None, 4_000),
        ("random6|F=2,B=0", positive, {"F": "2", "B": "0"}, 4_000),
        # Alarm is ergodic for both kernels: its only zeros are in PVSAT's CPT, and
        # PVSAT=LOW has positive probability under every (FIO2, VENTALV), so from any
        # feasible state PVSAT can move to LOW, after which its parents move freely.
        ("alarm", alarm, None, 20_000),
        # Under its frozen evidence alarm has states of probability ~2e-4 (VENTALV,
        # ARTCO2) that the chains visit in rare clusters: at 20,000 draws a chain set
        # can miss them entirely, and the normal approximation behind Z_MULTI needs
        # several clusters per chain, so this case runs longer.
        ("alarm|25%", alarm, load_evidence("alarm"), 100_000),
    ]


AGREEMENT_CASES = _agreement_cases()


def test_brute_force_helper_agrees_with_exact_module():
    for _, bn, evidence, _ in AGREEMENT_CASES[:3]:
        bf, ex = brute_force_marginals(bn, evidence), exact_marginals(bn, evidence)
        assert bf.keys() == ex.keys()
        for v in bf:
            np.testing.assert_allclose(bf[v], ex[v], atol=1e-12)


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("case", AGREEMENT_CASES, ids=[c[0] for c in AGREEMENT_CASES])
def test_marginals_agree_with_exact(sampler, case):
    _, bn, evidence, n_draws = case
    exact = exact_marginals(bn, evidence)
    burn = n_draws // 5
    options = {"rb_checkpoints": [burn, n_draws]} if sampler == "gibbs" else {}
    result = sample(bn, sampler, n_draws, n_chains=16, evidence=evidence, seed=2017, **options)
    estimators = ["empirical", "rao_blackwell"] if sampler == "gibbs" else ["empirical"]
    # Discard the first fifth as burn-in: every chain starts from a forward (prior)
    # draw, a transient that biases all chains alike, which the between-chain
    # standard error cannot see. Sums after burn-in = S(n) - S(burn).
    kept = n_draws - burn
    worst = {}
    for estimator in estimators:
        z = []
        for v, p in exact.items():
            running = result.running_marginals(v, [burn, n_draws], estimator)
            per_chain = (running[:, 1, :] * n_draws - running[:, 0, :] * burn) / kept
            z.append(pooled_errors(per_chain, p, kept))
        worst[estimator] = float(np.max(np.concatenate(z)))
    assert max(worst.values()) < Z_MULTI, worst


# ------------------------------------------------------------------ the traps
@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_deterministic_pair_traps_the_chain(sampler):
    """The paper's Example (Figure 1): from (0,0) Gibbs stays at (0,0), from (1,1) at (1,1)."""
    with pytest.warns(SamplerTrappedWarning, match=r"\['A', 'B'\] never changed"):
        result = sample(load_network("deterministic_pair"), sampler, 2_000, n_chains=2, init=[[0, 0], [1, 1]], seed=3)
    assert np.all(result.draws[0] == 0)
    assert np.all(result.draws[1] == 1)
    np.testing.assert_array_equal(result.marginals()["A"], [0.5, 0.5])  # pooled over the two traps only


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_block_chain_stays_in_its_block(sampler):
    """Paper, "Block shaped BN": a chain started in {0,1}^n never leaves it, nor one in {2,3}^n."""
    n = 10
    bn = load_network("block_chain", n=n)
    with pytest.warns(SamplerTrappedWarning, match=r"disagree on \['X1', 'X2'"):
        result = sample(bn, sampler, 3_000, n_chains=2, init=[[0] * n, [3] * n], seed=4)
    low, high = result.draws[0], result.draws[1]
    assert np.isin(low, [0, 1]).all()
    assert np.isin(high, [2, 3]).all()
    # ... while inside the block the chain does move: every variable visits both states.
    for block, states in ((low, (0, 1)), (high, (2, 3))):
        for s in states:
            assert (block == s).any(axis=0).all()


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
def test_asia_either_never_changes(sampler):
    """Asia's ``either = tub OR lung`` is deterministic: single-site moves cannot change it.

    From either=no (so tub=lung=no) flipping tub, lung or either alone gives P = 0;
    from either=yes, reaching either=no needs tub=lung=no first, which forces either=yes.
    So {either=no} and {either=yes} are closed classes, although both are feasible:
    P(either=yes) = 0.0648 and a mixing chain would visit it ~320 times in 5 000 draws.
    """
    bn = load_network("asia")
    no = {v: "no" for v in bn.variables}
    yes = dict(no, tub="yes", either="yes")
    assert exact_marginals(bn)["either"][bn.state_index("either", "yes")] > 0.06
    with pytest.warns(SamplerTrappedWarning, match="either"):
        result = sample(bn, sampler, 5_000, n_chains=2, init=[no, yes], seed=5)
    either = bn.index("either")
    assert set(np.unique(result.draws[0, :, either])) == {bn.state_index("either", "no")}
    assert set(np.unique(result.draws[1, :, either])) == {bn.state_index("either", "yes")}
    # the either=yes chain does move among its feasible states (tub/lung change)
    tub, lung = bn.index("tub"), bn.index("lung")
    assert len(np.unique(result.draws[1][:, [tub, lung]], axis=0)) == 3


ZERO_CASES = [
    ("deterministic_pair", None),
    ("block_chain", None),
    ("asia", "asia-25"),
    ("grid-3x3", 1),
    ("grid-5x5", 2),
    ("grid-8x8", 3),
    ("grid-8x8", None),
]


@pytest.mark.parametrize("sampler", sorted(SAMPLERS))
@pytest.mark.parametrize("name,evidence_key", ZERO_CASES, ids=[f"{n}-{e}" for n, e in ZERO_CASES])
def test_never_a_zero_probability_state(sampler, name, evidence_key):
    bn = load_network(name)
    if evidence_key == "asia-25":
        evidence = load_evidence("asia")
    elif evidence_key is None:
        evidence = None
    else:
        evidence = random_evidence(bn, 0.25, seed=evidence_key)
    net = compile_network(bn, evidence)
    result = sample(bn, sampler, 3_000, n_chains=2, evidence=evidence, init="random_forward", seed=6, traps="record")
    assert draws_probability_positive(net, result.draws).all()
    assert draws_probability_positive(net, result.initial_states).all()
    if name != "deterministic_pair":  # (there the chain is trapped by design)
        # the draws are not all one state, so the check has teeth
        assert len(np.unique(result.draws.reshape(-1, bn.n_variables), axis=0)) > 1
    # sanity of the helper itself: a state that breaks a zero entry is caught
    if name == "deterministic_pair":
        assert not draws_probability_positive(net, np.array([[0, 1]])).any()
        assert net.cpt[state_labels(net, np.array([0, 1]))].prod() == 0.0
