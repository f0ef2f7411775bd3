"""Freeze the book's generated networks and evidence sets into data/ (run from the repository root).

    python data/make_networks.py

The work is :mod:`prunelab.lab.experiments.inputs`: data/networks/grid-{3x3,5x5,8x8}.uai
(+ names and provenance sidecars) and data/evidence/{asia,alarm,win95pts}-25.json, each
with its provenance in the one schema's keys.
"""

from prunelab.lab.experiments.inputs import main

if __name__ == "__main__":
    main()
