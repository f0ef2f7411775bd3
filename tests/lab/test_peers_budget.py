"""The budget loop that fills a time budget chunk by chunk (prunelab.lab.peers.budget.fill_budget)."""

import numpy as np
import pytest

from prunelab import load_network
from prunelab.lab.peers.budget import MAX_CHUNKS, ChainTally, fill_budget


def fake_sampler(rate: float):
    """A ``draw`` that 'runs' at ``rate`` draws per second on its own clock and records each call's size."""
    calls = []

    def draw(n, start, salt):
        calls.append((int(n), salt))
        return np.zeros((int(n), 2), dtype=np.int64), n / rate

    return draw, calls


def test_a_long_budget_is_cut_into_pieces_no_larger_than_the_cap():
    bn = load_network("deterministic_pair")
    draw, calls = fake_sampler(rate=1e6)
    tally = ChainTally(bn, None, [0, 0])
    fill_budget(draw, tally, None, 60.0, pilot_start=100, max_draws=250_000)
    assert max(n for n, _ in calls) <= 250_000
    assert tally.seconds >= 0.9 * 60.0  # the budget is still filled, in more than MAX_CHUNKS calls
    assert len(calls) > MAX_CHUNKS + 1
    assert len({salt for _, salt in calls}) == len(calls)  # every call its own seed


def test_without_a_cap_a_budget_takes_at_most_max_chunks_chunks():
    bn = load_network("deterministic_pair")
    draw, calls = fake_sampler(rate=1e6)
    tally = ChainTally(bn, None, [0, 0])
    fill_budget(draw, tally, None, 60.0, pilot_start=100)
    pilots = [n for n, salt in calls if n < 1e5]
    assert len(calls) - len(pilots) <= MAX_CHUNKS
    assert max(n for n, _ in calls) > 250_000


def test_a_fixed_run_longer_than_the_cap_is_drawn_in_pieces_with_the_first_seed_unchanged():
    bn = load_network("deterministic_pair")
    draw, calls = fake_sampler(rate=1e6)
    tally = ChainTally(bn, None, [0, 0])
    fill_budget(draw, tally, 1_000, None, pilot_start=100, max_draws=300)
    assert [n for n, _ in calls] == [300, 300, 300, 100]
    assert calls[0][1] == 0 and tally.n_steps == 1_000
    draw, calls = fake_sampler(rate=1e6)
    fill_budget(draw, ChainTally(bn, None, [0, 0]), 1_000, None, pilot_start=100, max_draws=5_000)
    assert calls == [(1_000, 0)]  # under the cap: one call with salt 0, as before the cap existed


def test_a_cap_below_one_draw_is_refused():
    bn = load_network("deterministic_pair")
    draw, _ = fake_sampler(rate=1e6)
    with pytest.raises(ValueError, match="max_draws must be at least 1"):
        fill_budget(draw, ChainTally(bn, None, [0, 0]), None, 1.0, pilot_start=100, max_draws=0)


def test_rao_blackwell_chunks_add_up_to_one_run_of_the_same_chain():
    """A fixed run cut into pieces: the tally's Rao-Blackwell estimate is the sums of the pieces over all steps,
    which for one piece is exactly what ``sample`` reports for the same seed."""
    from prunelab.lab.peers import run_sampler
    from prunelab.lab.peers.budget import peer_seed
    from prunelab.lab.peers.run import chain_start
    from prunelab.sampling import sample

    bn = load_network("blood_pressure")
    evidence = {"BloodPressure": bn.states["BloodPressure"][0]}
    for own in ("prune", "prune-tempered", "gibbs"):
        run = run_sampler(f"prunelab-{own}-rb", bn, evidence, n_steps=600, seed=4)
        x0 = chain_start(bn, evidence, None, 4)
        direct = sample(bn, own, 600, evidence=evidence, init=x0, seed=peer_seed(4, 200), traps="off",
                        rb_checkpoints=[600])
        for v, estimate in run.marginals.items():
            np.testing.assert_allclose(estimate, direct.running_marginals(v, [600], "rao_blackwell")[0, 0],
                                       rtol=0, atol=1e-12)
        plain = run_sampler(f"prunelab-{own}", bn, evidence, n_steps=600, seed=4)
        assert any(not np.allclose(plain.marginals[v], run.marginals[v]) for v in run.marginals)


def test_a_tally_refuses_chunks_with_and_without_rao_blackwell_sums():
    bn = load_network("deterministic_pair")
    tally = ChainTally(bn, None, [0, 0])
    tally.add(np.array([[1, 1]]), 0.1, rb_sums=np.array([0.5, 0.5, 0.5, 0.5]))
    with pytest.raises(ValueError, match="every chunk"):
        tally.add(np.array([[1, 1]]), 0.1)
    tally.add(np.array([[0, 0]]), 0.1, rb_sums=np.array([1.0, 0.0, 1.0, 0.0]))
    assert tally.marginals()["A"].tolist() == [0.75, 0.25]
