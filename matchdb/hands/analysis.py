"""Analysing replayed hands: each player's statistics, all-in adjusted results and every decision's equity.

**Player statistics** (per player name, over the hands they were dealt):

- ``vpip``: hands where they put chips in preflop of their own will (a call
  or a raise; posting a blind and checking the big blind do not count);
- ``pfr``: hands where they raised preflop;
- ``3-bet``: hands where they re-raised preflop when facing exactly one
  raise, over the hands where they faced one (the blinds are not raises);
- ``aggression``: bets and raises after the flop over calls after the flop
  (the arena's aggression factor);
- ``wtsd``: showdowns over flops seen; ``w$sd``: showdowns that paid them
  something over showdowns;
- ``bb/100``: chips won or lost (after the rake the record shows) in big
  blinds per 100 hands;
- ``adjusted bb/100``: the same with every all-in whose hands are shown
  (the betting over before the river, every player left showing cards)
  counted at its exact expectation instead of the runout's result: the
  pots times each player's exact share over every remaining board, after
  the same rake. Heads-up after the flop the share comes from the database
  (``db.outcome``: win + tie / 2), otherwise from
  :func:`matchdb.hands.allin.expected_payments` (exhaustive runouts).

**Decisions** (``decisions=True``, needs a database): every betting action
of a player whose cards the record shows, with the exact equity against the
players still in the hand at that moment (their shown cards where the record
shows them, else the stated ``opponent_range``, random by default): after
the flop ``db.multiway`` (exact where it can count, else sampled with its
standard error), preflop heads-up against a random hand the database's
preflop table, preflop against shown hands an exhaustive enumeration, and
no figure preflop against several unknown hands. Each decision carries its
pot odds (the call over the pot after the call) and West's rate of return
(equity over pot odds) when there was something to call.

>>> from matchdb.hands.reader import read_text
>>> text = '''
... variant = 'NT'
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ['d dh p1 AsAd', 'd dh p2 ????', 'd dh p3 KcKd', 'p3 cbr 6', 'p1 cbr 100', 'p2 f', 'p3 cc',
...            'd db 2c7dJh', 'd db 3s', 'd db 9h', 'p1 sm AsAd', 'p3 sm KcKd']
... players = ['Ann', 'Bob', 'Cy']
... '''
>>> result = analyse(read_text(text, "allin.phh"))
>>> ann = result.players["Ann"]
>>> ann.hands, ann.vpip, ann.three_bets, ann.three_bet_chances, ann.net_bb, round(ann.adjusted_bb, 4)
(1, 1, 1, 1, 51.0, 32.7655)
>>> result.players["Cy"].net_bb, round(result.players["Cy"].adjusted_bb, 4)
(-50.0, -31.7655)
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import chain, compress, count, repeat
from operator import is_
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.answers import plain
from matchdb.core.cards import format_cards
from matchdb.core.hole_cards import hand_class
from matchdb.hands.allin import expected_payments
from matchdb.hands.reader import DB, HandsError
from matchdb.hands.replayer import Replayed, ReplayReport, replay, shown_holes
from matchdb.play import engine as E

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = [
    "POSITIONS",
    "Analysis",
    "Decision",
    "PlayerStats",
    "SeatFacts",
    "allin_adjusted",
    "analyse",
    "hand_facts",
    "plot_winnings",
    "position_of",
]

#: Position classes used by statistics and fitting: the blinds, early seats, late seats (cutoff and button).
POSITIONS = ("blinds", "early", "late")


@dataclass
class PlayerStats:
    """Counts for one player; the rates are properties (NaN where nothing was counted).

    ``net`` and ``adjusted`` are in the records' currency; ``net_bb`` and
    ``adjusted_bb`` in big blinds of each hand; ``allins`` counts the hands
    whose all-in was adjusted.
    """

    player: str
    hands: int = 0
    vpip: int = 0
    pfr: int = 0
    three_bets: int = 0
    three_bet_chances: int = 0
    postflop_aggressive: int = 0
    postflop_calls: int = 0
    flops: int = 0
    showdowns: int = 0
    showdown_wins: int = 0
    net: float = 0.0
    adjusted: float = 0.0
    net_bb: float = 0.0
    adjusted_bb: float = 0.0
    allins: int = 0

    @property
    def vpip_rate(self) -> float:
        return self.vpip / self.hands if self.hands else math.nan

    @property
    def pfr_rate(self) -> float:
        return self.pfr / self.hands if self.hands else math.nan

    @property
    def three_bet_rate(self) -> float:
        return self.three_bets / self.three_bet_chances if self.three_bet_chances else math.nan

    @property
    def aggression(self) -> float:
        """Bets and raises after the flop per call after the flop (infinite with raises and no call)."""
        if self.postflop_calls:
            return self.postflop_aggressive / self.postflop_calls
        return math.inf if self.postflop_aggressive else math.nan

    @property
    def wtsd(self) -> float:
        return self.showdowns / self.flops if self.flops else math.nan

    @property
    def wsd(self) -> float:
        return self.showdown_wins / self.showdowns if self.showdowns else math.nan

    @property
    def bb_per_100(self) -> float:
        return 100 * self.net_bb / self.hands if self.hands else math.nan

    @property
    def adjusted_bb_per_100(self) -> float:
        return 100 * self.adjusted_bb / self.hands if self.hands else math.nan

    def row(self) -> dict[str, Any]:
        """The counts and rates as one flat dict (CSV, JSON and pandas use it)."""
        return asdict(self) | {
            "vpip_rate": self.vpip_rate, "pfr_rate": self.pfr_rate, "three_bet_rate": self.three_bet_rate,
            "aggression": self.aggression, "wtsd": self.wtsd, "wsd": self.wsd, "bb_per_100": self.bb_per_100,
            "adjusted_bb_per_100": self.adjusted_bb_per_100,
        }


#: PlayerStats counts in the order the compiled analysis adds them up.
_TALLY = ("hands", "vpip", "pfr", "three_bets", "three_bet_chances", "postflop_aggressive", "postflop_calls", "flops",
          "showdowns", "showdown_wins", "net", "adjusted", "net_bb", "adjusted_bb", "allins")
_FLOAT_FIELDS = {"net", "adjusted", "net_bb", "adjusted_bb"}


@dataclass(frozen=True)
class Decision:
    """One betting action of a player whose cards are shown, with its equity, pot odds and rate of return.

    ``equity`` is None where it is not computed (see the module notes);
    ``standard_error`` is 0 for an exact figure. ``opponents`` says whom the
    equity is against (shown hands or the stated range).
    """

    hand: str
    player: str
    street: str
    action: str
    hole: str
    board: str
    to_call: float
    pot: float
    pot_odds: float
    equity: float | None
    standard_error: float
    rate_of_return: float | None
    opponents: tuple[str, ...]


@dataclass(frozen=True)
class SeatFacts:
    """What one seat did in one replayed hand (the statistics and the fitting read these)."""

    seat: int
    position: str
    vpip: bool
    pfr: bool
    three_bet: bool
    three_bet_chance: bool
    postflop_aggressive: int
    postflop_calls: int
    flop: bool
    showdown: bool
    showdown_win: bool
    net: int
    adjusted: float
    allin: bool


def position_of(seat: int, seats: int, button: int) -> str:
    """The position class of ``seat`` at a table of ``seats`` with the button on ``button`` (:data:`POSITIONS`).

    >>> [position_of(s, 6, 5) for s in range(6)]
    ['blinds', 'blinds', 'early', 'early', 'late', 'late']
    >>> position_of(1, 2, 1), position_of(0, 2, 1)
    ('late', 'blinds')
    """
    after = (seat - button) % seats  # 0 the button, 1 the small blind, ...
    if seats == 2:
        return "late" if after == 0 else "blinds"
    if after in (1, 2):
        return "blinds"
    if after == 0 or after == seats - 1:
        return "late"
    return "early"


def hand_facts(done: Replayed, db: MatchDB | None = None) -> list[SeatFacts]:
    """Per seat, what the statistics count in one replayed hand (``db`` answers heads-up post-flop all-ins)."""
    record, engine = done.record, done.engine
    n = record.size
    preflop_raises = 0
    vpip = [False] * n
    pfr = [False] * n
    three = [False] * n
    chance = [False] * n
    aggressive = [0] * n
    calls = [0] * n
    folded_at = [5] * n
    for step in done.steps:
        s = step.seat
        if step.street == 0:
            if preflop_raises == 1:
                chance[s] = True
                if step.kind == E.RAISE:
                    three[s] = True
            if step.kind in (E.CALL, E.RAISE):
                vpip[s] = True
            if step.kind == E.RAISE:
                pfr[s] = True
                preflop_raises += 1
        elif step.kind == E.RAISE:
            aggressive[s] += 1
        elif step.kind == E.CALL:
            calls[s] += 1
        if step.kind == E.FOLD:
            folded_at[s] = step.street
    saw_flop = len(done.board) >= 3
    net = done.net
    adjusted = _adjusted(done, net, db)
    out = []
    for s in range(n):
        alive = folded_at[s] == 5
        out.append(SeatFacts(
            seat=s, position=position_of(s, n, engine.button), vpip=vpip[s], pfr=pfr[s], three_bet=three[s],
            three_bet_chance=chance[s], postflop_aggressive=aggressive[s], postflop_calls=calls[s],
            flop=saw_flop and folded_at[s] > 0, showdown=done.showdown and alive,
            showdown_win=done.showdown and alive and done.won[s] > 0, net=net[s],
            adjusted=net[s] if adjusted is None else adjusted[s], allin=adjusted is not None and alive,
        ))
    return out


def _adjusted(done: Replayed, net: Sequence[int], db: MatchDB | None) -> list[float] | None:
    """All-in adjusted results per seat, or None when the hand has no all-in with every live hand shown."""
    if not done.showdown:
        return None
    last_street = done.steps[-1].street if done.steps else 0
    dealt = (0, 3, 4, 5)[last_street]
    if dealt >= 5:
        return None
    engine = done.engine
    n = done.record.size
    alive = [done.engine.holes[s] is not None for s in range(n)]
    folded = {step.seat for step in done.steps if step.kind == E.FOLD}
    alive = [a and s not in folded for s, a in enumerate(alive)]
    if any(alive[s] and done.holes[s] is None for s in range(n)):
        return None
    return allin_adjusted(done.holes, done.board[:dealt], done.contributions, alive, engine.won, net, done.rake, db)


def allin_adjusted(holes: Sequence[Any], board: Sequence[int], contributions: Sequence[int], alive: Sequence[bool],
                   won: Sequence[float], net: Sequence[float], rake: int, db: MatchDB | None = None) -> list[float]:
    """Each seat's result with the all-in counted at its exact expectation (see the module notes).

    ``holes`` are the shown hands (live seats), ``board`` the cards dealt
    when the betting ended, ``won`` the engine's payments, ``net`` the
    results as recorded and ``rake`` what the record kept from the pot.
    """
    n = len(contributions)
    holes = [holes[s] if alive[s] else None for s in range(n)]
    live = [s for s in range(n) if alive[s]]
    pot = sum(won)
    expected: list[float]
    if db is not None and len(live) == 2 and len(board) >= 3 and _single_pot(contributions, alive):
        a, b = live
        outcome = db.outcome(holes[a], board, villain=[format_cards(holes[b])])
        share = outcome.win + outcome.tie / 2
        expected = [0.0] * n
        expected[a] = pot * share
        expected[b] = pot * (1 - share)
    else:
        expected = expected_payments([h if h is not None else (0, 0) for h in holes], board, contributions, alive)
    kept = 1 - rake / pot if pot else 1.0
    return [net[s] + (expected[s] - won[s]) * kept for s in range(n)]


def _single_pot(contributions: Sequence[int], alive: Sequence[bool]) -> bool:
    live = {c for c, a in zip(contributions, alive, strict=True) if a}
    return len(live) == 1 and all(c <= max(live) for c in contributions)


class Analysis:
    """Statistics of many hands: per player (:attr:`players`), the replay's counts, decisions and winnings series.

    :attr:`series` holds, for each tracked player, the hand labels and the
    per-hand net and all-in adjusted results in big blinds (what
    :meth:`plot` draws); only players named in ``track`` are kept, so memory
    stays flat in the number of hands.
    """

    def __init__(self) -> None:
        self._players: dict[str, PlayerStats] = {}
        self._base: dict[str, PlayerStats] = {}  # counted by add() (the Python replay)
        self._index: dict[str, int] = {}
        self._tally = np.zeros((0, len(_TALLY)))
        self._players_ready = True
        self.decisions: list[Decision] = []
        self.report = ReplayReport()
        self.series: dict[str, tuple[list[str], list[float], list[float]]] = {}

    def add(self, done: Replayed, db: MatchDB | None = None, track: Iterable[str] = ()) -> None:
        record = done.record
        bb = record.big_blind
        unit = record.unit
        self._players_ready = False
        for facts in hand_facts(done, db):
            name = record.players[facts.seat]
            self._index.setdefault(name, len(self._index))
            stats = self._base.get(name)
            if stats is None:
                stats = self._base[name] = PlayerStats(name)
            stats.hands += 1
            stats.vpip += facts.vpip
            stats.pfr += facts.pfr
            stats.three_bets += facts.three_bet
            stats.three_bet_chances += facts.three_bet_chance
            stats.postflop_aggressive += facts.postflop_aggressive
            stats.postflop_calls += facts.postflop_calls
            stats.flops += facts.flop
            stats.showdowns += facts.showdown
            stats.showdown_wins += facts.showdown_win
            stats.net += facts.net / unit
            stats.adjusted += facts.adjusted / unit
            stats.net_bb += facts.net / bb
            stats.adjusted_bb += facts.adjusted / bb
            stats.allins += facts.allin
            if name in track:
                labels, nets, adjusted = self.series.setdefault(name, ([], [], []))
                labels.append(record.label)
                nets.append(facts.net / bb)
                adjusted.append(facts.adjusted / bb)

    def add_block(self, block: Any, db: MatchDB | None = None, track: Iterable[str] = ()) -> None:
        """Count a replayed :class:`~matchdb.hands.batch.Block` (what :func:`analyse` does without decisions)."""
        from matchdb.hands.batch import FACT_NAMES, REFUSED

        ok = np.flatnonzero(block.status != REFUSED)
        if not len(ok):
            return
        index = self._index
        records = [block.records[k] for k in ok.tolist()]
        players = [record.players for record in records]
        names = list(chain.from_iterable(players))
        ids = list(map(index.get, names))
        if None in ids:  # new players numbered in order of their first hand
            for k in compress(count(), map(is_, ids, repeat(None))):
                ids[k] = index.setdefault(names[k], len(index))
        sizes = np.fromiter(map(len, players), dtype=np.int64, count=len(players))
        first_row = np.cumsum(sizes) - sizes
        h = np.repeat(ok, sizes)
        s = np.arange(len(names)) - np.repeat(first_row, sizes)
        pid = np.array(ids, dtype=np.int64)
        facts = block.facts[h, s]
        paid = block.paid[h, s]
        net = (paid - block.contributions[h, s]).astype(np.float64)
        adjusted = net.copy()
        allin = np.zeros(len(h), dtype=np.float64)
        for at in np.flatnonzero(block.adjust[ok] >= 0).tolist():
            hand = int(ok[at])
            record = block.records[hand]
            n = record.size
            rows = np.arange(first_row[at], first_row[at] + n)
            alive = block.facts[hand, :n, FACT_NAMES.index("alive")].astype(bool)
            board = [c for kind, _, value in record.ops if kind == DB for c in value][: int(block.adjust[hand])]
            values = allin_adjusted(shown_holes(record), board, block.contributions[hand, :n].tolist(), alive,
                                    block.won[hand, :n].tolist(), net[rows].tolist(), int(block.rake[hand]), db)
            adjusted[rows] = values
            allin[rows] = alive
        big = block.meta[h, 2].astype(np.float64)
        unit = np.repeat(np.array([record.unit for record in records], dtype=np.float64), sizes)
        columns = np.column_stack([
            np.ones(len(h)), facts[:, FACT_NAMES.index("vpip")], facts[:, FACT_NAMES.index("pfr")],
            facts[:, FACT_NAMES.index("three_bet")], facts[:, FACT_NAMES.index("three_bet_chance")],
            facts[:, FACT_NAMES.index("postflop_aggressive")], facts[:, FACT_NAMES.index("postflop_calls")],
            facts[:, FACT_NAMES.index("flop")], facts[:, FACT_NAMES.index("showdown")],
            facts[:, FACT_NAMES.index("showdown_win")], net / unit, adjusted / unit, net / big, adjusted / big, allin,
        ])
        if len(index) > len(self._tally):
            grown = np.zeros((max(len(index), 2 * len(self._tally)), len(_TALLY)))
            grown[: len(self._tally)] = self._tally
            self._tally = grown
        for column in range(columns.shape[1]):  # one column at a time: numpy's fast path, the same sums in order
            np.add.at(self._tally[:, column], pid, columns[:, column])
        self._players_ready = False
        tracked = set(track)
        if tracked:
            hands, seats = h.tolist(), s.tolist()
            for row in np.flatnonzero(np.isin(pid, [index[t] for t in tracked if t in index])).tolist():
                name = block.records[hands[row]].players[seats[row]]
                labels, nets, adjusted_series = self.series.setdefault(name, ([], [], []))
                labels.append(block.records[hands[row]].label)
                nets.append(net[row] / big[row])
                adjusted_series.append(adjusted[row] / big[row])

    @property
    def players(self) -> dict[str, PlayerStats]:
        """Per player name, the :class:`PlayerStats` of every hand counted."""
        if not self._players_ready:
            for name, i in self._index.items():
                row = self._tally[i] if i < len(self._tally) else np.zeros(len(_TALLY))
                stats = self._players.get(name)
                if stats is None:
                    stats = self._players[name] = PlayerStats(name)
                base = self._base.get(name)
                for column, field_name in enumerate(_TALLY):
                    value = row[column] + (getattr(base, field_name) if base is not None else 0)
                    setattr(stats, field_name, int(value) if field_name not in _FLOAT_FIELDS else float(value))
            self._players_ready = True
        return self._players

    def table(self, minimum_hands: int = 1) -> list[dict[str, Any]]:
        """Rows of :meth:`PlayerStats.row`, most hands first."""
        rows = [s.row() for s in self.players.values() if s.hands >= minimum_hands]
        return sorted(rows, key=lambda r: (-r["hands"], r["player"]))

    def to_dict(self, minimum_hands: int = 1) -> dict[str, Any]:
        """The replay counts, the player rows and the decisions, JSON-safe (NaN and infinities as None)."""
        return plain({"replay": self.report.to_dict(), "players": self.table(minimum_hands),
                       "decisions": [asdict(d) for d in self.decisions]})

    def to_json(self, minimum_hands: int = 1) -> str:
        return json.dumps(self.to_dict(minimum_hands), indent=1, allow_nan=False)

    def to_csv(self, minimum_hands: int = 1, decisions: bool = False) -> str:
        """The player table (or the decisions) as CSV text."""
        rows = [plain(asdict(d)) for d in self.decisions] if decisions else plain(self.table(minimum_hands))
        out = io.StringIO()
        if rows:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        return out.getvalue()

    def frame(self, decisions: bool = False) -> Any:
        """The player table (or the decisions) as a pandas DataFrame (pandas is optional)."""
        try:
            import pandas
        except ImportError:
            raise HandsError("A DataFrame needs pandas; install it with pip install pandas.") from None
        if decisions:
            return pandas.DataFrame([asdict(d) for d in self.decisions])
        return pandas.DataFrame(self.table()).set_index("player")

    def to_text(self, minimum_hands: int = 1, limit: int = 30) -> str:
        """A table of the players with the most hands, after the replay's counts."""
        lines = [self.report.to_text().splitlines()[0], ""]
        head = (f"{'player':24} {'hands':>6} {'vpip':>6} {'pfr':>6} {'3bet':>6} {'agg':>5} {'wtsd':>6} {'w$sd':>6} "
                f"{'bb/100':>8} {'adj bb/100':>10}")
        lines.append(head)
        lines.extend(
            f"{row['player'][:24]:24} {row['hands']:>6} {_pct(row['vpip_rate'])} {_pct(row['pfr_rate'])} "
            f"{_pct(row['three_bet_rate'])} {_num(row['aggression'], 5, 2)} {_pct(row['wtsd'])} "
            f"{_pct(row['wsd'])} {_num(row['bb_per_100'], 8, 1)} {_num(row['adjusted_bb_per_100'], 10, 1)}"
            for row in self.table(minimum_hands)[:limit])
        if len(self.players) > limit:
            lines.append(f"... {len(self.players) - limit} more players")
        if self.decisions:
            lines += ["", f"{len(self.decisions)} decisions with known cards (first 20):"]
            for d in self.decisions[:20]:
                equity = "-" if d.equity is None else f"{d.equity:.4f}"
                rr = "-" if d.rate_of_return is None else f"{d.rate_of_return:.2f}"
                lines.append(f"  {d.hand} {d.player[:12]:12} {d.street:7} {d.action:16} {d.hole} {d.board or '-':10} "
                             f"equity {equity} pot odds {d.pot_odds:.3f} rr {rr}")
        return "\n".join(lines)

    def plot(self, player: str, out: str | os.PathLike[str] | None = None, ax: Any = None) -> Any:
        """Draw ``player``'s cumulative winnings and the all-in adjusted line (the player must be tracked)."""
        if player not in self.series:
            tracked = ", ".join(self.series) or "none"
            raise HandsError(f"The player {player!r} was not tracked; analyse with track=[{player!r}] (tracked: "
                             f"{tracked}).")
        _, nets, adjusted = self.series[player]
        return plot_winnings(nets, adjusted, title=f"{player}: {len(nets)} hands", out=out, ax=ax)


