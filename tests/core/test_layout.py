"""The package's shape: no import cycle, no private name imported across modules, no long module, the library apart from the lab."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "prunelab"

MAX_MODULE_LINES = 600
"""A module longer than this has more than one job: split it by job (issue 11)."""

LONG_MODULES: dict[str, str] = {}
"""Modules allowed past :data:`MAX_MODULE_LINES`, each with the reason a split would hurt (none today)."""


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {_module_name(p, package): p for p in package.rglob("*.py")}


def _imports(name: str, path: Path):
    """``(module, imported names)`` of every ``from ... import`` in a module (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    root = name.split(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.split(".")[0] == root:
                yield target, [alias.name for alias in node.names]


def _defined_names(path: Path) -> set[str]:
    """The names a module's own top level defines (functions, classes, assignments), not those it imports."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names


def _definer(modules: dict[str, Path], module: str, name: str, seen=()) -> str:
    """The module that defines ``name`` imported from ``module``, following re-exports (``from .x import name``)."""
    if name in _defined_names(modules[module]) or (module, name) in seen:
        return module
    for target, names in _imports(module, modules[module]):
        if name in names and target in modules:
            return _definer(modules, target, name, (*seen, (module, name)))
    return module


def _edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports, at the top or inside a function.

    ``from m import name`` is an arrow to ``m`` (its code runs, a package's ``__init__`` too) and to the module that
    defines ``name``, found through re-exports; ``from p import sub`` is an arrow to the module ``p.sub``. So a cycle
    that runs through a package ``__init__`` (a facade re-exporting its modules) is a cycle here.
    """
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for target, names in _imports(name, path):
            for imported in names:
                if f"{target}.{imported}" in modules:  # from . import store
                    edges[name].add(f"{target}.{imported}")
                elif target in modules:
                    edges[name].add(target)
                    edges[name].add(_definer(modules, target, imported))
        edges[name].discard(name)
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


def _reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in edges[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_no_import_cycle_between_modules():
    assert _cycle(_edges(_modules())) is None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    """A facade that re-exports its modules hides no cycle: ``c`` imports ``f`` from package ``a``, defined in ``a.b``,
    which imports ``c``; the package's ``__init__`` is on the way, and the name resolves to ``a.b``."""
    package = tmp_path / "pkg"
    (package / "a").mkdir(parents=True)
    planted = {
        "__init__.py": "",
        "a/__init__.py": "from .b import f\n",
        "a/b.py": "def f():\n    from ..c import g\n    return g\n",
        "c.py": "from .a import f\n\ndef g():\n    return f\n",
        "d.py": "from .a import f  # imports the facade, no cycle\n",
    }
    for file, text in planted.items():
        (package / file).write_text(text)
    edges = _edges(_modules(package))
    assert edges["pkg.c"] == {"pkg.a", "pkg.a.b"}  # the facade and the module that defines f
    assert _cycle(edges) in (["pkg.a", "pkg.a.b", "pkg.c", "pkg.a"], ["pkg.a.b", "pkg.c", "pkg.a.b"])
    (package / "a/b.py").write_text("def f():\n    return 1\n")  # the cycle broken
    assert _cycle(_edges(_modules(package))) is None


def test_the_ground_truth_and_the_circuits_sit_below_the_samplers():
    """Exact inference, evidence and the circuits import nothing from ``samplers/``, not even through another module."""
    edges = _edges(_modules())
    for ground in ("prunelab.exact", "prunelab.evidence", "prunelab.circuit"):
        assert sorted(m for m in _reachable(edges, ground) if m.startswith("prunelab.samplers")) == [], ground


MAX_SAMPLER_MODULES = 8
"""Modules at the top of ``samplers/``: the registry, the shared start, one per sampler family (prune sampling is a
wing of its own, ``samplers/prune/``)."""

MAX_PRUNE_WING_LINES = 520
"""The longest module of the prune wing (``samplers/prune/``)."""


def test_the_samplers_room_stays_small():
    top = sorted(p.name for p in (PACKAGE / "samplers").glob("*.py"))
    assert len(top) <= MAX_SAMPLER_MODULES, top
    long = {str(p.relative_to(PACKAGE)): n for p in (PACKAGE / "samplers" / "prune").rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_PRUNE_WING_LINES}
    assert long == {}


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
