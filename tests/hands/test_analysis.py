"""Statistics against counts made by hand, all-in adjusted figures against eval7's enumeration, outputs."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from matchdb.core.cards import format_cards, parse_cards
from matchdb.hands import HandsError, analyse, read_text
from matchdb.hands.allin import expected_payments, pot_levels
from tests.hands.conftest import phh

eval7 = pytest.importorskip("eval7")

#: AhKh against QsQd preflop, exactly (OMPEval, DESIGN.md section 5).
AK_VS_QQ = 0.4621445724590958

SMALL = "\n".join([
    phh(["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 6", "p1 cbr 18", "p2 f", "p3 cc", "d db 2c7dJh",
         "p1 cbr 20", "p3 cc", "d db 3s", "p1 cc", "p3 cbr 40", "p1 f"],
        stacks=(200, 200, 200), players=["A", "B", "C"], winnings=[0, 0, 78], number=1),
    phh(["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cc", "p1 cc", "p2 cc", "d db 4c5d6h", "p1 cc", "p2 cc",
         "p3 cc", "d db 8s", "p1 cc", "p2 cc", "p3 cc", "d db Kd", "p1 cc", "p2 cc", "p3 cc", "p1 sm 2h3h",
         "p2 sm ????", "p3 sm QcQd"], stacks=(200, 200, 200), players=["B", "C", "A"], number=2),
    phh(["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 cbr 5", "p1 f", "p2 cbr 15", "p3 f"],
        stacks=(200, 200, 200), players=["C", "A", "B"], winnings=[0, 11, 0], number=3),
    phh(["d dh p1 QsQd", "d dh p2 AhKh", "p2 cbr 200", "p1 cc", "d db 2c7dJh", "d db 3s", "d db 9h"],
        stacks=(200, 200), players=["A", "B"], winnings=[400, 0], number=4),
])


def test_statistics_equal_counts_made_by_hand():
    result = analyse(read_text(SMALL, "small.phhs"))
    assert result.report.read == 4 and result.report.replayed == 4
    a, b, c = (result.players[name] for name in "ABC")
    assert (a.hands, a.vpip, a.pfr, a.three_bets, a.three_bet_chances) == (4, 4, 2, 2, 3)
    assert (a.postflop_aggressive, a.postflop_calls, a.aggression) == (1, 0, math.inf)
    assert (a.flops, a.showdowns, a.showdown_wins, a.net_bb) == (3, 2, 1, 83.0)
    assert (b.hands, b.vpip, b.pfr, b.three_bet_chances, b.flops, b.showdowns, b.showdown_wins) == (4, 3, 2, 0, 2, 2, 1)
    assert b.net_bb == -101.5 and math.isnan(b.three_bet_rate) and math.isnan(b.aggression)
    assert (c.hands, c.vpip, c.pfr, c.postflop_aggressive, c.postflop_calls, c.flops, c.showdowns) == (3, 1, 1, 1, 1, 2, 1)
    assert (c.showdown_wins, c.net_bb, c.aggression, c.wtsd, c.wsd) == (0, 18.5, 1.0, 0.5, 0.0)
    assert a.vpip_rate == 1.0 and a.pfr_rate == 0.5 and a.three_bet_rate == 2 / 3 and a.wtsd == 2 / 3
    assert a.bb_per_100 == 100 * 83.0 / 4
    # hand 4: QsQd calls AhKh's all-in preflop; counted at QQ's exact equity 1 - 0.46214...
    assert a.adjusted_bb == pytest.approx(-17 + (400 * (1 - AK_VS_QQ) - 200) / 2, abs=1e-9)
    assert b.adjusted_bb == pytest.approx(-1.5 + (400 * AK_VS_QQ - 200) / 2, abs=1e-9)
    assert (a.allins, b.allins, c.allins) == (1, 1, 0)
    assert a.adjusted_bb + b.adjusted_bb + c.adjusted_bb == pytest.approx(0, abs=1e-9)


def _eval7_payments(holes, board, contributions, alive):
    """Every runout enumerated with eval7's evaluator: the independent reference."""
    cards = [eval7.Card(format_cards([c])) for c in range(52)]
    used = {c for s, h in enumerate(holes) if alive[s] for c in h} | set(board)
    rest = [c for c in range(52) if c not in used]
    levels = pot_levels(contributions, alive)
    totals = np.zeros(len(holes))
    count = 0
    for extra in itertools.combinations(rest, 5 - len(board)):
        full = [cards[c] for c in (*board, *extra)]
        values = {s: eval7.evaluate([cards[holes[s][0]], cards[holes[s][1]], *full]) for s in range(len(holes))
                  if alive[s]}
        for amount, seats in levels:
            best = max(values[s] for s in seats)
            winners = [s for s in seats if values[s] == best]
            for s in winners:
                totals[s] += amount / len(winners)
        count += 1
    return totals / count


