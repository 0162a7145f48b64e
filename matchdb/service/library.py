"""The solution libraries a server was started with (``matchdb serve --library DIR``): ``/v1/library`` lists them,
``/v1/library/{name}/node`` answers a stored decision of any flop or turn, ``/turns`` one turn decision on every
turn card (a turn report), ``/deal`` and ``/grade`` train on them.

A library is named by its spec's name. A question names the flop by its real cards and the decision by its line
from the flop's first decision; the answer gives the player to act, the pot, the actions and the range's
frequency of each, with ``hand=`` that hand's frequency and EV of each action (chips, as the solver gives
them), and with ``hands=true`` every hand of the range there and its categories (what the ``/solver`` page
draws). ``/deal`` deals a decision as the trainer does (:mod:`matchdb.library.trainer`: board, line, player, hand,
actions; never the solution) and ``/grade`` answers a pick. ``/subgame`` gives the turn after a flop line
that closes the street as a spot to solve, deeper than the library stores (:meth:`matchdb.library.LibraryFlop.subgame_spot`:
the ranges the stored strategies leave, as 1,326 weights each): the body of ``POST /v1/solve``, which solves it
as a job under the server's budget. A flop the library lacks is 404; the library's folder is never named to a
client.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
from fastapi import FastAPI, Query
from pydantic import BaseModel, Field

from matchdb.core.cards import format_cards, parse_cards
from matchdb.db.query import MatchDB
from matchdb.human.store import SessionNotFoundError
from matchdb.library import Library, LibraryError, LibraryNode, open_library
from matchdb.library.trainer import deal, grade_pick, summarize
from matchdb.service.solves import SolveSpot, json_ready

__all__ = ["add_routes", "node_hands", "open_libraries"]


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


def _steps(line: str) -> list[str]:
    """A line's steps, as a client wrote them separated by commas."""
    return [part.strip() for part in line.split(",") if part.strip()]


def _own(library: Library, error: LibraryError) -> LibraryError:
    """The error with the library's folder replaced by its name, as a client may read it."""
    text = str(error)
    for where in {library.files.name, str(library.path), str(library.path.resolve())}:
        text = text.replace(f"'{where}'", f"{library.spec.name!r}")
    return type(error)(text)


class Pick(BaseModel):
    """One pick of a training session: the drill (board, line, hand) and the action picked."""

    board: str = Field(max_length=20)
    line: list[str] = Field(default_factory=list, max_length=40)
    hand: str = Field(max_length=10)
    action: str = Field(max_length=40)


class Picks(BaseModel):
    """A training session's picks, for its summary (graded again here: a client sends no figures)."""

    picks: list[Pick] = Field(max_length=500)


def node_hands(node: LibraryNode) -> dict[str, Any]:
    """The hands of the player to act at a stored decision and their categories, as ``/v1/solve/{id}/node`` gives
    a solve's (the player's name in lower case as the key; no ``weight``: a library stores combos)."""
    frame = node.to_pandas()
    records = []
    for row in frame.to_dict(orient="records"):
        record = {k: row[k] for k in ("hand", "combos", "equity", "ev", "eqr", "made", "draws")}
        record["strategy"] = [row[a] for a in node.actions]
        record["action_ev"] = [row[f"ev {a}"] for a in node.actions]
        records.append(record)
    name = node.player.lower()
    categories = {by: node.categories(by).to_dict(orient="records") for by in ("made", "draws")}
    return {"hands": {name: records}, "categories": {name: categories}}