def plot_winnings(net_bb: Sequence[float], adjusted_bb: Sequence[float], title: str | None = None,
                  out: str | os.PathLike[str] | None = None, ax: Any = None) -> Any:
    """Cumulative winnings in big blinds per hand and the all-in adjusted line; returns the Axes.

    The two lines' data are the cumulative sums (``ax.lines[k].get_ydata()``),
    so a test can check them.
    """
    from matchdb.plots import require_matplotlib

    require_matplotlib()
    if ax is None:
        if out is not None:
            from matplotlib.figure import Figure

            ax = Figure(figsize=(7.5, 4), layout="constrained").add_subplot()
        else:
            import matplotlib.pyplot as plt

            ax = plt.subplots(figsize=(7.5, 4), layout="constrained")[1]
    x = np.arange(1, len(net_bb) + 1)
    ax.plot(x, np.cumsum(net_bb), color="#1565c0", label="winnings")
    ax.plot(x, np.cumsum(adjusted_bb), color="#c62828", linestyle="--", label="all-in adjusted")
    ax.axhline(0, color="#999999", linewidth=0.8)
    ax.set_xlabel("hands")
    ax.set_ylabel("big blinds won")
    if title:
        ax.set_title(title)
    ax.legend(loc="best")
    if out is not None:
        from matchdb.outputs import save_figure

        save_figure(ax.figure, out, dpi=110)
    return ax


