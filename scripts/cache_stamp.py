#!/usr/bin/env python3
"""Drop the book's execution cache when the code the notebooks run has changed.

jupyter-cache (Jupyter Book's ``execute_notebooks: cache``) keys a notebook only on
its own code cells. A change in ``prunelab/`` therefore leaves the old outputs in the
book. This script computes a stamp over what the notebooks depend on besides their
own cells:

- every ``prunelab/**/*.py`` file (path and content),
- ``pyproject.toml`` (the dependencies),
- every file under ``data/`` (frozen results and network files chapters load),
- the profile (``PROFILE``, passed to chapters as ``PRUNELAB_PROFILE``),

and compares it with the stamp stored in the build folder. When they differ it
removes the execution cache *and* Sphinx's doctrees (otherwise Sphinx would not
re-read, hence not re-execute, an unchanged notebook), then stores the new stamp.

Usage::

    python scripts/cache_stamp.py --profile paper [--build-dir _build]
    python scripts/cache_stamp.py --print --profile paper   # only print the stamp

Uses only the standard library: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAMP_NAME = ".prunelab-cache-stamp"
# What the stamp wipes, relative to the build folder.
WIPED = (".jupyter_cache", ".doctrees", "jupyter_execute")


def inputs(root: Path = ROOT) -> list[Path]:
    """The files the stamp covers, sorted so the stamp does not depend on listing order."""
    files = sorted((root / "prunelab").rglob("*.py"))
    files += [root / "pyproject.toml"]
    data = root / "data"
    if data.is_dir():
        files += sorted(p for p in data.rglob("*") if p.is_file())
    return [p for p in files if p.is_file() and "__pycache__" not in p.parts]


def compute_stamp(profile: str, root: Path = ROOT) -> str:
    """SHA-256 over (relative path, content) of every input, plus the profile."""
    h = hashlib.sha256()
    h.update(f"profile={profile}\n".encode())
    for path in inputs(root):
        rel = path.relative_to(root).as_posix()
        h.update(f"{rel}\0".encode())
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


def refresh(build_dir: Path, profile: str, root: Path = ROOT) -> bool:
    """Wipe the cache if the stamp changed; return True if it was wiped."""
    new = compute_stamp(profile, root)
    stamp_file = build_dir / STAMP_NAME
    old = stamp_file.read_text().strip() if stamp_file.is_file() else None
    if old == new:
        print(f"cache stamp unchanged ({new[:12]}, profile {profile}): keeping executed notebooks")
        return False
    reason = "no stamp yet" if old is None else f"stamp {old[:12]} -> {new[:12]}"
    for name in WIPED:
        target = build_dir / name
        if target.exists():
            shutil.rmtree(target)
    build_dir.mkdir(parents=True, exist_ok=True)
    stamp_file.write_text(new + "\n")
    print(
        f"cache stamp changed ({reason}, profile {profile}): "
        f"removed {', '.join(WIPED)} under {build_dir}; every notebook will execute"
    )
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", required=True, help="the book profile (paper, smoke, ...)")
    parser.add_argument("--build-dir", type=Path, default=ROOT / "_build")
    parser.add_argument("--print", action="store_true", help="print the stamp and exit")
    args = parser.parse_args(argv)
    if args.print:
        print(compute_stamp(args.profile))
        return 0
    refresh(args.build_dir, args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
