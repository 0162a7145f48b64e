"""Answers at nodes: navigation by actions and cards (isomorphic cards included), ranges, equities against eval7,
hand categories, tables, JSON, the 16-bit mode, and saved solutions bound to their table."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from matchdb.solver import SolverError, load
from matchdb.solver.categories import MADE_HANDS
from matchdb.solver.layout import ALIGNMENT, per_thread
from tests.solver.conftest import PEER_IP, PEER_OOP

with warnings.catch_warnings():  # eval7 builds its range grammar with names pyparsing now deprecates
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7


@pytest.fixture(scope="module")
def turn(peer_db):
    """The peer's turn spot on a board with a river suit pair to swap (clubs and spades: Td9d6hQd), 30 iterations."""
    return peer_db.solve(PEER_OOP, PEER_IP, "Td9d6hQd", pot=200, stack=900, bet="60%, e, a", raise_="2.5x",
                         max_iterations=30, target=0.0)


@pytest.fixture(scope="module")
def river(small_db):
    return small_db.solve("AA,KK,QQ,JJ,T9s,A5s,76s", "AK,KQ,JJ,99,87s", "AhKhQh2c3d", pot=60, stack=200, bet="50%, a",
                          raise_="2.5x", target=1.0)


def test_a_line_of_actions_and_cards_leads_to_its_node(turn):
    node = turn.node("Check, Bet 120, Call, 7s")
    assert (node.kind, node.player, node.street, node.board) == ("action", "OOP", "river", "Td9d6hQd7s")
    assert node.line == ("Check", "Bet 120", "Call", "7s")
    assert node.pot == 200 + 2 * 120
    assert node.actions == [str(a) for a in turn.spot.tree.nodes[node.place.node].actions]
    assert turn.node(["check", "bet 120", "call", "7S"]).line == node.line
    chance = turn.node("Check, Bet 120, Call")
    assert chance.kind == "chance" and "7s" in chance.cards() and "Qd" not in chance.cards()
    assert chance.play("7s").line == node.line


def test_a_card_dealt_as_its_suit_twin_reads_the_twins_numbers_with_the_suits_swapped(turn):
    """On Td9d6hQd clubs and spades are interchangeable on the river: the solver stores 7c's subtree only."""
    clubs = turn.node("Check, Check, 7c")
    spades = turn.node("Check, Check, 7s")
    swap = str.maketrans("cs", "sc")
    hands_c = clubs.hands("oop")
    where = {h: i for i, h in enumerate(hands_c)}
    for i, hand in enumerate(spades.hands("oop")):
        twin = hand[:2].translate(swap) + hand[2:].translate(swap)
        twin = twin if twin in where else twin[2:] + twin[:2]
        assert spades.strategy[:, i] == pytest.approx(clubs.strategy[:, where[twin]], abs=1e-7)
        assert spades.weights("oop")[i] == pytest.approx(clubs.weights("oop")[where[twin]])
    assert spades.range_ev(0) == pytest.approx(clubs.range_ev(0), abs=1e-4)


def test_the_range_reaching_a_node_is_the_start_times_the_strategy_on_the_way(river):
    root = river.root
    bet = root.play("Bet 30")
    i = root.hands("oop").index("AsAd")
    assert bet.weights("oop")[i] == pytest.approx(root.strategy[1, i])
    assert np.array_equal(bet.weights("ip"), root.weights("ip"))
    call = bet.play("Call")
    assert call.kind == "showdown" and call.actions == [] and call.player is None
    assert call.weights("ip") == pytest.approx(bet.weights("ip") * bet.strategy[1])


def test_equities_are_eval7s_against_the_range_at_the_node(river):
    node = river.node("Bet 30")
    board = [eval7.Card(c) for c in ("Ah", "Kh", "Qh", "2c", "3d")]
    equity = node.equity("ip")
    opp = node.weights("oop")
    opp_hands = node.hands("oop")
    for i, hand in enumerate(node.hands("ip")[:12]):
        mine = [eval7.Card(hand[:2]), eval7.Card(hand[2:])]
        total = score = 0.0
        for j, other in enumerate(opp_hands):
            theirs = [eval7.Card(other[:2]), eval7.Card(other[2:])]
            if {str(c) for c in mine} & {str(c) for c in theirs} or opp[j] == 0:
                continue
            a, b = eval7.evaluate(mine + board), eval7.evaluate(theirs + board)
            total += opp[j]
            score += opp[j] * (1.0 if a > b else 0.5 if a == b else 0.0)
        assert equity[i] == pytest.approx(score / total, abs=1e-12)


def test_action_evs_average_to_the_hands_ev_and_eqr_is_ev_over_equity_times_pot(river):
    root = river.root
    ev = root.ev("oop")
    mixed = (root.strategy * root.action_ev()).sum(axis=0)
    assert mixed == pytest.approx(ev, abs=1e-3)
    with np.errstate(divide="ignore", invalid="ignore"):  # a hand drawing dead has no EQR
        expected = ev / (root.equity("oop") * 60)
    assert root.eqr("oop") == pytest.approx(expected, nan_ok=True)
    fold = river.node("Bet 30")
    assert fold.actions[0] == "Fold" and np.nanmax(np.abs(fold.action_ev()[0])) == 0


