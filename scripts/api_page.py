#!/usr/bin/env python3
"""The book's API pages, rendered from the docstrings: what they document, how they are written and checked.

The pages (:data:`PAGES`: ``book/api/<group>.md`` for the library, ``book/api_lab/<group>.md``
for ``prunelab.lab``, each a section of its landing page ``book/api.md`` or ``book/api_lab.md``
in ``_toc.yml``) document every public name of ``prunelab`` (its ``__all__``) and every
``prunelab`` function and class a chapter or an exercise calls (:func:`chapter_calls`:
the calls in the chapters' code cells, their imports followed, so ``from
prunelab.indicators import sigma_t`` then ``sigma_t(...)`` is
``prunelab.indicators.sigma_t``). An object reached by two names (``prunelab.fit_alpha``
is ``prunelab.indicators.fit_alpha``) is documented once, under the shorter public name
(:func:`page_entries`). Each module's part is an autosummary table (a name and the first
line of its docstring) above the full entries (``autofunction``, ``autoclass`` with the
public members, ``autoexception``, ``autodata``), which Sphinx renders from the numpydoc
docstrings (``sphinx.ext.napoleon``).

One mapping, :data:`MODULE_PAGES`, puts each module on its page (:func:`page_of`); a name
of the package itself (``prunelab.sample``) goes with the module ``prunelab/__init__.py``
imports it from (``prunelab.sampling``, :func:`home`), so the heading ``prunelab`` is on
several pages, each holding some of its names. A module the mapping does not name is an
error that names it, so a new module cannot land on no page. ``--write`` writes every
page (:func:`write_pages`: headers from :data:`PAGES`, the landing pages' prose kept and
their lists of pages written again); :func:`problems` also checks that every page is
listed by its landing page and sits in the toc's sections under it.

This file is also the book's Sphinx extension for the pages (``_config.yml``,
``local_extensions``): a documented object without a docstring, or a function or class
whose docstring has no ``Examples`` section (:func:`without_example`), is a warning, which
``-W`` makes an error (:func:`docstring_problem`).
The tests compare :func:`documented` of the pages with :func:`page_entries` of the chapters,
so a call a chapter adds must be on a page, and a name no chapter calls and ``__all__``
does not hold goes::

    python scripts/api_page.py          # what the pages miss, what is stale or misplaced, what lacks
                                        # a docstring or Examples
    python scripts/api_page.py --write  # write every page again from the chapters (the landing pages' prose is kept)
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = ROOT / "book" / "api.md"  # the landing pages: their prose, then the list of their pages
LAB_PAGE = ROOT / "book" / "api_lab.md"
LANDINGS = (API_PAGE, LAB_PAGE)
# Every page of the API: the file, under the landing page of the same name -> its title and its opening sentence.
PAGES: dict[Path, tuple[str, str]] = {
    ROOT / "book" / "api" / "networks.md": (
        "Networks, files and the catalogue",
        "The network, its files, the paper's networks by name, the grids, random evidence and smoothing."),
    ROOT / "book" / "api" / "sampling.md": (
        "Sampling: `sample` and its result",
        "`prunelab.sample`, its result and its trap warning, the checkpoints and the initial states."),
    ROOT / "book" / "api" / "samplers.md": (
        "The samplers",
        "Gibbs, MC-SAT and prune sampling: the samplers behind `prunelab.sample`."),
    ROOT / "book" / "api" / "exact.md": (
        "Exact inference and circuits",
        "Exact marginals and evidence probability, elimination orders and the compiled circuits."),
    ROOT / "book" / "api" / "indicators.md": (
        "Indicators and diagnostics",
        "The paper's performance indicators and the diagnostics of a sampler's output."),
    ROOT / "book" / "api" / "theory.md": (
        "Theory: exact transition matrices",
        "Exact transition matrices of prune, Gibbs and Metropolis sampling on tiny networks."),
    ROOT / "book" / "api_lab" / "experiments.md": (
        "Experiments",
        "The experiments behind the book's datasets, and their framework."),
    ROOT / "book" / "api_lab" / "peers.md": (
        "The peers' samplers",
        "The pgmpy, pyAgrum and PyMC samplers on prunelab networks (compared in {ref}`api-lab-experiments`)."),
    ROOT / "book" / "api_lab" / "plots.md": (
        "Plots",
        "The book's figures and the display of its tables."),
    ROOT / "book" / "api_lab" / "helpers.md": (
        "The scorecard, the verdict and the chapters' helpers",
        "The chapters' helpers, AHD over the frozen runs, the scorecard, the verdict and the book's answer."),
}
_API, _LAB = (ROOT / "book" / "api", ROOT / "book" / "api_lab")
# The one mapping: module -> the page that documents it. A name of the package itself (``prunelab.sample``) is
# documented under that name on the page of the module ``prunelab/__init__.py`` imports it from (``prunelab.sampling``;
# :func:`home`); ``prunelab`` is the page of what the package defines itself (``__version__``). A module no key
# names is an error (:func:`page_of`), so a new module cannot land on no page.
MODULE_PAGES: dict[str, Path] = {
    "prunelab": _API / "networks.md",
    "prunelab.network": _API / "networks.md",
    "prunelab.io": _API / "networks.md",
    "prunelab.catalogue": _API / "networks.md",
    "prunelab.grids": _API / "networks.md",
    "prunelab.evidence": _API / "networks.md",
    "prunelab.smoothing": _API / "networks.md",
    "prunelab.sampling": _API / "sampling.md",
    "prunelab.traps": _API / "sampling.md",
    "prunelab.checkpoints": _API / "sampling.md",
    "prunelab.samplers.init": _API / "sampling.md",
    "prunelab.samplers.gibbs": _API / "samplers.md",
    "prunelab.samplers.mcsat": _API / "samplers.md",
    "prunelab.clauses": _API / "samplers.md",
    "prunelab.samplers.prune.sampler": _API / "samplers.md",
    "prunelab.samplers.prune.plan": _API / "samplers.md",
    "prunelab.samplers.prune.draws.api": _API / "samplers.md",
    "prunelab.samplers.prune.draws.compiler": _API / "samplers.md",
    "prunelab.samplers.prune.rao_blackwell": _API / "samplers.md",
    "prunelab.exact": _API / "exact.md",
    "prunelab.elimination": _API / "exact.md",
    "prunelab.circuit": _API / "exact.md",
    "prunelab.compiled": _API / "exact.md",
    "prunelab.indicators": _API / "indicators.md",
    "prunelab.diagnostics": _API / "indicators.md",
    "prunelab.theory": _API / "theory.md",
    "prunelab.theory.rao_blackwell": _API / "theory.md",
    "prunelab.lab.experiments": _LAB / "experiments.md",
    "prunelab.lab.experiments.families": _LAB / "experiments.md",
    "prunelab.lab.experiments.large": _LAB / "experiments.md",
    "prunelab.lab.experiments.literature": _LAB / "experiments.md",
    "prunelab.lab.experiments.peers": _LAB / "experiments.md",
    "prunelab.lab.experiments.reach": _LAB / "experiments.md",
    "prunelab.lab.peers": _LAB / "peers.md",
    "prunelab.lab.plots": _LAB / "plots.md",
    "prunelab.lab.plots.results": _LAB / "plots.md",
    "prunelab.lab.notebook": _LAB / "helpers.md",
    "prunelab.lab.ahd": _LAB / "helpers.md",
    "prunelab.lab.mixing": _LAB / "helpers.md",
    "prunelab.lab.headline": _LAB / "helpers.md",
    "prunelab.lab.scorecard": _LAB / "helpers.md",
    "prunelab.lab.verdict": _LAB / "helpers.md",
}
_MODULE = re.compile(r"^## `(?P<module>prunelab[\w.]*)`\s*$")
_ENTRY = re.compile(r"^\.\. (?:auto(?:function|class|exception|data)|py:data):: (?P<name>[\w.]+)\s*$")
_VERSION = "prunelab.__version__"


def _code(path: Path) -> str:
    import jupytext

    cells = [c.source for c in jupytext.read(path).cells if c.cell_type == "code"]
    lines = "\n".join(cells).split("\n")
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))


def _resolve(dotted: str):
    """The object a dotted name of ``prunelab`` names (submodules imported on the way), or None."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for i, attribute in enumerate(parts[1:], start=2):
        if hasattr(obj, attribute):
            obj = getattr(obj, attribute)
            continue
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            return None
    return obj


