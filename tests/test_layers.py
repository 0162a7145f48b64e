"""The package's layers: each module imports only modules on the README's layer lines above its own.

The README lists the layers in the order data flows; this test reads that
list, so the documentation and the code cannot disagree. A package's own
submodules (``matchdb.storage.*``) may import each other; the package root
``matchdb/__init__.py`` re-exports names lazily and is exempt.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def declared_layers() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"Layers, lowest first[^\n]*\n+```text\n(.*?)```", text, re.S)
    assert block, "the README's architecture section lists the layers in a ```text block after 'Layers, lowest first'"
    return [line.split("#")[0].split() for line in block.group(1).splitlines() if line.split("#")[0].strip()]


def module_imports() -> dict[str, set[str]]:
    found = {}
    for path in sorted((ROOT / "matchdb").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        imports = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "matchdb":
                if node.module == "matchdb":
                    imports |= {f"matchdb.{alias.name}" for alias in node.names}
                else:
                    imports.add(node.module)
            elif isinstance(node, ast.Import):
                imports |= {alias.name for alias in node.names if alias.name.split(".")[0] == "matchdb"}
        found[name] = imports
    return found


def layer_of(module: str, layers: list[list[str]]) -> int:
    short = module.removeprefix("matchdb.").split(".")[0]
    for position, names in enumerate(layers):
        if short in names:
            return position
    raise AssertionError(f"module {module} is on no layer line of the README")


def test_every_module_is_on_a_layer_and_imports_only_lower_layers():
    layers = declared_layers()
    imports = module_imports()
    wrong = []
    for module, targets in imports.items():
        if module == "matchdb":
            continue
        mine = layer_of(module, layers)
        package = module.removeprefix("matchdb.").split(".")[0]
        for target in targets:
            if target.removeprefix("matchdb.").split(".")[0] == package:
                continue  # a package's own submodules
            if layer_of(target, layers) >= mine:
                wrong.append(f"{module} (line {mine + 1}) imports {target} (line {layer_of(target, layers) + 1})")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_the_readme_names_no_module_that_does_not_exist():
    modules = {name.removeprefix("matchdb.").split(".")[0] for name in module_imports()} - {"matchdb"}
    listed = {name for names in declared_layers() for name in names}
    assert listed == modules, (sorted(listed - modules), sorted(modules - listed))
