"""Multiway equity (matchdb.equity.multiway) against published figures, an eval7 enumeration and its own invariants."""

from __future__ import annotations

import functools
import itertools
import json
import warnings

import numba
import numpy as np
import pytest

from matchdb.core.cards import format_cards, parse_cards
from matchdb.equity.multiway import MultiwayResult, multiway_outcome
from matchdb.errors import CardError, MatchdbError, RangeError

_DB = None


@pytest.fixture(scope="module")
def db(full_store):
    """The session's full database."""
    import matchdb

    return matchdb.open(full_store)


@pytest.fixture(scope="module", autouse=True)
def _database(db):
    global _DB
    _DB = db


def multiway(hole, board, opponents, db=None, **kwargs):
    """The question through the query layer (``db.multiway``), on the full database."""
    return (db or _DB).multiway(hole, board, opponents, **kwargs)


def frame_weights(flop, perm: int, text: str) -> np.ndarray:
    """A range's weights in the frame of ``flop``'s table after renaming suits by ``perm`` (an independent mapping)."""
    from matchdb.core.canonical import CARD_MAP
    from matchdb.core.pairs import PAIR_INDEX, local_index
    from matchdb.core.ranges import parse_range

    local = local_index(flop)
    w = np.zeros(1176)
    for a, b, x in parse_range(text):
        la, lb = local[CARD_MAP[perm, a]], local[CARD_MAP[perm, b]]
        if la >= 0 and lb >= 0:
            w[PAIR_INDEX[la, lb]] = x
    return w


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


@numba.njit(cache=False)  # not cached: a cache keyed by this file breaks when it is imported under another name
def _count_deals(hero_value, values, masks, weights, used, tied0, beaten):
    """(win, tie, equity, deals) weights of every ordered card-disjoint tuple of 1 to 4 opponent hands.

    ``values[i]`` is the eval7 value of hand i on the board (larger wins), ``masks[i]`` its
    cards as a bit mask, ``weights[k, i]`` opponent k's weight of it; ``tied0`` known hands
    already tie the hero, ``beaten``: a known hand beats him. Plain loops over the hands that
    do not beat the hero; the number of deals sums the last opponent's weight as all his
    hands less those touching the cards already taken (each card's hands, plus back each
    hand made of two taken cards).
    """
    k, n = weights.shape
    out = np.zeros(4)
    last = k - 1
    last_total = 0.0
    last_card = np.zeros(52)
    last_pair = np.zeros((52, 52))
    for m in range(n):
        w = weights[last, m]
        if w == 0.0 or masks[m] & used:
            continue
        x = -1
        for c in range(52):
            if masks[m] >> c & 1:
                if x < 0:
                    x = c
                else:
                    last_pair[x, c] = w
                    last_pair[c, x] = w
                    last_card[x] += w
                    last_card[c] += w
        last_total += w
    cards = np.empty(6, dtype=np.int64)

    def left(taken):
        nc = 0
        for c in range(52):
            if taken >> c & 1:
                cards[nc] = c
                nc += 1
        value = last_total
        for x in range(nc):
            value -= last_card[cards[x]]
            for y in range(x + 1, nc):
                value += last_pair[cards[x], cards[y]]
        return value

    # the deals (no condition on the values)
    if k == 1:
        out[3] = last_total
    for i in range(n):
        wi = weights[0, i]
        if k == 1 or wi == 0.0 or masks[i] & used:
            continue
        if k == 2:
            out[3] += wi * left(masks[i])
            continue
        for j in range(n):
            wj = weights[1, j]
            if wj == 0.0 or masks[j] & (used | masks[i]):
                continue
            if k == 3:
                out[3] += wi * wj * left(masks[i] | masks[j])
                continue
            for m in range(n):
                wm = weights[2, m]
                if wm == 0.0 or masks[m] & (used | masks[i] | masks[j]):
                    continue
                out[3] += wi * wj * wm * left(masks[i] | masks[j] | masks[m])
    if beaten:
        return out
    good = np.flatnonzero(values <= hero_value)  # the hands that do not beat the hero
    for i in good:
        wi = weights[0, i]
        if wi == 0.0 or masks[i] & used:
            continue
        ti = tied0 + (values[i] == hero_value)
        if k == 1:
            out[0 if ti == 0 else 1] += wi
            out[2] += wi / (1 + ti)
            continue
        for j in good:
            wj = weights[1, j]
            if wj == 0.0 or masks[j] & (used | masks[i]):
                continue
            tj = ti + (values[j] == hero_value)
            if k == 2:
                out[0 if tj == 0 else 1] += wi * wj
                out[2] += wi * wj / (1 + tj)
                continue
            for m in good:
                wm = weights[2, m]
                if wm == 0.0 or masks[m] & (used | masks[i] | masks[j]):
                    continue
                tm = tj + (values[m] == hero_value)
                if k == 3:
                    out[0 if tm == 0 else 1] += wi * wj * wm
                    out[2] += wi * wj * wm / (1 + tm)
                    continue
                for q in good:
                    wq = weights[3, q]
                    if wq == 0.0 or masks[q] & (used | masks[i] | masks[j] | masks[m]):
                        continue
                    t = tm + (values[q] == hero_value)
                    out[0 if t == 0 else 1] += wi * wj * wm * wq
                    out[2] += wi * wj * wm * wq / (1 + t)
    return out


