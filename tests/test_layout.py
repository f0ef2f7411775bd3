"""The package's shape: no import cycle between its modules, no private name imported across modules, no long module."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "prunelab"

MAX_MODULE_LINES = 600
"""A module longer than this has more than one job: split it by job (issue 11)."""

LONG_MODULES: dict[str, str] = {}
"""Modules allowed past :data:`MAX_MODULE_LINES`, each with the reason a split would hurt (none today)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(name: str, path: Path):
    """``(module, imported names)`` of every ``from ... import`` in a module (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.split(".")[0] == "prunelab":
                yield target, [alias.name for alias in node.names]


def _edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports, at the top or inside a function (package __init__s left out)."""
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for target, names in _imports(name, path):
            for imported in names:
                if f"{target}.{imported}" in modules:  # from . import store
                    edges[name].add(f"{target}.{imported}")
                elif target in modules and modules[target].name != "__init__.py":
                    edges[name].add(target)
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_between_modules():
    assert _cycle(_edges(_modules())) is None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_private_name_imported_across_modules():
    modules = _modules()
    private = [
        f"{name}: {target}.{imported}"
        for name, path in modules.items()
        for target, names in _imports(name, path)
        for imported in names
        if imported.startswith("_") and not imported.startswith("__")
    ]
    assert private == []


def _line_counts() -> dict[str, int]:
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}


def test_no_module_is_longer_than_the_limit():
    counts = _line_counts()
    too_long = {name: n for name, n in counts.items() if n > MAX_MODULE_LINES and name not in LONG_MODULES}
    assert too_long == {}, f"split these modules by job (or add one to LONG_MODULES with the reason): {too_long}"
    stale = [name for name in LONG_MODULES if counts.get(name, 0) <= MAX_MODULE_LINES]
    assert stale == [], f"no longer long (or gone): drop them from LONG_MODULES: {stale}"
