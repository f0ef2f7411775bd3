"""The paper's networks by name, and the frozen grids and evidence sets.

============================  =================================================
name                          what
============================  =================================================
``deterministic_pair``        Figure 1: ``A`` uniform, ``B = A``
``blood_pressure``            Figure 2, with the CPTs printed there
``block_chain``               ``X1 -> ... -> Xn``, 4 states, the block CPT
``asia``, ``alarm``,          the real-world networks, read from the BIF files
``win95pts``                  that the pgmpy wheel ships (no download)
``grid-3x3``, ``grid-5x5``,   Sang-Beame-Kautz grids with 50 % deterministic
``grid-8x8``                  nodes, frozen as UAI files in ``data/networks``
============================  =================================================
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import numpy as np

from .io import read_bif, read_uai
from .network import BayesianNetwork

__all__ = [
    "NETWORKS",
    "load_network",
    "load_evidence",
    "query_variable",
    "data_dir",
    "pgmpy_example_path",
    "frozen_network_path",
    "BLOCK_CHAIN_DEFAULT_LENGTH",
]

BLOCK_CHAIN_DEFAULT_LENGTH = 10
"""Default ``n`` of ``block_chain``; the paper does not state the length it used."""

PGMPY_NETWORKS = ("asia", "alarm", "win95pts")
GRIDS = ("grid-3x3", "grid-5x5", "grid-8x8")
NETWORKS = ("deterministic_pair", "blood_pressure", "block_chain", *PGMPY_NETWORKS, *GRIDS)
"""The names :func:`load_network` knows: the paper's toy networks, its pgmpy networks and its frozen grids."""

# The paper names the query variable for the toy networks and the grids (the sink);
# for the real-world networks it does not, so we choose a variable deep in each
# network, whose marginal depends on many others, and report all-variable averages too.
QUERY_VARIABLES = {
    "deterministic_pair": "A",
    "blood_pressure": "Measurement",
    "asia": "dysp",
    "alarm": "BP",
    "win95pts": "Problem1",
    "grid-3x3": "v_3_3",
    "grid-5x5": "v_5_5",
    "grid-8x8": "v_8_8",
}


def data_dir() -> Path:
    """The folder of frozen networks, evidence and results.

    ``$PRUNELAB_DATA`` when set; else the copy shipped inside an installed wheel
    (``prunelab/_data``); else the repository's ``data/`` beside the package (a
    checkout or an editable install).

    Examples
    --------
    >>> from prunelab.catalogue import data_dir
    >>> (data_dir() / "networks").is_dir()
    True
    """
    env = os.environ.get("PRUNELAB_DATA")
    if env:
        return Path(env)
    package = Path(__file__).resolve().parent
    shipped = package / "_data"
    return shipped if shipped.is_dir() else package.parent / "data"


def pgmpy_example_path(name: str) -> Path:
    """Path of a BIF file shipped inside the installed pgmpy wheel."""
    ref = resources.files("pgmpy") / "utils" / "example_models" / f"{name}.bif.gz"
    path = Path(str(ref))
    if not path.exists():
        raise FileNotFoundError(f"pgmpy does not ship {name}.bif.gz (looked at {path})")
    return path


def frozen_network_path(name: str) -> Path:
    """Path of a frozen network (``data/networks/<name>.uai``).

    Examples
    --------
    >>> from prunelab.catalogue import frozen_network_path
    >>> path = frozen_network_path("grid-3x3")
    >>> path.name, path.is_file()
    ('grid-3x3.uai', True)
    """
    return data_dir() / "networks" / f"{name}.uai"


def _deterministic_pair() -> BayesianNetwork:
    return BayesianNetwork(
        states={"A": ["0", "1"], "B": ["0", "1"]},
        parents={"A": [], "B": ["A"]},
        cpts={"A": [0.5, 0.5], "B": [[1.0, 0.0], [0.0, 1.0]]},
        name="deterministic_pair",
    )


