#!/usr/bin/env python3
"""The book's API pages, rendered from the docstrings: what they document, how they are written and checked.

``book/api.md`` (the library) and ``book/api_lab.md`` (``prunelab.lab``: experiments,
plots, the chapters' helpers; :func:`page_of`) document every public name of ``prunelab``
(its ``__all__``) and every ``prunelab`` function and class a chapter or an exercise calls (:func:`chapter_calls`:
the calls in the chapters' code cells, their imports followed, so ``from
prunelab.indicators import sigma_t`` then ``sigma_t(...)`` is
``prunelab.indicators.sigma_t``). An object reached by two names (``prunelab.fit_alpha``
is ``prunelab.indicators.fit_alpha``) is documented once, under the shorter public name
(:func:`page_entries`). Each module's part is an autosummary table (a name and the first
line of its docstring) above the full entries (``autofunction``, ``autoclass`` with the
public members, ``autoexception``, ``autodata``), which Sphinx renders from the numpydoc
docstrings (``sphinx.ext.napoleon``).

This file is also the book's Sphinx extension for the pages (``_config.yml``,
``local_extensions``): a documented object without a docstring, or a function or class
whose docstring has no ``Examples`` section (:func:`without_example`), is a warning, which
``-W`` makes an error (:func:`docstring_problem`).
The tests compare :func:`documented` of the pages with :func:`page_entries` of the chapters,
so a call a chapter adds must be on a page, and a name no chapter calls and ``__all__``
does not hold goes::

    python scripts/api_page.py          # what the pages miss, what is stale, what lacks a docstring or Examples
    python scripts/api_page.py --write  # write both pages again from the chapters (their headers are kept)
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = ROOT / "book" / "api.md"
LAB_PAGE = ROOT / "book" / "api_lab.md"
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


def page_of(name: str) -> Path:
    """The page that documents a dotted name or module: ``prunelab.lab``'s on the lab's page, the rest on the library's.

    Examples
    --------
    >>> page_of("prunelab.lab.notebook").name, page_of("prunelab.sample").name, page_of("prunelab.labels").name
    ('api_lab.md', 'api.md', 'api.md')
    """
    return LAB_PAGE if name == "prunelab.lab" or name.startswith("prunelab.lab.") else API_PAGE


def documented(*pages: Path) -> dict[str, list[str]]:
    """The pages' entries as written (module heading -> the names of its entries, in page order); both by default."""
    modules: dict[str, list[str]] = {}
    module = None
    lines = [line for page in pages or (API_PAGE, LAB_PAGE) for line in page.read_text(encoding="utf-8").split("\n")]
    for line in lines:
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


def write_page(entries: dict[str, list[str]], page: Path = API_PAGE) -> None:
    """Write the page from ``entries``, keeping its header (everything above the first module heading)."""
    header = page.read_text(encoding="utf-8").split("\n## `")[0]
    page.write_text(page_text(entries, header), encoding="utf-8")


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
        pages = [Path(app.srcdir) / page.relative_to(ROOT) for page in (API_PAGE, LAB_PAGE)]
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
        for page in (API_PAGE, LAB_PAGE):
            write_page({m: names for m, names in need.items() if page_of(m) == page}, page)
    have = documented()
    need_names = {n for names in need.values() for n in names}
    have_names = {n for names in have.values() for n in names}
    problems = [f"missing from {_shown(page_of(n))}: {n}" for n in sorted(need_names - have_names)]
    problems += [f"on {_shown(page_of(n))} but neither public nor called by a chapter: {n}"
                 for n in sorted(have_names - need_names)]
    problems += [f"on {_shown(page)} but belongs on {_shown(page_of(m))}: {m}" for page in (API_PAGE, LAB_PAGE)
                 for m in documented(page) if page_of(m) != page]
    problems += [p for n in sorted(have_names - {_VERSION}) if (p := docstring_problem(n, _resolve(n)))]
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