def chapter_calls(paths) -> dict[str, set[str]]:
    """Dotted name of every ``prunelab`` function or class called in the chapters -> the chapters' stems.

    Examples
    --------
    >>> import tempfile
    >>> text = ("---\\njupytext: {text_representation: {extension: .md, format_name: myst}}\\n---\\n"
    ...         "```{code-cell} ipython3\\nimport prunelab\\nfrom prunelab.indicators import sigma_t as s\\n"
    ...         "bn = prunelab.load_network('asia')\\ns([[0.5]])\\nbn.variables\\n```\\n")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "toy.md"
    ...     _ = path.write_text(text)
    ...     sorted(chapter_calls([path]))
    ['prunelab.indicators.sigma_t', 'prunelab.load_network']
    """
    calls: dict[str, set[str]] = {}
    for path in paths:
        tree = ast.parse(_code(Path(path)))
        alias: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for name in node.names:
                    if name.name.split(".")[0] == "prunelab":
                        alias[name.asname or "prunelab"] = name.name if name.asname else "prunelab"
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "prunelab":
                for name in node.names:
                    alias[name.asname or name.name] = f"{node.module}.{name.name}"

        def dotted(node, alias=alias):
            if isinstance(node, ast.Name):
                return alias.get(node.id)
            if isinstance(node, ast.Attribute):
                base = dotted(node.value, alias)
                return f"{base}.{node.attr}" if base else None
            return None

        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (name := dotted(node.func)):
                obj = _resolve(name)
                if inspect.isfunction(obj) or inspect.isclass(obj):
                    calls.setdefault(name, set()).add(Path(path).stem)
    return calls


