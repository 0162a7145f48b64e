"""Reading a library: any flop's stored decisions by real cards, and reports over every stored flop.

A flop is looked up by its canonical index and its answers renamed to the
flop asked about (suit-isomorphic flops share one solution, as they share one
table). Numbers come back as stored: frequencies to 1/65,535, EVs to 1/32,767
of the decision's largest EV, equities to 1/65,534.
"""

from __future__ import annotations

import functools
import math
import os
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.canonical import CANONICAL_FLOPS, ORBIT_SIZES, canonicalize, rename
from matchdb.core.cards import CardsLike, format_cards, parse_cards
from matchdb.core.hole_cards import HAND_HIGH, HAND_LOW, N_HANDS, hand_index, hand_order, hand_positions
from matchdb.equity.reports import flop_texture
from matchdb.errors import CardError
from matchdb.library.packed import library_files
from matchdb.library.spec import LibraryError, LibrarySpec
from matchdb.library.store import (
    FlopAnswers,
    decode_categories,
    decode_equity,
    decode_ev,
    decode_strategy,
    decode_turn_ev,
    decode_turn_frequencies,
    library_spec,
    read_flop,
    stored_flops,
    turn_cards,
)
from matchdb.solver.categories import DRAWS, MADE_HANDS, category, group_hands

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = ["Library", "LibraryFlop", "LibraryNode", "open_library"]


def open_library(path: str | os.PathLike[str], db: Any = None) -> Library:
    """The library at ``path``; with ``db`` (a :class:`matchdb.MatchDB`), every flop read is checked against its table."""
    return Library(path, db)


@functools.cache
def _to_canonical(perm: int) -> np.ndarray:
    """For renaming ``perm``, the stored (canonical) hand position of each of the 1,326 real hands."""
    renamed = np.array([rename((int(h), int(low)), perm) for h, low in zip(HAND_HIGH, HAND_LOW, strict=True)])
    out: np.ndarray = hand_positions(renamed[:, 0], renamed[:, 1])
    return out


@functools.lru_cache(maxsize=64)
def _turn_classes(index: int) -> dict[int, tuple[int, int]]:
    """:func:`matchdb.library.store.turn_cards` of canonical flop ``index``."""
    return turn_cards([int(c) for c in CANONICAL_FLOPS[index]])


def _is_card(part: str) -> bool:
    """Whether a step of a line is a card (a turn dealt), not an action."""
    try:
        parse_cards(part, count=1)
    except CardError:
        return False
    return True


def _meetable(weights: np.ndarray, board: list[int]) -> np.ndarray:
    """For each hand, the weight of the hands in ``weights`` it can meet: none sharing a card with it (card removal
    by inclusion and exclusion: the total, less the hands holding either card, plus the very same hand)."""
    per_card = np.zeros(52)
    np.add.at(per_card, HAND_HIGH, weights)
    np.add.at(per_card, HAND_LOW, weights)
    out: np.ndarray = weights.sum() - per_card[HAND_HIGH] - per_card[HAND_LOW] + weights
    return out


