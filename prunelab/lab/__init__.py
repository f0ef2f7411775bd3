"""The book's lab: experiments, peers, the scorecard, plots and chapter helpers around the library.

Everything here serves the book (``notebooks/``): it runs the library
(:func:`prunelab.sample`, :mod:`prunelab.indicators`, :mod:`prunelab.exact`) many times,
freezes the results in ``data/``, and turns them into the chapters' tables and figures.
The library never imports the lab (``tests/core/test_layout.py`` checks it), so a user of the
samplers needs none of it, nor its extras (``experiments``, ``plots``, ``peers``).

=======================  ==============================================================
subpackage or module     job
=======================  ==============================================================
``experiments``          every frozen result: one framework (sweep, store, reader), the
                         paper's sweep, its tables and Tables 2-3 beside the paper's
``experiments.large``    prune sampling on every pgmpy network, its peers, grids
``peers``                pgmpy, pyAgrum and PyMC samplers on prunelab networks (their
                         comparison is the experiment ``experiments.peers``)
``ahd``                  AHD(t) over runs from ``curves.parquet`` (Figure 5's tables)
``paper_numbers``        every transcription of the paper: Tables 1-3, Figure 2's
                         pruning, Figure 6's grid, the benchmark groups of its claims
``mixing``               the one "did not mix" verdict of a case (mark and reason)
``scorecard``            each figure, table and claim of the paper beside ours
``headline``             the scorecard's rows in one call, and its per-draw headline
``plots``                the book's figures and the display of its tables
``notebook``             what every chapter calls: setup, glue, watermark
``registry``             our samplers (from ``prunelab.samplers``' registry) and prune's uniform draws
=======================  ==============================================================

Examples
--------
>>> from prunelab.lab.paper_numbers import PAPER_ALPHA
>>> PAPER_ALPHA["grid-8x8"]["prune"] > 0
True
"""