def public_names() -> list[str]:
    """``prunelab.<name>`` for every name of ``prunelab.__all__``."""
    import prunelab

    return [f"prunelab.{name}" for name in prunelab.__all__]


def page_entries(names) -> dict[str, list[str]]:
    """The page's entries: module -> dotted names, one name per object (the shortest public one), sorted.

    A name is kept over another of the same object when it is in ``prunelab.__all__``,
    else when it has fewer parts, else when it sorts first. The data and string entries
    of ``__all__`` (``NETWORKS``, ``__version__``) are kept by name, not by identity.

    Examples
    --------
    >>> page_entries(["prunelab.indicators.fit_alpha", "prunelab.fit_alpha", "prunelab.compiled.compile_network"])
    {'prunelab': ['prunelab.fit_alpha'], 'prunelab.compiled': ['prunelab.compiled.compile_network']}
    """
    public = set(public_names())
    best: dict[int, str] = {}
    by_name: list[str] = []
    for name in sorted(set(names)):
        obj = _resolve(name)
        if obj is None:
            raise ValueError(f"{name} names nothing in prunelab")
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            by_name.append(name)
            continue
        key = id(obj)
        rank = (name not in public, name.count("."), name)
        if key not in best or rank < (best[key] not in public, best[key].count("."), best[key]):
            best[key] = name
    modules: dict[str, list[str]] = {}
    for name in [*best.values(), *by_name]:
        modules.setdefault(name.rpartition(".")[0], []).append(name)
    order = sorted(modules, key=lambda m: (m != "prunelab", m))
    return {m: sorted(modules[m], key=lambda n: n.rpartition(".")[2].lower()) for m in order}


