"""The engine against pokerkit (the rules oracle) and against worked cases."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from matchdb.core.cards import format_cards, parse_cards
from matchdb.play import engine as E
from matchdb.play.engine import CALL, CHECK, FOLD, RAISE, EngineError, Rules, Table, shuffled_decks

pokerkit = pytest.importorskip("pokerkit", reason="pokerkit is the rules oracle of these tests: pip install pokerkit")
from pokerkit import (  # noqa: E402
    Automation,
    ChipsPushing,
    Mode,
    NoLimitTexasHoldem,
    StandardHighHand,
)

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
BLINDS = [(1, 2), (5, 10), (2, 5), (1, 3), (25, 50)]
#: pokerkit lets callers pay only what a short big blind posted; the engine's default charges the full big blind.
POKERKIT_RULES = Rules(short_big_blind="posted")


# -- the oracle ------------------------------------------------------------------------------------


def random_table(rng):
    """2..10 seats, some empty, a quarter of the stacks shorter than three big blinds, sometimes antes."""
    n = int(rng.integers(2, 11))
    sb, bb = BLINDS[rng.integers(len(BLINDS))]
    ante = int([0, 0, 0, 1, 3][rng.integers(5)])
    stacks = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1:
            stacks.append(0)
        elif r < 0.35:
            stacks.append(int(rng.integers(1, 3 * bb + 1)))
        else:
            stacks.append(int(rng.integers(1, 120 * bb)))
    while sum(1 for s in stacks if s > 0) < 2:
        stacks[int(rng.integers(n))] = int(rng.integers(1, 50 * bb))
    return n, sb, bb, ante, stacks


def random_action(rng, legal):
    """Fold, call, or raise (min, all-in or anything between): random but legal."""
    r = rng.random()
    if legal.to_call > 0 and r < 0.18:
        return FOLD, 0
    if legal.can_raise and r > 0.55:
        q = rng.random()
        if q < 0.3:
            return RAISE, legal.max_raise_to
        if q < 0.6:
            return RAISE, legal.min_raise_to
        return RAISE, int(rng.integers(legal.min_raise_to, legal.max_raise_to + 1))
    return CALL, 0


def deal_pokerkit(state, board):
    """Burn (unknown cards, as there are no burn cards here) and deal the board until someone must act."""
    while state.status and state.actor_index is None:
        if state.can_burn_card("??"):
            state.burn_card("??")
        elif state.can_deal_board():
            have = len(list(state.get_board_cards(0)))
            state.deal_board(format_cards(board[have : have + state.board_dealing_count]))
        else:
            break


def play_both(rng, counts: Counter) -> None:
    """One random hand through this engine and pokerkit with the same cards and actions; compare everything."""
    n, sb, bb, ante, stacks = random_table(rng)
    live = [s for s in range(n) if stacks[s] > 0]
    button = int(rng.choice(live))
    table = Table(stacks, sb, bb, ante, button=button, rules=POKERKIT_RULES)
    hand = table.start_hand(rng.permutation(52))
    assert table.button == button
    order = [s for s in ((button + 1 + k) % n for k in range(n)) if stacks[s] > 0]  # pokerkit's player order
    pk = {s: i for i, s in enumerate(order)}
    state = NoLimitTexasHoldem.create_state(AUTOMATIONS, True, ante, (sb, bb), bb, [stacks[s] for s in order],
                                            len(order), mode=Mode.TOURNAMENT)
    for s in order:
        state.deal_hole(format_cards(hand.hole(s)))
    board = [int(c) for c in hand.full_board]
    while True:
        deal_pokerkit(state, board)
        if hand.over:
            break
        assert state.actor_index == pk[hand.actor]
        legal = hand.legal()
        assert state.can_fold() == (legal.to_call > 0)
        assert state.checking_or_calling_amount == legal.to_call
        pk_raise = state.can_complete_bet_or_raise_to()
        if pk_raise != legal.can_raise:
            # the two documented differences (engine module notes), only where they apply
            reopens, refuses = E._pokerkit_differs(table._g)
            assert (reopens and pk_raise) or (refuses and legal.can_raise)
            counts["pokerkit reopens" if pk_raise else "pokerkit refuses"] += 1
        if pk_raise and legal.can_raise:
            assert state.min_completion_betting_or_raising_to_amount == legal.min_raise_to
            assert state.max_completion_betting_or_raising_to_amount == legal.max_raise_to
        kind, amount = random_action(rng, legal)
        if kind == RAISE and not pk_raise:
            kind, amount = CALL, 0  # a raise pokerkit refuses (see above) cannot be compared
        hand.act(kind, amount)
        if kind == FOLD:
            state.fold()
        elif kind == CALL:
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(amount)
        counts[("fold", "call", "call", "raise")[kind]] += 1
    deal_pokerkit(state, board)
    assert not state.status
    record = hand.record()
    assert list(state.stacks) == [record.stacks[s] for s in order]
    assert sum(record.stacks) == sum(stacks)  # chips conserved
    put_in = sum(record.start[s] - record.stacks[s] + record.won[s] for s in range(n))
    assert sum(record.won) == put_in  # the pots pay out exactly what went in
    pushes = [op for op in state.operations if isinstance(op, ChipsPushing)]
    if record.showdown:
        counts["showdowns"] += 1
        pots: dict[int, list[int]] = {}
        for op in pushes:
            pots.setdefault(op.pot_index, [0] * len(order))
            pots[op.pot_index] = [a + b for a, b in zip(pots[op.pot_index], op.amounts, strict=True)]
        theirs = [(sum(amounts), tuple(sorted(order[i] for i, a in enumerate(amounts) if a))) for _, amounts in sorted(pots.items())]
        mine = [(amount, paid) for amount, _, paid in record.pots]
        assert mine == theirs
        assert sum(amount for amount, _ in mine) == sum(record.won)
        counts["side pots"] += len(record.pots) > 1
        counts["three or more all-in"] += sum(1 for s in live if hand_all_in(record, s)) >= 3
    else:
        winners = [s for s in range(n) if record.won[s] > 0]
        assert len(winners) == 1 and sum(1 for op in pushes for a in op.amounts if a) <= 1
        counts["won by folds"] += 1
    counts["antes"] += ante > 0
    counts["short stacks"] += any(0 < s < 3 * bb for s in stacks)
    counts["hands"] += 1


def hand_all_in(record, seat) -> bool:
    """The seat put its whole starting stack in."""
    put_in = record.start[seat] - record.stacks[seat] + record.won[seat]
    return record.start[seat] > 0 and put_in == record.start[seat]


@pytest.fixture
def memoized_pokerkit_hands(monkeypatch):
    """pokerkit's own hand evaluation, remembered per cards: its showdowns re-evaluate every hand for
    every pot (about 10 ms a showdown), which dominated this test; the answers are the same."""
    original = StandardHighHand.from_game.__func__
    seen: dict = {}

    def from_game(cls, hole_cards, board_cards=()):
        key = (tuple(hole_cards), tuple(board_cards))
        if key not in seen:
            seen[key] = original(cls, *key)
        return seen[key]

    monkeypatch.setattr(StandardHighHand, "from_game", classmethod(from_game))


def test_engine_agrees_with_pokerkit_on_2000_random_hands(memoized_pokerkit_hands):
    rng = np.random.default_rng(20261122)
    counts: Counter = Counter()
    for _ in range(2000):
        play_both(rng, counts)
    assert counts["hands"] == 2000
    # the random hands reach every rule the comparison is about
    assert counts["side pots"] >= 500 and counts["three or more all-in"] >= 300
    assert counts["won by folds"] >= 50 and counts["antes"] >= 200 and counts["short stacks"] >= 500
    assert counts["fold"] > 1000 and counts["raise"] > 3000
    assert counts["pokerkit reopens"] > 0


# -- worked cases ------------------------------------------------------------------------------------


def deck_with(holes: list[str], board: str) -> np.ndarray:
    """A deck dealing ``holes[s]`` to seat s and then ``board``; the rest in order."""
    front = [c for h in holes for c in parse_cards(h)] + list(parse_cards(board))
    return np.array(front + [c for c in range(52) if c not in front])


def test_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after():
    table = Table([100, 100], 1, 2, button=1)
    hand = table.start_hand(deck_with(["AhAd", "KhKd"], "2c3c4c5d9s"))
    assert hand.history[:2] == ((0, 1, E.SMALL_BLIND, 1), (0, 0, E.BIG_BLIND, 2))
    assert hand.actor == 1
    hand.act(CALL)
    assert hand.actor == 0 and hand.legal().to_call == 0
    hand.act(CHECK)
    assert hand.street == 1 and hand.actor == 0  # the big blind acts first after the flop


def test_short_all_in_does_not_reopen_the_betting():
    # blinds 5/10, button seat 0: seat 3 raises to 100 (a raise of 90), seat 0 calls, the small blind
    # (seat 1) goes all-in for 130 (a raise of 30, short), the big blind calls: seats 3 and 0 may only call
    stacks = [1000, 130, 1000, 1000]
    actions = [(RAISE, 100), (CALL, 0), (RAISE, 130), (CALL, 0)]
    hand = play_actions(Table(stacks, 5, 10, button=0), np.arange(52), actions)
    assert hand.actor == 3 and hand.legal() == E.Legal(30, False, 0, 0)
    state = NoLimitTexasHoldem.create_state(AUTOMATIONS, True, 0, (5, 10), 10, stacks[1:] + stacks[:1], 4,
                                            mode=Mode.TOURNAMENT)
    for seat in (1, 2, 3, 0):
        state.deal_hole(format_cards(hand.hole(seat)))
    state.complete_bet_or_raise_to(100), state.check_or_call(), state.complete_bet_or_raise_to(130), state.check_or_call()
    assert state.actor_index == 2 and not state.can_complete_bet_or_raise_to()


def play_actions(table, deck, actions):
    hand = table.start_hand(deck)
    for kind, amount in actions:
        hand.act(kind, amount)
    return hand


def test_short_all_ins_adding_up_to_a_full_raise_reopen_the_betting_unlike_pokerkit():
    # 7 seats, blinds 5/10, button seat 6: seat 2 raises to 110 (a full raise of 100), seat 3 calls,
    # seats 4, 5, 6 go all-in for 170, 230, 260 (+60, +60, +30: short each, 150 together), blinds fold.
    stacks = [1000, 1000, 1000, 1000, 170, 230, 260]
    actions = [(RAISE, 110), (CALL, 0), (RAISE, 170), (RAISE, 230), (RAISE, 260), (FOLD, 0), (FOLD, 0)]
    hand = play_actions(Table(stacks, 5, 10, button=6), np.arange(52), actions)
    assert hand.actor == 2 and hand.legal().can_raise  # facing 150 more, more than the full raise of 100
    assert E._pokerkit_differs(hand._table._g) == (False, True)
    state = NoLimitTexasHoldem.create_state(AUTOMATIONS, True, 0, (5, 10), 10, stacks[0:2] + stacks[2:], 7,
                                            mode=Mode.TOURNAMENT)
    for k in range(7):
        state.deal_hole(format_cards(hand.hole(k)))
    for kind, amount in actions:
        {FOLD: lambda a: state.fold(), CALL: lambda a: state.check_or_call(),
         RAISE: lambda a: state.complete_bet_or_raise_to(a)}[kind](amount)
    assert state.actor_index == 2 and not state.can_complete_bet_or_raise_to()


def test_a_short_all_in_opening_the_round_lets_pokerkit_reopen_but_not_this_engine():
    # blinds 5/10: seat 3 limps, seat 4 goes all-in for 14 (a raise of 4, short of the big blind's 10)
    stacks = [1000, 1000, 1000, 1000, 14]
    hand = play_actions(Table(stacks, 5, 10, button=4), np.arange(52), [(CALL, 0), (CALL, 0), (RAISE, 14)])
    while hand.actor != 2:
        hand.act(CALL)
    assert not hand.legal().can_raise and E._pokerkit_differs(hand._table._g) == (True, False)
    state = NoLimitTexasHoldem.create_state(AUTOMATIONS, True, 0, (5, 10), 10, stacks, 5, mode=Mode.TOURNAMENT)
    for k in range(5):
        state.deal_hole(format_cards(hand.hole(k)))
    state.check_or_call(), state.check_or_call(), state.complete_bet_or_raise_to(14)
    state.check_or_call(), state.check_or_call()
    assert state.actor_index == 2 and state.can_complete_bet_or_raise_to()


def test_split_pot_odd_chip_goes_to_the_first_winner_after_the_button():
    # a royal flush on the board: three players tie; 3 x 25 + 1 folded chip = 76 cannot split evenly
    table = Table([100, 100, 100, 100], 1, 2, button=0)
    hand = table.start_hand(deck_with(["2c3d", "2d3h", "2h3s", "4c5d"], "AsKsQsJsTs"))
    # seat 1 small blind, 2 big blind, 3 first to act
    hand.act(RAISE, 25)  # seat 3
    hand.act(FOLD)  # seat 0
    hand.act(CALL)  # seat 1
    hand.act(CALL)  # seat 2
    while not hand.over:
        hand.act(CHECK)
    record = hand.record()
    assert record.pots == ((75, (1, 2, 3), (1, 2, 3)),)
    assert record.won == (0, 25, 25, 25) and record.stacks == (100, 100, 100, 100)
    table2 = Table([100, 100, 100, 100], 1, 2, button=0)
    hand2 = table2.start_hand(deck_with(["2c3d", "2d3h", "2h3s", "4c5d"], "AsKsQsJsTs"))
    hand2.act(RAISE, 25)
    hand2.act(CALL)  # seat 0 calls: 100 in the pot, 4 ways... then seat 1 folds the small blind
    hand2.act(FOLD)
    hand2.act(CALL)
    while not hand2.over:
        hand2.act(CHECK)
    # 25 x 3 + 1 = 76 split by seats 0, 2, 3: 25 each and the odd chip to seat 2, first after the button (0)
    assert hand2.record().won == (25, 0, 26, 25)


def test_uncalled_bet_goes_back_and_fold_to_one_takes_the_pot():
    table = Table([100, 40, 100], 1, 2, button=0)
    hand = table.start_hand(np.arange(52))
    hand.act(RAISE, 100)  # seat 0 all-in
    hand.act(CALL)  # seat 1 calls all-in for 40
    hand.act(FOLD)  # seat 2 folds its big blind
    assert hand.over and hand.record().pots[0][0] == 82  # 40 + 40 + 2; 60 of seat 0's chips came back
    assert sum(table.stacks) == 240


def test_engine_normalises_actions():
    table = Table([100, 100, 100], 1, 2)
    hand = table.start_hand(np.arange(52))
    assert hand.act(RAISE, 3) == RAISE and hand.history[-1][3] == 4  # below the minimum: clamped up to 4
    assert hand.act(RAISE, 10**6) == RAISE and hand.history[-1][3] == 100  # above: all-in
    hand.act(CALL)
    assert hand.act(RAISE, 50) == CALL  # nobody left to call a raise: a call
    table = Table([100, 100], 1, 2)
    hand = table.start_hand(np.arange(52))
    hand.act(CALL)
    assert hand.act(FOLD) == CHECK  # nothing to call: a check


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Table([100], 1, 2), "A table needs 2 to 10 seats; got 1 stacks [100]."),
        (lambda: Table([100, -5], 1, 2), "The stack -5 is not a whole number of chips of at least 0."),
        (lambda: Table([100, 100], 3, 2), "The small blind 3 is larger than the big blind 2."),
        (lambda: Table([100, 0], 1, 2).start_hand(), "A hand needs 2 players with chips; the stacks are [100, 0]."),
        (lambda: Table([100, 100], 1, 2).start_hand([0] * 52), "A deck must hold each card id 0..51 exactly once."),
        (lambda: Table([100, 100], 1, 2).start_hand(np.arange(52)).act(7), "The action 7 is not one of FOLD (0), CHECK (1), CALL (2) or RAISE (3)."),
        (lambda: shuffled_decks(np.random.default_rng(0), -1), "The number of decks -1 is not a whole number of at least 0."),
    ],
)
def test_engine_errors_say_what_was_expected(make, message):
    with pytest.raises(EngineError) as caught:
        make()
    assert str(caught.value) == message


def test_acting_after_the_hand_is_over_is_an_error():
    table = Table([100, 100], 1, 2)
    hand = table.start_hand(np.arange(52))
    hand.act(FOLD)
    with pytest.raises(EngineError, match="the hand is over"):
        hand.act(CALL)


def test_button_moves_past_empty_seats_and_busted_players_sit_out():
    table = Table([100, 0, 100, 100], 1, 2, button=0)
    buttons = []
    for _ in range(4):
        hand = table.start_hand()
        buttons.append(table.button)
        while not hand.over:
            hand.act(CALL)
        assert hand.hole(1) is None  # the empty seat is never dealt in
    assert buttons == [0, 2, 3, 0]


def test_antes_are_posted_by_everyone_and_short_stacks_post_what_they_have():
    table = Table([100, 3, 100], 1, 2, ante=5, button=0)
    hand = table.start_hand(np.arange(52))
    antes = [h for h in hand.history if h[2] == E.ANTE]
    assert sorted((seat, amount) for _, seat, _, amount in antes) == [(0, 5), (1, 3), (2, 5)]
    assert hand.pot == 13 + 0 + 2  # antes, then the blinds: seat 1, all-in from its ante, posts no small blind


def test_fisher_yates_decks_are_reproducible_and_uniform():
    a = shuffled_decks(np.random.default_rng(11), 40)
    rng = np.random.default_rng(11)
    b = np.concatenate([shuffled_decks(rng, 15), shuffled_decks(rng, 25)])
    assert (a == b).all()  # blocks of any size draw the same decks
    decks = shuffled_decks(np.random.default_rng(12), 26_000)
    assert (np.sort(decks, axis=1) == np.arange(52)).all()
    # every card equally likely at the first and last place: chi-square with 51 degrees of freedom
    for position in (0, 51):
        observed = np.bincount(decks[:, position], minlength=52)
        chi2 = ((observed - 500) ** 2 / 500).sum()
        assert chi2 < 88.0  # the 99.9 % point of chi-square with 51 degrees of freedom


# -- rule choices (docs/guide/rules.md) ----------------------------------------------------------------


def pokerkit_state(stacks, button, sb, bb, ante=0):
    """A pokerkit state with the engine's seats in pokerkit's order (first after the button first); and that order."""
    n = len(stacks)
    order = [s for s in ((button + 1 + k) % n for k in range(n)) if stacks[s] > 0]
    state = NoLimitTexasHoldem.create_state(AUTOMATIONS, True, ante, (sb, bb), bb, [stacks[s] for s in order],
                                            len(order), mode=Mode.TOURNAMENT)
    return state, order


def test_callers_owe_the_full_big_blind_when_it_is_short_unless_the_pokerkit_rule_is_chosen():
    # the table: the big blind (seat 2) has 4 chips of a 10 big blind
    hand = Table([1000, 1000, 4, 1000], 5, 10, button=0).start_hand(np.arange(52))
    assert hand.actor == 3 and hand.legal() == E.Legal(10, True, 20, 1000)  # card rooms: 10 to call, raise to 20
    posted = Table([1000, 1000, 4, 1000], 5, 10, button=0, rules=POKERKIT_RULES).start_hand(np.arange(52))
    assert posted.actor == 3 and posted.legal() == E.Legal(5, True, 15, 1000)
    state, order = pokerkit_state([1000, 1000, 4, 1000], 0, 5, 10)
    for seat in order:
        state.deal_hole(format_cards(posted.hole(seat)))
    assert order[state.actor_index] == 3 and state.checking_or_calling_amount == 5  # what the option matches
    assert state.min_completion_betting_or_raising_to_amount == 15
    # seat 3 calls 10, seats 0 and 1 fold: of seat 3's 10 the 5 that the folded small blind did not match come back
    hand.act(CALL), hand.act(FOLD), hand.act(FOLD)
    assert hand.over
    assert [amount for amount, _, _ in hand.record().pots] == [3 * 4, 2]  # main pot of the short 4, side pot 1 + 1


def test_zero_small_blind_and_big_blind_all_in_on_its_ante():
    # seat 1 posts a small blind of 0, seat 2 puts its 5 chips into the ante and posts no big blind
    stacks, button = [100, 100, 5], 0
    posted = Table(stacks, 0, 10, 5, button=button, rules=POKERKIT_RULES).start_hand(np.arange(52))
    state, order = pokerkit_state(stacks, button, 0, 10, 5)
    for seat in order:
        state.deal_hole(format_cards(posted.hole(seat)))
    # nothing to call: like pokerkit, the round opens with the first player after the button (the small blind)
    assert posted.actor == order[state.actor_index] == 1 and posted.legal().to_call == state.checking_or_calling_amount == 0
    # the default (card rooms): the big blind is still owed, so the first player after the big blind acts, facing it
    full = Table(stacks, 0, 10, 5, button=button).start_hand(np.arange(52))
    assert full.actor == 0 and full.legal() == E.Legal(10, True, 20, 95)


def test_a_short_all_in_bet_opening_a_round_after_the_flop_does_not_reopen_it():
    # blinds 5/10, everyone calls the big blind (seat 1, 16 chips); after the flop seat 0 checks, seat 1 bets its
    # last 6 chips, less than a big blind, and seat 2 calls. Seat 0 already acted and faces less than a full bet:
    # it may call or fold, not raise (TDA rule 45, a deliberate choice; pokerkit measures the bet against the
    # largest wager so far, 0, and lets seat 0 raise)
    stacks, button = [1000, 16, 1000], 2
    actions = [(CALL, 0), (CALL, 0), (CHECK, 0), (CHECK, 0), (RAISE, 6), (CALL, 0)]
    hand = play_actions(Table(stacks, 5, 10, button=button), np.arange(52), actions)
    assert hand.street == 1 and hand.actor == 0 and hand.legal() == E.Legal(6, False, 0, 0)
    assert E._pokerkit_differs(hand._table._g) == (True, False)
    state, order = pokerkit_state(stacks, button, 5, 10)
    for seat in order:
        state.deal_hole(format_cards(hand.hole(seat)))
    board = [int(c) for c in hand.full_board]
    for kind, amount in actions:
        deal_pokerkit(state, board)
        {FOLD: lambda a: state.fold(), CALL: lambda a: state.check_or_call(), CHECK: lambda a: state.check_or_call(),
         RAISE: lambda a: state.complete_bet_or_raise_to(a)}[kind](amount)
    assert order[state.actor_index] == 0 and state.can_complete_bet_or_raise_to()


def test_dead_button_moves_the_big_blind_one_seat_and_nobody_posts_it_twice():
    # hand 1: button 0, small blind 1, big blind 2; seat 0 goes all-in with 7-2 and busts
    holes, board = ["7c2d", "AhAd", "KhKd"], "AsKs9h4c3h"
    for rule, big_blinds in (("moving", [2, 2]), ("dead", [2, 1])):
        table = Table([3, 100, 100], 1, 2, button=0, rules=Rules(button=rule))
        hand = play_actions(table, deck_with(holes, board), [(RAISE, 3), (CALL, 0), (CALL, 0)])
        while not hand.over:
            hand.act(CHECK)
        assert table.stacks[0] == 0
        hand = table.start_hand(np.arange(52))
        seen = [seat for _, seat, kind, _ in hand.history if kind == E.BIG_BLIND]
        assert [2] + seen == big_blinds, rule  # moving: seat 2 posts the big blind twice in a row
        if rule == "dead":
            assert table.button == 2 and hand.actor == 2  # heads-up the button posts the small blind and acts first


def test_dead_button_may_sit_on_an_empty_seat_and_the_small_blind_may_be_dead():
    # four seats; seat 1 (the small blind of hand 1) busts in hand 1
    holes, board = ["AhAd", "7c2d", "KhKd", "QcQd"], "AsKs9h4c3h"
    table = Table([100, 3, 100, 100], 1, 2, button=0, rules=Rules(button="dead"))
    hand = play_actions(table, deck_with(holes, board), [(CALL, 0), (CALL, 0), (RAISE, 3), (CALL, 0)])
    while not hand.over:
        hand.act(CHECK)
    assert table.stacks[1] == 0
    hand = table.start_hand(np.arange(52))
    posts = [(seat, kind) for _, seat, kind, _ in hand.history if kind in (E.SMALL_BLIND, E.BIG_BLIND)]
    assert table.button == 1 and posts == [(2, E.SMALL_BLIND), (3, E.BIG_BLIND)]  # the button on the empty seat
    while not hand.over:
        hand.act(CALL)
    hand = table.start_hand(np.arange(52))
    posts = [(seat, kind) for _, seat, kind, _ in hand.history if kind in (E.SMALL_BLIND, E.BIG_BLIND)]
    assert table.button == 2 and posts == [(3, E.SMALL_BLIND), (0, E.BIG_BLIND)]


def test_rules_are_checked():
    with pytest.raises(EngineError, match="The short big blind rule 'half' is unknown; expected 'full' or 'posted'."):
        Rules(short_big_blind="half")
    with pytest.raises(EngineError, match="The rules 'dead' are not a matchdb.play.engine.Rules."):
        Table([10, 10], 1, 2, rules="dead")


def test_the_state_record_keeps_every_chip_and_names_what_came_back():
    """``Hand.state()``: start - stacks + won is what each seat left in the pots, and ``returned`` is what its history
    put in less that (an uncalled bet or ante given back), on random hands with antes and all-ins."""
    rng = np.random.default_rng(31)
    for _ in range(200):
        seats = int(rng.integers(2, 7))
        table = Table([int(x) for x in rng.integers(1, 60, seats)], 1, 2, ante=int(rng.integers(0, 3)), seed=int(rng.integers(1 << 30)))
        hand = table.start_hand()
        while not hand.over:
            legal = hand.legal()
            kind = int(rng.choice([E.FOLD, E.CALL, E.RAISE]))
            hand.act(kind, int(rng.integers(legal.min_raise_to, legal.max_raise_to + 1)) if legal.can_raise else 0)
        state = hand.state()
        put = [0] * seats
        bet = [0] * seats
        street = 0
        for st, seat, kind, amount in state.history:
            if st != street:
                street, bet = st, [0] * seats
            added = amount - bet[seat] if kind == E.RAISE else amount
            put[seat] += added
            bet[seat] += added if kind != E.ANTE else 0
        left = [s - f + w for s, f, w in zip(state.start, state.stacks, state.won, strict=True)]
        assert [p - r for p, r in zip(put, state.returned, strict=True)] == left
        assert sum(state.won) == sum(left) and state.street == 4 and state.actor == -1


def test_the_layout_names_that_were_public_warn_for_one_release():
    with pytest.warns(DeprecationWarning, match="G_SEATS is deprecated"):
        assert E.G_SEATS == E._G_SEATS
    with pytest.warns(DeprecationWarning, match="act_kernel is deprecated"):
        assert E.act_kernel is E._act_kernel
    table = Table([10, 10], 1, 2, seed=1)
    with pytest.warns(DeprecationWarning, match="over_arrays is deprecated"):
        assert Table.over_arrays(table._g, table._p, table._log).seats == 2
