#!/usr/bin/env python3
"""Execute the book's chapters side by side into Jupyter Book's execution cache.

Jupyter Book 1 executes notebooks one after another, on one core; the chapters do
not depend on each other (each runs on its own as a download, ``make downloads``),
so ``make book`` runs this script first: every chapter whose execution is not
cached yet runs in its own kernel, as many at once as the machine has cores, and
each finished one goes into the cache Jupyter Book reads (``_build/.jupyter_cache``)
under the key Jupyter Book itself computes: the notebook is read with MyST-NB's
reader and the book's own MyST settings, so the build finds every chapter executed
and only renders it. A chapter that fails is not cached: the build runs it again
and reports its error as it always does.

The execution is the build's own: the kernel named by the chapter, its folder as
the working directory, the ``timeout`` and ``allow_errors`` of ``_config.yml``,
and the environment ``make book`` sets (``PRUNELAB_PROFILE``). What is cached is
what Jupyter Book would have cached; ``scripts/cache_stamp.py`` (run before this)
still drops what is stale or failed.

Usage::

    python scripts/execute_chapters.py --book . [--build-dir _build] notebooks/*.md [--jobs N]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from cache_stamp import CACHE_NAME  # scripts/ is this script's import path


def book_settings(book: Path, build_dir: Path) -> tuple[object, dict]:
    """The MyST parser settings and the execution settings Jupyter Book derives from ``_config.yml``."""
    from jupyter_book.config import get_final_config
    from myst_parser.config.main import MdParserConfig

    config, _ = get_final_config(user_yaml=book / "_config.yml", cli_config={"latex_individualpages": False},
                                 sourcedir=book, use_external_toc=True)
    fields = {f.name for f in dataclasses.fields(MdParserConfig)}
    md = MdParserConfig(**{k[len("myst_"):]: v for k, v in config.items()
                           if k.startswith("myst_") and k[len("myst_"):] in fields})
    if config.get("nb_execution_in_temp"):
        raise SystemExit("execute_chapters: run_in_temp is set in _config.yml; chapters run in their own folder here")
    cache = config.get("nb_execution_cache_path") or str(build_dir / CACHE_NAME)  # MyST-NB's default
    return md, {"cache": cache, "timeout": config.get("nb_execution_timeout", 30),
                "allow_errors": config.get("nb_execution_allow_errors", False)}


def read_chapter(path: Path, md) -> object:
    """The chapter as MyST-NB reads it (the same cells, metadata and so the same cache key)."""
    from myst_nb.core.read import read_myst_markdown_notebook

    return read_myst_markdown_notebook(path.read_text(encoding="utf-8"), md, add_source_map=True, path=path)


def _execute(path: str, md, timeout: int, allow_errors: bool) -> tuple[str, object, float, str | None]:
    from jupyter_cache.executors.utils import single_nb_execution

    nb = read_chapter(Path(path), md)
    result = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=allow_errors,
                                 meta_override=True)
    error = None if result.err is None else f"{type(result.err).__name__}: {str(result.err).splitlines()[0][:200]}"
    return path, nb, result.time, error


def code_lines(path: Path) -> int:
    """Lines inside the chapter's code cells: a rough order of how long it runs.

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "page.md"
    >>> _ = page.write_text("# T\\n```{code-cell} ipython3\\nx = 1\\ny = 2\\n```\\nprose\\n")
    >>> code_lines(page)
    2
    """
    inside, count = False, 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = line.startswith("```{code-cell}")
        elif inside:
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="+", type=Path, help="the chapters (MyST markdown notebooks)")
    parser.add_argument("--book", type=Path, default=Path("."), help="the book's folder (holds _config.yml)")
    parser.add_argument("--build-dir", type=Path, default=None, help="the build folder (default: BOOK/_build)")
    parser.add_argument("--jobs", type=int, default=None, help="chapters at once (default: usable cores)")
    args = parser.parse_args(argv)

    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    from prunelab.workers import usable_cores

    book = args.book.resolve()
    md, settings = book_settings(book, (args.build_dir or book / "_build").resolve())
    cache = get_cache(settings["cache"])
    todo = []
    for path in args.chapters:
        path = path.resolve()
        try:
            cache.match_cache_notebook(read_chapter(path, md))
        except KeyError:
            todo.append(path)
    if not todo:
        print(f"execute_chapters: all {len(args.chapters)} chapter(s) already executed and cached")
        return 0
    jobs = max(1, min(args.jobs or usable_cores(), len(todo)))
    todo.sort(key=code_lines, reverse=True)  # longest first: the last to start are the short ones
    print(f"execute_chapters: {len(todo)} of {len(args.chapters)} chapter(s) to execute, {jobs} at once")
    start, failed = time.perf_counter(), []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_execute, str(p), md, settings["timeout"], settings["allow_errors"]) for p in todo]
        for future in as_completed(futures):
            path, nb, seconds, error = future.result()
            name = Path(path).relative_to(book).as_posix()
            if error is not None:
                failed.append(name)
                print(f"execute_chapters: {name} failed after {seconds:.1f} s ({error}); not cached, "
                      f"the build runs it again and shows the error")
                continue
            cache.cache_notebook_bundle(CacheBundleIn(nb, path, data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            print(f"execute_chapters: {name} executed in {seconds:.1f} s")
    print(f"execute_chapters: {len(todo) - len(failed)} cached, {len(failed)} failed, "
          f"in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