def enumerate_totals(hero, board, opponents):
    """Exact (win, tie, equity, deals) weights by enumeration: every runout and every card-disjoint tuple of hands.

    ``hero``: a list of (card, card, weight); ``opponents``: one dict per opponent,
    {(card, card): weight}, one entry for a known hand (any number of those, at most
    four others). Hand values come from eval7, computed once per runout.
    """
    eval7 = _eval7()
    cards = _e7_cards()
    board = list(board)
    known = [next(iter(opp)) for opp in opponents if len(opp) == 1]
    opponents = [opp for opp in opponents if len(opp) > 1]
    known_cards = {c for hand in known for c in hand}
    keys = sorted({key for opp in opponents for key in opp})
    key_masks = np.array([(1 << x) | (1 << y) for x, y in keys], dtype=np.int64)
    key_weights = np.array([[opp.get(key, 0.0) for key in keys] for opp in opponents]).reshape(
        len(opponents), len(keys)
    )
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
            dead_mask = used
            for c in full:
                dead_mask |= 1 << c
            valid = np.flatnonzero((key_masks & dead_mask) == 0)
            values = np.array(
                [eval7.evaluate([cards[keys[i][0]], cards[keys[i][1]], *full_cards]) for i in valid], dtype=np.int64
            )
            weights = np.ascontiguousarray(key_weights[:, valid])  # one layout: _count_deals compiles once
            if not opponents:  # known hands only
                tie_count = 0 if beaten else tied0
                totals += hw * np.array([not beaten and tied0 == 0, not beaten and tied0 > 0, 0.0, 1.0])
                totals[2] += 0.0 if beaten else hw / (1 + tie_count)
                continue
            totals += hw * _count_deals(hero_value, values, key_masks[valid], weights, used, tied0, beaten)
    return totals


def enumerate_equity(hero, board, opponents):
    """(win, tie, equity) of :func:`enumerate_totals`."""
    totals = enumerate_totals(hero, board, opponents)
    return totals[:3] / totals[3]


def random_hand_dict():
    return {(x, y): 1.0 for y in range(52) for x in range(y)}


def range_dict(text):
    from matchdb.core.ranges import parse_range

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
    hands = ["KdQd", "JcTc", "5h5s"]
    figures = []
    for i, hand in enumerate(hands):
        others = [hand_dict(h) for h in hands[:i] + hands[i + 1 :]]
        figures.append(round(100 * enumerate_equity([(*parse_cards(hand), 1.0)], parse_cards("KcQh5c"), others)[2], 4))
    assert figures == [17.2757, 44.1860, 38.5382]


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


THREE_WAY_KINDS = [
    ("random", "random"),
    ("range", "random"),
    ("range", "range"),
    ("known", "random"),
    ("known", "range"),
]


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