def test_categories_and_tables(river):
    root = river.root
    made = root.categories("oop")
    assert list(made["made"]) == [c for c in MADE_HANDS if c in set(made["made"])]  # in the categories' order
    assert {"set", "flush", "top pair"} <= set(made["made"])  # QQ, T9s of hearts, AA (one ace left)
    assert made["combos"].sum() == pytest.approx(root.combos("oop").sum())
    assert made["share"].sum() == pytest.approx(1.0)
    assert set(made.columns) >= {"made", "combos", "share", "equity", "ev", "Check", "Bet 30", "All-in 200"}
    draws = root.categories("ip", by="draws")
    assert set(draws["draws"]) <= {"flush draw", "open-ended", "gutshot", "backdoor flush", "no draw"}
    frame = root.to_pandas()
    assert list(frame.columns[:8]) == ["hand", "weight", "combos", "equity", "ev", "eqr", "made", "draws"]
    assert len(frame) == int((root.weights("oop") > 0).sum())
    sets = frame[frame["hand"].isin(["QsQd", "QdQc", "QsQc"])]
    assert set(sets["made"]) == {"set"}
    summary = json.loads(river.to_json())
    assert set(summary) >= {"exploitability", "oop_equity", "oop_ev", "ip_ev", "iterations", "seconds", "root"}
    assert summary["root"]["actions"] == ["Check", "Bet 30", "All-in 200"]
    assert sum(summary["root"]["frequencies"]) == pytest.approx(1.0)
    detail = json.loads(root.to_json(hands=True))
    assert len(detail["hands"]["oop"]) == len(frame)


def test_bad_lines_are_refused_in_one_sentence(river):
    for line, words in [("Raise 40", "is not available at this node"), ("Bet 30, Call, Check", "ends at a showdown"),
                        ("Bet 30, Qs", "deals 'Qs' where IP acts"), ("Walk", "does not parse")]:
        with pytest.raises(SolverError, match=words):
            river.node(line)


def test_the_memory_estimate_counts_what_is_allocated(river, turn):
    for solution in (river, turn):
        spot = solution.spot
        cards = spot.kspot[1]
        arrays = [a for a in spot.bufs if isinstance(a, np.ndarray)] + [cards.sd_order, cards.sd_strength,
                                                                          cards.sd_card0, cards.sd_card1]
        allocated = sum(a.nbytes for a in arrays)
        allocated += sum(row.base.nbytes for row in spot.scratch)  # each from a cache line: a little more
        # each thread the deals are spread over allocates rows of its own when it starts, two from a cache line
        workers = per_thread(spot.street)
        allocated += spot.threads * (sum(spot.scratch[k].nbytes for k in workers) + 2 * ALIGNMENT * bool(workers))
        assert allocated <= solution.memory <= 1.02 * allocated


def test_the_numbers_do_not_depend_on_the_threads(peer_db):
    """Threads take the deals as they come free, each deal's values go to a row of its own and are summed in one
    order: the same numbers to the bit on one thread and on two."""
    import numba

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread on this machine")
    spots = [peer_db.solve(PEER_OOP, PEER_IP, "Td9d6hQd", pot=200, stack=900, bet="60%, e, a", raise_="2.5x",
                           max_iterations=10, target=0.0, threads=threads).spot for threads in (1, 2)]
    assert [spot.threads for spot in spots] == [1, 2]
    for name in ("regrets", "strategy"):
        assert np.array_equal(getattr(spots[0].bufs, name), getattr(spots[1].bufs, name))


def test_the_16_bit_mode_solves_to_the_same_answer_in_less_memory(small_db, river):
    compact = small_db.solve("AA,KK,QQ,JJ,T9s,A5s,76s", "AK,KQ,JJ,99,87s", "AhKhQh2c3d", pot=60, stack=200,
                             bet="50%, a", raise_="2.5x", target=1.0, compressed=True)
    assert compact.memory < river.memory
    assert compact.exploitability <= 0.6
    assert compact.oop_ev == pytest.approx(river.oop_ev, abs=0.6)
    assert compact.root.frequencies() == pytest.approx(river.root.frequencies(), abs=0.05)


def test_a_saved_solution_loads_with_the_same_answers(river, small_db, tmp_path):
    path = tmp_path / "river.npz"
    river.save(path)
    again = small_db.load_solution(path)
    assert again.iterations == river.iterations and again.exploitability == river.exploitability
    assert np.array_equal(again.root.strategy, river.root.strategy)
    assert again.oop_ev == pytest.approx(river.oop_ev, abs=1e-9)
    assert again.node("Bet 30, Call").weights("oop") == pytest.approx(river.node("Bet 30, Call").weights("oop"))
    assert json.loads(again.to_json())["root"] == json.loads(river.to_json())["root"]


def test_a_saved_solution_is_refused_on_other_tables(river, small_db, tmp_path):
    path = tmp_path / "river.npz"
    river.save(path)

    class Changed:
        def table(self, index):
            table = small_db.table(index).copy()
            table[0, 0] ^= 1
            return table

    with pytest.raises(SolverError, match="was solved on flop table .* but this database's is"):
        load(path, Changed())
    (tmp_path / "junk.npz").write_bytes(b"not a file of numbers")
    with pytest.raises(SolverError, match="is not a saved solution"):
        load(tmp_path / "junk.npz", small_db)
    with pytest.raises(SolverError, match="No saved solution at"):
        load(tmp_path / "missing.npz", small_db)