def wanted() -> dict[str, list[str]]:
    """:func:`page_entries` of the chapters' calls and ``prunelab.__all__``: what the page must document."""
    calls = chapter_calls(sorted((ROOT / "notebooks").glob("*.md")))
    return page_entries([*calls, *public_names()])


def _package_imports() -> dict[str, str]:
    """Each name ``prunelab/__init__.py`` imports from a module of the package -> that module."""
    import prunelab

    tree = ast.parse(Path(inspect.getsourcefile(prunelab)).read_text(encoding="utf-8"))
    imports = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level == 1 or (node.module or "").startswith("prunelab")):
            module = f"prunelab.{node.module}" if node.level == 1 else node.module
            imports.update({name.asname or name.name: module for name in node.names})
    return imports


def home(name: str) -> str:
    """The module whose page documents a dotted name or module: a module is its own, an entry its module's, and a
    name of the package itself that of the module ``prunelab/__init__.py`` imports it from (``prunelab``:
    defined there).

    Examples
    --------
    >>> home("prunelab.sample"), home("prunelab.indicators.sigma_t"), home("prunelab.__version__")
    ('prunelab.sampling', 'prunelab.indicators', 'prunelab')
    >>> home("prunelab.theory.rao_blackwell"), home("prunelab.lab.plots.results.ahd_figure")
    ('prunelab.theory.rao_blackwell', 'prunelab.lab.plots.results')
    """
    if name == "prunelab" or inspect.ismodule(_resolve(name) if name.startswith("prunelab.") else None):
        return name
    module, _, short = name.rpartition(".")
    return _package_imports().get(short, "prunelab") if module == "prunelab" else module


def page_of(name: str) -> Path:
    """The page that documents a dotted name or module: :data:`MODULE_PAGES` of its :func:`home`.

    Raises
    ------
    ValueError
        If no key of :data:`MODULE_PAGES` names its module (the error names it): a new module gets a page there.

    Examples
    --------
    >>> [str(page_of(n).relative_to(ROOT)) for n in ("prunelab.lab.notebook", "prunelab.sample", "prunelab.read_bif")]
    ['book/api_lab/helpers.md', 'book/api/sampling.md', 'book/api/networks.md']
    >>> page_of("prunelab.nowhere.f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no API page for the module prunelab.nowhere (of prunelab.nowhere.f): add it to MODULE_PAGES in ...
    """
    module = home(name)
    if module not in MODULE_PAGES:
        raise ValueError(f"no API page for the module {module} (of {name}): add it to MODULE_PAGES in "
                         "scripts/api_page.py")
    return MODULE_PAGES[module]


def landing_of(page: Path) -> Path:
    """The landing page that lists a page: ``book/api.md`` for ``book/api/<group>.md``."""
    return page.parent.with_suffix(".md")


def label_of(page: Path) -> str:
    """A page's label: ``api-networks`` for ``book/api/networks.md``, ``api-lab-plots`` for
    ``book/api_lab/plots.md``.
    """
    return f"{page.parent.name}-{page.stem}".replace("_", "-")


def page_split(entries: dict[str, list[str]]) -> dict[Path, dict[str, list[str]]]:
    """Each page of :data:`PAGES` -> its part of ``entries`` (module -> names), each name on :func:`page_of` its page.

    The names of the package itself (``prunelab``) go to the pages of their modules, so its
    heading is on several pages; any other module's are all on one. A module no mapping
    names raises (:func:`page_of`).

    Examples
    --------
    >>> split = page_split({"prunelab": ["prunelab.read_bif", "prunelab.sample"],
    ...                     "prunelab.lab.plots": ["prunelab.lab.plots.draw_network"]})
    >>> {str(p.relative_to(ROOT)): e for p, e in split.items() if e}  # doctest: +NORMALIZE_WHITESPACE
    {'book/api/networks.md': {'prunelab': ['prunelab.read_bif']},
     'book/api/sampling.md': {'prunelab': ['prunelab.sample']},
     'book/api_lab/plots.md': {'prunelab.lab.plots': ['prunelab.lab.plots.draw_network']}}
    """
    pages: dict[Path, dict[str, list[str]]] = {page: {} for page in PAGES}
    for module, names in entries.items():
        for name in names:
            pages[page_of(name)].setdefault(module, []).append(name)
    return pages


