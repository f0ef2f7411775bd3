"""Runs on a dask.distributed cluster: a scheduler, workers on other machines, the same wheel on each.

Two kinds of work go to a cluster:

* every run of an experiment (:func:`prunelab.lab.experiments.framework.sweep` with
  ``scheduler=``, ``python -m prunelab run NAME --scheduler ADDRESS``): each run is one
  task (:func:`run_each`), computed on a worker and handed back; this process writes
  its record, so the workers need no shared disk and a stopped sweep resumes as a
  local one does;
* the exact counts of many marginals of one network (:func:`count_marginals`): the
  variables are split into groups, and each group is one call of
  :func:`prunelab.circuit.count_inference` on a worker.

Before any work, :func:`check_workers` asks every worker for its environment
(:func:`worker_environment`): prunelab's version and a digest of its code, and the
versions of the libraries the records name; a worker that differs from this process
is refused by name, so no number is written under another version's label. Each
run's worker (host name, CPU model and count, never an address) goes into the
provenance (:func:`host_of`); the scheduler's address is not stored.

The counting and the families' methods run in forked child processes (their caps);
a worker started by a nanny is by default a daemon process, which cannot have
children, so :func:`check_workers` refuses such a worker and says how to start one
that can (``DASK_DISTRIBUTED__WORKER__DAEMON=False``).

The library's own ``count_inference(n_jobs=...)`` stays on one machine (its caps
watch the children it forks); this module spreads calls of it, which keeps the core
free of dask (an extra of the lab's).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from pathlib import Path

from .provenance import KERNEL_LIBRARIES, library_versions, machine_info, package_version

__all__ = ["HOST_KEYS", "WorkerMismatchError", "check_workers", "code_digest", "connected", "count_marginals",
           "environment_mismatch", "host_of", "run_each", "worker_environment"]

HOST_KEYS = ("hostname", "cpu_model", "cpu_count", "platform", "python")
"""What the provenance records of the machine a run ran on (:func:`host_of`): no address."""

_CHECKED = ("prunelab", "code", "python")


class WorkerMismatchError(ValueError):
    """A worker's prunelab, code or libraries differ from this process's, or it cannot fork: nothing was run."""


def code_digest() -> str:
    """SHA-1 of prunelab's Python sources (their paths and bytes): equal where the same code runs.

    Examples
    --------
    >>> len(code_digest()), code_digest() == code_digest()
    (40, True)
    """
    root = Path(__file__).resolve().parents[2]  # prunelab/
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def host_of() -> dict:
    """The machine this runs on, as the provenance records it (:data:`HOST_KEYS`).

    Examples
    --------
    >>> sorted(host_of()) == sorted(HOST_KEYS)
    True
    """
    info = machine_info()
    return {k: info[k] for k in HOST_KEYS}


def worker_environment(libraries=()) -> dict:
    """What :func:`check_workers` compares: prunelab's version and code, the libraries, whether it can fork.

    Parameters
    ----------
    libraries : tuple of str
        Libraries beyond :data:`~prunelab.lab.experiments.provenance.LIBRARIES`' kernels
        (numpy, numba, llvmlite) and pgmpy whose versions must agree.

    Examples
    --------
    >>> env = worker_environment(("scipy",))
    >>> env["prunelab"] == package_version(), sorted(env["libraries"])[:3], env["can_fork"]
    (True, ['llvmlite', 'numba', 'numpy'], True)
    """
    import multiprocessing

    return {"prunelab": package_version(), "code": code_digest(), "python": machine_info()["python"],
            "libraries": library_versions((*KERNEL_LIBRARIES, "pgmpy", *libraries)),
            "can_fork": not multiprocessing.current_process().daemon, "host": host_of()}


@contextlib.contextmanager
def connected(scheduler):
    """A ``distributed.Client`` of ``scheduler`` (an address, or a client, used as it is and left open)."""
    from distributed import Client

    if not isinstance(scheduler, str):
        yield scheduler
        return
    client = Client(scheduler)
    try:
        yield client
    finally:
        client.close()


def check_workers(client, libraries=()) -> list[dict]:
    """Every worker's :func:`worker_environment`, after checking it against this process's; else an error.

    dask's own packages are checked too (``client.get_versions(check=True)``).

    Parameters
    ----------
    client : distributed.Client
    libraries : tuple of str
        As :func:`worker_environment`.

    Returns
    -------
    list of dict
        One environment per worker.

    Raises
    ------
    WorkerMismatchError
        No worker, or a worker with another prunelab version, code or library
        version, named by its host; or a worker that cannot fork.

    Examples
    --------
    >>> import distributed
    >>> with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
    ...     with distributed.Client(cluster) as client:
    ...         [env["prunelab"] == package_version() for env in check_workers(client)]
    [True]
    """
    client.get_versions(check=True)
    ours = worker_environment(libraries)
    theirs = list(client.run(worker_environment, libraries).values())
    if not theirs:
        raise WorkerMismatchError("the scheduler has no workers: start one with `dask worker ADDRESS`")
    for env in theirs:
        if problem := environment_mismatch(ours, env):
            raise WorkerMismatchError(problem)
    return theirs


def environment_mismatch(ours: dict, env: dict) -> str | None:
    """Why a worker's environment ``env`` cannot run this process's work (``ours``), or None.

    Examples
    --------
    >>> ours = worker_environment()
    >>> environment_mismatch(ours, ours) is None
    True
    >>> other = {**ours, "libraries": {**ours["libraries"], "numba": "0.1"}, "host": {"hostname": "node7"}}
    >>> environment_mismatch(ours, other).startswith("the worker on node7 has other versions of numba 0.1 (here")
    True
    """
    where = f"the worker on {env['host']['hostname']}"
    for key in _CHECKED:
        if env[key] != ours[key]:
            return (f"{where} runs {key} {env[key]}, this process {ours[key]}: install the same prunelab wheel on "
                    "every machine")
    differ = sorted(k for k in ours["libraries"] if env["libraries"].get(k) != ours["libraries"][k])
    if differ:
        pairs = ", ".join(f"{k} {env['libraries'].get(k)} (here {ours['libraries'][k]})" for k in differ)
        return (f"{where} has other versions of {pairs}: install the same versions (pip install -c "
                "constraints.txt) on every machine")
    if not env["can_fork"]:
        return (f"{where} is a daemon process, which cannot start the processes that cap a method or a count: "
                "start workers with DASK_DISTRIBUTED__WORKER__DAEMON=False in their environment, or with "
                "`dask worker ADDRESS --no-nanny`")
    return None


def _on_worker(fn, *args):
    """``(fn(*args), host_of())``: a task's answer and the machine that computed it."""
    return fn(*args), host_of()


