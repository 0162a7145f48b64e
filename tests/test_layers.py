"""The package's layers: each package imports only packages on the layer lines above its own, and no private name crosses a package.

The architecture page lists the layers in the order data flows; this test
reads that list, so the documentation and the code cannot disagree. A
package's own modules may import each other (``matchdb.equity.multiway``
uses ``matchdb.equity._kernels``); a name or module that starts with an
underscore is private to its package. The package root
``matchdb/__init__.py`` re-exports names lazily and is exempt.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def declared_layers() -> list[list[str]]:
    text = ARCHITECTURE.read_text()
    block = re.search(r"Layers, lowest first[^\n]*\n+```text\n(.*?)```", text, re.S)
    assert block, f"{ARCHITECTURE.name} lists the layers in a ```text block after 'Layers, lowest first'"
    return [line.split("#")[0].split() for line in block.group(1).splitlines() if line.split("#")[0].strip()]


def unit_of(module: str) -> str:
    """The layer unit of a module: its package below ``matchdb`` (``equity``), or the root module itself (``answers``)."""
    return module.removeprefix("matchdb.").split(".")[0]


def module_imports() -> dict[str, set[tuple[str, str | None]]]:
    """Every module's imports from matchdb, as (module, imported name or None for a whole module)."""
    found: dict[str, set[tuple[str, str | None]]] = {}
    for path in sorted((ROOT / "matchdb").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        imports: set[tuple[str, str | None]] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "matchdb":
                for alias in node.names:
                    if node.module == "matchdb" or f"{node.module}.{alias.name}".replace(".", "/") in _MODULE_PATHS:
                        imports.add((f"{node.module}.{alias.name}", None))
                    else:
                        imports.add((node.module, alias.name))
            elif isinstance(node, ast.Import):
                imports |= {(alias.name, None) for alias in node.names if alias.name.split(".")[0] == "matchdb"}
        found[name] = imports
    return found


_MODULE_PATHS = {
    str(path.relative_to(ROOT).with_suffix("")).removesuffix("/__init__")
    for path in (ROOT / "matchdb").rglob("*.py")
}


def layer_of(module: str, layers: list[list[str]]) -> int:
    for position, names in enumerate(layers):
        if unit_of(module) in names:
            return position
    raise AssertionError(f"{module} belongs to no layer line of {ARCHITECTURE.name} (add '{unit_of(module)}')")


def test_every_package_is_on_a_layer_and_imports_only_lower_layers():
    layers = declared_layers()
    wrong = []
    for module, targets in module_imports().items():
        if module == "matchdb":
            continue
        mine = layer_of(module, layers)
        for target, _ in targets:
            if unit_of(target) == unit_of(module):
                continue  # a package's own modules
            if layer_of(target, layers) >= mine:
                wrong.append(f"{module} (line {mine + 1}) imports {target} (line {layer_of(target, layers) + 1})")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(set(wrong)))


def test_no_private_name_crosses_a_package():
    wrong = []
    for module, targets in module_imports().items():
        if module == "matchdb":
            continue
        for target, name in targets:
            if unit_of(target) == unit_of(module):
                continue
            private_parts = [part for part in target.split(".")[1:] if part.startswith("_") and not part.startswith("__")]
            if private_parts or (name is not None and name.startswith("_")):
                wrong.append(f"{module} imports {target}" + (f".{name}" if name else ""))
    assert not wrong, "private names imported from another package:\n" + "\n".join(sorted(set(wrong)))


def test_the_layers_name_no_package_that_does_not_exist():
    units = {unit_of(name) for name in module_imports()} - {"matchdb"}
    listed = {name for names in declared_layers() for name in names}
    assert listed == units, (sorted(listed - units), sorted(units - listed))


