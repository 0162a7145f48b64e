"""The solution libraries a server was started with (``matchdb serve --library DIR``): ``/v1/library`` lists them,
``/v1/library/{name}/node`` answers a stored decision of any flop.

A library is named by its spec's name. A question names the flop by its real cards and the decision by its line
from the flop's first decision; the answer gives the player to act, the pot, the actions and the range's
frequency of each, and with ``hand=`` that hand's frequency and EV of each action (chips, as the solver gives
them). A flop the library lacks is 404; the library's folder is never named to a client.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI, Query

from matchdb.db.query import MatchDB
from matchdb.human.store import SessionNotFoundError
from matchdb.library import Library, LibraryError, open_library

__all__ = ["add_routes", "open_libraries"]


def open_libraries(folders: Iterable[str | os.PathLike[str]], db: MatchDB) -> dict[str, Library]:
    """The libraries at ``folders`` by their specs' names, checked against ``db``'s tables as they are read; two
    with one name are refused."""
    libraries: dict[str, Library] = {}
    for folder in folders:
        library = open_library(folder, db)
        if library.spec.name in libraries:
            raise LibraryError(f"Two libraries are named {library.spec.name!r} ('{libraries[library.spec.name].path}' "
                               f"and '{library.path}'); expected one library per spec name.")
        libraries[library.spec.name] = library
    return libraries


def _own(library: Library, error: LibraryError) -> LibraryError:
    """The error with the library's folder replaced by its name, as a client may read it."""
    text = str(error)
    for where in {library.files.name, str(library.path), str(library.path.resolve())}:
        text = text.replace(f"'{where}'", f"{library.spec.name!r}")
    return type(error)(text)


def add_routes(app: FastAPI, db: MatchDB, libraries: dict[str, Library]) -> None:
    """Add the library routes answering from ``libraries`` (by name)."""

    @app.get("/v1/library", summary="The solution libraries this server answers from: name, spec, flops stored")
    def get_libraries() -> dict[str, Any]:
        return {"libraries": [{"name": name, "spec": library.spec.to_dict(), "flops": len(library.flops())}
                              for name, library in libraries.items()]}

    @app.get("/v1/library/{name}/node", summary="A stored decision of a library on any flop; one hand's figures")
    def get_node(name: str, board: str = Query(..., description="a flop, like Kd7h2s"),
                 line: str = Query("", description="actions from the flop's first decision, like 'Check, Bet 30'"),
                 hand: str | None = Query(None, description="a hand, like AhKh: its frequency and EV of each action"),
                 ) -> dict[str, Any]:
        library = libraries.get(name)
        if library is None:
            known = ", ".join(map(repr, libraries)) or "none (start matchdb serve with --library DIR)"
            raise SessionNotFoundError(f"No library is named {name[:40]!r}; this server has {known}.")
        try:
            node = library.node(board, line)
            answer: dict[str, Any] = {"library": name, "board": node.board, "line": list(node.line),
                                      "player": node.player, "pot": node.pot, "actions": node.actions,
                                      "frequencies": node.frequencies()}
            if hand is not None:
                answer["hand"] = {"hand": hand, "actions": {a: {"frequency": f, "ev": ev}
                                                            for a, (f, ev) in node.hand(hand).items()}}
        except LibraryError as error:
            raise _own(library, error) from None
        return answer
