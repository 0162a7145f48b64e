"""Equity formulas over one table: published values, the article's example, one hand against all, input checks."""

import numpy as np
import pytest

from matchdb.core import reference
from matchdb.core.cards import format_cards, parse_cards
from matchdb.core.pairs import COLLISION, board_columns, pair_row
from matchdb.equity.heads_up import (
    all_hands_scores,
    hand_vs_weights,
    naive_win_rate,
    naive_win_rates,
    range_vs_range,
)
from matchdb.errors import MatchdbError


@pytest.mark.parametrize(
    ("hero", "flop", "published"),
    [("AcAd", "AhTcTh", 0.994682), ("AhTh", "AsTs9h", 0.893639)],
)
def test_exact_equity_from_one_table_matches_published_enumerations(hero, flop, published, table_cache):
    table = table_cache(flop)
    row = pair_row(parse_cards(flop), parse_cards(hero))
    win, tie, _ = hand_vs_weights(table, row, board_columns(()), np.ones(1176))
    assert round(win + tie / 2, 6) == published


def test_article_example_naive_and_exact(table_cache):
    flop = parse_cards("2c7dJh")
    table = table_cache("2c7dJh")
    row = pair_row(flop, parse_cards("AhKh"))
    assert round(naive_win_rate(table, row, board_columns(()), 2), 5) == 0.58071
    win, tie, _ = hand_vs_weights(table, row, board_columns(()), np.ones(1176))
    assert round(win + tie / 2, 5) == 0.57257


def test_every_hand_at_once_equals_one_at_a_time(table_cache):
    flop = parse_cards("AhKhQh")
    table = table_cache("AhKhQh")
    rng = np.random.default_rng(1)
    weights = rng.random(1176) * (rng.random(1176) < 0.3)
    for columns in (board_columns(()), board_columns((3,)), board_columns((3, 40))):
        score, deals = all_hands_scores(table, columns, weights)
        naive = naive_win_rates(table, columns, 4)
        for row in rng.choice(1176, size=12, replace=False):
            if not (table[row, columns] != 65535).any():
                continue
            win, tie, _ = hand_vs_weights(table, row, columns, weights)
            assert score[row] / deals[row] == pytest.approx(win + tie / 2, abs=1e-12)
            assert naive[row] == pytest.approx(naive_win_rate(table, row, columns, 4), abs=1e-15)
    assert pair_row(flop, parse_cards("AsKs")) >= 0


@pytest.mark.slow  # about 25 s of pure Python; tests/db/test_query.py checks the same figures against eval7's enumeration
def test_exact_equity_equals_the_pure_python_enumeration(table_cache):
    flop = parse_cards("7c7d2s")
    hole = parse_cards("As2d")
    row = pair_row(flop, hole)
    win, tie, _ = hand_vs_weights(table_cache("7c7d2s"), row, board_columns(()), np.ones(1176))
    assert win + tie / 2 == pytest.approx(reference.exact_equity(list(hole), list(flop)), abs=1e-12)


def test_bad_arguments_are_refused(table_cache):
    table = table_cache("2c7dJh")
    columns = board_columns(())
    for call, fragment in [
        (lambda: naive_win_rate(table, 1176, columns), "Row 1176 is out of range"),
        (lambda: naive_win_rate(table, 1.5, columns), "Row 1.5 is out of range"),
        (lambda: naive_win_rate(table, 3, columns, players=24), "players 24 is out of range"),
        (lambda: naive_win_rate(table, 3, [5000]), "not distinct column indices"),
        (lambda: hand_vs_weights(table, 3, [1, 1], np.ones(1176)), "not distinct column indices"),
        (lambda: hand_vs_weights(table, 3, columns, np.ones(5)), "must be 1176 row weights; got shape \\(5,\\)"),
        (lambda: hand_vs_weights(table, 3, columns, -np.ones(1176)), "finite, non-negative weights"),
        (lambda: hand_vs_weights(table, 3, columns, np.zeros(1176)), "no hand with a positive weight"),
        (lambda: hand_vs_weights(table, 3, columns, np.eye(1176)[3]), "No opponent hand"),
        (lambda: all_hands_scores(table[:5], columns, np.ones(1176)), "must be a \\(1176, 1176\\) uint16"),
        (lambda: naive_win_rates(table.astype(np.int32), columns), "must be a \\(1176, 1176\\) uint16"),
    ]:
        with pytest.raises(MatchdbError, match=fragment):
            call()
    assert COLLISION.shape == table.shape