def test_five_players_four_unknown_exact_equal_enumeration():
    """Four unknown opponents: the first enumerated, the last three counted, against a plain enumeration."""
    rng = np.random.default_rng(18)
    _check_against_enumeration(rng, 2, 4, [("range", "range", "range", "range")], 4)
    _check_against_enumeration(rng, 1, 4, [("range", "range", "range", "range")], 2)


def test_enumerated_random_opponents_against_sampled(table_cache):
    """Four and five random opponents on the river, exact by enumeration: sampled answers bracket it."""
    from matchdb.core.pairs import board_columns, local_index, pair_row

    flop = parse_cards("Qd8c3h")
    table = table_cache("Qd8c3h")
    local = local_index(flop)
    columns = board_columns([int(local[c]) for c in parse_cards("6s2d")])
    for hand, opponents in (("QsJs", 4), ("8h8d", 5)):
        hero = pair_row(flop, parse_cards(hand))
        exact = multiway_outcome(table, columns, hero, [np.ones(1176)] * opponents, method="exact")
        assert exact.exact and exact.method == "exact"
        z = _z_scores(table, columns, hero, [np.ones(1176)] * opponents, 20, samples=4000)
        assert (np.abs(z) <= 4).sum() >= 19
    auto = multiway_outcome(table, columns, pair_row(flop, parse_cards("QsJs")), [np.ones(1176)] * 4)
    assert auto.exact  # four random opponents on the river: exact by default


def test_five_players_two_known_equal_enumeration():
    """Known hands cost nothing: three unknown opponents plus two known ones stay exact."""
    _check_against_enumeration(np.random.default_rng(16), 2, 5, [("known", "known", "range", "range", "random")], 10)


def test_range_hero_equal_enumeration():
    rng = np.random.default_rng(17)
    for _ in range(6):
        _, board, opponents = _random_question(rng, 2, 2, ("range", "random"))
        hero_text = RANGES[int(rng.integers(len(RANGES)))]
        hero = [(a, b, w) for (a, b), w in range_dict(hero_text).items()]
        try:
            got = multiway(hero_text, format_cards(board), opponents)
        except RangeError:
            continue
        want = enumerate_equity(hero, board, [spec_dict(o) for o in opponents])
        assert got.equity == pytest.approx(want[2], abs=1e-9)
        assert got.win == pytest.approx(want[0], abs=1e-9)


# -- published figures ----------------------------------------------------------------

OMPEVAL_AHKH_TWO_RANDOM = 0.3758613384290151  # OMPEval and an independent enumeration agree to 1e-15


def test_ahkh_against_two_random_hands_published():
    assert multiway("AhKh", "2c7dJh", 2).equity == pytest.approx(OMPEVAL_AHKH_TWO_RANDOM, abs=1e-12)


def test_pokerstove_three_known_hands_every_player(db):
    r = multiway("KdQd", "KcQh5c", ["JcTc", "5h5s"], db=db)
    assert [round(100 * p, 4) for p in r.player_equities] == [17.2757, 44.1860, 38.5382]
    assert sum(r.player_equities) == pytest.approx(1.0, abs=1e-12)
    assert r.player_equities[0] == r.equity and r.exact


def test_published_through_the_database_any_suits(db):
    for hero, board in (("AhKh", "2c7dJh"), ("AsKs", "2d7cJs"), ("AdKd", "Jd2h7s")):
        assert multiway(hero, board, 2, db=db).equity == pytest.approx(OMPEVAL_AHKH_TWO_RANDOM, abs=1e-12)


# -- invariants -------------------------------------------------------------------------