def documented(*pages: Path) -> dict[str, list[str]]:
    """The pages' entries as written (module heading -> the names of its entries, in page order); all of
    :data:`PAGES` by default, where the heading ``prunelab`` is on several pages (their names follow in page order).
    """
    modules: dict[str, list[str]] = {}
    for page in pages or tuple(PAGES):
        module = None
        for line in page.read_text(encoding="utf-8").split("\n"):
            if heading := _MODULE.match(line):
                module = heading["module"]
                modules.setdefault(module, [])
            elif (entry := _ENTRY.match(line.strip())) and module:
                modules[module].append(entry["name"])
    return modules


def _entry(name: str) -> str:
    if name == _VERSION:
        return (f".. py:data:: {name}\n   :type: str\n\n   The installed version of prunelab (the one in "
                "``pyproject.toml``), as ``importlib.metadata.version`` reads it.")
    obj = _resolve(name)
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return f".. autoexception:: {name}"
    if inspect.isclass(obj):
        return f".. autoclass:: {name}\n   :members:"
    if inspect.isfunction(obj):
        return f".. autofunction:: {name}"
    return f".. autodata:: {name}\n   :no-value:"


def page_text(entries: dict[str, list[str]], header: str) -> str:
    """The page: ``header``, then per module an autosummary table and the full entries."""
    parts = [header.rstrip("\n")]
    for module, names in entries.items():
        listed = "\n".join(f"   ~{n}" for n in names if n != _VERSION)  # the short name: the heading has the module
        body = "\n\n".join(_entry(n) for n in names)
        parts.append(f"## `{module}`\n\n```{{eval-rst}}\n.. autosummary::\n   :nosignatures:\n\n{listed}\n\n"
                     f"{body}\n```")
    return "\n\n".join(parts) + "\n"


def page_header(page: Path) -> str:
    """A page's header, from :data:`PAGES`: its label, its title and its opening sentence.

    Examples
    --------
    >>> print(page_header(ROOT / "book" / "api_lab" / "plots.md"))
    (api-lab-plots)=
    # Plots
    <BLANKLINE>
    The book's figures and the display of its tables. Part of {ref}`api-lab`.
    """
    import textwrap

    title, intro = PAGES[page]
    landing = landing_of(page).stem.replace("_", "-")
    return f"({label_of(page)})=\n# {title}\n\n" + textwrap.fill(f"{intro} Part of {{ref}}`{landing}`.", 88,
                                                                 break_on_hyphens=False)  # not inside a label


def landing_text(landing: Path, header: str) -> str:
    """A landing page: ``header``, then a line per page of :data:`PAGES` under it, with the modules it documents."""
    items = []
    for page in (p for p in PAGES if landing_of(p) == landing):
        modules = [f"`{m}`" for m, p in MODULE_PAGES.items() if p == page and m != "prunelab"]
        items.append(f"- {{doc}}`{landing.stem}/{page.stem}`: {', '.join(modules)}")
    return header.rstrip("\n") + "\n\n" + "\n".join(items) + "\n"


def _kept_header(page: Path) -> str:
    """A page's text above its first module heading and above a landing's list of pages: what writing it keeps."""
    return page.read_text(encoding="utf-8").split("\n## `")[0].split("\n- {doc}`")[0]


def write_page(entries: dict[str, list[str]], page: Path, header: str | None = None) -> None:
    """Write the page from ``entries`` below ``header`` (by default its own: everything above its first module
    heading).
    """
    page.write_text(page_text(entries, _kept_header(page) if header is None else header), encoding="utf-8")