@pytest.mark.parametrize("flop", ["2c7dJh", "AhKhQh", "7c7d2s"])
def test_numpy_and_numba_paths_agree_to_the_last_bit(flop, table_cache):
    """The one-shot path (jit=False) adds the same terms in the same order as the kernels."""
    table = table_cache(flop)
    rng = np.random.default_rng(sum(map(ord, flop)))
    for _ in range(20):
        row = int(rng.integers(1176))
        turn, river = rng.choice(49, size=2, replace=False)
        columns = [board_columns(()), board_columns((int(turn),)), board_columns((int(turn), int(river)))][int(rng.integers(3))]
        weights = rng.random(1176) * (rng.random(1176) < 0.5)
        players = int(rng.integers(2, 10))
        a = naive_win_rate(table, row, columns, players, jit=True)
        b = naive_win_rate(table, row, columns, players, jit=False)
        assert a == b or (np.isnan(a) and np.isnan(b))
        try:
            exact = hand_vs_weights(table, row, columns, weights, jit=True)
        except MatchdbError:
            with pytest.raises(MatchdbError):
                hand_vs_weights(table, row, columns, weights, jit=False)
            continue
        assert hand_vs_weights(table, row, columns, weights, jit=False) == exact


@pytest.mark.parametrize(
    ("hero", "villain"),
    [
        ("QQ+,AKs", None),  # a random villain: W's own counts (ties: each hero hand against every hand)
        (None, "QQ+,AKs"),  # a random hero: one minus the villain's share
        ("22+,AT+,KQ", None),  # a wider range against a random hand (ties: one pass over every hand's levels)
        (None, None),  # a random hand against a random hand
        ("QQ+,AKs", "JJ,TT,99"),  # small ranges: every pair compared
        ("22+,A2s+,K9s+,QTs+,JTs,T9s,98s,ATo+,KJo+", "22+,A2+,K2+,Q5+,J7+,T7+,97+,87,76,65s"),  # one walk per column
        ("0.5(AA),KK,0.25(AKs),7h7s", "QQ,0.75(JJ),Td9d"),  # weights, and hands that hold a turn or river card
    ],
)
@pytest.mark.parametrize("board", ["2c7dJh", "2c7dJh7s", "2c7dJh9d", "Kh8s3d2c9h", "AhTcTh7h"])
def test_range_scores_against_all_hands_scores(table_cache, hero, villain, board):
    """Every way range_scores counts, on the flop, turn and river, against the every-hand kernels weighted by the hero range."""
    from matchdb.core.canonical import CANONICAL_FLOPS, canonicalize
    from matchdb.core.pairs import local_index
    from matchdb.equity.heads_up import range_counts, range_scores, range_vs_range
    from tests.equity.test_multiway import frame_weights

    canon = canonicalize(board)
    flop = CANONICAL_FLOPS[canon.index]
    table = table_cache(format_cards(flop))
    columns = board_columns([int(local_index(flop)[c]) for c in canon.extra])
    h = np.ones(1176) if hero is None else frame_weights(flop, canon.perm, hero)
    v = np.ones(1176) if villain is None else frame_weights(flop, canon.perm, villain)
    score, deals = range_scores(table, columns, h, v)
    s, d = all_hands_scores(table, columns, v)
    assert score / deals == pytest.approx((h @ s) / (h @ d), abs=1e-12)
    assert deals == pytest.approx(h @ d, rel=1e-12)
    # the ties beside the score, against one hand at a time (hand_vs_weights counts win, tie and loss itself)
    counted_score, ties, counted_deals = range_counts(table, columns, h, v)
    assert (counted_score, counted_deals) == (score, deals)  # the same numbers, to the last bit
    want = 0.0
    for row in np.flatnonzero(h * (d > 0)):
        _, tie, _ = hand_vs_weights(table, row, columns, v)
        want += h[row] * tie * d[row]
    assert ties / deals == pytest.approx(want / (h @ d), abs=1e-12)
    result = range_vs_range(table, columns, h, v)
    assert (result.score, result.ties, result.deals) == (score, ties, deals)
    assert result.win + result.tie + result.loss == pytest.approx(1.0, abs=1e-15)
    assert result.win + result.tie / 2 == pytest.approx(result.equity, abs=1e-15)


