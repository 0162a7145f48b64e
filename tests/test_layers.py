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
