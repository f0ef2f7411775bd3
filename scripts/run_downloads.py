#!/usr/bin/env python3
"""Run every downloadable chapter notebook as a teacher would: on its own.

The book offers each chapter as a plain ``.ipynb`` (``_build/html/_sources/...``,
written by ``scripts/ipynb_download.py``). This script checks that each one executes
with nothing but ``prunelab`` installed:

1. build a wheel of this checkout (which carries the frozen data, see ``setup.py``);
2. make a new virtual environment outside the repository and install that wheel with
   its ``chapters`` extra only (no ``book``, ``test`` or ``peers`` extra), plus the
   Jupyter kernel and ``nbclient`` that run it. The versions are held to those of
   ``.venv`` (``pip freeze`` as constraints), so the run measures the notebooks, not
   a new resolution;
3. copy each notebook into an empty folder and execute it there, in that
   environment, with no ``PYTHONPATH`` and no ``PRUNELAB_DATA``, at the profile the
   reader gets by default (``paper``: heavy figures read the frozen results) unless
   ``--profile`` says otherwise.

A notebook fails if a cell raises, or if any cell writes to stderr (the book treats
stderr as an error too). Prints one line per chapter with its execution time; exits 1
if any failed.

Usage::

    python scripts/run_downloads.py [--html _build/html] [--work DIR] [--profile smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside the new environment: executes one notebook, prints a JSON verdict.
EXECUTOR = r'''
import json, re, sys, time
from pathlib import Path

import nbformat
import prunelab
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

path, timeout = Path(sys.argv[1]), int(sys.argv[2])
if "site-packages" not in prunelab.__file__:
    sys.exit(f"prunelab was imported from {prunelab.__file__}, not from the installed wheel")
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                        resources={"metadata": {"path": str(path.parent)}})
problems = []
start = time.perf_counter()
try:
    client.execute()
except CellExecutionError as exc:
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    problems.append(message.splitlines()[-1][:300])
seconds = time.perf_counter() - start
for index, cell in enumerate(nb.cells):
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            problems.append(f"cell {index} wrote to stderr: {output.get('text', '').strip()[:300]!r}")
nbformat.write(nb, path.with_suffix(".executed.ipynb"))
print(json.dumps({"seconds": seconds, "problems": problems}))
'''


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command, raising with its output when it fails."""
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(f"run_downloads: {' '.join(cmd)} failed:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result


def constraints(python: str) -> str:
    """``pip freeze`` of the project's environment, without prunelab itself."""
    frozen = run([python, "-m", "pip", "freeze", "--exclude-editable"]).stdout.splitlines()
    return "\n".join(line for line in frozen if line and not line.lower().startswith("prunelab")) + "\n"


def make_environment(work: Path, project_python: str) -> Path:
    """Build the wheel and install it with its ``chapters`` extra (no book, test or peers) into ``work/venv``."""
    wheels = work / "wheel"
    run([project_python, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(ROOT)])
    (wheel,) = sorted(wheels.glob("prunelab-*.whl"))
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    pins = work / "constraints.txt"
    pins.write_text(constraints(project_python), encoding="utf-8")
    run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-c", str(pins), f"{wheel}[chapters]", "ipykernel", "nbclient", "nbformat"])
    return python


def downloads(html: Path) -> list[Path]:
    """The chapter notebooks the site offers, in toc order."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from ipynb_download import notebook_pages

    return [html / "_sources" / f"{docname}.ipynb" for docname in notebook_pages(ROOT)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--work", type=Path, default=None, help="working folder (default: a new temporary one)")
    parser.add_argument("--profile", default=None, help="PRUNELAB_PROFILE for the run (default: unset, i.e. paper)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds allowed per cell")
    args = parser.parse_args(argv)

    notebooks = downloads(args.html.resolve())
    missing = [str(p) for p in notebooks if not p.is_file()]
    if missing:
        print("run_downloads: build the book first; missing: " + ", ".join(missing))
        return 1
    work = args.work or Path(tempfile.mkdtemp(prefix="prunelab-downloads-"))
    work = work.resolve()
    if ROOT in work.parents or work == ROOT:
        raise SystemExit(f"run_downloads: --work must be outside the repository, not {work}")
    started = time.perf_counter()
    python = make_environment(work, sys.executable)
    print(f"run_downloads: prunelab wheel installed with its chapters extra in {work / 'venv'} "
          f"({time.perf_counter() - started:.0f} s)")
    (work / "executor.py").write_text(EXECUTOR, encoding="utf-8")

    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PRUNELAB_DATA", "PRUNELAB_PROFILE"}}
    if args.profile:
        env["PRUNELAB_PROFILE"] = args.profile
    failures = 0
    for source in notebooks:
        folder = work / "run" / source.stem
        folder.mkdir(parents=True, exist_ok=True)
        notebook = folder / source.name
        notebook.write_bytes(source.read_bytes())
        result = subprocess.run([str(python), str(work / "executor.py"), str(notebook), str(args.timeout)],
                                capture_output=True, text=True, cwd=folder, env=env)
        if result.returncode != 0:
            verdict = {"seconds": float("nan"), "problems": [(result.stderr or result.stdout).strip()[-500:]]}
        else:
            verdict = json.loads(result.stdout.strip().splitlines()[-1])
        status = "ok" if not verdict["problems"] else "FAILED"
        print(f"  {source.stem:<16} {verdict['seconds']:7.1f} s  {status}")
        for problem in verdict["problems"]:
            print(f"      {problem}")
        failures += bool(verdict["problems"])
    profile = args.profile or "paper (default)"
    print(f"run_downloads: {len(notebooks) - failures}/{len(notebooks)} chapter notebooks ran on their own "
          f"at profile {profile}; {time.perf_counter() - started:.0f} s in all; executed copies in {work / 'run'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
