#!/usr/bin/env python3
"""Does the core install where users are? Resolve its dependencies for other platforms against PyPI.

Run (CI runs it before ``make test``; it needs PyPI, nothing else)::

    .venv/bin/python scripts/check_platforms.py            # the platforms below, and the Binder environment
    .venv/bin/python scripts/check_platforms.py --extras   # also say, per platform, which extras resolve

For each platform, ``pip install --dry-run --ignore-installed --only-binary=:all:
--platform ... --python-version ...`` resolves the ``dependencies`` of
``pyproject.toml`` (read here, so that the project itself need not be built for a
foreign platform): wheels only, as a user without a compiler gets them. A manylinux
platform is given with every older glibc tag too (pip matches ``--platform`` tags
exactly; a machine with glibc 2.28 also runs manylinux_2_17 wheels), and macOS tags
are widened by pip itself. The check fails when the core does not resolve on one of
them. ``--extras`` reports each optional extra as well, for information: the narrow
ones (``counter``: pyganak; ``solvers``) are expected to fail on some platforms.

The Binder environment (``binder/requirements.txt``: the ``chapters`` extra with the
book's pinned versions, and jupytext) is resolved for this machine, as Binder builds
it on Linux x86_64 with the Python of ``binder/runtime.txt``; the check says so when
this interpreter is another version.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _manylinux(glibc_minor: int, arch: str) -> list[str]:
    """The manylinux tags a Linux machine with glibc ``2.glibc_minor`` on ``arch`` accepts, newest first."""
    tags = [f"manylinux_2_{m}_{arch}" for m in range(glibc_minor, 16, -1)] + [f"manylinux2014_{arch}"]
    return tags + ([f"manylinux2010_{arch}", f"manylinux1_{arch}"] if arch == "x86_64" else [])


# (name, pip --platform tags, Python version)
PLATFORMS = [
    ("Windows x86_64, Python 3.12", ["win_amd64"], "3.12"),
    ("macOS 10.13+ Intel, Python 3.12", ["macosx_10_13_x86_64"], "3.12"),
    ("Linux aarch64 (glibc 2.28), Python 3.12", _manylinux(28, "aarch64"), "3.12"),
    ("Linux x86_64 (glibc 2.28), Python 3.13", _manylinux(28, "x86_64"), "3.13"),
]


def requirements(extra: str | None = None, project: dict | None = None) -> list[str]:
    """The requirements of the core (``extra=None``) or of one extra, with ``prunelab[...]`` expanded.

    Examples
    --------
    >>> project = {"name": "p", "dependencies": ["a>=1"],
    ...            "optional-dependencies": {"x": ["b"], "y": ["p[x]", "c<2"]}}
    >>> requirements(None, project), requirements("y", project)
    (['a>=1'], ['b', 'c<2'])
    """
    project = project or tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if extra is None:
        return list(project["dependencies"])
    out: list[str] = []
    for req in project["optional-dependencies"][extra]:
        own = re.fullmatch(rf"{re.escape(project['name'])}\[([\w,\s-]+)\]", req.strip())
        if own:
            for sub in own[1].split(","):
                out += [r for r in requirements(sub.strip(), project) if r not in out]
        elif req not in out:
            out.append(req)
    return out


def resolve(args: list[str], platforms: list[str] | None = None, python: str | None = None) -> tuple[bool, str]:
    """``pip install --dry-run`` of ``args``: whether it resolved, and the packages (or pip's last error line)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                   "--disable-pip-version-check", "--report", str(report)]
        if platforms:
            command += ["--only-binary=:all:", "--python-version", python]
            for tag in platforms:
                command += ["--platform", tag]
        done = subprocess.run(command + args, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
            return False, (errors or done.stderr.strip().splitlines() or ["pip failed"])[0]
        installed = json.loads(report.read_text(encoding="utf-8"))["install"]
    return True, f"{len(installed)} packages"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extras", action="store_true", help="also resolve each optional extra (information)")
    parser.add_argument("--no-binder", action="store_true", help="skip the Binder environment")
    args = parser.parse_args(argv)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = ["circuit", "counter", "solvers", "experiments", "chapters"] if args.extras else []
    failed = []
    for name, platforms, python in PLATFORMS:
        ok, what = resolve(requirements(None, project), platforms, python)
        print(f"check_platforms: {name}: core {'resolves' if ok else 'FAILS'} ({what})", flush=True)
        if not ok:
            failed.append(name)
        for extra in extras:
            ok_extra, what = resolve(requirements(extra, project), platforms, python)
            print(f"check_platforms:     [{extra}] {'resolves' if ok_extra else 'does not resolve'} ({what})",
                  flush=True)
    if not args.no_binder:
        runtime = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()
        here = f"python-{sys.version_info.major}.{sys.version_info.minor}"
        ok, what = resolve(["-r", "binder/requirements.txt"])
        note = "" if here == runtime else f"; resolved with {here}, Binder uses {runtime}"
        print(f"check_platforms: Binder environment: {'resolves' if ok else 'FAILS'} ({what}{note})", flush=True)
        if not ok:
            failed.append("Binder")
    if failed:
        print(f"check_platforms: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
