"""Real hands of every site as pokerkit reads them: posts, a missing big blind, folds, hidden showdowns, conventions.

The real excerpts in tests/data/hands (SOURCES.txt there) show each site's
ways; random hands written by pokerkit itself (every forced-bet set-up it
plays, folds with a check possible, showdowns shown, written ``????`` or
not written) check that matchdb ends every hand where pokerkit ends it.
"""

from __future__ import annotations

import warnings
from decimal import Decimal

import numpy as np
import pytest

from matchdb.hands import read, read_text, replay, replay_hand
from matchdb.hands.batch import Block
from matchdb.hands.reader import make_record
from matchdb.hands.replayer import NOTES, ReplayError
from tests.hands.conftest import DATA

pokerkit = pytest.importorskip("pokerkit")

FTP = DATA / "ftp-1000nl.phhs"
IPN = DATA / "ipn-100nl.phhs"
ONG = DATA / "ong-1000nl.phhs"
ONG2 = DATA / "ong-1000nl-2.phhs"
PTY = DATA / "pty-1000nl.phhs"


def _hand(path, number):
    [record] = [r for r in read(path) if r.number == number]
    return record


def _pokerkit_stacks(record) -> list[Decimal]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = list(record.history())[-1]
    assert not state.status
    return [Decimal(x) for x in state.stacks]


def test_a_post_of_a_new_player_is_a_live_bet_as_pokerkit_posts_it():
    """Ongame [16]: p4 posts 10 as a newly seated player, checks his option, folds to a raise: 10 lost, as recorded."""
    record = _hand(ONG2, "16")
    assert record.blinds == (500, 1000, 0, -1000, 0)
    done = replay_hand(record)
    assert done.status == "identical" and done.notes == ("post of a new player",)
    assert [record.amount(x) for x in done.final] == [Decimal(x) for x in ("173", "975", "1755", "190", "1504.75")]
    assert [record.amount(x) for x in done.engine.stacks] == _pokerkit_stacks(record)


def test_a_post_the_site_took_as_dead_money_is_replayed_so_and_named():
    """Ongame [2]: p3 posts 5 and calls 10: the record's pot (94) and stacks count the 5 as dead; pokerkit's live."""
    record = _hand(ONG, "2")
    done = replay_hand(record)
    assert done.status == "raked" and done.notes == ("post of a new player", "post counted as dead money")
    assert record.amount(sum(done.won)) == 94 and record.amount(done.rake) == 3
    assert done.final == record.finishing_stacks
    # pokerkit counts the post as p3's bet: the call adds 5, the pot is 89; the difference is the dead 5
    theirs = _pokerkit_stacks(record)
    assert theirs[2] - record.amount(done.engine.stacks[2]) == 5


def test_a_small_blind_without_a_big_blind_plays_as_pokerkit_plays_it():
    """Full Tilt [3]: only p1 posts (10); everyone folds to him."""
    record = _hand(FTP, "3")
    done = replay_hand(record)
    assert done.status == "unrecorded" and done.notes == ("no big blind",)
    assert [record.amount(x) for x in done.engine.stacks] == _pokerkit_stacks(record)


def test_party_counts_an_uncalled_bet_given_back_as_won_and_rakes():
    """Party [3]: p3's 1161.51 uncalled over p4's all-in is in p3's winnings; p4's pot of 423.08 paid 421.08."""
    report = replay(PTY)
    assert (report.read, report.identical, report.raked, dict(report.refused)) == (7, 3, 4, {})
    assert report.noted["uncalled bet counted as won"] == 6
    done = replay_hand(_hand(PTY, "3"))
    assert done.status == "raked" and done.record.amount(done.rake) == 2
    assert done.paid == (0, 0, 0, 42108, 0) and done.won == (0, 0, 0, 42308, 0)
    assert done.notes == ("uncalled bet counted as won",)


def test_a_split_pot_raked_from_both_shares_is_raked():
    """Ongame [19]: A4 and AK split on a board that plays; winnings all zero, the finishing stacks say 28.50 each."""
    done = replay_hand(_hand(ONG2, "19"))
    assert done.status == "raked" and done.record.amount(done.rake) == 3
    assert done.notes == ("winnings from finishing stacks", "split pot raked")
    assert done.paid[:2] == (2850, 2850) and done.won[:2] == (3000, 3000)


def test_showdowns_written_unknown_split_as_pokerkit_splits_them():
    """iPoker [1]: p1 dealt AcQc face up, both players 'sm ????' at the river: nobody's hand is shown, the pot split."""
    done = replay_hand(_hand(IPN, "1"))
    assert done.status == "unrecorded" and done.notes == ("hidden hand paid on the board",)
    assert done.won[:2] == (2400, 2400)
    for record in read(IPN):  # unlimited stacks: the results
        done = replay_hand(record)
        net = [done.record.amount(s - a) for s, a in zip(done.engine.stacks, done.engine.start, strict=True)]
        assert net == _pokerkit_nets(record), record.label


def _pokerkit_nets(record) -> list[Decimal]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = list(record.history())[-1]
    return [Decimal(x) for x in state.payoffs]


