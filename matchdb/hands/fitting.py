"""Learning from people: fit a bot's parameters so that it plays like a player of the histories.

The bot is West's (:class:`matchdb.play.bots.WestBot` with the naive win
rate as its strength): rate-of-return bands, stack protection and a
pot-fraction raise, fifteen bounded parameters. The fit puts the bot in
every spot where the player acted (the same pot, bet to call, stack, players
left and board, as the replay gives them) and compares what the bot would do
with what the player did:

- **action frequencies** by street (preflop, flop, turn, river), position
  (blinds, early, late) and situation (unopened: nothing to call; facing a
  bet): fold, check/call and bet/raise, the bot's chances averaged over the
  player's spots in each cell against the player's frequencies, weighted by
  the spots in the cell;
- **raise sizes**: the bot's raise (above the bet faced, over the pot after
  calling) against the player's, spot by spot;
- **showdown strength**: in hands where the player showed cards, the
  strength the bot's play implies (the hidden-card average below) against
  the strength of the hand shown.

Cards: where the record shows the player's cards, the bot decides with them.
Where it does not, the bot's chances are averaged over ``candidates`` random
hands (fixed by ``seed``, none touching the board), each weighted by how
likely the bot would have played that hand as the player did before in the
hand (a posterior over the hidden cards), so a raise and a later bet are
read together. Strengths are the database's naive win rates (the bot's own
strength), every hand of a board at once (``db.win_rates``).

The loss adds these three comparisons to the negative log-likelihood of
every action the player took (hidden cards averaged over the candidates,
hand by hand): the frequencies alone are noisy summaries (on 375 hands of a
known bot they recovered its chances to 0.022 on held-out spots, the
likelihood with them to 0.015, West's start being 0.035 away). It is
deterministic, so :func:`matchdb.play.optimise.random_walk` (the project's
optimiser, Tomlinson's random walk) minimises it directly from West's
parameters. Hands are split into training and held-out hands (every
``holdout``-th hand held out); :class:`FitResult` reports the cell
frequencies on the held-out hands, the player's against the fitted bot's
(and West's start), and saves the bot as a file the arena plays
(:func:`matchdb.play.bots.save_bot`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from matchdb.answers import plain
from matchdb.core.hole_cards import (
    HAND_HIGH,
    HAND_LOW,
    N_HANDS,
    hand_class,
    hand_positions,
)
from matchdb.hands.analysis import POSITIONS, position_of
from matchdb.hands.reader import HandsError
from matchdb.hands.replayer import Replayed, replay
from matchdb.play import engine as E
from matchdb.play.bots import BuiltinBot, WestBot, save_bot
from matchdb.play.optimise import Search, random_walk

if TYPE_CHECKING:
    from matchdb.db.query import MatchDB

__all__ = ["ACTIONS", "CELL_NAMES", "FitResult", "Spots", "action_probabilities", "cell_frequencies", "collect_spots",
           "fit"]

#: The three action classes compared: fold, check or call, bet or raise.
ACTIONS = ("fold", "call", "raise")
_SITUATIONS = ("unopened", "facing")
#: Cell labels, in cell-index order: street, position, situation.
CELL_NAMES = tuple(f"{E.STREETS[s]}/{p}/{u}" for s in range(4) for p in POSITIONS for u in _SITUATIONS)
_SIZE_WEIGHT = 0.5
_SHOWDOWN_WEIGHT = 2.0


@dataclass
class Spots:
    """The player's decisions as arrays (one row per decision, hands in order) and the candidate strengths.

    ``strength`` is (decisions, candidates + 1): the naive win rate of each
    candidate hand there, and last the shown cards' (``known`` rows) or a
    copy of the first candidate's; ``first`` the preflop strength of each candidate per hand;
    ``shown_strength`` the shown hand's preflop strength per hand (NaN when
    not shown at a showdown).
    """

    hand: np.ndarray
    cell: np.ndarray
    action: np.ndarray
    size: np.ndarray
    to_call: np.ndarray
    pot: np.ndarray
    stack: np.ndarray
    bet: np.ndarray
    max_bet: np.ndarray
    min_to: np.ndarray
    max_to: np.ndarray
    can_raise: np.ndarray
    big_blind: np.ndarray
    strength: np.ndarray
    known: np.ndarray
    first: np.ndarray
    shown_strength: np.ndarray
    hands: int

    def subset(self, hands: np.ndarray) -> Spots:
        """The spots of the hands whose index is in ``hands`` (renumbered from 0)."""
        keep = np.isin(self.hand, hands)
        order = np.searchsorted(np.sort(hands), self.hand[keep])
        arrays = {name: getattr(self, name)[keep] for name in _ROW_FIELDS}
        arrays["hand"] = order
        hands_sorted = np.sort(hands)
        return Spots(**arrays, first=self.first[hands_sorted], shown_strength=self.shown_strength[hands_sorted],
                     hands=len(hands_sorted))


_ROW_FIELDS = ("cell", "action", "size", "to_call", "pot", "stack", "bet", "max_bet", "min_to", "max_to", "can_raise",
               "big_blind", "strength", "known")


def collect_spots(hands: Iterable[Replayed], player: str, db: MatchDB, candidates: int = 64, seed: int = 0) -> Spots:
    """The decisions of ``player`` in replayed hands, with candidate strengths from the database."""
    from matchdb.play.strength import preflop_array

    preflop = preflop_array(db)
    rng = np.random.default_rng(seed)
    post_cache: dict[tuple[tuple[int, ...], int], np.ndarray] = {}
    rows: dict[str, list[Any]] = {name: [] for name in ("hand",) + _ROW_FIELDS}
    firsts, shown = [], []
    hand_index = 0
    for done in hands:
        record = done.record
        if player not in record.players:
            continue
        seat = record.players.index(player)
        mine = [step for step in done.steps if step.seat == seat]
        if not mine:
            continue
        known = done.holes[seat]
        taken = set(done.board) | {c for s, h in enumerate(done.holes) if h is not None and s != seat for c in h}
        pool = np.array([k for k in range(N_HANDS) if HAND_HIGH[k] not in taken and HAND_LOW[k] not in taken])
        chosen = rng.choice(pool, size=candidates, replace=len(pool) < candidates)
        position = POSITIONS.index(position_of(seat, record.size, done.engine.button))
        for step in mine:
            board = step.board
            players = step.players
            if board:
                key = (tuple(sorted(board)), players)
                values = post_cache.get(key)
                if values is None:
                    values = np.nan_to_num(np.asarray(db.win_rates(board, players).values, dtype=np.float64))
                    post_cache[key] = values
                    if len(post_cache) > 4096:
                        post_cache.pop(next(iter(post_cache)))
                strengths = values[chosen]
                mine_strength = values[hand_positions(np.array([known[0]]), np.array([known[1]]))[0]] if known else 0
            else:
                column = min(players, 10)
                strengths = preflop[_CLASS_OF[chosen], column]
                mine_strength = preflop[hand_class(*known), column] if known else 0
            facing = step.to_call > 0
            action = 0 if step.kind == E.FOLD else 2 if step.kind == E.RAISE else 1
            size = ((step.amount - step.max_bet) / (step.pot + step.to_call)) if step.kind == E.RAISE else math.nan
            rows["hand"].append(hand_index)
            rows["cell"].append((min(step.street, 3) * len(POSITIONS) + position) * 2 + int(facing))
            rows["action"].append(action)
            rows["size"].append(size)
            rows["to_call"].append(step.to_call)
            rows["pot"].append(step.pot)
            rows["stack"].append(step.stack)
            rows["bet"].append(step.bet)
            rows["max_bet"].append(step.max_bet)
            rows["min_to"].append(step.min_raise_to)
            rows["max_to"].append(step.max_raise_to)
            rows["can_raise"].append(step.can_raise)
            rows["big_blind"].append(record.big_blind)
            rows["strength"].append(np.r_[strengths, mine_strength if known else strengths[0]])
            rows["known"].append(known is not None)
        first_players = min(mine[0].players, 10)
        firsts.append(preflop[_CLASS_OF[chosen], first_players])
        shown.append(preflop[hand_class(*known), first_players] if known is not None and done.showdown else math.nan)
        hand_index += 1
    if hand_index == 0:
        raise HandsError(f"The player {player!r} acts in none of the hands; expected a name from the records' players.")
    arrays = {name: np.array(values) for name, values in rows.items()}
    arrays["strength"] = np.array(rows["strength"], dtype=np.float64).reshape(-1, candidates + 1)
    return Spots(**arrays, first=np.array(firsts), shown_strength=np.array(shown), hands=hand_index)


_CLASS_OF = np.array([hand_class(int(a), int(b)) for a, b in zip(HAND_HIGH, HAND_LOW, strict=True)], dtype=np.int64)


def action_probabilities(params: np.ndarray, spots: Spots) -> tuple[np.ndarray, np.ndarray]:
    """West's bot's (fold, call, raise) chances at every spot for every candidate strength, and its raise sizes.

    Returns ``(probabilities, size)``: probabilities of shape (decisions,
    candidates, 3), the same numbers :class:`~matchdb.play.bots.WestBot`
    draws its action from (the tests check them against the bot's own
    choices), and per decision the raise above the bet faced over the pot
    after calling that the bot would make (NaN where it may not raise).
    """
    t1, t2, t3, f1, f2, f3, f4, r1, r2, r3, r4, pb, ps, rf, shove = (float(x) for x in params)
    s = spots.strength
    to_call = spots.to_call[:, None].astype(np.float64)
    pot = spots.pot[:, None].astype(np.float64)
    can_raise = spots.can_raise[:, None]
    # the bot's raise-to amount (decisions.pot_raise_to)
    target = spots.max_bet + rf * (spots.pot + spots.to_call)
    raise_to = np.round(target).astype(np.int64)
    raise_to = np.maximum(raise_to, spots.min_to)
    raise_to = np.where((raise_to > spots.max_to) | (raise_to >= shove * spots.max_to), spots.max_to, raise_to)
    chips = (raise_to - spots.bet)[:, None].astype(np.float64)
    odds = np.where(to_call > 0, to_call / (pot + to_call), np.where(can_raise, chips / np.maximum(pot + chips, 1), 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        rr = np.where(odds > 0, s / np.where(odds > 0, odds, 1.0), np.inf)
    band = np.where(rr < t1, 0, np.where(rr < t2, 1, np.where(rr < t3, 2, 3)))
    fold = np.array([f1, f2, f3, f4])[band]
    raise_ = np.array([r1, r2, r3, r4])[band]
    total = fold + raise_
    over = total > 1.0
    fold = np.where(over, fold / np.where(over, total, 1), fold)
    raise_ = np.where(over, raise_ / np.where(over, total, 1), raise_)
    call = 1.0 - fold - raise_
    # a raise that is not allowed, or that stack protection stops, is a call
    big = spots.big_blind[:, None].astype(np.float64)
    stack = spots.stack[:, None].astype(np.float64)
    protect_raise = (chips > 0) & (stack - chips < big * pb) & (s < ps)
    moved = np.where(~can_raise | protect_raise, raise_, 0.0)
    call = call + moved
    raise_ = raise_ - moved
    # a call that stack protection stops is a fold
    protect_call = (to_call > 0) & (stack - to_call < big * pb) & (s < ps)
    fold = fold + np.where(protect_call, call, 0.0)
    call = np.where(protect_call, 0.0, call)
    # nothing to call: a fold is a check
    free = to_call <= 0
    call = np.where(free, call + fold, call)
    fold = np.where(free, 0.0, fold)
    # nothing to call and no raise allowed: the bot checks
    idle = free & ~can_raise
    call = np.where(idle, 1.0, call)
    fold = np.where(idle, 0.0, fold)
    raise_ = np.where(idle, 0.0, raise_)
    probabilities = np.stack(np.broadcast_arrays(fold, call, raise_), axis=-1)
    size = np.where(spots.can_raise, (raise_to - spots.max_bet) / np.maximum(spots.pot + spots.to_call, 1), np.nan)
    return probabilities, size


def _predicted(params: np.ndarray, spots: Spots) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Per decision the predicted action chances (posterior over hidden cards), the raise size, per hand the
    expected preflop strength the bot's play implies, and the log-likelihood of the player's actions."""
    every, size = action_probabilities(params, spots)
    probabilities = every[:, :-1]  # the candidates; the last column holds the shown cards' strength
    k = probabilities.shape[1]
    observed = np.take_along_axis(probabilities, spots.action[:, None, None].repeat(k, axis=1), axis=2)[:, :, 0]
    log_p = np.log(np.maximum(observed, 1e-9))
    cumulative = np.cumsum(log_p, axis=0)
    before = cumulative - log_p
    starts = np.flatnonzero(np.r_[True, spots.hand[1:] != spots.hand[:-1]])
    lengths = np.diff(np.r_[starts, len(spots.hand)])
    prior = before - np.repeat(before[starts], lengths, axis=0)
    prior -= prior.max(axis=1, keepdims=True)
    weights = np.exp(prior)
    weights /= weights.sum(axis=1, keepdims=True)
    predicted = np.einsum("dk,dka->da", weights, probabilities)
    predicted = np.where(spots.known[:, None], every[:, -1], predicted)
    # after each hand's last decision: the posterior the showdown term reads (shown cards treated as hidden)
    ends = starts + lengths - 1
    last = cumulative[ends] - before[starts]
    last -= last.max(axis=1, keepdims=True)
    final = np.exp(last)
    final /= final.sum(axis=1, keepdims=True)
    implied = (final * spots.first).sum(axis=1)
    # the log-likelihood of the player's actions: hidden cards averaged over the candidates, shown cards as shown
    known_log = np.log(np.maximum(np.take_along_axis(every[:, -1], spots.action[:, None], axis=1)[:, 0], 1e-9))
    last_raw = cumulative[ends] - before[starts]
    peak = last_raw.max(axis=1, keepdims=True)
    hidden = peak[:, 0] + np.log(np.exp(last_raw - peak).mean(axis=1))
    shown = np.add.reduceat(known_log, starts)
    loglik = float(np.where(spots.known[starts], shown, hidden).sum())
    return predicted, size, implied, loglik


