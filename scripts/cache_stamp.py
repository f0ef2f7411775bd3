#!/usr/bin/env python3
"""Keep only executed notebooks that are still valid in the book's execution cache.

Two things can make a cached execution wrong, and ``make book`` runs this script
before every build to remove both:

1. **The code the notebooks run changed.** jupyter-cache (Jupyter Book's
   ``execute_notebooks: cache``) keys a notebook only on its own code cells, so a
   change in ``prunelab/`` would leave the old outputs in the book. A stamp covers
   what the notebooks depend on besides their own cells:

   - every ``prunelab/**/*.py`` file (path and content),
   - ``pyproject.toml`` (the dependencies),
   - every file under ``data/`` (frozen results and network files chapters load),
   - the profile (``PROFILE``, passed to chapters as ``PRUNELAB_PROFILE``).

   When it differs from the stamp stored in the build folder, the execution cache
   *and* Sphinx's doctrees go (otherwise Sphinx would not re-read, hence not
   re-execute, an unchanged notebook).

2. **An execution that failed the site check.** ``scripts/check_site.py`` rejects a
   page with stderr output or an error, but the execution that produced it is
   already cached; rebuilding would replay it for ever, even once its cause has gone
   (a library notice printed once a day, a full disk). Every cached notebook with a
   ``stderr`` stream or an ``error`` output is removed, with the doctrees, so the
   next build executes it again.

Usage::

    python scripts/cache_stamp.py --profile paper [--build-dir _build]
    python scripts/cache_stamp.py --print --profile paper   # only print the stamp

Step 1 uses only the standard library; step 2 reads the cache with jupyter-cache
(the ``book`` extra), and has nothing to do when there is no cache yet.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAMP_NAME = ".prunelab-cache-stamp"
CACHE_NAME = ".jupyter_cache"
DOCTREES_NAME = ".doctrees"
# What the stamp wipes, relative to the build folder.
WIPED = (CACHE_NAME, DOCTREES_NAME, "jupyter_execute")


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


def failed_outputs(nb) -> list[str]:
    """One line for each stderr stream or error output of a notebook (a dict or NotebookNode)."""
    found = []
    for index, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"cell {index}: {out.get('ename', 'error')}: {out.get('evalue', '')}"[:160])
            elif out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out.get("text", ""))
                found.append(f"cell {index}: stderr: {text.strip().splitlines()[0] if text.strip() else ''}"[:160])
    return found


def purge_failed(build_dir: Path) -> list[str]:
    """Remove cached executions with stderr or error outputs; return their notebook paths.

    When any is removed, Sphinx's doctrees go too, so that Sphinx re-reads every page
    (a page whose execution is still cached only reloads it) and the removed
    notebooks execute again.
    """
    cache_dir = build_dir / CACHE_NAME
    if not cache_dir.is_dir():
        return []
    from jupyter_cache import get_cache

    cache = get_cache(cache_dir)
    removed = []
    for record in cache.list_cache_records():
        problems = failed_outputs(cache.get_cache_bundle(record.pk).nb)
        if problems:
            cache.remove_cache(record.pk)
            removed.append(record.uri)
            print(f"cache: {record.uri} was cached with {len(problems)} failed output(s) "
                  f"({problems[0]}): it will execute again")
    if removed:
        shutil.rmtree(build_dir / DOCTREES_NAME, ignore_errors=True)
    return removed


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
    purge_failed(args.build_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