def test_a_shown_hand_beats_hands_written_unknown():
    """Full Tilt [4]: p1 shows 4cKh, p2 and p4 'sm ????': p1 takes the pot, as pokerkit pays it."""
    done = replay_hand(_hand(FTP, "4"))
    assert done.won == (30, 0, 0, 0, 0)  # unit 1: three players limped for 10
    assert [done.record.amount(x) for x in done.engine.stacks] == _pokerkit_stacks(done.record)


def test_the_report_names_every_class_of_the_sample_files():
    report = replay(DATA)
    assert report.read == 191
    assert (report.identical, report.raked, report.unrecorded) == (45, 50, 95)
    assert dict(report.refused) == {"disagreement": 1}
    assert dict(report.noted) == {
        "uncalled bet counted as won": 14, "winnings from finishing stacks": 1, "split pot raked": 1,
        "post of a new player": 2, "no big blind": 1, "hidden hand paid on the board": 2,
        "post counted as dead money": 1}
    assert set(report.noted) <= set(NOTES)
    assert "noted: 14 uncalled bet counted as won, 1 winnings from finishing stacks" in report.to_text()
    assert report.to_dict()["noted"]["post counted as dead money"] == 1


def test_a_fold_with_a_check_possible_is_a_fold_and_is_noted():
    """Party [2] changed: p3 limps, p1 folds, the big blind folds rather than check; pokerkit plays the fold."""
    text = PTY.read_text().split("\n\n[3]")[0].split("\n\n[2]")[1]
    text = text.replace("'p3 f', 'p1 f']", "'p3 cc', 'p1 f', 'p2 f']").replace("winnings = [0, 15, 0]",
                                                                             "winnings = [0, 0, 25]")
    [record] = list(read_text("[2]" + text, "fold.phhs"))
    assert record.actions[-1] == "p2 f"
    done = replay_hand(record)
    assert done.status == "identical" and done.notes == ("fold with a check possible",)
    assert [record.amount(x) for x in done.engine.stacks] == _pokerkit_stacks(record)
    report = replay([record])
    assert report.identical == 1 and report.noted["fold with a check possible"] == 1


@pytest.mark.parametrize(("change", "reason", "words"), [
    (("antes = [0, 0, 0, 0, 0]\nblinds_or_straddles = [5, 10, -5, 0, 0]",
      "antes = [0, 0, -5, 0, 0]\nblinds_or_straddles = [5, 10, 0, 0, 0]"), "malformed", "has a negative stack or ante"),
    (("winnings = [0, 91, 0, 0, 0]", "winnings = [0, 99, 0, 0, 0]"), "disagreement",
     "pays p2 99 in the record but 89 in the engine"),
    (("'p2 cbr 21', 'p3 cc'", "'p2 cbr 21'"), "incomplete", "the record stops while p3 is to act on the river"),
    (("'p3 cc', 'p4 f'", "'p3 cbr 5', 'p4 f'"), "illegal", "bets or raises to 5; the rules allow 20 to 1000"),
    (("blinds_or_straddles = [5, 10, -5, 0, 0]", "blinds_or_straddles = [5, 10, -5, 0]"), "malformed",
     "lists 5 antes and 4 blinds for 5 players"),
])
def test_damaged_variants_of_a_real_post_are_refused_in_one_sentence(change, reason, words):
    """Ongame [2], damaged: refused with its reason and sentence; the hands around it still replay."""
    text = ONG.read_text()
    assert change[0] in text
    report = replay(read_text(text.replace(change[0], change[1]), "damaged.phhs"))
    assert (report.read, report.replayed, dict(report.refused)) == (3, 2, {reason: 1})
    assert words in report.refusals[0].message and report.refusals[0].message.startswith("Hand ")


def test_damaged_variants_of_real_site_hands_are_refused():
    """A Party raked pot paying more than it holds, an iPoker showdown dealing a card twice: named, not replayed."""
    party = PTY.read_text().replace("winnings = [0, 0, 33.75, 0, 0, 0]", "winnings = [0, 0, 36, 0, 0, 0]")
    report = replay(read_text(party, "party.phhs"))
    assert dict(report.refused) == {"disagreement": 1} and "[6]" in report.refusals[0].message
    ipoker = IPN.read_text().replace("'d db 9h'", "'d db Ac'")
    report = replay(read_text(ipoker, "ipoker.phhs"))
    assert dict(report.refused) == {"malformed": 1} and "deals Ac twice" in report.refusals[0].message
    no_blind = FTP.read_text().replace("blinds_or_straddles = [10, 0, 0, 0, 0]", "blinds_or_straddles = [0, 0, 0, 0, 0]")
    report = replay(read_text(no_blind, "ftp.phhs"))
    assert dict(report.refused) == {"table": 1}
    assert report.refusals[0].message == ("Hand ftp.phhs [3] posts no blind, straddle or ante; pokerkit and the engine "
                                          "need one.")


# -- random hands written by pokerkit ------------------------------------------------------------------------------