def _cell_table(spots: Spots, predicted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(spots per cell, observed frequencies, predicted frequencies) of the 24 cells x 3 actions."""
    cells = len(CELL_NAMES)
    counts = np.bincount(spots.cell, minlength=cells).astype(np.float64)
    observed = np.zeros((cells, 3))
    np.add.at(observed, (spots.cell, spots.action), 1.0)
    expected = np.zeros((cells, 3))
    np.add.at(expected, spots.cell, predicted)
    with np.errstate(invalid="ignore"):
        return counts, observed / counts[:, None], expected / counts[:, None]


def cell_frequencies(params: np.ndarray, spots: Spots) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(spots per cell, the player's frequencies, the bot's predicted ones): arrays (24,), (24, 3), (24, 3).

    Cells are :data:`CELL_NAMES`; frequencies are fold, check/call, bet/raise
    (NaN rows for cells without spots).
    """
    predicted, _, _, _ = _predicted(np.asarray(params, dtype=np.float64), spots)
    return _cell_table(spots, predicted)


def _loss(params: np.ndarray, spots: Spots) -> float:
    predicted, size, implied, loglik = _predicted(params, spots)
    counts, observed, expected = _cell_table(spots, predicted)
    used = counts > 0
    value = -loglik + float((counts[used, None] * (observed[used] - expected[used]) ** 2).sum())
    raised = ~np.isnan(spots.size) & ~np.isnan(size)
    if raised.any():
        value += _SIZE_WEIGHT * float(((np.log1p(size[raised]) - np.log1p(spots.size[raised])) ** 2).sum())
    shown = ~np.isnan(spots.shown_strength)
    if shown.any():
        value += _SHOWDOWN_WEIGHT * float(((implied[shown] - spots.shown_strength[shown]) ** 2).sum())
    return value


@dataclass(kw_only=True)
class FitResult:
    """A fitted bot and how closely it plays like the player on held-out hands.

    ``cells`` lists, per street/position/situation cell with held-out spots,
    the player's frequencies and the fitted and starting bots' predicted
    ones. ``distance`` is the spot-weighted mean absolute difference of the
    three frequencies (held-out), ``start_distance`` the same for West's
    start; ``train_loss`` the search's loss before and after.
    """

    player: str
    bot: BuiltinBot  # a WestBot with the fitted parameters
    search: Search
    train_hands: int
    test_hands: int
    cells: list[dict[str, Any]] = field(default_factory=list)
    distance: float = math.nan
    start_distance: float = math.nan
    size: tuple[float, float] = (math.nan, math.nan)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Save the fitted bot as a file the arena plays (``matchdb arena --bots FILE.json,...``)."""
        # without held-out hands the distances are NaN: written as null (JSON has no NaN)
        return save_bot(self.bot, path, extra=plain({"fitted_to": self.player, "train_hands": self.train_hands,
                                                      "test_hands": self.test_hands,
                                                      "held_out_distance": self.distance,
                                                      "start_distance": self.start_distance}))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the fitted parameters, the losses, the held-out cells (NaN as None)."""
        return plain({"player": self.player, "bot": self.bot.name, "parameters": {
            n: float(v) for n, v in zip(self.bot.parameter_names(), self.bot.params, strict=True)},
            "train_hands": self.train_hands, "test_hands": self.test_hands,
            "train_loss": [self.search.start_loss, self.search.best_loss],
            "held_out_distance": self.distance, "start_distance": self.start_distance,
            "cells": self.cells})

    def to_text(self) -> str:
        lines = [(f"fitted {self.bot.name} to {self.player!r}: {self.train_hands} training hands, "
                  f"{self.test_hands} held out; {self.search.summary()}"),
                 (f"held-out mean absolute difference of fold/call/raise frequencies: {self.distance:.4f} "
                  f"(West's start: {self.start_distance:.4f})"),
                 f"{'cell':26} {'spots':>6}  {'player f/c/r':>17}  {'fitted f/c/r':>17}  {'start f/c/r':>17}"]
        lines.extend(f"{row['cell']:26} {row['spots']:>6}  {_triple(row['player'])}  {_triple(row['fitted'])}  "
                     f"{_triple(row['start'])}" for row in self.cells)
        return "\n".join(lines)


def _triple(values: Iterable[float]) -> str:
    return " ".join(f"{v:5.2f}" for v in values)


def _distance(spots: Spots, predicted: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    counts, observed, expected = _cell_table(spots, predicted)
    used = counts > 0
    distance = float((counts[used, None] * np.abs(observed[used] - expected[used])).sum() / (3 * counts[used].sum()))
    return distance, counts, observed, expected


def fit(source: Any, player: str, db: MatchDB, *, holdout: int = 4, candidates: int = 64, cycles: int = 600, step: float = 0.08,
        seed: int = 0, name: str | None = None, show_progress: bool = False) -> FitResult:
    """Fit West's bot to ``player`` in the hands of ``source`` (see the module notes).

    Parameters
    ----------
    source : paths, a folder, a HandStream or records (as :func:`matchdb.hands.replay` takes).
    player : the player's name as the records give it.
    db : the database (naive win rates of the candidate hands).
    holdout : every ``holdout``-th hand of the player is held out (0: none).
    candidates : hidden-card hands averaged over per hand.
    cycles, step, seed : the random walk's settings (:func:`matchdb.play.optimise.random_walk`).
    """
    hands: list[Replayed] = []
    replay(source, on_hand=lambda done: hands.append(done) if player in done.record.players else None)
    spots = collect_spots(hands, player, db, candidates=candidates, seed=seed)
    everything = np.arange(spots.hands)
    test = everything[holdout - 1::holdout] if holdout else everything[:0]
    train = np.setdiff1d(everything, test)
    if len(train) == 0:
        raise HandsError(f"The player {player!r} has no training hands left; give more hands or holdout=0.")
    train_spots = spots.subset(train)
    start_bot = WestBot()
    low, high = WestBot.bounds()
    search = random_walk(lambda x: _loss(x, train_spots), start_bot.vector(), low, high,
                         names=WestBot.parameter_names(), step=step, cycles=cycles, seed=seed,
                         progress=show_progress, what=f"fitting {player}")
    bot = start_bot.with_vector(search.best, name=name or f"fitted-{_short(player)}")
    result = FitResult(player=player, bot=bot, search=search, train_hands=len(train), test_hands=len(test))
    if len(test):
        test_spots = spots.subset(test)
        fitted, size, _, _ = _predicted(search.best, test_spots)
        start, _, _, _ = _predicted(start_bot.vector(), test_spots)
        result.distance, counts, observed, expected = _distance(test_spots, fitted)
        result.start_distance, _, _, start_expected = _distance(test_spots, start)
        raised = ~np.isnan(test_spots.size) & ~np.isnan(size)
        if raised.any():
            result.size = (float(np.mean(test_spots.size[raised])), float(np.mean(size[raised])))
        for c in np.flatnonzero(counts):
            result.cells.append({"cell": CELL_NAMES[c], "spots": int(counts[c]), "player": observed[c].tolist(),
                                 "fitted": expected[c].tolist(), "start": start_expected[c].tolist()})
    return result


def _short(player: str) -> str:
    return "".join(ch for ch in player if ch.isalnum())[:12] or "player"