def test_one_opponent_equals_heads_up(db):
    """Every new call with one opponent equals today's exact heads-up answer (db.outcome, hand_vs_weights)."""
    rng = np.random.default_rng(21)
    for extra in (0, 1, 2):
        for _ in range(8):
            cards = [int(c) for c in rng.permutation(52)]
            hole, board = format_cards(cards[:2]), format_cards(cards[2 : 5 + extra])
            for villain in (None, "QQ+,AKs,T9s", format_cards(cards[10:12])):
                want = db.outcome(hole, board, villain)
                got = multiway(hole, board, ["random" if villain is None else villain], db=db)
                assert (got.win, got.tie, got.loss) == pytest.approx((want.win, want.tie, want.loss), abs=1e-12)
                assert got.equity == pytest.approx(want.equity, abs=1e-12)


def test_opponent_order_does_not_matter():
    opponents = ["QQ+,AKs", "random", "T9s,98s,87s", "Qs2d"]
    results = [
        multiway("AhKh", "2c7dJh4s", order) for order in (opponents, opponents[::-1], opponents[1:] + opponents[:1])
    ]
    for r in results[1:]:
        assert (r.win, r.tie, r.equity) == pytest.approx((results[0].win, results[0].tie, results[0].equity), abs=1e-12)


def test_known_hands_equities_sum_to_one():
    rng = np.random.default_rng(22)
    for players in range(2, 11):
        cards = [int(c) for c in rng.permutation(52)]
        hands = [format_cards(cards[2 * i : 2 * i + 2]) for i in range(players)]
        board = format_cards(cards[20 : 20 + 3 + players % 3])
        r = multiway(hands[0], board, hands[1:])
        assert len(r.player_equities) == players and r.exact
        assert sum(r.player_equities) == pytest.approx(1.0, abs=1e-12)


def test_all_range_players_sum_to_one():
    r = multiway("QQ+,AKs", "2c7dJh", ["JJ,TT,99", "AK,AQ"])
    assert r.player_equities is not None and sum(r.player_equities) == pytest.approx(1.0, abs=1e-12)


def test_suit_renaming_changes_nothing(db):
    from matchdb.core.canonical import CARD_MAP

    rng = np.random.default_rng(23)
    for _ in range(6):
        cards = [int(c) for c in rng.permutation(52)]
        hole, board, known = cards[:2], cards[2 : 5 + int(rng.integers(3))], cards[10:12]
        opponents = ["random", "QQ+,AKs,T9s"]
        base = multiway(format_cards(hole), format_cards(board), [*opponents, format_cards(known)], db=db)
        perm = int(rng.integers(1, 24))
        renamed = [format_cards([int(CARD_MAP[perm, c]) for c in group]) for group in (hole, board, known)]
        # the range text names no suits except through suitedness, which renaming keeps
        other = multiway(renamed[0], renamed[1], [*opponents, renamed[2]], db=db)
        assert (other.win, other.tie, other.equity) == pytest.approx((base.win, base.tie, base.equity), abs=1e-12)


def test_database_and_own_table_agree(db):
    a = multiway("9s8s", "Ts7h2c3s", ["random", "JJ+", "AsKd"], db=db)
    b = multiway("9s8s", "Ts7h2c3s", ["random", "JJ+", "AsKd"])
    assert (a.win, a.tie, a.equity) == pytest.approx((b.win, b.tie, b.equity), abs=1e-12)


# -- sampled answers ------------------------------------------------------------------------


def _z_scores(table, columns, hero, opponents, trials, **kwargs):
    exact = multiway_outcome(table, columns, hero, opponents, method="exact")
    assert exact.exact
    z = []
    for seed in range(trials):
        r = multiway_outcome(table, columns, hero, opponents, method="sample", seed=seed, **kwargs)
        assert not r.exact and r.method == "sample" and r.standard_error > 0 and r.seed == seed
        z.append((r.equity - exact.equity) / r.standard_error)
    return np.array(z)


@pytest.mark.parametrize("opponents", [2, 3])
def test_sampled_within_four_standard_errors(table_cache, opponents):
    from matchdb.core.pairs import board_columns, pair_row

    flop = parse_cards("2c7dJh")
    table = table_cache("2c7dJh")
    hero = pair_row(flop, parse_cards("AhKh"))
    z = _z_scores(table, board_columns(()), hero, [np.ones(1176)] * opponents, 100)
    assert (np.abs(z) <= 4).sum() >= 99
    assert abs(z.mean()) < 0.5  # no bias a hundred trials can see (the mean of 100 z has s.d. 0.1)