def run_each(client, fn, items, *args):
    """``(fn(item, *args), host)`` of every item, computed on the cluster, yielded as each finishes.

    Closing the generator (a stopped sweep) cancels the tasks not yet finished.

    Examples
    --------
    >>> import distributed
    >>> with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
    ...     with distributed.Client(cluster) as client:
    ...         sorted(value for value, host in run_each(client, pow, [1, 2, 3], 2))
    [1, 4, 9]
    """
    from distributed import as_completed

    futures = [client.submit(_on_worker, fn, item, *args, pure=False) for item in items]
    try:
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.cancel([f for f in futures if not f.done()])


def _count_group(bn, evidence, variables, caps):
    from prunelab.circuit import count_inference
    from prunelab.compiled import compile_network

    net = compile_network(bn, evidence)
    return count_inference(bn.variables, net, [bn.index(v) for v in variables], **caps)


def count_marginals(bn, evidence, scheduler, variables=None, group_size: int = 8, **caps):
    """``log P(e)`` and the posteriors of ``variables``, counted on a cluster: one task per group of variables.

    Each task is :func:`prunelab.circuit.count_inference` of one group on a worker
    (one count of ``P(e)``, then the group's), so the answers are the ones a single
    call gives, digit for digit; ``P(e)`` is counted once per group.

    Parameters
    ----------
    bn : BayesianNetwork
    evidence : dict
        States by variable name.
    scheduler : str or distributed.Client
        The scheduler's address (``tcp://HOST:8786``) or a client.
    variables : sequence of str, optional
        Default every free variable.
    group_size : int, default 8
        Variables per task.
    **caps
        ``max_seconds``, ``max_bytes``, ``n_jobs`` of each call (per worker).

    Returns
    -------
    log_probability : float
    marginals : dict of str to numpy.ndarray
        In the order of ``variables``.

    Examples
    --------
    >>> import distributed
    >>> from prunelab import load_network
    >>> bn = load_network("asia")
    >>> with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
    ...     log_p, post = count_marginals(bn, {"dysp": "yes"}, cluster.scheduler_address, group_size=3)
    >>> round(float(post["bronc"][0]), 6), len(post)
    (0.833967, 7)
    """
    from prunelab.compiled import compile_network
    from prunelab.evidence import as_evidence

    evidence = as_evidence(evidence) or {}
    compile_network(bn, evidence)  # bad evidence is refused here, before any task
    free = [v for v in bn.variables if v not in evidence]
    variables = free if variables is None else list(variables)
    unknown = [v for v in variables if v not in free]
    if unknown:
        raise ValueError(f"{unknown[0]!r} is not a free variable of {bn.name or 'the network'}")
    if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 1:
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    groups = [variables[i:i + group_size] for i in range(0, len(variables), group_size)] or [[]]
    with connected(scheduler) as client:
        check_workers(client, ("pyganak",))
        futures = [client.submit(_count_group, bn, evidence, g, caps, pure=False) for g in groups]
        answers = client.gather(futures)
    log_p = answers[0][0]
    if any(other != log_p for other, _ in answers):
        raise WorkerMismatchError(f"the workers counted different P(e): {sorted({a for a, _ in answers})}")
    if log_p == -math.inf:
        return log_p, {}
    marginals = {}
    for _, post in answers:
        marginals.update(post)
    return log_p, {v: marginals[v] for v in variables}
