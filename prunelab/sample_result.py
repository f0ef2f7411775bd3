"""What :func:`prunelab.sample` returns: :class:`SampleResult`, the draws of several chains and how to read them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import indicators
from .checkpoints import checked_checkpoints
from .samplers import get_sampler
from .traps import TrapReport, distinct_rows

__all__ = ["SampleResult"]


@dataclass(frozen=True, eq=False)
class SampleResult:
    """Draws of several chains and what is needed to read them.

    Attributes
    ----------
    draws : int array (chain, draw, variable)
        State indices in ``variables`` order, evidence variables fixed. The dtype
        is the smallest signed integer that holds every state index (usually
        ``int8``), to keep 100 chains of 25 000 draws in memory.
    variables : tuple of str
        ``bn.variables`` (topological order).
    states : mapping of str to tuple of str
        State names per variable.
    evidence : dict of str to str
        The evidence, states by name.
    sampler : str
        The sampler's name.
    init_seconds, sample_seconds : float64 (chain,)
        Wall time of the initial state and of the chain, per chain, numba compile
        time excluded.
    initial_states : int64 (chain, variable)
        The start of each chain (not among ``draws``: draw 1 is after one sweep).
    inits_used : tuple of str
        Per chain: the initialiser used (``"exact"`` when forward sampling ran out
        of restarts, ``"solver"`` when exact inference refused too, ``"given"`` for an
        explicit start).
    rb_checkpoints : int64 (checkpoint,) or None
        Draw counts at which Rao-Blackwell sums were recorded.
    rb_sums : float64 (chain, checkpoint, sum of cardinalities) or None
        Running sums of the conditionals; see :meth:`running_marginals`.
    stats : dict of str to array (chain, draw, ...)
        Per-draw sampler statistics, e.g. Metropolis ``n_accepted``.
    extras : dict of str to list (chain,)
        Other per-chain outputs of the sampler.
    seed_entropy : int
        Entropy of the root ``SeedSequence``; ``sample(..., seed=seed_entropy)``
        reproduces the run when the seed was an int or None.
    seed_spawn_key : tuple of int
        Spawn key of the root ``SeedSequence`` (not empty when the seed was a
        Generator or a spawned SeedSequence): ``seed=np.random.SeedSequence(
        seed_entropy, spawn_key=seed_spawn_key)`` reproduces the run.
    trap : TrapReport
        Variables stuck, held apart or disagreeing across chains; see
        :class:`~prunelab.traps.TrapReport`. With :attr:`n_changes`,
        :attr:`n_distinct_states`, :attr:`move_rate`, :attr:`acceptance_rate` and
        :meth:`rhat`, what a user needs to notice a trapped sampler.
    backend : str
    options : dict
        Sampler options as passed.

    See Also
    --------
    sample : makes it.

    Examples
    --------
    >>> from prunelab import load_network
    >>> from prunelab.sampling import sample
    >>> result = sample(load_network("asia"), "prune", 500, n_chains=2, seed=0)
    >>> result.draws.shape, result.draws.dtype.name
    ((2, 500, 8), 'int8')
    >>> result.running_marginals("lung", checkpoints=[100, 500]).shape
    (2, 2, 2)
    >>> result.trap.trapped, int(result.n_distinct_states.min()) > 10
    (False, True)
    """

    draws: np.ndarray
    variables: tuple[str, ...]
    states: Mapping[str, tuple[str, ...]]
    evidence: dict[str, str]
    sampler: str
    init_seconds: np.ndarray
    sample_seconds: np.ndarray
    initial_states: np.ndarray
    inits_used: tuple[str, ...] = ()
    rb_checkpoints: np.ndarray | None = None
    rb_sums: np.ndarray | None = None
    stats: dict[str, np.ndarray] = field(default_factory=dict)
    extras: dict[str, list] = field(default_factory=dict)
    seed_entropy: int | None = None
    backend: str = "numba"
    options: dict[str, Any] = field(default_factory=dict)
    seed_spawn_key: tuple[int, ...] = ()
    trap: TrapReport = TrapReport()


    # ------------------------------------------------------------ shape
    @property
    def n_chains(self) -> int:
        """Number of chains (the first axis of :attr:`draws`)."""
        return int(self.draws.shape[0])

    @property
    def n_draws(self) -> int:
        """Draws per chain (the second axis of :attr:`draws`)."""
        return int(self.draws.shape[1])

    @property
    def free_variables(self) -> tuple[str, ...]:
        """Variables without evidence, in ``variables`` order."""
        return tuple(v for v in self.variables if v not in self.evidence)

    @property
    def state_offsets(self) -> np.ndarray:
        """Start of each variable's block in the last axis of :attr:`rb_sums`."""
        cards = [len(self.states[v]) for v in self.variables]
        return np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)

    # ------------------------------------------------------------ mixing
    @property
    def n_changes(self) -> np.ndarray:
        """int64 (chain, variable): draws at which each variable differs from the draw before.

        The first draw is compared with the start state, so a variable with 0 never
        moved in that chain; evidence variables are always 0.
        """
        out = np.zeros((self.n_chains, len(self.variables)), dtype=np.int64)
        for j in range(len(self.variables)):
            column = self.draws[:, :, j]
            out[:, j] = np.count_nonzero(np.diff(column, axis=1), axis=1) + (column[:, 0] != self.initial_states[:, j])
        return out

    @property
    def n_distinct_states(self) -> np.ndarray:
        """int64 (chain,): distinct full states among each chain's draws (1 for a chain that never moved)."""
        return np.array([distinct_rows(chain).shape[0] for chain in self.draws], dtype=np.int64)

    @property
    def move_rate(self) -> np.ndarray:
        """float64 (chain,): share of draws that differ from the draw before (any sampler)."""
        moved = np.any(np.diff(self.draws, axis=1) != 0, axis=2).sum(axis=1)
        moved = moved + np.any(self.draws[:, 0, :] != self.initial_states, axis=1)
        return moved / self.n_draws

    @property
    def acceptance_rate(self) -> np.ndarray | None:
        """float64 (chain,): accepted share of single-site proposals, or None if the sampler has none.

        From the per-draw statistic ``n_accepted`` (Metropolis), out of one
        proposal per free variable with more than one state per sweep.
        """
        accepted = self.stats.get("n_accepted")
        if accepted is None:
            return None
        if self._n_proposals == 0:
            return np.full(self.n_chains, np.nan)
        return accepted.sum(axis=1) / (self.n_draws * self._n_proposals)

    @property
    def _n_proposals(self) -> int:
        """Single-site proposals per sweep: one per free variable with more than one state."""
        return sum(len(self.states[v]) > 1 for v in self.free_variables)

    def rhat(self) -> dict[str, float]:
        """Rank-normalised split R-hat of every free variable: the largest over its states' indicators.

        From :func:`prunelab.diagnostics.convergence_summary` (ArviZ): ``inf`` when
        chains never change but sit in different states, ``nan`` when every chain
        sits in the same state throughout. Needs at least 4 draws.

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("deterministic_pair"), "gibbs", 10, n_chains=2, init=[[0, 0], [1, 1]],
        ...                 seed=0, traps="record")
        >>> result.rhat()
        {'A': inf, 'B': inf}
        """
        from .diagnostics import convergence_summary

        out = {}
        for v in self.free_variables:
            column = self.draws[:, :, self._column(v)]
            values = [convergence_summary(column == s)["rhat"] for s in range(len(self.states[v]))]
            out[v] = float(np.nan if all(np.isnan(values)) else np.nanmax(values))
        return out

    def _column(self, variable: str) -> int:
        try:
            return self.variables.index(variable)
        except ValueError:
            raise KeyError(f"unknown variable {variable!r}; variables are {list(self.variables)}") from None

    # ------------------------------------------------------------ estimates
    def running_marginals(self, variable: str, checkpoints=None, estimator: str = "empirical") -> np.ndarray:
        """Estimates of ``P(variable | e)`` after ``t`` draws, for each chain and checkpoint ``t``.

        Parameters
        ----------
        variable : str
        checkpoints : array_like of int, optional
            Draw counts ``t`` in ``1..n_draws``. Default: every draw for
            ``"empirical"``, the recorded :attr:`rb_checkpoints` for
            ``"rao_blackwell"`` (other counts are not available there).
        estimator : {"empirical", "rao_blackwell"}
            The share of the first ``t`` draws in each state, or the paper's eq. (3)
            ``(1/t) sum_{t' <= t} P(x_i | x_-i^(t'))`` (Gibbs), for prune sampling
            ``(1/t) sum_{t' <= t} E[1{X_i = s} | S_t']`` over its pruned sets
            (recorded when ``sample`` was given ``rb_checkpoints``).

        Returns
        -------
        float64 array (chain, checkpoint, n_states)

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("deterministic_pair"), "gibbs", 4, init=[0, 0], seed=1, traps="record")
        >>> result.running_marginals("A", checkpoints=[1, 4]).tolist()
        [[[1.0, 0.0], [1.0, 0.0]]]
        >>> result.trap.stuck  # Gibbs cannot leave (0, 0): see SampleResult.trap
        ('A', 'B')
        """
        i = self._column(variable)
        card = len(self.states[variable])
        if estimator == "empirical":
            cps = self._checked(checkpoints, np.arange(1, self.n_draws + 1))
            return indicators.running_marginals(self.draws[:, :, i], card, cps)
        if estimator == "rao_blackwell":
            if self.rb_sums is None:
                raise self._no_sums()
            recorded = self.rb_checkpoints
            cps = self._checked(checkpoints, recorded)
            where = np.searchsorted(recorded, cps)
            ok = (where < recorded.size) & (recorded[np.minimum(where, recorded.size - 1)] == cps)
            if not ok.all():
                raise ValueError(
                    f"Rao-Blackwell sums exist only at the recorded checkpoints; {cps[~ok][:5].tolist()} "
                    "are not among them (pass rb_checkpoints to sample)"
                )
            lo = self.state_offsets[i]
            return self.rb_sums[:, where, lo:lo + card] / cps[None, :, None]
        raise ValueError(f"unknown estimator {estimator!r}; choose 'empirical' or 'rao_blackwell'")

    def rao_blackwell_terms(self, variable: str, window=None) -> tuple[np.ndarray, np.ndarray]:
        """The per-step Rao-Blackwell terms of a window: ``P(x_i | x_-i^(t))`` (Gibbs), ``E[1{X_i = s} | S_t]`` (prune).

        Kept only where ``sample`` was asked for the running sums at every step of the
        window: pass consecutive ``rb_checkpoints`` (e.g. ``np.arange(t0, t1 + 1)``
        for the steps ``t0 + 1 .. t1``, or from 1). Each term is the difference of two
        consecutive running sums (exact up to rounding, about ``t * 1e-16``). Their
        autocorrelation gives the effective sample size of the Rao-Blackwell
        estimator, as the draws' indicators give that of the plain one.

        Parameters
        ----------
        variable : str
        window : (int, int), optional
            The first and the last step wanted (``1 <= first <= last <= n_draws``);
            default: the longest run of consecutive checkpoints ending at the last one.

        Returns
        -------
        steps : int64 (step,)
        terms : float64 (chain, step, n_states)
            Each row sums to 1.

        Raises
        ------
        ValueError
            No sums recorded, or a step of the window (or the one before it) is not a
            recorded checkpoint: the message says which ``rb_checkpoints`` to pass.

        Examples
        --------
        >>> import numpy as np
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("blood_pressure"), "prune", 6, seed=1, rb_checkpoints=np.arange(3, 7))
        >>> steps, terms = result.rao_blackwell_terms("Lifestyle")
        >>> steps.tolist(), terms.shape
        ([4, 5, 6], (1, 3, 2))
        """
        lo = self.state_offsets[self._column(variable)]
        if self.rb_sums is None:
            raise self._no_sums()
        recorded = np.asarray(self.rb_checkpoints, dtype=np.int64)
        with_zero = np.concatenate([[0], recorded])  # the sums before the first step are zero
        sums = np.concatenate([np.zeros_like(self.rb_sums[:, :1]), self.rb_sums], axis=1)
        if window is None:
            gaps = np.flatnonzero(np.diff(with_zero) != 1)
            start = int(gaps[-1]) + 1 if gaps.size else 0
            if start == with_zero.size - 1:
                raise ValueError("the recorded rb_checkpoints end with no two consecutive steps: pass "
                                 "rb_checkpoints=np.arange(t0, t1 + 1) to keep the terms of steps t0 + 1 .. t1")
            first, last = int(with_zero[start]) + 1, int(with_zero[-1])
        else:
            first, last = (int(w) for w in window)
            if not 1 <= first <= last <= self.n_draws:
                raise ValueError(f"window must be (first, last) with 1 <= first <= last <= {self.n_draws}, "
                                 f"got {window!r}")
        wanted = np.arange(first - 1, last + 1)
        where = np.searchsorted(with_zero, wanted)
        ok = (where < with_zero.size) & (with_zero[np.minimum(where, with_zero.size - 1)] == wanted)
        if not ok.all():
            raise ValueError(f"the running sums after step(s) {wanted[~ok][:5].tolist()} were not recorded: pass "
                             f"rb_checkpoints=np.arange({max(first - 1, 1)}, {last + 1}) to keep the terms of "
                             f"steps {first} .. {last}")
        block = sums[:, where, lo:lo + len(self.states[variable])]
        return wanted[1:], np.diff(block, axis=1)

    def _no_sums(self) -> ValueError:
        """The error for an estimate that needs Rao-Blackwell sums this result lacks, with the reason."""
        try:
            refusal = getattr(get_sampler(self.sampler), "rao_blackwell_refusal", None)
        except ValueError:  # a sampler registered in another session
            refusal = None
        if refusal is not None and (why := refusal(self.options)) is not None:
            return ValueError(f"sampler {self.sampler!r} recorded no Rao-Blackwell sums: {why}")
        hint = "pass rb_checkpoints to sample()" if refusal is not None else "use estimator='empirical'"
        return ValueError(f"sampler {self.sampler!r} recorded no Rao-Blackwell sums; {hint}")

    def _checked(self, checkpoints, default: np.ndarray) -> np.ndarray:
        if checkpoints is None:
            return np.asarray(default, dtype=np.int64)
        return checked_checkpoints(checkpoints, self.n_draws)

    def marginals(self, estimator: str = "empirical") -> dict[str, np.ndarray]:
        """Pooled estimate of ``P(X | e)`` for every free variable, all chains and draws.

        Parameters
        ----------
        estimator : {"empirical", "rao_blackwell"}
            For ``"rao_blackwell"`` the last recorded checkpoint is used.

        Returns
        -------
        dict of str to float64 array
            Keyed like :func:`prunelab.exact.exact_marginals` (observed variables omitted).

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("deterministic_pair"), "gibbs", 10, init=[1, 1], seed=1, traps="record")
        >>> result.marginals()["A"].tolist()
        [0.0, 1.0]
        """
        out = {}
        for v in self.free_variables:
            if estimator == "rao_blackwell":
                if self.rb_checkpoints is None or self.rb_checkpoints.size == 0:
                    raise self._no_sums()
                last = [int(self.rb_checkpoints[-1])]
                out[v] = self.running_marginals(v, last, estimator)[:, 0, :].mean(axis=0)
            elif estimator == "empirical":
                column = self.draws[:, :, self._column(v)].ravel()
                out[v] = np.bincount(column, minlength=len(self.states[v])) / column.size
            else:
                raise ValueError(f"unknown estimator {estimator!r}; choose 'empirical' or 'rao_blackwell'")
        return out

    # ------------------------------------------------------------ ArviZ
    def to_inference_data(self):
        """The chains as an ArviZ ``InferenceData``, for ``az.summary``, ``az.ess``, ``az.plot_rank`` and the rest.

        Groups, each with dimensions ``chain`` and ``draw`` (coordinates ``0 ...``):

        * ``posterior``: one integer variable per free network variable, named as in
          :attr:`variables`, holding the state index of each draw (the dtype of
          :attr:`draws`); its attribute ``states`` lists the state names, so that
          ``states[value]`` names the state. The indices are kept, not indicators:
          the mean of a two-state variable is the estimate of ``P(X = states[1])``,
          and ``idata.posterior[v] == k`` is the indicator of state ``k``. The
          group's attributes: ``sampler``, ``sampling_time`` (seconds summed over
          chains: CPU seconds, not wall time) and ``sampling_time_per_chain``.
        * ``sample_stats``: each per-draw statistic the sampler records
          (:attr:`stats`), under its own name except ``size``, the size ``|S|`` of
          the pruned set of each prune step, which is ``pruned_set_size`` (NaN where
          a sampler does not count it); with Metropolis, ``acceptance_rate``: the
          accepted share of each sweep's single-site proposals. Absent when the
          sampler records nothing (Gibbs).
        * ``constant_data``: one scalar per observed variable, its state index, with
          the attributes ``state`` (its name) and ``states``. Absent without evidence.

        Returns
        -------
        arviz.InferenceData

        Raises
        ------
        prunelab.extras.MissingExtraError
            ArviZ is not installed (the extra ``experiments``).

        Examples
        --------
        >>> from prunelab import load_network
        >>> from prunelab.sampling import sample
        >>> result = sample(load_network("asia"), "prune", 200, n_chains=2, evidence={"dysp": "yes"}, seed=0)
        >>> idata = result.to_inference_data()
        >>> idata.posterior["lung"].dims, idata.posterior["lung"].attrs["states"]
        (('chain', 'draw'), ['yes', 'no'])
        >>> idata.sample_stats["pruned_set_size"].shape, idata.constant_data["dysp"].attrs["state"]
        ((2, 200), 'yes')
        """
        from .diagnostics import arviz_notice_ignored
        from .extras import require

        with arviz_notice_ignored():
            az = require("arviz", "experiments", "SampleResult.to_inference_data()")
        posterior = {v: self.draws[:, :, self._column(v)] for v in self.free_variables}
        names = {"size": "pruned_set_size"}
        sample_stats = {names.get(k, k): np.asarray(v) for k, v in self.stats.items()
                        if np.ndim(v) >= 2 and np.shape(v)[:2] == self.draws.shape[:2]}
        if "n_accepted" in self.stats:  # per sweep, as acceptance_rate is per chain
            sample_stats["acceptance_rate"] = (self.stats["n_accepted"] / self._n_proposals if self._n_proposals
                                               else np.full(self.draws.shape[:2], np.nan))
        seconds = np.asarray(self.sample_seconds, dtype=float)
        idata = az.from_dict(
            posterior=posterior,
            sample_stats=sample_stats or None,
            posterior_attrs={"sampler": self.sampler, "sampling_time": float(seconds.sum()),
                             "sampling_time_per_chain": seconds.tolist()},
        )
        for v in self.free_variables:
            idata.posterior[v].attrs["states"] = list(self.states[v])
        if self.evidence:  # scalars (from_dict would give each a dimension of length 1)
            import xarray as xr

            idata.add_groups(constant_data=xr.Dataset({
                v: xr.DataArray(self.states[v].index(s), attrs={"state": s, "states": list(self.states[v])})
                for v, s in self.evidence.items()}))
        return idata

    def __repr__(self) -> str:
        return (
            f"SampleResult(sampler={self.sampler!r}, chains={self.n_chains}, draws={self.n_draws}, "
            f"variables={len(self.variables)}, evidence={len(self.evidence)})"
        )