def test_sampled_with_ranges_within_four_standard_errors(table_cache):
    from matchdb.core.pairs import board_columns, local_index, pair_row

    flop = parse_cards("Ks9h4c")
    table = table_cache("Ks9h4c")
    frame_local = local_index(flop)
    columns = board_columns([int(frame_local[parse_cards("2d")[0]])])
    hero = pair_row(flop, parse_cards("QsJs"))
    opponents = [frame_weights(flop, 0, t) for t in ("99+,AK,KQ", "T9s,98s,QJ")] + [np.ones(1176)]
    z = _z_scores(table, columns, hero, opponents, 100, samples=460)
    assert (np.abs(z) <= 4).sum() >= 99


def _range_cards(text):
    from matchdb.core.ranges import parse_range

    return parse_range(text)


def test_same_seed_same_answer():
    a = multiway("AhKh", "2c7dJh", 5, seed=7)
    b = multiway("AhKh", "2c7dJh", 5, seed=7)
    c = multiway("AhKh", "2c7dJh", 5, seed=8)
    assert a == b and a.seed == 7 and not a.exact
    assert c.equity != a.equity


@pytest.mark.parametrize("hand", ["AhKh", "9s8s"])
def test_the_same_seed_gives_the_same_answer_whatever_the_threads(monkeypatch, hand):
    """Every column draws from its own stream and the runouts a visit picks come from the seed: splitting the
    columns between 1, 2 or 3 threads changes nothing, to the last bit."""
    from matchdb.equity import enumeration

    answers = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(enumeration, "THREADS", threads)
        answers.append(multiway(hand, "2c7dJh", 5, seed=11))
    assert answers[0] == answers[1] == answers[2]
    if hand == "AhKh":
        # the first phase visits each group of 4 runouts (1,081 runouts: 271 groups) twice, drawing at most twice a
        # visit: more draws than that means a later phase ran
        assert answers[0].samples > 2 * 2 * 271


@pytest.mark.parametrize("hand", ["AhKh", "7c7s", "9s8s", "3d4d"])
def test_six_players_reach_the_target_standard_error(hand):
    """The benchmark's four hands against five random opponents: by default the standard error is at most 0.0005."""
    answer = multiway(hand, "2c7dJh", 5, seed=1)
    assert answer.standard_error <= 0.0005


def test_the_standard_error_is_honest():
    """Over 24 seeds the estimates spread as much as the standard errors say (9s8s)."""
    answers = [multiway("9s8s", "2c7dJh", 5, seed=s) for s in range(24)]
    spread = np.std([a.equity for a in answers], ddof=1)
    said = np.mean([a.standard_error for a in answers])
    assert 0.6 < spread / said < 1.5


def test_the_later_phases_do_not_lean():
    """A stratum's extra visits follow its neighbours' spread, not its own: the mean over 80 seeds of 7c7s (0.9
    standard errors low on average when a group's own first visits decided its extra ones) agrees with a long run
    that visits every runout alike."""
    reference = multiway("7c7s", "2c7dJh", 5, seed=99, samples=400_000)
    estimates = np.array([multiway("7c7s", "2c7dJh", 5, seed=seed).equity for seed in range(80)])
    spread = np.hypot(estimates.std(ddof=1) / np.sqrt(len(estimates)), reference.standard_error)
    assert abs(estimates.mean() - reference.equity) <= 3 * spread