def import_graph() -> dict[str, set[str]]:
    """Every matchdb module's matchdb imports, module to module: at the top, inside functions and under
    ``TYPE_CHECKING`` alike (``from matchdb.db import preflop`` is the module ``matchdb.db.preflop``). Importing
    ``matchdb.a.b`` runs ``matchdb.a``'s ``__init__`` too; that edge is not drawn (a package's ``__init__`` may
    re-export its modules), nor edges to the lazy package root ``matchdb``."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "matchdb").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "matchdb":
                for alias in node.names:
                    whole = f"{node.module}.{alias.name}"
                    targets.add(whole if whole.replace(".", "/") in _MODULE_PATHS else node.module)
            elif isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names if alias.name.split(".")[0] == "matchdb"}
        graph[name] = targets - {"matchdb", name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm): each holds an import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_import_circles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert import_circles(graph) == [["a", "b", "c"]]


def test_no_import_circle():
    """No two modules import each other, directly or through others, even inside a function: each module holds one
    thing and is driven from above (the bots' interface in ``play.interface``, the preflop half of the database in
    ``db.preflop`` reading ``MatchDB``'s public methods, the answers' base in ``answers.base``)."""
    circles = import_circles(import_graph())
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(group) for group in circles)


def test_no_module_reads_a_databases_private_attributes():
    """Code outside ``db.query`` reaches a database (``db``, ``self.db``, ``source.db``) through its public methods
    only: the preflop half of the database reads ``MatchDB`` as any caller does, not its lock or its kept data."""
    wrong = []
    for path in sorted((ROOT / "matchdb").rglob("*.py")):
        if path == ROOT / "matchdb" / "db" / "query.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else None
                if name in ("db", "database"):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} reads {name}.{node.attr}")
    assert not wrong, "private attributes of a database read from outside it:\n" + "\n".join(wrong)


# -- what imports cannot show: private attributes and state layouts read across packages ---------------------------

def _trees() -> dict[str, ast.Module]:
    trees = {}
    for path in sorted((ROOT / "matchdb").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        trees[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = ast.parse(path.read_text())
    return trees


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined_private_names(tree: ast.Module) -> set[str]:
    """Private names a module defines: functions, classes, methods, assigned names and attributes (``self._p = ...``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {name for name in names if _private(name)}


def test_no_module_reads_another_packages_private_attributes():
    """``table._p``, ``engine._act_kernel``: a private attribute that only another package defines is that package's own."""
    trees = _trees()
    owned: dict[str, set[str]] = {}
    for module, tree in trees.items():
        owned.setdefault(unit_of(module), set()).update(_defined_private_names(tree))
    wrong = []
    for module, tree in trees.items():
        mine = owned[unit_of(module)]
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in mine
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):  # its own class's
                others = sorted(unit for unit, names in owned.items() if node.attr in names)
                if others:
                    wrong.append(f"{module}:{node.lineno} reads .{node.attr} (defined in {', '.join(others)})")
    assert not wrong, "private attributes of another package read:\n" + "\n".join(sorted(set(wrong)))


def _layouts(tree: ast.Module) -> set[str]:
    """A module's state layout: its module-level names sharing a prefix with a ``<PREFIX>_FIELDS`` count (``G_SEATS``)."""
    names = {target.id for node in tree.body if isinstance(node, ast.Assign)  # whole numbers: indexes, not names
             and isinstance(node.value, (ast.Constant, ast.BinOp, ast.Name)) and not isinstance(
                 getattr(node.value, "value", 0), str)
             for target in node.targets if isinstance(target, ast.Name)}
    prefixes = {name.removesuffix("FIELDS") for name in names if re.fullmatch(r"_?[A-Z]+_FIELDS", name)}
    return {name for name in names for prefix in prefixes if name.startswith(prefix)}


def test_no_state_layout_is_published_or_read_across_packages():
    """No ``__all__`` lists a layout constant, and no module of another package imports or reads one."""
    trees = _trees()
    layouts = {module: _layouts(tree) for module, tree in trees.items()}
    wrong = []
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                listed = {elt.value for elt in getattr(node.value, "elts", []) if isinstance(elt, ast.Constant)}
                wrong += [f"{module}.__all__ lists {name}" for name in sorted(listed & layouts[module])]
        aliases = {}  # names bound to another package's modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in layouts and unit_of(node.module) != unit_of(module):
                wrong += [f"{module} imports {node.module}.{a.name}" for a in node.names if a.name in layouts[node.module]]
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in layouts and unit_of(full) != unit_of(module):
                        aliases[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in layouts and unit_of(a.name) != unit_of(module):
                        aliases[a.asname or a.name] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr in layouts[aliases[node.value.id]]):
                wrong.append(f"{module}:{node.lineno} reads {aliases[node.value.id]}.{node.attr}")
    assert not wrong, "state layouts published or read across packages:\n" + "\n".join(sorted(set(wrong)))