@pytest.mark.parametrize(
    ("hero", "villain", "board"),
    [
        ("AK,AQ", "AK,KQ", "2c7dJh"),  # a flop; many ties
        ("QQ+,AKs", "JJ-99,AQs", "2c7dJh"),  # a flop, small ranges: every pair compared
        ("0.5(AA),KK,0.25(AKs),7h7s", "QQ,0.75(JJ),Td9d", "2c7dJh7s"),  # a turn, weights, hands that hold the turn card
        ("QQ+,AKs", "random", "2c7dJh9d"),  # a turn against a random hand
        ("random", "TT+,AQ+,0.5(KQs)", "Kh8s3d2c9h"),  # a river, a random hero
        ("random", "random", "AhTcTh7h2d"),  # a river, random against random
        ("22+,A2s+,K9s+,QTs+,JTs,T9s,98s,ATo+,KJo+", "22+,A2+,K2+,Q5+,J7+,T7+,97+,87,76,65s", "AhTcTh7h2d"),  # one walk per runout
    ],
)
def test_range_vs_range_win_and_tie_equal_an_enumeration(table_cache, hero, villain, board):
    """Win, tie and loss of a range against a range: eval7's values over every deal (tests.equity.test_multiway), to 1e-9."""
    from matchdb.core.canonical import CANONICAL_FLOPS, canonicalize
    from matchdb.core.pairs import local_index
    from tests.equity.test_multiway import enumerate_totals, frame_weights, random_hand_dict, range_dict

    canon = canonicalize(board)
    flop = CANONICAL_FLOPS[canon.index]
    columns = board_columns([int(local_index(flop)[c]) for c in canon.extra])
    h = np.ones(1176) if hero == "random" else frame_weights(flop, canon.perm, hero)
    v = np.ones(1176) if villain == "random" else frame_weights(flop, canon.perm, villain)
    result = range_vs_range(table_cache(format_cards(flop)), columns, h, v)
    hero_hands = random_hand_dict() if hero == "random" else range_dict(hero)
    villain_hands = random_hand_dict() if villain == "random" else range_dict(villain)
    win, tie, equity, deals = enumerate_totals([(a, b, w) for (a, b), w in hero_hands.items()], parse_cards(board), [villain_hands])
    assert result.win == pytest.approx(win / deals, abs=1e-9)
    assert result.tie == pytest.approx(tie / deals, abs=1e-9)
    assert result.loss == pytest.approx(1 - (win + tie) / deals, abs=1e-9)
    assert result.equity == pytest.approx(equity / deals, abs=1e-9)


def test_range_vs_range_equals_range_equity(full_db):
    db = full_db
    from matchdb.core.canonical import CANONICAL_FLOPS, canonicalize
    from matchdb.core.pairs import board_columns, local_index
    from matchdb.equity.heads_up import range_vs_range
    from tests.equity.test_multiway import frame_weights

    full = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"
    for hero, villain, board in (
        ("QQ+,AKs", "JJ,TT,99", "2c7dJh"),
        ("QQ+,AKs", "JJ,TT,99", "2c7dJh4s"),
        ("22+,AT+,KQ", "T9s,98s,87s,A5s", "Kh8s3d2c"),
        ("AK,AQ", "22+", "9c9d4h5s6s"),
        (full, full, "2c7dJh"),
        ("0.5(AA),KK,0.25(QQ)", full, "Th9h2s"),
        ("22+,AT+,KQ", full, "2c7dJh4s"),
        ("AdKh", full, "Ah9c4d8s2s"),
        (full, "0.3(22+),A2s+", "Qc8d5h"),
    ):
        canon = canonicalize(board)
        flop = CANONICAL_FLOPS[canon.index]
        columns = board_columns([int(local_index(flop)[c]) for c in canon.extra])
        r = range_vs_range(
            db.table(canon.index), columns, frame_weights(flop, canon.perm, hero), frame_weights(flop, canon.perm, villain)
        )
        assert r.equity == pytest.approx(db.range_equity(hero, villain, board), abs=1e-12), (hero, villain, board)
        assert sum(r.players) == pytest.approx(1.0, abs=1e-12)