def write_pages(need: dict[str, list[str]]) -> None:
    """Write every page of :data:`PAGES` from ``need`` (:func:`page_split`), their headers from :data:`PAGES`, and
    the landing pages (their prose kept, their lists of pages written again).
    """
    for page, entries in page_split(need).items():
        page.parent.mkdir(exist_ok=True)
        write_page(entries, page, page_header(page))
    for landing in LANDINGS:
        landing.write_text(landing_text(landing, _kept_header(landing)), encoding="utf-8")


def toc_sections(toc: Path) -> dict[str, list[str]]:
    """Each file of the toc that has ``sections`` -> the files of its sections (as written, no suffix)."""
    import yaml

    found: dict[str, list[str]] = {}

    def walk(node):
        if isinstance(node, dict):
            if "file" in node and node.get("sections"):
                found[str(node["file"])] = [str(s.get("file")) for s in node["sections"] if "file" in s]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc.read_text(encoding="utf-8")))
    return {k.removesuffix(".md"): [s.removesuffix(".md") for s in v] for k, v in found.items()}


def problems(need: dict[str, list[str]], toc: Path = ROOT / "_toc.yml") -> list[str]:
    """What the pages miss against ``need`` (:func:`wanted`), what they hold twice, out of place or stale, a mapping
    or a page that documents nothing, a header, a landing page or a toc not up to date, and the entries without
    a docstring or Examples.
    """
    from collections import Counter

    try:
        split = page_split(need)
    except ValueError as error:
        return [str(error)]
    found = [f"{_shown(page)} does not exist" for page in PAGES if not page.exists()]
    have = {page: documented(page) for page in PAGES if page.exists()}
    counts = Counter(n for entries in have.values() for names in entries.values() for n in names)
    need_names = {n for names in need.values() for n in names}
    found += [f"missing from {_shown(page_of(n))}: {n}" for n in sorted(need_names - set(counts))]
    found += [f"on {_shown(page_of(n))} but neither public nor called by a chapter: {n}"
              for n in sorted(set(counts) - need_names)]
    found += [f"documented {k} times: {n}" for n, k in sorted(counts.items()) if k > 1]
    found += [f"on {_shown(page)} but belongs on {_shown(page_of(n))}: {n}" for page, entries in have.items()
              for names in entries.values() for n in names if n in need_names and page_of(n) != page]
    homes = {home(n) for n in need_names}
    found += [f"MODULE_PAGES names {m}, which has nothing to document" for m in MODULE_PAGES if m not in homes]
    found += [f"{_shown(page)} documents nothing" for page, entries in split.items() if not entries]
    found += [f"{_shown(page)}: its header is not PAGES' (python scripts/api_page.py --write)"
              for page in have if not page.read_text(encoding="utf-8").startswith(page_header(page) + "\n")]
    for landing in LANDINGS:
        listed = landing.read_text(encoding="utf-8")
        found += [f"{_shown(landing)} does not list {_shown(page)}" for page in PAGES
                  if landing_of(page) == landing and f"{{doc}}`{landing.stem}/{page.stem}`" not in listed]
        strays = sorted(set(landing.with_suffix("").glob("*.md")) - set(PAGES))
        found += [f"{_shown(stray)} is no page of PAGES" for stray in strays]
    sections = toc_sections(toc)
    found += [f"{toc.name} does not hold {_shown(page)} in the sections of {_shown(landing_of(page))}"
              for page in PAGES if _docname(page) not in sections.get(_docname(landing_of(page)), [])]
    found += [p for n in sorted(set(counts) - {_VERSION}) if (p := docstring_problem(n, _resolve(n)))]
    return found


def _docname(page: Path) -> str:
    return str(page.relative_to(ROOT).with_suffix(""))