def add_routes(app: FastAPI, db: MatchDB, libraries: dict[str, Library]) -> None:
    """Add the library routes answering from ``libraries`` (by name)."""

    @app.get("/v1/library", summary="The solution libraries this server answers from: name, spec, flops stored")
    def get_libraries() -> dict[str, Any]:
        return {"libraries": [{"name": name, "spec": library.spec.to_dict(), "flops": len(library.flops())}
                              for name, library in libraries.items()]}

    def find(name: str) -> Library:
        library = libraries.get(name)
        if library is None:
            known = ", ".join(map(repr, libraries)) or "none (start matchdb serve with --library DIR)"
            raise SessionNotFoundError(f"No library is named {name[:40]!r}; this server has {known}.")
        return library

    @app.get("/v1/library/{name}/node", summary="A stored decision of a library on any flop; one hand's figures")
    def get_node(name: str, board: str = Query(..., max_length=20, description="a flop, like Kd7h2s, or a flop and a turn card"),
                 line: str = Query("", max_length=400, description="actions from the flop's first decision, like 'Check, Bet 30' "
                                   "(on the turn, then the turn card and the turn's actions; a line that closes the flop "
                                   "answers the deal: the turn cards)"),
                 hand: str | None = Query(None, max_length=10, description="a hand, like AhKh: its frequency and EV of each action"),
                 hands: bool = Query(False, description="also every hand of the range and its categories"),
                 ) -> dict[str, Any]:
        library = find(name)
        try:
            flop = library.flop(board)
            steps = tuple(_steps(line))
            if len(parse_cards(board)) == 3 and steps in flop.turn_lines():  # the flop closed: the turn to deal
                deal_answer: dict[str, Any] = {
                    "library": name, "board": flop.board, "line": list(steps), "street": "flop", "kind": "chance",
                    "player": None, "pot": flop.turn_pot(steps), "actions": [], "frequencies": [], "next": [],
                    "cards": flop.turn_cards(), "exploitability_pct": flop.exploitability_pct}
                if hands:
                    deal_answer.update({"hands": {"oop": []}, "categories": {"oop": {"made": [], "draws": []}}})
                return deal_answer
            node = library.node(board, line)
            answer: dict[str, Any] = {"library": name, "board": node.board, "line": list(node.line), "street": node.street,
                                      "kind": "action", "player": node.player, "pot": node.pot,
                                      "actions": node.actions, "frequencies": node.frequencies(),
                                      "exploitability_pct": library.flop(board).exploitability_pct}
            if hand is not None:
                answer["hand"] = {"hand": hand, "actions": {a: {"frequency": f, "ev": ev}
                                                            for a, (f, ev) in node.hand(hand).items()}}
            answer["next"] = node.next_stored()  # actions to a stored decision
            if hands:
                answer.update(node_hands(node))
        except LibraryError as error:
            raise _own(library, error) from None
        out: dict[str, Any] = json_ready(answer)
        return out

    @app.get("/v1/library/{name}/turns", summary="A turn decision on every turn card after a flop line (a turn report)")
    def get_turns(name: str, board: str = Query(..., max_length=20, description="a flop, like Kd7h2s"),
                  line: str = Query(..., max_length=400, description="a flop line that closes the street, like 'Check, Check'"),
                  turn_line: str = Query("", max_length=400, description="the turn's actions before the decision (default: none)"),
                  ) -> dict[str, Any]:
        library = find(name)
        try:
            if len(parse_cards(board)) != 3:
                raise LibraryError(f"The board is {board!r}; expected a flop (the report gives every turn card).")
            flop = library.flop(board)
            frame = flop.turn_report(line, turn_line)
        except LibraryError as error:
            raise _own(library, error) from None
        actions = [c for c in frame.columns if c not in ("turn", "player", "combos", "ev", "equity")]
        rows = [{"turn": row["turn"], "player": row["player"], "combos": row["combos"],
                 "frequencies": [row[a] for a in actions], "ev": row["ev"], "equity": row["equity"]}
                for row in frame.to_dict(orient="records")]
        out: dict[str, Any] = json_ready({"library": name, "board": flop.board, "line": _steps(line),
                                          "turn_line": _steps(turn_line), "actions": actions, "rows": rows})
        return out

    @app.get("/v1/library/{name}/subgame", summary="The turn after a flop line as a spot to solve (POST it to /v1/solve)")
    def get_subgame(name: str, board: str = Query(..., max_length=20, description="the flop and a turn card, like Kd7h2s5c"),
                    line: str = Query(..., max_length=400, description="a flop line that closes the street, like 'Bet 30, Call'"),
                    ) -> dict[str, Any]:
        library = find(name)
        try:
            cards = parse_cards(board, count=4)
            spot = library.flop(cards[:3]).subgame_spot(line, format_cards(cards[3:]))
        except LibraryError as error:
            raise _own(library, error) from None
        body = SolveSpot.model_validate({("raise" if k == "raise_" else k): v for k, v in spot.items()})
        return {"library": name, "spot": body.model_dump(by_alias=True)}

    @app.get("/v1/library/{name}/deal", summary="A decision dealt from a library to train on (never its solution)")
    def get_deal(name: str, player: str | None = Query(None, max_length=10, description="OOP or IP (default: either)"),
                 seed: int | None = Query(None, ge=0, le=2**63 - 1, description="seed of the deal (default: fresh)"),
                 ) -> dict[str, Any]:
        library = find(name)
        try:
            return deal(library, np.random.default_rng(seed), player).to_dict()
        except LibraryError as error:
            raise _own(library, error) from None

    @app.get("/v1/library/{name}/grade", summary="The solution's answer to a pick: frequencies, EVs, EV lost")
    def get_grade(name: str, board: str = Query(..., max_length=20, description="the drill's flop"),
                  line: str = Query("", max_length=400, description="the drill's line"),
                  hand: str = Query(..., max_length=10, description="the drill's hand"),
                  action: str = Query(..., max_length=40, description="the action picked, one of the drill's"),
                  ) -> dict[str, Any]:
        library = find(name)
        try:
            out: dict[str, Any] = json_ready(grade_pick(library, board, line, hand, action).to_dict())
        except LibraryError as error:
            raise _own(library, error) from None
        return out

    @app.post("/v1/library/{name}/summary", summary="A training session's tally from its picks (graded again here)")
    def post_summary(name: str, session: Picks) -> dict[str, Any]:
        library = find(name)
        try:
            grades = [grade_pick(library, pick.board, pick.line, pick.hand, pick.action) for pick in session.picks]
            out: dict[str, Any] = json_ready(summarize(grades).to_dict())
        except LibraryError as error:
            raise _own(library, error) from None
        return out
