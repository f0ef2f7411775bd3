"""A sweep that cannot finish until the test lets it: for the tests that interrupt a CLI sweep.

:func:`run_cli` runs ``python -m prunelab ...`` with the paper sweep's ``run``
replaced by :func:`gated_run`: run 0 of every case is computed at once, every other
run waits until the file named by ``$PRUNELAB_TEST_GATE`` exists. A test
starts the command in a subprocess, waits for the first run file, and signals the
process: the sweep is then still running however loaded the machine is, because it
cannot end before the gate opens (and the test never opens it). A forgotten gate
ends with an error after :data:`GATE_LIMIT_SECONDS`, never with a finished sweep.

Run it as ``python -c "import sys; from tests.gated_sweep import run_cli; sys.exit(run_cli(sys.argv[1:]))" ARGS``;
the loky workers import this module by name (the repository root must be on ``PYTHONPATH``).

:func:`hold_site` writes a ``sitecustomize`` that holds the first loky worker inside
Python's start-up (before loky or prunelab is imported) until the test releases it:
a signal sent meanwhile reaches a worker that is provably still starting.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from prunelab.__main__ import main
from prunelab.lab.experiments import framework
from prunelab.lab.experiments.paper import PAPER, _Paper

GATE_ENV = "PRUNELAB_TEST_GATE"
"""Environment variable naming the gate file."""

GATE_LIMIT_SECONDS = 900.0
"""A run waiting longer than this for its gate raises (a test that hung would otherwise hang forever)."""

def gated_run(run, profile, root_seed):
    """The paper sweep's ``run`` for run 0 of a case; any other run first waits for the gate file."""
    framework.quiet_worker()
    if run.index > 0:
        gate = Path(os.environ[GATE_ENV])
        limit = time.monotonic() + GATE_LIMIT_SECONDS
        while not gate.exists():
            if time.monotonic() > limit:
                raise RuntimeError(f"gate {gate} never opened")
            time.sleep(0.05)
    return _Paper.run(PAPER, run, profile, root_seed)


HOLD_ENV = "PRUNELAB_TEST_HOLD"
"""Environment variable naming the folder of :func:`hold_site`'s ``held`` and ``release`` files."""

_HOLD_SITE = f'''"""Written by tests/gated_sweep.py: the first loky worker to start waits here, inside Python's start-up."""
import os
import sys
import time

if "popen_loky" in " ".join(sys.orig_argv) and os.environ.get("{HOLD_ENV}"):
    folder = os.environ["{HOLD_ENV}"]
    try:  # only the first worker: the file is made once
        os.close(os.open(os.path.join(folder, "held"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        pass
    else:
        limit = time.monotonic() + {GATE_LIMIT_SECONDS!r}
        while not os.path.exists(os.path.join(folder, "release")) and time.monotonic() < limit:
            time.sleep(0.05)
'''


def hold_site(folder: Path) -> Path:
    """Write ``folder/site/sitecustomize.py`` that holds the first loky worker at start-up; return ``folder/site``.

    Put the returned folder on ``PYTHONPATH`` and :data:`HOLD_ENV` = ``folder`` in the
    environment: the first loky worker to start creates ``folder/held`` and waits, inside
    Python's start-up, until ``folder/release`` exists. Other processes are left alone.
    """
    site = Path(folder) / "site"
    site.mkdir(parents=True)
    (site / "sitecustomize.py").write_text(_HOLD_SITE, encoding="utf-8")
    return site


def run_cli(argv) -> int:
    """``prunelab.__main__.main(argv)`` with every run but the first of each case held at the gate."""
    # a process started in the background of a shell without job control inherits SIGINT ignored, and
    # Python then installs no KeyboardInterrupt handler: restore it, so the test does not depend on how
    # the suite was started
    signal.signal(signal.SIGINT, signal.default_int_handler)
    PAPER.run = gated_run  # the workers are sent this function, by name
    return main(list(argv))