_RANKS = "23456789TJQKA"
_SUITS = "cdhs"


def _random_hand(rng: np.random.Generator) -> dict:
    """A legal hand played by pokerkit with random forced bets, actions and showings, as PHH fields."""
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    setup = rng.choice(["standard", "post", "posts", "no big blind", "straddle", "minimum bet", "heads-up"])
    n = 2 if setup == "heads-up" else int(rng.integers(3, 7))
    blinds = [5, 10] + [0] * (n - 2)
    min_bet = 10
    if setup == "post":
        blinds[int(rng.integers(2, n))] = -int(rng.choice([5, 10, 15]))
    elif setup == "posts":
        for seat in rng.choice(np.arange(2, n), size=min(2, n - 2), replace=False):
            blinds[int(seat)] = -10
    elif setup == "no big blind":
        blinds = [int(rng.choice([5, 10]))] + [0] * (n - 1)
    elif setup == "straddle":
        blinds[2] = 20
    elif setup == "minimum bet":
        min_bet = int(rng.choice([5, 20]))
    stacks = [1000] * n if rng.random() < 0.5 else [int(x) for x in rng.integers(30, 400, n)]
    automations = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
                   Automation.RUNOUT_COUNT_SELECTION, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
                   Automation.CHIPS_PULLING)
    state = NoLimitTexasHoldem.create_state(automations, False, 0, blinds, min_bet, stacks, n, mode=Mode.CASH_GAME)
    deck = [_RANKS[c % 13] + _SUITS[c // 13] for c in rng.permutation(52)]
    actions: list[str] = []
    face_up = rng.random(n) < 0.3
    for player in range(n):
        cards = deck.pop() + deck.pop()
        state.deal_hole(cards)
        actions.append(f"d dh p{player + 1} {cards if face_up[player] else '????'}")
    short = False
    street = state.street_index
    while state.status:
        if state.street_index != street:
            street, short = state.street_index, False
        if state.can_burn_card():
            state.burn_card("??")
        elif state.can_deal_board():
            cards = "".join(deck.pop() for _ in range(state.street.board_dealing_count))
            state.deal_board(cards)
            actions.append(f"d db {cards}")
        elif state.can_show_or_muck_hole_cards():
            player = state.showdown_index
            way = rng.choice(["cards", "unknown", "unwritten"])
            hole = "".join(repr(c) for c in state.hole_cards[player])
            state.show_or_muck_hole_cards(True)
            if way == "cards":
                actions.append(f"p{player + 1} sm {hole}")
            elif way == "unknown":
                actions.append(f"p{player + 1} sm ????")
        elif state.actor_index is not None:
            player = state.actor_index
            to_call = state.checking_or_calling_amount
            draw = rng.random()
            if to_call == 0 and draw < 0.08 or to_call > 0 and draw < 0.3:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    state.fold()
                actions.append(f"p{player + 1} f")
            elif not short and state.can_complete_bet_or_raise_to() and draw < 0.6:
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                amount = int(rng.choice([low, high, int(rng.integers(low, high + 1))]))
                before = max(state.bets)
                full = max(state.completion_betting_or_raising_amount, min_bet)
                state.complete_bet_or_raise_to(amount)
                actions.append(f"p{player + 1} cbr {amount}")
                short = amount - before < full  # a short all-in: the rules of the two differ after it
            else:
                state.check_or_call()
                actions.append(f"p{player + 1} cc")
        else:
            raise AssertionError("pokerkit's state waits for something this generator does not do")
    return {"variant": "NT", "antes": [0] * n, "blinds_or_straddles": blinds, "min_bet": min_bet,
            "starting_stacks": stacks, "actions": actions, "_short_big_blind": "posted"}


def test_random_hands_of_every_forced_bet_end_as_pokerkit_ends_them():
    """300 hands: posts, no big blind, straddles, minimum bets, folds with a check possible, showdowns of every kind."""
    rng = np.random.default_rng(20240729)
    records, python = [], []
    seen = set()
    for k in range(300):
        raw = _random_hand(rng)
        record = make_record(raw, "random.phhs", str(k + 1), k + 1)
        records.append(record)
        with warnings.catch_warnings():  # pokerkit on whole chips (Decimal amounts would split odd chips exactly)
            warnings.simplefilter("ignore")
            fields = {k: v for k, v in raw.items() if not k.startswith("_")}
            state = list(pokerkit.HandHistory(**fields))[-1]
        theirs = list(state.stacks)
        try:
            done = replay_hand(record)
        except ReplayError as error:
            raise AssertionError(f"{error} {raw}") from None
        assert list(done.engine.stacks) == theirs, (raw, done.engine.stacks, theirs)
        python.append(done.engine.stacks)
        seen.update(done.notes)
    assert {"post of a new player", "no big blind", "straddle or other forced bets", "fold with a check possible",
            "hidden hand paid on the board"} <= seen
    block = Block.of(records)
    block.run()
    assert (block.status < 10).all()
    assert [tuple(block.final[k, :r.size].tolist()) for k, r in enumerate(records)] == python