def test_many_players_sampled_agrees_with_plain_monte_carlo():
    """Six players on the river: the stratified, partly exact estimate against a plain simulation with eval7."""
    eval7 = _eval7()
    cards = _e7_cards()
    hole, board = parse_cards("Td9d"), parse_cards("8d7c2hKsQd")
    r = multiway(format_cards(hole), format_cards(board), 5, seed=3, samples=20000)
    rng = np.random.default_rng(5)
    deck = np.array([c for c in range(52) if c not in hole and c not in board])
    full = [cards[c] for c in board]
    hero_value = eval7.evaluate([cards[hole[0]], cards[hole[1]], *full])
    values = {}
    shares = []
    for _ in range(40000):
        dealt = rng.choice(deck, size=10, replace=False)
        best, tied = -1, 0
        for i in range(5):
            key = (int(min(dealt[2 * i], dealt[2 * i + 1])), int(max(dealt[2 * i], dealt[2 * i + 1])))
            if key not in values:
                values[key] = eval7.evaluate([cards[key[0]], cards[key[1]], *full])
            v = values[key]
            best = max(best, v)
            tied += v == hero_value
        shares.append(0.0 if best > hero_value else 1.0 / (1 + tied))
    mean, se = np.mean(shares), np.std(shares) / np.sqrt(len(shares))
    assert abs(r.equity - mean) <= 4 * np.hypot(se, r.standard_error)


# -- errors -------------------------------------------------------------------------------------


def test_errors_say_what_was_expected():
    with pytest.raises(CardError, match="shares a card"):
        multiway("AhKh", "2c7dJh", ["QsQd", "Qs9s"])
    with pytest.raises(CardError, match="shares a card with the hero, the board or another opponent"):
        multiway("AhKh", "2c7dJh", ["2c3c"])
    with pytest.raises(MatchdbError, match="expected 1..9"):
        multiway("AhKh", "2c7dJh", 10)
    with pytest.raises(MatchdbError, match="expected 1..9"):
        multiway("AhKh", "2c7dJh", ["random"] * 12)
    with pytest.raises(RangeError, match="No hand of the range"):
        multiway("AhKh", "AcAdAs", ["AA"])
    with pytest.raises(MatchdbError, match="method='sample'"):
        multiway("AhKh", "2c7dJh", 5, method="exact")  # enumeration too long on a flop
    with pytest.raises(MatchdbError, match="up to 5 opponents"):
        multiway("AhKh", "2c7dJh4s9d", 6, method="exact")
    with pytest.raises(CardError, match="known opponent"):
        multiway_outcome(
            match_table_cached("2c7dJh"),
            np.arange(1176),
            _row("2c7dJh", "AhKh"),
            [np.eye(1176)[_row("2c7dJh", "Ah9s")]],
        )
    with pytest.raises(MatchdbError, match="unknown"):
        multiway("AhKh", "2c7dJh", 2, method="fast")


@functools.cache
def match_table_cached(flop):
    from matchdb.core.table import match_table

    return match_table(flop)


def _row(flop, hand):
    from matchdb.core.pairs import pair_row

    return pair_row(parse_cards(flop), parse_cards(hand))


def test_result_fields(table_cache):
    from matchdb.core.pairs import board_columns

    result = multiway_outcome(table_cache("2c7dJh"), board_columns(()), _row("2c7dJh", "AhKh"), [np.ones(1176)] * 2)
    assert isinstance(result, MultiwayResult) and result.tie_share == pytest.approx(result.equity - result.win)
    r = multiway("AhKh", "2c7dJh", 2)
    assert r.equity == result.equity and r.exact
    assert r.samples == 0 and r.seed is None and r.standard_error == 0.0 and r.method == "exact"
    s = multiway("AhKh", "2c7dJh", 4, seed=1)
    # draws: each of the 271 groups of runouts is visited at least twice, and every visit draws once or twice
    assert s.samples >= 2 * 271 and s.seed == 1 and s.standard_error > 0 and s.method == "sample"


# -- through the command line and the HTTP service -------------------------------------------


