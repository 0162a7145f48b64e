"""Preflop enumeration of known hands (matchdb.equity.enumeration): published figures, an independent enumeration, the evaluator's order."""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest

from matchdb.core.cards import parse_cards
from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP, evaluate_with
from matchdb.equity.enumeration import evaluator_tables, known_hands
from matchdb.errors import CardError, MatchdbError

#: OMPEval's exact figures (DESIGN.md section 5), first player's equity.
PUBLISHED = [
    (("AhKh", "QsQd"), 0.4621445724590958),
    (("AcAd", "KhKs"), 0.8125548967940268),
    (("AhKh", "QsQd", "JcTc"), 0.4020918414245004),
]


@numba.njit(cache=False)  # not cached: a cache keyed by this file breaks when it is imported under another name
def _reference(hands, deck, straight_top, flush_value):
    """Every 5-card board of ``deck`` (plain nested loops), each 7-card hand valued by the project's evaluator;
    ``out[i, t]``: boards player i wins tied with t others."""
    n_hands = hands.shape[0]
    n = deck.shape[0]
    out = np.zeros((n_hands, n_hands), dtype=np.int64)
    cards = np.empty(7, dtype=np.int64)
    scratch = np.zeros(13, dtype=np.int32)
    values = np.empty(n_hands, dtype=np.int64)
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        cards[2] = deck[a]
                        cards[3] = deck[b]
                        cards[4] = deck[c]
                        cards[5] = deck[d]
                        cards[6] = deck[e]
                        for i in range(n_hands):
                            cards[0] = hands[i, 0]
                            cards[1] = hands[i, 1]
                            values[i] = evaluate_with(cards, scratch, straight_top, flush_value)
                        best = values.max()
                        tied = 0
                        for i in range(n_hands):
                            tied += values[i] == best
                        for i in range(n_hands):
                            if values[i] == best:
                                out[i, tied - 1] += 1
    return out


def reference_counts(hands: list[tuple[int, int]]) -> np.ndarray:
    """An independent count of every board beside known hands: what the tests compare everything preflop with."""
    used = {c for hand in hands for c in hand}
    deck = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    return _reference(np.array(hands, dtype=np.int64), deck, STRAIGHT_TOP, FLUSH_VALUE)


def random_hands(rng, count: int) -> list[tuple[int, int]]:
    cards = rng.choice(52, size=2 * count, replace=False)
    return [(int(cards[2 * i]), int(cards[2 * i + 1])) for i in range(count)]


@pytest.mark.parametrize(("hands", "published"), PUBLISHED)
def test_published_exact_figures(hands, published):
    result = known_hands([parse_cards(h) for h in hands])
    assert result.equity[0] == pytest.approx(published, abs=1e-15)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_equal_to_an_independent_enumeration(players):
    rng = np.random.default_rng(1000 + players)
    for _ in range(2):
        hands = random_hands(rng, players)
        got = known_hands(hands)
        want = reference_counts(hands)
        assert np.array_equal(got.counts, want), hands
        assert got.boards == sum(want[i, t] / (t + 1) for i in range(players) for t in range(players))  # each board once


def test_flush_heavy_deals_equal_an_independent_enumeration():
    """Boards that give several players a flush (suited hands in one suit, a dead card of it) are counted once each."""
    hands = [parse_cards(h) for h in ("AhKh", "QhJh", "7h6d", "2c2h")]
    got = known_hands(hands, dead=parse_cards("9h"))
    used = {c for hand in hands for c in hand} | set(parse_cards("9h"))
    deck = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    assert np.array_equal(got.counts, _reference(np.array(hands), deck, STRAIGHT_TOP, FLUSH_VALUE))


def test_dead_cards_are_left_out():
    hands = [parse_cards("AhKh"), parse_cards("QsQd")]
    got = known_hands(hands, dead=parse_cards("2c3c"))
    used = {c for hand in hands for c in hand} | set(parse_cards("2c3c"))
    deck = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    assert got.boards == 1370754
    assert np.array_equal(got.counts, _reference(np.array(hands), deck, STRAIGHT_TOP, FLUSH_VALUE))


def test_the_evaluator_orders_hands_as_the_projects_evaluator():
    """The perfect-hash evaluator's strengths are an order-preserving map of the evaluator's values, on 50,000 random hands."""
    from matchdb.equity._kernels.enumeration import (
        CARD_KEY,
        CARD_MASK,
        EMPTY_KEY,
        strength,
    )

    lookup, offsets, flush_rank = evaluator_tables()
    rng = np.random.default_rng(7)
    scratch = np.zeros(13, dtype=np.int32)
    values, strengths = [], []
    for _ in range(50_000):
        cards = rng.choice(52, size=7, replace=False)
        values.append(evaluate_with(cards.astype(np.int64), scratch, STRAIGHT_TOP, FLUSH_VALUE))
        key = EMPTY_KEY + CARD_KEY[cards].sum(dtype=np.uint64)
        mask = np.bitwise_or.reduce(CARD_MASK[cards])
        strengths.append(strength(key, mask, lookup, offsets, flush_rank))
    values, strengths = np.array(values), np.array(strengths)
    order = np.argsort(values, kind="stable")
    assert (np.diff(strengths[order]) >= 0).all()  # never out of order
    assert len(np.unique(values)) == len(np.unique(strengths))  # equal exactly when the values are equal


def test_shipped_tables_equal_a_fresh_build():
    from matchdb.equity._kernels.enumeration import build_tables, load_tables

    for shipped, built in zip(load_tables(), build_tables(), strict=True):
        assert shipped.dtype == built.dtype and np.array_equal(shipped, built)


def test_bad_hands_are_refused():
    with pytest.raises(CardError, match="share a card"):
        known_hands([parse_cards("AhKh"), parse_cards("Ah2c")])
    with pytest.raises(MatchdbError, match="2 to 10 hands"):
        known_hands([parse_cards("AhKh")])


def test_eval7_agrees_on_one_matchup():
    """eval7, an evaluator nobody here wrote, over every board of one matchup (about 5 s)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import eval7
    from itertools import combinations

    hero, villain = parse_cards("7h6h"), parse_cards("AsKd")
    names = "23456789TJQKA"
    cards = [eval7.Card(names[c % 13] + "cdhs"[c // 13]) for c in range(52)]
    deck = [cards[c] for c in range(52) if c not in set(hero) | set(villain)]
    h = [cards[c] for c in hero]
    v = [cards[c] for c in villain]
    win = tie = 0
    for board in combinations(deck, 5):
        board = list(board)
        a = eval7.evaluate(h + board)
        b = eval7.evaluate(v + board)
        win += a > b
        tie += a == b
    got = known_hands([hero, villain])
    assert (int(got.counts[0, 0]), int(got.counts[0, 1])) == (win, tie)