def analyse(source: Any, db: MatchDB | None = None, *, decisions: bool = False, opponent_range: str = "random",
            track: Iterable[str] = (), site: str | None = None, show_progress: bool | None = None) -> Analysis:
    """Replay ``source`` (paths, a folder, a :class:`~matchdb.hands.reader.HandStream` or records) and analyse it.

    Parameters
    ----------
    db : a :class:`matchdb.MatchDB` for database figures: heads-up post-flop
        all-ins and, with ``decisions``, every decision's equity. Without it
        all-ins are enumerated and decisions are not analysed.
    decisions : analyse every decision of players whose cards are shown.
    opponent_range : the range assumed for opponents whose cards are not shown.
    track : player names whose per-hand results :meth:`Analysis.plot` draws.
    """
    if decisions and db is None:
        raise HandsError("Analysing decisions needs the database; give db=matchdb.open().")
    result = Analysis()
    tracked = set(track)
    cache: EquityCache = {}
    if not decisions:  # the compiled replay, block by block
        result.report = replay(source, site=site, show_progress=show_progress,
                               on_block=lambda block: result.add_block(block, db, tracked))
        return result

    def on_hand(done: Replayed) -> None:
        assert db is not None  # checked above: decisions need it
        result.add(done, db, tracked)
        result.decisions.extend(decisions_of(done, db, opponent_range, cache))

    result.report = replay(source, site=site, show_progress=show_progress, on_hand=on_hand)
    return result