def _line(line: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    if line is None:
        return ()
    if isinstance(line, str):
        return tuple(part.strip() for part in line.split(",") if part.strip())
    return tuple(str(part) for part in line)


class Library:
    """A library folder (``matchdb library build``): its spec, its stored flops, their decisions and reports."""

    #: Flops kept decoded and checked (about 18 MB each for the 3-bet spec's rainbow flop, its turn's decisions
    #: nearly all of it).
    CACHED_FLOPS = 16

    def __init__(self, path: str | os.PathLike[str], db: Any = None) -> None:
        self.path = Path(path)
        self.files = library_files(path)
        self.spec: LibrarySpec = library_spec(self.files)
        self.db = db
        self._kept: OrderedDict[int, FlopAnswers] = OrderedDict()

    def __repr__(self) -> str:
        return f"Library({str(self.path)!r}, spec={self.spec.name!r}, flops={len(self.flops())})"

    def flops(self) -> list[int]:
        """The canonical indices of the stored flops."""
        return stored_flops(self.files)

    def _read(self, index: int) -> FlopAnswers:
        """Flop ``index``'s answers, read and checked once while it stays among the last flops asked."""
        if index in self._kept:
            self._kept.move_to_end(index)
            return self._kept[index]
        answers = read_flop(self.files, index)
        if self.db is not None:
            own = (self.db.store.manifest(index) or {}).get("table_sha256")
            if own != answers.meta["table_sha256"]:
                raise LibraryError(
                    f"Flop {index} of the library '{self.files.name}' was solved on a table with SHA-256 "
                    f"{answers.meta['table_sha256'][:12]}..., but this database's is {str(own)[:12]}...; expected the "
                    "tables it was built on.")
        self._kept[index] = answers
        if len(self._kept) > self.CACHED_FLOPS:
            self._kept.popitem(last=False)
        return answers

    def flop(self, board: CardsLike) -> LibraryFlop:
        """The stored decisions of a flop (any three cards; the first three of a longer board)."""
        cards = parse_cards(board)
        canon = canonicalize(cards[:3])
        return LibraryFlop(self, format_cards(cards[:3]), canon.perm, self._read(canon.index))

    def node(self, board: CardsLike, line: str | tuple[str, ...] | list[str] | None = None) -> LibraryNode:
        """The decision after ``line`` (actions like ``"Check, Bet 30"``) on a flop; on the turn, either the flop
        and a line with the turn card in it (``"Check, Check, 2s, Bet 50"``) or the flop and the turn card as the
        board and the line without it (``"Check, Check, Bet 50"``)."""
        cards = parse_cards(board)
        if len(cards) not in (3, 4):
            raise LibraryError(f"The board is {format_cards(cards)!r}; expected a flop, or a flop and a turn card.")
        flop = self.flop(cards[:3])
        if len(cards) == 4:
            wanted = _line(line)
            if any(_is_card(part) for part in wanted):
                raise LibraryError(f"The line {', '.join(wanted)!r} names a card and the board {format_cards(cards)} a "
                                   "turn; expected the turn card in one of them.")
            ends = [end for end in flop.turn_lines() if wanted[: len(end)] == end]
            if not ends:
                known = "; ".join(", ".join(end) for end in flop.turn_lines()) or "none"
                raise LibraryError(f"The line {', '.join(wanted) or '(none)'!r} does not begin with a flop line that "
                                   f"closes the street with chips left; expected one of: {known}.")
            end = max(ends, key=len)
            line = (*end, format_cards(cards[3:]), *wanted[len(end):])
        return flop.node(line)

    def subgame(self, board: CardsLike, line: str | tuple[str, ...] | list[str], **options: Any) -> Any:
        """The turn after a flop ``line`` solved again from the library's stored ranges (``board``: the flop and
        the turn card); see :meth:`LibraryFlop.subgame`."""
        cards = parse_cards(board)
        if len(cards) != 4:
            raise LibraryError(f"The subgame's board is {format_cards(cards)!r}; expected a flop and a turn card.")
        return self.flop(cards[:3]).subgame(line, format_cards(cards[3:]), **options)

    def report(self, line: str | tuple[str, ...] | list[str] | None = None, by: str | None = None) -> DataFrame:
        """Every stored flop's figures at the decision after ``line``: the range's frequency of each action, its EV
        (chips) and equity, the flop's textures and its weight (how many of the 22,100 flops it stands for).

        With ``by`` a texture (``suits``, ``pairing``, ``high_card`` or ``connectedness``), one row per texture:
        the figures averaged over its flops, each counted as often as it is dealt. With ``by`` a hand category
        (``made`` or ``draws``, as :meth:`LibraryNode.categories` groups a flop's hands), one row per category over
        every flop: its share of the range, equity, EV, EQR and each action's frequency, each hand counted by its
        combos times its flop's weight.
        """
        import pandas as pd

        textures = ("suits", "pairing", "high_card", "connectedness")
        if by is not None and by not in (*textures, "made", "draws"):
            raise LibraryError(f"The report's 'by' is {by!r}; expected one of {', '.join(textures)}, made or draws.")
        if by in ("made", "draws"):
            return self._report_by_category(line, by)
        rows = []
        for index in self.flops():
            node = self._canonical_node(index, line)
            weight = node.combos
            total = weight.sum()
            hand_ev = np.nansum(node.strategy * np.nan_to_num(node.ev), axis=0)
            rows.append({"index": index, "flop": node.board, "weight": int(ORBIT_SIZES[index]),
                         **flop_texture(node.board),
                         **dict(zip(node.actions, node.frequencies(), strict=True)),
                         "ev": float(hand_ev @ weight / total) if total > 0 else np.nan,
                         "equity": float(np.nansum(node.equity * weight) / total) if total > 0 else np.nan})
        frame = pd.DataFrame(rows)
        if by is None:
            return frame
        figures = [c for c in frame.columns if c not in ("index", "flop", "weight", *textures)]
        grouped = frame.groupby(by, sort=True)
        summary: DataFrame = grouped.apply(lambda g: pd.Series({"flops": int(g["weight"].sum()), **{
            c: float(np.average(g[c], weights=g["weight"])) for c in figures}}), include_groups=False)
        return summary

    def _canonical_node(self, index: int, line: str | tuple[str, ...] | list[str] | None) -> LibraryNode:
        """The decision after ``line`` on canonical flop ``index``, in its canonical cards."""
        board = format_cards([int(c) for c in CANONICAL_FLOPS[index]])
        return LibraryFlop(self, board, 0, self._read(index)).node(line)

    def _report_by_category(self, line: str | tuple[str, ...] | list[str] | None, by: str) -> DataFrame:
        """:meth:`report` by hand category: every flop's category rows added up, each weighted by the category's
        combos times the flop's weight."""
        import pandas as pd

        sums: dict[str, dict[str, float]] = {}
        actions: list[str] = []
        total, pot = 0.0, 0
        for index in self.flops():
            node = self._canonical_node(index, line)
            actions, pot = node.actions, node.pot
            weight = float(ORBIT_SIZES[index])
            total += weight * float(node.combos.sum())
            for row in node.categories(by).to_dict(orient="records"):
                part = sums.setdefault(row[by], {})
                mass = weight * row["combos"]
                part["combos"] = part.get("combos", 0.0) + mass
                for figure in ("equity", "ev", *actions):
                    part[figure] = part.get(figure, 0.0) + mass * row[figure]
        rows = []
        for name in (MADE_HANDS if by == "made" else (*DRAWS, "no draw")):
            if name not in sums:
                continue
            part = sums[name]
            mass = part["combos"]
            equity, ev = part["equity"] / mass, part["ev"] / mass
            rows.append({by: name, "share": mass / total, "equity": equity, "ev": ev,
                         "eqr": ev / (equity * pot) if equity > 0 else np.nan,
                         **{action: part[action] / mass for action in actions}})
        return pd.DataFrame(rows, columns=[by, "share", "equity", "ev", "eqr", *actions]).set_index(by)

    def plot(self, line: str | tuple[str, ...] | list[str] | None = None, by: str = "suits",
             out: str | os.PathLike[str] | None = None, ax: Any = None, table: DataFrame | None = None) -> Any:
        """Draw :meth:`report` by a texture as the mix of actions of each group (stacked bars); return the Axes.
        ``table`` is that report when it is already made (a pass over every flop saved)."""
        from matchdb.plots import plot_action_mix

        table = self.report(line, by=by) if table is None else table
        actions = [column for column in table.columns if column not in ("flops", "share", "ev", "equity", "eqr")]
        shown = ", ".join(_line(line)) or "the first decision"
        return plot_action_mix(table[actions], title=f"{self.spec.name}: {shown}, by {by}", ax=ax, out=out)


class LibraryFlop:
    """One flop's stored decisions, in the real cards of the flop asked about."""

    def __init__(self, library: Library, board: str, perm: int, answers: FlopAnswers) -> None:
        self.library = library
        self.board = board
        self.index = answers.index
        self._perm = perm
        self._answers = answers
        self._lines = [tuple(line) for line in answers.meta["lines"]]

    def __repr__(self) -> str:
        return f"LibraryFlop({self.board!r}, index={self.index}, decisions={len(self._lines)})"

    @functools.cached_property
    def hand_categories(self) -> tuple[np.ndarray, np.ndarray]:
        """Each hand's made hand on the flop ('' for a hand in neither range) and its draws (names joined by ", "),
        in the 1,326-hand order of the flop's real cards; decoded when first asked."""
        made, drawn = decode_categories(self._answers.categories)
        order = _to_canonical(self._perm)
        return np.array(made, dtype=object)[order], np.array(drawn, dtype=object)[order]

    @property
    def lines(self) -> list[tuple[str, ...]]:
        """The lines of the stored decisions (the root's is ``()``)."""
        return list(self._lines)

    @property
    def exploitability_pct(self) -> float:
        return float(self._answers.meta["exploitability_pct"])

    def ranges_after(self, line: str | tuple[str, ...] | list[str]) -> tuple[np.ndarray, np.ndarray]:
        """OOP's and IP's ranges after the flop ``line`` (1,326 weights each, matchdb's hand order): the spec's
        ranges times each player's stored frequency of its own actions along the line, hand by hand (a weight
        below :data:`matchdb.core.ranges.MIN_WEIGHT`, far below the stored precision, is 0)."""
        from matchdb.core.ranges import MIN_WEIGHT, range_weights

        wanted = _line(line)
        spec = self.library.spec
        weights = [np.array(range_weights(spec.oop), dtype=np.float64), np.array(range_weights(spec.ip), dtype=np.float64)]
        for k, action in enumerate(wanted):
            node = self.node(wanted[:k])
            if action not in node.actions:
                raise LibraryError(f"The action {action!r} is not one of {', '.join(node.actions)} after "
                                   f"{', '.join(wanted[:k]) or 'the root'} on {self.board}.")
            p = 0 if node.player == "OOP" else 1
            weights[p] *= node.strategy[node.actions.index(action)]
        for w in weights:  # a product of stored frequencies (1/65,535 apart) below what a range may weigh: none
            w[w < MIN_WEIGHT] = 0.0
        return weights[0], weights[1]

    def subgame_spot(self, line: str | tuple[str, ...] | list[str], turn: str) -> dict[str, Any]:
        """The spot of the turn after a flop ``line`` that ends the flop (a call, or two checks), as
        :meth:`matchdb.MatchDB.solve` takes its keywords: both players' ranges from :meth:`ranges_after` (1,326
        weights each, as lists), the flop and ``turn`` as the board, the pot and stack the line leaves, and the
        spec's turn and river sizes and options. What :meth:`subgame` solves; over HTTP,
        ``/v1/library/{name}/subgame`` answers it as the body of ``POST /v1/solve``."""
        wanted = _line(line)
        if not wanted or wanted in self._lines or wanted[:-1] not in self._lines:
            raise LibraryError(f"The line {', '.join(wanted)!r} does not end the flop on {self.board}; expected a "
                               "stored decision's line and then a call or a check that closes the street.")
        last = wanted[-1]
        if last not in ("Call", "Check"):
            raise LibraryError(f"The line {', '.join(wanted)!r} ends with {last!r}; expected a call or a check that "
                               "closes the street (a fold ends the hand).")
        cards = parse_cards(turn, count=1)
        if set(cards) & set(parse_cards(self.board)):
            raise LibraryError(f"The turn {format_cards(cards)} is a card of the flop {self.board}; expected another card.")
        spec = self.library.spec
        sizes = [int(part) for action in wanted if (part := action.rsplit(" ", 1)[-1]).isdigit()]
        committed = max(sizes, default=0)  # each player's chips in on the flop: the last bet's or raise's total
        stack = spec.stack - committed
        if stack <= 0:
            raise LibraryError(f"The line {', '.join(wanted)!r} puts both players all-in; nothing is left to decide.")
        oop, ip = self.ranges_after(wanted)
        if not (oop.any() and ip.any()):
            raise LibraryError(f"The line {', '.join(wanted)!r} is never played on {self.board} by the library's "
                               "solution (a range is empty after it); expected a line the solution plays.")
        spot = spec.solve_options()
        spot.update(oop=oop.tolist(), ip=ip.tolist(), board=self.board + format_cards(cards),
                    pot=spec.pot + 2 * committed, stack=stack)
        return spot

    def subgame(self, line: str | tuple[str, ...] | list[str], turn: str, db: Any = None, **options: Any) -> Any:
        """The turn after a flop ``line`` that ends the flop (a call, or two checks) solved again, deeper than the
        library stores: the spot of :meth:`subgame_spot` (``options`` override its keywords, like ``target``); a
        :class:`matchdb.solver.Solution` of the flop and ``turn``, on ``db`` (default: the library's database).

        A re-solve of the subgame with the stored ranges fixed: its strategies are an equilibrium of that subgame,
        not the full game's strategy at those nodes (the two agree where the solve of the flop was exact).
        """
        spot = self.subgame_spot(line, turn)
        db = db if db is not None else self.library.db
        if db is None:
            raise LibraryError("A subgame is solved on the match tables; expected open_library(path, db) or db=.")
        spot.update(options)
        return db.solve(**spot)

    def node(self, line: str | tuple[str, ...] | list[str] | None = None) -> LibraryNode:
        """The decision after ``line``: flop actions, or a flop line that closes the street, the turn card and the
        turn's actions (``"Check, Check, 2s, Bet 50"``)."""
        wanted = _line(line)
        for k, part in enumerate(wanted):
            if _is_card(part):
                return self._turn_node(wanted[:k], part, wanted[k + 1:])
        try:
            k = self._lines.index(wanted)
        except ValueError:
            shown = ", ".join(wanted) or "the root"
            known = "; ".join(", ".join(line) or "(root)" for line in self._lines[:6])
            raise LibraryError(f"The library stores no decision after {shown!r} on {self.board}; expected a flop line "
                               f"like: {known}, or one that closes the flop, a turn card and turn actions.") from None
        return LibraryNode.of_flop(self, k)

    def turn_lines(self) -> list[tuple[str, ...]]:
        """The flop lines after which the turn's decisions are stored (those that close the flop with chips left)."""
        return [tuple(end["line"]) for end in self._answers.meta["turn"]["ends"]]

    def turn_cards(self) -> list[str]:
        """The turn cards of this flop (real cards, in card order): every card off the flop."""
        flop = parse_cards(self.board)
        return [format_cards([card]) for card in range(52) if card not in flop]

    def turn_report(self, line: str | tuple[str, ...] | list[str],
                    turn_line: str | tuple[str, ...] | list[str] | None = None) -> DataFrame:
        """The turn decision after the flop ``line`` (one that closes the street) and ``turn_line`` (default: the
        turn's first decision) on every turn card, one row per card: the card, the player to act, the range's
        combos there, each action's frequency over the range, the range's EV (chips) and its equity (NaN where the
        library was opened without a database, or no hand of the range can reach the card)."""
        import pandas as pd

        wanted, after = _line(line), _line(turn_line)
        rows = []
        for card in self.turn_cards():
            node = self.node((*wanted, card, *after))
            weight = node.combos
            total = weight.sum()
            hand_ev = np.nansum(node.strategy * np.nan_to_num(node.ev), axis=0)
            rows.append({"turn": card, "player": node.player, "combos": float(total),
                         **dict(zip(node.actions, node.frequencies(), strict=True)),
                         "ev": float(hand_ev @ weight / total) if total > 0 else np.nan,
                         "equity": float(np.nansum(node.equity * weight) / total) if total > 0 else np.nan})
        return pd.DataFrame(rows)

    def turn_pot(self, line: str | tuple[str, ...] | list[str]) -> int:
        """The pot on the turn after a flop ``line`` of :meth:`turn_lines`."""
        return int(self._turn_end(_line(line))["pots"][0])

    def _turn_end(self, flop_line: tuple[str, ...]) -> dict[str, Any]:
        """The manifest's entry of the turn after ``flop_line`` (a line that closes the flop with chips left)."""
        ends: dict[tuple[str, ...], dict[str, Any]] = {tuple(end["line"]): end for end in self._answers.meta["turn"]["ends"]}
        end = ends.get(flop_line)
        if end is None:
            known = "; ".join(", ".join(line) for line in ends) or "none (every line ends all-in)"
            raise LibraryError(f"The library stores no turn after {', '.join(flop_line) or 'nothing'!r} on {self.board}; "
                               f"expected a flop line that closes the street with chips left: {known}.")
        return end

    def _turn_node(self, flop_line: tuple[str, ...], card: str, turn_line: tuple[str, ...]) -> LibraryNode:
        """The stored turn decision after ``flop_line``, the turn ``card`` and ``turn_line``: its numbers decoded, its
        combos from :meth:`ranges_after` the flop line times each player's stored turn frequencies of its own
        actions along ``turn_line`` (hands holding a board card at 0), decoded once per decision on the way."""
        end = self._turn_end(flop_line)
        real = parse_cards(card, count=1)[0]
        flop = parse_cards(self.board)
        if real in flop:
            raise LibraryError(f"The turn {card} is a card of the flop {self.board}; expected another card.")
        lines = [tuple(line) for line in end["lines"]]
        if turn_line not in lines:
            known = "; ".join(", ".join(line) or "(first)" for line in lines[:6])
            raise LibraryError(f"The library stores no turn decision after {', '.join(turn_line)!r} (after "
                               f"{', '.join(flop_line)}, {card} on {self.board}); expected a turn line like: {known}.")
        turn = self._answers.meta["turn"]
        rep, perm = _turn_classes(self.index)[rename([real], self._perm)[0]]
        first = end["first"] + turn["cards"].index(format_cards([rep])) * len(lines)
        order = _to_canonical(perm)[_to_canonical(self._perm)]
        board = [*flop, real]
        weights = [w.copy() for w in self.ranges_after(flop_line)]
        touching = np.isin(HAND_HIGH, board) | np.isin(HAND_LOW, board)
        for w in weights:
            w[touching] = 0.0
        for step in range(len(turn_line) + 1):  # each decision along the line, then the one asked about
            d = lines.index(turn_line[:step])
            actions = list(end["actions"][d])
            player = 0 if end["players"][d] == "OOP" else 1
            strategy = decode_turn_frequencies(self._answers.turn_strategy[first + d, : len(actions)][:, order])
            combos = weights[player] * _meetable(weights[1 - player], board)
            strategy[:, combos <= 0] = 0.0
            if step == len(turn_line):
                break
            action = turn_line[step]
            if action not in actions:
                raise LibraryError(f"The action {action!r} is not one of {', '.join(actions)} after "
                                   f"{', '.join((*flop_line, format_cards([real]), *turn_line[:step]))} on {format_cards(board)}.")
            weights[player] *= strategy[actions.index(action)]
        ev = decode_turn_ev(self._answers.turn_ev[first + d, : len(actions)][:, order], float(turn["ev_step"]))
        db = self.library.db

        def equity() -> np.ndarray:  # computed when first asked: walking a line needs only the frequencies
            if db is None or not weights[1 - player].any():
                return np.full(N_HANDS, np.nan)
            values = np.asarray(db.equities(format_cards(board), villain=weights[1 - player]).values, dtype=np.float64)
            out: np.ndarray = np.where(combos > 0, values, np.nan)
            return out

        return LibraryNode(self, format_cards(board), (*flop_line, format_cards([real]), *turn_line),
                           end["players"][d], actions, int(end["pots"][d]), strategy, ev, combos, equity,
                           street="turn")

    def turn_decision_lines(self, flop_line: str | tuple[str, ...] | list[str]) -> list[tuple[str, ...]]:
        """The lines of the turn decisions stored after the flop line ``flop_line`` (the first is ``()``); the same
        on every turn card."""
        return [tuple(line) for line in self._turn_end(_line(flop_line))["lines"]]


class LibraryNode:
    """A stored decision: who acts, the actions, and per hand (matchdb's 1,326-hand order, real cards) the
    strategy, each action's EV, the hand's combos and equity.

    A flop decision's numbers are stored in 16 bits. A turn decision's frequencies are stored as 8-bit square
    roots (a frequency f to about sqrt(f)/255: a small one keeps its first digits) and its EVs in steps of half a
    percent of the spec's pot; its combos are the spec's ranges times the stored frequencies along the line (as :meth:`LibraryFlop.ranges_after`), and its equities are computed from those ranges on the
    turn board when the library was opened with a database (NaN without one).
    """

    def __init__(self, flop: LibraryFlop, board: str, line: tuple[str, ...], player: str, actions: list[str], pot: int,
                 strategy: np.ndarray, ev: np.ndarray, combos: np.ndarray,
                 equity: np.ndarray | Callable[[], np.ndarray], street: str = "flop") -> None:
        self.board = board
        self.line = line
        self.player = player
        self.actions = actions
        self.pot = pot
        self.strategy = strategy
        self.ev = ev
        self.combos = combos
        self.street = street
        self._equity = equity
        self._flop = flop

    @functools.cached_property
    def equity(self) -> np.ndarray:
        """Each hand's equity against the opponent's range here (NaN for a hand not held here)."""
        return self._equity() if callable(self._equity) else self._equity

    @classmethod
    def of_flop(cls, flop: LibraryFlop, k: int) -> LibraryNode:
        """Flop ``flop``'s stored decision ``k``."""
        meta = flop._answers.meta
        order = _to_canonical(flop._perm)
        actions = list(meta["actions"][k])
        n = len(actions)
        answers = flop._answers
        return cls(flop, flop.board, tuple(meta["lines"][k]), meta["players"][k], actions, int(meta["pots"][k]),
                   decode_strategy(answers.strategy[k, :n][:, order]),
                   decode_ev(answers.ev[k, :n][:, order], float(meta["ev_scale"][k])),
                   answers.combos[k][order].astype(np.float64), decode_equity(answers.equity[k][order]))

    def next_stored(self) -> list[str]:
        """The actions that lead to another stored decision (of the flop, the turn after a line that closes the
        flop, or of the same turn)."""
        if self.street == "flop":  # a flop decision, or a line that closes the flop: the turn's decisions below
            stored = set(self._flop.lines) | set(self._flop.turn_lines())
            return [a for a in self.actions if (*self.line, a) in stored]
        at = next(k for k, step in enumerate(self.line) if _is_card(step))  # the turn card's place in the line
        stored = set(self._flop.turn_decision_lines(self.line[:at]))
        return [a for a in self.actions if (*self.line[at + 1:], a) in stored]

    def __repr__(self) -> str:
        return f"LibraryNode(board={self.board!r}, line={list(self.line)!r}, player={self.player!r})"

    def hands(self) -> list[str]:
        """The hands the player to act holds here (combos above 0)."""
        names = hand_order()
        return [names[i] for i in np.flatnonzero(self.combos > 0)]

    def hand(self, hand: CardsLike) -> dict[str, tuple[float, float]]:
        """For one hand: each action's (frequency, EV in chips)."""
        i = hand_index(hand)
        if self.combos[i] <= 0:
            raise LibraryError(f"{format_cards(parse_cards(hand))} is not in {self.player}'s range after "
                               f"{', '.join(self.line) or 'the root'} on {self.board}.")
        return {a: (float(self.strategy[j, i]), float(self.ev[j, i])) for j, a in enumerate(self.actions)}

    @property
    def made(self) -> np.ndarray:
        """Each hand's made hand on the node's board ('' for a hand not held here)."""
        return self._categories[0]

    @property
    def draws(self) -> np.ndarray:
        """Each hand's draws on the node's board, names joined by ", "."""
        return self._categories[1]

    @functools.cached_property
    def _categories(self) -> tuple[np.ndarray, np.ndarray]:
        """The flop's stored categories, or on the turn each held hand's computed on the turn board."""
        if self.street == "flop":
            return self._flop.hand_categories
        board = parse_cards(self.board)
        made = np.full(N_HANDS, "", dtype=object)
        drawn = np.full(N_HANDS, "", dtype=object)
        for i in np.flatnonzero(self.combos > 0):
            kind, draws = category([int(HAND_HIGH[i]), int(HAND_LOW[i])], board)
            made[i], drawn[i] = kind, ", ".join(draws)
        return made, drawn

    def to_pandas(self) -> DataFrame:
        """The hands of the player to act here as a pandas DataFrame: hand, combos, equity, EV (chips), EQR,
        made hand, draws, and each action's frequency and EV (columns ``ev ACTION``), as the solver's nodes give
        them."""
        import pandas as pd

        keep = self.combos > 0
        hand_ev = np.nansum(self.strategy * np.nan_to_num(self.ev), axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            eqr = hand_ev / (self.equity * self.pot)
        table: dict[str, Any] = {"hand": np.array(hand_order())[keep], "combos": self.combos[keep],
                                 "equity": self.equity[keep], "ev": hand_ev[keep], "eqr": eqr[keep],
                                 "made": self.made[keep].astype(str), "draws": self.draws[keep].astype(str)}
        for a, action in enumerate(self.actions):
            table[action] = self.strategy[a][keep]
        for a, action in enumerate(self.actions):
            table[f"ev {action}"] = self.ev[a][keep]
        return pd.DataFrame(table)

    def categories(self, by: str = "made") -> DataFrame:
        """The range of the player to act grouped by made hand (``by="made"``) or by draw (``by="draws"``): combos,
        share, equity, EV and each action's frequency (:func:`matchdb.solver.categories.group_hands`)."""
        if by not in ("made", "draws"):
            raise LibraryError(f"by is {by!r}; expected 'made' or 'draws'.")
        return group_hands(self.to_pandas(), self.actions, by)

    def frequencies(self) -> list[float]:
        """Each action's share over the range, weighted by combos (NaN where the range is empty)."""
        total = self.combos.sum()
        if total <= 0:
            return [math.nan] * len(self.actions)
        return [float(x) for x in self.strategy @ self.combos / total]
