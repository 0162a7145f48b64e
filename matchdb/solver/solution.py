"""A solved spot and what it answers at every node: strategies, EVs, equities, ranges, hand categories.

:class:`Solution` is what :meth:`matchdb.MatchDB.solve` returns. ``solution.node(line)``
walks a line of actions and dealt cards (:mod:`matchdb.solver.navigate`) to a
:class:`SolutionNode`, which answers for each hand of either player:

- the range reaching the node (``weights``: the starting weight times the
  player's own strategy on the way) and its ``combos`` (the weight times the
  opponent's weight of the hands it can meet: how often the hand is held);
- the strategy of the player to act (``strategy``, the average strategy) and
  its mix over the range (``frequencies``, weighted by combos);
- ``equity`` against the opponent's range at the node (win + tie / 2 over
  every runout left, card removal exact), ``ev`` (the chips the hand expects
  to take from the pot less those it puts in from this node on, the starting
  pot counted as dead money, as postflop-solver reports it: without rake OOP's
  and IP's EVs at the root add up to the pot), ``action_ev`` (each action's EV
  for the player to act; folding is 0), and ``eqr`` (EV / (equity x pot));
- ``categories``: the range grouped by made hand and by draw
  (:mod:`matchdb.solver.categories`) with combos, strategy, equity and EV.

EVs are computed when first asked, from the subtree of the node's street and
cards (one traversal per player with the average strategy) and kept.
``to_pandas()`` gives a node's hands as a table, ``to_dict()``/``to_json()``
its summary; :meth:`Solution.save` writes the solve to one compressed file
bound to the flop's match table, :func:`matchdb.solver.load` reads it back.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.core.cards import format_card, format_cards
from matchdb.core.hole_cards import hand_order
from matchdb.core.pairs import board_columns
from matchdb.solver.categories import category, group_hands
from matchdb.solver.game import canonical_frame, canonical_rows
from matchdb.solver.layout import ACTION, CHANCE, FOLD, SHOWDOWN
from matchdb.solver.navigate import Place, node_strategy, parse_line, root_place, step, walk
from matchdb.solver.sizes import SolverError
from matchdb.solver.solve import AVERAGE, SolveStats, Spot, values
from matchdb.solver.tree import PLAYERS, STREETS

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from pandas import DataFrame

    from matchdb.solver.game import Hands

__all__ = ["Solution", "SolutionNode", "FORMAT", "FORMAT_VERSION", "player_index"]

#: The saved file's format name and version.
FORMAT = "matchdb-solution"
FORMAT_VERSION = 1

_KIND_NAMES = {ACTION: "action", FOLD: "fold", SHOWDOWN: "showdown", CHANCE: "chance"}


def player_index(player: int | str) -> int:
    """0 for OOP, 1 for IP, from ``0``/``1`` or ``'oop'``/``'ip'`` (any case).

    >>> player_index("IP"), player_index(0)
    (1, 0)
    """
    if isinstance(player, str) and player.strip().lower() in ("oop", "ip"):
        return ("oop", "ip").index(player.strip().lower())
    if isinstance(player, (int, np.integer)) and not isinstance(player, bool) and player in (0, 1):
        return int(player)
    raise SolverError(f"The player {player!r} is neither 'oop' (0) nor 'ip' (1).")


def _hand_names(hands: Hands) -> list[str]:
    names = hand_order()
    return [names[i] for i in hands.index]


class Solution:
    """A solved spot (see the module's docstring). Made by :meth:`matchdb.MatchDB.solve` or :func:`matchdb.solver.load`."""

    def __init__(self, spot: Spot, *, stats: SolveStats, question: dict[str, Any], weights: tuple[np.ndarray, np.ndarray],
                 target: float, locks: Mapping[Any, Any] | None = None) -> None:
        self.spot = spot
        self.stats = stats
        self.question = question
        self.question_weights = weights
        self.target = float(target)
        self.locks = dict(locks or {})
        self._values: OrderedDict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = OrderedDict()

    # -- the solve ------------------------------------------------------------------

    @property
    def exploitability(self) -> float:
        """Exploitability of the average strategy in chips (the mean of both players' best-response gains)."""
        return float(self.stats.exploitability)

    @property
    def exploitability_pct(self) -> float:
        """Exploitability in % of the starting pot."""
        return 100.0 * self.exploitability / self.spot.options.pot

    @property
    def iterations(self) -> int:
        return int(self.stats.iterations)

    @property
    def seconds(self) -> float:
        return float(self.stats.seconds)

    @property
    def memory(self) -> int:
        """Bytes the solve allocated (the estimate checked before allocating)."""
        return int(self.spot.memory)

    @property
    def board(self) -> str:
        return format_cards(self.spot.board)

    def __repr__(self) -> str:
        return (f"Solution(board={self.board!r}, pot={self.spot.options.pot}, stack={self.spot.options.stack}, "
                f"iterations={self.iterations}, exploitability={self.exploitability:.4g})")

    # -- nodes ----------------------------------------------------------------------

    def node(self, line: str | Sequence[object] | None = None) -> SolutionNode:
        """The node a line of actions and dealt cards leads to (``None`` or ``""``: the root).

        >>> solution = db.solve("AA,QQ", "KK", "AhKhQh2c3d", pot=100, stack=100, bet="a")  # doctest: +SKIP
        >>> solution.node("Check").actions  # doctest: +SKIP
        ['Check', 'All-in 100']
        """
        return SolutionNode(self, walk(self.spot, line))

    @property
    def root(self) -> SolutionNode:
        return SolutionNode(self, root_place(self.spot))

    @property
    def oop_equity(self) -> float:
        return self.root.range_equity(0)

    @property
    def ip_equity(self) -> float:
        return self.root.range_equity(1)

    @property
    def oop_ev(self) -> float:
        return self.root.range_ev(0)

    @property
    def ip_ev(self) -> float:
        return self.root.range_ev(1)

    def _subtree_values(self, place: Place) -> tuple[np.ndarray, np.ndarray]:
        """Both players' values of every node of the place's street subtree instance (stored hand order), kept."""
        spot = self.spot
        sub = int(spot.flat.sub[place.node])
        first = len(place.line) - _steps_in_subtree(spot, place)
        key = (sub, place.t, place.r, place.line[:first])
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        width = int(spot.kspot[1].n.max())
        rows = []
        for p in (0, 1):
            opp = 1 - p
            reach = np.zeros(width, dtype=np.float32)
            reach[place.perm[opp]] = place.base_weights[opp]
            rows.append(values(spot, AVERAGE, p, (sub, place.t, place.r), reach).copy())
        self._values[key] = (rows[0], rows[1])
        while len(self._values) > 64:
            self._values.popitem(last=False)
        return self._values[key]

    # -- summary ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The summary ``matchdb solve --json`` prints: the spot, how the solve went, the root's figures and
        OOP's root strategy over its range."""
        root = self.root
        options = self.spot.options
        return {
            "board": self.board,
            "oop": self.spot.ranges[0],
            "ip": self.spot.ranges[1],
            "pot": options.pot,
            "stack": options.stack,
            "exploitability": self.exploitability,
            "exploitability_pct": self.exploitability_pct,
            "target_pct": 100.0 * self.target / options.pot,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "memory_bytes": self.memory,
            "oop_equity": root.range_equity(0),
            "ip_equity": root.range_equity(1),
            "oop_ev": root.range_ev(0),
            "ip_ev": root.range_ev(1),
            "root": {"player": "OOP", "actions": root.actions, "frequencies": root.frequencies()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def to_text(self) -> str:
        """The summary as ``matchdb solve`` prints it."""
        d = self.to_dict()
        lines = [
            f"{d['board']}  pot {d['pot']}  stack {d['stack']}",
            f"  OOP {d['oop']}",
            f"  IP  {d['ip']}",
            f"  exploitability {d['exploitability']:.4g} chips ({d['exploitability_pct']:.3f} % of the pot) after "
            f"{d['iterations']} iterations, {d['seconds']:.1f} s, {d['memory_bytes'] / 1e6:.1f} MB",
            f"  OOP equity {d['oop_equity']:.4f}  EV {d['oop_ev']:.2f}    IP equity {d['ip_equity']:.4f}  EV {d['ip_ev']:.2f}",
            "  OOP at the root: " + ", ".join(f"{a} {f:.3f}" for a, f in zip(d["root"]["actions"], d["root"]["frequencies"], strict=True)),
        ]
        return "\n".join(lines)

    # -- files --------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the solve to one compressed file (numpy's ``.npz``): the question, how it went, the summed
        strategies and the SHA-256 of the flop's match table, which loading checks."""
        spot = self.spot
        bufs = spot.bufs
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "flop_index": spot.flop_index,
            "table_sha256": spot.table_sha256,
            "question": self.question,
            "target": self.target,
            "stats": {"iterations": self.stats.iterations, "seconds": self.stats.seconds,
                      "exploitability": self.stats.exploitability, "history": self.stats.history},
            "locks": [[list(map(str, parse_line(line))), _lock_json(strategy)] for line, strategy in self.locks.items()],
            "elements": spot.layout.elements,
        }
        arrays: dict[str, Any] = {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                  "oop_weights": np.asarray(self.question_weights[0]), "ip_weights": np.asarray(self.question_weights[1])}
        if bufs.compressed:
            arrays.update(strategy16=bufs.strategy16, sscale=bufs.sscale)
        else:
            arrays.update(strategy=bufs.strategy)
        from matchdb.outputs import write_whole  # written whole or not at all

        target = Path(path)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")

        def write() -> None:
            with open(partial, "wb") as handle:
                np.savez_compressed(handle, **arrays)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, target)

        write_whole(target, partial, write)


def _lock_json(strategy: Any) -> Any:
    if isinstance(strategy, np.ndarray):
        return strategy.tolist()
    if isinstance(strategy, Mapping):
        return {str(k): _lock_json(v) for k, v in strategy.items()}
    if isinstance(strategy, (list, tuple)):
        return [_lock_json(v) for v in strategy]
    return strategy


def _steps_in_subtree(spot: Spot, place: Place) -> int:
    """How many of the line's last steps are actions inside the place's street subtree (after its last card)."""
    count = 0
    for text in reversed(place.line):
        if len(text) == 2 and text[0] in "23456789TJQKA" and text[1] in "cdhs":
            break
        count += 1
    return count


class SolutionNode:
    """One node of a solved game (see the module's docstring)."""

    def __init__(self, solution: Solution, place: Place) -> None:
        self.solution = solution
        self.place = place
        spot = solution.spot
        self._spot = spot
        k = place.node
        self.kind = _KIND_NAMES[int(spot.flat.kind[k])]
        self._tree_node = spot.tree.nodes[k]

    def __repr__(self) -> str:
        who = f", player={self.player!r}" if self.player else ""
        return f"SolutionNode(line={list(self.line)!r}, kind={self.kind!r}{who}, board={self.board!r})"

    # -- where ----------------------------------------------------------------------

    @property
    def line(self) -> tuple[str, ...]:
        return self.place.line

    @property
    def board(self) -> str:
        return format_cards(self.place.board)

    @property
    def street(self) -> str:
        return STREETS[len(self.place.board) - 3]

    @property
    def player(self) -> str | None:
        """``'OOP'`` or ``'IP'`` at a decision, else None."""
        return PLAYERS[self._tree_node.player] if self.kind == "action" else None

    @property
    def actions(self) -> list[str]:
        """The actions of the player to act (empty elsewhere)."""
        return [str(a) for a in self._tree_node.actions] if self.kind == "action" else []

    @property
    def pot(self) -> int:
        """Chips in the pot now: the starting pot, the matched chips and this street's unmatched bet."""
        return self._tree_node.pot(self._spot.options.pot) + abs(self.place.bets[0] - self.place.bets[1])

    def cards(self) -> list[str]:
        """At a deal, the cards that can come (each leaves both players a hand); else empty."""
        if self.kind != "chance":
            return []
        out = []
        for card in range(52):
            if card in self.place.board:
                continue
            alive = [bool(np.any(self.place.weights[p][~(self._spot.hands[p].cards == card).any(axis=1)])) for p in (0, 1)]
            if all(alive):
                out.append(format_card(card))
        return out

    def play(self, step_: object) -> SolutionNode:
        """The node after an action (or, at a deal, a card)."""
        return SolutionNode(self.solution, step(self._spot, self.place, step_))

    deal = play

    def child(self, *steps: object) -> SolutionNode:
        node = self
        for s in steps:
            node = node.play(s)
        return node

    # -- ranges ---------------------------------------------------------------------

    def hands(self, player: int | str) -> list[str]:
        """The player's hands (all of their starting range's hands off the starting board), in the order of
        every per-hand array."""
        return _hand_names(self._spot.hands[player_index(player)])

    def weights(self, player: int | str) -> np.ndarray:
        """The player's range reaching this node, per hand (0 for hands that hold a card dealt since)."""
        return self.place.weights[player_index(player)].copy()

    def _opponent_weight(self, p: int) -> np.ndarray:
        """For each of p's hands, the opponent's weight of the hands it can meet here."""
        spot = self._spot
        opp = 1 - p
        w = self.place.weights[opp]
        cards = spot.hands[opp].cards
        minus = np.zeros(52)
        np.add.at(minus, cards[:, 0], w)
        np.add.at(minus, cards[:, 1], w)
        mine = spot.hands[p].cards
        same = spot.kspot[1].same[p, : len(mine)]
        same_w = np.where(same >= 0, w[np.maximum(same, 0)], 0.0)
        out = w.sum() - minus[mine[:, 0]] - minus[mine[:, 1]] + same_w
        board = np.isin(mine, np.array(self.place.board)).any(axis=1)
        return np.where(board, 0.0, np.maximum(out, 0.0))

    def combos(self, player: int | str) -> np.ndarray:
        """How often each hand is held here: its weight times the opponent's weight of the hands it can meet
        (postflop-solver's normalised weights)."""
        p = player_index(player)
        reach: NDArray[np.float64] = self.place.weights[p] * self._opponent_weight(p)
        return reach

    # -- strategy -------------------------------------------------------------------

    @property
    def strategy(self) -> np.ndarray:
        """The player to act's average strategy, (actions, hands); each column sums to 1."""
        if self.kind != "action":
            raise SolverError(f"The node after {', '.join(self.line) or 'the root'} is a {self.kind}; only a decision has a strategy.")
        return node_strategy(self._spot, self.place)

    def frequencies(self) -> list[float]:
        """Each action's share over the range of the player to act, weighted by combos."""
        if self.kind != "action":
            return []
        p = self._tree_node.player
        weight = self.combos(p)
        total = weight.sum()
        if total <= 0:
            return [math.nan] * len(self.actions)
        return [float(x) for x in self.strategy @ weight / total]

    # -- values ---------------------------------------------------------------------

    def _raw_values(self, p: int) -> np.ndarray:
        rows = self.solution._subtree_values(self.place)[p]
        chosen: NDArray[np.float64] = rows[int(self._spot.flat.pos[self.place.node])][self.place.perm[p]].astype(np.float64)
        return chosen

    def _to_ev(self, p: int, raw: np.ndarray) -> np.ndarray:
        opp_weight = self._opponent_weight(p)
        bias = max(self.place.bets[p] - self.place.bets[1 - p], 0)
        base = 0.5 * self._spot.options.pot + self._tree_node.amount + bias
        with np.errstate(divide="ignore", invalid="ignore"):
            ev = raw * self._spot.numcomb / opp_weight + base
        return np.where((opp_weight > 0) & (self.place.weights[p] > 0), ev, np.nan)

    def ev(self, player: int | str) -> np.ndarray:
        """Each hand's EV in chips (NaN for a hand not in the range here)."""
        p = player_index(player)
        return self._to_ev(p, self._raw_values(p))

    def action_ev(self) -> np.ndarray:
        """(actions, hands): each action's EV for the player to act (folding is 0)."""
        if self.kind != "action":
            raise SolverError(f"The node after {', '.join(self.line) or 'the root'} is a {self.kind}; only a decision has actions.")
        p = self._tree_node.player
        rows = self.solution._subtree_values(self.place)[p]
        flat = self._spot.flat
        out = []
        for a, action in enumerate(self._tree_node.actions):
            child = int(flat.child[self.place.node, a])
            raw = rows[int(flat.pos[child])][self.place.perm[p]].astype(np.float64)
            ev = self._to_ev(p, raw)
            out.append(np.where(np.isnan(ev), np.nan, 0.0) if action.kind == 0 else ev)
        return np.array(out)

    def equity(self, player: int | str) -> np.ndarray:
        """Each hand's equity against the opponent's range here (win + tie / 2 over every runout left)."""
        from matchdb.equity.heads_up import all_hands_scores

        p = player_index(player)
        spot = self._spot
        _, local = canonical_frame(spot.board)
        weights = np.zeros(1176)
        rows_opp = canonical_rows(spot.board, spot.hands[1 - p])
        np.add.at(weights, rows_opp, self.place.weights[1 - p])
        if not weights.any():
            return np.full(len(spot.hands[p]), np.nan)
        columns = board_columns([int(local[c]) for c in self.place.board[3:]])
        score, deals = all_hands_scores(spot.table, columns, weights)
        rows = canonical_rows(spot.board, spot.hands[p])
        with np.errstate(divide="ignore", invalid="ignore"):
            eq = score[rows] / deals[rows]
        return np.where((deals[rows] > 0) & (self.place.weights[p] > 0), eq, np.nan)

    def eqr(self, player: int | str) -> np.ndarray:
        """Each hand's equity realisation: EV / (equity x pot)."""
        p = player_index(player)
        with np.errstate(divide="ignore", invalid="ignore"):
            eqr: NDArray[np.float64] = self.ev(p) / (self.equity(p) * self.pot)
        return eqr

    def _range_mean(self, p: int, per_hand: np.ndarray) -> float:
        weight = self.combos(p)
        keep = (weight > 0) & ~np.isnan(per_hand)
        total = weight[keep].sum()
        return float((per_hand[keep] * weight[keep]).sum() / total) if total > 0 else math.nan

    def range_ev(self, player: int | str) -> float:
        """The range's EV here (hands weighted by combos)."""
        p = player_index(player)
        return self._range_mean(p, self.ev(p))

    def range_equity(self, player: int | str) -> float:
        """The range's equity here (hands weighted by combos)."""
        p = player_index(player)
        return self._range_mean(p, self.equity(p))

    # -- tables ---------------------------------------------------------------------

    def hand_categories(self, player: int | str) -> list[tuple[str, tuple[str, ...]]]:
        """(made hand, draws) of each of the player's hands on this node's board (``('', ())`` for a hand that holds
        a card dealt since the root)."""
        p = player_index(player)
        board = self.place.board
        # a hand holding a card dealt since the root is out of the range here: no category ('')
        return [category(hand, board) if not set(hand) & set(board) else ("", ())
                for hand in (tuple(int(c) for c in cards) for cards in self._spot.hands[p].cards)]

    def to_pandas(self, player: int | str | None = None) -> DataFrame:
        """The node's hands as a pandas DataFrame: hand, weight, combos, equity, EV, EQR, made hand, draws and,
        for the player to act, each action's frequency and EV (the player to act by default; at a deal or an
        end, OOP). Hands not in the range here are left out."""
        import pandas as pd

        p = player_index(player) if player is not None else (self._tree_node.player if self.kind == "action" else 0)
        keep = self.place.weights[p] > 0
        cats = self.hand_categories(p)
        table: dict[str, Any] = {
            "hand": np.array(self.hands(p))[keep],
            "weight": self.place.weights[p][keep],
            "combos": self.combos(p)[keep],
            "equity": self.equity(p)[keep],
            "ev": self.ev(p)[keep],
            "eqr": self.eqr(p)[keep],
            "made": np.array([c[0] for c in cats])[keep],
            "draws": np.array([", ".join(c[1]) for c in cats])[keep],
        }
        if self.kind == "action" and p == self._tree_node.player:
            strategy = self.strategy
            values = self.action_ev()
            for a, name in enumerate(self.actions):
                table[name] = strategy[a][keep]
            for a, name in enumerate(self.actions):
                table[f"ev {name}"] = values[a][keep]
        return pd.DataFrame(table)

    def categories(self, player: int | str | None = None, by: str = "made") -> DataFrame:
        """The range grouped by made hand (``by="made"``) or by draw (``by="draws"``, a hand counted under each
        of its draws, ``no draw`` when none): combos, share of the range, equity, EV and, for the player to
        act, each action's frequency; as a pandas DataFrame in the order of the categories."""
        if by not in ("made", "draws"):
            raise SolverError(f"by is {by!r}; expected 'made' or 'draws'.")
        return group_hands(self.to_pandas(player), self.actions, by)

    def to_dict(self, hands: bool = False) -> dict[str, Any]:
        """The node's summary: where it is, the actions and their frequencies, each range's combos, equity and EV;
        with ``hands`` also every hand's figures."""
        out: dict[str, Any] = {"line": list(self.line), "kind": self.kind, "board": self.board, "street": self.street,
                               "pot": self.pot, "player": self.player, "actions": self.actions,
                               "frequencies": self.frequencies()}
        for p, name in ((0, "oop"), (1, "ip")):
            out[name] = {"combos": float(self.combos(p).sum()), "equity": self.range_equity(p), "ev": self.range_ev(p)}
        if hands:
            out["hands"] = {name: _records(self.to_pandas(p)) for p, name in ((0, "oop"), (1, "ip"))}
        return out

    def to_json(self, hands: bool = False) -> str:
        return json.dumps(self.to_dict(hands))


def _records(frame: DataFrame) -> list[dict[str, Any]]:
    records = frame.to_dict(orient="records")
    return [{k: (None if isinstance(v, float) and math.isnan(v) else (v.item() if hasattr(v, "item") else v))
             for k, v in r.items()} for r in records]


def read_saved(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata and arrays of a saved solution; refused in one sentence when the file is not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise SolverError(f"No saved solution at '{os.fspath(path)}'; expected a file written by Solution.save or matchdb solve --save.") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError):
        raise SolverError(f"The file '{os.fspath(path)}' is not a saved solution (numpy .npz) or is damaged.") from None
    try:
        meta = json.loads(arrays["meta"].tobytes().decode())
    except (KeyError, ValueError, UnicodeDecodeError):
        raise SolverError(f"The file '{os.fspath(path)}' lacks a readable solution header; it is not a saved solution.") from None
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise SolverError(f"The file '{os.fspath(path)}' is of format {meta.get('format')!r} version "
                          f"{meta.get('format_version')!r}; expected {FORMAT!r} version {FORMAT_VERSION}.")
    return meta, arrays