@pytest.mark.parametrize(("holes", "board", "contributions", "alive"), [
    (["AhKh", "QsQd"], "2c7dJh", [100, 100], [True, True]),
    (["AhKh", "QsQd", "JcTc"], "2c7dJh", [50, 100, 100], [True, True, True]),  # a side pot
    (["AhKh", "QsQd", "9c9d", "2h2d"], "2c7dJh3s", [30, 100, 100, 60], [True, True, True, False]),  # dead money
    (["As5s", "Ad5d"], "KsQdJc", [80, 80], [True, True]),  # split pots
])
def test_exact_runouts_equal_eval7(holes, board, contributions, alive):
    cards = [parse_cards(h) for h in holes]
    ours = expected_payments(cards, parse_cards(board), contributions, alive)
    theirs = _eval7_payments(cards, parse_cards(board), contributions, alive)
    live_ours = [x for x, a in zip(ours, alive, strict=True) if a]
    assert np.allclose(live_ours, [x for x, a in zip(theirs, alive, strict=True) if a], atol=1e-9)
    assert sum(ours) == pytest.approx(sum(contributions))


def test_preflop_runouts_equal_the_published_equity():
    pays = expected_payments([parse_cards("AhKh"), parse_cards("QsQd")], (), [1, 1])
    assert pays[0] / 2 == pytest.approx(AK_VS_QQ, abs=1e-15)


@pytest.mark.parametrize(("holes", "contributions", "alive"), [
    (["AhKh", "QsQd", "7c7d"], [100, 100, 100], [True, True, True]),  # one pot: every board through known_hands
    (["AhKh", "QsQd", "7c7d", "2h3h"], [100, 100, 100, 40], [True, True, True, False]),  # dead money, one pot
    (["AhKh", "QsQd", "7c7d"], [100, 60, 100], [True, True, True]),  # a side pot: QsQd's cards dead for it
    (["AhKh", "QsQd", "7c7d", "Jh9h"], [100, 60, 100, 30], [True, True, True, True]),  # two side pots
])
def test_preflop_all_ins_equal_the_board_by_board_enumeration(holes, contributions, alive):
    """A preflop all-in is valued pot by pot through equity.enumeration.known_hands (checked against OMPEval's
    published figures and an independent enumeration in tests/equity), the live hands outside a side pot dead
    for it; it equals this module's own enumeration of every board (checked against eval7 above)."""
    from matchdb.core.evaluator import FLUSH_VALUE, STRAIGHT_TOP
    from matchdb.hands import allin

    cards = [parse_cards(h) for h in holes]
    ours = expected_payments(cards, (), contributions, alive)
    live = [c for c, a in zip(cards, alive, strict=True) if a]
    levels = pot_levels(contributions, alive)
    amounts = np.array([a for a, _ in levels], dtype=np.float64)
    masks = np.zeros((len(levels), len(live)), dtype=np.bool_)
    for i, (_, who) in enumerate(levels):
        masks[i, list(who)] = True
    used = {c for h in live for c in h}
    rest = np.array([c for c in range(52) if c not in used], dtype=np.int64)
    enumerated = allin._enumerate(np.array(live, dtype=np.int64), np.zeros(0, dtype=np.int64), rest, 5, amounts, masks,
                                  STRAIGHT_TOP, FLUSH_VALUE)
    assert np.allclose([x for x, a in zip(ours, alive, strict=True) if a], enumerated, atol=1e-9)
    assert sum(ours) == pytest.approx(sum(contributions))


FLOP_ALLIN = phh(["d dh p1 QsQd", "d dh p2 AhKh", "p2 cbr 6", "p1 cc", "d db 2c7dJh", "p1 cbr 194", "p2 cc",
                  "d db 3s", "d db 9h"], stacks=(200, 200), players=["A", "B"], winnings=[400, 0])


def test_heads_up_post_flop_all_ins_from_the_database_equal_eval7(full_db):
    with_db = analyse(read_text(FLOP_ALLIN, "flop.phh"), full_db)
    enumerated = analyse(read_text(FLOP_ALLIN, "flop.phh"))
    share = _eval7_payments([parse_cards("QsQd"), parse_cards("AhKh")], parse_cards("2c7dJh"), [200, 200],
                            [True, True])[0] / 400
    expected = (400 * share - 200) / 2
    assert with_db.players["A"].adjusted_bb == pytest.approx(expected, abs=1e-9)
    assert enumerated.players["A"].adjusted_bb == pytest.approx(expected, abs=1e-9)