# -- decisions ------------------------------------------------------------------------------------------


#: Equities already asked, by (hand, board, opponents' ranges): (equity, its standard error).
EquityCache = dict[tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]], tuple[float | None, float]]


def decisions_of(done: Replayed, db: MatchDB, opponent_range: str = "random", cache: EquityCache | None = None) -> list[Decision]:
    """The decisions of ``done``'s players whose cards are shown (see the module notes)."""
    record = done.record
    cache = {} if cache is None else cache
    out = []
    n = record.size
    for step in done.steps:
        hole = done.holes[step.seat]
        if hole is None:
            continue
        opponents = [s for s in range(n) if s != step.seat and step.in_hand[s]]
        specs = [opponent_range if (cards := done.holes[s]) is None else format_cards(cards) for s in opponents]
        key = (hole, step.board, tuple(specs))
        if key not in cache:
            cache[key] = _equity(db, hole, step.board, specs, opponent_range)
        equity, error = cache[key]
        odds = step.to_call / (step.pot + step.to_call) if step.to_call > 0 else 0.0
        rr = equity / odds if equity is not None and odds > 0 else None
        out.append(Decision(
            hand=record.label, player=record.players[step.seat], street=E.STREETS[step.street],
            action=record.actions[step.index].split("#")[0].strip(), hole=format_cards(hole),
            board=format_cards(step.board), to_call=float(record.amount(step.to_call)),
            pot=float(record.amount(step.pot)), pot_odds=odds, equity=equity, standard_error=error,
            rate_of_return=rr, opponents=tuple(specs),
        ))
    return out


def _equity(db: MatchDB, hole: Sequence[int], board: Sequence[int], specs: list[str], opponent_range: str
            ) -> tuple[float | None, float]:
    if not specs:
        return 1.0, 0.0
    if len(board) >= 3:
        answer = db.multiway(format_cards(hole), format_cards(board), specs)
        return float(answer.equity), float(getattr(answer, "standard_error", 0.0) or 0.0)
    known = [s for s in specs if s != opponent_range]
    if len(known) == len(specs):
        from matchdb.core.cards import parse_cards

        holes = [hole] + [parse_cards(s) for s in known]
        pays = expected_payments(holes, (), [1] * len(holes))
        return pays[0] / len(holes), 0.0
    if len(specs) == 1 and opponent_range == "random":
        table = db.preflop(2)
        return float(table.equity[hand_class(*hole)]), 0.0
    return None, 0.0


def _pct(value: float) -> str:
    return f"{'-':>6}" if value is None or math.isnan(value) else f"{100 * value:>5.1f}%"


def _num(value: float, width: int, digits: int) -> str:
    if value is None or math.isnan(value):
        return f"{'-':>{width}}"
    if math.isinf(value):
        return f"{'inf':>{width}}"
    return f"{value:>{width}.{digits}f}"