def docstring_problem(name: str, obj) -> str | None:
    """Why ``obj`` cannot be a page entry, or None: it has no docstring (or an empty one), or it is a function or
    a class whose docstring has no ``Examples`` section (:func:`without_example`).

    Examples
    --------
    >>> def f():
    ...     pass
    >>> docstring_problem("f", f)
    'f has no docstring'
    >>> def g():
    ...     'A docstring, but no example.'
    >>> docstring_problem("g", g)
    'g has no Examples section'
    >>> docstring_problem("page_entries", page_entries) is None
    True
    """
    if not (inspect.getdoc(obj) or "").strip():
        return f"{name} has no docstring"
    return f"{name} has no Examples section" if without_example(name, obj) else None


def without_example(name: str, obj) -> bool:
    """Whether ``obj`` is a function or a class (not an exception or a warning) whose docstring has no Examples.

    Examples
    --------
    >>> without_example("page_entries", page_entries), without_example("docstring_problem", docstring_problem)
    (False, False)
    >>> without_example("ValueError", ValueError)
    False
    """
    needs = inspect.isfunction(obj) or (inspect.isclass(obj) and not issubclass(obj, BaseException))
    return needs and not re.search(r"^Examples\n-{8,}$", inspect.getdoc(obj) or "", re.MULTILINE)


def _check_docstring(app, what, name, obj, options, lines) -> None:
    """``autodoc-process-docstring``: warn on an entry without a docstring or Examples; number its references apart.

    A numpydoc ``References`` section's ``.. [1]`` is a footnote labelled ``1``, and a
    page of many docstrings would hold many: each docstring's become auto-numbered
    footnotes of their own name (``[#prunelab-sample-1]``), numbered through the page.
    """
    if what == "data" and lines and "\n".join(lines).strip() == inspect.cleandoc(type(obj).__doc__ or ""):
        lines[:] = _attribute_doc(name, obj)  # a tuple's own "Built-in immutable sequence." is not its doc
    if what not in ("method", "attribute", "property") and name.startswith("prunelab"):
        if what == "data" and not lines:
            from sphinx.util import logging

            logging.getLogger(__name__).warning(f"{name} has no docstring ({_shown(page_of(name))})",
                                                type="prunelab", subtype="api")
        if problem := docstring_problem(name, obj):
            from sphinx.util import logging

            logging.getLogger(__name__).warning(f"{problem} ({_shown(page_of(name))})", type="prunelab",
                                                subtype="api")
    if what == "property" and lines and lines[-1].startswith(":type: "):
        first = (inspect.getdoc(obj) or "").split("\n")[0]  # napoleon took "A digest of x: y" for "type: text"
        if first.startswith(f"{lines[-1][len(':type: '):]}:"):
            del lines[-1]
            lines[0] = first
    tag = re.sub(r"\W", "-", name)
    for i, line in enumerate(lines):
        line = re.sub(r"\[(\d+)\]_", rf"[#{tag}-\1]_", re.sub(r"^(\s*)\.\. \[(\d+)\]", rf"\1.. [#{tag}-\2]", line))
        lines[i] = line if re.match(r"\s*(\+[-=+]+\s*$|\|.*\|\s*$)", line) else _absolute_values(line)  # a table row