def test_the_real_files_all_ins_equal_eval7(sample_replays):
    """Every all-in of the real files whose hands are shown, after the flop (the preflop one is slow below)."""
    from matchdb.hands.analysis import hand_facts

    _, hands = sample_replays
    checked = 0
    for done in hands:
        facts = hand_facts(done)
        if not any(f.allin for f in facts):
            continue
        dealt = (0, 3, 4, 5)[done.steps[-1].street]
        if dealt == 0:
            continue
        alive = [f.allin for f in facts]
        share = _eval7_payments([h or (0, 1) for h in done.holes], done.board[:dealt], done.contributions, alive)
        kept = 1 - done.rake / sum(done.won)
        for f in facts:
            assert f.adjusted == pytest.approx(f.net + (share[f.seat] - done.won[f.seat]) * kept, abs=1e-6)
        checked += 1
    assert checked == 3  # ABS 70 and 76, Party 3 (flop); PS 18 is preflop (below); PS 58, 77, 79 hide a hand


@pytest.mark.slow
def test_the_real_files_preflop_all_in_equals_eval7(sample_replays):
    from matchdb.hands.analysis import hand_facts

    _, hands = sample_replays
    [done] = [d for d in hands if d.record.label == "ps-200nl.phhs [18]"]
    facts = hand_facts(done)
    alive = [f.allin for f in facts]
    share = _eval7_payments([h or (0, 1) for h in done.holes], (), done.contributions, alive)
    for f in facts:
        assert f.adjusted == pytest.approx(f.net + (share[f.seat] - done.won[f.seat]), abs=1e-6)


def test_decisions_carry_equity_pot_odds_and_rate_of_return(full_db):
    text = phh(["d dh p1 QsQd", "d dh p2 AhKh", "p2 cbr 6", "p1 cc", "d db 2c7dJh", "p1 cbr 10", "p2 cc",
                "d db 3s", "p1 cc", "p2 cbr 20", "p1 f"], stacks=(200, 200), players=["A", "B"])
    result = analyse(read_text(text, "d.phh"), full_db, decisions=True)
    flop_call = next(d for d in result.decisions if d.player == "B" and d.street == "flop")
    share = _eval7_payments([parse_cards("AhKh"), parse_cards("QsQd")], parse_cards("2c7dJh"), [1, 1],
                            [True, True])[0] / 2
    assert flop_call.equity == pytest.approx(share, abs=1e-12) and flop_call.standard_error == 0
    assert flop_call.pot_odds == pytest.approx(10 / (22 + 10))
    assert flop_call.rate_of_return == pytest.approx(share / (10 / 32))
    preflop = next(d for d in result.decisions if d.player == "A" and d.street == "preflop")
    assert preflop.equity == pytest.approx(1 - AK_VS_QQ, abs=1e-12)  # against the hand shown
    assert {d.opponents for d in result.decisions} == {("AhKh",), ("QsQd",)}


def test_outputs_text_csv_json_pandas_plot(tmp_path):
    result = analyse(read_text(SMALL, "small.phhs"), track=["A"])
    text = result.to_text()
    assert "read 4 hands" in text and "\nA " in text
    rows = result.to_csv().splitlines()
    assert rows[0].startswith("player,hands,vpip") and len(rows) == 4
    data = json.loads(result.to_json())
    assert data["players"][0]["player"] == "A" and data["players"][0]["aggression"] is None  # inf -> null
    frame = result.frame()
    assert frame.loc["A", "hands"] == 4
    ax = result.plot("A", out=tmp_path / "a.png")
    assert np.allclose(ax.lines[0].get_ydata(), np.cumsum([-19, -1, 3, 100]))
    assert (tmp_path / "a.png").stat().st_size > 1000
    with pytest.raises(HandsError, match="The player 'B' was not tracked"):
        result.plot("B")
    with pytest.raises(HandsError, match="needs the database"):
        analyse(read_text(SMALL, "small.phhs"), decisions=True)


def _python_path(source):
    from matchdb.hands.analysis import Analysis
    from matchdb.hands.replayer import replay

    slow = Analysis()
    slow.report = replay(source, on_hand=slow.add)
    return slow


def _same_analysis(fast, slow):
    assert fast.report.to_dict() | {"seconds": 0} == slow.report.to_dict() | {"seconds": 0}
    assert fast.players.keys() == slow.players.keys()
    for name, stats in fast.players.items():
        for key, value in stats.row().items():
            other = slow.players[name].row()[key]
            assert value == pytest.approx(other, abs=1e-9, nan_ok=True), (name, key)


def test_the_compiled_replay_counts_as_the_python_replay():
    """analyse() replays in compiled blocks; the Python replay, hand by hand, gives the same figures."""
    from tests.hands.conftest import DATA

    _same_analysis(analyse(DATA), _python_path(DATA))
    _same_analysis(analyse(read_text(SMALL, "small.phhs")), _python_path(read_text(SMALL, "small.phhs")))
