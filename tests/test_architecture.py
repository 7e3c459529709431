"""The package map of docs/architecture.md, enforced: layers, public faces, plugin boundary, no cycles.

Every ``import`` in ``src/gossamer`` (module level, inside functions and under
``TYPE_CHECKING`` alike) is read with :mod:`ast` and checked against these rules:

1. **Layers point down**: core ← store ← engine ← plugins ← crawl / index / search /
   graph / webdb ← cli / web.  A module imports its own package, or a lower layer.
2. **Other packages only through public faces**: a module imports another top-level
   package only through a public face: a package's ``__init__`` (``gossamer.core``,
   ``gossamer.store``, ``gossamer.crawl.linkdb``, ``gossamer.index``) or a one-module crawl
   command directly under ``gossamer.crawl`` (``gossamer.crawl.readseg``), never an inner module.
3. **Built-in plugins are reached through the registry**: nothing outside
   ``gossamer.plugins`` imports ``gossamer.plugins.builtin``.
4. **No file cycles**: the graph of module imports has no cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
LAYERS = {
    "core": 0,
    "store": 1,
    "engine": 2,
    "plugins": 3,
    "crawl": 4, "index": 4, "search": 4, "graph": 4, "webdb": 4,
    "cli": 5, "web": 5,
}
ALGORITHMS = {name for name, layer in LAYERS.items() if layer == 4}


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in (SRC / "gossamer").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()
PACKAGES = {name for name, path in MODULES.items() if path.name == "__init__.py"}


def _bound_names(path: Path) -> set[str]:
    """Names a package ``__init__`` binds at module level (imports, definitions)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


FACE_NAMES = {name: _bound_names(MODULES[name]) for name in PACKAGES}
FACES = PACKAGES | {name for name in MODULES if name.rpartition(".")[0] == "gossamer.crawl"}


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """``(line, imported module)`` for every gossamer import of ``module``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("gossamer"):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("gossamer"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                # ``from pkg import x``: the package's own ``x`` when its __init__ binds it, else the submodule
                own = target in PACKAGES and alias.name in FACE_NAMES[target]
                yield node.lineno, sub if sub in MODULES and not own else target


EDGES = {module: list(_imports(module, path)) for module, path in MODULES.items()}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_package_has_a_layer() -> None:
    """A new top-level package must be placed on the map (here and in docs/architecture.md)."""
    tops = {_top(m) for m in MODULES} - {""}
    assert tops <= set(LAYERS), f"packages without a layer: {sorted(tops - set(LAYERS))}"


def _violations() -> Iterator[str]:
    for module, imports in EDGES.items():
        source = _top(module)
        for line, target in imports:
            where = f"{MODULES[module].relative_to(SRC)}:{line} imports {target}"
            dest = _top(target)
            if target not in MODULES:
                yield f"{where}: no such module"
                continue
            if dest == source or not dest or not source:
                continue
            if target.startswith("gossamer.plugins.builtin") and source != "plugins":
                yield f"{where}: built-in plugins are reached through the plugin registry"
            if LAYERS[dest] > LAYERS[source]:
                yield f"{where}: {source} (layer {LAYERS[source]}) may not import {dest} (layer {LAYERS[dest]})"
            elif target not in FACES:
                yield f"{where}: import the package's public face (its __init__), not its module"


def test_imports_follow_the_layers_and_public_faces() -> None:
    problems = sorted(set(_violations()))
    assert not problems, "\n".join(problems)


def _cycle() -> list[str] | None:
    graph = {m: sorted({t for _, t in edges if t in MODULES and t != m}) for m, edges in EDGES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles_between_files() -> None:
    cycle = _cycle()
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_package_says_what_it_is(package: str) -> None:
    """Every package ``__init__`` has a docstring (its public face says what lives there)."""
    tree = ast.parse(MODULES[package].read_text())
    assert ast.get_docstring(tree), f"{package} has no docstring"


def test_no_lazy_module_getattr() -> None:
    """Public faces are plain imports: no module-level ``__getattr__`` workaround."""
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert "__getattr__" not in names, f"{module} defines a module __getattr__"


def _nodes_outside(package: str) -> Iterator[tuple[str, ast.AST]]:
    """``(file:line, node)`` for every AST node of every module outside top-level ``package``."""
    for module, path in MODULES.items():
        if _top(module) != package:
            for node in ast.walk(ast.parse(path.read_text())):
                yield f"{path.relative_to(SRC)}:{getattr(node, 'lineno', 0)}", node


def _imported_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return [node.module or ""] if isinstance(node, ast.ImportFrom) else []


def test_only_the_engine_knows_spark() -> None:
    """No module outside ``gossamer.engine`` imports pyspark or the Spark engine: jobs and tasks are written once."""
    offenders = [where for where, node in _nodes_outside("engine")
                 if any(n.startswith(("pyspark", "gossamer.engine.spark")) for n in _imported_names(node))]
    assert not offenders, offenders


def _isinstance_names(node: ast.AST) -> set[str]:
    """Names of the classes an ``isinstance`` call tests against (``Path``, ``Location`` …)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
            and len(node.args) == 2):
        return set()
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node.args[1])
            if isinstance(n, ast.Name | ast.Attribute)}


def test_places_are_not_told_apart_outside_the_store() -> None:
    """One place type: outside ``gossamer.store`` nobody asks whether a place is a Path or a Location."""
    offenders = [where for where, node in _nodes_outside("store")
                 if _isinstance_names(node) & {"Path", "PosixPath", "Location", "LocalPlace"}]
    assert not offenders, "isinstance on a place outside gossamer.store: " + ", ".join(offenders)