def _shown(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _attribute_doc(name: str, obj) -> list[str]:
    """The docstring under the assignment of ``obj`` (re-exported as ``name``) in its ``prunelab`` module, or []."""
    from sphinx.pycode import ModuleAnalyzer

    short = name.rpartition(".")[2]
    for module in sorted(m for m in sys.modules if m.split(".")[0] == "prunelab"):
        if getattr(sys.modules[module], short, None) is obj:
            docs = ModuleAnalyzer.for_module(module).find_attr_docs().get(("", short))
            if docs:
                return list(docs)
    return []


def _absolute_values(line: str) -> str:
    r"""A line with ``|S|`` outside literals and roles escaped: the size of a set, not an rst substitution.

    Examples
    --------
    >>> _absolute_values("|S|: the size; ``|S|`` as code; :math:`|x|`")
    '\\|S\\|: the size; ``|S|`` as code; :math:`|x|`'
    """
    parts = re.split(r"(``.+?``|`[^`]*`)", line)
    parts[::2] = [re.sub(r"(?<![|\\])\|(\S(?:[^|]*\S)?)\|(?!\|)", r"\\|\1\\|", p) for p in parts[::2]]
    return "".join(parts)


def _importable(dotted: str):
    """``(True, obj)`` if ``dotted`` names an importable object (a module or an attribute's), else ``(False, None)``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except (ImportError, TypeError, ValueError):
            continue
        try:
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return False, None
        return True, obj
    return False, None


def referenced(target: str, module: str | None = None, cls: str | None = None):
    """The object a docstring's reference names, or ``(False, None)``: as written, in its module or class,
    in a ``prunelab`` module already imported, or a builtin or ``numpy`` name.

    Examples
    --------
    >>> import prunelab.sampling
    >>> referenced("~prunelab.sample") == (True, prunelab.sample)
    True
    >>> referenced("sample", module="prunelab.sampling")[1] is prunelab.sample
    True
    >>> referenced("no_such_function", module="prunelab.sampling")
    (False, None)
    """
    target = target.lstrip("~.")
    candidates = [target]
    if module:
        candidates += [f"{module}.{cls}.{target}" if cls else None, f"{module}.{target}"]
    if "." not in target:
        candidates += [f"{m}.{target}" for m in sorted(sys.modules) if m.split(".")[0] == "prunelab"]
    candidates += [f"builtins.{target}", f"numpy.{target}"]
    for candidate in filter(None, candidates):
        found, obj = _importable(candidate)
        if found:
            return True, obj
    return False, None


def _entries_by_object(app) -> dict[int, str]:
    """id of each function, class and module the pages document -> its name on its page (built once)."""
    if not hasattr(app.env, "prunelab_api_entries"):
        entries = {}
        pages = [Path(app.srcdir) / page.relative_to(ROOT) for page in PAGES]
        for name in [n for names in documented(*pages).values() for n in names]:
            obj = _resolve(name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                entries[id(obj)] = name
        app.env.prunelab_api_entries = entries
    return app.env.prunelab_api_entries


def _missing_reference(app, env, node, contnode):
    """``missing-reference``: a docstring's reference to a real object links to its entry on the page if it has one
    (documented under another name: ``prunelab.sampling.sample`` is ``prunelab.sample``), else shows as code.

    A role that names nothing (a name that was renamed or never existed) is left to
    Sphinx, which warns. An attribute's type, written in words (``int64 (chain,
    draw)``, which napoleon makes a field's type; a role's text is a literal, a type's not), shows as text.
    """
    from docutils import nodes

    if node.get("refdomain") != "py":
        return None
    found, obj = referenced(node.get("reftarget", ""), node.get("py:module"), node.get("py:class"))
    if not found:  # a role names nothing: Sphinx warns; a type in words (an attribute's, "int64 (chain, draw)") is text
        return None if isinstance(contnode, nodes.literal) else contnode
    name = _entries_by_object(app).get(id(obj)) if inspect.isfunction(obj) or inspect.isclass(obj) else None
    if name is not None:
        resolved = env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder, "obj", name, node, contnode)
        if resolved is not None:
            return resolved
    return contnode


def setup(app):
    """The Sphinx extension: autodoc, autosummary and napoleon, the docstring check and the references' resolution."""
    for extension in ("sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"):
        app.setup_extension(extension)
    app.connect("autodoc-process-docstring", _check_docstring)
    app.connect("missing-reference", _missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main() -> int:
    need = wanted()
    if "--write" in sys.argv[1:]:
        try:
            write_pages(need)
        except ValueError as error:  # a module no mapping names: no page is written
            print(error)
            return 1
    found = problems(need)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
