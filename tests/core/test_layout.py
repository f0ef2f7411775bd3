"""The package's shape: no import cycle, no private name imported across modules, no long module, the library apart from the lab."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "prunelab"

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


LAB = "prunelab.lab"
"""The book's engine; everything else in the package (but the command line, which runs the lab) is the library."""

LAB_ENTRY_POINTS = {"prunelab.__main__"}
"""Modules outside the lab allowed to import it: ``python -m prunelab`` runs the lab's sweeps."""


def _imported_modules(name: str, path: Path):
    """Every module a module imports: ``import a.b``, ``from a import b`` (as ``a`` and ``a.b``), relative ones resolved,
    and ``importlib.import_module("a.b")`` with a literal name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.args[0].value


def _library_imports_of_the_lab(modules: dict[str, Path]) -> list[str]:
    return sorted(
        f"{name} imports {target}"
        for name, path in modules.items()
        if not (name == LAB or name.startswith(LAB + ".")) and name not in LAB_ENTRY_POINTS
        for target in set(_imported_modules(name, path))
        if target == LAB or target.startswith(LAB + ".")
    )


def test_the_library_never_imports_the_lab():
    assert _library_imports_of_the_lab(_modules()) == []


def test_the_lab_import_finder_finds_one(tmp_path):
    package = tmp_path / "prunelab"
    (package / "samplers").mkdir(parents=True)
    (package / "lab").mkdir()
    (package / "lab" / "__init__.py").write_text("from ..network import BayesianNetwork\n")  # the lab may use the library
    planted = {
        "exact.py": "def f():\n    from .lab import plots\n",
        "network.py": "import prunelab.lab.experiments\n",
        "samplers/gibbs.py": "from ..lab.paper_numbers import PAPER_ALPHA\n",
        "traps.py": "from prunelab import lab\n",
        "sampling.py": "import importlib\nimportlib.import_module('prunelab.lab.notebook')\n",
        "indicators.py": "from prunelab import network  # prunelab.lab in a comment is no import\n",
    }
    for file, text in planted.items():
        (package / file).write_text(text)
    modules = {
        ".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
        for p in package.rglob("*.py")
    }
    assert _library_imports_of_the_lab(modules) == [
        "prunelab.exact imports prunelab.lab",
        "prunelab.exact imports prunelab.lab.plots",
        "prunelab.network imports prunelab.lab.experiments",
        "prunelab.samplers.gibbs imports prunelab.lab.paper_numbers",
        "prunelab.samplers.gibbs imports prunelab.lab.paper_numbers.PAPER_ALPHA",
        "prunelab.sampling imports prunelab.lab.notebook",
        "prunelab.traps imports prunelab.lab",
    ]


def _line_counts() -> dict[str, int]:
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}


def test_no_module_is_longer_than_the_limit():
    counts = _line_counts()
    too_long = {name: n for name, n in counts.items() if n > MAX_MODULE_LINES and name not in LONG_MODULES}
    assert too_long == {}, f"split these modules by job (or add one to LONG_MODULES with the reason): {too_long}"
    stale = [name for name in LONG_MODULES if counts.get(name, 0) <= MAX_MODULE_LINES]
    assert stale == [], f"no longer long (or gone): drop them from LONG_MODULES: {stale}"
