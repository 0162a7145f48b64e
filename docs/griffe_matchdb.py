"""A griffe extension that lets the API reference render matchdb's docstrings as they are written.

The docstrings are numpy style, with doctest examples in running text and Sphinx
cross-reference roles (``:func:`open```). Markdown would read ``>>>`` as nested
quotes and ``hands[0][:2]`` as a link, and print the roles verbatim, so before
mkdocstrings renders a docstring this extension

- fences every run of doctest lines (a ``>>>`` line, its ``...`` continuations
  and its expected output, up to a blank line) as a ``pycon`` code block, or,
  after a numpy section such as ``Parameters``, opens an ``Examples`` section;
- writes a one-line ``name : description`` parameter the way numpy style
  reads it (name, then its description indented), since the types are in
  the signatures; and
- turns each role into an optional cross-reference: a link where the target is
  documented, plain code where it is not (a private kernel, ``ValueError``).
  Names re-exported by ``matchdb`` (``matchdb.HandTable``) point at the module
  that defines them; a bare name (``:func:`open_database```) is looked up in the
  docstring's own module.

>>> fence_doctests("Text.\\n>>> 1 + 1\\n2\\n\\nMore text.")
'Text.\\n```pycon\\n>>> 1 + 1\\n2\\n```\\n\\nMore text.'
>>> convert_roles(":func:`~matchdb.open`", str)
'<autoref identifier="matchdb.open" optional><code>open</code></autoref>'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`(~?)([^`]+)`")


_SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-{3,}$")
_PARAMETER = re.compile(r"^(\*{0,2}\w+(?:, \*{0,2}\w+)*) : (.+)$")
_NAMED_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Raises", "Warns"}


def fence_doctests(text: str) -> str:
    """Make a numpy docstring's doctests and parameter lines render as written.

    A run of doctest lines (a ``>>>`` line up to a blank line) in running text
    is fenced as ```` ```pycon ````; after a numpy section (``Parameters``) it
    opens an ``Examples`` section instead, where griffe renders doctests
    itself. In a ``Parameters`` section a one-line ``name : description`` (how
    these docstrings write a parameter whose type is in the signature) becomes
    ``name`` with its description below it, as numpy style reads it.
    """
    out: list[str] = []
    lines = text.split("\n")
    section = None
    position = 0
    while position < len(lines):
        line = lines[position]
        if position + 1 < len(lines) and _SECTION.match(f"{line}\n{lines[position + 1]}"):
            section = line.strip()
            out += [line, lines[position + 1]]
            position += 2
            continue
        if line.lstrip().startswith(">>>") and section != "Examples":
            indent = line[: len(line) - len(line.lstrip())]
            if section is not None and not indent:
                section = "Examples"
                out += ["Examples", "--------"]
                continue
            out.append(f"{indent}```pycon")
            while position < len(lines) and lines[position].strip():
                out.append(lines[position])
                position += 1
            out.append(f"{indent}```")
            continue
        parameter = _PARAMETER.match(line) if section in _NAMED_SECTIONS else None
        if parameter:
            out += [parameter.group(1), f"    {_prose(parameter.group(2))}"]
        else:
            out.append(_prose(line))
        position += 1
    return "\n".join(out)


def _prose(line: str) -> str:
    """``W[i][j]`` written in prose is an index, not a Markdown reference link."""
    return line if "`" in line else line.replace("][", "]\\[")


def convert_roles(text: str, resolve: Callable[[str], str]) -> str:
    """Replace Sphinx roles by optional autorefs; ``resolve`` maps a written target to an identifier."""

    def replace(match: re.Match[str]) -> str:
        short, target = match.groups()
        label = target.rsplit(".", 1)[-1] if short else target
        return f'<autoref identifier="{resolve(target)}" optional><code>{label}</code></autoref>'

    return _ROLE.sub(replace, text)


def _exports() -> dict[str, str]:
    import matchdb

    return dict(matchdb._EXPORTS)


class MatchdbDocstrings(griffe.Extension):
    """Fences doctests and converts Sphinx roles in every docstring of the package."""

    def __init__(self) -> None:
        self.exports = _exports()

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        module = obj.module

        def resolve(target: str) -> str:
            head, _, name = target.rpartition(".")
            if head == "matchdb" and name in self.exports:
                return f"{self.exports[name]}.{name}"
            if target.startswith("matchdb.") and target.split(".")[1] in self.exports:
                first, _, rest = target.removeprefix("matchdb.").partition(".")
                return f"{self.exports[first]}.{first}.{rest}"
            if target.split(".")[0] in module.members:
                return f"{module.path}.{target}"
            return target

        obj.docstring.value = convert_roles(fence_doctests(obj.docstring.value), resolve)