def test_command_line_multiway(db, capsys):
    from matchdb.cli.main import main

    assert main(["query", "AhKh", "2c7dJh", "--opponents", "2", "--db", str(db.path), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["equity"] == pytest.approx(OMPEVAL_AHKH_TWO_RANDOM, abs=1e-12) and answer["exact"] is True
    assert set(answer) >= {"equity", "win", "tie", "loss", "exact", "standard_error"}
    argv = ["query", "KdQd", "KcQh5c", "--villain", "JcTc", "--villain", "5h5s", "--db", str(db.path)]
    assert main(argv) == 0
    assert "every player: KdQd 0.172757  JcTc 0.441860  5s5h 0.385382" in capsys.readouterr().out
    assert main(["query", "AhKh", "2c7dJh", "--opponents", "5", "--seed", "4", "--db", str(db.path), "--json"]) == 0
    sampled = json.loads(capsys.readouterr().out)
    assert sampled["exact"] is False and sampled["seed"] == 4 and 0 < sampled["standard_error"] < 0.002
    for argv, message in [
        (["--opponents", "10"], "--opponents is 10; expected 0..9."),
        (["--villain", "Ah9s", "--villain", "random"], "shares a card with the hero"),
        (["--villain", "22", "--villain", "2c2d,2c2h"], "is possible on the board"),
    ]:
        assert main(["query", "AhKh", "2c7dJh", *argv, "--db", str(db.path)]) == 2
        assert message in capsys.readouterr().err


def test_http_multiway_and_batch(db, tmp_path):
    import httpx

    from tests.helpers import running_server

    with running_server(db.path, tmp_path / "serve.log") as url:
        got = httpx.get(f"{url}/v1/multiway", params=[("hole", "KdQd"), ("board", "KcQh5c"), ("villain", "JcTc"), ("villain", "5h5s")])
        body = got.json()
        assert got.status_code == 200 and [round(100 * p, 4) for p in body["player_equities"]] == [17.2757, 44.186, 38.5382]
        random_two = httpx.get(f"{url}/v1/multiway", params={"hole": "AhKh", "board": "2c7dJh", "opponents": 2}).json()
        assert random_two["equity"] == db.multiway("AhKh", "2c7dJh", 2).equity
        batch = {"queries": [{"kind": "multiway", "hole": "AhKh", "board": "2c7dJh", "villain": ["QQ+,AKs"], "opponents": 1}]}
        result = httpx.post(f"{url}/v1/batch", json=batch).json()["results"][0]
        assert result["equity"] == db.multiway("AhKh", "2c7dJh", ["QQ+,AKs", "random"]).equity
        refused = httpx.get(f"{url}/v1/multiway", params={"hole": "AhKh", "board": "2c7dJh", "opponents": 12})
        assert refused.status_code == 400 and "expected 0..9" in refused.json()["detail"]
        twice = httpx.get(f"{url}/v1/multiway", params=[("hole", "AhKh"), ("hole", "QsQd"), ("board", "2c7dJh")])
        assert twice.status_code == 400 and "given 2 times" in twice.json()["detail"]


def test_a_read_only_tables_columns_are_copied_once_and_a_writable_ones_every_time():
    """Questions on one board share the table's columns as rows; a table the caller may change is copied afresh."""
    from matchdb.core.pairs import N_PAIRS
    from matchdb.equity.multiway import _columns_first, _Question

    table = np.arange(20 * 6, dtype=np.uint16).reshape(20, 6)
    columns = np.array([0, 2, 5], dtype=np.int64)
    fresh = _columns_first(table, columns, kept_here=False)
    assert np.array_equal(fresh, table[:, columns].T) and fresh is not _columns_first(table, columns, kept_here=False)
    table.flags.writeable = False
    kept = _columns_first(table, columns, kept_here=True)
    assert kept is _columns_first(table, columns, kept_here=True) and not kept.flags.writeable
    assert np.array_equal(_columns_first(table, columns[:2], kept_here=True), table[:, columns[:2]].T)
    # a question decides: a table the caller handed over writable is copied each time, though the kernels get it
    # as a read-only view (check_table), and a read-only one once
    whole, board = np.zeros((N_PAIRS, N_PAIRS), dtype=np.uint16), np.arange(N_PAIRS)
    opponents = [np.ones(N_PAIRS)]
    assert _Question(whole, board, opponents).cols is not _Question(whole, board, opponents).cols
    whole.flags.writeable = False
    assert _Question(whole, board, opponents).cols is _Question(whole, board, opponents).cols
