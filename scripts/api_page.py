#!/usr/bin/env python3
"""The ``prunelab`` functions the chapters call, and the book's page that lists them.

``book/api.md`` lists, by module, every ``prunelab`` function and class that a
chapter or an exercise calls (a table per module: name, one line of purpose, the
chapters). :func:`chapter_calls` finds the calls in the chapters' code cells (their
imports followed, so ``from prunelab.indicators import sigma_t`` then ``sigma_t(...)``
is ``prunelab.indicators.sigma_t``); :func:`listed` reads the page. The tests compare
the two, so a call a chapter adds must be listed, and a name no chapter calls goes::

    python scripts/api_page.py          # what is missing from the page, what is stale
    python scripts/api_page.py --write  # write the tables again from the chapters (the header is kept)
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
_MODULE = re.compile(r"^## `(?P<module>prunelab[\w.]*)`\s*$")
_ROW = re.compile(r"^\| `(?P<name>\w+)` \|")
_ROLE = re.compile(r":(?:py:)?(?:func|class|data|meth|attr|mod|obj|exc):`(?P<tilde>~?)(?P<target>[\w.]+)`")


def purpose(doc: str) -> str:
    """The first line of a docstring as a Markdown table cell: Sphinx roles and rst literals as code.

    A role shows its name as Sphinx would, ``~`` keeping the last part only; a dotted
    name outside ``~`` keeps its last two parts (``scorecard.VERDICTS``), so that no
    cell holds a long unbreakable word that widens the table past the text column.

    Examples
    --------
    >>> purpose("Rows in the order of :data:`prunelab.lab.scorecard.VERDICTS`; see :func:`~prunelab.sample`.")
    'Rows in the order of `scorecard.VERDICTS`; see `sample`.'
    >>> purpose("Exact ``P(X | e)``.\\n\\nMore.")
    'Exact `P(X \\\\| e)`.'
    """

    def name(match: re.Match) -> str:
        parts = match["target"].split(".")
        return f"`{'.'.join(parts[-1:] if match['tilde'] else parts[-2:])}`"

    line = (doc or "").split("\n")[0]
    return _ROLE.sub(name, line.replace("``", "`")).replace("|", "\\|")


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


def listed(page: Path = API_PAGE) -> set[str]:
    """The dotted names ``book/api.md`` lists (module heading + table row)."""
    names, module = set(), None
    for line in page.read_text(encoding="utf-8").split("\n"):
        if heading := _MODULE.match(line):
            module = heading["module"]
        elif (row := _ROW.match(line)) and module:
            names.add(f"{module}.{row['name']}")
    return names


def _chapter_label(stem: str) -> str:
    """The MyST label a chapter opens with (``(label)=``)."""
    for line in (ROOT / "notebooks" / f"{stem}.md").read_text(encoding="utf-8").split("\n"):
        if match := re.fullmatch(r"\((?P<label>[\w-]+)\)=", line.strip()):
            return match["label"]
    raise ValueError(f"notebooks/{stem}.md opens with no (label)= line")


def write_page(calls: dict[str, set[str]], page: Path = API_PAGE) -> None:
    """Write the page's tables from ``calls`` (module by module, names sorted), keeping its header."""
    text = page.read_text(encoding="utf-8")
    header = text[: text.index("\n## `")].rstrip("\n")
    modules: dict[str, list[str]] = {}
    for name in calls:
        module, _, short = name.rpartition(".")
        modules.setdefault(module, []).append(short)
    parts = [header]
    for module in sorted(modules, key=lambda m: (m != "prunelab", m)):
        rows = ["| function | what it does | chapters |", "|---|---|---|"]
        for short in sorted(modules[module], key=str.lower):
            doc = purpose(inspect.getdoc(_resolve(f"{module}.{short}")) or "")
            refs = ", ".join(f"{{ref}}`{_chapter_label(stem)}`" for stem in sorted(calls[f"{module}.{short}"]))
            rows.append(f"| `{short}` | {doc} | {refs} |")
        parts.append(f"## `{module}`\n\n" + "\n".join(rows))
    page.write_text("\n\n".join(parts) + "\n", encoding="utf-8")


def main() -> int:
    calls = chapter_calls(sorted((ROOT / "notebooks").glob("*.md")))
    if "--write" in sys.argv[1:]:
        write_page(calls)
    missing, stale = sorted(set(calls) - listed()), sorted(listed() - set(calls))
    for name in missing:
        print(f"missing from {API_PAGE.relative_to(ROOT)}: {name} (called in {', '.join(sorted(calls[name]))})")
    for name in stale:
        print(f"listed in {API_PAGE.relative_to(ROOT)} but called by no chapter: {name}")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