def _blood_pressure() -> BayesianNetwork:
    # Figure 2 of the paper; state names as printed there, in CPT order.
    return BayesianNetwork(
        states={
            "Kidney": ["k_b", "k_g"],
            "Lifestyle": ["l_b", "l_g"],
            "BloodPressure": ["b_n", "b_e"],
            "Sports": ["s_n", "s_y"],
            "Measurement": ["m_n", "m_e"],
        },
        parents={
            "BloodPressure": ["Kidney", "Lifestyle"],
            "Sports": ["Lifestyle"],
            "Measurement": ["BloodPressure"],
        },
        cpts={
            "Kidney": [0.5, 0.5],
            "Lifestyle": [0.5, 0.5],
            "BloodPressure": [[[0.1, 0.9], [0.2, 0.8]], [[0.2, 0.8], [0.9, 0.1]]],
            "Sports": [[0.8, 0.2], [0.2, 0.8]],
            "Measurement": [[0.9, 0.1], [0.1, 0.9]],
        },
        name="blood_pressure",
    )


BLOCK_CPT = np.array(
    [[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.5, 0.5]]
)
"""The paper's block-shaped CPT, ``BLOCK_CPT[x_prev, x]`` = P(X_i = x | X_{i-1} = x_prev)."""


def _block_chain(n: int = BLOCK_CHAIN_DEFAULT_LENGTH) -> BayesianNetwork:
    if int(n) != n or n < 2:
        raise ValueError(f"block_chain needs n >= 2 variables, got {n!r}")
    names = [f"X{i}" for i in range(1, n + 1)]
    states = {v: ["0", "1", "2", "3"] for v in names}
    parents = {v: ([names[k - 1]] if k else []) for k, v in enumerate(names)}
    cpts = {v: (np.full(4, 0.25) if k == 0 else BLOCK_CPT) for k, v in enumerate(names)}
    return BayesianNetwork(states=states, parents=parents, cpts=cpts, name="block_chain")


def load_network(name: str, **kwargs) -> BayesianNetwork:
    """Load one of the paper's networks by name.

    Parameters
    ----------
    name : str
        One of :data:`NETWORKS`: ``"deterministic_pair"``, ``"blood_pressure"``,
        ``"block_chain"``, ``"asia"``, ``"alarm"``, ``"win95pts"``,
        ``"grid-3x3"``, ``"grid-5x5"``, ``"grid-8x8"``.
    **kwargs
        ``n`` for ``block_chain`` (default :data:`BLOCK_CHAIN_DEFAULT_LENGTH`).

    Returns
    -------
    BayesianNetwork

    References
    ----------
    F. Phillipson, J. Parie and R. Weikamp, "Prune Sampling: a MCMC inference
    technique for discrete and deterministic Bayesian networks", 2017.

    Examples
    --------
    >>> from prunelab import load_network
    >>> load_network("alarm").n_variables
    37
    >>> load_network("block_chain", n=3).variables
    ('X1', 'X2', 'X3')
    """
    if name == "block_chain":
        return _block_chain(**kwargs)
    if kwargs:
        raise TypeError(f"network {name!r} takes no options, got {sorted(kwargs)}")
    if name == "deterministic_pair":
        return _deterministic_pair()
    if name == "blood_pressure":
        return _blood_pressure()
    if name in PGMPY_NETWORKS:
        # the files print probabilities to few digits (rows of alarm sum to 1 +- 1e-7):
        # rescale rows so that every method answers exactly the same question
        return read_bif(pgmpy_example_path(name), name=name, normalize=True)
    if name in GRIDS:
        return read_uai(frozen_network_path(name), name=name)
    raise KeyError(f"unknown network {name!r}; the catalogue has {list(NETWORKS)}")


def query_variable(name: str) -> str:
    """The variable whose marginal the book's indicators follow for network ``name``.

    Examples
    --------
    >>> from prunelab import query_variable
    >>> query_variable("asia"), query_variable("block_chain")
    ('dysp', 'X10')
    """
    if name == "block_chain":
        return f"X{BLOCK_CHAIN_DEFAULT_LENGTH}"
    try:
        return QUERY_VARIABLES[name]
    except KeyError:
        raise KeyError(f"no query variable for {name!r}; known: {sorted(QUERY_VARIABLES)}") from None


def load_evidence(name: str, fraction: float = 0.25) -> dict[str, str]:
    """The frozen evidence set of network ``name`` (``data/evidence/<name>-<pct>.json``).

    Examples
    --------
    >>> from prunelab import load_evidence
    >>> sorted(load_evidence("asia"))
    ['lung', 'tub']
    """
    pct = int(round(100 * fraction))
    path = data_dir() / "evidence" / f"{name}-{pct}.json"
    if not path.exists():
        raise FileNotFoundError(f"no frozen evidence for {name!r} at {pct} %: {path} does not exist")
    return json.loads(path.read_text())["evidence"]
