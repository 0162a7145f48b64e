"""Multiway equity (matchdb.multiway) against published figures, an eval7 enumeration and its own invariants."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numba
import numpy as np
import pytest

from matchdb.cards import format_cards, parse_cards
from matchdb.errors import CardError, MatchdbError, RangeError
from matchdb.multiway import MultiwayResult, multiway, multiway_outcome

DB_PATH = Path("/work/db-v1/matchdb.zarr")


@pytest.fixture(scope="module")
def db():
    """The full database (to be rewired to the project's session fixtures at merge)."""
    if not (DB_PATH / "zarr.json").exists():
        pytest.skip(f"the full database is not at {DB_PATH}; build it with 'matchdb build'")
    import matchdb

    return matchdb.open(DB_PATH)


# -- an independent enumeration: eval7 values, plain loops over every deal ----------------


def _eval7():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import eval7
    return eval7


_E7 = None


def _e7_cards():
    global _E7
    if _E7 is None:
        eval7 = _eval7()
        _E7 = [eval7.Card(format_cards([c])) for c in range(52)]
    return _E7


@numba.njit(cache=True)
def _count_deals(hero_value, values, masks, weights, used, tied0, beaten):
    """(win, tie, equity, deals) weights of every ordered card-disjoint tuple of 1 to 3 opponent hands.

    ``values[i]`` is the eval7 value of hand i on the board (larger wins), ``masks[i]`` its
    cards as a bit mask, ``weights[k, i]`` opponent k's weight of it; ``tied0`` known hands
    already tie the hero, ``beaten``: a known hand beats him. Plain loops over the hands that
    do not beat the hero; the number of deals of three opponents sums the third hand's
    weight as all hands less those touching the four cards taken.
    """
    k, n = weights.shape
    out = np.zeros(4)
    third_total = 0.0
    third_card = np.zeros(52)
    third_pair = np.zeros((52, 52))
    if k == 3:
        for m in range(n):
            if weights[2, m] == 0.0 or masks[m] & used:
                continue
            x = -1
            for c in range(52):
                if masks[m] >> c & 1:
                    if x < 0:
                        x = c
                    else:
                        third_pair[x, c] = weights[2, m]
                        third_pair[c, x] = weights[2, m]
                        third_card[x] += weights[2, m]
                        third_card[c] += weights[2, m]
            third_total += weights[2, m]
    # the deals (no condition on the values)
    for i in range(n):
        wi = weights[0, i]
        if wi == 0.0 or masks[i] & used:
            continue
        if k == 1:
            out[3] += wi
            continue
        for j in range(n):
            wj = weights[1, j]
            if wj == 0.0 or masks[j] & (used | masks[i]):
                continue
            if k == 2:
                out[3] += wi * wj
                continue
            # the third hand: all its weight less that of hands touching the four cards taken
            taken = masks[i] | masks[j]
            cards = np.empty(4, dtype=np.int64)
            nc = 0
            for c in range(52):
                if taken >> c & 1:
                    cards[nc] = c
                    nc += 1
            third = third_total
            for x in range(4):
                third -= third_card[cards[x]]
                for y in range(x + 1, 4):
                    third += third_pair[cards[x], cards[y]]
            out[3] += wi * wj * third
    if beaten:
        return out
    good = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        good[i] = values[i] <= hero_value
    for i in range(n):
        wi = weights[0, i]
        if wi == 0.0 or masks[i] & used or not good[i]:
            continue
        ti = tied0 + (values[i] == hero_value)
        if k == 1:
            out[0 if ti == 0 else 1] += wi
            out[2] += wi / (1 + ti)
            continue
        for j in range(n):
            wj = weights[1, j]
            if wj == 0.0 or masks[j] & (used | masks[i]) or not good[j]:
                continue
            tj = ti + (values[j] == hero_value)
            if k == 2:
                out[0 if tj == 0 else 1] += wi * wj
                out[2] += wi * wj / (1 + tj)
                continue
            for m in range(n):
                wm = weights[2, m]
                if wm == 0.0 or masks[m] & (used | masks[i] | masks[j]) or not good[m]:
                    continue
                t = tj + (values[m] == hero_value)
                out[0 if t == 0 else 1] += wi * wj * wm
                out[2] += wi * wj * wm / (1 + t)
    return out


def enumerate_totals(hero, board, opponents):
    """Exact (win, tie, equity, deals) weights by enumeration: every runout and every card-disjoint tuple of hands.

    ``hero``: a list of (card, card, weight); ``opponents``: one dict per opponent,
    {(card, card): weight}, one entry for a known hand (any number of those, at most
    three others). Hand values come from eval7, computed once per runout.
    """
    eval7 = _eval7()
    cards = _e7_cards()
    board = list(board)
    known = [next(iter(opp)) for opp in opponents if len(opp) == 1]
    opponents = [opp for opp in opponents if len(opp) > 1]
    known_cards = {c for hand in known for c in hand}
    keys = sorted({key for opp in opponents for key in opp})
    totals = np.zeros(4)
    for a, b, hw in hero:
        dead = set(board) | {a, b} | known_cards
        if len(dead) != len(board) + 2 + len(known_cards):
            continue
        deck = [c for c in range(52) if c not in dead]
        for runout in itertools.combinations(deck, 5 - len(board)):
            full = board + list(runout)
            full_cards = [cards[c] for c in full]
            hero_value = eval7.evaluate([cards[a], cards[b], *full_cards])
            used = (1 << a) | (1 << b)
            tied0, beaten = 0, False
            for x, y in known:
                value = eval7.evaluate([cards[x], cards[y], *full_cards])
                used |= (1 << x) | (1 << y)
                tied0 += value == hero_value
                beaten |= value > hero_value
            index = {}
            values, masks = [], []
            for key in keys:
                x, y = key
                if {x, y} & (set(full) | {a, b} | known_cards):
                    continue
                index[key] = len(values)
                values.append(eval7.evaluate([cards[x], cards[y], *full_cards]))
                masks.append((1 << x) | (1 << y))
            weights = np.zeros((len(opponents), len(values)))
            for k, opp in enumerate(opponents):
                for key, w in opp.items():
                    if key in index:
                        weights[k, index[key]] = w
            if not opponents:  # known hands only
                tie_count = 0 if beaten else tied0
                totals += hw * np.array([not beaten and tied0 == 0, not beaten and tied0 > 0, 0.0, 1.0])
                totals[2] += 0.0 if beaten else hw / (1 + tie_count)
                continue
            totals += hw * _count_deals(
                hero_value, np.array(values, dtype=np.int64), np.array(masks, dtype=np.int64), weights, used, tied0, beaten
            )
    return totals


def enumerate_equity(hero, board, opponents):
    """(win, tie, equity) of :func:`enumerate_totals`."""
    totals = enumerate_totals(hero, board, opponents)
    return totals[:3] / totals[3]


def random_hand_dict():
    return {(x, y): 1.0 for y in range(52) for x in range(y)}


def range_dict(text):
    from matchdb.ranges import parse_range

    return {tuple(sorted((a, b))): w for a, b, w in parse_range(text)}


def hand_dict(text):
    a, b = parse_cards(text, count=2)
    return {tuple(sorted((a, b))): 1.0}


def spec_dict(spec):
    if spec == "random":
        return random_hand_dict()
    if len(spec) == 4 and "," not in spec and "+" not in spec:
        try:
            return hand_dict(spec)
        except MatchdbError:
            pass
    return range_dict(spec)


def test_enumeration_agrees_with_published_three_way():
    """The oracle itself: PokerStove's KdQd / JcTc / 5h5s on KcQh5c, every player's figure."""
    hero = [(*parse_cards("KdQd"), 1.0)]
    win, tie, equity = enumerate_equity(hero, parse_cards("KcQh5c"), [hand_dict("JcTc"), hand_dict("5h5s")])
    assert round(100 * equity, 4) == 17.2757


RANGES = ["QQ+,AKs", "JJ,TT,99", "22+,A2s+,KTo+", "T9s,98s,87s,76s,KQo", "AK,AQ,AJs", "0.5(AA),KK,0.25(QQ)"]


def _random_question(rng, extra, n_opponents, kinds):
    """A random hole, board and opponents of the given kinds ('random', 'range', 'known')."""
    cards = [int(c) for c in rng.permutation(52)]
    hole, board, rest = cards[:2], cards[2 : 5 + extra], cards[5 + extra :]
    opponents = []
    for kind in kinds[:n_opponents]:
        if kind == "random":
            opponents.append("random")
        elif kind == "known":
            opponents.append(format_cards(rest[:2]))
            rest = rest[2:]
        else:
            opponents.append(RANGES[int(rng.integers(len(RANGES)))])
    return hole, board, opponents


def _check_against_enumeration(rng, extra, n_opponents, kinds_choices, positions):
    checked = 0
    for _ in range(positions):
        kinds = kinds_choices[int(rng.integers(len(kinds_choices)))]
        hole, board, opponents = _random_question(rng, extra, n_opponents, kinds)
        try:
            got = multiway(format_cards(hole), format_cards(board), opponents)
        except RangeError:  # no deal possible: the enumeration finds none either
            assert enumerate_totals([(*hole, 1.0)], board, [spec_dict(o) for o in opponents])[3] == 0
            continue
        want = enumerate_equity([(*hole, 1.0)], board, [spec_dict(o) for o in opponents])
        assert got.exact and got.standard_error == 0.0
        assert got.win == pytest.approx(want[0], abs=1e-9), (hole, board, opponents)
        assert got.tie == pytest.approx(want[1], abs=1e-9), (hole, board, opponents)
        assert got.equity == pytest.approx(want[2], abs=1e-9), (hole, board, opponents)
        assert got.win + got.tie + got.loss == pytest.approx(1.0, abs=1e-12)
        checked += 1
    assert checked >= positions * 0.9


THREE_WAY_KINDS = [("random", "random"), ("range", "random"), ("range", "range"), ("known", "random"), ("known", "range")]


def test_three_players_river_equal_enumeration():
    _check_against_enumeration(np.random.default_rng(11), 2, 2, THREE_WAY_KINDS, 100)


def test_three_players_turn_equal_enumeration():
    _check_against_enumeration(np.random.default_rng(12), 1, 2, THREE_WAY_KINDS, 100)


def test_three_players_flop_equal_enumeration():
    _check_against_enumeration(np.random.default_rng(13), 0, 2, [("range", "range"), ("range", "known")], 4)
    _check_against_enumeration(np.random.default_rng(14), 0, 2, [("random", "random")], 1)


def test_four_players_river_equal_enumeration():
    rng = np.random.default_rng(15)
    _check_against_enumeration(rng, 2, 3, [("random", "random", "random")], 6)
    _check_against_enumeration(
        rng, 2, 3, [("range", "random", "random"), ("range", "range", "range"), ("known", "range", "random")], 24
    )


def test_five_players_two_known_equal_enumeration():
    """Known hands cost nothing: three unknown opponents plus two known ones stay exact."""
    _check_against_enumeration(
        np.random.default_rng(16), 2, 5, [("known", "known", "range", "range", "random")], 10
    )


def test_range_hero_equal_enumeration():
    rng = np.random.default_rng(17)
    for _ in range(6):
        hole, board, opponents = _random_question(rng, 2, 2, ("range", "random"))
        hero_text = RANGES[int(rng.integers(len(RANGES)))]
        hero = [(a, b, w) for (a, b), w in range_dict(hero_text).items()]
        try:
            got = multiway(hero_text, format_cards(board), opponents)
        except RangeError:
            continue
        want = enumerate_equity(hero, board, [spec_dict(o) for o in opponents])
        assert got.equity == pytest.approx(want[2], abs=1e-9)
        assert got.win == pytest.approx(want[0], abs=1e-9)
